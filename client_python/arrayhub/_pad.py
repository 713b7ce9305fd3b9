"""numpy.pad on server arrays: every mode of NumPy 2 ('constant', 'empty', 'edge', 'wrap',
'reflect', 'symmetric', 'linear_ramp', 'maximum', 'minimum', 'mean', 'median') but a function.

The array is padded one axis after the other, as NumPy does (so the corners come from the
later axes). 'constant' and 'empty' join new arrays of the fill value before and after; the
statistics modes join the broadcast reduction of the first and last ``stat_length`` elements;
the other modes only copy elements of the array, so NumPy's own pad of ``arange`` along the
axis names the slices that _segments.gather joins (_copy_runs): NumPy's rules for wide pads
and length-1 axes hold by construction, and nothing is downloaded. reflect_type 'odd'
computes ``2 * edge - reflection``, so it follows NumPy's loop itself (_odd_reflection): the
same chunks, the same arithmetic in the same dtype; 'linear_ramp' is numpy.linspace's
arithmetic from the end value to the edge (_ramp).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arrayhub import _dtypes, _ops
from arrayhub._errors import (ArrayHubNotImplementedError, ArrayHubTypeError,
                              ArrayHubValueError, client_error)
from arrayhub._manipulation import broadcast_to, flip
from arrayhub._ndarray import ndarray
from arrayhub._numpy_checks import numpy_checks
from arrayhub._segments import along, gather, new_array, runs_of_map
from arrayhub.v1 import arrays_pb2

__all__ = ["pad"]

_ALLOWED_KWARGS = {
    "empty": [], "edge": [], "wrap": [],
    "constant": ["constant_values"],
    "linear_ramp": ["end_values"],
    "maximum": ["stat_length"], "mean": ["stat_length"], "median": ["stat_length"],
    "minimum": ["stat_length"],
    "reflect": ["reflect_type"], "symmetric": ["reflect_type"],
}
_COPYING = ("edge", "wrap", "reflect", "symmetric")
#: The statistics modes and their reductions.
_STATS = {"maximum": "max", "minimum": "min", "mean": "mean", "median": "median"}


def _as_pairs(x: Any, ndim: int, as_index: bool = False) -> Any:
    """NumPy's pad argument broadcast to one (before, after) pair per axis (numpy.pad's own
    helper, with its messages and its kinds of values: NumPy scalars for one or two values,
    Python ones otherwise)."""
    if x is None:
        return ((None, None),) * ndim
    x = np.array(x)
    if as_index:
        x = np.round(x).astype(np.intp, copy=False)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if as_index and x < 0:
                raise ValueError("index can't contain negative values")
            return ((x[0], x[0]),) * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if as_index and (x[0] < 0 or x[1] < 0):
                raise ValueError("index can't contain negative values")
            return ((x[0], x[1]),) * ndim
    if as_index and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return np.broadcast_to(x, (ndim, 2)).tolist()


def _widths(pad_width: Any, ndim: int) -> Any:
    if isinstance(pad_width, dict):
        pairs = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            pairs[axis] = (width, width) if isinstance(width, int) else tuple(width)
        pad_width = pairs
    pad_width = np.asarray(pad_width)
    if pad_width.dtype.kind != "i":
        raise client_error(ArrayHubTypeError, "`pad_width` must be of integral type.")
    with numpy_checks():
        return [(int(b), int(a)) for b, a in _as_pairs(pad_width, ndim, as_index=True)]


def _fill(value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` as NumPy stores it into an array of ``dtype`` (its casts and errors)."""
    cell = np.empty((), dtype=dtype)
    with numpy_checks(), np.errstate(invalid="ignore"):
        cell[()] = value
    return cell


def _constant(array: ndarray, widths: list[tuple[int, int]], values: Any) -> ndarray:
    client = _ops.client_for(array)
    for axis, ((before, after), pair) in enumerate(zip(widths, values)):
        if not before and not after:
            continue
        parts = []
        for width, value in ((before, pair[0]), (None, None), (after, pair[1])):
            if width is None:
                parts.append(array)
            elif width:
                shape = array.shape[:axis] + (width,) + array.shape[axis + 1:]
                fill = None if value is None else _fill(value, array.dtype)
                parts.append(new_array(client, shape, array.dtype, fill))
        array = _ops.array_op("concatenate", parts, axis=axis)[0]
    return array


