"""Writing into arrays through indices and masks, on the server: put, put_along_axis,
putmask, place, copyto, fill_diagonal, and the gathers choose and extract.

Each is a SetItem (a scatter: where indices repeat, the last write wins, as NumPy's
sequential assignment) or an elementwise ``where`` into the array, with NumPy's value cycling,
casting and messages. Values that NumPy cycles (``put``, ``putmask``, ``place``,
``fill_diagonal``) are tiled on the server. Only ``choose`` with mode='raise' and ``place``
with no values read anything back (whether an entry is invalid, whether the mask selects
anything), since their errors depend on the data.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np

from arrayhub import _ops
from arrayhub._errors import (ArrayHubIndexError, ArrayHubOverflowError, ArrayHubTypeError,
                              ArrayHubValueError, client_error)
from arrayhub._ndarray import ndarray

__all__ = ["put", "put_along_axis", "putmask", "place", "copyto", "fill_diagonal", "choose",
           "extract"]

_CLIP_MODES = ("clip", "raise", "wrap")
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _array(value: Any, client: Any, dtype: Any = None) -> ndarray:
    """``value`` as an arrayhub array of the client (NumPy data and lists are uploaded)."""
    if isinstance(value, ndarray):
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    return _ops.upload(np.asarray(value, dtype=dtype), client)


def _clip_mode(mode: str) -> str:
    if mode not in _CLIP_MODES:
        raise client_error(ArrayHubValueError,
                           f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return mode


def _int_indices(indices: Any, client: Any) -> ndarray:
    """Integer index data as an arrayhub array, refused as NumPy's safe cast to intp refuses."""
    indices = _array(indices, client)
    if indices.dtype.kind not in "iub":
        raise client_error(ArrayHubTypeError,
                           f"Cannot cast array data from {indices.dtype!r} to "
                           f"dtype('int64') according to the rule 'safe'")
    return indices


def _cycled(values: ndarray, size: int) -> ndarray:
    """``values`` (flattened) repeated to ``size`` elements, as NumPy cycles short values."""
    from arrayhub._shape_functions import resize

    return resize(values.ravel(), (size,))


def _assign_flat(a: ndarray, ind: ndarray, values: Any) -> None:
    """``a.flat[ind] = values``: a scatter into a flat view of ``a``, or for a strided array
    into a C-ordered copy that is then copied back (a refused scatter leaves the copy as it
    was, and copying it back changes nothing)."""
    if a.flags.c_contiguous:
        a.reshape(-1)[ind] = values
        return
    copy = a.copy()
    copy.reshape(-1)[ind] = values
    a[...] = copy


def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> None:
    """numpy.put: ``a.flat[ind] = v``, ``v`` cycled to the length of ``ind``; the last of
    repeated indices wins. mode 'raise' refuses indices outside [-a.size, a.size) with
    NumPy's IndexError, 'wrap' takes them modulo a.size, 'clip' clips them to [0, a.size)."""
    if not isinstance(a, ndarray):
        raise client_error(ArrayHubTypeError, f"argument 1 must be numpy.ndarray, not {type(a)}")
    mode = _clip_mode(mode)
    client = a.client
    ind = _array(ind, client)
    if ind.dtype != np.int64:
        ind = ind.astype(np.int64)  # NumPy casts the indices to intp unsafely.
    ind = ind.ravel()
    values = _array(v, client)
    if ind.size == 0 or values.size == 0:
        return
    if a.size == 0:
        raise client_error(ArrayHubIndexError, "cannot replace elements of an empty array")
    if mode == "wrap":
        ind = _ops.elementwise("remainder", (ind, a.size))
    elif mode == "clip":
        ind = _ops.elementwise("clip", (ind, 0, a.size - 1))
    _assign_flat(a, ind, _cycled(values, ind.size))


