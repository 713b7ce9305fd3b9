"""select, piecewise, apply_along_axis and apply_over_axes: NumPy's functional helpers, with
the arrays on the server. ``select`` is one ``where`` per condition. ``piecewise`` gathers the
elements of each condition (their count comes back from the server before the function
runs, as the size of any boolean-mask selection). ``apply_along_axis`` calls the function
once per 1-D slice, as NumPy: meant for few slices (each call is a round of server ops).
"""

from __future__ import annotations

import collections.abc
from typing import Any, Callable

import numpy as np

from arrayhub import _creation, _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._math_functions import _axis
from arrayhub._ndarray import ndarray

__all__ = ["select", "piecewise", "apply_along_axis", "apply_over_axes"]

_PYTHON_SCALARS = (int, float, complex)


def _dtype_of(value: Any) -> Any:
    """What np.result_type needs of ``value``: Python scalars as they are (weak)."""
    if type(value) in _PYTHON_SCALARS or isinstance(value, bool):
        return value
    return value.dtype if isinstance(value, ndarray) else np.asarray(value).dtype


def select(condlist: Any, choicelist: Any, default: Any = 0) -> ndarray:
    """Elements of the first choice whose condition holds, else ``default``: conditions and
    choices broadcast together, the result in the choices' and default's result type."""
    if len(condlist) != len(choicelist):
        raise client_error(ArrayHubValueError,
                           "list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise client_error(ArrayHubValueError,
                           "select with an empty condition list is not possible")
    try:
        dtype = np.result_type(*(_dtype_of(c) for c in (*choicelist, default)))
    except TypeError as error:
        raise client_error(ArrayHubTypeError, "Choicelist and default value do not have a "
                                              f"common dtype: {error}") from None
    for i, condition in enumerate(condlist):
        if _dtype_of(condition) != np.bool_:
            raise client_error(ArrayHubTypeError,
                               f"invalid entry {i} in condlist: should be boolean ndarray")
    client = _ops.client_for(*(v for v in (*condlist, *choicelist, default)
                               if isinstance(v, ndarray)))
    shape = np.broadcast_shapes(*(np.shape(v) for v in (*condlist, *choicelist)))
    result = _creation.full(shape, default, dtype) if not isinstance(default, ndarray) else \
        _creation.zeros(shape, dtype) + default.astype(dtype, copy=False)
    for condition, choice in zip(reversed(condlist), reversed(choicelist)):
        if not isinstance(condition, ndarray):
            condition = _ops.upload(np.asarray(condition), client)
        if not isinstance(choice, ndarray) and type(choice) not in _PYTHON_SCALARS:
            choice = _ops.upload(np.asarray(choice), client)
        result = _ops.elementwise("where", (condition, choice, result))
    return result.astype(dtype, copy=False)


def piecewise(x: ndarray, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> ndarray:
    """``x``'s shape and dtype, each element from the function (or value) of its condition;
    with one more function than conditions, the last one covers the rest; elements matching
    none are zero."""
    from arrayhub._manipulation import stack

    x = _ops.require_array(x, "piecewise")
    if isinstance(condlist, ndarray):
        condlist = [condlist] if condlist.ndim == x.ndim else list(condlist)
    elif np.isscalar(condlist) or (not isinstance(condlist[0], (list, ndarray, np.ndarray))
                                   and x.ndim != 0):
        condlist = [condlist]
    conditions = [c.astype(bool, copy=False) if isinstance(c, ndarray)
                  else _ops.upload(np.asarray(c, dtype=bool), x.client) for c in condlist]
    n, n2 = len(conditions), len(funclist)
    if n == n2 - 1:
        stacked = stack(conditions)
        conditions.append(_ops.elementwise("logical_not", (_ops.reduce("any", stacked, 0),)))
        n += 1
    elif n != n2:
        raise client_error(ArrayHubValueError,
                           f"with {n} condition(s), either {n} or {n + 1} functions are "
                           "expected")
    y = _creation.zeros_like(x)
    for condition, func in zip(conditions, funclist):
        if not isinstance(func, collections.abc.Callable):
            y[condition] = func
        else:
            values = x[condition]
            if values.size > 0:
                y[condition] = func(values, *args, **kw)
    return y


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: ndarray, *args: Any,
                     **kwargs: Any) -> ndarray:
    """``func1d`` applied to each 1-D slice along ``axis``; its results (arrays or scalars of
    one shape) take that axis's place, as NumPy. One call per slice."""
    from arrayhub._manipulation import stack

    arr = _ops.require_array(arr, "apply_along_axis")
    axis = _axis(axis, arr.ndim)
    moved = arr if axis == arr.ndim - 1 else arr.transpose(
        [d for d in range(arr.ndim) if d != axis] + [axis])
    outer = moved.shape[:-1]
    if any(n == 0 for n in outer):
        raise client_error(ArrayHubValueError,
                           "Cannot apply_along_axis when any iteration dimensions are 0")
    results = []
    for index in np.ndindex(*outer):
        result = func1d(moved[index], *args, **kwargs)
        if not isinstance(result, ndarray):
            result = _ops.upload(np.asarray(result), arr.client)
        results.append(result)
    stacked = stack(results).reshape(outer + results[0].shape)
    if results[0].ndim == 0:
        return stacked
    # The function's axes replace ``axis`` (NumPy moves them there).
    count = results[0].ndim
    before = list(range(axis))
    return stacked.transpose(before + list(range(len(outer), len(outer) + count))
                             + list(range(axis, len(outer))))


def apply_over_axes(func: Callable[..., Any], a: ndarray, axes: Any) -> ndarray:
    """``func(a, axis)`` over each axis in turn, each result keeping ``a``'s dimensions (a
    reduced axis is put back with length 1)."""
    from arrayhub._manipulation import expand_dims

    value = _ops.require_array(a, "apply_over_axes")
    ndim = value.ndim
    if np.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = ndim + axis
        result = func(value, axis)
        if result.ndim != value.ndim:
            result = expand_dims(result, axis)
            if result.ndim != value.ndim:
                raise client_error(ArrayHubValueError,
                                   "function is not returning an array of the correct shape")
        value = result
    return value
