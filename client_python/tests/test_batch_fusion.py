"""Fused elementwise chains: the daemon runs each run of a batch's elementwise ops that share a
shape as one fused call (one kernel on the GPU, its intermediate values never in memory).
Random chains over each dtype family on fresh random data, against NumPy op by op and exactly
against a daemon started with ``--fuse-batches=false``; chains that must split (a shape
that grows, more steps, scalars or arrays than one kernel takes); kept and later-read
intermediates; errors that name the op and leave nothing behind."""

from __future__ import annotations

import contextlib
import pathlib
import warnings
from typing import Any, Callable, Iterator

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches, live_handles, start_daemon, stop_daemon

pytestmark = pytest.mark.requires_compute("Elementwise")


@pytest.fixture(scope="module")
def unfused(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ah.Client]:
    """A client of a second daemon that runs every op of a batch on its own."""
    daemon = start_daemon(pathlib.Path(tmp_path_factory.mktemp("unfused")) / "arrayhubd.log",
                          "--fuse-batches=false")
    client = ah.connect(daemon.address)
    yield client
    client.close()
    stop_daemon(daemon)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng()


# Ops by the kind of values they read: (name, arity). Each stays inside its kind's dtypes.
FLOAT_OPS = [("add", 2), ("subtract", 2), ("multiply", 2), ("maximum", 2), ("minimum", 2),
             ("negative", 1), ("square", 1), ("sin", 1), ("tanh", 1), ("absolute", 1)]
INT_OPS = [("add", 2), ("subtract", 2), ("multiply", 2), ("maximum", 2), ("minimum", 2),
           ("bitwise_xor", 2), ("bitwise_and", 2), ("negative", 1), ("absolute", 1)]
UINT_OPS = [op for op in INT_OPS if op[0] != "negative"]
COMPLEX_OPS = [("add", 2), ("subtract", 2), ("multiply", 2), ("negative", 1), ("square", 1)]
BOOL_OPS = [("logical_and", 2), ("logical_or", 2), ("logical_xor", 2), ("logical_not", 1),
            ("equal", 2), ("not_equal", 2)]


def _ops_for(dtype: np.dtype) -> list[tuple[str, int]]:
    return {"f": FLOAT_OPS, "i": INT_OPS, "u": UINT_OPS, "c": COMPLEX_OPS,
            "b": BOOL_OPS}[dtype.kind]


def _random_values(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, dtype=dtype)
    values = rng.normal(size=shape) * 2
    if dtype.kind == "c":
        values = values + 1j * rng.normal(size=shape)
    return values.astype(dtype)


def _random_scalar(rng: np.random.Generator, dtype: np.dtype) -> Any:
    if dtype.kind == "b":
        return bool(rng.integers(2))
    if dtype.kind in "iu":
        return int(rng.integers(1, 4))
    return float(np.round(rng.normal(), 3))


def _build_chain(rng: np.random.Generator, inputs: list[Any], dtype: np.dtype, steps: int,
                 module: Any) -> list[Any]:
    """Applies `steps` random ops of `module` (numpy or arrayhub) to `inputs` and answers every
    value made. Operands are mostly the newest value, else an earlier value, an input or a
    Python scalar. Draws from `rng` the same way whichever module runs it."""
    values: list[Any] = []
    ops = _ops_for(dtype)
    for _ in range(steps):
        name, arity = ops[int(rng.integers(len(ops)))]
        operands = []
        for _k in range(arity):
            pick = rng.random()
            if values and pick < 0.6:
                operands.append(values[-1])
            elif values and pick < 0.75:
                operands.append(values[int(rng.integers(len(values)))])
            elif pick < 0.9 or arity == 1:
                operands.append(inputs[int(rng.integers(len(inputs)))])
            else:
                operands.append(_random_scalar(rng, dtype))
        if not any(isinstance(o, (np.ndarray, ah.ndarray)) for o in operands):
            operands[0] = inputs[0]
        values.append(getattr(module, name)(*operands))
    return values


