"""Printing: array2string, array_repr and array_str, NumPy's formatting of a downloaded copy
(printing reads every element anyway), NumPy's own print options and number formatters, and
NumPy 1.x's set_string_function.

The print options are NumPy's (``set_printoptions``, ``get_printoptions``, ``printoptions``
are NumPy's functions, re-exported as CuPy does): an arrayhub array's ``repr`` and ``str`` are
NumPy's of its downloaded copy (:func:`text`), so they follow the same options, unless
:func:`set_string_function` installed a function of the array instead.
"""

from __future__ import annotations

import builtins
from typing import Any, Callable, Optional

import numpy as np
from numpy import (base_repr, binary_repr, format_float_positional, format_float_scientific,
                   get_printoptions, printoptions, set_printoptions)

from arrayhub import _ops
from arrayhub._errors import ArrayHubTypeError, client_error

__all__ = ["array2string", "array_repr", "array_str", "base_repr", "binary_repr",
           "format_float_positional", "format_float_scientific", "get_printoptions",
           "printoptions", "set_printoptions", "set_string_function"]


def array2string(a: Any, *args: Any, **kwargs: Any) -> str:
    """numpy.array2string of the array's values (downloaded); NumPy's arguments."""
    return np.array2string(_ops.require_array(a, "array2string").get(), *args, **kwargs)


def array_repr(arr: Any, *args: Any, **kwargs: Any) -> str:
    """numpy.array_repr of the array's values (downloaded): ``array([...])``."""
    return np.array_repr(_ops.require_array(arr, "array_repr").get(), *args, **kwargs)


def array_str(a: Any, *args: Any, **kwargs: Any) -> str:
    """numpy.array_str of the array's values (downloaded)."""
    return np.array_str(_ops.require_array(a, "array_str").get(), *args, **kwargs)


#: The functions set_string_function installed: for repr (True) and for str (False).
_STRING_FUNCTIONS: dict[bool, Optional[Callable[[Any], str]]] = {True: None, False: None}


def set_string_function(f: Optional[Callable[[Any], str]], repr: bool = True) -> None:
    """NumPy 1.x's set_string_function (NumPy 2 removed it; CuPy keeps it): ``f(array)``
    gives arrayhub arrays' ``repr`` (with ``repr=False``, their ``str``); None restores
    NumPy's formatting."""
    if f is not None and not callable(f):
        raise client_error(ArrayHubTypeError, "Argument must be callable.")
    _STRING_FUNCTIONS[bool(repr)] = f


def text(array: Any, as_repr: bool) -> str:
    """An array's ``repr`` (``as_repr``) or ``str``: the installed function's, else NumPy's
    of the downloaded values."""
    custom = _STRING_FUNCTIONS[as_repr]
    if custom is not None:
        return custom(array)
    return builtins.repr(array.get()) if as_repr else str(array.get())
