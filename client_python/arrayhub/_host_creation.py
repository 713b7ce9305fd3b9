"""Arrays from host data in other forms: frombuffer, fromfile, fromiter, fromstring (NumPy
parses them on the host, then one upload) and fromfunction (the function called on index
grids made on the server).

``like=`` is accepted for NumPy's dispatch (``numpy.frombuffer(b, like=x)`` with an arrayhub
``x`` comes here); the result is an arrayhub array whatever it names.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._matrix_functions import indices
from arrayhub._ndarray import ndarray
from arrayhub._numpy_checks import numpy_checks

__all__ = ["frombuffer", "fromfile", "fromiter", "fromstring", "fromfunction"]


def _parsed(parse: Callable[..., np.ndarray], *args: Any, **kwargs: Any) -> ndarray:
    """NumPy's parse of host data (its errors as arrayhub's), uploaded in one transfer."""
    with numpy_checks():
        host = parse(*args, **kwargs)
    return _ops.upload(host)


def frombuffer(buffer: Any, dtype: DTypeLike = float, count: int = -1, offset: int = 0, *,
               like: Any = None) -> ndarray:
    """A 1-D array of the buffer's bytes read as ``dtype`` (numpy.frombuffer), uploaded."""
    return _parsed(np.frombuffer, buffer, dtype=dtype, count=count, offset=offset)


def fromfile(file: Any, dtype: DTypeLike = float, count: int = -1, sep: str = "",
             offset: int = 0, *, like: Any = None) -> ndarray:
    """A 1-D array of a binary (or, with ``sep``, text) file's contents (numpy.fromfile),
    uploaded."""
    return _parsed(np.fromfile, file, dtype=dtype, count=count, sep=sep, offset=offset)


def fromiter(iter: Any, dtype: DTypeLike, count: int = -1, *, like: Any = None) -> ndarray:
    """A 1-D array of an iterable's values (numpy.fromiter), uploaded."""
    return _parsed(np.fromiter, iter, dtype=dtype, count=count)


def fromstring(string: Any, dtype: DTypeLike = float, count: int = -1, *, sep: str = "",
               like: Any = None) -> ndarray:
    """A 1-D array of the numbers in a text string separated by ``sep`` (numpy.fromstring),
    uploaded."""
    return _parsed(np.fromstring, string, dtype=dtype, count=count, sep=sep)


def fromfunction(function: Callable[..., Any], shape: Any, *, dtype: DTypeLike = float,
                 like: Any = None, **kwargs: Any) -> Any:
    """``function(*indices(shape, dtype), **kwargs)``: the function is called once, on the
    coordinate grids (server arrays), and its result returned as it is."""
    return function(*indices(shape, dtype=dtype), **kwargs)
