"""Assertions on arrays, as ``cupy.testing``'s: each downloads its arguments (explicitly: this
is a comparison on the host by nature) and calls ``numpy.testing``'s function of the same
name, so messages are NumPy's. Arguments may mix arrayhub arrays, NumPy arrays and Python
values."""

from __future__ import annotations

from typing import Any

import numpy.testing as _np_testing

__all__ = ["assert_allclose", "assert_array_almost_equal", "assert_array_almost_equal_nulp",
           "assert_array_max_ulp", "assert_array_equal", "assert_array_less",
           "assert_array_list_equal"]


def _host(value: Any) -> Any:
    from arrayhub._ndarray import ndarray

    return value.get() if isinstance(value, ndarray) else value


def assert_allclose(actual: Any, desired: Any, rtol: float = 1e-7, atol: float = 0,
                    err_msg: str = "", verbose: bool = True) -> None:
    """numpy.testing.assert_allclose on the downloaded values."""
    _np_testing.assert_allclose(_host(actual), _host(desired), rtol=rtol, atol=atol,
                                err_msg=err_msg, verbose=verbose)


def assert_array_almost_equal(actual: Any, desired: Any, decimal: int = 6, err_msg: str = "",
                              verbose: bool = True) -> None:
    """numpy.testing.assert_array_almost_equal on the downloaded values."""
    _np_testing.assert_array_almost_equal(_host(actual), _host(desired), decimal=decimal,
                                          err_msg=err_msg, verbose=verbose)


def assert_array_almost_equal_nulp(x: Any, y: Any, nulp: int = 1) -> None:
    """numpy.testing.assert_array_almost_equal_nulp on the downloaded values."""
    _np_testing.assert_array_almost_equal_nulp(_host(x), _host(y), nulp=nulp)


def assert_array_max_ulp(a: Any, b: Any, maxulp: int = 1, dtype: Any = None) -> None:
    """numpy.testing.assert_array_max_ulp on the downloaded values."""
    _np_testing.assert_array_max_ulp(_host(a), _host(b), maxulp=maxulp, dtype=dtype)


def assert_array_equal(x: Any, y: Any, err_msg: str = "", verbose: bool = True, *,
                       strict: bool = False) -> None:
    """numpy.testing.assert_array_equal on the downloaded values (``strict``: shapes and
    dtypes must match too)."""
    _np_testing.assert_array_equal(_host(x), _host(y), err_msg=err_msg, verbose=verbose,
                                   strict=strict)


def assert_array_less(x: Any, y: Any, err_msg: str = "", verbose: bool = True) -> None:
    """numpy.testing.assert_array_less on the downloaded values."""
    _np_testing.assert_array_less(_host(x), _host(y), err_msg=err_msg, verbose=verbose)


def assert_array_list_equal(xlist: Any, ylist: Any, err_msg: str = "",
                            verbose: bool = True) -> None:
    """Two lists (or two tuples) of arrays are equal pair by pair (assert_array_equal)."""
    if type(xlist) is not type(ylist):
        raise AssertionError("Matching types of list or tuple are expected, but were different "
                             f"types (xlist:{type(xlist)} ylist:{type(ylist)})")
    if not isinstance(xlist, (list, tuple)):
        raise AssertionError(f"List or tuple is expected, but was {type(xlist)}")
    if len(xlist) != len(ylist):
        raise AssertionError("List size is different")
    for x, y in zip(xlist, ylist):
        _np_testing.assert_array_equal(_host(x), _host(y), err_msg=err_msg, verbose=verbose)