def _run_both(seed: int, make_inputs: Callable[[np.random.Generator], list[np.ndarray]],
              dtype: np.dtype, steps: int, client: ah.Client | None = None
              ) -> tuple[list[np.ndarray], list[ah.ndarray | None]]:
    """The same random chain by NumPy and as one arrayhub batch (of `client`, default the
    test's): every value by NumPy; by arrayhub every fifth value and the last, the others
    dropped inside the block so that they stay inside the fused chain (None for them)."""
    host_inputs = make_inputs(np.random.default_rng(seed))
    with np.errstate(all="ignore"):
        expected = _build_chain(np.random.default_rng(seed + 1), host_inputs, dtype, steps, np)
    with client.use() if client else contextlib.nullcontext():
        inputs = [ah.asarray(x) for x in host_inputs]
        with ah.batch(client):
            values = _build_chain(np.random.default_rng(seed + 1), inputs, dtype, steps, ah)
            got = [v if k % 5 == 0 or k == steps - 1 else None for k, v in enumerate(values)]
            del values
    return expected, got


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "uint8",
                                   "int64", "complex64", "bool"])
def test_random_chains_match_numpy_and_the_unfused_daemon_exactly(
        dtype: str, unfused: ah.Client) -> None:
    dt = np.dtype(dtype)
    seed = int(np.random.default_rng().integers(1 << 30))

    def inputs(rng: np.random.Generator) -> list[np.ndarray]:
        # Contiguous, broadcast along rows, and transposed (strided) operands of one shape.
        return [_random_values(rng, dt, (6, 9)), _random_values(rng, dt, (9,)),
                _random_values(rng, dt, (9, 6)).T]

    steps = 10 if dt.kind == "f" and dt.itemsize == 2 else 24
    expected, fused = _run_both(seed, inputs, dt, steps)
    _, alone = _run_both(seed, inputs, dt, steps, client=unfused)
    for k, (want, got, reference) in enumerate(zip(expected, fused, alone)):
        if got is None:
            continue
        if dt.kind == "c":
            # Where a complex product overflows, NumPy's answer depends on its build: its SIMD
            # loops use fused multiply-adds (x*y - inf is -inf there, inf - inf is NaN without),
            # which the server leaves out on purpose (device_math.h). Compared where finite.
            host, finite = got.get(), np.isfinite(want)
            np.testing.assert_allclose(host[finite], want[finite], rtol=2e-5, atol=2e-5,
                                       err_msg=f"value {k} of seed {seed}")
        else:
            assert_matches(got, want, rtol=5e-2 if dt.itemsize == 2 and dt.kind == "f" else None)
        assert reference is not None
        assert got.dtype == reference.dtype and got.shape == reference.shape
        # Exactly equal values (NaN where the other has NaN: payloads are not compared).
        np.testing.assert_array_equal(got.get(), reference.get(),
                                      err_msg=f"value {k} of seed {seed}")


def test_a_chain_changes_dtype_and_reads_comparisons(rng: np.random.Generator) -> None:
    hx = rng.normal(size=(64, 33)).astype(np.float32)
    hy = rng.integers(-50, 50, size=(33,), dtype=np.int16)
    x, y = ah.asarray(hx), ah.asarray(hy)
    with ah.batch():
        wide = x * y                            # float32
        flags = ah.greater(wide, 0)             # bool
        picked = ah.where(flags, wide, -wide)   # float32
        halved = picked * 0.5
        counted = ah.logical_and(flags, y > 3) + y  # int16
    with np.errstate(all="ignore"):
        ewide = hx * hy
        eflags = np.greater(ewide, 0)
        epicked = np.where(eflags, ewide, -ewide)
        assert_matches(halved, epicked * 0.5)
        assert_matches(counted, np.logical_and(eflags, hy > 3) + hy)


