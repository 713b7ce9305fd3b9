"""``arrayhub``: look at and manage an arrayhubd from a shell.

    arrayhub info                 the server: version, backend, devices, memory, limits
    arrayhub ls                   the tenant's arrays, in every session
    arrayhub rm HANDLE...         frees arrays (all or none)
    arrayhub top --metrics URL    live memory, arrays and sessions per tenant, refreshing
    arrayhub bench                round-trip latency and transfer rates against the server

The server is ``--address`` or ``$ARRAYHUB_ADDRESS`` (default ``localhost:50051``), the token
``--token`` or ``$ARRAYHUB_TOKEN``. Exit status: 0 on success, 1 when the server refused or
could not be reached, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Optional, Sequence

from google.protobuf import json_format

from arrayhub import _cli_bench, _cli_top
from arrayhub._cli_format import human_bytes, positive
from arrayhub._client import Client, connect
from arrayhub._dtypes import from_wire
from arrayhub._errors import ArrayHubError
from arrayhub.v1 import arrays_pb2


def _info(client: Client, args: argparse.Namespace) -> int:
    info = client.server_info()
    if args.json:
        print(json.dumps(json_format.MessageToDict(info, preserving_proto_field_name=True),
                         indent=2))
        return 0
    print(f"arrayhubd {info.version} at {client.address}, backend {info.backend}")
    for device in info.devices:
        print(f"device {device.name}: {device.description}; "
              f"{human_bytes(device.free_memory_bytes)} free of "
              f"{human_bytes(device.total_memory_bytes)}")
    print(f"in use: {human_bytes(info.bytes_in_use)} in {info.arrays} arrays, "
          f"{info.sessions} sessions (tenant {info.tenant}: "
          f"{human_bytes(info.tenant_bytes_in_use)})")
    limits = info.limits
    print(f"limits: rank {limits.max_rank}, array {human_bytes(limits.max_array_bytes)}, "
          f"chunk {human_bytes(limits.max_chunk_bytes)} "
          f"(default {human_bytes(limits.default_chunk_bytes)}), "
          f"message {human_bytes(limits.max_message_bytes)}")
    return 0


def _ls(client: Client, args: argparse.Namespace) -> int:
    arrays = sorted(client.list_arrays(all_sessions=True), key=lambda a: a.handle)
    if args.json:
        print(json.dumps([json_format.MessageToDict(a, preserving_proto_field_name=True)
                          for a in arrays], indent=2))
        return 0
    print(f"{'HANDLE':32}  {'DTYPE':10}  {'SHAPE':18}  {'BYTES':>10}  NAME")
    for array in arrays:
        shape = "(" + ", ".join(str(n) for n in array.shape) + ("," if len(array.shape) == 1
                                                                  else "") + ")"
        print(f"{array.handle:32}  {str(from_wire(array.dtype)):10}  {shape:18}  "
              f"{human_bytes(array.nbytes):>10}  {array.name}")
    return 0


def _rm(client: Client, args: argparse.Namespace) -> int:
    response = client._rpc("Free", arrays_pb2.FreeRequest(handles=args.handles))
    print(f"freed {response.freed} array{'s' if response.freed != 1 else ''}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arrayhub", description="Look at and manage an arrayhubd.",
        epilog="The server is --address or $ARRAYHUB_ADDRESS (default localhost:50051).")
    parser.add_argument("--address", help="server host:port (default $ARRAYHUB_ADDRESS)")
    parser.add_argument("--token", help="bearer token (default $ARRAYHUB_TOKEN)")
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
        with connect(args.address, args.token, client_name="arrayhub-cli",
                     timeout=args.timeout) as client:
            return args.run(client, args)
    except ArrayHubError as error:
        print(f"arrayhub {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
