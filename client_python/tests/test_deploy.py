"""Checks of the container and deployment files that need no docker engine or cluster: the
Dockerfile builds with the README's scripts on NVIDIA's CUDA 13 Ubuntu 24.04 images and runs
unprivileged with a gRPC health check; install-deps.sh and runtime-packages.sh do what the
image relies on; the Kubernetes manifests (the single-node Deployment and the DaemonSet of
docs/scale-out.md) and the compose file parse as YAML with the expected fields; and every option
the examples set is one arrayhubd accepts."""

from __future__ import annotations

import configparser
import os
import pathlib
import re
import shlex
import subprocess
from typing import Any

import pytest
import yaml

from conftest import BACKEND, DAEMON, Daemon, start_daemon, stop_daemon

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def _dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    instructions = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return instructions


def _stages() -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for instruction in _dockerfile():
        if instruction[0] == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(instruction)
    return stages


def _readme_scripts() -> list[str]:
    """The scripts the README's opening commands run, and the ones those run in turn."""
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^(\./scripts/[\w.-]+)", readme, re.MULTILINE)[:2]
    called = set()
    for command in commands:
        called |= set(re.findall(r"scripts/([\w-]+\.sh)", (ROOT / command).read_text()))
    return sorted(called)


def test_dockerfile_builds_with_the_readmes_scripts_on_cuda_13_ubuntu_24_04() -> None:
    arguments = dict(a.split("=", 1) for k, a in _dockerfile() if k == "ARG" and "=" in a)
    assert arguments["CUDA_VERSION"].startswith("13.")
    build, runtime = _stages()
    assert build[0][1] == "nvidia/cuda:${CUDA_VERSION}-devel-ubuntu24.04 AS build"
    assert runtime[0][1] == "nvidia/cuda:${CUDA_VERSION}-runtime-ubuntu24.04 AS runtime"

    # The README's commands (demo.sh, test.sh) install and build with these two scripts.
    assert {"install-deps.sh", "build.sh"} <= set(_readme_scripts())
    runs = [shlex.split(a) for k, a in build if k == "RUN"]
    # install-deps.sh runs as it is, with no options (cleaning apt's lists may follow).
    assert any(r[0] == "./scripts/install-deps.sh" and r[1:2] in ([], ["&&"]) for r in runs)
    build_run = next(r for r in runs if r[0] == "./scripts/build.sh")
    assert all(a.startswith("-D") for a in build_run[1:build_run.index("&&")]), build_run
    assert "./scripts/runtime-packages.sh" in build_run


def test_dockerfile_runtime_runs_unprivileged_exposes_ports_and_checks_health() -> None:
    runtime = _stages()[1]
    keywords = [k for k, _ in runtime]
    user = [a for k, a in runtime if k == "USER"]
    assert len(user) == 1 and not re.match(r"^(0|root)\b", user[0]), user
    # Nothing after USER may need root.
    assert "RUN" not in keywords[keywords.index("USER"):]
    assert {"50051", "9464"} <= set(" ".join(a for k, a in runtime if k == "EXPOSE").split())
    healthcheck = next(a for k, a in runtime if k == "HEALTHCHECK")
    assert '"/usr/local/bin/arrayhub-health"' in healthcheck.split("CMD", 1)[1]
    env = " ".join(a for k, a in runtime if k == "ENV")
    assert "ARRAYHUB_LISTEN=0.0.0.0:50051" in env and "ARRAYHUB_METRICS_LISTEN=0.0.0.0:9464" in env
    assert "ARRAYHUB_AUTH_FILE=/etc/arrayhub/tokens" in env  # Not loopback: authenticated.
    # Durable publications on the volume, in a directory the daemon's user may make.
    assert "ARRAYHUB_DATA_DIR=/var/lib/arrayhub/data" in env
    assert next(a for k, a in runtime if k == "VOLUME") == "/var/lib/arrayhub"
    assert "install -d -m 0700 -o 10001 -g 10001 /var/lib/arrayhub" in " ".join(
        a for k, a in runtime if k == "RUN")
    assert next(a for k, a in runtime if k == "ENTRYPOINT") == '["/usr/local/bin/arrayhubd"]'


