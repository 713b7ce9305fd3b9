"""Hostile user kernels (docs/user-kernels.md) on a daemon shared by two tenants: tenant alice
tries to read and write outside her arrays, to loop forever, to exhaust the checker and the
compiler, to escape the language and to flood the kernel cache; after each attack bob's
sentinel array and the array alice published to him are bit-identical and served quickly, and
every refusal came before anything ran, fast, with the server's message."""

from __future__ import annotations

import math

import os
import pathlib
import threading
import time
from typing import Iterator

import numpy as np
import pytest

import arrayhub as ah
from arrayhub._errors import ArrayHubMemoryError
from conftest import Daemon, start_daemon, stop_daemon
from secure_helpers import TOKENS, write_token_file

MAX_WORK = 10**8  # --max-kernel-work: well under a second of work on the host backend.
REFUSAL_SECONDS = 2.0  # Each refusal, on a slow 2-core CI machine.
SENTINEL = np.random.default_rng(22).standard_normal(4096)


class Tenants:
    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.alice = ah.connect(daemon.address, token=TOKENS["alice"])
        self.bob = ah.connect(daemon.address, token=TOKENS["bob"])
        with self.bob.use():
            self.sentinel = ah.asarray(SENTINEL)
        with self.alice.use():
            self.published = ah.asarray(SENTINEL[::-1].copy())
            self.published.publish("hostile/shared", readers=["bob"])
            self.x = ah.asarray(np.arange(5.0))
        with self.bob.use():
            self.attached = ah.attach("hostile/shared", owner="alice")

    def assert_bob_unaffected(self) -> None:
        """Bob's data bit-identical and served within a second, and the daemon alive."""
        assert self.daemon.process.poll() is None, "the daemon died"
        start = time.monotonic()
        with self.bob.use():
            assert self.sentinel.get().tobytes() == SENTINEL.tobytes()
            assert self.attached.get().tobytes() == SENTINEL[::-1].tobytes()
            # The server's summation order is not NumPy's (the GPU sums in blocks).
            assert math.isclose(float((self.sentinel * 2).sum()), float((SENTINEL * 2).sum()),
                                rel_tol=1e-12)
        assert time.monotonic() - start < 1.0


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tenants]:
    directory = tmp_path_factory.mktemp("hostile")
    write_token_file(directory / "tokens")
    daemon = start_daemon(directory / "arrayhubd.log", "--auth-file", str(directory / "tokens"),
                          "--max-kernel-work", str(MAX_WORK))
    setup = Tenants(daemon)
    yield setup
    setup.assert_bob_unaffected()
    setup.alice.close()
    setup.bob.close()
    stop_daemon(daemon)


def refused_quickly(tenants: Tenants, error: type[BaseException], match: str, call) -> None:
    """`call` (as alice) raises `error` matching `match` within REFUSAL_SECONDS; bob is fine."""
    start = time.monotonic()
    with tenants.alice.use():
        with pytest.raises(error, match=match):
            call()
    assert time.monotonic() - start < REFUSAL_SECONDS, match
    tenants.assert_bob_unaffected()


def kernel(operation: str, in_params: str = "raw T x", out_params: str = "T y",
           preamble: str = "") -> ah.ElementwiseKernel:
    return ah.ElementwiseKernel(in_params, out_params, operation, "hostile", preamble=preamble)


