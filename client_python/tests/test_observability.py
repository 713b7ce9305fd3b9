"""What an operator's tools see of a running daemon: the Prometheus endpoint (scraped and
parsed by the Prometheus client library's parser), server reflection, the health probe used
by container health checks, and the per-request debug log."""

from __future__ import annotations

import pathlib
import re
import subprocess
from typing import Iterator

import grpc
import numpy as np
import pytest
from google.protobuf import descriptor_pool

# grpcio-reflection and prometheus_client are test dependencies of CI's venv; GPU machines may
# lack them.
ProtoReflectionDescriptorDatabase = pytest.importorskip(
    "grpc_reflection.v1alpha.proto_reflection_descriptor_database"
).ProtoReflectionDescriptorDatabase
text_string_to_metric_families = pytest.importorskip(
    "prometheus_client.parser").text_string_to_metric_families

import arrayhub
from conftest import DAEMON, Daemon, start_daemon, stop_daemon
from ops_helpers import metrics_url, scrape

PROBE = str(pathlib.Path(DAEMON).with_name("arrayhub-health"))


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon with a metrics endpoint and the debug request log."""
    log = tmp_path_factory.mktemp("observed") / "arrayhubd.log"
    daemon = start_daemon(log, "--metrics-listen", "127.0.0.1:0", log_level="debug")
    yield daemon
    stop_daemon(daemon)


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape by (name, labels); parsing fails on malformed text."""
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def test_metrics_endpoint_reports_requests_bytes_memory_and_tenants(
        observed: Daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    url = metrics_url(observed)
    monkeypatch.setenv("ARRAYHUB_SHARED_MEMORY", "0")  # Upload and Download, streamed.
    with arrayhub.connect(observed.address, client_name="metrics-test") as client, client.use():
        data = np.arange(300_000, dtype=np.float64)
        array = arrayhub.asarray(data)
        np.testing.assert_array_equal(array.get(), data)
        arrayhub.set_sync(True)  # a failed unary Create (queued, it would ride a Batch)
        try:
            with pytest.raises(arrayhub.ArrayHubValueError):
                arrayhub.zeros((3, -2))
        finally:
            arrayhub.set_sync(False)
        text = scrape(url)
    samples = _samples(text)

    def value(name: str, **labels: str) -> float:
        return samples[(name, frozenset(labels.items()))]

    service = "arrayhub.v1.ArrayHub"
    assert value("arrayhub_requests_total", service=service, method="Upload", code="OK") >= 1
    assert value("arrayhub_requests_total", service=service, method="Create",
                 code="INVALID_ARGUMENT") >= 1
    assert value("arrayhub_request_duration_seconds_count", service=service,
                 method="Upload") >= 1
    assert value("arrayhub_transfer_bytes_total", direction="upload") >= data.nbytes
    assert value("arrayhub_transfer_bytes_total", direction="download") >= data.nbytes
    assert value("arrayhub_tenant_memory_bytes", tenant="anonymous") >= data.nbytes
    assert value("arrayhub_tenant_arrays", tenant="anonymous") >= 1
    assert value("arrayhub_tenant_sessions", tenant="anonymous") >= 1
    assert value("arrayhub_memory_in_use_bytes") >= data.nbytes
    assert value("arrayhub_sessions") >= 1
    assert any(name == "arrayhub_device_memory_free_bytes" for name, _ in samples)
    # Every family is announced with HELP and TYPE.
    for family in re.findall(r"^# TYPE (\S+) ", text, re.MULTILINE):
        assert f"# HELP {family} " in text


def test_reflection_describes_the_arrayhub_service(observed: Daemon) -> None:
    with grpc.insecure_channel(observed.address) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        assert "arrayhub.v1.ArrayHub" in database.get_services()
        pool = descriptor_pool.DescriptorPool(database)
        service = pool.FindServiceByName("arrayhub.v1.ArrayHub")
        assert "GetServerInfo" in [method.name for method in service.methods]


def test_health_probe_exits_0_only_for_a_serving_server(observed: Daemon) -> None:
    serving = subprocess.run([PROBE, "--address", observed.address], capture_output=True,
                             text=True, timeout=30)
    assert (serving.returncode, serving.stdout.strip()) == (0, "SERVING")
    named = subprocess.run([PROBE, "--address", observed.address, "--service",
                            "arrayhub.v1.ArrayHub"], capture_output=True, timeout=30)
    assert named.returncode == 0
    unknown = subprocess.run([PROBE, "--address", observed.address, "--service", "nope"],
                             capture_output=True, text=True, timeout=30)
    assert unknown.returncode == 1 and "service name unknown" in unknown.stderr
    nobody = subprocess.run([PROBE, "--address", "127.0.0.1:1", "--timeout", "2"],
                            capture_output=True, text=True, timeout=30)
    assert nobody.returncode == 1 and "127.0.0.1:1" in nobody.stderr
    usage = subprocess.run([PROBE, "--timeout", "0"], capture_output=True, timeout=30)
    assert usage.returncode == 2


def test_debug_log_has_one_line_per_request_without_payloads_or_session_ids(
        observed: Daemon) -> None:
    secret = 1234567.875
    with arrayhub.connect(observed.address, client_name="log-test") as client, client.use():
        arrayhub.full((4,), secret)
        session_id = client.session_id
    log = observed.log.read_text()
    # The pipelined client sends the Create in a Batch on its batch lane or BatchStream (a
    # line per batch); ARRAYHUB_SYNC=1 sends it alone.
    pattern = (r"(rpc /arrayhub.v1.ArrayHub/(Create|Batch) OK \d+ us request=[0-9a-f]{16}"
               r"|batch on a (stream|lane): 1 ops OK \d+ us) tenant=anonymous$")
    lines = [line for line in log.splitlines() if re.search(pattern, line)]
    assert lines, log
    assert session_id not in log
    assert str(secret) not in log