def test_dockerignore_keeps_what_the_build_needs() -> None:
    ignored = [line for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line and not line.startswith("#")]
    for needed in ("scripts", "server", "proto", "client_cpp", "tests", "CMakeLists.txt"):
        assert not any(re.fullmatch(p.rstrip("/").replace("*", ".*"), needed) for p in ignored)
    assert ".git" in ignored and "build*/" in ignored


def _install_deps_list(os_release: str, tmp_path: pathlib.Path) -> subprocess.CompletedProcess:
    release = tmp_path / "os-release"
    release.write_text(os_release)
    return subprocess.run([str(ROOT / "scripts/install-deps.sh"), "--list"],
                          env={**os.environ, "ARRAYHUB_OS_RELEASE": str(release)},
                          capture_output=True, text=True, timeout=60)


def test_install_deps_knows_debian_12_and_the_images_ubuntu_24_04(tmp_path: pathlib.Path) -> None:
    noble = _install_deps_list('ID=ubuntu\nVERSION_ID="24.04"\n', tmp_path)
    bookworm = _install_deps_list('ID=debian\nVERSION_ID="12"\n', tmp_path)
    assert noble.returncode == bookworm.returncode == 0
    assert noble.stderr == bookworm.stderr == ""
    packages = noble.stdout.split()
    # Libraries only as -dev packages: runtime library names differ between the two (t64).
    for package in packages:
        assert not package.startswith("lib") or package.endswith("-dev"), package
    assert {"prometheus-cpp-dev", "libgrpc++-dev", "protobuf-compiler-grpc", "cmake"} <= set(
        packages)
    other = _install_deps_list('ID=fedora\nVERSION_ID="40"\n', tmp_path)
    assert "neither Debian 12 nor Ubuntu 24.04" in other.stderr


def _daemon_links_packaged_grpc() -> bool:
    """Whether the daemon under test loads gRPC from the system's packages (not so for a GPU
    machine's bundle, whose libraries sit beside the binaries)."""
    found = subprocess.run(["ldd", DAEMON], capture_output=True, text=True, timeout=60).stdout
    match = re.search(r"=> (\S*libgrpc\+\+\S*)", found)
    return match is not None and match.group(1).startswith(("/usr/", "/lib"))


packaged_daemon = pytest.mark.skipif(
    not _daemon_links_packaged_grpc(),
    reason="the daemon's libraries come from a bundle, not from packages")


