"""User kernels (ElementwiseKernel, ReductionKernel, fuse) against NumPy float64 references on
fresh random data: CuPy's documented examples, the kernels of CuPy's kmeans and black_scholes
examples, out=, broadcasting, scalars, axis/keepdims, the server's refusals, its work limit and
tenant quota, and one compile for many threads asking for a new kernel at once."""

from __future__ import annotations

import threading
import uuid

import numpy as np
import pytest

import arrayhub as ah
from arrayhub._errors import ArrayHubMemoryError
from conftest import Daemon
from secure_helpers import TOKENS, write_token_file

RNG = np.random.default_rng()

squared_diff = ah.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                    "z = (x - y) * (x - y)", "squared_diff")
squared_diff_generic = ah.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)",
                                            "squared_diff_generic")
l2norm = ah.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
add_reverse = ah.ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]",
                                   "add_reverse")


def test_cupy_documented_examples() -> None:
    x = np.arange(10, dtype=np.float32).reshape(2, 5) + RNG.random((2, 5), dtype=np.float32)
    y = RNG.random(5, dtype=np.float32)
    got = squared_diff(ah.asarray(x), ah.asarray(y))
    assert got.shape == (2, 5) and got.dtype == np.float32
    np.testing.assert_allclose(got.get(), (x - y) ** 2, rtol=1e-6)
    # A placeholder bound by the array; the Python scalar takes its type.
    got = squared_diff_generic(ah.asarray(x), 5)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.get(), (x - 5) ** 2, rtol=1e-6)
    # out= passed positionally after the inputs: the same array comes back.
    out = ah.zeros((2, 5), dtype=np.float32)
    assert squared_diff(ah.asarray(x), ah.asarray(y), out) is out
    np.testing.assert_allclose(out.get(), (x - y) ** 2, rtol=1e-6)
    data = RNG.standard_normal((4, 6))
    norms = l2norm(ah.asarray(data), axis=1)
    np.testing.assert_allclose(norms.get(), np.sqrt((data ** 2).sum(axis=1)), rtol=1e-13)
    kept = l2norm(ah.asarray(data), axis=0, keepdims=True)
    assert kept.shape == (1, 6)
    np.testing.assert_allclose(kept.get(), np.sqrt((data ** 2).sum(axis=0, keepdims=True)))
    np.testing.assert_allclose(float(l2norm(ah.asarray(data))), np.linalg.norm(data))
    a, b = RNG.standard_normal(7), RNG.standard_normal(7)
    np.testing.assert_allclose(add_reverse(ah.asarray(a), ah.asarray(b)).get(), a + b[::-1])


def test_kmeans_kernels_match_numpy() -> None:
    var_kernel = ah.ElementwiseKernel(
        "T x0, T x1, T c0, T c1", "T out",
        "out = (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1)", "var_kernel")
    sum_kernel = ah.ReductionKernel("T x, S mask", "T out", "mask ? x : 0", "a + b",
                                    "out = a", "0", "sum_kernel")
    count_kernel = ah.ReductionKernel("T mask", "float32 out", "mask ? 1.0 : 0.0", "a + b",
                                      "out = a", "0.0", "count_kernel")
    X = RNG.standard_normal((50, 2))
    centers = RNG.standard_normal((3, 2))
    Xd, Cd = ah.asarray(X), ah.asarray(centers)
    distances = var_kernel(Xd[:, None, 0], Xd[:, None, 1], Cd[None, :, 1], Cd[None, :, 0])
    expected = ((X[:, None, 0] - centers[None, :, 1]) ** 2
                + (X[:, None, 1] - centers[None, :, 0]) ** 2)
    np.testing.assert_allclose(distances.get(), expected, rtol=1e-13)
    pred = np.argmin(expected, axis=1)
    mask = pred == np.arange(3)[:, None]
    mask_d = ah.asarray(mask)
    sums = sum_kernel(Xd, mask_d[:, :, None], axis=1)
    np.testing.assert_allclose(sums.get(), np.where(mask[:, :, None], X, 0).sum(axis=1),
                               rtol=1e-12, atol=1e-12)
    counts = count_kernel(mask_d, axis=1)
    assert counts.dtype == np.float32
    np.testing.assert_array_equal(counts.get(), mask.sum(axis=1).astype(np.float32))


