"""``arrayhub``: look at and manage an arrayhubd from a shell.

    arrayhub info                 the server: version, backend, devices, memory, limits
    arrayhub ls                   the tenant's arrays, in every session, and its publications
    arrayhub rm HANDLE...         frees arrays (all or none)
    arrayhub cp FILE.npy NAME     uploads a file and publishes it as NAME
    arrayhub cp NAME FILE.npy     writes the array published as NAME to a file
    arrayhub unpublish NAME       withdraws a name (the memory goes once nothing holds it)
    arrayhub checkpoint [--wait]  writes all the tenant's publications to the data directory
    arrayhub top --metrics URL    live memory, arrays and sessions per tenant, refreshing
    arrayhub bench                round-trip latency and transfer rates against the server

The server is ``--address`` or ``$ARRAYHUB_ADDRESS`` (default ``localhost:50051``); the token
``--token``, ``--token-file``, ``$ARRAYHUB_TOKEN`` or ``$ARRAYHUB_TOKEN_FILE``; TLS
``--tls-ca`` (``--tls-cert``/``--tls-key`` for mutual TLS) or ``$ARRAYHUB_TLS_CA``
(``$ARRAYHUB_TLS_CERT``/``$ARRAYHUB_TLS_KEY``), or ``--tls``/``ARRAYHUB_TLS=1`` for the
system's roots (see arrayhub/_connect_options.py). Exit status: 0 on success, 1 when the
server refused or could not be reached, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Optional, Sequence

from arrayhub import _cli_bench, _cli_cp, _cli_top, _connect_options
from arrayhub._cli_format import human_bytes, positive
from arrayhub._cli_json import plain
from arrayhub._client import Client, connect
from arrayhub._dtypes import from_wire
from arrayhub._errors import ArrayHubError
from arrayhub.v1 import arrays_pb2


def _info(client: Client, args: argparse.Namespace) -> int:
    info = client.server_info()
    if args.json:
        print(json.dumps(plain(info), indent=2))
        return 0
    print(f"arrayhubd {info.version} at {client.address}, backend {info.backend}")
    for index, device in enumerate(info.devices):
        print(f"device {index} {device.name}: {device.description}; "
              f"{human_bytes(device.free_memory_bytes)} free of "
              f"{human_bytes(device.total_memory_bytes)}; arrayhubd holds "
              f"{human_bytes(device.bytes_in_use)}, {device.sessions} sessions")
    print(f"in use: {human_bytes(info.bytes_in_use)} in {info.arrays} arrays, "
          f"{info.sessions} sessions (tenant {info.tenant}: "
          f"{human_bytes(info.tenant_bytes_in_use)}, "
          f"{human_bytes(info.tenant_disk_bytes)} of disk)")
    spilled = info.tenant_spilled_host_bytes + info.tenant_spilled_disk_bytes
    if spilled:
        print(f"spilled out of device memory (tenant {info.tenant}): "
              f"{human_bytes(info.tenant_spilled_host_bytes)} to host memory, "
              f"{human_bytes(info.tenant_spilled_disk_bytes)} to disk")
    limits = info.limits
    print(f"limits: rank {limits.max_rank}, array {human_bytes(limits.max_array_bytes)}, "
          f"chunk {human_bytes(limits.max_chunk_bytes)} "
          f"(default {human_bytes(limits.default_chunk_bytes)}), "
          f"message {human_bytes(limits.max_message_bytes)}")
    return 0


def _ls(client: Client, args: argparse.Namespace) -> int:
    # Publications have no handle (they outlive the session that made them): after the
    # handles, by owner and name.
    arrays = sorted(client.list_arrays(all_sessions=True, include_shared=True),
                    key=lambda a: (not a.handle, a.handle, a.owner, a.name))
    if args.json:
        print(json.dumps([plain(a) for a in arrays], indent=2))
        return 0
    print(f"{'HANDLE':32}  {'DTYPE':10}  {'SHAPE':18}  {'BYTES':>10}  {'OWNER':12}  NAME")
    for array in arrays:
        shape = "(" + ", ".join(str(n) for n in array.shape) + ("," if len(array.shape) == 1
                                                                  else "") + ")"
        print(f"{array.handle or '-':32}  {str(from_wire(array.dtype)):10}  {shape:18}  "
              f"{human_bytes(array.nbytes):>10}  {array.owner:12}  {array.name}")
    return 0


def _rm(client: Client, args: argparse.Namespace) -> int:
    response = client._rpc("Free", arrays_pb2.FreeRequest(handles=args.handles))
    print(f"freed {response.freed} array{'s' if response.freed != 1 else ''}")
    return 0


def _checkpoint(client: Client, args: argparse.Namespace) -> int:
    response = client._rpc("Checkpoint", arrays_pb2.CheckpointRequest(wait=args.wait))
    state = "written" if args.wait else "queued"
    print(f"{response.publications} publication(s), {human_bytes(response.bytes)} {state}; "
          f"the tenant uses {human_bytes(response.tenant_disk_bytes)} of disk")
    return 0


def _unpublish(client: Client, args: argparse.Namespace) -> int:
    client._rpc("Unpublish", arrays_pb2.UnpublishRequest(name=args.name))
    print(f"unpublished {args.name}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arrayhub", description="Look at and manage an arrayhubd.",
        epilog="Each option defaults to its ARRAYHUB_* environment variable "
               "(ARRAYHUB_ADDRESS, default localhost:50051).")
    parser.add_argument("--address", help="server host:port (default $ARRAYHUB_ADDRESS)")
    parser.add_argument("--token", help="bearer token (default $ARRAYHUB_TOKEN)")
    parser.add_argument("--token-file", metavar="FILE",
                        help="file holding the bearer token (default $ARRAYHUB_TOKEN_FILE)")
    parser.add_argument("--tls-ca", metavar="PEM",
                        help="CA certificate to trust; turns TLS on (default $ARRAYHUB_TLS_CA)")
    parser.add_argument("--tls-cert", metavar="PEM",
                        help="client certificate for mutual TLS (default $ARRAYHUB_TLS_CERT)")
    parser.add_argument("--tls-key", metavar="PEM",
                        help="its private key (default $ARRAYHUB_TLS_KEY)")
    parser.add_argument("--tls", action="store_true",
                        help="TLS with the system's root certificates (default $ARRAYHUB_TLS=1)")
    parser.add_argument("--timeout", type=positive(float), default=10.0,
                        help="seconds to wait for the server to answer (default 10)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    info = commands.add_parser("info", help="version, backend, devices, memory and limits")
    info.add_argument("--json", action="store_true", help="the ServerInfo message as JSON")
    info.set_defaults(run=_info)

    ls = commands.add_parser("ls", help="the tenant's arrays, in every session")
    ls.add_argument("--json", action="store_true", help="the ArrayInfo messages as JSON")
    ls.set_defaults(run=_ls)

    rm = commands.add_parser("rm", help="free arrays by handle (all or none)")
    rm.add_argument("handles", nargs="+", metavar="HANDLE")
    rm.set_defaults(run=_rm)

    cp = commands.add_parser("cp", help="FILE.npy NAME publishes a file; NAME FILE.npy saves one")
    _cli_cp.add_arguments(cp)
    cp.set_defaults(run=_cli_cp.run)

    unpublish = commands.add_parser("unpublish", help="withdraw a published name")
    unpublish.add_argument("name", metavar="NAME")
    unpublish.set_defaults(run=_unpublish)

    checkpoint = commands.add_parser(
        "checkpoint", help="write every publication of the tenant to the server's data directory")
    checkpoint.add_argument("--wait", action="store_true",
                            help="return once the writes are on disk, not once queued")
    checkpoint.set_defaults(run=_checkpoint)

    top = commands.add_parser(
        "top", help="live memory, arrays and sessions per tenant (from the metrics endpoint)")
    _cli_top.add_arguments(top)

    bench = commands.add_parser("bench", help="round-trip latency and transfer rates")
    _cli_bench.add_arguments(bench)
    bench.set_defaults(run=_cli_bench.run)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "top":  # Reads the metrics endpoint; needs no session.
            return _cli_top.run(args)
        tls = _connect_options.tls(None, args.tls_ca, args.tls_cert, args.tls_key)
        tls = True if args.tls and tls is False else tls
        with connect(args.address, args.token, tls=tls, token_file=args.token_file,
                     client_name="arrayhub-cli", timeout=args.timeout) as client:
            return args.run(client, args)
    except ArrayHubError as error:
        print(f"arrayhub {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