def put_along_axis(arr: Any, indices: Any, values: Any, axis: Optional[int]) -> None:
    """numpy.put_along_axis: ``arr`` written at ``indices`` along ``axis``, the other axes
    matched position by position (``arr.flat`` when axis is None); one scatter, the values
    broadcast to the indices."""
    from arrayhub._array_api import along_axis_key

    arr = _ops.require_array(arr, "put_along_axis")
    key = along_axis_key(arr, indices, axis)
    if axis is None:
        _assign_flat(arr, key, values)
    else:
        arr[key] = values


def putmask(a: Any, mask: Any, values: Any) -> None:
    """numpy.putmask: ``a.flat[n] = values[n % len(values)]`` where ``mask.flat[n]``; one
    elementwise ``where`` into ``a``."""
    if not isinstance(a, ndarray):
        raise client_error(ArrayHubTypeError, "putmask: first argument must be an array")
    client = a.client
    mask = _array(mask, client, np.bool_)
    if mask.size != a.size:
        raise client_error(ArrayHubValueError, "putmask: mask and data must be the same size")
    values = _array(values, client)
    if values.size == 0 or a.size == 0:
        return
    source = _cycled(values, a.size).reshape(a.shape).astype(a.dtype)
    _ops.elementwise("where", (mask.reshape(a.shape), source, a), out=a)


def place(arr: Any, mask: Any, vals: Any) -> None:
    """numpy.place: the elements of ``arr`` where ``mask`` is true take the values of
    ``vals`` in order (cycled); ``vals`` may be empty only when the mask selects nothing."""
    if not isinstance(arr, ndarray):
        raise client_error(ArrayHubTypeError,
                           f"place() argument 1 must be numpy.ndarray, not "
                           f"{type(arr).__name__}")
    client = arr.client
    mask = _array(mask, client, np.bool_).ravel()
    if mask.size != arr.size:
        raise client_error(ArrayHubValueError, "place: mask and data must be the same size")
    vals = _array(vals, client).ravel()
    if vals.size == 0:
        if arr.size and bool(mask.any()):
            raise client_error(ArrayHubValueError, "Cannot insert from an empty array!")
        return
    if arr.size == 0:
        return
    # The k-th selected element takes vals[k % len(vals)]: k is the running count of the mask.
    rank = mask.astype(np.int64).cumsum()
    chosen = vals.take(_ops.elementwise("remainder", (_ops.elementwise("subtract", (rank, 1)),
                                                      vals.size)))
    _ops.elementwise("where", (mask.reshape(arr.shape), chosen.astype(arr.dtype).reshape(arr.shape),
                               arr), out=arr)


def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """numpy.copyto: ``src`` broadcast into ``dst`` where ``where`` is true, if it casts to
    ``dst``'s dtype under ``casting`` (NumPy's rules and messages; Python scalars are weak)."""
    if not isinstance(dst, ndarray):
        raise client_error(ArrayHubTypeError,
                           f"copyto() argument 1 must be a numpy.ndarray, not "
                           f"{type(dst).__name__}")
    if casting not in _CASTINGS:
        raise client_error(ArrayHubValueError,
                           f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', "
                           f"'unsafe' (got {casting!r})")
    client = dst.client
    if isinstance(src, ndarray):
        if not np.can_cast(src.dtype, dst.dtype, casting):
            raise client_error(ArrayHubTypeError,
                               f"Cannot cast array data from {src.dtype!r} to {dst.dtype!r} "
                               f"according to the rule '{casting}'")
    else:
        # NumPy checks a scalar or host array itself (weak Python scalars, overflow): on a
        # stand-in of dst's dtype, so that its errors are NumPy's own.
        try:
            np.copyto(np.empty(np.shape(src), dst.dtype), src, casting=casting)
        except TypeError as error:
            raise client_error(ArrayHubTypeError, str(error)) from None
        except OverflowError as error:
            raise client_error(ArrayHubOverflowError, str(error)) from None
        if np.ndim(src) != 0:
            src = _ops.upload(np.asarray(src), client)
    if where is True or (isinstance(where, (bool, np.bool_)) and where):
        dst[...] = src
        return
    if isinstance(where, (bool, np.bool_)):
        return
    where = _array(where, client)
    if where.dtype != np.bool_:
        raise client_error(ArrayHubTypeError,
                           f"Cannot cast array data from {where.dtype!r} to dtype('bool') "
                           f"according to the rule 'safe'")
    if isinstance(src, ndarray):
        src = src.astype(dst.dtype)
    else:
        src = np.asarray(src, dtype=dst.dtype)[()]
    _ops.elementwise("where", (where, src, dst), out=dst)


