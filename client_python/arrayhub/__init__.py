"""ArrayHub's Python client: NumPy/CuPy-shaped arrays that live on an ``arrayhubd`` server.

Code written for CuPy or NumPy runs by changing the import::

    import arrayhub as cp

    x = cp.arange(10, dtype=cp.float32)
    y = cp.sqrt(x) * 2 + 1
    print(y.sum().get())

Module-level functions use the current client: the innermost ``with client:`` or
``with arrayhub.session():`` block, else a default client connected on first use to
``$ARRAYHUB_ADDRESS`` (default ``localhost:50051``) with token ``$ARRAYHUB_TOKEN``. Every
computation runs on the server; operations the server does not implement yet raise
NotImplementedError with the server's message.

Operations are pipelined, as CUDA kernel launches are: each returns at once, and the host
waits only where a value comes back to it (``get``, ``float``, ``print``, ...) or at
:func:`synchronize`. :func:`set_sync` (or ``ARRAYHUB_SYNC=1``) makes every operation one
blocking call instead. See docs/semantics.md, "Pipelined execution".
"""

from importlib import resources as _resources

from numpy import (bool_, complex64, complex128, dtype, e, float16, float32, float64, inf,
                   int8, int16, int32, int64, nan, newaxis, pi, uint8, uint16, uint32, uint64)

from arrayhub import fft, linalg, random, testing
from arrayhub import _array_api, _set_functions
from arrayhub._set_functions import unique_all, unique_counts, unique_inverse, unique_values
from arrayhub._array_api import (__array_namespace_info__, astype, cumulative_prod,
                                 cumulative_sum, matrix_transpose, positive, take_along_axis,
                                 vecdot)
from arrayhub._attributes import ndim, shape, size
from arrayhub._batch import Batch, batch
from arrayhub._client import Client, connect, get_client, session, set_default_client
from arrayhub._creation import (arange, array, asarray, asnumpy, empty, empty_like, eye, full,
                                full_like, identity, linspace, ones, ones_like, zeros,
                                zeros_like)
from arrayhub import _dtype_functions
from arrayhub._dtype_functions import (bool, byte, can_cast, cdouble, complexfloating, csingle,
                                       double, finfo, floating, generic, half, iinfo, inexact,
                                       int_, intc, integer, intp, isdtype, issubdtype, long,
                                       longlong, number, promote_types, result_type, short,
                                       signedinteger, single, ubyte, uint, uintc, uintp, ulong,
                                       ulonglong, unsignedinteger, ushort)
from arrayhub._dtypes import SUPPORTED_DTYPES
from arrayhub._fusion import fuse
from arrayhub._kernels import ElementwiseKernel, ReductionKernel
from arrayhub._raw_kernels import RawKernel, RawModule
from arrayhub._files import (NpzFile, genfromtxt, load, loadtxt, save, savetxt, savez,
                             savez_compressed)
from arrayhub._errors import (ArrayHubAxisError, ArrayHubConnectionError, ArrayHubError,
                              ArrayHubIndexError, ArrayHubLinAlgError, ArrayHubMemoryError,
                              ArrayHubNotImplementedError, ArrayHubOverflowError,
                              ArrayHubPermissionError, ArrayHubTimeoutError, ArrayHubTypeError,
                              ArrayHubValueError, ArrayNotFoundError, SessionNotFoundError,
                              ArrayHubBatchError)
from arrayhub._interop import from_dlpack, get_array_module
from arrayhub import _math_functions
from arrayhub._math_functions import (allclose, around, array_equal, array_equiv, average,
                                      count_nonzero, cross, diff, isclose, kron, ptp, round)
from arrayhub._manipulation import (argsort, ascontiguousarray, broadcast_to, compress,
                                    concatenate, copy, cumprod, cumsum, diagonal, expand_dims,
                                    flip, nonzero, ravel, repeat, reshape, roll, searchsorted,
                                    sort, split, squeeze, stack, swapaxes, take, tile,
                                    transpose)
from arrayhub import _matrix_functions
from arrayhub._matrix_functions import (diag, diagflat, geomspace, indices, logspace, meshgrid,
                                        trace, tri, tril, triu)
