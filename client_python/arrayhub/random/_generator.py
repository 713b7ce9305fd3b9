"""numpy.random.Generator and numpy.random.RandomState over :class:`Sampler`'s draws."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.typing import DTypeLike

from arrayhub._array_api import take_along_axis
from arrayhub._creation import asarray
from arrayhub._ndarray import ndarray
from arrayhub.random._sampler import Sampler, SeedLike, SizeLike


class Generator(Sampler):
    """Draws random server arrays, with numpy.random.Generator's methods (see
    :class:`Sampler` for seeding)."""

    def random(self, size: SizeLike = None, dtype: DTypeLike = np.float64,
               out: Any = None) -> ndarray:
        """Uniform floats in [0, 1). No ``out`` (None only, as dask.array passes it)."""
        if out is not None:
            raise NotImplementedError("random: out= is not supported")
        return self.uniform(0.0, 1.0, size, dtype)

    def integers(self, low: int, high: Optional[int] = None, size: SizeLike = None,
                 dtype: DTypeLike = np.int64, endpoint: bool = False) -> ndarray:
        """Integers in [low, high) ([0, low) when high is None; [low, high] with endpoint).
        Bounds must fit int64."""
        return self._bounded(low, high, size, dtype, endpoint)

    def permuted(self, x: Any, axis: Optional[int] = None, out: Any = None) -> ndarray:
        """A copy of ``x`` with each slice along ``axis`` shuffled independently (the
        flattened array when None): argsort of server uniforms of x's shape. No ``out``."""
        if out is not None:
            raise NotImplementedError("permuted: out= is not supported")
        x = x if isinstance(x, ndarray) else asarray(np.asarray(x))
        if axis is None:
            return self.permutation(x.ravel()).reshape(x.shape)
        keys = self.random_sample(x.shape).argsort(axis)
        return take_along_axis(x, keys, axis)


class RandomState(Sampler):
    """numpy.random.RandomState's methods on server arrays. The values differ from
    NumPy's legacy Mersenne Twister stream for the same seed."""

    def seed(self, seed: SeedLike = None) -> None:
        """Reseeds this generator; None goes back to server-chosen seeds."""
        self._reseed(seed)

    def random(self, size: SizeLike = None) -> ndarray:
        """Uniform float64 values in [0, 1)."""
        return self.random_sample(size)

    def rand(self, *size: int) -> ndarray:
        """Uniform floats in [0, 1) of shape ``size`` (given as separate ints)."""
        return self.random_sample(size)

    def randn(self, *size: int) -> ndarray:
        """Standard normal floats of shape ``size`` (given as separate ints)."""
        return self.standard_normal(size)

    def randint(self, low: int, high: Optional[int] = None, size: SizeLike = None,
                dtype: DTypeLike = np.int64) -> ndarray:
        """Integers in [low, high) ([0, low) when high is None)."""
        return self._bounded(low, high, size, dtype, False)
