"""User-level benchmark: whole CuPy-style scripts (workloads.py), once with
``import arrayhub as cp`` against a running arrayhubd and once with ``import cupy as cp``, in
one process. Prints a markdown table (see README.md).

    python3 bench/user/run.py [--address HOST:PORT] [--peer auto|cupy|numpy] [--quick]
                              [--scripts 1,3] [--repeats N] [--warmup N]
                              [--via-proxy [--delay-ms 1]]

Each timing is time.perf_counter() around the script's whole statement sequence, its final
host read included, after the device is idle (CuPy: Device.synchronize; ArrayHub: its
synchronize() where the client has one). The two modules alternate run by run, after warm-up
runs of each. Exit status 1 when a script failed or the two modules' answers differ.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Optional

import numpy as np

import arrayhub

from cases import Case, all_cases

#: Scripts run through the latency proxy (--via-proxy): the small-op loop and the 50M chain.
PROXY_SCRIPTS = (1, 3)


@dataclass
class Side:
    """One module's runs of a case: its times in seconds, its answer, or what it raised."""
    label: str
    xp: ModuleType
    settle: Callable[[], None]
    times: list[float] = field(default_factory=list)
    answer: Optional[float] = None
    error: Optional[str] = None


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def peer_module(name: str) -> tuple[ModuleType, str, Callable[[], None]]:
    """The module ArrayHub is compared with, its table label and how to wait for it."""
    if name == "auto":
        try:
            importlib.import_module("cupy")
            name = "cupy"
        except ImportError:
            print("cupy is not installed: NumPy stands in as the peer", file=sys.stderr)
            name = "numpy"
    if name == "cupy":
        import cupy
        return cupy, "CuPy", cupy.cuda.Device().synchronize
    return np, "NumPy", lambda: None


def arrayhub_settle() -> None:
    """Waits until ArrayHub has no work queued, where its client can queue any."""
    synchronize = getattr(arrayhub, "synchronize", None)
    if synchronize is not None:
        synchronize()


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:160]


def run_once(side: Side, case: Case, args: tuple[Any, ...]) -> None:
    """One timed run of ``case`` on ``side``, after the device is idle; records its time and
    answer, or the error it raised (the side is then skipped from there on)."""
    if side.error is not None:
        return
    try:
        side.settle()
        start = time.perf_counter()
        answer = case.workload(side.xp, *args)
        elapsed = time.perf_counter() - start
    except Exception as error:  # A missing function is a finding, not the end of the run.
        side.error = first_line(error)
        print(f"{side.label} failed in script {case.name}:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return
    side.times.append(elapsed)
    side.answer = answer


def upload(side: Side, host: tuple[np.ndarray, ...]) -> tuple[Any, ...]:
    """The case's starting arrays on ``side``'s device (not timed)."""
    try:
        arrays = tuple(side.xp.asarray(h) for h in host)
        side.settle()
        return arrays
    except Exception as error:
        side.error = "upload: " + first_line(error)
        return ()


def measure(case: Case, sides: list[Side], repeats: int, warmup: int) -> None:
    host = case.inputs(np.random.default_rng(case.script))
    device_args = [upload(side, host) for side in sides]
    del host
    for _ in range(warmup):
        for side, args in zip(sides, device_args):
            run_once(side, case, args)
    for side in sides:
        side.times.clear()
    for _ in range(repeats):
        for side, args in zip(sides, device_args):
            run_once(side, case, args)


def ms(side: Side) -> str:
    if side.error is not None:
        return f"failed: {side.error}"
    return (f"{quantile(side.times, 0.5) * 1e3:.3f} ({quantile(side.times, 0.1) * 1e3:.3f}"
            f"-{quantile(side.times, 0.9) * 1e3:.3f})")


def answers_agree(case: Case, ours: Side, peer: Side) -> Optional[bool]:
    """True/False when both answered; None when either failed."""
    if ours.answer is None or peer.answer is None:
        return None
    return math.isclose(ours.answer, peer.answer, rel_tol=case.rtol, abs_tol=1e-12)


def row(case: Case, ours: Side, peer: Side, judge: bool) -> tuple[str, bool]:
    """The case's table row, and whether it is a failure (a script failed or the answers
    differ). ``judge``: compare the ratio with the target (only against CuPy, directly)."""
    agree = answers_agree(case, ours, peer)
    if agree is False:
        print(f"\n!!! MISMATCH in {case.name}: ArrayHub answered {ours.answer!r}, "
              f"{peer.label} {peer.answer!r} (rtol {case.rtol})\n", file=sys.stderr)
    if agree is None:
        answer = "-"
    else:
        answer = "same" if agree else f"**MISMATCH** {ours.answer:.7g} vs {peer.answer:.7g}"
    ratio = met = "-"
    if ours.times and peer.times:
        value = quantile(ours.times, 0.5) / quantile(peer.times, 0.5)
        ratio = f"{value:.2f}"
        if judge:
            met = "yes" if value <= case.target else "**no**"
    cells = [case.name, ms(ours), ms(peer), ratio, f"<= {case.target:g}" if judge else "-",
             met, answer]
    return "| " + " | ".join(cells) + " |", agree is not True


def per_op_lines(results: list[tuple[Case, Side, Side]]) -> list[str]:
    lines = []
    for case, ours, peer in results:
        if case.ops and ours.times and peer.times:
            lines.append(f"- {case.name}: ArrayHub {quantile(ours.times, 0.5) / case.ops * 1e6:.1f}"
                         f" us per op, {peer.label} "
                         f"{quantile(peer.times, 0.5) / case.ops * 1e6:.1f} us per op")
    return lines


def start_proxy(target: str, delay_ms: float) -> tuple[subprocess.Popen, str]:
    """Starts latency_proxy.py in a process of its own (so that its event loop does not take
    the GIL from the client being timed); returns it and its address."""
    proxy = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("latency_proxy.py")), target,
         "--delay-ms", str(delay_ms)], stdout=subprocess.PIPE, text=True)
    line = proxy.stdout.readline() if proxy.stdout else ""
    if not line.startswith("listening on "):
        proxy.kill()
        raise SystemExit(f"latency proxy did not start (said {line!r})")
    return proxy, line.split()[-1]