from arrayhub._ndarray import Flags, ndarray
from arrayhub._pipeline import is_sync, set_sync
from arrayhub._pinned import empty_like_pinned, empty_pinned, zeros_like_pinned, zeros_pinned
from arrayhub._products import dot, inner, matmul, outer, tensordot, vdot
from arrayhub._reduction import (all, amax, amin, any, argmax, argmin, max, mean, min, prod,
                                 std, sum, var)
from arrayhub._sharing import attach, checkpoint, open, publish, unpublish
from arrayhub._shape_functions import (array_split, broadcast_arrays, broadcast_shapes,
                                       dsplit, fliplr, flipud, hsplit, moveaxis, permute_dims,
                                       resize, rollaxis, rot90, unstack, vsplit)
from arrayhub._stacking import (atleast_1d, atleast_2d, atleast_3d, block, column_stack,
                                concat, dstack, hstack, row_stack, vstack)
from arrayhub._insert_delete import append, delete, insert
from arrayhub import _histograms, _put_functions
from arrayhub._histograms import (bincount, digitize, histogram, histogram2d,
                                  histogram_bin_edges, histogramdd)
from arrayhub._put_functions import (choose, copyto, extract, fill_diagonal, place, put,
                                     put_along_axis, putmask)
from arrayhub._pad import pad
from arrayhub import (_einsum, _functional, _nan_functions, _numerics, _polynomial, _sets,
                      _sorting, _statistics)
from arrayhub._functional import apply_along_axis, apply_over_axes, piecewise, select
from arrayhub._numerics import (convolve, correlate, ediff1d, gradient, i0, interp, trapezoid,
                                unwrap, vander)
from arrayhub._polynomial import (poly, polyadd, polyder, polydiv, polyfit, polyint, polymul,
                                  polysub, polyval, roots)
from arrayhub._einsum import einsum, einsum_path
from arrayhub._sets import intersect1d, isin, setdiff1d, setxor1d, union1d, unique
from arrayhub._sorting import argpartition, lexsort, partition, sort_complex
from arrayhub._nan_functions import (nanargmax, nanargmin, nancumprod, nancumsum, nanmax,
                                     nanmean, nanmin, nanprod, nanstd, nansum, nanvar)
from arrayhub._statistics import (corrcoef, cov, median, nanmedian, nanpercentile, nanquantile,
                                  percentile, quantile)
from arrayhub._peer import Capability, issue_capability, pull
from arrayhub._ufuncs import UFUNCS, clip, ufunc, where
from arrayhub import cuda, profiler  # noqa: E402  # cuda after the modules _client needs
from arrayhub import distributed  # noqa: E402  # after cuda, whose devices it names
from arrayhub.cuda import get_default_memory_pool, get_default_pinned_memory_pool

#: The version of the Python Array API standard this namespace follows.
__array_api_version__ = "2024.12"
from arrayhub._watch import SessionEvent, SessionWatch
from arrayhub import _ufunc_pairs  # noqa: F401  (adds frexp, modf and divmod to UFUNCS)
from arrayhub._complex_parts import angle, imag, real
from arrayhub._elementwise_functions import fix, isneginf, isposinf, nan_to_num, sinc
# CuPy's top-level surface by family (each module's __all__ is exported below).
from arrayhub import (_array_kind, _bits, _differences, _host_creation, _index_helpers,
                      _memory, _numpy1_aliases, _printing, _scalar_types, _type_checks,
                      _utilities, _windows)
from arrayhub._array_kind import *  # noqa: F401,F403
from arrayhub._bits import *  # noqa: F401,F403
from arrayhub._differences import *  # noqa: F401,F403
from arrayhub._host_creation import *  # noqa: F401,F403
from arrayhub._index_helpers import *  # noqa: F401,F403
from arrayhub._memory import *  # noqa: F401,F403
from arrayhub._numpy1_aliases import *  # noqa: F401,F403
from arrayhub._printing import *  # noqa: F401,F403
from arrayhub._scalar_types import *  # noqa: F401,F403
from arrayhub._type_checks import *  # noqa: F401,F403
from arrayhub._utilities import *  # noqa: F401,F403
from arrayhub._windows import *  # noqa: F401,F403

