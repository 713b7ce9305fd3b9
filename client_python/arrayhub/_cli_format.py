"""Argument checks and number formatting shared by the ``arrayhub`` command's parts."""

from __future__ import annotations

import argparse
from typing import Callable


def human_bytes(count: float) -> str:
    """1536 -> '1.5 KiB'; 100 -> '100 B'."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(count) < 1024:
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} TiB"


def positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    """An argparse type: a number of ``kind`` (int or float) greater than zero."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {kind.__name__}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, not {text}")
        return value
    parse.__name__ = kind.__name__
    return parse
