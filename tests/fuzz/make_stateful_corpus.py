"""Writes the stateful fuzzer's seed corpus (tests/fuzz/stateful_corpus): programs in the input
format of tests/fuzz/stateful_fuzzer.cc, made of the request fuzzer's seeds (make_seed_corpus.py)
and of scenarios where tenants, sessions and threads meet: in-place writes racing gathers,
scatters and nonzero; publishing, attaching and writing across tenants; another tenant's
handles, sessions and tokens; sessions closed under running calls; shared-memory regions.

Run with the Python client's generated modules importable, e.g.
    PYTHONPATH=client_python build/python-venv/bin/python tests/fuzz/make_stateful_corpus.py
"""

from __future__ import annotations

import hashlib
import pathlib
import struct

from arrayhub.v1 import arrays_pb2 as a
from arrayhub.v1 import compute_pb2 as c
from arrayhub.v1 import types_pb2 as t

from make_seed_corpus import KINDS, SEEDS, operand, scalar, upload

KINDS = {**KINDS, "KeepAlive": 32, "CloseSession": 33}
OTHER_TENANT, WRONG_TOKEN = 6, 7  # Credentials of a request (bits 2-4 of its first byte).
# A handle code outside '0'-'3' and 'a'-'p': the program's handle at 64 modulo their number,
# which before any result is made is the first array of alice's first session.
ALICE_FIRST = "@"


def program(tenants: int, sessions: int, threads: int, *requests: bytes) -> bytes:
    return bytes([tenants - 1, sessions - 1, threads - 2]) + b"".join(requests)


def call(thread: int, kind: str, message=b"", session: int = 0, caller: int = 0,
         no_token: bool = False) -> bytes:
    """One request; `session` counts the sessions tenant by tenant, in the order opened."""
    payload = message if isinstance(message, bytes) else message.SerializeToString()
    who = thread | caller << 2 | (0x20 if no_token else 0)
    return bytes([who, session, KINDS[kind]]) + struct.pack(
        "<H", len(payload)) + payload


def elementwise(op: str, *operands: c.Operand, out: str = "") -> c.ElementwiseRequest:
    return c.ElementwiseRequest(op=op, operands=list(operands), out=out)


def every_seed() -> list[bytes]:
    """Each request seed sent by alice and bob (one session each) at once, eight per thread."""
    programs = []
    for start in range(0, len(SEEDS), 8):
        chunk = SEEDS[start:start + 8]
        requests = [call(thread, kind, message, session=thread % 2)
                    for kind, message in chunk for thread in range(4)]
        programs.append(program(2, 1, 4, *requests))
    return programs


def racing_indices() -> bytes:
    """Index, mask and count arrays rewritten while gathers, scatters, take, nonzero and
    compress read them (the index and count races of issue 17)."""
    shift = [call(0, "Elementwise", elementwise("add", operand("1"), scalar(1000), out="1")),
             call(0, "Elementwise", elementwise("subtract", operand("1"), scalar(1000),
                                                out="1"))] * 8
    flip = [call(1, "Elementwise", elementwise("logical_not", operand("3"), out="3"))] * 16
    gather = [call(2, "GetItem", c.GetItemRequest(handle="1", index=[c.IndexItem(array="1")])),
              call(2, "SetItem", c.SetItemRequest(handle="1", index=[c.IndexItem(array="1")],
                                                  value=scalar(2))),
              call(2, "ArrayOp", c.ArrayOpRequest(op="take", operands=[operand("1"),
                                                                       operand("1")])),
              call(2, "ArrayOp", c.ArrayOpRequest(op="repeat", operands=[operand("1"),
                                                                         operand("1")],
                                                  axis=t.AxisList(axes=[0])))] * 4
    counts = [call(3, "ArrayOp", c.ArrayOpRequest(op="nonzero", operands=[operand("3")])),
              call(3, "ArrayOp", c.ArrayOpRequest(op="compress", operands=[operand("1"),
                                                                           operand("3")],
                                                  axis=t.AxisList(axes=[0]))),
              call(3, "GetItem", c.GetItemRequest(handle="1", index=[c.IndexItem(array="3")])),
              call(3, "SetItem", c.SetItemRequest(handle="1", index=[c.IndexItem(array="3")],
                                                  value=scalar(7)))] * 4
    return program(1, 1, 4, *shift, *flip, *gather, *counts)