def _copy_runs(n: int, pair: tuple[int, int], mode: str) -> list[tuple[int, int, int, int]]:
    """The runs of an axis of length ``n`` padded by ``pair`` in a mode that copies: the pads
    are NumPy's own pad of ``arange`` (a length-1 axis takes its edge, as NumPy does). A long
    axis is stood in for by a shorter one whose pads name the same elements (those nearer
    its start, and those nearer its end, shifted), so no map is as long as the axis."""
    before, after = pair
    m = min(n, 2 * (before + after) + 4)
    where = np.pad(np.arange(m), pair, "edge" if n == 1 else mode)
    where = where + np.where(where >= m // 2, n - m, 0)
    left, right = where[:before], where[before + m:]
    return (runs_of_map(np.zeros(before, np.intp), left) + [(0, 0, 1, n)]
            + runs_of_map(np.zeros(after, np.intp), right))


def _odd_reflection(array: ndarray, axis: int, pair: tuple[int, int],
                    include_edge: bool) -> ndarray:
    """numpy.pad's _set_reflect_both loop with method 'odd' along ``axis``: each round adds
    at most one period of ``2 * edge - mirrored chunk`` on each side of what is filled."""
    period = array.shape[axis]
    left_pad, right_pad = pair
    filled = array
    while left_pad > 0 or right_pad > 0:
        length = filled.shape[axis]
        # Whole periods only; a reflection (no edge) leaves the edge out of the chunk.
        usable = (length // period * period if include_edge
                  else (length - 1) // (period - 1) * (period - 1))
        offset = 1 if include_edge else 0
        parts = []
        if left_pad > 0:
            chunk = min(usable, left_pad)
            top = chunk - offset  # the chunk is filled[top], filled[top - 1], ...
            parts.append(_reflected(filled, axis, top, chunk, 0))
            left_pad -= chunk
        parts.append(filled)
        if right_pad > 0:
            chunk = min(usable, right_pad)
            top = length - 2 + offset
            parts.append(_reflected(filled, axis, top, chunk, length - 1))
            right_pad -= chunk
        filled = _ops.array_op("concatenate", parts, axis=axis)[0]
    return filled


def _reflected(filled: ndarray, axis: int, top: int, count: int, edge: int) -> ndarray:
    """``2 * filled[edge] - filled[top::-1][:count]`` along ``axis``, in ``filled``'s dtype
    (as NumPy's assignment into the padded array casts it)."""
    stop = top - count
    chunk = _ops.getitem(filled, along(axis, slice(top, stop if stop >= 0 else None, -1)))
    edge_value = _ops.getitem(filled, along(axis, slice(edge, edge + 1)))
    values = _ops.elementwise("subtract", (_ops.elementwise("multiply", (2, edge_value)),
                                           chunk))
    return values if values.dtype == filled.dtype else values.astype(filled.dtype)


def _median(chunk: ndarray, axis: int) -> ndarray:
    """numpy.median along ``axis``, kept: the mean of the middle one or two sorted elements,
    NaN where the sorted slice ends in NaN (NumPy's _median_nancheck)."""
    ordered = _ops.array_op("sort", (chunk,), axis=axis, stable=True)[0]
    n = chunk.shape[axis]
    middle = _ops.getitem(ordered, along(axis, slice((n - 1) // 2, n // 2 + 1)))
    result = _ops.reduce("mean", middle, axis, keepdims=True)
    if n and chunk.dtype.kind in "fc":
        last = _ops.getitem(ordered, along(axis, slice(n - 1, n)))
        result = _ops.elementwise("where", (_ops.elementwise("isnan", (last,)), last, result))
    return result


def _ramp(array: ndarray, axis: int, width: int, end_value: Any, edge: int) -> ndarray:
    """numpy.linspace(end_value, array[edge], width, endpoint=False) along ``axis`` in
    ``array``'s dtype, with linspace's own steps: the type it computes in (NumPy's, from the
    value's kind), ``k * step``, or ``k / width * delta`` if any step is 0, plus the start,
    floored for integer arrays."""
    dtype = array.dtype
    stop = _ops.getitem(array, along(axis, slice(edge, edge + 1)))
    with numpy_checks():
        computed = np.linspace(end_value, np.zeros(1, dtype), 1, endpoint=False).dtype
    delta = _ops.elementwise("subtract", (stop, end_value), dtype=computed)
    step = _ops.elementwise("true_divide", (delta, width))
    counting = arrays_pb2.ArangeSpec(start=_dtypes.scalar_to_proto(0),
                                     stop=_dtypes.scalar_to_proto(width))
    k = _ops.create(_ops.client_for(array), arrays_pb2.CreateRequest(arange=counting))
    k = k.astype(computed).reshape((1,) * axis + (width,) + (1,) * (array.ndim - axis - 1))
    zero_step = _ops.reduce("any", _ops.elementwise("equal", (step, 0)))
    y = _ops.elementwise("where", (
        zero_step, _ops.elementwise("multiply", (_ops.elementwise("true_divide", (k, width)),
                                                 delta)),
        _ops.elementwise("multiply", (k, step))))
    y = _ops.elementwise("add", (y, end_value))
    if dtype.kind in "iu":
        y = _ops.elementwise("floor", (y,))
    return y if y.dtype == dtype else y.astype(dtype)


def _linear_ramps(array: ndarray, widths: list[tuple[int, int]], ends: Any) -> ndarray:
    for axis, ((before, after), (first, last)) in enumerate(zip(widths, ends)):
        if not before and not after:
            continue
        n = array.shape[axis]
        parts = [_ramp(array, axis, before, first, 0)] if before else []
        parts.append(array)
        if after:  # the ramp from the end value, reversed
            parts.append(flip(_ramp(array, axis, after, last, n - 1), axis))
        array = _ops.array_op("concatenate", parts, axis=axis)[0]
    return array


def _stat(array: ndarray, axis: int, where: slice, op: str) -> ndarray:
    """The statistic of ``array[where]`` along ``axis`` (kept, length 1) in ``array``'s
    dtype; a mean or median rounded half to even first for integer arrays, as NumPy's
    _round_if_needed."""
    chunk = _ops.getitem(array, along(axis, where))
    stat = (_median(chunk, axis) if op == "median"
            else _ops.reduce(op, chunk, axis, keepdims=True))
    if op in ("mean", "median") and array.dtype.kind in "iu":
        stat = _ops.elementwise("rint", (stat,))
    return stat if stat.dtype == array.dtype else stat.astype(array.dtype)


def _statistics(array: ndarray, widths: list[tuple[int, int]], lengths: Any,
                op: str) -> ndarray:
    for axis, ((before, after), (left, right)) in enumerate(zip(widths, lengths)):
        n = array.shape[axis]
        left = n if left is None or n < left else left
        right = n if right is None or n < right else right
        if (left == 0 or right == 0) and op in ("max", "min"):
            raise client_error(ArrayHubValueError,
                               "stat_length of 0 yields no value for padding")
        if not before and not after:
            continue
        first = _stat(array, axis, slice(0, left), op)
        last = first if left == right == n else _stat(array, axis, slice(n - right, n), op)
        parts = []
        for width, part in ((before, first), (None, array), (after, last)):
            if width is None:
                parts.append(array)
            elif width:
                parts.append(broadcast_to(part, array.shape[:axis] + (width,)
                                          + array.shape[axis + 1:]))
        array = _ops.array_op("concatenate", parts, axis=axis)[0]
    return array


def pad(array: ndarray, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> ndarray:
    """A new array: ``array`` padded by ``pad_width`` ((before, after) per axis, NumPy's
    forms) in ``mode``, any of NumPy's; a function as mode raises NotImplementedError."""
    array = _ops.require_array(array, "pad")
    widths = _widths(pad_width, array.ndim)
    if callable(mode):
        raise client_error(ArrayHubNotImplementedError,
                           "pad: a function as mode is not implemented (it would run on the "
                           "host)")
    try:
        unsupported = set(kwargs) - set(_ALLOWED_KWARGS[mode])
    except KeyError:
        raise client_error(ArrayHubValueError, f"mode '{mode}' is not supported") from None
    if unsupported:
        raise client_error(ArrayHubValueError,
                           f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if mode == "constant":
        with numpy_checks():
            values = _as_pairs(kwargs.get("constant_values", 0), array.ndim)
        result = _constant(array, widths, values)
    elif mode == "empty":
        result = _constant(array, widths, ((None, None),) * array.ndim)
    elif array.size == 0:
        for axis, pair in enumerate(widths):
            if array.shape[axis] == 0 and any(pair):
                raise client_error(ArrayHubValueError,
                                   f"can't extend empty axis {axis} using modes other than "
                                   f"'constant' or 'empty'")
        shape = tuple(n + b + a for n, (b, a) in zip(array.shape, widths))
        return new_array(_ops.client_for(array), shape, array.dtype)
    elif mode == "linear_ramp":
        with numpy_checks():
            ends = _as_pairs(kwargs.get("end_values", 0), array.ndim)
        result = _linear_ramps(array, widths, ends)
    elif mode in _STATS:
        with numpy_checks():
            lengths = _as_pairs(kwargs.get("stat_length"), array.ndim, as_index=True)
        result = _statistics(array, widths, lengths, _STATS[mode])
    else:
        # NumPy's reflect_type: 'odd', anything else is 'even'.
        odd = mode in ("reflect", "symmetric") and kwargs.get("reflect_type") == "odd"
        result = array
        for axis, pair in enumerate(widths):
            if odd and array.shape[axis] > 1:
                result = _odd_reflection(result, axis, pair, mode == "symmetric")
            elif any(pair):
                result = gather([result], _copy_runs(array.shape[axis], pair, mode), axis)
    return result.copy() if result is array else result
