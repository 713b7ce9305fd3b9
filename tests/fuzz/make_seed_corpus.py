"""Writes the request fuzzer's seed corpus (tests/fuzz/corpus): one valid request of each
kind, in the fuzzer's input format (the RPC's number, then the request's wire bytes).
Handles are written as "0".."3", which the fuzzer replaces by its four arrays.

Run with the Python client's generated modules importable, e.g.
    PYTHONPATH=client_python build/python-venv/bin/python tests/fuzz/make_seed_corpus.py
"""

from __future__ import annotations

import hashlib
import pathlib
import struct

from arrayhub.v1 import arrays_pb2 as a
from arrayhub.v1 import compute_pb2 as c
from arrayhub.v1 import types_pb2 as t

KINDS = {"Create": 0, "Elementwise": 1, "Reduce": 2, "Matmul": 3, "TensorProduct": 4,
         "Linalg": 5, "Upload": 6, "Download": 7, "Free": 8, "Describe": 9, "List": 10,
         "Publish": 11, "Unpublish": 12, "Attach": 13, "OpenSession": 14, "View": 15,
         "GetItem": 16, "SetItem": 17, "ArrayOp": 18, "Batch": 19, "RegisterSharedMemory": 20,
         "UnregisterSharedMemory": 21, "CopyFromSharedMemory": 22, "CopyToSharedMemory": 23,
         "ExportIpc": 24, "ReleaseIpc": 25, "Fft": 26, "RunKernel": 27, "QueryEvent": 28,
         "EventElapsedTime": 29, "CopyToDevice": 30,
         "Collective": 31}


def operand(handle: str) -> c.Operand:
    return c.Operand(handle=handle)


def scalar(value: float) -> c.Operand:
    return c.Operand(scalar=t.Scalar(float_value=value))


def upload(*messages: a.UploadRequest) -> bytes:
    out = b""
    for message in messages:
        data = message.SerializeToString()
        out += struct.pack("<H", len(data)) + data
    return out


