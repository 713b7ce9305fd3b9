"""Conversions that ask for a kind of array: asanyarray, asfarray, asarray_chkfinite,
asfortranarray, require; and isfortran.

``asfortranarray`` and ``require(requirements='F')`` give Fortran-ordered arrays, with
NumPy's strides and flags (made as :mod:`arrayhub._layouts` describes).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _dtypes, _ops
from arrayhub._creation import asarray
from arrayhub._errors import ArrayHubValueError, client_error
from arrayhub._manipulation import ascontiguousarray
from arrayhub._ndarray import ndarray

__all__ = ["asanyarray", "asfarray", "asarray_chkfinite", "asfortranarray", "require",
           "isfortran"]


def asanyarray(a: Any, dtype: DTypeLike | None = None, order: Optional[str] = None, *,
               device: Any = None, copy: Optional[bool] = None) -> ndarray:
    """:func:`arrayhub.asarray` (arrayhub has no array subclasses to pass through)."""
    return asarray(a, dtype, order, device=device, copy=copy)


def asfarray(a: Any, dtype: DTypeLike = np.float64) -> ndarray:
    """``a`` as an array of an inexact dtype: ``dtype`` if it is one, else float64 (NumPy
    1.x's asfarray, which CuPy keeps)."""
    dtype = _dtypes.normalize(dtype)
    if dtype.kind not in "fc":
        dtype = np.dtype(np.float64)
    return asarray(a, dtype=dtype)


def asarray_chkfinite(a: Any, dtype: DTypeLike | None = None,
                      order: Optional[str] = None) -> ndarray:
    """:func:`arrayhub.asarray`, raising ValueError if a float or complex result holds an
    infinity or NaN (checked on the server; one boolean read back)."""
    a = asarray(a, dtype, order)
    if a.dtype.kind in "fc" and not bool(_ops.reduce(
            "all", _ops.elementwise("isfinite", (a,)))):
        raise client_error(ArrayHubValueError, "array must not contain infs or NaNs")
    return a


def asfortranarray(a: Any, dtype: DTypeLike | None = None) -> ndarray:
    """``a`` itself when it is an F-contiguous arrayhub array (of ``dtype``), else an
    F-ordered copy; 0-d input gives one axis, as NumPy's."""
    result = asarray(a, dtype=dtype, order="F")
    return result if result.ndim else result.reshape(1)


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F",
                 "F_CONTIGUOUS": "F", "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W",
                 "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def require(a: Any, dtype: DTypeLike | None = None, requirements: Any = None) -> ndarray:
    """``a`` as an array of ``dtype`` meeting ``requirements`` (NumPy's flag names): 'C'
    (contiguous), 'W' (writeable) and 'O' (owns its data) copy when needed; 'A' (aligned) and
    'E' (a base-class array) always hold; 'F' (Fortran-contiguous) copies when needed."""
    # A string is read letter by letter, as NumPy reads it.
    wanted = {_REQUIREMENTS[r.upper()] for r in requirements or ()}
    if "C" in wanted and "F" in wanted:
        raise client_error(ArrayHubValueError, "Cannot specify both C and Fortran contiguous.")
    a = asarray(a, dtype=dtype)
    flags = a.flags
    if ("W" in wanted and not flags.writeable) or ("O" in wanted and not flags.owndata):
        # (A Fortran-ordered copy is a view of the array it was made as: see _layouts.)
        return a.copy(order="F" if "F" in wanted else "C")
    if "F" in wanted:
        return asfortranarray(a)
    if "C" in wanted:
        return ascontiguousarray(a)
    return a


def isfortran(a: Any) -> bool:
    """Whether ``a`` is Fortran-contiguous and not C-contiguous (a transposed view can be)."""
    flags = _ops.require_array(a, "isfortran").flags
    return bool(flags.f_contiguous and not flags.c_contiguous)