@packaged_daemon
def test_runtime_packages_lists_the_owners_of_the_daemons_libraries() -> None:
    result = subprocess.run([str(ROOT / "scripts/runtime-packages.sh"), DAEMON],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    packages = result.stdout.split()
    assert packages == sorted(set(packages))
    assert any(p.startswith("libgrpc++") for p in packages), packages
    assert any(p.startswith("libprometheus-cpp-core") for p in packages), packages
    assert not any("cuda" in p or "cublas" in p for p in packages), packages
    missing = subprocess.run([str(ROOT / "scripts/runtime-packages.sh"), "/nonexistent"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no file /nonexistent" in missing.stderr


@packaged_daemon
def test_runtime_packages_fails_for_a_library_no_package_owns(tmp_path: pathlib.Path) -> None:
    """A library from outside the package manager would be missing from the image: an error."""
    found = subprocess.run(["ldd", DAEMON], capture_output=True, text=True, timeout=60).stdout
    library = pathlib.Path(re.search(r"=> (\S*libprotobuf\S*)", found).group(1))
    (tmp_path / library.name).write_bytes(library.read_bytes())
    result = subprocess.run([str(ROOT / "scripts/runtime-packages.sh"), DAEMON],
                            env={**os.environ, "LD_LIBRARY_PATH": str(tmp_path)},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert f"no package owns {tmp_path / library.name}" in result.stderr


def _daemon_options() -> set[str]:
    """The ARRAYHUB_* variables arrayhubd --help names."""
    help_text = subprocess.run([DAEMON, "--help"], capture_output=True, text=True,
                               timeout=30).stdout
    return set(re.findall(r"\(Env:(ARRAYHUB_[A-Z_]+)\)", help_text))


def _kubernetes(name: str = "arrayhub.yaml") -> dict[str, dict[str, Any]]:
    documents = list(yaml.safe_load_all((DEPLOY / "kubernetes" / name).read_text()))
    return {document["kind"]: document for document in documents}


def _start_with_config_map(objects: dict[str, dict[str, Any]],
                           tmp_path: pathlib.Path) -> Daemon:
    """A daemon started with the ConfigMap's options and the Secret's token file (addresses
    moved to loopback, the test's backend): the values are ones the daemon takes."""
    tokens = tmp_path / "tokens"
    tokens.write_text(objects["Secret"]["stringData"]["tokens"])
    tokens.chmod(0o440)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARRAYHUB_")}
    env.update(objects["ConfigMap"]["data"], ARRAYHUB_BACKEND=BACKEND,
               ARRAYHUB_AUTH_FILE=str(tokens))
    if "ARRAYHUB_DATA_DIR" in env:
        env["ARRAYHUB_DATA_DIR"] = str(tmp_path / "data")
    return start_daemon(tmp_path / "arrayhubd.log", "--metrics-listen", "127.0.0.1:0", env=env)


def test_kubernetes_manifests_have_the_expected_objects_and_fields() -> None:
    objects = _kubernetes()
    assert set(objects) == {"ConfigMap", "Secret", "PersistentVolumeClaim", "Deployment",
                            "Service"}
    deployment = objects["Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    for limits in (container["resources"]["requests"], container["resources"]["limits"]):
        assert limits["nvidia.com/gpu"] == 1
    assert {"cpu", "memory"} <= set(container["resources"]["limits"])
    assert container["livenessProbe"]["grpc"]["port"] == 50051
    assert container["readinessProbe"]["grpc"] == {"port": 50051,
                                                   "service": "arrayhub.v1.ArrayHub"}
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    # The drain (ARRAYHUB_DRAIN_SECONDS) fits in the grace period before SIGKILL.
    config = objects["ConfigMap"]["data"]
    assert int(config["ARRAYHUB_DRAIN_SECONDS"]) < pod["terminationGracePeriodSeconds"]
    assert container["envFrom"] == [{"configMapRef": {"name": objects["ConfigMap"]["metadata"][
        "name"]}}]
    secret_volume = next(v for v in pod["volumes"] if "secret" in v)
    assert secret_volume["secret"]["secretName"] == objects["Secret"]["metadata"]["name"]
    assert any(m["name"] == secret_volume["name"] for m in container["volumeMounts"])
    # Durable publications are on the claim, which a restarted pod mounts again.
    data_volume = next(v for v in pod["volumes"] if "persistentVolumeClaim" in v)
    claim = objects["PersistentVolumeClaim"]["metadata"]["name"]
    assert data_volume["persistentVolumeClaim"]["claimName"] == claim
    data_mount = next(m for m in container["volumeMounts"] if m["name"] == data_volume["name"])
    assert config["ARRAYHUB_DATA_DIR"].startswith(data_mount["mountPath"] + "/")
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert objects["Service"]["spec"]["selector"] == selector
    ports = {p["name"] for p in container["ports"]}
    assert {p["targetPort"] for p in objects["Service"]["spec"]["ports"]} <= ports


def test_kubernetes_config_map_sets_only_options_the_daemon_has(tmp_path: pathlib.Path) -> None:
    config = _kubernetes()["ConfigMap"]["data"]
    assert set(config) <= _daemon_options(), set(config) - _daemon_options()
    # Listening beyond loopback, the daemon authenticates with the Secret's token file, whose
    # example line has the format the daemon reads.
    objects = _kubernetes()
    mount = objects["Deployment"]["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    token_dir = next(m["mountPath"] for m in mount if m["name"] == "tokens")
    assert config["ARRAYHUB_AUTH_FILE"] == f"{token_dir}/tokens"
    daemon = _start_with_config_map(objects, tmp_path)
    assert "authentication on: 1 token(s)" in daemon.log.read_text()
    stop_daemon(daemon)
    assert daemon.process.returncode == 0


def test_kubernetes_daemonset_runs_a_daemon_per_gpu_node_that_pulls_only_from_its_peers(
        tmp_path: pathlib.Path) -> None:
    objects = _kubernetes("arrayhub-daemonset.yaml")
    assert set(objects) == {"ConfigMap", "Secret", "DaemonSet", "Service"}
    single = _kubernetes()
    # Names of its own: it may share a namespace with the single-node manifest.
    names = {(kind, o["metadata"]["name"]) for kind, o in objects.items()}
    assert not names & {(kind, o["metadata"]["name"]) for kind, o in single.items()}
    daemonset = objects["DaemonSet"]
    pod = daemonset["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    # The image's entrypoint (arrayhubd), the same image as the Deployment's, configured by
    # the ConfigMap and the pod's own address.
    deployment_pod = single["Deployment"]["spec"]["template"]["spec"]
    assert container["image"] == deployment_pod["containers"][0]["image"]
    assert "command" not in container and "args" not in container
    config = objects["ConfigMap"]["data"]
    assert container["envFrom"] == [{"configMapRef": {"name": objects["ConfigMap"]["metadata"][
        "name"]}}]
    env = {variable["name"]: variable for variable in container["env"]}
    assert (set(config) | set(env)) - {"POD_IP"} <= _daemon_options()
    assert env["POD_IP"]["valueFrom"] == {"fieldRef": {"fieldPath": "status.podIP"}}
    port = next(p["containerPort"] for p in container["ports"] if p["name"] == "grpc")
    assert config["ARRAYHUB_LISTEN"] == f"0.0.0.0:{port}"
    assert env["ARRAYHUB_PEER_ADDRESS"]["value"] == f"$(POD_IP):{port}"
    # It pulls from the other daemons' port, and from nowhere else.
    assert all(entry.endswith(f":{port}") for entry in config["ARRAYHUB_PEER_ALLOW"].split(","))
    # On GPU nodes, with a GPU, bounded CPU and memory, and the Deployment's probes.
    assert any("gpu" in label for label in pod["nodeSelector"])
    for limits in (container["resources"]["requests"], container["resources"]["limits"]):
        assert limits["nvidia.com/gpu"] >= 1
    assert {"cpu", "memory"} <= set(container["resources"]["limits"])
    assert container["startupProbe"]["grpc"] == container["livenessProbe"]["grpc"] == {
        "port": port}
    assert container["readinessProbe"]["grpc"] == {"port": port,
                                                   "service": "arrayhub.v1.ArrayHub"}
    assert int(config["ARRAYHUB_DRAIN_SECONDS"]) < pod["terminationGracePeriodSeconds"]
    # Unprivileged, with nothing of the host's.
    security = container["securityContext"]
    assert security.get("privileged", False) is False
    assert security["allowPrivilegeEscalation"] is False
    assert security["readOnlyRootFilesystem"] is True
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert pod["securityContext"] == deployment_pod["securityContext"]
    assert not any(pod.get(key) for key in ("hostNetwork", "hostPID", "hostIPC"))
    assert not any("hostPath" in volume for volume in pod["volumes"])
    assert not any("hostPort" in p for p in container["ports"])
    # The token file from the Secret where ARRAYHUB_AUTH_FILE looks.
    secret_volume = next(v for v in pod["volumes"] if "secret" in v)
    assert secret_volume["secret"]["secretName"] == objects["Secret"]["metadata"]["name"]
    mount = next(m for m in container["volumeMounts"] if m["name"] == secret_volume["name"])
    assert config["ARRAYHUB_AUTH_FILE"] == f"{mount['mountPath']}/tokens"
    # Workers reach the daemon of their own node through the Service.
    service = objects["Service"]["spec"]
    assert service["internalTrafficPolicy"] == "Local"
    labels = daemonset["spec"]["template"]["metadata"]["labels"]
    assert service["selector"] == daemonset["spec"]["selector"]["matchLabels"]
    assert service["selector"].items() <= labels.items()
    assert {p["targetPort"] for p in service["ports"]} <= {p["name"] for p in container["ports"]}
    # The values are valid: a daemon starts with them and logs the daemons it may pull from.
    daemon = _start_with_config_map(objects, tmp_path)
    log = daemon.log.read_text()
    stop_daemon(daemon)
    assert daemon.process.returncode == 0
    assert f"pulls from other daemons: {config['ARRAYHUB_PEER_ALLOW']}" in log
    assert "authentication on: 1 token(s)" in log


def test_compose_file_reserves_a_gpu_and_sets_only_known_options() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    service = compose["services"]["arrayhubd"]
    devices = service["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["driver"] == "nvidia" and "gpu" in devices[0]["capabilities"]
    assert service["build"]["dockerfile"] == "Dockerfile"
    assert (DEPLOY / service["build"]["context"] / "Dockerfile").is_file()
    assert set(service["environment"]) <= _daemon_options()
    # The image's data directory is on a named volume, kept when the container is replaced.
    assert "arrayhub-data:/var/lib/arrayhub" in service["volumes"]
    assert "arrayhub-data" in compose["volumes"]
    assert "arrayhub-health" in " ".join(service["healthcheck"]["test"])
    assert not service["user"].startswith("0")


def test_systemd_unit_and_example_config(tmp_path: pathlib.Path) -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment]
    unit.read_string((DEPLOY / "systemd/arrayhubd.service").read_text())
    service = unit["Service"]
    assert service["ExecStart"] == "/usr/local/bin/arrayhubd --config /etc/arrayhub/arrayhubd.toml"
    assert service["DynamicUser"] == "yes" and service["NoNewPrivileges"] == "yes"
    assert service["KillSignal"] == "SIGTERM"
    assert service["LoadCredential"] == "tokens:/etc/arrayhub/tokens"
    assert service["Environment"] == "ARRAYHUB_AUTH_FILE=%d/tokens ARRAYHUB_DATA_DIR=%S/arrayhub"
    # Durable publications in the state directory, which outlives restarts.
    assert service["StateDirectory"] == "arrayhub" and service["StateDirectoryMode"] == "0700"
    assert unit["Install"]["WantedBy"] == "multi-user.target"

    # The example config is one arrayhubd accepts (unknown keys are errors); its drain fits in
    # the unit's stop timeout.
    example = DEPLOY / "systemd/arrayhubd.toml"
    drain = int(re.search(r"^drain-seconds = (\d+)", example.read_text(), re.MULTILINE).group(1))
    assert drain < int(service["TimeoutStopSec"])
    daemon = start_daemon(tmp_path / "arrayhubd.log", "--config", str(example),
                          "--metrics-listen", "127.0.0.1:0",
                          env={k: v for k, v in os.environ.items()
                               if not k.startswith("ARRAYHUB_")})
    stop_daemon(daemon)
    assert "max rank 64, max array 17179869184 bytes" in daemon.log.read_text()
    assert "tenant-max-disk-bytes" in example.read_text()


def _unit_needs(unit_text: str) -> dict[str, str]:
    """What the systemd unit needs installed before it starts: each absolute path it names,
    as path -> the setting that names it, and its user ("user:NAME") unless it is dynamic."""
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment]
    unit.read_string(unit_text)
    service = unit["Service"]
    needs = {"/etc/systemd/system/arrayhubd.service": "the unit itself"}
    exec_start = shlex.split(service["ExecStart"].lstrip("-@!+:"))
    needs[exec_start[0]] = "ExecStart"
    needs.update({word: f"ExecStart {flag}" for flag, word in zip(exec_start, exec_start[1:])
                  if flag.startswith("--") and word.startswith("/")})
    for credential in service.get("LoadCredential", "").split():
        needs[credential.split(":", 1)[1]] = "LoadCredential"
    for file in service.get("EnvironmentFile", "").split():
        if not file.startswith("-"):  # "-": optional.
            needs[file] = "EnvironmentFile"
    for assignment in shlex.split(service.get("Environment", "")):
        value = assignment.split("=", 1)[1]
        if value.startswith("/"):
            needs[value] = f"Environment {assignment}"
    if service.get("DynamicUser", "no") != "yes" and "User" in service:
        needs[f"user:{service['User']}"] = "User"
    return needs


def _steps_make(readme_text: str) -> dict[str, list[str]]:
    """What the README's systemd steps make: path -> the options of the command that installed
    it (`install`, a redirect), and "user:NAME" for users they add."""
    section = readme_text.split("## A lab's shared server", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL).group(1)
    made: dict[str, list[str]] = {}
    for line in block.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        commands: list[list[str]] = [[]]
        for word in words:
            if word in ("&&", "||", ";", "|"):
                commands.append([])
            else:
                commands[-1].append(word)
        for command in filter(None, commands):
            if ">" in command and command.index(">") + 1 < len(command):
                made[command[command.index(">") + 1]] = []
            if command[0] in ("useradd", "adduser"):
                made[f"user:{command[-1]}"] = command
            if command[0] != "install":
                continue
            options, operands, words_left = [], [], iter(command[1:])
            for word in words_left:
                if word in ("-m", "-o", "-g", "-t", "--mode", "--owner", "--group"):
                    options += [word, next(words_left)]
                elif word.startswith("-"):
                    options.append(word)
                else:
                    operands.append(word)
            if "-d" in options:
                made.update({directory: options for directory in operands})
                continue
            *sources, destination = operands
            # `install SOURCE... DIRECTORY` unless -D or one source names the file itself.
            to_directory = len(sources) > 1 or destination.endswith("/") or (
                "-D" not in options and pathlib.PurePath(destination).suffix == ""
                and pathlib.PurePath(destination).name != pathlib.PurePath(sources[0]).name)
            for source in sources:
                path = (str(pathlib.PurePath(destination) / pathlib.PurePath(source).name)
                        if to_directory else destination)
                made[path] = options
    return made


def _disagreements(unit_text: str, readme_text: str) -> list[str]:
    made = _steps_make(readme_text)
    return [f"{path} ({setting}) is not installed by deploy/README.md's steps"
            for path, setting in _unit_needs(unit_text).items() if path not in made]


def test_systemd_steps_install_everything_the_unit_needs() -> None:
    unit_text = (DEPLOY / "systemd/arrayhubd.service").read_text()
    readme_text = (DEPLOY / "README.md").read_text()
    assert _disagreements(unit_text, readme_text) == []
    needs = _unit_needs(unit_text)
    assert {"/usr/local/bin/arrayhubd", "/etc/arrayhub/arrayhubd.toml",
            "/etc/arrayhub/tokens"} <= set(needs)
    # The token file is root's and no one else's: LoadCredential reads it as root.
    tokens = _steps_make(readme_text)["/etc/arrayhub/tokens"]
    assert tokens[tokens.index("-m") + 1] in ("0600", "600")
    assert tokens[tokens.index("-o") + 1] == "root"

    # The check fails for steps that leave one out, as they once left out the tokens.
    without_tokens = re.sub(r"^install .*/etc/arrayhub/tokens.*$", "", readme_text,
                            flags=re.MULTILINE)
    assert _disagreements(unit_text, without_tokens) == [
        "/etc/arrayhub/tokens (LoadCredential) is not installed by deploy/README.md's steps"]
    # And for a unit that needs a file the steps never make.
    extra = unit_text.replace("[Service]\n", "[Service]\nEnvironmentFile=/etc/arrayhub/env\n")
    assert _disagreements(extra, readme_text) == [
        "/etc/arrayhub/env (EnvironmentFile) is not installed by deploy/README.md's steps"]