def test_chains_split_where_the_shape_grows_and_past_a_kernels_limits(
        client: ah.Client, rng: np.random.Generator) -> None:
    before = live_handles(client)
    hx = rng.normal(size=(7,))
    hgrid = rng.normal(size=(5, 7))
    hcols = [rng.normal(size=(7,)) for _ in range(20)]
    x, grid = ah.asarray(hx), ah.asarray(hgrid)
    cols = [ah.asarray(c) for c in hcols]
    scalars = [float(s) for s in np.round(rng.normal(size=40), 4)]
    inputs = live_handles(client)
    with ah.batch():
        small = ah.sin(x) + 1                  # shape (7,)
        grown = small * grid - small           # (5, 7): a new group reads small
        long = grown
        for _ in range(100):                   # more steps than one kernel takes
            long = ah.tanh(long) * 1.01
        many = x
        for s in scalars:                      # more distinct scalars than one kernel takes
            many = many * 0.5 + s
        wide = x
        for c in cols:                         # more distinct arrays than one kernel takes
            wide = ah.maximum(wide, c)
    esmall = np.sin(hx) + 1
    egrown = esmall * hgrid - esmall
    elong = egrown
    for _ in range(100):
        elong = np.tanh(elong) * 1.01
    emany = hx
    for s in scalars:
        emany = emany * 0.5 + s
    ewide = hx
    for c in hcols:
        ewide = np.maximum(ewide, c)
    assert_matches(small, esmall)
    assert_matches(grown, egrown)
    assert_matches(long, elong)
    assert_matches(many, emany)
    assert_matches(wide, ewide)
    # Only the five results referenced here are new.
    assert live_handles(client) == inputs | {a.handle for a in (small, grown, long, many, wide)}
    del small, grown, long, many, wide, x, grid, cols
    assert live_handles(client) == before


def test_a_failing_op_in_a_chain_is_named_and_leaves_nothing(
        client: ah.Client, rng: np.random.Generator) -> None:
    x = ah.asarray(rng.normal(size=(4, 4)))
    before = live_handles(client)
    with pytest.raises(Exception, match=r"ops\[3\] \(elementwise bitwise_and\)") as raised:
        with ah.batch():
            kept = ah.exp(x) + 1
            odd = ah.bitwise_and(kept * 2, 1)  # No bitwise_and loop for float64.
            _ = odd + kept
    assert "bitwise_and" in str(raised.value)
    assert live_handles(client) == before
    del kept, odd


def test_long_dense_chain_keeps_only_its_last_value(client: ah.Client,
                                                    rng: np.random.Generator) -> None:
    host = rng.normal(size=(1 << 16,)).astype(np.float32)
    x = ah.asarray(host)
    before = live_handles(client)
    with ah.batch():
        y = x
        for k in range(64):
            y = y + np.float32(k % 5) if k % 2 else y * np.float32(0.75)
    expected = host
    for k in range(64):
        expected = expected + np.float32(k % 5) if k % 2 else expected * np.float32(0.75)
    assert_matches(y, expected)
    assert live_handles(client) == before | {y.handle}


# Reductions that end a chain: (method, keyword arguments).
CHAIN_REDUCTIONS = [("sum", {}), ("sum", {"axis": 1}), ("mean", {}), ("max", {}),
                    ("min", {"axis": 0}), ("any", {}), ("all", {"axis": 1}), ("prod", {})]


def _chain_reductions(dtype: np.dtype, shape: tuple[int, ...]) -> list[tuple[str, dict]]:
    """CHAIN_REDUCTIONS less min and max of empty arrays, which NumPy and the server refuse,
    and float16's prod, whose NumPy loop rounds every partial product to float16 (the
    server keeps float32 partials)."""
    return [(name, kwargs) for name, kwargs in CHAIN_REDUCTIONS
            if not (name in ("min", "max") and 0 in shape)
            and not (name == "prod" and dtype == np.float16)]


def _reduced_chain(module: Any, a: Any, b: Any, reductions: list[tuple[str, dict]]) -> list[Any]:
    """`a * b + a` (then exp(.) * 0.5 for floats), each reduction of it, the chain's values
    dropped so that only the reductions leave the batch."""
    z = a * b + a
    if a.dtype.kind == "f":
        z = module.exp(z) * a.dtype.type(0.5)
    return [getattr(z, name)(**kwargs) for name, kwargs in reductions]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "bool"])
