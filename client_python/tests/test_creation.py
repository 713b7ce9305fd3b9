"""Creation functions against NumPy: every dtype, shapes including 0-d and empty."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import ALL_DTYPES, assert_matches

SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_zeros_ones(dtype: np.dtype, shape: tuple[int, ...]) -> None:
    assert_matches(ah.zeros(shape, dtype), np.zeros(shape, dtype))
    assert_matches(ah.ones(shape, dtype), np.ones(shape, dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_empty_has_shape_and_dtype(dtype: np.dtype) -> None:
    x = ah.empty((4, 3), dtype)
    assert (x.shape, x.dtype, x.nbytes) == ((4, 3), dtype, 12 * dtype.itemsize)
    y = ah.ndarray((2, 5), dtype)  # CuPy's constructor: uninitialised memory
    assert (y.shape, y.dtype) == ((2, 5), dtype)


def test_default_dtypes_are_numpys() -> None:
    assert ah.zeros(3).dtype == np.float64
    assert ah.ones((2, 2)).dtype == np.float64
    assert ah.empty(1).dtype == np.float64
    assert ah.eye(2).dtype == np.float64


@pytest.mark.parametrize("value", [True, 7, -3, 2**63 + 5, 2.5, 1 - 2j])
def test_full_takes_numpys_dtype_from_the_value(value: object) -> None:
    assert_matches(ah.full((2, 3), value), np.full((2, 3), value))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_full_with_dtype(dtype: np.dtype) -> None:
    value = True if dtype.kind == "b" else 3
    assert_matches(ah.full((4,), value, dtype), np.full((4,), value, dtype))


def test_full_with_numpy_scalar_keeps_its_dtype() -> None:
    assert_matches(ah.full(3, np.float32(1.5)), np.full(3, np.float32(1.5)))


@pytest.mark.parametrize("args", [(10,), (2, 11), (2, 11, 3), (10, 0, -2), (0.5, 3.0, 0.25),
                                  (5, 1), (-3, 3), (-1, 0, -2**63), (0, 1, 2**63 - 1)])
def test_arange(args: tuple) -> None:
    assert_matches(ah.arange(*args), np.arange(*args))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float16, np.float32,
                                   np.complex64], ids=str)
def test_arange_with_dtype(dtype: type) -> None:
    assert_matches(ah.arange(1, 20, 3, dtype=dtype), np.arange(1, 20, 3, dtype=dtype))


@pytest.mark.parametrize("args, kwargs", [((0, 1), {}), ((0, 1, 5), {}),
                                          ((-2, 3, 7), {"endpoint": False}),
                                          ((1, 2, 1), {}), ((0, 10, 0), {}),
                                          ((0, 1, 11), {"dtype": np.float32}),
                                          ((0, 1 + 1j, 4), {})])
def test_linspace(args: tuple, kwargs: dict) -> None:
    assert_matches(ah.linspace(*args, **kwargs), np.linspace(*args, **kwargs))


@pytest.mark.parametrize("args, kwargs", [((3,), {}), ((3, 5), {}), ((4, 3, 1), {}),
                                          ((4, 4, -2), {}), ((3,), {"dtype": np.int32}),
                                          ((2,), {"dtype": np.complex64}), ((0,), {})])
def test_eye_identity(args: tuple, kwargs: dict) -> None:
    assert_matches(ah.eye(*args, **kwargs), np.eye(*args, **kwargs))
    assert_matches(ah.identity(4, np.uint8), np.identity(4, np.uint8))


def test_like_functions_take_shape_and_dtype_from_any_array() -> None:
    host = np.arange(6, dtype=np.int16).reshape(2, 3)
    remote = ah.asarray(host)
    for prototype in (host, remote, host.tolist()):
        expected_dtype = np.asarray(prototype).dtype if isinstance(prototype, list) else np.int16
        assert_matches(ah.zeros_like(prototype), np.zeros((2, 3), expected_dtype))
        assert_matches(ah.ones_like(prototype, dtype=np.float32), np.ones((2, 3), np.float32))
        assert_matches(ah.full_like(prototype, 7), np.full((2, 3), 7, expected_dtype))
        empty = ah.empty_like(prototype, shape=(4,))
        assert (empty.shape, empty.dtype) == ((4,), expected_dtype)


def test_negative_dimensions_raise_numpys_value_error() -> None:
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        ah.zeros((3, -2))


def test_unsupported_dtypes_raise_type_error_before_any_call() -> None:
    for dtype in (object, "U3", "datetime64[s]", np.longdouble):
        with pytest.raises(TypeError, match="does not support dtype"):
            ah.zeros(3, dtype)
    with pytest.raises(TypeError):
        ah.asarray(np.array(["a", "b"]))


def test_array_and_asarray() -> None:
    x = ah.array([[1, 2], [3, 4]])
    assert_matches(x, np.array([[1, 2], [3, 4]]))
    assert ah.asarray(x) is x
    assert_matches(ah.array([1.5, 2.5], dtype=np.float32), np.array([1.5, 2.5], np.float32))
    assert_matches(ah.asarray(3.0), np.asarray(3.0))
    assert_matches(ah.asarray([True, False]), np.asarray([True, False]))
    np.testing.assert_array_equal(ah.asnumpy(x), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(ah.asnumpy([1, 2]), [1, 2])
