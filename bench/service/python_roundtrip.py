"""Scenario 1 with the Python client: a small op (add on 1 KiB) against a bare empty call
(grpc.health.v1 Check, Client.ping) on the same channel, interleaved. Prints a markdown table.
It times one round trip per op, so the client runs in sync mode (arrayhub.set_sync): a
pipelined op returns before it is sent (bench/user times what pipelining gives a script).

    python3 bench/service/python_roundtrip.py HOST:PORT [--repeats N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import arrayhub as ah


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("address")
    parser.add_argument("--repeats", type=int, default=5000)
    args = parser.parse_args()

    ah.set_sync(True)
    client = ah.connect(args.address)
    with client:
        a = ah.asarray(np.full(256, 1.5, dtype=np.float32))
        b = ah.asarray(np.full(256, 2.5, dtype=np.float32))
        out = ah.empty(256, dtype=np.float32)
        timings: dict[str, list[float]] = {"ping": [], "new": [], "out": []}
        warmup = args.repeats // 10
        clock = time.perf_counter
        for i in range(warmup + args.repeats):
            t0 = clock()
            client.ping()
            t1 = clock()
            c = a + b
            t2 = clock()
            ah.add(a, b, out=out)
            t3 = clock()
            del c  # Its free is batched by the client, outside the timed parts.
            if i >= warmup:
                timings["ping"].append((t1 - t0) * 1e6)
                timings["new"].append((t2 - t1) * 1e6)
                timings["out"].append((t3 - t2) * 1e6)
        np.testing.assert_array_equal(out.get(), np.full(256, 4.0, dtype=np.float32))

    floor = quantile(timings["ping"], 0.5)
    print(f"\n### Small-op round trip (Python client, {args.repeats} calls each, interleaved)\n")
    print("| call | p50 us | p99 us | p50 / bare call (target <= 1.5) |")
    print("| --- | --- | --- | --- |")
    for key, name in (("ping", "bare call: Client.ping() (health Check), same channel"),
                      ("new", "a + b, 256 float32, new result array"),
                      ("out", "ah.add(a, b, out=c), 256 float32")):
        p50 = quantile(timings[key], 0.5)
        print(f"| {name} | {p50:.1f} | {quantile(timings[key], 0.99):.1f} | {p50 / floor:.2f} |")


if __name__ == "__main__":
    main()
