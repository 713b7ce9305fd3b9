"""What one host read costs, piece by piece: a bare gRPC call, raw Batch requests (built once,
sent with the stub as unary calls, over an open BatchStream and over a batch lane, so no
client pipeline work), and the same reads through the pipelined client, whose batches go on
a lane (the default on the daemon's host) and on the stream (ARRAYHUB_BATCH_LANE=0). Run
against a daemon started with --log-level debug to read each call's handler time from its log
("rpc /arrayhub.v1.ArrayHub/Batch OK <us>", "batch on a lane: ... <us>").

    PYTHONPATH=client_python python3 bench/user/read_cost.py HOST:PORT [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import queue
from typing import Any, Callable

import numpy as np

import arrayhub as ah
from arrayhub import _batch_lane, _dtypes
from arrayhub.v1 import arrays_pb2, compute_pb2
from timing import median_us  # bench/user, the script's folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("address")
    parser.add_argument("--repeats", type=int, default=300)
    args = parser.parse_args()
    client = ah.connect(args.address)
    with client:
        x = ah.asarray(np.ones(1000, np.float32))
        big = ah.asarray(np.ones(100_000_000, np.float32))
        stub, metadata = client._connection.stub, client._metadata
        one = compute_pb2.Operand(scalar=_dtypes.scalar_to_proto(1))
        add = compute_pb2.BatchRequest.Op(elementwise=compute_pb2.ElementwiseRequest(
            op="add", operands=[compute_pb2.Operand(handle=x.handle), one]))
        first = compute_pb2.BatchRequest.Op(get_item=compute_pb2.GetItemRequest(
            batch_handle=0, index=[compute_pb2.IndexItem(index=0)]))
        total = compute_pb2.BatchRequest.Op(reduce=compute_pb2.ReduceRequest(
            op="sum", input=compute_pb2.Operand(handle=big.handle)))
        # One message each way on an open BatchStream: the request is queued again before
        # each read of a reply.
        read_request = compute_pb2.BatchRequest(ops=[add, first], read=1)
        requests: queue.SimpleQueue[Any] = queue.SimpleQueue()

        def stream_requests() -> Any:
            while True:
                requests.get()
                yield read_request

        replies_iterator = stub.BatchStream(stream_requests(), metadata=metadata)

        class _Replies:
            def __next__(self) -> Any:
                requests.put(1)
                return next(replies_iterator)

        replies = _Replies()

        class _NoFallback:
            def call(self, request: Any, waited: bool = False) -> Any:
                raise RuntimeError("no batch lane could be opened")

            def close(self) -> None:
                pass

        lane = _batch_lane.BatchLane(
            lambda: stub.OpenBatchLane(compute_pb2.OpenBatchLaneRequest(), metadata=metadata),
            _NoFallback())
        os.environ["ARRAYHUB_BATCH_LANE"] = "0"
        streamed = ah.connect(args.address)
        os.environ.pop("ARRAYHUB_BATCH_LANE")
        with streamed.use():
            x_streamed = ah.asarray(np.ones(1000, np.float32))
        rows: dict[str, Callable[[], Any]] = {
            "bare call (Client.ping)": client.ping,
            "Describe": lambda: stub.Describe(arrays_pb2.DescribeRequest(handle=x.handle),
                                              metadata=metadata),
            "raw Batch [add]": lambda: stub.Batch(compute_pb2.BatchRequest(ops=[add]),
                                                  metadata=metadata),
            "raw Batch [add, get_item], read": lambda: stub.Batch(
                compute_pb2.BatchRequest(ops=[add, first], read=1), metadata=metadata),
            "raw Batch [sum of 100M], read": lambda: stub.Batch(
                compute_pb2.BatchRequest(ops=[total], read=0), metadata=metadata),
            "raw BatchStream [add, get_item], read": lambda: next(replies),
            "raw batch lane [add, get_item], read": lambda: lane.call(read_request),
            "raw batch lane, the answer spun for": lambda: lane.call(read_request, waited=True),
            "client: float((x + 1)[0])": lambda: float((x + 1)[0]),
            "client on the stream: float((x + 1)[0])": lambda: float((x_streamed + 1)[0]),
            "client: float(big.sum())": lambda: float(big.sum()),
        }
        print("| call | median us |\n| --- | ---: |")
        for name, call in rows.items():
            print(f"| {name} | {median_us(call, args.repeats, warmup=30):.1f} |")
        replies_iterator.cancel()
        lane.close()
        streamed.close()


if __name__ == "__main__":
    main()