BLACK_SCHOLES = ah.ElementwiseKernel(
    "T s, T x, T t, T r, T v", "T call, T put",
    """
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;
    const T cnd_d1 = get_cumulative_normal_distribution(d1);
    const T cnd_d2 = get_cumulative_normal_distribution(d2);
    const T exp_rt = exp(- r * t);
    call = s * cnd_d1 - x * exp_rt * cnd_d2;
    put = x * exp_rt * (1 - cnd_d2) - s * (1 - cnd_d1);
    """,
    "black_scholes_kernel",
    preamble="""
    __device__
    inline T get_cumulative_normal_distribution(T x) {
        const T A1 = 0.31938153;
        const T A2 = -0.356563782;
        const T A3 = 1.781477937;
        const T A4 = -1.821255978;
        const T A5 = 1.330274429;
        const T RSQRT2PI = 0.39894228040143267793994605993438;
        const T W = 0.2316419;
        const T k = 1 / (1 + W * abs(x));
        T cnd = RSQRT2PI * exp(- x * x / 2) *
            (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
        if (x > 0) {
            cnd = 1 - cnd;
        }
        return cnd;
    }
    """)


def _black_scholes_numpy(s, x, t, r, v):
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t

    def cnd(d):
        k = 1 / (1 + 0.2316419 * np.abs(d))
        poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (
            -1.821255978 + k * 1.330274429))))
        c = 0.39894228040143267793994605993438 * np.exp(-d * d / 2) * poly
        return np.where(d > 0, 1 - c, c)

    exp_rt = np.exp(-r * t)
    return (s * cnd(d1) - x * exp_rt * cnd(d2),
            x * exp_rt * (1 - cnd(d2)) - s * (1 - cnd(d1)))


def test_black_scholes_two_outputs_match_numpy() -> None:
    n = 1000
    s, x, t = 5 + 25 * RNG.random(n), 1 + 99 * RNG.random(n), 0.25 + 9.75 * RNG.random(n)
    call, put = BLACK_SCHOLES(ah.asarray(s), ah.asarray(x), ah.asarray(t), 0.02, 0.3)
    expected_call, expected_put = _black_scholes_numpy(s, x, t, 0.02, 0.3)
    np.testing.assert_allclose(call.get(), expected_call, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(put.get(), expected_put, rtol=1e-12, atol=1e-12)


def test_outputs_size_scalars_and_return_conventions() -> None:
    fill = ah.ElementwiseKernel("raw T x, T w", "raw T y", "y[i] = x[i % x.size()] * w",
                                "fill_raw")
    x = RNG.standard_normal(3)
    got = fill(ah.asarray(x), np.float64(2.0), size=7)
    assert got.shape == (7,)
    np.testing.assert_allclose(got.get(), 2 * x[np.arange(7) % 3])
    pair = ah.ElementwiseKernel("T x", "T y, T z", "y = x + 1; z = x * 2", "pair")
    a = ah.asarray(x)
    y, z = pair(a)
    np.testing.assert_allclose((y.get(), z.get()), (x + 1, x * 2))
    single = ah.ElementwiseKernel("T x", "T y", "y = -x", "neg", return_tuple=True)
    (negated,) = single(a)
    np.testing.assert_allclose(negated.get(), -x)
    assert ah.ElementwiseKernel("T x", "T y", "y = x", "copy_nr", no_return=True)(a) is None
    # Fixed-type parameters take a NumPy scalar of that dtype; float64 output from int input.
    scale = ah.ElementwiseKernel("int64 k, float64 f", "float64 y", "y = k * f", "scale")
    ints = RNG.integers(-50, 50, 5)
    np.testing.assert_allclose(scale(ah.asarray(ints), 0.5).get(), ints * 0.5)


def test_an_out_array_that_is_also_an_input_reads_the_old_values() -> None:
    shift = ah.ElementwiseKernel("raw T x", "T y", "y = x[(i + 1) % x.size()]", "rotate")
    values = RNG.standard_normal(6)
    a = ah.asarray(values)
    shift(a, a)  # Computed into a temporary: every element reads the values before the call.
    np.testing.assert_array_equal(a.get(), np.roll(values, -1))


def test_refusals_are_value_errors_with_the_servers_text() -> None:
    a = ah.asarray(RNG.standard_normal(4))
    bad = ah.ElementwiseKernel("T x", "T y", "y = x;\ny = system(x);", "bad_call")
    with pytest.raises(ValueError, match=r"operation:2:\d+: .*system"):
        bad(a).get()
    pointer = ah.ElementwiseKernel("T x", "T y", "y = *(&x + 1000000);", "pointer")
    with pytest.raises(ValueError, match=r"operation:1:\d+"):
        pointer(a).get()
    with pytest.raises(TypeError, match="Wrong number of arguments for squared_diff"):
        squared_diff(a)
    raw_only = ah.ElementwiseKernel("raw T x", "T y", "y = x[i]", "raw_only")
    with pytest.raises(ValueError, match="Loop size is undecided"):
        raw_only(a).get()
    with pytest.raises(ValueError, match="Specified 'size' can be used only"):
        squared_diff_generic(a, a, size=4).get()
    with pytest.raises(ValueError, match="could not be broadcast"):
        squared_diff_generic(a, ah.zeros(3)).get()
    with pytest.raises(ValueError, match="no identity"):
        ah.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None, "maxk")(
            ah.zeros((0, 2)), axis=0).get()
    with pytest.raises(ValueError, match="loop_prep and after_loop are not supported"):
        ah.ElementwiseKernel("T x", "T y", "y = x", "k", loop_prep="int j = 0;")


