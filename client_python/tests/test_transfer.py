"""Upload and download round trips, conversions to Python and NumPy, array attributes."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah
from conftest import ALL_DTYPES, random_values


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 0, 2), (4, 5, 6)], ids=str)
def test_round_trip_is_bit_exact(dtype: np.dtype, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(0)
    host = random_values(rng, dtype, shape)
    remote = ah.asarray(host)
    assert (remote.shape, remote.dtype, remote.ndim, remote.size, remote.nbytes) == (
        host.shape, host.dtype, host.ndim, host.size, host.nbytes)
    back = remote.get()
    assert back.dtype == host.dtype and back.shape == host.shape
    assert back.tobytes() == host.tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.complex128, np.uint8], ids=str)
def test_multi_chunk_transfer(dtype: type) -> None:
    host = random_values(np.random.default_rng(1), np.dtype(dtype), (3 * 2**20 // 3 + 17,))
    assert host.nbytes > 2**20  # several 1 MiB chunks, the last one partial
    assert ah.asarray(host).get().tobytes() == host.tobytes()


def test_non_contiguous_and_big_endian_inputs_are_uploaded_as_values() -> None:
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    np.testing.assert_array_equal(ah.asarray(base[:, ::2].T).get(), base[:, ::2].T)
    big = np.arange(5, dtype=">i4")
    back = ah.asarray(big).get()
    assert back.dtype == np.int32
    np.testing.assert_array_equal(back, big)


def test_downloaded_arrays_are_writable_and_own_no_server_memory() -> None:
    back = ah.arange(4).get()
    back[0] = 42
    assert ah.arange(4).get()[0] == 0


def test_attributes_match_numpy() -> None:
    host = np.zeros((3, 4, 5), np.complex64)
    x = ah.asarray(host)
    assert x.strides == host.strides
    assert x.itemsize == host.itemsize
    assert x.flags.c_contiguous and x.flags["C_CONTIGUOUS"] and x.flags.owndata
    assert x.flags.writeable
    assert len(x) == 3
    assert isinstance(x.handle, str) and len(x.handle) == 32
    assert isinstance(x.device, ah.cuda.Device)
    assert 0 <= x.device.id < ah.cuda.runtime.getDeviceCount()
    assert x.client is ah.get_client()


def test_conversions_to_python() -> None:
    assert ah.asarray([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert ah.asarray(np.float32(2.5)).item() == 2.5
    assert float(ah.full((), 2.5)) == 2.5
    assert int(ah.full((), 7, np.int8)) == 7
    assert complex(ah.full((), 1 + 2j)) == 1 + 2j
    assert bool(ah.full((), 1)) is True and bool(ah.zeros(())) is False
    assert [10, 20, 30][ah.full((), 2)] == 30  # __index__
    np.testing.assert_array_equal(np.asarray(ah.arange(3)), [0, 1, 2])
    assert np.asarray(ah.arange(3), dtype=np.float32).dtype == np.float32
    assert "array([0, 1, 2])" == repr(ah.arange(3))
    assert str(ah.arange(3)) == "[0 1 2]"


def test_conversion_errors_are_numpys() -> None:
    many = ah.zeros(3)
    with pytest.raises(ValueError, match="more than one element is ambiguous"):
        bool(many)
    with pytest.raises(ValueError, match="empty array is ambiguous"):
        bool(ah.zeros(0))
    with pytest.raises(TypeError):
        float(many)
    with pytest.raises(ValueError, match="size 1"):
        many.item()
    with pytest.raises(TypeError, match="unsized object"):
        len(ah.zeros(()))
    with pytest.raises(TypeError, match="0-d array"):
        iter(ah.zeros(()))
    with pytest.raises(TypeError, match="integer scalar arrays"):
        [1][ah.full((), 1.0)]
    with pytest.raises(ValueError, match="copy"):
        np.asarray(many, copy=False)
