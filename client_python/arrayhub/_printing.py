"""Printing: array2string, array_repr and array_str, NumPy's formatting of a downloaded copy
(printing reads every element anyway), and NumPy's own print options and number formatters.

The print options are NumPy's (``set_printoptions``, ``get_printoptions``, ``printoptions``
are NumPy's functions, re-exported as CuPy does): an arrayhub array's ``repr`` and ``str`` are
NumPy's of its downloaded copy, so they follow the same options.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy import (base_repr, binary_repr, format_float_positional, format_float_scientific,
                   get_printoptions, printoptions, set_printoptions)

from arrayhub import _ops

__all__ = ["array2string", "array_repr", "array_str", "base_repr", "binary_repr",
           "format_float_positional", "format_float_scientific", "get_printoptions",
           "printoptions", "set_printoptions"]


def array2string(a: Any, *args: Any, **kwargs: Any) -> str:
    """numpy.array2string of the array's values (downloaded); NumPy's arguments."""
    return np.array2string(_ops.require_array(a, "array2string").get(), *args, **kwargs)


def array_repr(arr: Any, *args: Any, **kwargs: Any) -> str:
    """numpy.array_repr of the array's values (downloaded): ``array([...])``."""
    return np.array_repr(_ops.require_array(arr, "array_repr").get(), *args, **kwargs)


def array_str(a: Any, *args: Any, **kwargs: Any) -> str:
    """numpy.array_str of the array's values (downloaded)."""
    return np.array_str(_ops.require_array(a, "array_str").get(), *args, **kwargs)
