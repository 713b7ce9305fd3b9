#!/usr/bin/env python3
"""Checks that the server's includes respect its layers (docs/architecture.md).

Reads every #include of the server's sources (server/, proto/wire/), maps each file to a layer
and fails when an include points the wrong way: to a layer above, or across to a sibling
(host <-> CUDA). gRPC and protobuf headers may appear only in transport, the wire code and the
daemon; CUDA headers only in the CUDA backend; transport calls no Engine::backend(). Prints the layer graph (includes counted per pair
of layers) and each violation. Standard library only: ctest runs it (tests/CMakeLists.txt).

Usage: check_layers.py [ROOT]   (ROOT: the repository; default: this script's parent's parent)
"""
import collections
import pathlib
import re
import sys

# (layer, path prefix), most specific first: a file belongs to the first prefix it starts with.
LAYERS = [
    ("common", "server/common/"),
    ("kernel", "server/kernel/"),  # The user-kernel language: parsed, checked, no memory.
    ("host", "server/backend/host/"),
    ("cuda", "server/backend/cuda/"),
    ("backends", "server/backend/backend_factory."),  # Picks host or CUDA for the daemon.
    ("interface", "server/backend/"),
    ("core", "server/core/"),
    ("transport", "server/transport/"),
    ("wire", "proto/wire/"),
    ("daemon", "server/"),  # main.cc and its helpers: the composition root.
]
ORDER = [name for name, _ in LAYERS]

# The layers each layer may include besides its own.
ALLOWED = {
    "common": set(),
    "kernel": {"common"},
    "interface": {"common", "kernel"},
    "core": {"common", "kernel", "interface"},
    "host": {"common", "kernel", "interface"},
    "cuda": {"common", "kernel", "interface"},
    "backends": {"common", "kernel", "interface", "host", "cuda"},
    "wire": set(),
    "transport": {"common", "core", "wire"},
    "daemon": set(ORDER),
}

# External headers only some layers may see, by the include's path.
GRPC = re.compile(r"^(grpcpp/|grpc/|google/protobuf/)|\.pb\.h$")
CUDA = re.compile(r"^(cuda|cub/|cuComplex|cufft|curand|cublas|cusolver|nvrtc|thrust/|vector_types)")
EXTERNAL = [
    ("grpc", GRPC, {"transport", "wire", "daemon"}),
    ("cuda", CUDA, {"cuda"}),
]

# Code a layer may not contain besides includes: transport asks the engine's queries about the
# backend (Engine::backend_name, Devices, ...), never Engine::backend() itself.
CALLS = [
    ("transport", re.compile(r"\bbackend\(\)"), "transport reaches the backend only through core"),
]

SOURCES = ("server", "proto/wire")
SUFFIXES = {".h", ".cc", ".cu", ".cuh", ".inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(path):
    for name, prefix in LAYERS:
        if path.startswith(prefix):
            return name
    return None


def main():
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent
    graph = collections.Counter()
    violations = []
    for top in SOURCES:
        for file in sorted((root / top).rglob("*")):
            if file.suffix not in SUFFIXES or not file.is_file():
                continue
            path = file.relative_to(root).as_posix()
            source = layer_of(path)
            lines = file.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines, 1):
                for layer, pattern, why in CALLS:
                    if source == layer and pattern.search(line):
                        violations.append(f"{path}:{number}: {line.strip()} ({why})")
                match = INCLUDE.match(line)
                if match is None:
                    continue
                target = match.group(2)
                where = f"{path}:{number}: {target}"
                for group, pattern, allowed in EXTERNAL:
                    if pattern.search(target) and source not in allowed:
                        violations.append(f"{where} ({source} may not include {group} headers)")
                target_layer = layer_of(target) if match.group(1) == '"' else None
                if target_layer is None:
                    continue
                graph[source, target_layer] += 1
                if target_layer != source and target_layer not in ALLOWED[source]:
                    violations.append(f"{where} ({source} -> {target_layer})")

    print("includes by layer (from -> to: count)")
    for (source, target), count in sorted(
        graph.items(), key=lambda item: (ORDER.index(item[0][0]), ORDER.index(item[0][1]))
    ):
        mark = "" if source == target or target in ALLOWED[source] else "   VIOLATION"
        print(f"  {source:>9} -> {target:<9} {count:4}{mark}")
    for violation in violations:
        print(f"violation: {violation}")
    print(f"{len(violations)} violation(s)")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
