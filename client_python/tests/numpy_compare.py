"""Helpers for tests that run one call on NumPy and on ArrayHub and compare the outcomes."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches, random_values

#: One dtype or two of each class (bool, signed, unsigned, float, complex).
DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.uint32, np.int64, np.float16, np.float32,
                                np.float64, np.complex64, np.complex128)]

# NumPy's private exception subclasses (_UFuncOutputCastingError, ...) by their public base.
_ERRORS = (np.exceptions.AxisError, IndexError, TypeError, ValueError, ZeroDivisionError,
           FloatingPointError)


def pair(dtype: np.dtype, shape: tuple[int, ...], seed: int = 0) -> tuple[np.ndarray, ah.ndarray]:
    """Random values of ``dtype`` (conftest.random_values) on the host and uploaded."""
    host = random_values(np.random.default_rng(seed), dtype, shape)
    return host, ah.asarray(host)


def same_as_numpy(check: Callable[[Any, Any], Any], host: Any, array: Any) -> None:
    """``check(module, input)`` with NumPy and its input, then with arrayhub and its own: the
    same result (dtype, shape, values; a tuple elementwise), or the same error (class and
    message), raised by the time the queue has run."""
    try:
        expected = check(np, host)
    except Exception as error:
        kind = next(k for k in _ERRORS if isinstance(error, k))
        with pytest.raises(kind) as raised:
            ah.synchronize()
            check(ah, array)
            ah.synchronize()
        assert str(raised.value) == str(error)
        return
    got = check(ah, array)
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for one, other in zip(got, expected):
            assert_matches(one, other)
    else:
        assert_matches(got, expected)
