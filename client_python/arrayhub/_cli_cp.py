"""``arrayhub cp``: moves arrays between .npy files and the server, by published name.

    arrayhub cp FILE.npy NAME    uploads the file and publishes it as NAME (it outlives the
                                 command's session, until ``arrayhub unpublish``/``unpublish``)
    arrayhub cp NAME FILE.npy    attaches the array published as NAME (by this tenant, or by
                                 --owner) and writes it to the file

The side that ends in ``.npy`` is the file. Progress shows on stderr when stdout is a
terminal (--progress / --no-progress to choose).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

from arrayhub import _ops
from arrayhub._cli_format import human_bytes
from arrayhub._client import Client
from arrayhub._dtypes import from_wire
from arrayhub._errors import ArrayHubError
from arrayhub.v1 import arrays_pb2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="FILE.npy or a published NAME")
    parser.add_argument("destination", metavar="DEST", help="a NAME to publish, or FILE.npy")
    parser.add_argument("--owner", default="",
                        help="the tenant that published NAME (default: your own)")
    parser.add_argument("--readers", default="", metavar="TENANT,...",
                        help="when publishing: other tenants that may attach NAME")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show progress on stderr (default: when stdout is a terminal)")


def _describe(dtype: np.dtype, shape: tuple[int, ...], nbytes: int) -> str:
    return f"{dtype} {shape}, {human_bytes(nbytes)}"


def _publish(client: Client, path: str, name: str, args: argparse.Namespace,
             progress: bool) -> int:
    # Mapped, not read: the upload streams from the page cache.
    data = np.load(path, mmap_mode="r", allow_pickle=False)
    uploaded = _ops.upload(data, client, progress=progress, progress_min_bytes=0)
    readers = [tenant for tenant in args.readers.split(",") if tenant]
    client._rpc("Publish", arrays_pb2.PublishRequest(handle=uploaded.handle, name=name,
                                                     reader_tenants=readers))
    print(f"{path} -> {name} ({_describe(data.dtype, data.shape, data.nbytes)})")
    return 0


def _save(client: Client, name: str, path: str, args: argparse.Namespace,
          progress: bool) -> int:
    attached = client._rpc("Attach", arrays_pb2.AttachRequest(name=name, owner=args.owner)).array
    dtype, shape = from_wire(attached.dtype), tuple(attached.shape)
    # Written beside the destination and renamed over it: a failed copy leaves it as it was.
    handle, partial = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                       prefix=".arrayhub-cp-", suffix=".npy")
    os.close(handle)
    try:
        if attached.nbytes == 0:  # An empty file cannot be mapped.
            np.save(partial, np.empty(shape, dtype=dtype))
        else:  # Received straight into the file's pages.
            mapped = np.lib.format.open_memmap(partial, mode="w+", dtype=dtype, shape=shape)
            client._download(attached.handle, shape, attached.dtype, mapped, progress,
                             progress_min_bytes=0)
            mapped.flush()
            del mapped
        os.replace(partial, path)
    except BaseException:
        os.unlink(partial)
        raise
    print(f"{name} -> {path} ({_describe(dtype, shape, attached.nbytes)})")
    return 0


def run(client: Client, args: argparse.Namespace) -> int:
    progress = args.progress if args.progress is not None else sys.stdout.isatty()
    try:
        if args.source.endswith(".npy"):
            return _publish(client, args.source, args.destination, args, progress)
        if args.destination.endswith(".npy"):
            return _save(client, args.source, args.destination, args, progress)
    except (OSError, ValueError) as error:
        if isinstance(error, ArrayHubError):
            raise
        print(f"arrayhub cp: {error}", file=sys.stderr)
        return 1
    print("arrayhub cp: one side must be a .npy file: cp FILE.npy NAME or cp NAME FILE.npy",
          file=sys.stderr)
    return 2