SEEDS = [
    ("Create", a.CreateRequest(dtype=t.DTYPE_FLOAT32, shape=[2, 3], zeros=a.ZerosSpec())),
    ("Create", a.CreateRequest(shape=[4], full=a.FullSpec(value=t.Scalar(int_value=7)))),
    ("Create", a.CreateRequest(arange=a.ArangeSpec(start=t.Scalar(int_value=1),
                                                   stop=t.Scalar(float_value=9.5),
                                                   step=t.Scalar(int_value=2)))),
    ("Create", a.CreateRequest(linspace=a.LinspaceSpec(start=t.Scalar(float_value=0),
                                                       stop=t.Scalar(float_value=1), num=5,
                                                       endpoint=True))),
    ("Create", a.CreateRequest(eye=a.EyeSpec(n=3, has_m=True, m=4, k=1))),
    ("Create", a.CreateRequest(shape=[8], random=a.RandomSpec(
        has_seed=True, seed=3, normal=a.RandomSpec.Normal(mean=0, stddev=1)))),
    ("Create", a.CreateRequest(shape=[8], dtype=t.DTYPE_INT16, random=a.RandomSpec(
        integers=a.RandomSpec.Integers(low=-5, high=5)))),
    ("Elementwise", c.ElementwiseRequest(op="add", operands=[operand("0"), scalar(1.5)])),
    ("Elementwise", c.ElementwiseRequest(op="multiply", operands=[operand("0"), operand("0")],
                                         out="0")),
    ("Elementwise", c.ElementwiseRequest(op="where", operands=[operand("3"), operand("1"),
                                                               scalar(2)])),
    ("Elementwise", c.ElementwiseRequest(op="sqrt", operands=[operand("2")],
                                         dtype=t.DTYPE_COMPLEX128)),
    ("Reduce", c.ReduceRequest(op="sum", input=operand("0"), axis=t.AxisList(axes=[-1]),
                               keepdims=True)),
    ("Reduce", c.ReduceRequest(op="std", input=operand("1"), ddof=1)),
    ("Reduce", c.ReduceRequest(op="argmax", input=operand("0"), axis=t.AxisList(axes=[0]))),
    ("Matmul", c.MatmulRequest(a=operand("0"), b=operand("0"), transpose_b=True)),
    ("TensorProduct", c.TensorProductRequest(op="tensordot", a=operand("0"), b=operand("0"),
                                             axes=1)),
    ("TensorProduct", c.TensorProductRequest(op="outer", a=operand("1"), b=operand("1"))),
    ("Linalg", c.LinalgRequest(op="svd", operands=[operand("0")], full_matrices=True,
                               compute_uv=True)),
    ("Linalg", c.LinalgRequest(op="solve", operands=[operand("2"), operand("2")])),
    ("Linalg", c.LinalgRequest(op="norm", operands=[operand("0")], ord="fro")),
    ("Linalg", c.LinalgRequest(op="eig", operands=[operand("2")])),
    ("Linalg", c.LinalgRequest(op="eigvals", operands=[operand("0")])),  # (3, 4): refused.
    ("Fft", c.FftRequest(op="fft", input=operand("2"), norm="ortho")),
    ("Fft", c.FftRequest(op="rfft", input=operand("0"), axes=t.AxisList(axes=[0, -1]),
                         s=c.FftRequest.Lengths(values=[4, 6]))),
    # CuPy's kmeans kernels (examples/kmeans, --use-custom-kernel) and a preamble function.
    ("RunKernel", c.RunKernelRequest(source=c.KernelSource(
        in_params="T x0, T x1, T c0, T c1", out_params="T out",
        operation="out = (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1)", name="var_kernel"),
        arguments=[c.KernelArgument(handle="0"), c.KernelArgument(handle="0"),
                   c.KernelArgument(scalar=t.Scalar(float_value=0.5)),
                   c.KernelArgument(scalar=t.Scalar(float_value=-1), dtype=t.DTYPE_FLOAT32)])),
    ("RunKernel", c.RunKernelRequest(source=c.KernelSource(
        kind=c.KernelSource.KIND_REDUCTION, in_params="T x, S mask", out_params="T out",
        map_expr="mask ? x : 0", reduce_expr="a + b", post_map_expr="out = a", identity="0",
        name="sum_kernel"),
        arguments=[c.KernelArgument(handle="0"), c.KernelArgument(handle="0")],
        axis=t.AxisList(axes=[1]), keepdims=True)),
    ("RunKernel", c.RunKernelRequest(source=c.KernelSource(
        in_params="raw T x, int32 n", out_params="raw T y",
        operation="T s = 0; for (int k = 0; k < n; ++k) { s += twice(x[(i + k) % x.size()]); }"
                  " y[i] = s",
        preamble="__device__ inline T twice(T v) { return v + v; }", name="looped"),
        arguments=[c.KernelArgument(handle="1"), c.KernelArgument(scalar=t.Scalar(int_value=3))],
        size=5)),
    ("Download", a.DownloadRequest(handle="0", chunk_bytes=7)),
    ("Free", a.FreeRequest(handles=["1", "3"])),
    ("Describe", a.DescribeRequest(handle="2")),
    ("List", a.ListRequest(all_sessions=True, include_shared=True)),
    ("Publish", a.PublishRequest(handle="0", name="lab/x", reader_tenants=["bob"],
                                 writable=True)),
    ("Unpublish", a.UnpublishRequest(name="lab/x")),
    ("Attach", a.AttachRequest(name="lab/x", owner="anonymous")),
    ("OpenSession", a.OpenSessionRequest(client_name="seed", lease_seconds=5)),
    ("View", c.ViewRequest(handle="0", reshape=c.ViewRequest.Reshape(shape=[4, -1]))),
    ("View", c.ViewRequest(handle="0", transpose=c.ViewRequest.Transpose())),
    ("View", c.ViewRequest(handle="1", broadcast_to=c.ViewRequest.BroadcastTo(shape=[2, 5]))),
    ("View", c.ViewRequest(handle="2", diagonal=c.ViewRequest.Diagonal(offset=1))),
    ("GetItem", c.GetItemRequest(handle="0", index=[
        c.IndexItem(slice=c.Slice(has_start=True, start=1, step=2)), c.IndexItem(index=-1)])),
    ("GetItem", c.GetItemRequest(handle="1", index=[c.IndexItem(array="1")])),
    ("GetItem", c.GetItemRequest(handle="0", index=[c.IndexItem(ellipsis=True),
                                                     c.IndexItem(new_axis=True)])),
    ("SetItem", c.SetItemRequest(handle="0", index=[c.IndexItem(index=0)], value=scalar(3))),
    ("SetItem", c.SetItemRequest(handle="1", index=[c.IndexItem(array="3")],
                                 value=operand("1"))),
    ("ArrayOp", c.ArrayOpRequest(op="concatenate", operands=[operand("1"), operand("1")])),
    ("ArrayOp", c.ArrayOpRequest(op="sort", operands=[operand("0")], axis=t.AxisList(axes=[0]))),
    ("ArrayOp", c.ArrayOpRequest(op="partition", operands=[operand("1")], ints=[1, -1],
                                 axis=t.AxisList(axes=[0]))),
    ("ArrayOp", c.ArrayOpRequest(op="argpartition", operands=[operand("1")], ints=[0])),
    ("ArrayOp", c.ArrayOpRequest(op="split", operands=[operand("1")], ints=[2, 4],
                                 split_at_indices=True)),
    ("ArrayOp", c.ArrayOpRequest(op="astype", operands=[operand("0")], dtype=t.DTYPE_INT8)),
    ("ArrayOp", c.ArrayOpRequest(op="unique", operands=[operand("1")])),
    ("Batch", c.BatchRequest(ops=[
        c.BatchRequest.Op(elementwise=c.ElementwiseRequest(op="multiply",
                                                           operands=[operand("0"), scalar(2)])),
        c.BatchRequest.Op(view=c.ViewRequest(batch_handle=0, transpose=c.ViewRequest.Transpose())),
        c.BatchRequest.Op(matmul=c.MatmulRequest(a=operand("0"), b=c.Operand(batch_result=1))),
        c.BatchRequest.Op(reduce=c.ReduceRequest(op="sum", input=c.Operand(batch_result=2))),
    ], keep=[3, 1])),
    ("Batch", c.BatchRequest(ops=[
        c.BatchRequest.Op(create=a.CreateRequest(shape=[5], ones=a.OnesSpec())),
        c.BatchRequest.Op(array_op=c.ArrayOpRequest(op="split", operands=[
            c.Operand(batch_result=0)], ints=[5])),
        c.BatchRequest.Op(elementwise=c.ElementwiseRequest(op="add", operands=[
            operand("1"), c.Operand(batch_result=0)], out="1")),
    ], keep=[2])),
    # A pipelined client's flush: a result written into an earlier one, indexed by a mask that
    # is a batch result, a dropped array freed, and the sum read back inline.
    ("Batch", c.BatchRequest(ops=[
        c.BatchRequest.Op(create=a.CreateRequest(arange=a.ArangeSpec(
            start=t.Scalar(float_value=0), stop=t.Scalar(float_value=4)))),
        c.BatchRequest.Op(elementwise=c.ElementwiseRequest(
            op="add", operands=[c.Operand(batch_result=0), scalar(1)], out_batch_result=0)),
        c.BatchRequest.Op(elementwise=c.ElementwiseRequest(
            op="greater", operands=[c.Operand(batch_result=1), scalar(2.5)])),
        c.BatchRequest.Op(get_item=c.GetItemRequest(batch_handle=1, index=[
            c.IndexItem(batch_array=2)])),
        c.BatchRequest.Op(reduce=c.ReduceRequest(op="sum", input=c.Operand(batch_result=3))),
    ], keep=[1], free=["3"], read=4)),
    # A ticket nobody was given (PERMISSION_DENIED), then copies through a region that was
    # never registered.
    ("RegisterSharedMemory", a.RegisterSharedMemoryRequest(
        region_name="r", byte_size=4096, descriptor_ticket="0" * 32)),
    ("UnregisterSharedMemory", a.UnregisterSharedMemoryRequest(region_name="r")),
    ("CopyFromSharedMemory", a.SharedMemoryCopyRequest(
        region_name="r", offset_bytes=32, dtype=t.DTYPE_FLOAT32, shape=[4])),
    ("CopyToSharedMemory", a.SharedMemoryCopyRequest(region_name="r", offset_bytes=64,
                                                     handle="0")),
    # The CPU backend refuses to export (FAILED_PRECONDITION); no lease exists (NOT_FOUND).
    ("ExportIpc", a.ExportIpcRequest(handle="0")),
    ("ReleaseIpc", a.ReleaseIpcRequest(lease="0" * 32)),
    # The fuzzed server has two devices: a copy to the other, then a batch on device 1 that
    # copies its own result back and reads an array of device 0 (INVALID_ARGUMENT).
    ("CopyToDevice", a.CopyToDeviceRequest(handle="0", device=1)),
    ("Batch", c.BatchRequest(device=1, ops=[
        c.BatchRequest.Op(create=a.CreateRequest(shape=[3], ones=a.OnesSpec())),
        c.BatchRequest.Op(copy_to_device=a.CopyToDeviceRequest(batch_handle=0, device=0)),
        c.BatchRequest.Op(elementwise=c.ElementwiseRequest(
            op="add", operands=[c.Operand(batch_result=0), operand("0")])),
    ], keep=[1])),
    ("Batch", c.BatchRequest(ops=[
        c.BatchRequest.Op(record_event=c.RecordEventRequest(event_id=1)),
        c.BatchRequest.Op(elementwise=c.ElementwiseRequest(op="sin", operands=[operand("0")])),
        c.BatchRequest.Op(record_event=c.RecordEventRequest(event_id=2)),
    ])),
    ("QueryEvent", c.QueryEventRequest(event_id=2, wait=True)),
    # Collectives: two arrays of one device (INVALID_ARGUMENT), a broadcast from device 0 to
    # both, and one-rank gathers and reductions of the premade arrays.
    ("Collective", a.CollectiveRequest(kind=a.CollectiveRequest.ALL_REDUCE, handles=["0", "0"],
                                       op=a.CollectiveRequest.SUM)),
    ("Collective", a.CollectiveRequest(kind=a.CollectiveRequest.BROADCAST, handles=["0"],
                                       devices=[1, 0])),
    ("Collective", a.CollectiveRequest(kind=a.CollectiveRequest.ALL_GATHER, handles=["2"])),
    ("Collective", a.CollectiveRequest(kind=a.CollectiveRequest.REDUCE_SCATTER, handles=["2"],
                                       op=a.CollectiveRequest.AVG)),
    ("Collective", a.CollectiveRequest(kind=a.CollectiveRequest.REDUCE, handles=["3"],
                                       op=a.CollectiveRequest.MAX, root=0)),
    ("EventElapsedTime", c.EventElapsedTimeRequest(start_event_id=1, end_event_id=2)),
]


def main() -> None:
    corpus = pathlib.Path(__file__).resolve().parent / "corpus"
    corpus.mkdir(exist_ok=True)
    inputs = [bytes([KINDS[kind]]) + request.SerializeToString() for kind, request in SEEDS]
    header = a.UploadHeader(dtype=t.DTYPE_INT16, shape=[2, 2])
    inputs.append(bytes([KINDS["Upload"]]) + upload(
        a.UploadRequest(header=header), a.UploadRequest(chunk=b"\x01\x00\x02\x00"),
        a.UploadRequest(chunk=b"\x03\x00\x04\x00")))
    for data in inputs:
        (corpus / hashlib.sha1(data).hexdigest()).write_bytes(data)
    print(f"wrote {len(inputs)} seeds to {corpus}")


if __name__ == "__main__":
    main()
