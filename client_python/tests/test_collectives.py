"""arrayhub.distributed: the collectives across a daemon's devices (`arrayhubd --cpu-devices 3`,
three so that rank order and sizes that are no power of two show; with
ARRAYHUB_TEST_BACKEND=cuda every GPU the daemon sees, two at least, through NCCL) checked
against NumPy, their errors, and scatter/gather over devices."""

from __future__ import annotations

import re
from typing import Any, Iterator

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _client, cuda
from arrayhub import distributed as dist
from arrayhub.v1 import arrays_pb2
from conftest import BACKEND, Daemon, start_daemon, stop_daemon

#: What the daemon calls its devices: the CPU backend's virtual ones, or the GPUs.
KIND = "cuda" if BACKEND == "cuda" else "cpu"

#: NumPy's elementwise form of each reduction, in the dtype (avg: the sum over the ranks).
REDUCE = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
          "avg": np.add}
#: The ops each dtype takes (docs/devices.md, "Collectives").
OPS = {np.float32: ("sum", "prod", "min", "max", "avg"), np.float64: ("sum", "max", "avg"),
       np.int32: ("sum", "prod", "min", "max"), np.uint8: ("sum", "max"),
       np.complex64: ("sum", "avg"), np.bool_: ("min", "max")}


@pytest.fixture(scope="module")
def three_devices(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    started = start_daemon(tmp_path_factory.mktemp("arrayhubd-collectives") / "arrayhubd.log",
                           "--cpu-devices", "3")
    yield started
    stop_daemon(started)


@pytest.fixture
def ranks(three_devices: Daemon) -> Iterator[int]:
    """The number of devices of a session on device 0, current inside the test (with no
    current device chosen, as a new thread has)."""
    token = _client.current_device.set(None)
    try:
        with ah.connect(three_devices.address, device=0) as connected, connected.use():
            count = len(connected.server_info().devices)
            if count < 2:
                pytest.skip("the CUDA daemon sees one GPU")
            yield count
    finally:
        _client.current_device.reset(token)


def _random(shape: tuple[int, ...], dtype: Any, seed: int) -> np.ndarray:
    """Values whose products and sums over a few ranks stay exact in every dtype here."""
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    values = rng.integers(1, 4, size=shape)
    if np.issubdtype(dtype, np.complexfloating):
        return (values + 1j * rng.integers(-3, 4, size=shape)).astype(dtype)
    return values.astype(dtype)


def _per_rank(shape: tuple[int, ...], dtype: Any, n: int, seed: int = 0
              ) -> tuple[list[np.ndarray], list[ah.ndarray]]:
    """One host array per rank and its copy on that rank's device."""
    host = [_random(shape, dtype, seed + i) for i in range(n)]
    return host, [ah.asarray(h, device=i) for i, h in enumerate(host)]


def _reduced(host: list[np.ndarray], op: str) -> np.ndarray:
    dtype = host[0].dtype
    total = REDUCE[op].reduce(np.stack(host), axis=0, dtype=dtype)
    return (total / len(host)).astype(dtype) if op == "avg" else total


def _check(results: list[ah.ndarray], expected: list[np.ndarray],
           devices: list[int]) -> None:
    """Each result on its device, C-contiguous, of the expected dtype, shape and values."""
    assert [r.device.id for r in results] == devices
    for result, want, device in zip(results, expected, devices):
        assert result.dtype == want.dtype and result.shape == want.shape
        assert result._info.device_index == device and result.flags.c_contiguous
        if np.issubdtype(want.dtype, np.inexact):
            # Sums may add in another order than NumPy's (NCCL's rings): close, not exact.
            np.testing.assert_allclose(result.get(), want, rtol=1e-6)
        else:
            np.testing.assert_array_equal(result.get(), want)


@pytest.mark.parametrize("dtype", list(OPS), ids=lambda d: np.dtype(d).name)
def test_all_reduce(ranks: int, dtype: Any) -> None:
    for ndim, op in enumerate(OPS[dtype]):
        shape = (5, 2, 3)[:ndim % 3 + 1]
        host, arrays = _per_rank(shape, dtype, ranks, seed=ndim)
        want = _reduced(host, op)
        _check(dist.all_reduce(arrays, op=op), [want] * ranks, list(range(ranks)))


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_reduce_to_a_root_that_is_not_rank_0(ranks: int, dtype: Any) -> None:
    op = OPS[dtype][-1]
    host, arrays = _per_rank((4, 3), dtype, ranks)
    for root in (ranks - 1, np.int64(1)):  # Any integer.
        result = dist.reduce(arrays, root=root, op=op)
        _check([result], [_reduced(host, op)], [root])
    # Ranks need not be in device order: rank i is arrays[i]'s device.
    reordered = dist.reduce(arrays[::-1], root=0, op=op)
    _check([reordered], [_reduced(host, op)], [ranks - 1])


@pytest.mark.parametrize("dtype", [np.int16, np.float16, np.complex128, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_broadcast(ranks: int, dtype: Any) -> None:
    host = _random((2, 3, 2), dtype, 7)
    source = ah.asarray(host, device=1)
    devices = [1, 0, *range(2, ranks)]  # The source's device need not come first.
    copies = dist.broadcast(source, [cuda.Device(d) if d else d for d in devices])
    _check(copies, [host] * ranks, devices)
    assert all(copy is not source for copy in copies)


@pytest.mark.parametrize("dtype", [np.int16, np.complex128, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_all_gather(ranks: int, dtype: Any) -> None:
    for shape in ((3,), (2, 4), (1, 2, 3)):
        host, arrays = _per_rank(shape, dtype, ranks)
        _check(dist.all_gather(arrays), [np.concatenate(host)] * ranks, list(range(ranks)))


@pytest.mark.parametrize("dtype", [np.float32, np.int64], ids=lambda d: np.dtype(d).name)
def test_reduce_scatter(ranks: int, dtype: Any) -> None:
    for shape, op in (((2 * ranks,), "sum"), ((ranks, 3), "max"), ((ranks, 2, 2), "min")):
        host, arrays = _per_rank(shape, dtype, ranks)
        parts = np.split(_reduced(host, op), ranks)
        _check(dist.reduce_scatter(arrays, op=op), parts, list(range(ranks)))


@pytest.mark.parametrize("dtype", [np.int16, np.complex128, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_all_to_all(ranks: int, dtype: Any) -> None:
    for shape in ((2 * ranks,), (ranks, 3), (ranks, 2, 2)):
        host, arrays = _per_rank(shape, dtype, ranks)
        pieces = [np.split(h, ranks) for h in host]
        want = [np.concatenate([pieces[i][j] for i in range(ranks)]) for j in range(ranks)]
        _check(dist.all_to_all(arrays), want, list(range(ranks)))


def test_queued_inputs_and_results(ranks: int) -> None:
    # Inputs still in the pipeline (sent by the call), results used by queued ops at once.
    arrays = []
    for i in range(ranks):
        with cuda.Device(i):
            arrays.append(ah.arange(6.0).reshape(2, 3) * (i + 1) + 1)
    if not ah.is_sync():  # Changing device sent the others' batches; the last one waits.
        assert arrays[-1]._batch is not None
    summed = dist.all_reduce(arrays)
    with cuda.Device(ranks - 1):
        doubled = summed[-1] * 2
    host = [np.arange(6.0).reshape(2, 3) * (i + 1) + 1 for i in range(ranks)]
    np.testing.assert_array_equal(doubled.get(), 2 * sum(host))
    assert doubled.device.id == ranks - 1
    np.testing.assert_array_equal(summed[0].get(), sum(host))


def test_scatter_and_gather_round_trip(ranks: int) -> None:
    host = np.arange(7 * 5, dtype=np.float32).reshape(7, 5)  # 7 and 5: uneven parts.
    x = ah.asarray(host)
    devices = list(range(ranks))[::-1]
    for axis in (0, 1):
        parts = dist.scatter(x, devices, axis=axis)
        want = np.array_split(host, ranks, axis=axis)
        _check(parts, want, devices)  # On x's own device too: a contiguous copy.
        back = dist.gather(parts, axis=axis)
        assert back.device.id == 0
        np.testing.assert_array_equal(back.get(), host)
        there = dist.gather(parts, device=cuda.Device(ranks - 1), axis=axis)
        assert there.device.id == ranks - 1
        np.testing.assert_array_equal(there.get(), host)
    with cuda.Device(1):
        assert dist.gather(dist.scatter(x, devices)).device.id == 1


def _expect(error: type, pattern: str, call: Any) -> str:
    """``call()`` raises ``error`` (client or server side) matching ``pattern``; its message."""
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    assert re.search(pattern, message), message
    return message


def test_the_client_checks_its_arguments(ranks: int) -> None:
    x = ah.arange(3.0)
    _expect(TypeError, r"^all_reduce: expected a sequence of arrayhub\.ndarray",
            lambda: dist.all_reduce(x))
    _expect(ValueError, r"^all_gather: expected at least one", lambda: dist.all_gather([]))
    _expect(TypeError, r"^all_to_all: arrays\[1\]: expected an arrayhub\.ndarray, got ndarray",
            lambda: dist.all_to_all([x, np.arange(3.0)]))
    _expect(ValueError, r"^all_reduce: op must be one of 'sum', 'prod', 'min', 'max', 'avg', "
            r"not 'SUM'$", lambda: dist.all_reduce([x], op="SUM"))
    _expect(ValueError, r"^reduce_scatter: op must be one of .*, not None$",
            lambda: dist.reduce_scatter([x], op=None))
    _expect(TypeError, r"^reduce: root must be an integer, not float$",
            lambda: dist.reduce([x], root=1.0))
    _expect(ValueError, r"the server has \d+ device", lambda: dist.broadcast(x, [0, 9]))
    _expect(ValueError, r"^scatter: expected at least one", lambda: dist.scatter(x, []))
    _expect(TypeError, r"^broadcast: expected a sequence of devices",
            lambda: dist.broadcast(x, 1))


def test_the_server_refuses_what_the_contract_refuses(ranks: int) -> None:
    f32 = _per_rank((ranks,), np.float32, ranks)[1]

    def inputs(dtype: Any, shape: tuple[int, ...] = (3,)) -> list[ah.ndarray]:
        return _per_rank(shape, dtype, ranks)[1]

    # Dtypes NCCL does not reduce: TypeError, as NumPy's for a dtype a ufunc lacks.
    _expect(ah.ArrayHubTypeError, r"^all_reduce: dtype int16 cannot be reduced across devices "
            r"\(NCCL has no 16-bit integers\); cast it to int32 first$",
            lambda: dist.all_reduce(inputs(np.int16)))
    _expect(ah.ArrayHubTypeError, r"^all_reduce: op avg needs a floating or complex dtype, "
            r"not int32$", lambda: dist.all_reduce(inputs(np.int32), op="avg"))
    _expect(ah.ArrayHubTypeError, r"^reduce: op prod is not defined for complex dtype "
            r"complex64; sum and avg are$",
            lambda: dist.reduce(inputs(np.complex64), op="prod"))
    _expect(ah.ArrayHubTypeError, r"^reduce_scatter: op sum is not defined for dtype bool; "
            r"min and max \(logical and, or\) are$",
            lambda: dist.reduce_scatter(inputs(np.bool_, (ranks,))))
    _expect(ah.ArrayHubValueError, rf"^all_reduce: handles\[1\] is float32 of shape "
            rf"\({ranks + 1},\), but handles\[0\] is float32 of shape \({ranks},\): the "
            rf"arrays of a collective must match$",
            lambda: dist.all_reduce([f32[0], ah.zeros(ranks + 1, np.float32, device=1)]))
    _expect(ah.ArrayHubValueError, r"^all_gather: handles\[1\] is float64 of shape",
            lambda: dist.all_gather([f32[0], ah.zeros(ranks, np.float64, device=1)]))
    _expect(ah.ArrayHubValueError, rf"^all_reduce: handles\[1\] is on device 0 \({KIND}:0\) "
            rf"as handles\[0\] is: a collective has one rank per device$",
            lambda: dist.all_reduce([f32[0], ah.zeros(ranks, np.float32, device=0)]))
    if ranks > 2:  # A multiple of 2 would not be of 3 ranks.
        _expect(ah.ArrayHubValueError, rf"^reduce_scatter: axis 0 of shape \({ranks + 1},\) "
                rf"does not split into {ranks} equal parts, one per rank$",
                lambda: dist.reduce_scatter(inputs(np.float32, (ranks + 1,))))
        _expect(ah.ArrayHubValueError, rf"^all_to_all: axis 0 of shape \({ranks + 1}, 2\) "
                rf"does not split into {ranks} equal parts",
                lambda: dist.all_to_all(inputs(np.float32, (ranks + 1, 2))))
    _expect(ah.ArrayHubValueError, r"^all_gather: the arrays must have at least one dimension",
            lambda: dist.all_gather([ah.asarray(np.float32(i), device=i)
                                     for i in range(ranks)]))
    _expect(ah.ArrayHubValueError, rf"^reduce: root {ranks} is not a rank: there are {ranks} "
            rf"\(0 to {ranks - 1}\)$", lambda: dist.reduce(f32, root=ranks))
    _expect(ah.ArrayHubValueError, rf"^broadcast: the array is on device 0 \({KIND}:0\), "
            r"which devices must include", lambda: dist.broadcast(f32[0], [1]))
    _expect(ah.ArrayHubValueError, rf"^broadcast: devices\[1\] is on device 0 \({KIND}:0\) "
            r"as devices\[0\] is", lambda: dist.broadcast(f32[0], [0, 0]))
    _expect(ah.ArrayHubValueError, rf"^broadcast: {ranks + 1} ranks, but this daemon has "
            rf"{ranks} devices", lambda: dist.broadcast(f32[0], [0] * (ranks + 1)))
    client = ah.get_client()
    missing_op = arrays_pb2.CollectiveRequest(kind=arrays_pb2.CollectiveRequest.ALL_REDUCE,
                                              handles=[a.handle for a in f32])
    _expect(ah.ArrayHubValueError, r"^all_reduce: op is required \(sum, prod, min, max or "
            r"avg\)$", lambda: client._rpc("Collective", missing_op))
    # The refusals changed nothing: the session goes on.
    _check(dist.all_reduce(f32), [_reduced([a.get() for a in f32], "sum")] * ranks,
           list(range(ranks)))
