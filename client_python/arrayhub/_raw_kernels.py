"""Raw CUDA kernels: CuPy's RawKernel and RawModule, run by a daemon whose owner started it
with ``--allow-raw-kernels`` (single tenant only: a raw kernel can read and write all of the
GPU's memory). Elsewhere a call raises ArrayHubPermissionError; on the CPU backend
ArrayHubNotImplementedError.

Calls are synchronous: each waits for the queued operations, then sends the kernel, which the
server compiles once (NVRTC, kept in its kernel cache) and enqueues on the session's stream;
an error (a compile error, a bad argument) is raised by the call itself. Array arguments are
passed as pointers to their first element, scalars by value: NumPy scalars in their dtype,
Python bool/int/float/complex as CuPy passes them (bool, int64, float64, complex128).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

from arrayhub import _dtypes, _ndarray, _ops
from arrayhub._errors import ArrayHubNotImplementedError, ArrayHubTypeError, ArrayHubValueError, \
    client_error
from arrayhub.v1 import compute_pb2

__all__ = ["RawKernel", "RawModule"]

# Python scalars' C types, as CuPy's kernels take them.
_PYTHON_SCALAR_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64),
                         float: np.dtype(np.float64), complex: np.dtype(np.complex128)}


def _unsupported(what: str) -> Exception:
    return client_error(ArrayHubNotImplementedError,
                        f"{what} is not supported: arrayhub compiles raw kernels from source "
                        f"with NVRTC on the server (docs/user-kernels.md)")


def _dims(value: Any, what: str) -> list[int]:
    dims = [operator.index(value)] if not isinstance(value, Sequence) else \
        [operator.index(v) for v in value]
    if not 1 <= len(dims) <= 3:
        raise client_error(ArrayHubValueError, f"{what} must have 1 to 3 dimensions")
    return dims


def _argument(value: Any) -> compute_pb2.RawKernelArgument:
    if isinstance(value, _ndarray.ndarray):
        return compute_pb2.RawKernelArgument(handle=_ops.handle_of(value))
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
        value = np.asarray(value)
        dtype = value.dtype
        value = value.item()
    elif _dtypes.is_python_scalar(value):
        # bool first: it is an int too.
        dtype = next(d for t, d in _PYTHON_SCALAR_DTYPES.items() if isinstance(value, t))
    else:
        raise client_error(ArrayHubTypeError,
                           f"Unsupported type {type(value)}: raw kernels take arrayhub arrays "
                           f"and scalars; upload NumPy arrays with arrayhub.asarray()")
    return compute_pb2.RawKernelArgument(scalar=_dtypes.scalar_to_proto(value),
                                         dtype=_dtypes.to_wire(dtype))


class RawKernel:
    """CuPy's RawKernel: the kernel ``name`` (an ``extern "C"`` function) of CUDA source
    ``code``, compiled by the server with ``options`` (NVRTC options from the server's
    allowlist: -D/-U, -std=, --use_fast_math, ...). Call it with ``(grid, block, args)``."""

    def __init__(self, code: str, name: str, options: tuple = (), backend: str = "nvrtc",
                 translate_cucomplex: bool = False, enable_cooperative_groups: bool = False,
                 jitify: bool = False) -> None:
        if backend != "nvrtc":
            raise _unsupported(f"backend={backend!r}")
        if translate_cucomplex:
            raise _unsupported("translate_cucomplex=True")
        if enable_cooperative_groups:
            raise _unsupported("enable_cooperative_groups=True")
        if jitify:
            raise _unsupported("jitify=True")
        self.code = code
        self.name = name
        self.options = tuple(options)
        self.backend = backend
        self.translate_cucomplex = translate_cucomplex
        self.enable_cooperative_groups = enable_cooperative_groups
        self.jitify = jitify

    def __call__(self, grid: Any, block: Any, args: Sequence[Any], *,
                 shared_mem: int = 0) -> None:
        """Launches the kernel on the session's stream with ``grid`` and ``block`` (ints or
        tuples of 1 to 3 ints) and ``args`` in the kernel's parameter order."""
        if not isinstance(args, (tuple, list)):
            raise client_error(ArrayHubTypeError, "args must be a tuple")
        arguments = [_argument(a) for a in args]
        client = _ops.client_for(*args)
        request = compute_pb2.RunRawKernelRequest(
            code=self.code, name=self.name, options=list(self.options),
            grid=_dims(grid, "grid"), block=_dims(block, "block"),
            shared_mem=operator.index(shared_mem), arguments=arguments)
        client._rpc("RunRawKernel", request)


class RawModule:
    """CuPy's RawModule: CUDA source ``code`` whose ``extern "C"`` kernels
    :meth:`get_function` returns as RawKernels. ``path=`` (a cubin or PTX file) is not
    supported; ``name_expressions`` may name extern "C" kernels only (C++ template
    instantiations need NVRTC's name lowering, which the server does not do)."""

    def __init__(self, code: Optional[str] = None, path: Optional[str] = None,
                 options: tuple = (), backend: str = "nvrtc", translate_cucomplex: bool = False,
                 enable_cooperative_groups: bool = False,
                 name_expressions: Optional[Sequence[str]] = None, jitify: bool = False) -> None:
        if path is not None:
            raise _unsupported("RawModule(path=...) (a cubin or PTX file)")
        if code is None:
            raise client_error(ArrayHubTypeError, "RawModule needs code=")
        for expression in name_expressions or ():
            if not expression.isidentifier():
                raise _unsupported(f"name expression {expression!r} (a C++ name)")
        # Checks the other arguments as RawKernel does.
        RawKernel(code, "", options, backend, translate_cucomplex, enable_cooperative_groups,
                  jitify)
        self.code = code
        self.options = tuple(options)
        self.backend = backend
        self.name_expressions = tuple(name_expressions or ())

    def get_function(self, name: str) -> RawKernel:
        """The kernel ``name`` of this module (compiled by the server at its first call)."""
        return RawKernel(self.code, name, self.options, self.backend)
