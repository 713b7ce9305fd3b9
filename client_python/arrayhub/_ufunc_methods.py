"""The methods of NumPy's ufuncs (reduce, accumulate, outer, at, reduceat) on the server.

Each maps onto an operation the server has: ``reduce`` onto the Reduce RPC (add -> sum,
multiply -> prod, maximum -> max, minimum -> min, logical_and -> all, logical_or -> any;
bitwise_and and bitwise_or of bool arrays -> all, any),
``accumulate`` onto the ArrayOp scans (add -> cumsum, multiply -> cumprod), ``outer`` onto
broadcasting views, ``at`` onto SetItem's combining scatter (add, subtract, multiply, maximum,
minimum, fmax, fmin; logical_and and logical_or of bool arrays), which applies repeated
indices in NumPy's sequential order, and ``reduceat`` onto gathers and that scatter. The
server has no other reductions or scans, and ``at`` of other ufuncs takes indices that
select each element once: the rest raise NotImplementedError saying so, never a silent
download.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._creation import full
from arrayhub._dtypes import SUPPORTED_DTYPES
from arrayhub._errors import (ArrayHubAxisError, ArrayHubIndexError,
                              ArrayHubNotImplementedError, ArrayHubTypeError,
                              ArrayHubValueError, client_error)
from arrayhub._ndarray import ndarray
from arrayhub._segments import along

#: ufunc.reduce -> the server's Reduce op.
_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
               "logical_and": "all", "logical_or": "any"}
#: ... and for bool arrays, where the bitwise ops are the logical ones.
_BOOL_REDUCTIONS = {"bitwise_and": "all", "bitwise_or": "any"}
#: The reductions whose Reduce op takes dtype= (the others are computed in the input's dtype).
_WITH_DTYPE = {"sum", "prod"}
#: ufunc.accumulate -> the server's ArrayOp scan.
_SCANS = {"add": "cumsum", "multiply": "cumprod"}
#: ufunc.at -> the combine op of the server's scatter.
_COMBINES = {name: name for name in
             ("add", "subtract", "multiply", "maximum", "minimum", "fmax", "fmin")}
#: ... and of bool arrays with bool values, whose logical ops are add and multiply.
_BOOL_COMBINES = {"logical_or": "add", "logical_and": "multiply"}


class NoValue:
    """The default of ``initial`` (NumPy's np._NoValue): no initial value."""

    def __repr__(self) -> str:
        return "<no value>"


NO_VALUE = NoValue()


def _not_implemented(name: str, method: str, why: str) -> ArrayHubNotImplementedError:
    return client_error(ArrayHubNotImplementedError,
                        f"numpy.{name}.{method} is not implemented by ArrayHub: {why}; call "
                        f"arrayhub.asnumpy() first to compute it on the host")


def _binary_only(ufunc: Any, what: str) -> None:
    if ufunc.nin != 2:
        raise client_error(ArrayHubValueError, f"{what} only supported for binary functions")


def _recorded(a: ndarray) -> bool:
    """Whether ``a`` is a pending result of an arrayhub.batch() block, whose shape and dtype
    are known once the block has run (the server checks what needs them then)."""
    return a._batch is not None and a._batch.is_block


def _empty_reduction_shape(a: ndarray, axis: Any, keepdims: bool) -> Any:
    """The result's shape when ``axis`` reduces no element of ``a`` (None otherwise, also
    for an axis out of range, which the server reports)."""
    axes = range(a.ndim) if axis is None else axis if isinstance(axis, (tuple, list)) else (axis,)
    reduced = set()
    for x in axes:
        x = operator.index(x)
        if not -a.ndim <= x < a.ndim:
            return None
        reduced.add(x % a.ndim)
    if math.prod(a.shape[i] for i in reduced):
        return None
    return tuple(1 if i in reduced else n for i, n in enumerate(a.shape)
                 if keepdims or i not in reduced)


def reduce(ufunc: Any, array: Any, axis: Any = 0, dtype: DTypeLike | None = None,
           out: Any = None, keepdims: bool = False, initial: Any = NO_VALUE,
           where: Any = True) -> ndarray:
    """ufunc.reduce: one Reduce call, plus one elementwise op for ``initial`` or ``where``."""
    name = ufunc.__name__
    _binary_only(ufunc, "reduce")
    a = _ops.require_array(array, f"{name}.reduce")
    op = _REDUCTIONS.get(name) or (_BOOL_REDUCTIONS.get(name) if a.dtype == np.bool_ else None)
    if op is None:
        raise _not_implemented(name, "reduce", "the server reduces with add, multiply, "
                               "maximum, minimum, logical_and and logical_or only (and "
                               "bitwise_and, bitwise_or of bool arrays)")
    if axis == 0 and not _recorded(a) and a.ndim == 0:
        axis = None  # NumPy reduces a 0-d array over no axis for the default axis=0.
    if initial is None:
        initial = NO_VALUE  # None is "no initial value" for every dtype the server has.
    identity = ufunc.identity
    if where is not True:
        # Masked-out elements become the identity (or initial, which max and min may see
        # twice), which changes no result.
        fill = initial if identity is None else identity
        if fill is NO_VALUE:
            raise client_error(ArrayHubValueError,
                               f"reduction operation '{name}' does not have an identity, so "
                               f"to use a where mask one has to specify 'initial'")
        a = _ops.elementwise("where", (where, a, a.dtype.type(fill)))
    if dtype is not None and op not in _WITH_DTYPE:
        if op in ("all", "any"):
            if np.dtype(dtype) != np.bool_:
                raise _not_implemented(name, "reduce", f"dtype={np.dtype(dtype)} (the "
                                       f"server's {op} gives bool)")
        elif np.dtype(dtype) != a.dtype:
            a = a.astype(dtype)  # NumPy computes the loop in dtype.
    empty_shape = (_empty_reduction_shape(a, axis, keepdims)
                   if initial is not NO_VALUE and op in ("max", "min") else None)
    if empty_shape is not None:
        # Nothing to reduce: the result is the initial value everywhere (the server's max
        # of nothing raises, as NumPy's does without initial).
        result = full(empty_shape, initial, dtype=a.dtype)
        if out is None:
            return result
        target = _ops._out_array(out)
        target[...] = result
        return target
    result = _ops.reduce(op, a, axis, keepdims=keepdims,
                         dtype=dtype if op in _WITH_DTYPE else None, out=out)
    if initial is not NO_VALUE:
        # The initial value joins the reduction: one more op, in place, in the result's dtype
        # (NumPy casts initial to it: np.add.reduce([1, 2], initial=0.5) is 3).
        value = result.dtype.type(initial).item()
        _ops.elementwise(name, (result, value), out=result)
    return result


def accumulate(ufunc: Any, array: Any, axis: Any = 0, dtype: DTypeLike | None = None,
               out: Any = None) -> ndarray:
    """ufunc.accumulate: the server's cumsum/cumprod (NumPy 2 gives the same dtypes)."""
    name = ufunc.__name__
    _binary_only(ufunc, "accumulate")
    op = _SCANS.get(name)
    if op is None:
        raise _not_implemented(name, "accumulate", "the server scans with add (cumsum) and "
                               "multiply (cumprod) only")
    a = _ops.require_array(array, f"{name}.accumulate")
    if not _recorded(a) and a.ndim == 0:
        raise client_error(ArrayHubTypeError, "cannot accumulate on a scalar")
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise client_error(ArrayHubValueError, "accumulate does not allow multiple axes")
        axis = axis[0]
    result = _ops.array_op(op, (a,), axis=operator.index(axis), dtype=dtype)[0]
    if out is None:
        return result
    return _ops.elementwise("copy", (result,), out=out)


def outer(ufunc: Any, a: Any, b: Any, **kwargs: Any) -> ndarray:
    """ufunc.outer: ``ufunc(a[..., None, ..., None], b)``, the first operand viewed with one
    new axis per axis of ``b`` (a view on the server: nothing is copied)."""
    _binary_only(ufunc, "outer product")
    b_ndim = b.ndim if isinstance(b, (ndarray, np.ndarray)) else 0
    if isinstance(a, ndarray) and b_ndim:
        a = a[(Ellipsis,) + (None,) * b_ndim]
    return ufunc(a, b, **kwargs)


def _may_repeat(entry: Any) -> bool:
    """Whether an index entry can select one element twice: integer arrays (and lists) can;
    ints, slices, Ellipsis, None and boolean masks cannot."""
    if entry is None or entry is Ellipsis or isinstance(entry, (slice, int, np.integer)):
        return False
    if isinstance(entry, ndarray):
        return entry.dtype.kind != "b"
    return np.asarray(entry).dtype.kind != "b"


def _selects_once(index: ndarray, extent: int) -> bool:
    """Whether the integer array ``index`` into an axis of ``extent`` names no position twice
    (-1 and extent - 1 are one position): unique on the server, one round trip for its
    size. Out-of-bounds indices are the gather's to report."""
    wrapped = _ops.elementwise("where", (_ops.elementwise("less", (index, 0)),
                                         _ops.elementwise("add", (index, extent)), index))
    return _ops.array_op("unique", (wrapped,))[0].size == index.size


def _bool_value(b: Any) -> bool:
    if isinstance(b, (ndarray, np.ndarray, np.generic)):
        return b.dtype == np.bool_
    return isinstance(b, bool) or np.asarray(b).dtype == np.bool_


def at(ufunc: Any, a: Any, indices: Any, b: Any = None) -> None:
    """ufunc.at: one combining scatter on the server for add, subtract, multiply, maximum,
    minimum, fmax, fmin (and logical_and/logical_or of bool arrays and values), which applies
    every repeated index in NumPy's order. Other ufuncs take indices that select each element
    once: slices, ints, boolean masks, and an integer array for the first axis whose
    positions are distinct (checked on the server); then ``a[indices] = ufunc(a[indices], b)``
    is NumPy's unbuffered result."""
    name = ufunc.__name__
    target = _ops.require_array(a, f"{name}.at")
    if (b is None) != (ufunc.nin == 1):
        raise client_error(ArrayHubValueError,
                           "second operand needed for ufunc" if b is None else
                           "second operand provided when ufunc is unary")
    combine = _COMBINES.get(name)
    if combine is None and target.dtype == np.bool_ and _bool_value(b):
        combine = _BOOL_COMBINES.get(name)
    if combine is not None:
        _ops.setitem(target, indices, b, combine=combine)
        return
    entries = indices if isinstance(indices, tuple) else (indices,)
    repeating = [i for i, entry in enumerate(entries) if _may_repeat(entry)]
    if repeating:
        why = (f"with indices that repeat an element it needs a scatter that combines with "
               f"{name}, which the server does not have (it combines with "
               f"{', '.join(_COMBINES)}; a[idx] = arrayhub.{name}(a[idx], b) is the same when "
               f"idx never repeats one)")
        if repeating != [0] or target.ndim == 0:
            raise _not_implemented(name, "at", f"{why}; integer index arrays are taken for "
                                   f"the first axis only")
        first = entries[0]
        if not isinstance(first, ndarray):
            first = _ops.upload(np.asarray(first), target.client)
        if not _selects_once(first, target.shape[0]):
            raise _not_implemented(name, "at", why)
        entries = (first, *entries[1:])
        indices = entries if isinstance(indices, tuple) else first
    selected = target[indices]
    target[indices] = ufunc(selected) if b is None else ufunc(selected, b)


def _reduceat_indices(indices: Any, extent: int, what: str, client: Any) -> ndarray:
    """``indices`` as a 1-D int64 array on the server, each in [0, extent) (IndexError as
    NumPy's otherwise): a list is converted as NumPy converts it (floats truncated), an array
    must cast safely to intp. A server array is checked on the server (one round trip, one
    more for the value NumPy names)."""
    if isinstance(indices, ndarray):
        if not np.can_cast(indices.dtype, np.intp, "safe"):
            raise client_error(ArrayHubTypeError, f"Cannot cast array data from "
                               f"{indices.dtype!r} to {np.dtype(np.intp)!r} according to the "
                               f"rule 'safe'")
        if indices.ndim != 1:
            raise client_error(ArrayHubValueError, "object too deep for desired array"
                               if indices.ndim > 1 else "object of too small depth for "
                               "desired array")
        bad = _ops.elementwise("logical_or", (_ops.elementwise("less", (indices, 0)),
                                              _ops.elementwise("greater_equal",
                                                               (indices, extent))))
        if indices.size and bool(bad.any().get()):
            first = int(indices[int(bad.argmax().get())].get())
            raise client_error(ArrayHubIndexError, f"index {first} out-of-bounds in {what} "
                               f"[0, {extent})")
        return indices.astype(np.int64, copy=False)
    if isinstance(indices, (np.ndarray, np.generic)):
        if not np.can_cast(indices.dtype, np.intp, "safe"):
            raise client_error(ArrayHubTypeError, f"Cannot cast array data from "
                               f"{indices.dtype!r} to {np.dtype(np.intp)!r} according to the "
                               f"rule 'safe'")
    host = np.asarray(indices)
    if host.ndim != 1:
        raise client_error(ArrayHubValueError, "object too deep for desired array"
                           if host.ndim > 1 else "object of too small depth for desired array")
    host = host.astype(np.int64)
    bad = np.flatnonzero((host < 0) | (host >= extent))
    if bad.size:
        raise client_error(ArrayHubIndexError, f"index {host[bad[0]]} out-of-bounds in {what} "
                           f"[0, {extent})")
    return _ops.upload(host, client)


def reduceat(ufunc: Any, array: Any, indices: Any, axis: Any = 0,
             dtype: DTypeLike | None = None, out: Any = None) -> ndarray:
    """ufunc.reduceat on the server, for the ufuncs whose combining scatter ``at`` uses (add,
    subtract, multiply, maximum, minimum, fmax, fmin; logical_and, logical_or and, of bool
    arrays, bitwise_and, bitwise_or).

    Segment ``i`` is ``a[indices[i]:end_i]`` along ``axis``, ``end_i`` the next index where
    it is larger and ``indices[i] + 1`` where it is not (then NumPy's result is
    ``a[indices[i]]``), ``n`` for the last. The result starts as the segments' first elements
    (one take); the other elements of every segment, gathered by one take in segment order,
    are combined into it by one scatter, which applies them in NumPy's sequential order.
    The positions and segment numbers of those elements are made on the server (repeat,
    arange) from the m indices: O(n + m) work when the indices are increasing, the sum of
    the segments' lengths otherwise (as NumPy's), no loop over segments."""
    name = ufunc.__name__
    _binary_only(ufunc, "reduceat")
    a = _ops.require_array(array, f"{name}.reduceat")
    combine = _COMBINES.get(name)
    if combine is None and name in ("logical_and", "logical_or"):
        combine = _BOOL_COMBINES[name]
    elif combine is None and a.dtype == np.bool_:
        combine = {"bitwise_and": "multiply", "bitwise_or": "add"}.get(name)
    if combine is None:
        raise _not_implemented(name, "reduceat", "the server's combining scatter has add, "
                               "subtract, multiply, maximum, minimum, fmax, fmin, "
                               "logical_and and logical_or (and bitwise_and, bitwise_or of "
                               "bool arrays)")
    if a.ndim == 0:
        raise client_error(ArrayHubTypeError, "cannot reduceat on a scalar")
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise client_error(ArrayHubValueError, "reduceat does not allow multiple axes")
        axis = axis[0]
    if axis is None:
        raise client_error(ArrayHubValueError, "reduceat does not allow multiple axes")
    axis = operator.index(axis)
    if not -a.ndim <= axis < a.ndim:
        raise client_error(ArrayHubAxisError,
                           f"axis {axis} is out of bounds for array of dimension {a.ndim}")
    axis %= a.ndim
    # NumPy's result dtype (and its errors for dtype=), from a one-element host array.
    result_dtype = getattr(np, name).reduceat(np.zeros(1, a.dtype), [0], dtype=dtype).dtype
    from arrayhub._creation import arange  # _creation imports the ndarray module too

    n = a.shape[axis]
    starts = _reduceat_indices(indices, n, f"{name}.reduceat", a.client)
    result = _ops.array_op("take", (a, starts), axis=axis)[0].astype(result_dtype,
                                                                      copy=False)
    m = starts.shape[0]
    if m:
        following = _ops.array_op("concatenate", (_ops.getitem(starts, slice(1, None)),
                                                  full(1, n, dtype=np.int64)))[0]
        ends = _ops.elementwise("where", (_ops.elementwise("less", (starts, following)),
                                          following, _ops.elementwise("add", (starts, 1))))
        rest = _ops.elementwise("subtract", (_ops.elementwise("subtract", (ends, starts)), 1))
        before = _ops.elementwise("subtract", (_ops.array_op("cumsum", (rest,), axis=0)[0],
                                               rest))
        # Element k of the rest lies in segment seg[k], at position k + starts + 1 - before.
        segment = arange(m, dtype=np.int64).repeat(rest)
        if segment.size:
            shift = _ops.elementwise("subtract", (_ops.elementwise("add", (starts, 1)), before))
            positions = _ops.elementwise("add", (arange(segment.size, dtype=np.int64),
                                                 shift.repeat(rest)))
            values = _ops.array_op("take", (a, positions), axis=axis)[0]
            _ops.setitem(result, along(axis, segment),
                         values.astype(result_dtype, copy=False), combine=combine)
    if out is None:
        return result
    return _ops.elementwise("copy", (result,), out=out)


def _stored(char: str) -> bool:
    try:
        return np.dtype(char) in SUPPORTED_DTYPES
    except TypeError:
        return False


#: NumPy's type characters of the dtypes the server stores ('l' and 'q' are both int64).
_CHARS = frozenset(filter(_stored, np.typecodes["All"]))


def types_of(name: str) -> list[str]:
    """NumPy's loops of the ufunc ``name`` whose dtypes the server stores (NumPy's
    ``ufunc.types`` strings, e.g. ``'dd->d'``)."""
    numpy_ufunc = getattr(np, name, None)
    if not isinstance(numpy_ufunc, np.ufunc):
        return []
    return [t for t in numpy_ufunc.types if set(t.replace("->", "")) <= _CHARS]