#: The package's version, the daemon's too (arrayhubd --version): one file, arrayhub/VERSION.
__version__ = _resources.files(__name__).joinpath("VERSION").read_text().strip()


def synchronize(client: Client | None = None) -> None:
    """Waits until the operations queued in ``client`` (default: the current client) have
    run; raises the error of the first that failed (see :meth:`Client.synchronize`)."""
    (client or get_client()).synchronize()


globals().update(UFUNCS)  # add, subtract, ..., exp, sqrt, ... and NumPy's aliases.

__all__ = sorted(
    ["Client", "connect", "get_client", "session", "set_default_client", "fft", "linalg", "random",
     "testing",
     "cuda", "distributed", "profiler", "get_array_module", "from_dlpack", "get_default_memory_pool",
     "get_default_pinned_memory_pool",
     "batch", "Batch", "ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule", "fuse", "set_sync", "is_sync", "synchronize", "SessionEvent", "SessionWatch",
     "ndarray", "Flags", "ufunc", "SUPPORTED_DTYPES",
     "array", "asarray", "asnumpy", "empty", "zeros", "ones", "full", "arange", "linspace",
     "eye", "identity", "empty_like", "zeros_like", "ones_like", "full_like",
     "empty_pinned", "zeros_pinned", "empty_like_pinned", "zeros_like_pinned",
     "clip", "where", "real", "imag", "angle", "fix", "sinc", "nan_to_num", "isposinf",
     "isneginf", "sum", "prod", "amin", "amax", "min", "max", "mean", "var", "std",
     "argmin", "argmax", "any", "all", "matmul", "dot", "vdot", "inner", "outer", "tensordot",
     "reshape", "transpose", "swapaxes", "squeeze", "expand_dims", "broadcast_to", "ravel",
     "diagonal", "copy", "ascontiguousarray", "concatenate", "stack", "split", "compress", "tile", "repeat", "flip", "roll", "sort",
     "argsort", "cumsum", "cumprod", "searchsorted", "take", "nonzero",
     "open", "publish", "unpublish", "attach", "Capability", "issue_capability", "pull",
     "checkpoint",
     "shape", "ndim", "size",
     "save", "load", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "NpzFile",
     "vstack", "row_stack", "hstack", "dstack", "column_stack", "concat", "block",
     "array_split", "hsplit", "vsplit", "dsplit", "atleast_1d", "atleast_2d", "atleast_3d",
     "moveaxis", "rollaxis", "permute_dims", "unstack", "broadcast_arrays",
     "broadcast_shapes", "flipud", "fliplr", "rot90", "resize", "delete", "insert", "append",
     "pad",
     "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "float32", "float64", "complex64", "complex128", "dtype",
     "e", "inf", "nan", "newaxis", "pi",
     "ArrayHubError", "ArrayHubValueError", "ArrayHubTypeError", "ArrayHubIndexError",
     "ArrayHubAxisError", "ArrayHubOverflowError", "ArrayNotFoundError", "ArrayHubMemoryError",
     "ArrayHubPermissionError", "ArrayHubConnectionError", "SessionNotFoundError",
     "ArrayHubNotImplementedError", "ArrayHubLinAlgError", "ArrayHubTimeoutError",
     "ArrayHubBatchError", *UFUNCS,
     *_array_api.__all__,
     *_set_functions.__all__,
     *_dtype_functions.__all__,
     *_math_functions.__all__,
     *_matrix_functions.__all__,
     *_nan_functions.__all__,
     *_statistics.__all__,
     *_sets.__all__,
     *_sorting.__all__,
     *_einsum.__all__,
     *_functional.__all__,
     *_numerics.__all__,
     *_polynomial.__all__,
     *(name for module in (_array_kind, _bits, _differences, _host_creation, _index_helpers,
                           _memory, _numpy1_aliases, _printing, _scalar_types, _type_checks,
                           _utilities, _windows) for name in module.__all__),
     *_histograms.__all__,
     *_put_functions.__all__])