@pytest.mark.parametrize("operation, index", [
    ("y = x[-1]", -1),
    ("y = x[i - 5]", -5),
    ("y = x[i + 4611686018427387904LL]", 4611686018427387904),
    ("y = x[i * 1000003 + 1000003]", 1000003),
    ("y = x[(long long)(i + 1) << 40]", 1 << 40),
    ("y = x[far(i)]", 1 << 32),  # An index a preamble function computes.
    ("T s = 0; for (int k = 0; k < 8; ++k) { s += x[i + k]; } y = s", r"\d+"),  # In a loop.
])
def test_reads_outside_a_raw_array_fail_and_leave_out_alone(tenants: Tenants, operation: str,
                                                            index: object) -> None:
    peek = kernel(operation, preamble="__device__ long long far(long long k) "
                                      "{ return k + 4294967296LL; }")
    with tenants.alice.use():
        out = ah.full(5, 7.0)
    refused_quickly(tenants, IndexError,
                    rf"kernel hostile: index {index} is out of bounds for raw parameter 'x' "
                    "of size 5", lambda: peek(tenants.x, out).get())
    with tenants.alice.use():
        assert out.get().tobytes() == np.full(5, 7.0).tobytes()


@pytest.mark.parametrize("operation, index", [
    ("y[i + 5] = x", 5),
    ("y[-1 - i] = x", -1),
    ("for (int k = 0; k < 3; ++k) { y[i * 3 + k] = x; }", r"\d+"),  # Past the end in a loop.
])
def test_writes_outside_a_raw_output_fail_and_leave_it_alone(tenants: Tenants, operation: str,
                                                             index: object) -> None:
    poke = kernel(operation, in_params="T x", out_params="raw T y")
    with tenants.alice.use():
        out = ah.full(5, 7.0)
    refused_quickly(tenants, IndexError,
                    rf"index {index} is out of bounds for raw parameter 'y' of size 5",
                    lambda: poke(ah.arange(5.0), out).get())
    with tenants.alice.use():
        assert out.get().tobytes() == np.full(5, 7.0).tobytes()


LOOPS_OVER_THE_LIMIT = [
    "for (long long k = 0; k < 4611686018427387904LL; ++k) { s += 1; }",
    "for (long long k = 0; k < n; ++k) { s += 1; }",  # n = 2**62 below.
    "for (long long k = n; k > 0; k -= 1) { s += 1; }",
    "for (int a = 0; a < 1000; ++a) { for (int b = 0; b < 1000; ++b) {"
    " for (int c = 0; c < 1000; ++c) { s += 1; } } }",  # 10**9 from small bounds.
    "for (int k = 0; k < 100000; ++k) { s += spin(s); }",  # A looping function in a loop.
    "for (int k = 0; k >= 0; ++k) { s += 1; }",  # Runs until int's range ends: 2**31.
    "for (unsigned long long k = 1; k != 0; k += 2) { s += 1; }",  # Never equal: 2**63.
]


@pytest.mark.parametrize("loop", LOOPS_OVER_THE_LIMIT)
def test_long_loops_are_refused_before_running(tenants: Tenants, loop: str) -> None:
    spin = kernel(f"T s = 0; {loop} y = s", in_params="T x, int64 n",
                  preamble="__device__ double spin(double v) { double t = 0;"
                           " for (int j = 0; j < 100000; ++j) { t += v; } return t; }")
    with tenants.alice.use():
        out = ah.full(5, 7.0)
    refused_quickly(tenants, ArrayHubMemoryError, r"exceed the server's limit of 100000000 "
                    r"operations per call \(--max-kernel-work\)",
                    lambda: spin(ah.zeros(5), np.int64(2**62), out).get())
    with tenants.alice.use():
        assert out.get().tobytes() == np.full(5, 7.0).tobytes()


def test_loops_that_would_wrap_in_c_are_bounded(tenants: Tenants) -> None:
    wrap = kernel("T s = 0; for (unsigned char k = 0; k < 300; ++k) { s += 1; }"
                  " for (char j = 100; j > -200; j -= 7) { s += 1; } y = s", in_params="T x")
    with tenants.alice.use():
        start = time.monotonic()
        got = wrap(ah.zeros(3)).get()
        assert time.monotonic() - start < REFUSAL_SECONDS
    # uint8 k takes 0..255; int8 j takes 100, 93, ..., -124 (33 values) and stops at its range.
    np.testing.assert_array_equal(got, np.full(3, 256.0 + 33))
    tenants.assert_bob_unaffected()


