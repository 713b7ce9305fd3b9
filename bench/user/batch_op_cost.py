"""The daemon's own cost per op inside a Batch: one Batch of 256 alternating adds and sums
on 1000 float32 (nothing fuses), built once and sent in a loop with the stub for SECONDS.

    PYTHONPATH=client_python python3 bench/user/batch_op_cost.py HOST:PORT SECONDS
"""

from __future__ import annotations

import sys
import time

import numpy as np

import arrayhub as ah
from arrayhub import _dtypes
from arrayhub.v1 import compute_pb2

OPS = 256


def main() -> None:
    address, seconds = sys.argv[1], float(sys.argv[2])
    with ah.connect(address) as client:
        x = ah.asarray(np.ones(1000, np.float32))
        stub, metadata = client._connection.stub, client._metadata
        one = compute_pb2.Operand(scalar=_dtypes.scalar_to_proto(1))
        ops = [compute_pb2.BatchRequest.Op(elementwise=compute_pb2.ElementwiseRequest(
            op="add", operands=[compute_pb2.Operand(handle=x.handle), one]))]
        while len(ops) < OPS:
            previous = compute_pb2.Operand(batch_result=len(ops) - 1)
            if len(ops) % 2:
                ops.append(compute_pb2.BatchRequest.Op(
                    reduce=compute_pb2.ReduceRequest(op="sum", input=previous)))
            else:
                ops.append(compute_pb2.BatchRequest.Op(elementwise=compute_pb2.ElementwiseRequest(
                    op="add", operands=[previous, one])))
        request = compute_pb2.BatchRequest(ops=ops, read=OPS - 1)
        start, batches = time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            stub.Batch(request, metadata=metadata)
            batches += 1
        elapsed = time.perf_counter() - start
        print(f"{batches} batches of {OPS} ops: {elapsed / batches / OPS * 1e6:.1f} us per op")


if __name__ == "__main__":
    main()