def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """numpy.fill_diagonal: the main diagonal of ``a`` (2-D, or of equal extents) set to
    ``val``, cycled; a tall 2-D matrix with ``wrap`` restarts the diagonal every
    ``a.shape[1] + 1`` rows, as NumPy's flat stepping does. One scatter."""
    a = _ops.require_array(a, "fill_diagonal")
    if a.ndim < 2:
        raise client_error(ArrayHubValueError, "array must be at least 2-d")
    end = None
    if a.ndim == 2:
        step = a.shape[1] + 1
        if not wrap:
            end = a.shape[1] * a.shape[1]
    else:
        if any(n != a.shape[0] for n in a.shape):
            raise client_error(ArrayHubValueError,
                               "All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
    positions = np.arange(a.size)[:end:step]
    if positions.size == 0:
        return
    client = a.client
    key = tuple(_ops.upload(np.ascontiguousarray(c), client)
                for c in np.unravel_index(positions, a.shape))
    if isinstance(val, ndarray) or np.ndim(val) != 0:
        values = _array(val, client)
        if values.size == 0:
            return
        val = _cycled(values, positions.size)
    a[key] = val


def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> ndarray:
    """numpy.choose: ``choices[a[i]][i]``, every array broadcast together. mode 'raise'
    refuses an entry outside [0, n) (one read of whether any is), 'wrap' takes it modulo n,
    'clip' clips it to [0, n - 1]."""
    mode = _clip_mode(mode)
    client = _ops.client_for(a, *(choices if isinstance(choices, (list, tuple)) else [choices]))
    a = _int_indices(a, client)
    if isinstance(choices, ndarray):
        choices = [choices[i] for i in range(choices.shape[0])]
    choices = list(choices)
    n = len(choices)
    if n == 0:
        raise client_error(ArrayHubValueError, "0-length sequence.")
    if mode == "raise":
        bad = _ops.elementwise("logical_or", (_ops.elementwise("less", (a, 0)),
                                              _ops.elementwise("greater_equal", (a, n))))
        if a.size and bool(bad.any()):
            raise client_error(ArrayHubValueError, "invalid entry in choice array")
    elif mode == "wrap":
        a = _ops.elementwise("remainder", (a, n))
    else:
        a = _ops.elementwise("clip", (a, 0, n - 1))
    dtype = np.result_type(*(c.dtype if isinstance(c, ndarray) else c for c in choices))
    arrays = [_array(c, client, dtype) for c in choices]
    shape = np.broadcast_shapes(a.shape, *(c.shape for c in arrays))
    from arrayhub._array_api import take_along_axis
    from arrayhub._manipulation import broadcast_to, stack

    stacked = stack([broadcast_to(c, shape) for c in arrays])
    index = broadcast_to(a.astype(np.int64), shape).reshape((1, *shape))
    result = take_along_axis(stacked, index, axis=0).reshape(shape)
    if out is None:
        return result
    out = _ops.require_array(out, "choose")
    out[...] = result
    return out


def extract(condition: Any, arr: Any) -> ndarray:
    """numpy.extract: the elements of ``arr`` (flattened) where ``condition`` (flattened)
    is nonzero, in C order."""
    arr = _ops.require_array(arr, "extract")
    condition = _array(condition, arr.client).ravel()
    return arr.ravel().take(condition.nonzero()[0])
