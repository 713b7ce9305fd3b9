"""Creating arrays: on the server (Create RPC) or from host data (Upload RPC)."""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _client, _devices, _dtypes, _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._layouts import (Permutation, axis_order, check_order, copy_in_order, fortran,
                               has_order, new_in_order)
from arrayhub._ndarray import ndarray
from arrayhub._ops import ShapeLike
from arrayhub.v1 import arrays_pb2

__all__ = ["array", "asarray", "asnumpy", "empty", "zeros", "ones", "full", "arange",
           "linspace", "eye", "identity", "empty_like", "zeros_like", "ones_like", "full_like"]


def create(shape: tuple[int, ...], dtype: DTypeLike | None, device: Any = None,
           **kind: Any) -> ndarray:
    """A Create RPC in the current client, on ``device`` (default: the current device):
    ``kind`` names the CreateRequest oneof case."""
    with _devices.placed(device):
        client = _client.get_client()
        request = arrays_pb2.CreateRequest(dtype=_dtypes.to_wire_or_unspecified(dtype),
                                           shape=shape, **kind)
        return _ops.create(client, request)


def _scalar(value: Any, what: str) -> Any:
    """A creation argument as a Scalar message; NumPy scalars count by their Python kind."""
    if isinstance(value, np.generic):
        value = value.item()
    if not _dtypes.is_python_scalar(value):
        raise client_error(ArrayHubTypeError,
                           f"{what} must be a scalar, got {type(value).__name__}")
    return _dtypes.scalar_to_proto(value)


def array(obj: Any, dtype: DTypeLike | None = None, copy: bool = True, order: str = "K",
          ndmin: int = 0, *, device: Any = None, progress: Optional[bool] = None) -> ndarray:
    """A new server array from host data (lists, NumPy arrays, scalars: uploaded) or from
    another arrayhub array (copied on the server, cast to ``dtype`` if given). ``ndmin``
    prepends axes of length one, as NumPy's; ``order`` as NumPy's ("K" keeps the layout of
    an array given, "F" makes Fortran order: see :mod:`arrayhub._layouts`).

    The result lies on ``device`` (an :class:`arrayhub.cuda.Device` or its id), by default
    the current device: an arrayhub array of another device is copied there, device to
    device, even with ``copy=False`` (as CuPy's).

    ``progress=True`` shows an upload's progress on stderr for 256 MiB or more (tqdm when
    installed); the default follows ``ARRAYHUB_PROGRESS=1``. NumPy has no such option."""
    check_order(order)
    with _devices.placed(device):
        if isinstance(obj, ndarray):
            placed = obj.to_device(_ops.client_for(obj)._current_device())
            permutation = axis_order(order, placed)
            target = placed.dtype if dtype is None else _dtypes.normalize(dtype)
            if (copy and placed is obj) or target != placed.dtype or (
                    order in ("C", "F") and not has_order(placed, permutation)):
                result = copy_in_order(placed, permutation, target)
            else:
                result = placed
            missing = ndmin - result.ndim
            return result.reshape((1,) * missing + result.shape) if missing > 0 else result
        host = np.array(obj, dtype=dtype, copy=None, ndmin=ndmin, order=order or "K")
        permutation = axis_order(order, host)
        # The host data in that layout is C-contiguous once its axes are permuted: uploaded so,
        # and viewed back (no copy on either side).
        return new_in_order(lambda _: _ops.upload(
            host if permutation is None else np.ascontiguousarray(host.transpose(permutation)),
            progress=progress), host.shape, permutation)


def asarray(a: Any, dtype: DTypeLike | None = None, order: Optional[str] = None, *,
            device: Any = None, copy: Optional[bool] = None,
            progress: Optional[bool] = None) -> ndarray:
    """``a`` itself when it is an arrayhub array of the wanted dtype on the wanted device
    (``device``, by default the current one); else as :func:`array` (``progress`` too): an
    array of another device is copied there. ``copy=True`` always copies; ``copy=False``
    never does, and raises ValueError where it would have to (host data, which is uploaded,
    another dtype or another device), as NumPy 2 and the Array API ask. ``order`` as
    :func:`array`'s ("C" or "F" copies an array not laid out so)."""
    check_order(order)
    with _devices.placed(device):
        if copy is False:
            if (not isinstance(a, ndarray)
                    or (dtype is not None and _dtypes.normalize(dtype) != a.dtype)
                    or a._device != _ops.client_for(a)._current_device()
                    or (order in ("C", "F") and not has_order(a, axis_order(order, a)))):
                raise client_error(ArrayHubValueError,
                                   "Unable to avoid copy while creating an array as requested.")
            return a
        return array(a, dtype=dtype, copy=bool(copy), order=order or "K", progress=progress)