def test_a_raw_index_out_of_range_fails_and_leaves_out_alone() -> None:
    reverse = ah.ElementwiseKernel("raw T x", "T y", "y = x[i + 1]", "past_the_end")
    a = ah.asarray(RNG.standard_normal(5))
    out = ah.full(5, 7.0)
    with pytest.raises(IndexError, match="index 5 is out of bounds for raw parameter 'x'"):
        reverse(a, out).get()
    np.testing.assert_array_equal(out.get(), np.full(5, 7.0))


def test_fuse_elementwise_and_reduction_match_numpy() -> None:
    @ah.fuse()
    def squashed(x, y):
        return ah.where(x > 0, ah.exp(-x) * y, ah.sqrt(x * x + 1.0)) - 2 * y

    @ah.fuse(kernel_name="sum_of_squares")
    def sum_of_squares(x, w):
        return ah.sum((x - w) ** 2, axis=1)

    x = RNG.standard_normal((4, 5)).astype(np.float32)
    y = RNG.standard_normal(5).astype(np.float32)
    got = squashed(ah.asarray(x), ah.asarray(y))
    expected = np.where(x > 0, np.exp(-x) * y, np.sqrt(x * x + 1.0)) - 2 * y
    assert got.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(got.get(), expected, rtol=1e-5, atol=1e-6)
    xs = RNG.standard_normal((3, 8))
    got = sum_of_squares(ah.asarray(xs), 0.25)
    np.testing.assert_allclose(got.get(), ((xs - 0.25) ** 2).sum(axis=1), rtol=1e-13)
    ints = RNG.integers(-9, 9, 6)
    np.testing.assert_array_equal(squashed(ah.asarray(ints), ah.asarray(ints)).get(),
                                  np.where(ints > 0, np.exp(-ints) * ints,
                                           np.sqrt(ints * ints + 1.0)) - 2 * ints)
    assert len(squashed._kernels) == 2  # One kernel per argument dtypes.


def test_fuse_refuses_python_control_flow_on_values() -> None:
    @ah.fuse()
    def branchy(x):
        return x if x > 0 else -x

    with pytest.raises(TypeError, match="no truth value"):
        branchy(ah.zeros(3))


def test_work_limit_and_quota_are_refused_before_running(launch) -> None:
    daemon: Daemon = launch("--max-kernel-work", "100000", "--tenant-max-bytes", "100000")
    loop = ah.ElementwiseKernel("T x, int32 n", "T y",
                                "T s = 0; for (int k = 0; k < n; ++k) { s += x; } y = s;",
                                "looped")
    with ah.connect(daemon.address) as client:
        with client:
            a = ah.zeros(100)
            with pytest.raises(ArrayHubMemoryError, match="--max-kernel-work"):
                loop(a, 1000).get()
            np.testing.assert_array_equal(loop(a + 1, 2).get(), np.full(100, 2.0))
            big = ah.zeros(10000, dtype=np.float32)  # 40 kB: two float64 outputs exceed it.
            with pytest.raises(ArrayHubMemoryError):
                BLACK_SCHOLES(big, big, big, 0.0, 0.0)[0].get()
            assert client.server_info().tenant_bytes_in_use == big.nbytes + a.nbytes


