"""The daemon's own cost per op inside a Batch: one Batch of 256 alternating adds and sums
on 1000 float32 (nothing fuses), built once and sent in a loop with the stub for SECONDS.

    PYTHONPATH=client_python python3 bench/user/batch_op_cost.py HOST:PORT SECONDS
"""
import time, numpy as np, arrayhub as ah, sys
from arrayhub import _dtypes
from arrayhub.v1 import compute_pb2
c = ah.connect(sys.argv[1])
with c:
    x = ah.asarray(np.ones(1000, np.float32))
    stub, md = c._connection.stub, c._metadata
    one = compute_pb2.Operand(scalar=_dtypes.scalar_to_proto(1))
    ops = [compute_pb2.BatchRequest.Op(elementwise=compute_pb2.ElementwiseRequest(op="add", operands=[compute_pb2.Operand(handle=x.handle), one]))]
    for i in range(255):
        if i % 2 == 0:
            ops.append(compute_pb2.BatchRequest.Op(reduce=compute_pb2.ReduceRequest(op="sum", input=compute_pb2.Operand(batch_result=len(ops)-1))))
        else:
            ops.append(compute_pb2.BatchRequest.Op(elementwise=compute_pb2.ElementwiseRequest(op="add", operands=[compute_pb2.Operand(batch_result=len(ops)-1), one])))
    r = compute_pb2.BatchRequest(ops=ops, read=255)
    t0 = time.time(); n = 0
    while time.time() - t0 < float(sys.argv[2]):
        stub.Batch(r, metadata=md); n += 1
    print(f"{n} batches of 256 ops: {(time.time() - t0) / n / 256 * 1e6:.1f} us per op")
