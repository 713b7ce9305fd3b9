"""Progress of long transfers on stderr: a tqdm bar when tqdm is installed, else one line
rewritten in place.

Shown for transfers of at least :data:`THRESHOLD_BYTES` when asked for (``progress=True`` on
a transfer, or ``ARRAYHUB_PROGRESS=1``); the ``arrayhub`` command asks for it, for every size,
when its output is a terminal.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Optional

from arrayhub._cli_format import human_bytes

#: Transfers smaller than this show no progress unless the caller sets another minimum.
THRESHOLD_BYTES = 256 << 20
#: Least time between two redraws of the plain line, in seconds.
_REDRAW_SECONDS = 0.2


def wanted(progress: Optional[bool]) -> bool:
    """``progress`` when given, else whether ARRAYHUB_PROGRESS is 1."""
    return progress if progress is not None else os.environ.get("ARRAYHUB_PROGRESS") == "1"


class _Plain:
    """``label: 12.0 MiB / 1.0 GiB (1%)``, redrawn with a carriage return, then a newline."""

    def __init__(self, total: int, label: str) -> None:
        self._total, self._label = total, label
        self._done = 0
        self._drawn_at = 0.0
        self._draw()

    def update(self, count: int) -> None:
        self._done += count
        if time.monotonic() - self._drawn_at >= _REDRAW_SECONDS or self._done >= self._total:
            self._draw()

    def close(self) -> None:
        self._draw()
        sys.stderr.write("\n")
        sys.stderr.flush()

    def _draw(self) -> None:
        percent = 100 * self._done // self._total if self._total else 100
        sys.stderr.write(f"\r{self._label}: {human_bytes(self._done)} / "
                         f"{human_bytes(self._total)} ({percent}%)")
        sys.stderr.flush()
        self._drawn_at = time.monotonic()


class _Silent:
    def update(self, count: int) -> None:
        pass

    def close(self) -> None:
        pass


def bar(total: int, label: str, progress: Optional[bool],
        min_bytes: Optional[int] = None) -> Any:
    """A progress display for a transfer of ``total`` bytes, with ``update(count)`` and
    ``close()``: silent unless :func:`wanted` and ``total`` is at least ``min_bytes`` (default
    :data:`THRESHOLD_BYTES`, read at the call so that tests can lower it)."""
    if not wanted(progress) or total < (THRESHOLD_BYTES if min_bytes is None else min_bytes):
        return _Silent()
    try:
        from tqdm import tqdm
    except ImportError:
        return _Plain(total, label)
    return tqdm(total=total, desc=label, unit="B", unit_scale=True, unit_divisor=1024,
                file=sys.stderr, leave=True)
