"""arrayhub.fft (the Fft RPC, and the frequency helpers built on arange and roll) against
numpy.fft on fresh random data of every dtype class: each function with n/s cutting and
padding, axes (negative, repeated), every norm, non-contiguous inputs, empty arrays and
NumPy's errors. The seed is printed with a failure (conftest.random_values' generator)."""

from __future__ import annotations

import secrets
import zlib
from typing import Any

import numpy as np
import pytest

import arrayhub as ah

_SEED = secrets.randbits(64)

DTYPES = [np.dtype(t) for t in (np.bool_, np.int32, np.uint8, np.float16, np.float32,
                                np.float64, np.complex64, np.complex128)]
ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_AXES = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
#: Largest error allowed, relative to the largest magnitude of NumPy's result.
_TOL = {"e": 4e-3, "f": 2e-5, "F": 2e-5, "d": 1e-12, "D": 1e-12}


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    seed = (_SEED + zlib.crc32(request.node.nodeid.encode())) % 2**64
    print(f"{request.node.nodeid}: numpy.random.default_rng({seed})")
    return np.random.default_rng(seed)


def values(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 100, size=shape).astype(dtype)
    data = rng.standard_normal(size=shape)
    if dtype.kind == "c":
        data = data + 1j * rng.standard_normal(size=shape)
    return data.astype(dtype)


def check(got: ah.ndarray, expected: np.ndarray) -> None:
    """NumPy's dtype and shape, and its values within the result dtype's tolerance."""
    assert got.dtype == expected.dtype, f"dtype {got.dtype}, NumPy gives {expected.dtype}"
    assert got.shape == expected.shape, f"shape {got.shape}, NumPy gives {expected.shape}"
    host = got.get().astype(np.complex128)
    scale = max(1.0, float(np.max(np.abs(expected), initial=0)))
    error = float(np.max(np.abs(host - expected), initial=0))
    assert error <= _TOL.get(expected.dtype.char, 0) * scale, f"error {error} of {scale}"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", ONE_AXIS)
def test_one_axis_transforms_match_numpy(rng: np.random.Generator, name: str,
                                         dtype: np.dtype) -> None:
    data = values(rng, dtype, (4, 10))
    a = ah.asarray(data)
    cases: list[dict[str, Any]] = [{}, {"n": 13, "norm": "ortho"},
                                   {"n": 7, "axis": 0, "norm": "forward"},
                                   {"axis": -2, "norm": "backward"}]
    for kwargs in cases:
        if name in ("rfft", "ihfft") and dtype.kind == "c":
            with pytest.raises(TypeError, match="not supported for the input types"):
                getattr(ah.fft, name)(a, **kwargs)
            continue
        check(getattr(ah.fft, name)(a, **kwargs), getattr(np.fft, name)(data, **kwargs))


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in (np.int64, np.float32, np.complex128)],
                         ids=str)
@pytest.mark.parametrize("name", N_AXES)
def test_n_axis_transforms_match_numpy(rng: np.random.Generator, name: str,
                                       dtype: np.dtype) -> None:
    real_input = name.startswith("rfft")
    if real_input and dtype.kind == "c":
        dtype = np.dtype(np.float64)
    data = values(rng, dtype, (3, 4, 6))
    a = ah.asarray(data)
    cases: list[dict[str, Any]] = [{}, {"norm": "ortho"}, {"s": (5, 3), "axes": (0, 2)},
                                   {"axes": (-1, 0), "norm": "forward"}]
    if name.endswith("n"):  # fftn's own defaults: every axis, or the last len(s).
        cases += [{"axes": (1, 1), "s": (7, 2)}, {"axes": (2, 0, 1)}]
    for kwargs in cases:
        check(getattr(ah.fft, name)(a, **kwargs), getattr(np.fft, name)(data, **kwargs))


def test_transforms_over_the_trailing_axes_at_once_match_numpy(rng: np.random.Generator) -> None:
    """fftn, ifftn and rfftn over all of the last two or three axes are one multi-dimensional
    plan on the server: with the first transformed axis padded, another cut (one axis at a
    time again), the axes in either order, and a real view at an odd offset."""
    data = values(rng, np.dtype(np.complex64), (2, 3, 5, 6))
    a = ah.asarray(data)
    cases: list[tuple[str, dict[str, Any]]] = [
        ("fft2", {}), ("ifftn", {"axes": (1, 2, 3), "norm": "ortho"}),
        ("fftn", {"s": (5, 9), "axes": (2, 3)}), ("fftn", {"s": (4, 6), "axes": (2, 3)}),
        ("fftn", {"axes": (3, 2)}), ("ifft2", {"axes": (-1, -2), "norm": "forward"})]
    for name, kwargs in cases:
        check(getattr(ah.fft, name)(a, **kwargs), getattr(np.fft, name)(data, **kwargs))
    real = values(rng, np.dtype(np.float32), (3, 5, 7))
    view = ah.asarray(real)[1:]  # 35 floats in: not aligned as a complex64.
    check(ah.fft.rfft2(view), np.fft.rfft2(real[1:]))
    check(ah.fft.rfftn(view, s=(5, 10)), np.fft.rfftn(real[1:], s=(5, 10)))
    check(ah.fft.rfftn(ah.asarray(real)), np.fft.rfftn(real))
    thin = values(rng, np.dtype(np.float64), (2, 1, 5))  # A length-1 axis: one at a time.
    check(ah.fft.rfft2(ah.asarray(thin)), np.fft.rfft2(thin))
    check(ah.fft.fftn(ah.asarray(thin)), np.fft.fftn(thin))