def lost_updates() -> bytes:
    """Two sessions of alice and bob's attached handle all add into alice's array."""
    add = elementwise("add", operand("0"), scalar(1), out="0")
    publish = a.PublishRequest(handle="0", name="lab/x", reader_tenants=["bob"], writable=True)
    bob_adds = [call(2, "Elementwise", elementwise("add", operand("a"), scalar(1), out="a"),
                     session=2)] * 14
    return program(2, 2, 3, *[call(0, "Elementwise", add, session=0)] * 16,
                   *[call(1, "Elementwise", elementwise("add", operand(ALICE_FIRST), scalar(1),
                                                        out=ALICE_FIRST), session=1)] * 16,
                   call(2, "Publish", publish, session=0),
                   call(2, "Attach", a.AttachRequest(name="0"), session=2), *bob_adds)


def sharing() -> bytes:
    """alice publishes to bob (writable) and to everyone (read-only); bob and carol attach,
    read and try to write; carol attaches what was not published to her; alice unpublishes
    while they work. Sessions 0, 1, 2 are alice's, bob's and carol's."""
    return program(
        3, 1, 3,
        call(0, "Publish", a.PublishRequest(handle="0", name="lab/x", reader_tenants=["bob"],
                                            writable=True)),
        call(0, "Publish", a.PublishRequest(handle="1", name="lab/y", all_tenants=True)),
        call(0, "Attach", a.AttachRequest(name="0"), session=1),
        call(0, "SetItem", c.SetItemRequest(handle="a", index=[c.IndexItem(index=0)],
                                            value=scalar(5)), session=1),
        call(0, "View", c.ViewRequest(handle="a", transpose=c.ViewRequest.Transpose()),
             session=1),
        call(0, "Attach", a.AttachRequest(name="0"), session=2),
        call(0, "Attach", a.AttachRequest(name="1"), session=2),
        call(0, "SetItem", c.SetItemRequest(handle="a", index=[c.IndexItem(index=0)],
                                            value=scalar(5)), session=2),
        call(0, "Elementwise", elementwise("negative", operand("a"), out="a"), session=2),
        call(0, "View", c.ViewRequest(handle="a", reshape=c.ViewRequest.Reshape(shape=[-1])),
             session=2),
        call(0, "SetItem", c.SetItemRequest(handle="a", index=[c.IndexItem(index=0)],
                                            value=scalar(5)), session=2),
        call(0, "Upload", upload(a.UploadRequest(header=a.UploadHeader(
            dtype=t.DTYPE_INT32, shape=[5], target_handle="b")),
            a.UploadRequest(chunk=bytes(20))), session=2),
        call(1, "List", a.ListRequest(all_sessions=True, include_shared=True), session=1),
        call(1, "View", c.ViewRequest(handle="0", transpose=c.ViewRequest.Transpose())),
        call(1, "Publish", a.PublishRequest(handle="a", name="lab/view", all_tenants=True)),
        call(1, "Attach", a.AttachRequest(name="lab/view", owner="alice"), session=2),
        call(1, "List", a.ListRequest(include_shared=True), session=2),
        call(2, "Download", a.DownloadRequest(handle="0", chunk_bytes=16)),
        call(2, "Unpublish", a.UnpublishRequest(name="0")),
        call(2, "Free", a.FreeRequest(handles=["0"])),
    )


def foreign() -> bytes:
    """bob names alice's handles and session, and calls with wrong and missing tokens."""
    theirs = ALICE_FIRST
    return program(
        2, 1, 2,
        call(0, "Describe", a.DescribeRequest(handle=theirs), session=1),
        call(0, "Elementwise", elementwise("add", operand("0"), operand(theirs)), session=1),
        call(0, "Elementwise", elementwise("add", operand("0"), scalar(1), out=theirs),
             session=1),
        call(0, "GetItem", c.GetItemRequest(handle="1", index=[c.IndexItem(array=theirs)]),
             session=1),
        call(0, "Download", a.DownloadRequest(handle=theirs), session=1),
        call(0, "Publish", a.PublishRequest(handle=theirs, name="stolen", all_tenants=True),
             session=1),
        call(0, "Free", a.FreeRequest(handles=["0", theirs]), session=1),
        call(0, "Batch", c.BatchRequest(ops=[c.BatchRequest.Op(
            reduce=c.ReduceRequest(op="sum", input=operand(theirs)))], keep=[0]), session=1),
        call(1, "Describe", a.DescribeRequest(handle="0"), session=0, caller=OTHER_TENANT),
        call(1, "CloseSession", session=0, caller=OTHER_TENANT),
        call(1, "Create", a.CreateRequest(shape=[2], ones=a.OnesSpec()), caller=WRONG_TOKEN),
        call(1, "List", a.ListRequest(), caller=WRONG_TOKEN, no_token=True),
        call(1, "OpenSession", a.OpenSessionRequest(client_name="x"), caller=WRONG_TOKEN),
        call(1, "KeepAlive", session=1),
    )


