"""Scenario 4 by CUDA IPC, with the Python client and CuPy: a second process uses the first's
1 GiB array in place (ExportIpc, pool and pointer import, a CuPy reduction on it), against
downloading it and uploading it again. Prints a markdown table. Needs a CUDA daemon on this
host and CuPy.

    python3 bench/service/python_ipc.py HOST:PORT [--gib 1] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
import time

import numpy as np

import arrayhub as ah

# Process B: maps A's array by handle and sums it with CuPy, a fresh mapping each round (the
# array object, and with it the mapping and its lease, goes at the end of the round).
CONSUMER = textwrap.dedent("""
    import sys, time, json
    import cupy as cp
    import arrayhub as ah
    from arrayhub.v1 import arrays_pb2
    client = ah.connect(sys.argv[1])
    ah.set_default_client(client)
    handle, repeats = sys.argv[2], int(sys.argv[3])
    timings, wire = [], 0
    for i in range(repeats + 1):
        t0 = time.perf_counter()
        b = ah.open(handle)
        mapped = cp.asarray(b)
        total = float(mapped.sum(dtype=cp.float64))
        t1 = time.perf_counter()
        if i > 0:
            timings.append(t1 - t0)
        del mapped, b
        client.flush()
    response = client._rpc("ExportIpc", arrays_pb2.ExportIpcRequest(handle=handle))
    wire = response.ByteSize()
    print(json.dumps({"seconds": sorted(timings)[len(timings) // 2], "total": total,
                      "response_bytes": wire}))
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("address")
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    client = ah.connect(args.address)
    with client:
        count = int(args.gib * (1 << 30)) // 4
        # Integers below 1024 are exact in float32 (an arange in float32 would not be).
        a = (ah.arange(count, dtype=np.int32) % 1024).astype(np.float32)
        # Sum of i % 1024 over i < count, in closed form.
        full, rest = divmod(count, 1024)
        expected = full * (1023 * 1024 // 2) + rest * (rest - 1) // 2
        done = subprocess.run([sys.executable, "-c", CONSUMER, args.address, a.handle,
                               str(args.repeats)], capture_output=True, text=True, check=True)
        ipc = json.loads(done.stdout)
        assert ipc["total"] == expected, (ipc["total"], expected)

        copies = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            b = ah.asarray(a.get())
            float(b[-1])
            copies.append(time.perf_counter() - t0)
            del b
            client.flush()
        copy = sorted(copies)[len(copies) // 2]

    size = count * 4
    print(f"\n### Sharing {size / (1 << 30):.2f} GiB by CUDA IPC (Python client + CuPy, "
          f"median of {args.repeats})\n")
    print("| how process B gets A's array | array bytes on the wire | time ms |")
    print("| --- | ---: | ---: |")
    print(f"| CUDA IPC: open by handle, map (ExportIpc + imports), CuPy sum over it "
          f"| 0 (ExportIpc answer: {ipc['response_bytes']} bytes) | {ipc['seconds'] * 1e3:.1f} |")
    print(f"| download then upload (same process, gRPC/shared memory as the client picks) "
          f"| {2 * size} | {copy * 1e3:.1f} |")


if __name__ == "__main__":
    main()
