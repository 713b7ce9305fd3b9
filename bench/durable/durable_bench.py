"""Checkpoint and restore of one large durable publication beside the disk's own sequential
bandwidth, measured in the same run on the same filesystem (issue 27).

    python bench/durable/durable_bench.py --daemon build/server/arrayhubd --dir /var/tmp/x \
        [--gib 1] [--repeats 3] [--backend cpu]

Disk: write = a file of the same size written in 8 MiB blocks, then fsync (as `dd
conv=fsync`); read = that file read back in 8 MiB blocks after posix_fadvise(DONTNEED) dropped
it from the page cache. Checkpoint: `publish(durable=True, wait=True)` of an array made on the
server (arange, float64): the snapshot copy, the write through the daemon's writer thread, the
fsyncs and renames; also how long the same call takes to return without `wait` (queued).
Restore: the daemon restarted on the directory (the data file dropped from the page cache
first): time to listen (the manifests), then the first `attach` (read, CRC-32, copy in).
Prints a Markdown table: each figure the median of the repeats, with their range; the ratios
divide the disk's median time by ArrayHub's.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import signal
import statistics
import subprocess
import time

import arrayhub as ah

BLOCK = 8 << 20


def drop_cache(path: pathlib.Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def disk_write(path: pathlib.Path, nbytes: int) -> float:
    block = os.urandom(BLOCK)
    start = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for _ in range(nbytes // BLOCK):
            os.write(fd, block)
        os.fsync(fd)
    finally:
        os.close(fd)
    return time.perf_counter() - start


def disk_read(path: pathlib.Path) -> float:
    drop_cache(path)
    start = time.perf_counter()
    with open(path, "rb", buffering=0) as f:
        buffer = bytearray(BLOCK)
        while f.readinto(buffer):
            pass
    return time.perf_counter() - start


def start_daemon(daemon: str, backend: str, data_dir: pathlib.Path,
                 log: pathlib.Path) -> tuple[subprocess.Popen, str, float]:
    begun = time.perf_counter()
    with log.open("w") as sink:
        process = subprocess.Popen([daemon, "--listen", "127.0.0.1:0", "--backend", backend,
                                    "--data-dir", str(data_dir), "--drain-seconds", "60"],
                                   stdout=sink, stderr=subprocess.STDOUT)
    while True:
        match = re.search(r"listening on \S+:(\d+)", log.read_text())
        if match:
            return process, f"127.0.0.1:{match.group(1)}", time.perf_counter() - begun
        if process.poll() is not None:
            raise SystemExit(log.read_text())
        time.sleep(0.01)


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--daemon", default="build/server/arrayhubd")
    parser.add_argument("--dir", required=True, type=pathlib.Path)
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--backend", default="cpu")
    args = parser.parse_args()
    nbytes = int(args.gib * (1 << 30)) // BLOCK * BLOCK
    shutil.rmtree(args.dir, ignore_errors=True)
    args.dir.mkdir(parents=True)
    data_dir, log = args.dir / "data", args.dir / "arrayhubd.log"
    times: dict[str, list[float]] = {k: [] for k in (
        "disk write+fsync", "disk read (cold)", "checkpoint (publish durable, wait)",
        "publish durable, returns queued", "restart to listening", "restore (first attach)")}
    for _ in range(args.repeats):
        reference = args.dir / "reference.bin"
        times["disk write+fsync"].append(disk_write(reference, nbytes))
        times["disk read (cold)"].append(disk_read(reference))
        reference.unlink()

        process, address, _ = start_daemon(args.daemon, args.backend, data_dir, log)
        with ah.connect(address) as client, client.use():
            x = ah.arange(nbytes // 8, dtype="float64")
            x.get()  # Made before the clock starts.
            start = time.perf_counter()
            x.publish("bench/big", durable=True, wait=True)
            times["checkpoint (publish durable, wait)"].append(time.perf_counter() - start)
            ah.unpublish("bench/big")
            start = time.perf_counter()
            x.publish("bench/big", durable=True)
            times["publish durable, returns queued"].append(time.perf_counter() - start)
            del x
        stop(process)  # The drain finishes the write.
        for npy in data_dir.glob("*.npy"):
            drop_cache(npy)
        process, address, listening = start_daemon(args.daemon, args.backend, data_dir, log)
        times["restart to listening"].append(listening)
        with ah.connect(address) as client, client.use():
            start = time.perf_counter()
            y = ah.attach("bench/big")
            times["restore (first attach)"].append(time.perf_counter() - start)
            assert float(y[-1].get()) == nbytes // 8 - 1
            ah.unpublish("bench/big")
            del y
        stop(process)
    mib = nbytes / (1 << 20)
    write_s = statistics.median(times["disk write+fsync"])
    read_s = statistics.median(times["disk read (cold)"])
    print(f"{mib:.0f} MiB, median of {args.repeats}\n")
    print("| what | seconds, median | range | MB/s | of the disk's |")
    print("|---|---:|---:|---:|---:|")
    for name, samples in times.items():
        seconds = statistics.median(samples)
        rate = nbytes / seconds / 1e6
        disk = {"checkpoint (publish durable, wait)": write_s,
                "restore (first attach)": read_s}.get(name)
        share = f"{disk / seconds:.2f}x" if disk else "-"
        shown = "-" if name.startswith(("publish durable, returns", "restart")) else f"{rate:.0f}"
        spread = f"{min(samples):.2f}-{max(samples):.2f}"
        print(f"| {name} | {seconds:.3f} | {spread} | {shown} | {share} |")
    shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
