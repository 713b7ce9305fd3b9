"""NumPy's dtype functions and scalar-type names, for the dtypes an ArrayHub server stores.

Type promotion is NumPy 2's (NEP 50), which the server applies too: these functions are
NumPy's own, given an arrayhub array's dtype where NumPy would read the array itself (so
nothing is downloaded). ``longdouble`` and its complex kin are not offered: the server has
no extended-precision types (see :data:`arrayhub.SUPPORTED_DTYPES`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from arrayhub._ndarray import ndarray

__all__ = ["result_type", "can_cast", "promote_types", "finfo", "iinfo", "isdtype",
           "issubdtype",
           # NumPy 2's names for the supported dtypes, by C type and by kind.
           "bool", "int_", "intp", "uint", "uintp", "intc", "uintc", "byte", "ubyte", "short",
           "ushort", "long", "ulong", "longlong", "ulonglong", "half", "single", "double",
           "csingle", "cdouble",
           # The abstract scalar types, for issubdtype.
           "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact",
           "floating", "complexfloating"]

promote_types = np.promote_types
isdtype = np.isdtype
issubdtype = np.issubdtype

int_, intp, uint, uintp = np.int_, np.intp, np.uint, np.uintp
intc, uintc, byte, ubyte, short, ushort = np.intc, np.uintc, np.byte, np.ubyte, np.short, np.ushort
long, ulong, longlong, ulonglong = np.long, np.ulong, np.longlong, np.ulonglong
half, single, double, csingle, cdouble = np.half, np.single, np.double, np.csingle, np.cdouble
generic, number, integer, inexact = np.generic, np.number, np.integer, np.inexact
signedinteger, unsignedinteger = np.signedinteger, np.unsignedinteger
floating, complexfloating = np.floating, np.complexfloating


def _dtype_of(value: Any) -> Any:
    """An arrayhub array's dtype (what NumPy reads of an array here); anything else as is."""
    return value.dtype if isinstance(value, ndarray) else value


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """numpy.result_type: the dtype NumPy 2's promotion gives for these arrays, dtypes and
    scalars (Python scalars are weak, as in the server's operations)."""
    return np.result_type(*map(_dtype_of, arrays_and_dtypes))


def can_cast(from_: Any, to: DTypeLike, casting: str = "safe") -> Any:
    """numpy.can_cast: whether an array of ``from_`` (a dtype or an arrayhub array) can be cast
    to ``to`` under ``casting``. Python scalars raise TypeError, as in NumPy 2."""
    return np.can_cast(_dtype_of(from_), to, casting)


def finfo(dtype: Any) -> np.finfo:
    """numpy.finfo of a floating or complex dtype, or of an arrayhub array's dtype."""
    return np.finfo(_dtype_of(dtype))


def iinfo(int_type: Any) -> np.iinfo:
    """numpy.iinfo of an integer dtype, or of an arrayhub array's dtype."""
    return np.iinfo(_dtype_of(int_type))


# Last: the name shadows the builtin in this module.
bool = np.bool  # noqa: A001