CHECKER_BOMBS = {
    "source bytes": ("y = x" + " " * 70000, ""),
    "parentheses": ("y = " + "(" * 100000 + "x" + ")" * 100000, ""),
    "operator chain": ("y = x" + " + x" * 20000, ""),
    "unary chain": ("y = " + "-" * 50000 + "x", ""),
    "nested ifs": ("if (x > 0) {" * 5000 + "y = x;" + "}" * 5000, ""),
    "nested blocks": ("{" * 50000 + "y = x;" + "}" * 50000, ""),
    "nested loops": ("T s = 0;" + "".join(f"for (int k{d} = 0; k{d} < 2; ++k{d}) "
                                          for d in range(12)) + "s += 1; y = s", ""),
    "locals": ("".join(f"T a{k} = x;" for k in range(2000)) + "y = a0", ""),
    "functions": ("y = f0(x)", "".join(f"__device__ double f{k}(double v) {{ return v; }}"
                                       for k in range(1000))),
    # Each function calls the one before twice: 2**40 nodes once inlined, from a tiny source.
    "doubling calls": ("y = f40(x)", "__device__ double f0(double v) { return v + 1; }" +
                       "".join(f"__device__ double f{k}(double v) {{ return f{k - 1}(v) + "
                               f"f{k - 1}(v); }}" for k in range(1, 41))),
    "recursion": ("y = f(x)", "__device__ double f(double v) { return f(v - 1); }"),
    "long literal": ("y = x + " + "9" * 60000, ""),
    "statements": ("y = x" + "".join(f"; y = {k}" for k in range(8000)), ""),
    "identifier": (f"T {'a' * 10000} = x; y = x", ""),
    "parameters": ("y = x", None),  # 2000 parameters: in_params below.
}


@pytest.mark.parametrize("name", CHECKER_BOMBS)
def test_sources_that_exhaust_the_checker_are_refused_quickly(tenants: Tenants,
                                                              name: str) -> None:
    operation, preamble = CHECKER_BOMBS[name]
    in_params = "T x"
    if preamble is None:
        in_params, preamble = "T x, " + ", ".join(f"T p{k}" for k in range(2000)), ""
    bomb = kernel(operation, in_params=in_params, preamble=preamble)
    with tenants.alice.use():
        arguments = [ah.zeros(2) for _ in range(in_params.count(",") + 1)]
    refused_quickly(tenants, ValueError, r"\b(operation|preamble|in_params|name):\d+:\d+: ",
                    lambda: bomb(*arguments).get())


ESCAPES = [
    "y = *(&x);",
    "T v = x; y = *(&v + 1);",
    "y = &x;",
    "asm(\"trap;\"); y = x;",
    "asm volatile(\"\"); y = x;",
    "#include <stdio.h>\ny = x;",
    "#define X x\ny = X;",
    "__syncthreads(); y = x;",
    "y = __ldg(&x);",
    "atomicAdd(&y, x);",
    "printf(\"%d\", 1); y = x;",
    "T v = malloc(8); y = x;",
    "goto end; y = x;",
    "y = *(double*)0;",
    "y = ((long long*)0)[i];",
    "y = reinterpret_cast<long long>(&x);",
    "y = __nv_sqrt(x);",
    "y = x.data();",
    "y = r.data()[0];",
    "y = r.ptr;",
    "T a[4]; y = x;",
    "T a[1] = {0}; y = a[100000];",
    "y = r[0][0];",
    "y = sizeof(x);",
    "extern double z; y = z;",
    "y = __builtin_trap();",
    "while (1) {} y = x;",
    "do { } while (1); y = x;",
    "for (;;) {} y = x;",
    "for (int k = 0; k < 10; ++k) { k = 0; } y = x;",
    "for (int k = 0; k < 10; k += 0) { } y = x;",
    "int n = 3; for (int k = 0; k < n; ++k) { } y = x;",
    "y = x, r[-1];",
    "y = [] { return 0; }();",
    "y = \"text\"[0];",
    "y = r;",
    "switch (1) { default: y = x; }",
]


