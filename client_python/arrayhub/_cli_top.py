"""``arrayhub top``: device memory, and memory, arrays and sessions per tenant, refreshed from
the daemon's Prometheus endpoint (``arrayhubd --metrics-listen``).

Other tenants' figures are the operator's to see, so they come from the endpoint the operator
exposes, not from the gRPC API that every tenant can call.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Optional

from arrayhub._cli_format import human_bytes, positive

_CLEAR = "\x1b[H\x1b[2J"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--metrics", default=os.environ.get("ARRAYHUB_METRICS_URL"),
                        help="the daemon's metrics endpoint, as a URL or host:port "
                             "(default $ARRAYHUB_METRICS_URL)")
    parser.add_argument("--interval", type=positive(float), default=2.0,
                        help="seconds between refreshes (default 2)")
    parser.add_argument("--count", type=positive(int),
                        help="refresh this many times, then exit (default: until Ctrl-C)")


def metrics_url(text: str) -> str:
    """'host:9464' -> 'http://host:9464/metrics'; a full URL is kept as it is."""
    if "://" not in text:
        text = "http://" + text
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"'{text}' is not an http(s) URL or host:port")
    return text if parts.path not in ("", "/") else parts._replace(path="/metrics").geturl()


@dataclasses.dataclass
class Snapshot:
    """What one scrape says."""
    version: str = "?"
    backend: str = "?"
    devices: dict[str, list[float]] = dataclasses.field(default_factory=dict)  # [total, free]
    in_use: float = 0
    arrays: float = 0
    sessions: float = 0
    tenants: dict[str, list[float]] = dataclasses.field(default_factory=dict)  # [bytes, arrays,
    #                                                                            sessions]
    requests: float = 0
    errors: float = 0
    taken_at: float = 0


def parse(text: str, taken_at: float) -> Snapshot:
    """Reads the samples top shows from a scrape (Prometheus text format)."""
    from prometheus_client.parser import text_string_to_metric_families

    snap = Snapshot(taken_at=taken_at)
    tenant_columns = {"arrayhub_tenant_memory_bytes": 0, "arrayhub_tenant_arrays": 1,
                      "arrayhub_tenant_sessions": 2}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            name, labels, value = sample.name, sample.labels, sample.value
            if name == "arrayhub_info":
                snap.version, snap.backend = labels.get("version", "?"), labels.get("backend", "?")
            elif name == "arrayhub_device_memory_total_bytes":
                snap.devices.setdefault(labels["device"], [0, 0])[0] = value
            elif name == "arrayhub_device_memory_free_bytes":
                snap.devices.setdefault(labels["device"], [0, 0])[1] = value
            elif name == "arrayhub_memory_in_use_bytes":
                snap.in_use = value
            elif name == "arrayhub_arrays":
                snap.arrays = value
            elif name == "arrayhub_sessions":
                snap.sessions = value
            elif name in tenant_columns:
                snap.tenants.setdefault(labels["tenant"], [0, 0, 0])[tenant_columns[name]] = value
            elif name == "arrayhub_requests_total":
                snap.requests += value
                if labels.get("code") != "OK":
                    snap.errors += value
    return snap


def render(snap: Snapshot, previous: Optional[Snapshot], url: str) -> str:
    lines = [f"arrayhubd {snap.version} ({snap.backend})  {url}  "
             f"{time.strftime('%Y-%m-%d %H:%M:%S')}"]
    for name, (total, free) in sorted(snap.devices.items()):
        lines.append(f"device {name}: {human_bytes(free)} free of {human_bytes(total)}")
    lines.append(f"arrayhubd holds {human_bytes(snap.in_use)} in {snap.arrays:.0f} arrays; "
                 f"{snap.sessions:.0f} sessions")
    rate = ""
    if previous is not None and snap.taken_at > previous.taken_at:
        per_second = (snap.requests - previous.requests) / (snap.taken_at - previous.taken_at)
        rate = f", {per_second:.1f}/s now"
    lines.append(f"requests: {snap.requests:.0f} ({snap.errors:.0f} failed){rate}")
    lines.append("")
    lines.append(f"{'TENANT':24}  {'MEMORY':>10}  {'ARRAYS':>8}  {'SESSIONS':>8}")
    by_memory = sorted(snap.tenants.items(), key=lambda item: (-item[1][0], item[0]))
    for tenant, (memory, arrays, sessions) in by_memory:
        lines.append(f"{tenant:24}  {human_bytes(memory):>10}  {arrays:8.0f}  {sessions:8.0f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if not args.metrics:
        print("arrayhub top: name the daemon's metrics endpoint with --metrics or "
              "$ARRAYHUB_METRICS_URL (arrayhubd --metrics-listen)", file=sys.stderr)
        return 2
    try:
        url = metrics_url(args.metrics)
    except ValueError as error:
        print(f"arrayhub top: {error}", file=sys.stderr)
        return 2
    try:
        import prometheus_client  # noqa: F401 (only checks that it is installed)
    except ImportError:
        print("arrayhub top: needs the prometheus-client package: "
              "pip install 'arrayhub[cli]'", file=sys.stderr)
        return 1
    previous: Optional[Snapshot] = None
    shown = 0
    while True:
        try:
            with urllib.request.urlopen(url, timeout=args.timeout) as response:
                text = response.read().decode("utf-8")
        except (urllib.error.URLError, OSError) as error:
            print(f"arrayhub top: cannot read {url}: {error}", file=sys.stderr)
            return 1
        snap = parse(text, time.monotonic())
        frame = render(snap, previous, url)
        print((_CLEAR if sys.stdout.isatty() else "") + frame, flush=True)
        previous, shown = snap, shown + 1
        if args.count is not None and shown >= args.count:
            return 0
        time.sleep(args.interval)
