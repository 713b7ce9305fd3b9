"""NumPy 1.x's scalar-type helpers that CuPy still exports and NumPy 2 removed: issubclass_,
issctype, issubsctype, obj2sctype, sctype2char, find_common_type (NumPy 1.26's definitions,
with arrayhub arrays read by dtype), and format_parser (numpy.rec's).
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable, Optional

import numpy as np
from numpy.rec import format_parser

from arrayhub._errors import ArrayHubValueError, client_error
from arrayhub._ndarray import ndarray

__all__ = ["issubclass_", "issctype", "issubsctype", "obj2sctype", "sctype2char",
           "find_common_type", "format_parser"]


def issubclass_(arg1: Any, arg2: Any) -> bool:
    """``issubclass(arg1, arg2)``, False instead of TypeError when ``arg1`` is no class."""
    try:
        return issubclass(arg1, arg2)
    except TypeError:
        return False


def obj2sctype(rep: Any, default: Any = None) -> Optional[type]:
    """The scalar type of ``rep`` (a scalar type, an array, anything numpy.dtype takes), or
    ``default``."""
    if isinstance(rep, type) and issubclass(rep, np.generic):
        return rep
    if isinstance(rep, (np.ndarray, ndarray)):
        return rep.dtype.type
    try:
        return np.dtype(rep).type
    except Exception:  # NumPy 1.x's catch-all: anything not a dtype gives the default.
        return default


def issctype(rep: Any) -> bool:
    """Whether ``rep`` (a type or dtype) is a scalar type other than object."""
    if not isinstance(rep, (type, np.dtype)):
        return False
    try:
        found = obj2sctype(rep)
        return bool(found) and found != np.object_
    except Exception:
        return False


def issubsctype(arg1: Any, arg2: Any) -> bool:
    """Whether the scalar type of ``arg1`` is a subclass of that of ``arg2``."""
    return issubclass(obj2sctype(arg1), obj2sctype(arg2))


def sctype2char(sctype: Any) -> str:
    """The type character of a scalar type (or of what obj2sctype reads it as)."""
    found = obj2sctype(sctype)
    if found is None:
        raise client_error(ArrayHubValueError, "unrecognized type")
    if found not in np._core.sctypeDict.values():
        raise KeyError(found)
    return np.dtype(found).char


#: NumPy 1.x's search order for find_common_type: bool, the integers, the inexact types.
_TEST_TYPES = "?" + np.typecodes["AllInteger"][:-2] + np.typecodes["AllFloat"] + "O"
_KINDS = ["b", "u", "i", "f", "c", "S", "U", "V", "O", "M", "m"]


def _can_coerce_all(dtypes: list[np.dtype], start: int = 0) -> Optional[np.dtype]:
    if not dtypes:
        return None
    if len(dtypes) == 1:
        return dtypes[0]
    for char in _TEST_TYPES[start:]:
        candidate = np.dtype(char)
        if all(candidate >= d for d in dtypes):
            return candidate
    return None


def find_common_type(array_types: Iterable[Any], scalar_types: Iterable[Any]) -> Any:
    """NumPy 1.x's find_common_type (deprecated there since 1.25, with this warning): the
    arrays' common type, unless a scalar type of a higher kind asks for more."""
    warnings.warn("np.find_common_type is deprecated.  Please use `np.result_type` or "
                  "`np.promote_types`.", DeprecationWarning, stacklevel=2)
    arrays = [np.dtype(x) for x in array_types]
    scalars = [np.dtype(x) for x in scalar_types]
    max_array, max_scalar = _can_coerce_all(arrays), _can_coerce_all(scalars)
    if max_array is None:
        return max_scalar
    if max_scalar is None:
        return max_array
    try:
        index_array, index_scalar = _KINDS.index(max_array.kind), _KINDS.index(max_scalar.kind)
    except ValueError:
        return None
    if index_scalar <= index_array:
        return max_array
    if max_scalar > max_array:
        return max_scalar
    try:
        start = _TEST_TYPES.index(max_scalar.char)
    except ValueError:
        return None
    return _can_coerce_all([max_scalar, max_array], start=start)