def test_escapes_from_the_language_name_line_and_column(tenants: Tenants) -> None:
    with tenants.alice.use():
        a, r = ah.zeros(3), ah.zeros(3)
    for source in ESCAPES:
        escape = kernel("y = x;\n  " + source, in_params="T x, raw T r")
        refused_quickly(tenants, ValueError, r"\boperation:2:\d+: ",
                        lambda: escape(a, r).get())


def rss_kib(daemon: Daemon) -> int:
    status = pathlib.Path(f"/proc/{daemon.process.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines()
                    if line.startswith("VmRSS:")))


def test_endless_distinct_kernels_keep_the_cache_bounded(tenants: Tenants) -> None:
    """Distinct kernels each compile once; the daemon's memory stays bounded while bob is
    served. (Each kernel is a few kilobytes of source, so that the cache's byte bound is what
    holds it.)"""
    padding = "// " + "p" * 3000 + "\n"
    before = tenants.alice.server_info().kernel_compilations
    rss_before = rss_kib(tenants.daemon)
    count = 300
    with tenants.alice.use():
        x = ah.arange(4.0)
        for k in range(count):
            got = kernel(f"{padding}y = x * {k}", in_params="T x")(x)
            if k % 50 == 0:
                np.testing.assert_array_equal(got.get(), np.arange(4.0) * k)
                tenants.assert_bob_unaffected()
        got.get()
    assert tenants.alice.server_info().kernel_compilations == before + count
    with tenants.alice.use():  # Well under the cache's 1024 entries: the first is still there.
        np.testing.assert_array_equal(kernel(f"{padding}y = x * 0", in_params="T x")(x).get(),
                                      np.zeros(4))
    assert tenants.alice.server_info().kernel_compilations == before + count
    # 300 kernels with 3 kB sources: the cache holds at most its 64 MiB byte bound.
    assert rss_kib(tenants.daemon) - rss_before < 80 * 1024
    tenants.assert_bob_unaffected()


def test_many_hostile_compiles_at_once_leave_bob_served(tenants: Tenants) -> None:
    failures: list[BaseException] = []
    stop = threading.Event()
    latencies: list[float] = []

    def attack(t: int) -> None:
        try:  # A client each: a pipelined client's errors are its session's, not a thread's.
            with ah.connect(tenants.daemon.address, token=TOKENS["alice"]) as alice, alice:
                x = ah.arange(8.0)
                for k in range(20):
                    bomb = kernel("y = x" + " + x" * 5000 + f"; // {t} {k}", in_params="T x")
                    with pytest.raises(ValueError, match="operation:1:"):
                        bomb(x).get()
                    fresh = kernel(f"y = x * {t * 100 + k} + 1", in_params="T x")
                    np.testing.assert_array_equal(fresh(x).get(),
                                                  np.arange(8.0) * (t * 100 + k) + 1)
        except BaseException as error:  # noqa: BLE001  (reported below)
            failures.append(error)

    def serve_bob() -> None:
        try:
            while not stop.is_set():
                start = time.monotonic()
                with tenants.bob.use():
                    assert tenants.sentinel.get().tobytes() == SENTINEL.tobytes()
                latencies.append(time.monotonic() - start)
        except BaseException as error:  # noqa: BLE001  (reported below)
            failures.append(error)

    bob = threading.Thread(target=serve_bob)
    bob.start()
    attackers = [threading.Thread(target=attack, args=(t,)) for t in range(6)]
    for thread in attackers:
        thread.start()
    for thread in attackers:
        thread.join()
    stop.set()
    bob.join()
    assert not failures, failures
    assert latencies and max(latencies) < 1.0, max(latencies)
    tenants.assert_bob_unaffected()