def _new_order(shape: tuple[int, ...], order: str) -> Permutation:
    """The layout of a new array of ``shape`` in ``order`` ("C" or "F", NumPy's errors)."""
    check_order(order, ("C", "F"))
    return fortran(len(shape)) if order == "F" else None


def asnumpy(a: Any, *, out: Optional[np.ndarray] = None,
            progress: Optional[bool] = None) -> np.ndarray:
    """Host copy of an arrayhub array (downloaded); other objects through numpy.asarray.
    With ``out`` (a NumPy array of the same shape and dtype) the data lands there, as in
    ``a.get(out=out)``, and ``out`` is returned; ``progress`` as in ``a.get``."""
    if isinstance(a, ndarray):
        return a.get(out=out, progress=progress)
    if out is None:
        return np.asarray(a)
    out[...] = a
    return out


def empty(shape: ShapeLike, dtype: DTypeLike = float, order: str = "C", *,
          device: Any = None) -> ndarray:
    """Uninitialised array (its contents are whatever the server's memory held)."""
    shape = _ops.shape_tuple(shape)
    return new_in_order(lambda dims: create(dims, dtype, device, empty=arrays_pb2.EmptySpec()), shape,
                        _new_order(shape, order))


def zeros(shape: ShapeLike, dtype: DTypeLike = float, order: str = "C", *,
          device: Any = None) -> ndarray:
    """A new array of ``shape`` filled with zeros (Create RPC); ``dtype`` default float64."""
    shape = _ops.shape_tuple(shape)
    return new_in_order(lambda dims: create(dims, dtype, device, zeros=arrays_pb2.ZerosSpec()), shape,
                        _new_order(shape, order))


def ones(shape: ShapeLike, dtype: DTypeLike = float, order: str = "C", *,
         device: Any = None) -> ndarray:
    """A new array of ``shape`` filled with ones (Create RPC); ``dtype`` default float64."""
    shape = _ops.shape_tuple(shape)
    return new_in_order(lambda dims: create(dims, dtype, device, ones=arrays_pb2.OnesSpec()), shape,
                        _new_order(shape, order))


def full(shape: ShapeLike, fill_value: Any, dtype: DTypeLike | None = None, order: str = "C",
         *, device: Any = None) -> ndarray:
    """Every element ``fill_value`` (a scalar). Without dtype, NumPy's choice for the value:
    bool, int64, float64 or complex128 (a NumPy scalar's own dtype)."""
    if dtype is None and isinstance(fill_value, np.generic):
        dtype = fill_value.dtype
    shape = _ops.shape_tuple(shape)
    value = _scalar(fill_value, "fill_value")
    return new_in_order(
        lambda dims: create(dims, dtype, device, full=arrays_pb2.FullSpec(value=value)), shape,
        _new_order(shape, order))


def arange(start: Any, stop: Any = None, step: Any = None,
           dtype: DTypeLike | None = None, *, device: Any = None) -> ndarray:
    """Evenly spaced values in [start, stop); ``arange(n)`` is ``arange(0, n)``."""
    if stop is None:
        start, stop = 0, start
    spec = arrays_pb2.ArangeSpec(start=_scalar(start, "start"), stop=_scalar(stop, "stop"))
    if step is not None:
        spec.step.CopyFrom(_scalar(step, "step"))
    return create((), dtype, device, arange=spec)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             dtype: DTypeLike | None = None, *, device: Any = None) -> ndarray:
    """``num`` evenly spaced values over [start, stop]. Scalar bounds only (NumPy also takes
    arrays); no ``retstep``/``axis``."""
    return create((), dtype, device, linspace=arrays_pb2.LinspaceSpec(
        start=_scalar(start, "start"), stop=_scalar(stop, "stop"), num=operator.index(num),
        endpoint=endpoint))


