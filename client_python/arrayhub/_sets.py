"""numpy.unique with its flags and axis, isin and the 1-D set operations (intersect1d,
union1d, setdiff1d, setxor1d), composed from the server's stable sort, searchsorted, gathers
and masks as NumPy's own Python code composes them (the Array API's unique_* are in
_set_functions, whose runs of equal values unique reuses). NumPy 2.4 removed ``in1d``;
arrayhub does not have it either.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from arrayhub import _ops
from arrayhub._errors import ArrayHubAxisError, client_error
from arrayhub._manipulation import concatenate, sort
from arrayhub._ndarray import ndarray
from arrayhub._set_functions import _runs, counts_of, inverse_of, runs_of

__all__ = ["unique", "isin", "intersect1d", "union1d", "setdiff1d", "setxor1d"]


def _array(value: Any, client: Any = None) -> ndarray:
    """An arrayhub array; host data (lists, NumPy arrays) uploaded, as NumPy's asarray."""
    if isinstance(value, ndarray):
        return value
    return _ops.upload(np.asarray(value), client)


def _rows(ar: ndarray, axis: int) -> tuple[Any, ...]:
    """The runs of equal slices along ``axis``: the slices as rows, ordered lexicographically
    (NumPy orders them as structured items, field by field)."""
    from arrayhub._sorting import lexsort

    from arrayhub._creation import arange

    moved = ar if axis == 0 else ar.swapaxes(0, axis)
    columns = int(np.prod(moved.shape[1:], dtype=np.int64))
    rows = moved.reshape(moved.shape[0], columns)
    if columns:
        order = lexsort([rows[:, j] for j in reversed(range(columns))], axis=0)
    else:  # Every (empty) row is equal: one run.
        order = arange(rows.shape[0])
    ordered = rows[order]
    differs = _ops.reduce("any", _ops.elementwise("not_equal", (ordered[1:], ordered[:-1])), 1)
    return runs_of(order, ordered, differs), moved


def unique(ar: ndarray, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Any = None, *, equal_nan: bool = True,
           sorted: bool = True) -> Any:
    """The sorted distinct values (slices along ``axis`` when given), and as asked the index
    of each one's first occurrence, the inverse indices (the input's shape when axis is None)
    and the counts, as NumPy 2. NaNs count as one value unless ``equal_nan`` is false; the
    result is always sorted, whatever ``sorted`` asks."""
    ar = _ops.require_array(ar, "unique")
    extras = return_index or return_inverse or return_counts
    if axis is None:
        if not extras and equal_nan:
            return _ops.array_op("unique", (ar,))[0]  # One server op.
        runs = _runs(ar, "unique", equal_nan)
        values, shape, size = runs.values, ar.shape, ar.size
    else:
        axis = operator.index(axis)
        if not -ar.ndim <= axis < ar.ndim:
            raise client_error(ArrayHubAxisError,
                               f"axis {axis} is out of bounds for array of dimension {ar.ndim}")
        axis %= ar.ndim
        runs, moved = _rows(ar, axis)
        values = runs.values.reshape((-1,) + moved.shape[1:])
        values = values if axis == 0 else values.swapaxes(0, axis)
        shape, size = (ar.shape[axis],), ar.shape[axis]
    if not extras:
        return values
    result = [values]
    if return_index:
        result.append(runs.order[runs.starts])
    if return_inverse:
        result.append(inverse_of(runs, shape))
    if return_counts:
        result.append(counts_of(runs, size))
    return tuple(result)


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False,
         *, kind: Any = None) -> ndarray:
    """Whether each element of ``element`` is in ``test_elements`` (``element``'s shape):
    a sort of the test values and one searchsorted on the server, whatever ``kind`` asks."""
    element = _ops.require_array(element, "isin")
    test = _array(test_elements, element.client).ravel()
    dtype = np.result_type(element.dtype, test.dtype)
    flat = element.ravel().astype(dtype, copy=False)
    if test.size == 0 or flat.size == 0:
        from arrayhub._creation import full
        return full(element.shape, bool(invert))
    ordered = sort(test.astype(dtype, copy=False))
    places = ordered.searchsorted(flat)
    places = _ops.elementwise("minimum", (places, test.size - 1))
    found = _ops.elementwise("not_equal" if invert else "equal", (ordered[places], flat))
    return found.reshape(element.shape)


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False,
                return_indices: bool = False) -> Any:
    """The sorted values in both (flattened) arrays; with ``return_indices``, the index of
    each one's first occurrence in each."""
    ar1 = _ops.require_array(ar1, "intersect1d")
    ar2 = _array(ar2, ar1.client)
    if not assume_unique:
        if return_indices:
            ar1, ind1 = unique(ar1, return_index=True)
            ar2, ind2 = unique(ar2, return_index=True)
        else:
            ar1, ar2 = unique(ar1), unique(ar2)
    else:
        ar1, ar2 = ar1.ravel(), ar2.ravel()
    aux = concatenate((ar1, ar2))
    if return_indices:
        order = aux.argsort(0)
        aux = aux[order]
    else:
        aux = sort(aux)
    mask = _ops.elementwise("equal", (aux[1:], aux[:-1]))
    common = aux[:-1][mask]
    if not return_indices:
        return common
    indices1 = order[:-1][mask]
    indices2 = order[1:][mask] - ar1.size
    if not assume_unique:
        indices1, indices2 = ind1[indices1], ind2[indices2]
    return common, indices1, indices2


def union1d(ar1: Any, ar2: Any) -> ndarray:
    """The sorted values in either (flattened) array."""
    ar1 = _ops.require_array(ar1, "union1d")
    return unique(concatenate((ar1.ravel(), _array(ar2, ar1.client).ravel())))


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> ndarray:
    """The values of ``ar1`` not in ``ar2`` (sorted and unique unless ``assume_unique``)."""
    ar1 = _ops.require_array(ar1, "setdiff1d")
    ar1 = ar1.ravel() if assume_unique else unique(ar1)
    return ar1[isin(ar1, _array(ar2, ar1.client), assume_unique=True, invert=True)]


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> ndarray:
    """The sorted values in exactly one of the two arrays."""
    from arrayhub._creation import ones
    ar1 = _ops.require_array(ar1, "setxor1d")
    ar2 = _array(ar2, ar1.client)
    if not assume_unique:
        ar1, ar2 = unique(ar1), unique(ar2)
    aux = concatenate((ar1.ravel(), ar2.ravel()))
    if aux.size == 0:
        return aux
    aux = sort(aux)
    edge = ones(1, dtype=bool)
    flag = concatenate((edge, _ops.elementwise("not_equal", (aux[1:], aux[:-1])), edge))
    return aux[_ops.elementwise("logical_and", (flag[1:], flag[:-1]))]