def ping_ms(client: arrayhub.Client, count: int = 200) -> float:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        client.ping()
        times.append(time.perf_counter() - start)
    return quantile(times, 0.5) * 1e3


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default=os.environ.get("ARRAYHUB_ADDRESS"),
                        help="arrayhubd's HOST:PORT (default $ARRAYHUB_ADDRESS)")
    parser.add_argument("--peer", choices=("auto", "cupy", "numpy"), default="auto",
                        help="module ArrayHub is compared with (auto: cupy if installed)")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and few repeats, for a CPU daemon")
    parser.add_argument("--scripts", help="comma-separated script numbers (default: all; "
                        "with --via-proxy: 1,3)")
    parser.add_argument("--repeats", type=int, help="timed runs per module (default 20; "
                        "--quick: 5)")
    parser.add_argument("--warmup", type=int, help="untimed runs first (default 3; --quick: 1)")
    parser.add_argument("--via-proxy", action="store_true",
                        help="ArrayHub through latency_proxy.py on the loopback")
    parser.add_argument("--delay-ms", type=float, default=1.0,
                        help="the proxy's delay each way (default 1)")
    args = parser.parse_args()
    if not args.address:
        parser.error("give --address or set ARRAYHUB_ADDRESS")
    return args


def main() -> int:
    args = parse_args()
    repeats = args.repeats or (5 if args.quick else 20)
    warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)
    default_scripts = (PROXY_SCRIPTS if args.via_proxy
                       else {case.script for case in all_cases(args.quick)})
    wanted = {int(s) for s in args.scripts.split(",")} if args.scripts else set(default_scripts)
    peer_xp, peer_label, peer_settle = peer_module(args.peer)

    proxy = None
    address = args.address
    header = [f"ArrayHub client {arrayhub.__version__} -> arrayhubd at {args.address}; "
              f"peer {peer_label} {peer_xp.__version__}, same process; Python "
              f"{sys.version.split()[0]}; {'quick sizes' if args.quick else 'full sizes'}; "
              f"{warmup} warm-up runs, median (p10-p90) of {repeats} runs, the modules "
              f"alternating."]
    if args.via_proxy:
        # The proxy stands in for a daemon on another host, where no batch lane can reach it:
        # its loopback address must not let the client open one past the proxy.
        os.environ["ARRAYHUB_BATCH_LANE"] = "0"
        proxy, address = start_proxy(args.address, args.delay_ms)
        with arrayhub.connect(args.address) as direct, arrayhub.connect(address) as proxied:
            direct_ms, proxied_ms = ping_ms(direct), ping_ms(proxied)
        header.append(f"ArrayHub through bench/user/latency_proxy.py (--delay-ms "
                      f"{args.delay_ms:g}): a bare call (Client.ping) takes {proxied_ms:.3f} ms "
                      f"through it, {direct_ms:.3f} ms directly (+{proxied_ms - direct_ms:.3f} "
                      f"ms per round trip). {peer_label} runs locally as always.")
    try:
        client = arrayhub.connect(address)
        arrayhub.set_default_client(client)
        results = []
        for case in all_cases(args.quick):
            if case.script not in wanted:
                continue
            print(f"running {case.name}", file=sys.stderr, flush=True)
            sides = [Side("ArrayHub", arrayhub, arrayhub_settle),
                     Side(peer_label, peer_xp, peer_settle)]
            measure(case, sides, repeats, warmup)
            results.append((case, *sides))
            if peer_label == "CuPy":
                peer_xp.get_default_memory_pool().free_all_blocks()
        header.append(f"The client's batches went {batches_went(client)}.")
        client.close()
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait()

    judge = peer_label == "CuPy" and not args.via_proxy
    title = "via a latency proxy" if args.via_proxy else "direct"
    print(f"\n### User scripts, ArrayHub {title} vs {peer_label}\n")
    for line in header:
        print(line)
    print()
    if not judge:
        print("Targets are ArrayHub / CuPy time with the client on the GPU's host; they are not "
              f"judged {'through the proxy' if args.via_proxy else 'against ' + peer_label}.\n")
    print(f"| script | ArrayHub ms | {peer_label} ms | ratio | target | met? | answer |")
    print("| --- | ---: | ---: | ---: | --- | --- | --- |")
    failed = False
    for case, ours, peer in results:
        text, bad = row(case, ours, peer, judge)
        print(text)
        failed |= bad
    print()
    for line in per_op_lines(results):
        print(line)
    return 1 if failed else 0


def batches_went(client: arrayhub.Client) -> str:
    """How the pipeline sent its batches (the last one sent, for a lane)."""
    transport = client._pipeline._stream
    if transport is None:
        return "as unary Batch calls"
    if hasattr(transport, "open"):  # a batch lane
        return ("over a batch lane (the daemon's Unix socket)" if transport.open
                else "over the BatchStream (no lane could be opened)")
    return "over the BatchStream (ARRAYHUB_BATCH_LANE=0, or the daemon grants no lane)"


if __name__ == "__main__":
    sys.exit(main())
