"""``cupyx.profiler.benchmark`` for arrayhub: times a function on this host and on the
server.

``gpu_times`` come from :class:`arrayhub.cuda.Event` pairs recorded around each call, as
CuPy's do: the events are the server's, queued in the session's order with the call's
operations, so each is the server's time for the work the call issued (on the GPU, CUDA
events on the session's stream), without the client's time or round trips.
``cpu_times`` are the host time of the call alone (``time.perf_counter``), which with
pipelining is the time to issue the operations, not to run them. ``spill_wait`` is the part of
a run, on average, that its calls waited on the server for spilled arrays to come back
(docs/operations.md, "Spilling"): the tenant's count on the server
(``ServerInfo.tenant_spill_wait_seconds``) before and after the runs, so other clients of the
same tenant add to it.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Optional

import numpy as np

from arrayhub import cuda
from arrayhub._client import get_client

__all__ = ["benchmark"]


class _PerfCaseResult:
    """The times :func:`benchmark` took, in seconds; its str is CuPy's summary."""

    def __init__(self, name: str, ts: np.ndarray, devices: tuple[int, ...],
                 spill_wait: float = 0.0) -> None:
        self.name = name
        self._ts = ts
        self._devices = devices
        self._spill_wait = spill_wait

    @property
    def spill_wait(self) -> float:
        """Seconds per run, on average, that the runs' calls waited for spilled arrays."""
        return self._spill_wait

    @property
    def cpu_times(self) -> np.ndarray:
        """Shape ``(n_repeat,)``: host time of each call."""
        return self._ts[0]

    @property
    def gpu_times(self) -> np.ndarray:
        """Shape ``(len(devices), n_repeat)``: each call's time between two Events."""
        return self._ts[1:]

    @staticmethod
    def _to_str_per_item(device_name: str, t: np.ndarray) -> str:
        t_us = t * 1e6
        s = f"    {device_name}: {t_us.mean():9.03f} us"
        if t.size > 1:
            s += (f"   +/- {t_us.std():6.03f} (min: {t_us.min():9.03f} / "
                  f"max: {t_us.max():9.03f}) us")
        return s

    def to_str(self, show_gpu: bool = False) -> str:
        """CuPy's one-line summary; with ``show_gpu`` the Event times too."""
        results = [self._to_str_per_item("CPU", self._ts[0])]
        if show_gpu:
            for i, device in enumerate(self._devices):
                results.append(self._to_str_per_item(f"GPU-{device}", self._ts[1 + i]))
        if self._spill_wait > 0:
            results.append(f"   spill waits: {self._spill_wait * 1e6:9.03f} us")
        return "{:<20s}:{}".format(self.name, " ".join(results))

    def __str__(self) -> str:
        return self.to_str(show_gpu=True)

    __repr__ = __str__


def benchmark(func: Callable[..., Any], args: tuple[Any, ...] = (),
              kwargs: Optional[dict[str, Any]] = None, n_repeat: int = 10000, *,
              name: Optional[str] = None, n_warmup: int = 10,
              max_duration: float = math.inf,
              devices: Optional[tuple[int, ...]] = None) -> _PerfCaseResult:
    """Calls ``func(*args, **kwargs)`` ``n_warmup`` times untimed, then up to ``n_repeat``
    times (fewer once ``max_duration`` seconds have passed), timing each on the host and
    between Events; arguments and errors as ``cupyx.profiler.benchmark``."""
    kwargs = {} if kwargs is None else kwargs
    if name is None:
        name = func.__name__
    if devices is None:
        devices = (cuda.get_device_id(),)
    if not callable(func):
        raise ValueError("`func` should be a callable object.")
    if not isinstance(args, tuple):
        raise ValueError("`args` should be of tuple type.")
    if not isinstance(kwargs, dict):
        raise ValueError("`kwargs` should be of dict type.")
    if not isinstance(n_repeat, int):
        raise ValueError("`n_repeat` should be an integer.")
    if not isinstance(name, str):
        raise ValueError("`name` should be a string.")
    if not isinstance(n_warmup, int):
        raise ValueError("`n_warmup` should be an integer.")
    if not np.isreal(max_duration):
        raise ValueError("`max_duration` should be given in seconds")
    if not isinstance(devices, tuple):
        raise ValueError("`devices` should be of tuple type")
    return _repeat(func, args, kwargs, n_repeat, name, n_warmup, max_duration, devices)


def _record(events: list[cuda.Event], devices: tuple[int, ...]) -> None:
    for event, device in zip(events, devices):
        with cuda.Device(device):
            event.record()


def _repeat(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
            n_repeat: int, name: str, n_warmup: int, max_duration: float,
            devices: tuple[int, ...]) -> _PerfCaseResult:
    starts = [cuda.Event() for _ in devices]
    ends = [cuda.Event() for _ in devices]
    for _ in range(n_warmup):
        func(*args, **kwargs)
    client = get_client()
    waited_before = client.server_info().tenant_spill_wait_seconds
    cpu_times: list[float] = []
    gpu_times: list[list[float]] = [[] for _ in devices]
    duration = 0.0
    for _ in range(n_repeat):
        _record(starts, devices)
        t1 = time.perf_counter()
        func(*args, **kwargs)
        t2 = time.perf_counter()
        cpu_times.append(t2 - t1)
        _record(ends, devices)
        for times, start, end in zip(gpu_times, starts, ends):
            times.append(cuda.get_elapsed_time(start, end) * 1e-3)
        duration += time.perf_counter() - t1
        if duration > max_duration:
            break
    waited = client.server_info().tenant_spill_wait_seconds - waited_before
    ts = np.asarray([cpu_times] + gpu_times, dtype=np.float64)
    return _PerfCaseResult(name, ts, devices=devices, spill_wait=waited / max(len(cpu_times), 1))
