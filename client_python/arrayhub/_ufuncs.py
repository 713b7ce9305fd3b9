"""NumPy's ufuncs, evaluated on the server (Elementwise RPC), plus clip and where.

The ufunc objects are made from _ufunc_names.py, which is generated from the server's table of
ops: one per NumPy name, with NumPy's aliases bound to the same object (``divide is
true_divide``, ``abs is absolute``, ...).
Semantics are NumPy 2's: broadcasting, NEP 50 promotion with weak Python scalars, integer
overflow wraps. Where the server differs (integer ``power`` with a negative exponent gives
the truncated result instead of raising) the server's contract documents it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _ops, _ufunc_methods
from arrayhub._errors import (ArrayHubNotImplementedError, ArrayHubTypeError, ArrayHubValueError,
                              client_error)
from arrayhub._ndarray import ndarray
from arrayhub._ufunc_names import UFUNC_NAMES

__all__ = ["ufunc", "UFUNCS", "clip", "where"]


class ufunc:
    """A NumPy ufunc that runs on the server.

    Call it like NumPy's: ``f(x1[, x2], out=None, where=True, dtype=None)``. Operands are
    arrayhub arrays or scalars (NumPy arrays are refused, as CuPy does). A call whose operands
    are all Python scalars runs on the server too and returns a 0-d array (as CuPy), with
    NumPy 2's types for them (float64, int64, bool, complex128). The methods ``reduce``,
    ``accumulate``, ``outer`` and ``at`` run on the server where it has the operation (see
    _ufunc_methods.py); the attributes (``nin``, ``nout``, ``nargs``, ``identity``,
    ``types``, ...) are NumPy's, ``types`` limited to the dtypes the server stores.
    """

    def __init__(self, name: str, nin: int) -> None:
        numpy_ufunc = getattr(np, name, None)
        self.__name__ = name
        self.nin = nin
        self.nout = numpy_ufunc.nout if isinstance(numpy_ufunc, np.ufunc) else 1
        self.nargs = nin + self.nout
        self.identity = numpy_ufunc.identity if isinstance(numpy_ufunc, np.ufunc) else None
        self.signature = None
        self.types = _ufunc_methods.types_of(name)
        self.ntypes = len(self.types)
        self.__doc__ = f"numpy.{name} evaluated on the server (Elementwise RPC)."

    def __call__(self, *args: Any, out: Any = None, where: Any = True,
                 dtype: DTypeLike | None = None, casting: str = "same_kind", order: str = "K",
                 subok: bool = True, signature: Any = None) -> ndarray:
        if len(args) == self.nargs and out is None:  # out given positionally, as NumPy allows
            args, out = args[:-1], args[-1]
        if len(args) != self.nin:
            raise client_error(ArrayHubTypeError,
                               f"{self.__name__}() takes from {self.nin} to {self.nargs} "
                               f"positional arguments but {len(args)} were given")
        if casting != "same_kind" or order != "K" or signature is not None:
            raise client_error(ArrayHubNotImplementedError,
                               f"{self.__name__}: arrayhub ufuncs take casting='same_kind', "
                               f"order='K' and no signature only")
        if where is True:
            return _ops.elementwise(self.__name__, args, out=out, dtype=dtype)
        # NumPy leaves the elements where the mask is false as they were in out (undefined
        # without out): computed everywhere, then merged into out on the server.
        result = _ops.elementwise(self.__name__, args, dtype=dtype)
        if out is None:
            return result
        target = _ops._out_array(out)
        return _ops.elementwise("where", (where, result, target), out=target)

    def reduce(self, array: Any, axis: Any = 0, dtype: DTypeLike | None = None,
               out: Any = None, keepdims: bool = False, initial: Any = _ufunc_methods.NO_VALUE,
               where: Any = True) -> ndarray:
        """numpy.ufunc.reduce, for add, multiply, maximum, minimum, logical_and and
        logical_or (the server's sum, prod, max, min, all and any). The result over every
        axis is a 0-d array."""
        return _ufunc_methods.reduce(self, array, axis, dtype, out, keepdims, initial, where)

    def accumulate(self, array: Any, axis: Any = 0, dtype: DTypeLike | None = None,
                   out: Any = None) -> ndarray:
        """numpy.ufunc.accumulate, for add and multiply (the server's cumsum and cumprod)."""
        return _ufunc_methods.accumulate(self, array, axis, dtype, out)

    def outer(self, a: Any, b: Any, **kwargs: Any) -> ndarray:
        """numpy.ufunc.outer: ``f(a[..., None, ...], b)`` through a view of ``a``."""
        return _ufunc_methods.outer(self, a, b, **kwargs)

    def at(self, a: Any, indices: Any, b: Any = None) -> None:
        """numpy.ufunc.at: add, subtract, multiply, maximum, minimum, fmax, fmin (and
        logical_and/or of bools) combine repeated indices on the server in NumPy's order;
        other ufuncs take indices that select each element once."""
        _ufunc_methods.at(self, a, indices, b)

    def reduceat(self, array: Any, indices: Any, axis: int = 0, dtype: DTypeLike | None = None,
                 out: Any = None) -> ndarray:
        """numpy.ufunc.reduceat: the segments gathered and combined by the scatter ``at``
        uses, on the server (the ufuncs ``at`` combines with, logical_and/or)."""
        return _ufunc_methods.reduceat(self, array, indices, axis, dtype, out)

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}'>"


# numpy.clip is a function (either bound may be None), defined below.
_FUNCTIONS = {"clip"}


def _make_ufuncs() -> dict[str, ufunc]:
    ufuncs: dict[str, ufunc] = {}
    for name, nin, aliases in UFUNC_NAMES:
        if name not in _FUNCTIONS:
            ufuncs.update(dict.fromkeys((name, *aliases), ufunc(name, nin)))
    return ufuncs


#: Every ufunc by each of its names.
UFUNCS: dict[str, ufunc] = _make_ufuncs()


_NO_VALUE = object()  # Tells "not given" from None, as NumPy's clip must.


def clip(a: _ops.Operand, a_min: Any = _NO_VALUE, a_max: Any = _NO_VALUE, out: Any = None, *,
         min: Any = _NO_VALUE, max: Any = _NO_VALUE) -> ndarray:
    """numpy.clip: ``minimum(maximum(a, a_min), a_max)``, NaN-propagating. Either bound may be
    None or left out (``min``/``max`` are NumPy 2's other names for them); with neither, a
    copy of ``a``."""
    # NumPy 2's rules for the two spellings, messages included.
    if a_min is _NO_VALUE and a_max is _NO_VALUE:
        low = None if min is _NO_VALUE else min
        high = None if max is _NO_VALUE else max
    elif a_min is _NO_VALUE or a_max is _NO_VALUE:
        missing = "a_min" if a_min is _NO_VALUE else "a_max"
        raise client_error(ArrayHubTypeError,
                           f"clip() missing 1 required positional argument: '{missing}'")
    elif min is not _NO_VALUE or max is not _NO_VALUE:
        raise client_error(ArrayHubValueError,
                           "Passing `min` or `max` keyword argument when `a_min` and `a_max` "
                           "are provided is forbidden.")
    else:
        low, high = a_min, a_max
    if low is None and high is None:
        return _ops.elementwise("copy", (a,), out=out)
    if low is None:
        return _ops.elementwise("minimum", (a, high), out=out)
    if high is None:
        return _ops.elementwise("maximum", (a, low), out=out)
    return _ops.elementwise("clip", (a, low, high), out=out)


def where(condition: _ops.Operand, x: Any = None, y: Any = None) -> Any:
    """numpy.where: ``x`` where ``condition`` is true, else ``y``, broadcast together. With the
    condition alone, ``nonzero(condition)`` (a tuple of index arrays; ArrayOp RPC)."""
    if x is None and y is None:
        return tuple(_ops.array_op("nonzero", (_ops.require_array(condition, "where"),)))
    if x is None or y is None:
        raise client_error(ArrayHubValueError, "either both or neither of x and y should be given")
    return _ops.elementwise("where", (condition, x, y))
