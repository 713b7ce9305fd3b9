"""Multi-GPU benchmark (docs/devices.md, issue 25): a daemon serving every GPU of the machine.

    python3 bench/devices/multi_gpu_bench.py --daemon build/server/arrayhubd [--repeats 7]
                                             [--collectives-only]
                                             [--all-pairs]

0. Collectives over every GPU, 1 GiB float32 (nccl-tests' sizes and bus bandwidth): all_reduce,
   all_gather and reduce_scatter through the service (Collective, 16 calls back to back, then a
   host read of each rank's last result) beside NCCL called directly (CuPy's binding, grouped
   over one stream per GPU, CUDA events) on buffers of the same sizes.
1. Peer copy of 1 GiB float32, device 0 -> 1, through the service (CopyToDevice) beside
   cudaMemcpyPeerAsync called directly (CuPy's runtime binding) on buffers of the same size.
   Service: 8 copies back to back, then one host read of the last copy's first element (which
   waits for the copies); time per copy = wall time / 8. Direct: CUDA events around 8 copies.
2. Clients spread over the GPUs: 64 threads, each its own session, each running a loop of
   compute-bound matmuls (4096^2 float32, about 2.7 ms each on an H100) then one host read. The same daemon binary serving
   one GPU (--devices 0) and then every GPU; throughput in matmuls per second.

Talks to the daemon through the generated gRPC stubs only, so it measures the service, not a
client library. Prints a markdown table; every figure is a median of --repeats runs.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client_python"))
from arrayhub.v1 import arrays_pb2, compute_pb2, service_pb2_grpc, types_pb2  # noqa: E402

GIB = 1 << 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    def __init__(self, binary: str, extra: list[str]):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "--listen", f"127.0.0.1:{self.port}", "--log-level", "warn",
             "--max-array-bytes", str(4 * GIB), "--tenant-max-transfers", "4096"] + extra)
        self.channel = grpc.insecure_channel(
            f"127.0.0.1:{self.port}",
            options=[("grpc.max_receive_message_length", 64 << 20)])
        grpc.channel_ready_future(self.channel).result(timeout=60)
        self.stub = service_pb2_grpc.ArrayHubStub(self.channel)

    def close(self) -> None:
        self.channel.close()
        self.proc.terminate()
        self.proc.wait(timeout=30)


class Session:
    def __init__(self, stub, device: int | None = None):
        self.stub = stub
        request = arrays_pb2.OpenSessionRequest(client_name="multi_gpu_bench")
        if device is not None:
            request.device = device
        opened = stub.OpenSession(request)
        self.device = opened.device
        self.md = (("x-arrayhub-session", opened.session_id),)

    def on(self, device: int | None):
        """The metadata of a call on `device` (None: the session's)."""
        return self.md if device is None else self.md + (("x-arrayhub-device", str(device)),)

    def create(self, shape, device: int | None = None) -> str:
        request = arrays_pb2.CreateRequest(dtype=types_pb2.DTYPE_FLOAT32, shape=shape)
        request.ones.SetInParent()
        return self.stub.Create(request, metadata=self.on(device)).handle

    def read_first(self, handle: str) -> bytes:
        """The first element, from the host: waits for the work enqueued on the array."""
        return b"".join(part.chunk for part in self.stub.Download(
            arrays_pb2.DownloadRequest(handle=handle, length_bytes=4), metadata=self.md)
            if part.WhichOneof("part") == "chunk")

    def free(self, *handles: str) -> None:
        self.stub.Free(arrays_pb2.FreeRequest(handles=list(handles)), metadata=self.md)


def peer_copy_service(daemon: Daemon, repeats: int, src: int, dst: int, copies: int = 8) -> float:
    s = Session(daemon.stub, device=src)
    source = s.create([GIB // 4])
    times = []
    for r in range(repeats + 1):
        start = time.perf_counter()
        made = [daemon.stub.CopyToDevice(arrays_pb2.CopyToDeviceRequest(handle=source, device=dst),
                                         metadata=s.md).handle for _ in range(copies)]
        s.read_first(made[-1])
        elapsed = (time.perf_counter() - start) / copies
        s.free(*made)
        if r > 0:  # The first run is warm-up.
            times.append(elapsed)
    s.free(source)
    return statistics.median(times)


def peer_copy_direct(repeats: int, source: int, target: int, copies: int = 8) -> float:
    import cupy as cp
    with cp.cuda.Device(source):
        src = cp.zeros(GIB // 4, dtype=cp.float32)
    with cp.cuda.Device(target):
        dst = cp.empty(GIB // 4, dtype=cp.float32)
        stream = cp.cuda.Stream(non_blocking=True)
        try:
            cp.cuda.runtime.deviceEnablePeerAccess(source)
        except cp.cuda.runtime.CUDARuntimeError:
            pass  # Already enabled.
        times = []
        for r in range(repeats + 1):
            begin, end = cp.cuda.Event(), cp.cuda.Event()
            begin.record(stream)
            for _ in range(copies):
                cp.cuda.runtime.memcpyPeerAsync(dst.data.ptr, target, src.data.ptr, source, GIB,
                                                stream.ptr)
            end.record(stream)
            end.synchronize()
            if r > 0:
                times.append(cp.cuda.get_elapsed_time(begin, end) / 1e3 / copies)
    return statistics.median(times)


# Collectives as nccl-tests counts them: the size each reports (all_reduce: the buffer;
# all_gather: the gathered output; reduce_scatter: each input) and the bus-bandwidth factor.
COLLECTIVES = {
    "all_reduce": (arrays_pb2.CollectiveRequest.ALL_REDUCE, lambda n: 2 * (n - 1) / n),
    "all_gather": (arrays_pb2.CollectiveRequest.ALL_GATHER, lambda n: (n - 1) / n),
    "reduce_scatter": (arrays_pb2.CollectiveRequest.REDUCE_SCATTER, lambda n: (n - 1) / n),
}


def input_floats(kind: str, ranks: int) -> int:
    """float32 elements of each rank's input for a reported size of 1 GiB."""
    return GIB // 4 // ranks if kind == "all_gather" else GIB // 4


def collective_service(daemon: Daemon, kind: str, ranks: int, repeats: int,
                       calls: int = 16) -> float:
    """Seconds per collective through the service: `calls` Collective RPCs back to back (each
    returns once NCCL's work is enqueued), then a host read of each rank's last result."""
    s = Session(daemon.stub, device=0)
    inputs = [s.create([input_floats(kind, ranks)], device=d) for d in range(ranks)]
    wire_kind, _ = COLLECTIVES[kind]
    request = arrays_pb2.CollectiveRequest(kind=wire_kind, handles=inputs)
    if kind != "all_gather":
        request.op = arrays_pb2.CollectiveRequest.SUM
    times = []
    for r in range(repeats + 1):
        start = time.perf_counter()
        made = [daemon.stub.Collective(request, metadata=s.md).results for _ in range(calls)]
        for result in made[-1]:
            s.read_first(result.handle)
        elapsed = (time.perf_counter() - start) / calls
        s.free(*[result.handle for results in made for result in results])
        if r > 0:  # The first run is warm-up (and makes the communicator).
            times.append(elapsed)
    s.free(*inputs)
    return statistics.median(times)


def collective_direct(kind: str, ranks: int, repeats: int, calls: int = 16) -> float:
    """Seconds per collective of NCCL called directly (CuPy's binding) on buffers of the same
    sizes, out of place, one stream per GPU: CUDA events around `calls` grouped calls, the
    slowest GPU's time."""
    import cupy as cp
    from cupy.cuda import nccl
    comms = nccl.NcclCommunicator.initAll(list(range(ranks)))
    count = input_floats(kind, ranks)
    out_count = count * ranks if kind == "all_gather" else (
        count // ranks if kind == "reduce_scatter" else count)
    sends, recvs, streams = [], [], []
    for d in range(ranks):
        with cp.cuda.Device(d):
            sends.append(cp.ones(count, dtype=cp.float32))
            recvs.append(cp.empty(out_count, dtype=cp.float32))
            streams.append(cp.cuda.Stream(non_blocking=True))

    def one() -> None:
        nccl.groupStart()
        for d in range(ranks):
            send, recv, ptr = sends[d].data.ptr, recvs[d].data.ptr, streams[d].ptr
            if kind == "all_reduce":
                comms[d].allReduce(send, recv, count, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, ptr)
            elif kind == "all_gather":
                comms[d].allGather(send, recv, count, nccl.NCCL_FLOAT32, ptr)
            else:
                comms[d].reduceScatter(send, recv, out_count, nccl.NCCL_FLOAT32, nccl.NCCL_SUM,
                                       ptr)
        nccl.groupEnd()

    times = []
    for r in range(repeats + 1):
        marks = []
        for d in range(ranks):
            with cp.cuda.Device(d):
                begin, end = cp.cuda.Event(), cp.cuda.Event()
                begin.record(streams[d])
                marks.append((begin, end))
        for _ in range(calls):
            one()
        for d in range(ranks):
            with cp.cuda.Device(d):
                marks[d][1].record(streams[d])
        elapsed = 0.0
        for d in range(ranks):
            with cp.cuda.Device(d):
                marks[d][1].synchronize()
                elapsed = max(elapsed, cp.cuda.get_elapsed_time(*marks[d]) / 1e3 / calls)
        if r > 0:
            times.append(elapsed)
    return statistics.median(times)


def clients_throughput(daemon: Daemon, clients: int, per_client: int, n: int) -> float:
    sessions = [Session(daemon.stub) for _ in range(clients)]
    operands = [s.create([n, n]) for s in sessions]
    barrier = threading.Barrier(clients + 1)
    errors: list[BaseException] = []

    def work(s: Session, a: str) -> None:
        try:
            barrier.wait()
            made = []
            for _ in range(per_client):
                made.append(s.stub.Matmul(compute_pb2.MatmulRequest(
                    a=compute_pb2.Operand(handle=a), b=compute_pb2.Operand(handle=a)),
                    metadata=s.md).handle)
            s.read_first(made[-1])
            s.free(*made)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(s, a)) for s, a in zip(sessions, operands)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    if errors:
        raise errors[0]
    for s, a in zip(sessions, operands):
        s.free(a)
    return clients * per_client / elapsed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--daemon", default=os.environ.get("ARRAYHUB_DAEMON", "arrayhubd"))
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--all-pairs", action="store_true",
                        help="peer copies between every ordered pair of devices, not just 0 -> 1")
    parser.add_argument("--collectives-only", action="store_true",
                        help="only the collectives' rows (all_reduce, all_gather, reduce_scatter)")
    args = parser.parse_args()

    rows = []
    daemon = Daemon(args.daemon, [])
    try:
        info = daemon.stub.GetServerInfo(arrays_pb2.ServerInfoRequest())
        print("devices:", ", ".join(f"{d.name} ({d.description})" for d in info.devices))
        if len(info.devices) < 2:
            print("needs two devices")
            return 1
        count = len(info.devices)
        for kind, (_, factor) in COLLECTIVES.items():
            service = collective_service(daemon, kind, count, args.repeats)
            direct = collective_direct(kind, count, args.repeats)
            bus = factor(count) * GIB / 1e9
            rows.append((f"{kind} 1 GiB float32, {count} GPUs (bus bandwidth)",
                         f"{bus / service:.1f} GB/s", f"{bus / direct:.1f} GB/s (NCCL)",
                         f"{direct / service:.2f}x"))
            print(rows[-1], flush=True)
        if args.collectives_only:
            print_table(rows)
            return 0
        pairs = ([(i, j) for i in range(count) for j in range(count) if i != j]
                 if args.all_pairs else [(0, 1)])
        for src, dst in pairs:
            service = peer_copy_service(daemon, args.repeats, src, dst)
            direct = peer_copy_direct(args.repeats, src, dst)
            rows.append((f"peer copy 1 GiB, cuda:{src} -> cuda:{dst}",
                         f"{GIB / service / 1e9:.1f} GB/s",
                         f"{GIB / direct / 1e9:.1f} GB/s (cudaMemcpyPeerAsync)",
                         f"{direct / service:.2f}x"))
            print(rows[-1], flush=True)
        both = statistics.median(
            clients_throughput(daemon, args.clients, args.per_client, args.n)
            for _ in range(3))
    finally:
        daemon.close()
    one_daemon = Daemon(args.daemon, ["--devices", "0"])
    try:
        one = statistics.median(
            clients_throughput(one_daemon, args.clients, args.per_client, args.n)
            for _ in range(3))
    finally:
        one_daemon.close()
    rows.append((f"{args.clients} clients, {args.n}^2 float32 matmuls",
                 f"{both:.0f}/s on {len(info.devices)} GPUs", f"{one:.0f}/s on 1 GPU",
                 f"{both / one:.2f}x"))
    print_table(rows)
    return 0


def print_table(rows: list[tuple[str, ...]]) -> None:
    print("| measure | ArrayHub | peer | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    sys.exit(main())