def test_non_contiguous_inputs(rng: np.random.Generator) -> None:
    data = values(rng, np.dtype(np.complex64), (6, 10))
    view = ah.asarray(data)[::2, 1::3].T
    expected = data[::2, 1::3].T
    check(ah.fft.fft(view), np.fft.fft(expected))
    check(ah.fft.irfft(view, axis=0), np.fft.irfft(expected, axis=0))
    real = values(rng, np.dtype(np.float64), (5, 8))
    check(ah.fft.rfftn(ah.asarray(real)[:, ::-2]), np.fft.rfftn(real[:, ::-2]))


def test_empty_arrays(rng: np.random.Generator) -> None:
    empty = np.zeros((0, 4))
    check(ah.fft.fft(ah.asarray(empty)), np.fft.fft(empty))
    check(ah.fft.irfft(ah.asarray(empty), n=6), np.fft.irfft(empty, n=6))
    # Nothing along the transformed axis: padded to n.
    check(ah.fft.fft(ah.asarray(np.zeros(0)), n=3), np.fft.fft(np.zeros(0), n=3))
    # fftn over no axes: the input itself (a copy), as NumPy returns it.
    ints = np.arange(6).reshape(2, 3)
    check(ah.fft.fftn(ah.asarray(ints), axes=()), np.fft.fftn(ints, axes=()))


def test_errors_are_numpys() -> None:
    a = ah.asarray(np.ones((2, 4)))
    for call, kind, message in [
            (lambda: ah.fft.fft(a, n=0), ValueError,
             r"Invalid number of FFT data points \(0\) specified\."),
            (lambda: ah.fft.fft(a, n=-1), ValueError,
             r"Invalid number of FFT data points \(-1\) specified\."),
            (lambda: ah.fft.fft(ah.asarray(np.ones(0))), ValueError,
             r"Invalid number of FFT data points \(0\) specified\."),
            (lambda: ah.fft.irfft(ah.asarray(np.ones(1))), ValueError,
             r"Invalid number of FFT data points \(0\) specified\."),
            (lambda: ah.fft.fft(a, axis=2), np.exceptions.AxisError,
             "axis 2 is out of bounds for array of dimension 2"),
            (lambda: ah.fft.fftn(a, s=(2, 3, 4)), np.exceptions.AxisError,
             "axis -3 is out of bounds"),
            (lambda: ah.fft.fftn(a, s=(2, 3, 4), axes=(0, 1)), ValueError,
             "Shape and axes have different lengths."),
            (lambda: ah.fft.fft(a, norm="x"), ValueError,
             'Invalid norm value x; should be "backward","ortho" or "forward".'),
            (lambda: ah.fft.rfft(a + 1j), TypeError, "ufunc 'rfft_n_even' not supported")]:
        with pytest.raises(kind, match=message):
            call()
            ah.synchronize()


@pytest.mark.parametrize("n", [1, 8, 9])
def test_frequencies_and_shifts(rng: np.random.Generator, n: int) -> None:
    check(ah.fft.fftfreq(n), np.fft.fftfreq(n))
    check(ah.fft.fftfreq(n, d=0.25), np.fft.fftfreq(n, d=0.25))
    check(ah.fft.rfftfreq(n, 3.0), np.fft.rfftfreq(n, 3.0))
    data = values(rng, np.dtype(np.float32), (n, 5))
    a = ah.asarray(data)
    for axes in (None, 0, (1,), (0, 1)):
        check(ah.fft.fftshift(a, axes), np.fft.fftshift(data, axes))
        check(ah.fft.ifftshift(a, axes), np.fft.ifftshift(data, axes))


def test_out_and_batches(rng: np.random.Generator) -> None:
    data = values(rng, np.dtype(np.float64), (8,))
    out = ah.zeros(8, dtype=np.complex128)
    assert ah.fft.fft(ah.asarray(data), out=out) is out
    check(out, np.fft.fft(data))
    # Inside a batch the transforms read and give results of the batch.
    a = ah.asarray(data)
    with ah.batch():
        round_trip = ah.fft.irfft(ah.fft.rfft(a * 2), n=8)
    check(round_trip, data * 2)
