"""The median time of a call, for the microbenchmarks of bench/user (read_cost.py,
stream_vs_unary.py)."""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable


def median_us(call: Callable[[], Any], repeats: int, warmup: int) -> float:
    """Median wall time of ``call()`` in microseconds over ``repeats`` runs, after ``warmup``
    untimed ones."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6