def sessions() -> bytes:
    """Sessions opened, kept alive and closed while other threads compute in them."""
    work = [call(0, "Linalg", c.LinalgRequest(op="svd", operands=[operand("0")],
                                              compute_uv=True), session=1),
            call(0, "Matmul", c.MatmulRequest(a=operand("0"), b=operand("0"), transpose_b=True),
                 session=1),
            call(0, "ArrayOp", c.ArrayOpRequest(op="sort", operands=[operand("0")]), session=1)]
    return program(
        1, 2, 3, *work * 5,
        call(1, "KeepAlive", session=1),
        call(1, "OpenSession", a.OpenSessionRequest(client_name="late", lease_seconds=5)),
        call(1, "Create", a.CreateRequest(shape=[4], ones=a.OnesSpec()), session=2),
        call(1, "CloseSession", session=1),
        call(2, "Batch", c.BatchRequest(ops=[
            c.BatchRequest.Op(create=a.CreateRequest(shape=[5], ones=a.OnesSpec())),
            c.BatchRequest.Op(elementwise=elementwise("add", operand("0"), scalar(1))),
        ], keep=[0, 1]), session=1),
        call(2, "CloseSession", session=2),
    )


def shared_memory() -> bytes:
    """alice and bob register a region and copy through it at once; alice's session closes
    with its region registered. (Regions are registered by a descriptor's ticket now, which
    the harness does not make: the registrations are refused and the copies find no region.)"""
    def register(name: str) -> a.RegisterSharedMemoryRequest:
        return a.RegisterSharedMemoryRequest(region_name=name, byte_size=8192,
                                             descriptor_ticket="0" * 32)

    def copies(thread: int, session: int) -> list[bytes]:
        return [call(thread, "RegisterSharedMemory", register("r"), session=session),
                call(thread, "CopyToSharedMemory", a.SharedMemoryCopyRequest(
                    region_name="r", offset_bytes=64, handle="0"), session=session),
                call(thread, "CopyFromSharedMemory", a.SharedMemoryCopyRequest(
                    region_name="r", offset_bytes=64, dtype=t.DTYPE_FLOAT64, shape=[3, 4]),
                    session=session),
                call(thread, "CopyFromSharedMemory", a.SharedMemoryCopyRequest(
                    region_name="r", offset_bytes=64, handle="0"), session=session)] * 3
    return program(2, 1, 3, *copies(0, 0), *copies(1, 1),
                   call(2, "CloseSession", session=0),
                   call(2, "UnregisterSharedMemory", a.UnregisterSharedMemoryRequest(
                       region_name="r"), session=1))


def collectives() -> bytes:
    """alice copies her first array to device 1 ("a") and all-reduces and all-gathers it with
    the original while another thread rewrites the original and frees the copy, a third closes
    her session, and bob names her array in a collective of his."""
    ranks = ["0", "a"]
    reduce = a.CollectiveRequest(kind=a.CollectiveRequest.ALL_REDUCE, handles=ranks,
                                 op=a.CollectiveRequest.SUM)
    gather = a.CollectiveRequest(kind=a.CollectiveRequest.ALL_GATHER, handles=ranks)
    return program(
        2, 1, 4,
        call(0, "CopyToDevice", a.CopyToDeviceRequest(handle="0", device=1)),
        *[call(0, "Collective", reduce), call(0, "Collective", gather)] * 6,
        *[call(1, "Elementwise", elementwise("add", operand("0"), scalar(1), out="0"))] * 6,
        call(1, "Free", a.FreeRequest(handles=["a"])),
        call(2, "Collective", a.CollectiveRequest(kind=a.CollectiveRequest.BROADCAST,
                                                  handles=["0"], devices=[0, 1])),
        call(2, "CloseSession"),
        call(3, "Collective", a.CollectiveRequest(
            kind=a.CollectiveRequest.ALL_TO_ALL, handles=[ALICE_FIRST, "0"]), session=1),
    )


def main() -> None:
    corpus = pathlib.Path(__file__).resolve().parent / "stateful_corpus"
    corpus.mkdir(exist_ok=True)
    inputs = [*every_seed(), racing_indices(), lost_updates(), sharing(), foreign(), sessions(),
              shared_memory(), collectives()]
    for data in inputs:
        (corpus / hashlib.sha1(data).hexdigest()).write_bytes(data)
    print(f"wrote {len(inputs)} seeds to {corpus}")


if __name__ == "__main__":
    main()
