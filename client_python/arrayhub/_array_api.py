"""The Array API standard's (2024.12) functions that NumPy 2 spells the same way and arrayhub
had not: astype, matrix_transpose, vecdot, take_along_axis, cumulative_sum/prod, and the
namespace's inspection object. Each is built from server ops, so results stay on the server
and queue in the pipeline like any other op."""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _devices, _dtypes, _ops
from arrayhub._errors import (ArrayHubAxisError, ArrayHubIndexError, ArrayHubTypeError,
                              ArrayHubValueError, client_error)
from arrayhub._ndarray import ndarray

__all__ = ["astype", "matrix_transpose", "vecdot", "take_along_axis", "cumulative_sum",
           "cumulative_prod", "positive", "__array_namespace_info__"]


def astype(x: ndarray, dtype: DTypeLike, /, *, copy: bool = True,
           device: Any = None) -> ndarray:
    """``x`` cast to ``dtype`` (NumPy's unsafe casting): numpy.astype. With ``copy=False``
    and the same dtype, ``x`` itself. With ``device``, the result lies there (``x`` is
    copied over first, see :meth:`ndarray.to_device`)."""
    x = _ops.require_array(x, "astype")
    if device is None:
        return x.astype(dtype, copy=copy)
    placed = x.to_device(device)
    with _devices.placed(device):
        return placed.astype(dtype, copy=copy and placed is x)


def positive(x: ndarray, /) -> ndarray:
    """``+x``: a copy of a numeric array (an Elementwise ``copy``); bool has no loop, as in
    NumPy."""
    x = _ops.require_array(x, "positive")
    if x.dtype == np.bool_:
        raise client_error(ArrayHubTypeError,
                           "ufunc 'positive' did not contain a loop with signature matching "
                           "types <class 'numpy.dtypes.BoolDType'> -> None")
    return x.copy()


