"""What the CuPy peer scripts share: CUDA-event timing and writing "name milliseconds" lines
for the C++ benchmarks' --cupy option."""
import argparse

import cupy as cp


def median_ms(work, repeats, warmup=5):
    """Median milliseconds of `repeats` runs of `work` after `warmup` runs, timed with CUDA
    events on CuPy's current stream."""
    for _ in range(warmup):
        work()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(repeats):
        start.record()
        work()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    times.sort()
    return times[len(times) // 2]


def parse_args(default_repeats):
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--repeats", type=int, default=default_repeats)
    return parser.parse_args()


def write_times(path, work, repeats):
    """Times each entry of `work` (name -> callable) and writes the medians to `path`."""
    with open(path, "w") as f:
        for name, run in work.items():
            ms = median_ms(run, repeats)
            f.write(f"{name} {ms:.6f}\n")
            print(f"cupy {name}: {ms:.3f} ms", flush=True)