@pytest.mark.parametrize("shape", [(37, 29), (0, 5)])
def test_reductions_of_a_chain_match_numpy_and_the_unfused_daemon_exactly(
        dtype: str, shape: tuple[int, int], unfused: ah.Client, rng: np.random.Generator) -> None:
    dt = np.dtype(dtype)
    reductions = _chain_reductions(dt, shape)
    ha = _random_values(rng, dt, shape)
    hb = _random_values(rng, dt, shape)
    if dt.kind == "f":  # exp stays finite in float16.
        ha, hb = (ha * dt.type(0.25)).astype(dt), (hb * dt.type(0.25)).astype(dt)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # The mean of nothing.
        expected = _reduced_chain(np, ha, hb, reductions)
    answers = []
    for client in (None, unfused):
        with client.use() if client else contextlib.nullcontext():
            a, b = ah.asarray(ha), ah.asarray(hb)
            with ah.batch(client):
                results = _reduced_chain(ah, a, b, reductions)
            answers.append([r.get() for r in results])
    fused, alone = answers
    for (name, _), want, got, reference in zip(reductions, expected, fused, alone):
        want = np.asarray(want)
        assert got.dtype == want.dtype and got.shape == want.shape, name
        if dt.kind == "f":
            # A product of a thousand values below one can end among the subnormals, whose
            # relative precision is lost: below the smallest normal, compared absolutely.
            np.testing.assert_allclose(got, want, rtol=3e-2 if dt.itemsize == 2 else 1e-5,
                                       atol=np.finfo(dt).tiny, equal_nan=True, err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)
        if dt.kind == "f" and name in ("sum", "mean", "prod"):
            # A reduction folded into the chain's kernel adds (multiplies) in another order on
            # the GPU: within a few units in the last place of the unfused daemon's answer.
            eps = np.finfo(got.dtype).eps
            np.testing.assert_allclose(got, reference, rtol=8 * eps, atol=np.finfo(dt).tiny,
                                       equal_nan=True, err_msg=name)
        else:
            # Exactly the unfused daemon's bits (NaN where it has NaN).
            np.testing.assert_array_equal(got, reference, err_msg=name)


def test_the_sum_of_a_chain_read_as_a_float_is_numpys(client: ah.Client,
                                                       rng: np.random.Generator) -> None:
    """The pipelined client's batch for `float((a * b + a).sum())`, with its intermediate
    dropped and with it kept and read afterwards."""
    ha = rng.normal(size=(1 << 15) + 3).astype(np.float32)
    hb = rng.normal(size=(1 << 15) + 3).astype(np.float32)
    a, b = ah.asarray(ha), ah.asarray(hb)
    expected = float((ha.astype(np.float64) * hb + ha).sum())
    assert float((a * b + a).sum()) == pytest.approx(expected, rel=1e-5, abs=1e-3)
    y = a * b + a
    assert float(y.sum()) == pytest.approx(expected, rel=1e-5, abs=1e-3)
    assert_matches(y, ha * hb + ha)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "uint8", "bool",
                                   "complex64"])