def matrix_transpose(x: ndarray, /) -> ndarray:
    """A view with the last two axes swapped (``x.mT``)."""
    x = _ops.require_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise client_error(ArrayHubValueError,
                           f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return x.mT


def vecdot(x1: ndarray, x2: ndarray, /, *, axis: int = -1) -> ndarray:
    """The dot product of vectors along ``axis``, the other axes broadcast: ``sum(conj(x1) *
    x2, axis)`` in the dtype the two promote to (int32 stays int32, as numpy.vecdot)."""
    x1, x2 = _ops.require_array(x1, "vecdot"), _ops.require_array(x2, "vecdot")
    axis = operator.index(axis)
    for position, x in enumerate((x1, x2)):
        if not -x.ndim <= axis < x.ndim:
            raise client_error(ArrayHubAxisError,
                               f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    n1, n2 = x1.shape[axis], x2.shape[axis]
    if n1 != n2:
        raise client_error(
            ArrayHubValueError,
            "vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature (n),(n)->() (size {n2} is different from {n1})")
    dtype = np.result_type(x1.dtype, x2.dtype)
    if dtype.kind == "c":
        from arrayhub._ufuncs import UFUNCS  # conjugate; imported late: _ufuncs imports us

        x1 = UFUNCS["conjugate"](x1)
    # Both vectors' axis moved last, so that broadcasting lines up the others as NumPy's
    # gufunc does.
    product = _move_last(x1, axis) * _move_last(x2, axis)
    return product.sum(axis=-1, dtype=dtype)


def _move_last(x: ndarray, axis: int) -> ndarray:
    axis %= x.ndim
    order = [d for d in range(x.ndim) if d != axis] + [axis]
    return x.transpose(order) if order != list(range(x.ndim)) else x


def along_axis_key(arr: ndarray, indices: Any, axis: Optional[int]) -> Any:
    """The index of ``arr`` that take_along_axis and put_along_axis use: ``indices`` for the
    flattened array when axis is None, else ``(i0, ..., indices, ..., in)`` with aranges
    shaped to broadcast along their own axis; NumPy's checks and messages."""
    indices = _ops.require_array(indices, "indices")
    if indices.dtype.kind not in "iu":
        raise client_error(ArrayHubIndexError, "`indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise client_error(ArrayHubValueError,
                               "when axis=None, `indices` must have a single dimension.")
        return indices
    axis = operator.index(axis)
    if not -arr.ndim <= axis < arr.ndim:
        raise client_error(ArrayHubAxisError,
                           f"axis {axis} is out of bounds for array of dimension {arr.ndim}")
    axis %= arr.ndim
    if indices.ndim != arr.ndim:
        raise client_error(ArrayHubValueError,
                           "`indices` and `arr` must have the same number of dimensions")
    from arrayhub._creation import arange  # _creation imports the ndarray module too

    key = []
    for d in range(arr.ndim):
        if d == axis:
            key.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[d] = arr.shape[d]
            key.append(arange(arr.shape[d]).reshape(shape))
    return tuple(key)


def take_along_axis(arr: ndarray, indices: ndarray, axis: Optional[int] = -1) -> ndarray:
    """numpy.take_along_axis: ``arr`` picked at ``indices`` along ``axis``, the other axes
    matched (broadcast) position by position; one gather on the server."""
    arr = _ops.require_array(arr, "take_along_axis")
    key = along_axis_key(arr, indices, axis)
    return arr.ravel()[key] if axis is None else arr[key]


def cumulative_sum(x: ndarray, /, *, axis: Optional[int] = None,
                   dtype: DTypeLike | None = None, include_initial: bool = False) -> ndarray:
    """numpy.cumulative_sum: running sums along ``axis`` (needed when ``x`` has more than
    one dimension), a 0 first when ``include_initial``."""
    return _cumulative(x, "cumsum", 0, axis, dtype, include_initial)


def cumulative_prod(x: ndarray, /, *, axis: Optional[int] = None,
                    dtype: DTypeLike | None = None, include_initial: bool = False) -> ndarray:
    """numpy.cumulative_prod: running products along ``axis``, a 1 first when
    ``include_initial``."""
    return _cumulative(x, "cumprod", 1, axis, dtype, include_initial)


def _cumulative(x: ndarray, op: str, identity: int, axis: Optional[int],
                dtype: DTypeLike | None, include_initial: bool) -> ndarray:
    x = _ops.require_array(x, f"cumulative_{'sum' if op == 'cumsum' else 'prod'}")
    if x.ndim == 0:
        x = x.reshape(1)  # NumPy treats a 0-d input as 1-d.
    if axis is None:
        if x.ndim > 1:
            raise client_error(ArrayHubValueError, "For arrays which have more than one "
                               "dimension ``axis`` argument is required.")
        axis = 0
    running = getattr(x, op)(axis=axis, dtype=dtype)
    if not include_initial:
        return running
    from arrayhub._creation import full
    from arrayhub._manipulation import concatenate

    shape = list(running.shape)
    shape[axis] = 1
    return concatenate([full(tuple(shape), identity, running.dtype), running], axis=axis)


class _Inspection:
    """What ``__array_namespace_info__()`` returns: the namespace's capabilities, devices and
    dtypes, as the Array API standard describes."""

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes (nonzero, unique) are supported; the
        server's --max-rank bounds the dimensions."""
        from arrayhub._client import get_client

        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": int(get_client().server_info().limits.max_rank) or None}

    def default_device(self) -> Any:
        """Where new arrays go: the current :class:`arrayhub.cuda.Device`."""
        from arrayhub import cuda

        return cuda.Device()

    def devices(self) -> list[Any]:
        """The server's devices, as :class:`arrayhub.cuda.Device` objects (``x.device``)."""
        from arrayhub import cuda

        return [cuda.Device(i) for i in range(cuda.runtime.getDeviceCount())]

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype]:
        """NumPy's defaults: float64, complex128, int64 (also for indexing)."""
        return {"real floating": np.dtype(np.float64),
                "complex floating": np.dtype(np.complex128),
                "integral": np.dtype(np.int64), "indexing": np.dtype(np.int64)}

    def dtypes(self, *, device: Any = None,
               kind: str | tuple[str, ...] | None = None) -> dict[str, np.dtype]:
        """The server's dtypes of ``kind`` ("bool", "signed integer", "unsigned integer",
        "integral", "real floating", "complex floating", "numeric", or a tuple of them)."""
        kinds = (kind,) if isinstance(kind, str) else kind
        # The standard's dtypes the server has: float16 is arrayhub's, not the standard's.
        return {dtype.name: dtype for dtype in _dtypes.SUPPORTED_DTYPES
                if dtype != np.float16
                and (kinds is None or any(_is_kind(dtype, k) for k in kinds))}


_KIND_LETTERS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
                 "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def _is_kind(dtype: np.dtype, kind: str) -> bool:
    if kind not in _KIND_LETTERS:
        raise client_error(ArrayHubValueError, f"unknown dtype kind {kind!r}")
    return dtype.kind in _KIND_LETTERS[kind]


def __array_namespace_info__() -> _Inspection:
    """The Array API's inspection object for this namespace."""
    return _Inspection()