def eye(N: int, M: Optional[int] = None, k: int = 0, dtype: DTypeLike = float,
        order: str = "C", *, device: Any = None) -> ndarray:
    """Ones on the k-th diagonal of an N x M array; order="F" is eye(M, N, -k) transposed."""
    check_order(order, ("C", "F"))
    n, m, k = operator.index(N), operator.index(N if M is None else M), operator.index(k)
    if order == "F":
        n, m, k = m, n, -k
    square = create((), dtype, device, eye=arrays_pb2.EyeSpec(n=n, has_m=True, m=m, k=k))
    return square.T if order == "F" else square


def identity(n: int, dtype: DTypeLike = float) -> ndarray:
    """The ``n`` x ``n`` identity matrix (as :func:`eye`)."""
    return eye(n, dtype=dtype)


def _like(a: Any, dtype: DTypeLike | None,
          shape: Optional[ShapeLike]) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype of a prototype: an arrayhub array or anything NumPy can read."""
    prototype = a if isinstance(a, ndarray) else np.asarray(a)
    return (_ops.shape_tuple(shape) if shape is not None else prototype.shape,
            np.dtype(dtype) if dtype is not None else prototype.dtype)


def _like_order(a: Any, order: str, shape: Optional[ShapeLike]) -> Permutation:
    """The *_like functions' layout: ``order`` of the prototype ("K" and "A" keep its
    layout), or of a new array when ``shape`` gives another number of axes."""
    prototype = a if isinstance(a, ndarray) else np.asarray(a)
    if shape is not None and len(_ops.shape_tuple(shape)) != prototype.ndim:
        check_order(order)
        return fortran(len(_ops.shape_tuple(shape))) if order == "F" else None
    return axis_order(order, prototype)


def empty_like(a: Any, dtype: DTypeLike | None = None, order: str = "K", subok: bool = True,
               shape: Optional[ShapeLike] = None, *, device: Any = None) -> ndarray:
    """Uninitialised array with the shape and dtype of ``a`` (an arrayhub array or
    anything NumPy reads), unless ``dtype``/``shape`` are given, in ``order`` ("K" keeps its
    layout); ``subok`` is moot."""
    like_shape, like_dtype = _like(a, dtype, shape)
    return new_in_order(lambda dims: empty(dims, like_dtype, device=device), like_shape,
                        _like_order(a, order, shape))


def zeros_like(a: Any, dtype: DTypeLike | None = None, order: str = "K", subok: bool = True,
               shape: Optional[ShapeLike] = None, *, device: Any = None) -> ndarray:
    """Zeros with the shape and dtype of ``a``, unless ``dtype``/``shape`` are given.
    ``order`` as :func:`empty_like`'s; ``subok`` is moot."""
    like_shape, like_dtype = _like(a, dtype, shape)
    return new_in_order(lambda dims: zeros(dims, like_dtype, device=device), like_shape,
                        _like_order(a, order, shape))


def ones_like(a: Any, dtype: DTypeLike | None = None, order: str = "K", subok: bool = True,
              shape: Optional[ShapeLike] = None, *, device: Any = None) -> ndarray:
    """Ones with the shape and dtype of ``a``, unless ``dtype``/``shape`` are given.
    ``order`` as :func:`empty_like`'s; ``subok`` is moot."""
    like_shape, like_dtype = _like(a, dtype, shape)
    return new_in_order(lambda dims: ones(dims, like_dtype, device=device), like_shape,
                        _like_order(a, order, shape))


def full_like(a: Any, fill_value: Any, dtype: DTypeLike | None = None, order: str = "K",
              subok: bool = True, shape: Optional[ShapeLike] = None, *,
              device: Any = None) -> ndarray:
    """``fill_value`` everywhere, with the shape and dtype of ``a`` unless
    ``dtype``/``shape`` are given; ``order`` as :func:`empty_like`'s; ``subok`` is moot."""
    like_shape, like_dtype = _like(a, dtype, shape)
    return new_in_order(lambda dims: full(dims, fill_value, like_dtype, device=device),
                        like_shape, _like_order(a, order, shape))
