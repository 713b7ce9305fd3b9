"""Random arrays made on the server (Create RPC with a RandomSpec), like numpy.random.

The server generates the values: cuRAND on the GPU backend, a counter-based generator on the
CPU backend. Differences from NumPy:

- For the same seed the values differ from NumPy's (and between backends); on one backend
  the same seed gives the same sequence of arrays.
- ``size=None`` gives a 0-d array, not a Python scalar (as CuPy).
- Bounds and parameters are scalars (NumPy also takes arrays).
"""

from __future__ import annotations

import operator
import threading
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._creation import create
from arrayhub._ndarray import ndarray
from arrayhub.v1 import arrays_pb2

__all__ = ["Generator", "default_rng", "seed", "random", "random_sample", "rand", "randn",
           "uniform", "normal", "standard_normal", "integers", "randint"]

SizeLike = Union[None, int, Sequence[int]]
SeedLike = Union[None, int, Sequence[int], np.random.SeedSequence]


class Generator:
    """Draws random server arrays, with numpy.random.Generator's methods.

    With a seed, every call asks the server for values from a fresh 64-bit seed derived from
    ``numpy.random.SeedSequence(seed)``, so successive calls differ and the whole sequence
    repeats for the same seed. Without one, the server seeds each call from its entropy
    source.
    """

    def __init__(self, seed: SeedLike = None) -> None:
        if seed is None or isinstance(seed, np.random.SeedSequence):
            self._seeds: Optional[np.random.SeedSequence] = seed
        else:
            self._seeds = np.random.SeedSequence(seed)
        self._lock = threading.Lock()

    def _draw(self, size: SizeLike, dtype: DTypeLike | None, **distribution: Any) -> ndarray:
        spec = arrays_pb2.RandomSpec(**distribution)
        if self._seeds is not None:
            with self._lock:
                child = self._seeds.spawn(1)[0]
            spec.has_seed = True
            spec.seed = int(child.generate_state(1, np.uint64)[0])
        shape = () if size is None else _ops.shape_tuple(size)
        return create(shape, dtype, random=spec)

    def random(self, size: SizeLike = None, dtype: DTypeLike = np.float64) -> ndarray:
        """Uniform floats in [0, 1)."""
        return self.uniform(0.0, 1.0, size, dtype)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: SizeLike = None,
                dtype: DTypeLike = np.float64) -> ndarray:
        """Uniform floats in [low, high). ``dtype`` is an extension NumPy's uniform lacks."""
        return self._draw(size, dtype, uniform=arrays_pb2.RandomSpec.Uniform(
            low=float(low), high=float(high)))

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: SizeLike = None,
               dtype: DTypeLike = np.float64) -> ndarray:
        """Normal floats with mean ``loc`` and standard deviation ``scale``."""
        return self._draw(size, dtype, normal=arrays_pb2.RandomSpec.Normal(
            mean=float(loc), stddev=float(scale)))

    def standard_normal(self, size: SizeLike = None,
                        dtype: DTypeLike = np.float64) -> ndarray:
        """Normal floats with mean 0 and standard deviation 1 (``dtype`` is an
        extension NumPy lacks)."""
        return self.normal(0.0, 1.0, size, dtype)

    def integers(self, low: int, high: Optional[int] = None, size: SizeLike = None,
                 dtype: DTypeLike = np.int64, endpoint: bool = False) -> ndarray:
        """Integers in [low, high) ([0, low) when high is None; [low, high] with endpoint).
        Bounds must fit int64."""
        if high is None:
            low, high = 0, low
        high = operator.index(high) + (1 if endpoint else 0)
        return self._draw(size, dtype, integers=arrays_pb2.RandomSpec.Integers(
            low=operator.index(low), high=high))


_global = Generator()


def default_rng(seed: SeedLike = None) -> Generator:
    """A new :class:`Generator` (numpy.random.default_rng)."""
    return Generator(seed)


def seed(seed: SeedLike = None) -> None:
    """Reseeds the module's generator; None goes back to server-chosen seeds."""
    global _global
    _global = Generator(seed)


def random(size: SizeLike = None, dtype: DTypeLike = np.float64) -> ndarray:
    """Uniform floats in [0, 1)."""
    return _global.random(size, dtype)


random_sample = random


def rand(*size: int, dtype: DTypeLike = np.float64) -> ndarray:
    """Uniform floats in [0, 1) of shape ``size`` (given as separate ints)."""
    return _global.random(size, dtype)


def randn(*size: int, dtype: DTypeLike = np.float64) -> ndarray:
    """Standard normal floats of shape ``size`` (given as separate ints)."""
    return _global.standard_normal(size, dtype)


def uniform(low: float = 0.0, high: float = 1.0, size: SizeLike = None,
            dtype: DTypeLike = np.float64) -> ndarray:
    """Uniform floats in [low, high) from the global generator (see
    :meth:`Generator.uniform`)."""
    return _global.uniform(low, high, size, dtype)


def normal(loc: float = 0.0, scale: float = 1.0, size: SizeLike = None,
           dtype: DTypeLike = np.float64) -> ndarray:
    """Normal floats from the global generator (see :meth:`Generator.normal`)."""
    return _global.normal(loc, scale, size, dtype)


def standard_normal(size: SizeLike = None, dtype: DTypeLike = np.float64) -> ndarray:
    """Standard normal floats from the global generator (see
    :meth:`Generator.standard_normal`)."""
    return _global.standard_normal(size, dtype)


def integers(low: int, high: Optional[int] = None, size: SizeLike = None,
             dtype: DTypeLike = np.int64, endpoint: bool = False) -> ndarray:
    """Integers in [low, high) from the global generator (see
    :meth:`Generator.integers`)."""
    return _global.integers(low, high, size, dtype, endpoint)


def randint(low: int, high: Optional[int] = None, size: SizeLike = None,
            dtype: DTypeLike = np.int64) -> ndarray:
    """Integers in [low, high) (numpy.random.randint; ``integers`` without endpoint)."""
    return _global.integers(low, high, size, dtype)