def test_a_reduction_that_ends_a_chain_is_folded_into_it(
        dtype: str, client: ah.Client, unfused: ah.Client, rng: np.random.Generator) -> None:
    """The pipelined batch of `(a * b + a).<op>()` folds the reduction into the chain's pass
    (one kernel on the GPU); a chain of one op does too, and so do keepdims and dtype=. Each
    is NumPy's answer and the unfused daemon's, and nothing of the chain is left."""
    dt = np.dtype(dtype)
    ha, hb = _random_values(rng, dt, (301, 7)), _random_values(rng, dt, (301, 7))
    ops = [("sum", {}), ("mean", {}), ("max", {"keepdims": True}), ("min", {}), ("any", {}),
           ("all", {}), ("sum", {"dtype": np.float64}), ("prod", {"keepdims": True})]
    if dt.kind == "c":
        ops = [op for op in ops if op[0] not in ("max", "min")]  # Not fused: lexicographic.
    if dt.kind == "b":
        ops = [op for op in ops if op[0] != "mean"]
    if dt == np.float16:
        ops = [op for op in ops if op[0] != "prod"]  # NumPy rounds each partial product.

    def chain(module: Any, a: Any, b: Any, name: str, kwargs: dict) -> Any:
        if dt.kind == "b":
            return getattr(module.logical_xor(a & b, a), name)(**kwargs)
        if name == "prod":
            return getattr(a * b, name)(**kwargs)  # Values near one: a short chain.
        return getattr(a * b + a, name)(**kwargs)

    if dt.kind in "fc":
        ha, hb = (1 + ha / 64).astype(dt), (1 + hb / 64).astype(dt)  # Products stay finite.
    before = live_handles(client)
    for name, kwargs in ops:
        with np.errstate(all="ignore"):
            want = np.asarray(chain(np, ha, hb, name, kwargs))
        answers = []
        for c in (client, unfused):
            with c.use():
                a, b = ah.asarray(ha), ah.asarray(hb)
                answers.append(chain(ah, a, b, name, kwargs).get())
                del a, b
        got, alone = answers
        label = f"{name} {kwargs}"
        assert got.dtype == want.dtype and got.shape == want.shape, label
        # The inputs' precision, or the float64 result's of integers: sums in another order.
        tolerance = {"e": 1e-2, "f": 1e-5, "F": 1e-5}.get(
            dt.char, 1e-11 if got.dtype.kind in "fc" else 0)
        for reference in (want, alone):
            if tolerance:
                np.testing.assert_allclose(got, reference, rtol=tolerance, err_msg=label)
            else:
                np.testing.assert_array_equal(got, reference, err_msg=label)
    assert live_handles(client) == before


def test_a_reduction_of_an_earlier_group_or_some_axes_runs_after_the_chain(
        client: ah.Client, rng: np.random.Generator) -> None:
    """Where the fold cannot be in the chain's last pass (the value is of an earlier group,
    or only some axes are reduced), the value is written out and reduced after it."""
    hrow, hgrid = rng.normal(size=7), rng.normal(size=(5, 7))
    row, grid = ah.asarray(hrow), ah.asarray(hgrid)
    with ah.batch():
        doubled = row * 2
        spread = doubled + grid  # A second group: the shape grows.
        total = doubled.sum()    # Reduces a value of the first group.
    assert float(total) == pytest.approx(float((hrow * 2).sum()), rel=1e-12)
    assert_matches(spread, hrow * 2 + hgrid)
    columns = (grid * grid + 1).sum(axis=0)
    np.testing.assert_allclose(columns.get(), (hgrid * hgrid + 1).sum(axis=0), rtol=1e-12)


def test_a_failing_reduction_after_a_chain_is_named_and_leaves_nothing(
        client: ah.Client, rng: np.random.Generator) -> None:
    x = ah.asarray(rng.normal(size=(0, 3)))
    before = live_handles(client)
    with pytest.raises(ValueError, match=r"ops\[\d+\] \(reduce min\).*zero-size array"):
        with ah.batch():
            kept = x * 2 + 1
            _ = kept.min()
    del kept
    assert live_handles(client) == before


def test_folded_reductions_from_many_threads_on_shared_arrays(
        client: ah.Client, rng: np.random.Generator) -> None:
    """Eight threads each send batches whose chain ends in a folded sum over the same two
    arrays, while another thread keeps replacing a third array in place: every sum is the
    one of the shared arrays, and nothing is left behind."""
    import threading

    ha, hb = rng.normal(size=4099), rng.normal(size=4099)
    a, b = ah.asarray(ha), ah.asarray(hb)
    scratch = ah.zeros(4099)
    want = float((ha * hb + ha).sum())
    before = live_handles(client)
    failures: list[str] = []
    stop = threading.Event()

    def reduce_many(k: int) -> None:
        try:
            for _ in range(40):
                got = float((a * b + a).sum() * 1.0)
                if got != pytest.approx(want, rel=1e-12, abs=1e-9):
                    failures.append(f"thread {k}: {got} != {want}")
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(f"thread {k}: {error!r}")

    def overwrite() -> None:
        while not stop.is_set():
            scratch[...] = scratch * 2 + 1

    writer = threading.Thread(target=overwrite)
    writer.start()
    threads = [threading.Thread(target=reduce_many, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    writer.join()
    assert not failures, failures[:3]
    ah.synchronize()
    assert live_handles(client) == before