def test_many_threads_and_two_tenants_compile_a_new_kernel_once(launch, tmp_path) -> None:
    write_token_file(tmp_path / "tokens")
    daemon: Daemon = launch("--auth-file", str(tmp_path / "tokens"))
    unique = f"k{uuid.uuid4().hex[:8]}"
    kernel = ah.ElementwiseKernel("T x", "T y", f"y = x * 3 + 1; // {unique}", unique)
    clients = [ah.connect(daemon.address, token=TOKENS[t]) for t in ("alice", "bob")]
    before = clients[0].server_info().kernel_compilations
    values = RNG.standard_normal(16)
    inputs: list = [None, None]
    for k, client in enumerate(clients):
        with client.use():
            inputs[k] = ah.asarray(values)
    failures: list[BaseException] = []
    start = threading.Barrier(8)

    def run(k: int) -> None:
        try:  # The input's client runs the call.
            start.wait()
            np.testing.assert_allclose(kernel(inputs[k % 2]).get(), values * 3 + 1)
        except BaseException as error:  # noqa: BLE001  (reported below)
            failures.append(error)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    assert clients[1].server_info().kernel_compilations == before + 1
    for client in clients:
        client.close()


def test_kernels_in_a_batch_block() -> None:
    x = RNG.standard_normal((3, 4))
    a = ah.asarray(x)
    with ah.batch():
        squared = squared_diff_generic(a, 1.0)
        norms = l2norm(squared + 0, axis=1)  # A kernel reads an earlier op's result.
    np.testing.assert_allclose(norms.get(), np.sqrt((((x - 1) ** 2) ** 2).sum(axis=1)))
    pair = ah.ElementwiseKernel("T x", "T y, T z", "y = x; z = -x", "pair_in_block")
    with pytest.raises(ah.ArrayHubBatchError, match="several outputs"):
        with ah.batch():
            pair(a)


def test_a_batch_kernel_with_several_new_outputs_is_refused_and_leaves_nothing() -> None:
    """The client never sends one (it makes the outputs first, or raises, as above); the
    server's refusal comes after the kernel made its outputs, which go with the failed op."""
    from arrayhub.v1 import compute_pb2
    client = ah.get_client()
    a = ah.asarray(np.arange(4, dtype=np.float32))
    pair = ah.ElementwiseKernel("float32 x", "float32 y, float32 z", "y = x; z = x + 1",
                                "pair_raw")
    request = compute_pb2.RunKernelRequest(
        source=compute_pb2.KernelSource(kind=pair._kind, **pair._source_fields),
        arguments=[compute_pb2.KernelArgument(handle=a.handle)])
    before = {info.handle for info in client.list_arrays()}
    with pytest.raises(ah.ArrayHubValueError, match="several outputs writes them into existing"):
        client._rpc("Batch", compute_pb2.BatchRequest(
            ops=[compute_pb2.BatchRequest.Op(run_kernel=request)]))
    assert {info.handle for info in client.list_arrays()} == before


@pytest.mark.parametrize("use", ["keep", "read", "later op"])
def test_a_batch_that_uses_a_kernel_giving_no_array_is_refused_and_the_server_lives(
        use: str) -> None:
    """A kernel with no outputs gives no array; a Batch that kept it, read it back or named it
    from a later op once took the first of none and brought the daemon down."""
    from arrayhub.v1 import compute_pb2
    client = ah.get_client()
    a = ah.asarray(np.arange(4, dtype=np.float32))
    silent = ah.ElementwiseKernel("float32 x", "", "float32 t = x", "no_outputs")
    ops = [compute_pb2.BatchRequest.Op(run_kernel=compute_pb2.RunKernelRequest(
        source=compute_pb2.KernelSource(kind=silent._kind, **silent._source_fields),
        arguments=[compute_pb2.KernelArgument(handle=a.handle)]))]
    request = compute_pb2.BatchRequest(ops=ops)
    if use == "keep":
        request.keep.append(0)
    elif use == "read":
        request.read = 0
    else:
        request.ops.add(elementwise=compute_pb2.ElementwiseRequest(
            op="negative", operands=[compute_pb2.Operand(batch_result=0)]))
    before = {info.handle for info in client.list_arrays()}
    with pytest.raises(ah.ArrayHubError, match=r"ops\[0\] \(run_kernel no_outputs\): gave 0 "
                                               r"arrays where the batch's plan has one"):
        client._rpc("Batch", request)
    assert {info.handle for info in client.list_arrays()} == before
    np.testing.assert_array_equal((a + 1).get(), np.arange(1, 5, dtype=np.float32))
