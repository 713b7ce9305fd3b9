"""Complex parts on the server: numpy.real, numpy.imag, numpy.angle and the ndarray.real /
ndarray.imag properties and their setters.

The server cannot view one part of a complex array in place, so ``x.real`` and ``x.imag`` of a
complex array are new arrays (the server's ``real`` and ``imag`` ops). They are read-only, so
that a write meant for ``x`` (``x.imag[0] = 1``, which NumPy's views pass on) raises instead of
being lost; write through the setters (``x.imag = ...``), which rebuild ``x`` on the server
from its parts (the internal op ``_complex``, exact for every value). As in NumPy, ``x.real``
of a real array is ``x`` itself and ``x.imag`` read-only zeros.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arrayhub import _ops
from arrayhub._errors import ArrayHubTypeError, client_error
from arrayhub._ndarray import ndarray

__all__ = ["real", "imag", "angle", "set_real", "set_imag", "from_parts"]


def _read_only(x: ndarray) -> ndarray:
    """A read-only view of all of ``x`` (broadcast_to its own shape)."""
    from arrayhub._manipulation import broadcast_to
    return broadcast_to(x, x.shape)


def real(val: ndarray) -> ndarray:
    """numpy.real: the real part (read-only) of a complex array; a real array itself."""
    x = _ops.require_array(val, "real")
    if x.dtype.kind != "c":
        return x
    return _read_only(_ops.elementwise("real", (x,)))


def imag(val: ndarray) -> ndarray:
    """numpy.imag: the imaginary part (read-only) of a complex array; read-only zeros of a real
    array's dtype."""
    x = _ops.require_array(val, "imag")
    if x.dtype.kind == "c":
        return _read_only(_ops.elementwise("imag", (x,)))
    zero = False if x.dtype.kind == "b" else 0  # a weak scalar: takes x's dtype
    return _read_only(_ops.elementwise("where", (True, zero, x)))


def from_parts(re: Any, im: Any) -> ndarray:
    """re + i im, exactly (the server's internal ``_complex`` op)."""
    return _ops.elementwise("_complex", (re, im))


def _part_dtype(x: ndarray) -> np.dtype:
    return np.dtype(np.float32 if x.dtype == np.complex64 else np.float64)


def _as_part(value: Any, x: ndarray) -> Any:
    """``value`` as x's part dtype (an array cast there, a Python scalar left weak)."""
    return value.astype(_part_dtype(x)) if isinstance(value, ndarray) else value


def set_real(x: ndarray, value: Any) -> None:
    """``x.real = value``: in place, like NumPy's."""
    if x.dtype.kind != "c":
        x[...] = value
        return
    x[...] = from_parts(_as_part(value, x), _ops.elementwise("imag", (x,)))


def set_imag(x: ndarray, value: Any) -> None:
    """``x.imag = value``: in place for complex arrays; NumPy's TypeError for others."""
    if x.dtype.kind != "c":
        raise client_error(ArrayHubTypeError, "array does not have imaginary part to set")
    x[...] = from_parts(_ops.elementwise("real", (x,)), _as_part(value, x))


def angle(z: ndarray, deg: bool = False) -> ndarray:
    """numpy.angle: ``arctan2(imag, real)``, in degrees with ``deg=True`` (NumPy's formula and
    dtypes: for a real array, ``arctan2(0, z)``)."""
    x = _ops.require_array(z, "angle")
    if x.dtype.kind == "c":
        result = _ops.elementwise("arctan2", (_ops.elementwise("imag", (x,)),
                                              _ops.elementwise("real", (x,))))
    else:
        result = _ops.elementwise("arctan2", (0, x))
    if deg:  # NumPy's a *= 180 / pi, which keeps a's dtype as this does
        result = _ops.elementwise("multiply", (result, 180 / np.pi))
    return result
