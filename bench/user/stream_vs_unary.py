"""A unary call against one message each way on an open bidirectional stream, from Python.

Issue 18 asked whether the pipeline should send its Batches over a stream per session rather
than one unary call each; what decides it from Python is what gRPC's Python stack costs per
round trip either way. This starts an echo server (gRPC Python, in its own process, bytes in
and out) and times, with the same payload:

- a unary call (what a pipeline flush with a read is today);
- one request written to an open stream-stream call and its reply read (a streamed flush);
- a unary call handed to a waiting thread and its answer handed back (what the pipeline's
  sender thread adds to a flush in flight).

    python3 bench/user/stream_vs_unary.py [--repeats N] [--bytes B]
"""

from __future__ import annotations

import argparse
import multiprocessing
import queue
import threading
from concurrent import futures
from typing import Any, Callable, Iterator

import grpc

from timing import median_us  # bench/user, the script's folder

_SERVICE = "bench.Echo"


def _identity(data: bytes) -> bytes:
    return data


def _serve(port: Any, ready: Any) -> None:
    def unary(request: bytes, context: Any) -> bytes:
        return request

    def stream(requests: Iterator[bytes], context: Any) -> Iterator[bytes]:
        yield from requests

    handler = grpc.method_handlers_generic_handler(_SERVICE, {
        "Unary": grpc.unary_unary_rpc_method_handler(unary, _identity, _identity),
        "Stream": grpc.stream_stream_rpc_method_handler(stream, _identity, _identity)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    port.value = server.add_insecure_port("127.0.0.1:0")
    server.start()
    ready.set()
    server.wait_for_termination()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--bytes", type=int, default=200, help="payload each way")
    args = parser.parse_args()
    port, ready = multiprocessing.Value("i", 0), multiprocessing.Event()
    server = multiprocessing.Process(target=_serve, args=(port, ready), daemon=True)
    server.start()
    ready.wait(30)
    payload = b"x" * args.bytes
    with grpc.insecure_channel(f"127.0.0.1:{port.value}") as channel:
        unary = channel.unary_unary(f"/{_SERVICE}/Unary", _identity, _identity)
        streamed = channel.stream_stream(f"/{_SERVICE}/Stream", _identity, _identity)
        requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
        replies = streamed(iter(requests.get, None))

        def one_on_stream() -> bytes:
            requests.put(payload)
            return next(replies)

        calls: queue.SimpleQueue[Any] = queue.SimpleQueue()
        answers: queue.SimpleQueue[Any] = queue.SimpleQueue()

        def sender() -> None:
            for request in iter(calls.get, None):
                answers.put(unary(request))

        threading.Thread(target=sender, daemon=True).start()

        def unary_on_a_thread() -> bytes:
            calls.put(payload)
            return answers.get()

        rows = {"unary call": lambda: unary(payload),
                "one message each way on an open stream": one_on_stream,
                "unary call made by a waiting thread": unary_on_a_thread}
        print(f"| round trip, {args.bytes} bytes each way | median us |\n| --- | ---: |")
        for name, call in rows.items():
            print(f"| {name} | {median_us(call, args.repeats, warmup=200):.1f} |")
        requests.put(None)
        calls.put(None)
    server.terminate()


if __name__ == "__main__":
    main()
