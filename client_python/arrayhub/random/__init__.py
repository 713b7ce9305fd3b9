"""Random arrays made on the server (Create RPC with a RandomSpec), like numpy.random.

The server generates the values: cuRAND Philox on the GPU backend, a Mersenne Twister with
the project's own arithmetic on the CPU backend (docs/semantics.md, "Random numbers").
Differences from NumPy:

- For the same seed the values differ from NumPy's (and between backends); on one backend
  the same seed gives the same sequence of arrays.
- ``size=None`` gives a 0-d array, not a Python scalar (as CuPy).
- Bounds and parameters are scalars (NumPy also takes arrays): array-valued ones raise
  NotImplementedError. Non-finite parameters are refused (NumPy returns nan or inf).
- ``choice`` takes an int or a 1-D array (no ``axis``); with a server-side ``p`` it reads
  back one small summary to check ``p`` as NumPy does.

The module functions draw from a global :class:`RandomState`, as NumPy's do.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from numpy.typing import DTypeLike

from arrayhub._ndarray import ndarray
from arrayhub.random._generator import Generator, RandomState
from arrayhub.random._sampler import SeedLike, SizeLike

__all__ = ["Generator", "RandomState", "default_rng", "seed", "random", "random_sample",
           "rand", "randn", "uniform", "normal", "standard_normal", "integers", "randint",
           "choice", "permutation", "shuffle", "standard_exponential", "exponential",
           "standard_gamma", "gamma", "beta", "binomial", "poisson", "lognormal", "standard_t",
           "chisquare", "geometric", "laplace", "logistic", "gumbel", "weibull", "pareto",
           "rayleigh", "standard_cauchy", "power", "f", "negative_binomial", "wald"]

_global = RandomState()


def default_rng(seed: SeedLike = None) -> Generator:
    """A new :class:`Generator` (numpy.random.default_rng)."""
    return Generator(seed)


def seed(seed: SeedLike = None) -> None:
    """Reseeds the module's generator; None goes back to server-chosen seeds."""
    _global.seed(seed)


def random(size: SizeLike = None, dtype: DTypeLike = np.float64) -> ndarray:
    """Uniform floats in [0, 1) (``dtype`` is an extension of NumPy's)."""
    return _global.uniform(0.0, 1.0, size, dtype)


random_sample = random


def rand(*size: int, dtype: DTypeLike = np.float64) -> ndarray:
    """Uniform floats in [0, 1) of shape ``size`` (given as separate ints)."""
    return _global.uniform(0.0, 1.0, size, dtype)


def randn(*size: int, dtype: DTypeLike = np.float64) -> ndarray:
    """Standard normal floats of shape ``size`` (given as separate ints)."""
    return _global.standard_normal(size, dtype)


def uniform(low: float = 0.0, high: float = 1.0, size: SizeLike = None,
            dtype: DTypeLike = np.float64) -> ndarray:
    """Uniform floats in [low, high) (see :meth:`RandomState.uniform`)."""
    return _global.uniform(low, high, size, dtype)


def normal(loc: float = 0.0, scale: float = 1.0, size: SizeLike = None,
           dtype: DTypeLike = np.float64) -> ndarray:
    """Normal floats (see :meth:`RandomState.normal`)."""
    return _global.normal(loc, scale, size, dtype)


def standard_normal(size: SizeLike = None, dtype: DTypeLike = np.float64) -> ndarray:
    """Standard normal floats."""
    return _global.standard_normal(size, dtype)


def integers(low: int, high: Optional[int] = None, size: SizeLike = None,
             dtype: DTypeLike = np.int64, endpoint: bool = False) -> ndarray:
    """Integers in [low, high) (see :meth:`Generator.integers`)."""
    return _global._bounded(low, high, size, dtype, endpoint)


def randint(low: int, high: Optional[int] = None, size: SizeLike = None,
            dtype: DTypeLike = np.int64) -> ndarray:
    """Integers in [low, high) (numpy.random.randint)."""
    return _global.randint(low, high, size, dtype)


def choice(a: Any, size: SizeLike = None, replace: bool = True, p: Any = None) -> ndarray:
    """Samples of ``a`` (see :meth:`RandomState.choice`)."""
    return _global.choice(a, size, replace, p)


def permutation(x: Any) -> ndarray:
    """A permuted range or copy of ``x`` along axis 0."""
    return _global.permutation(x)


def shuffle(x: ndarray) -> None:
    """Shuffles server array ``x`` in place along axis 0."""
    _global.shuffle(x)


def standard_exponential(size: SizeLike = None) -> ndarray:
    return _global.standard_exponential(size)


def exponential(scale: float = 1.0, size: SizeLike = None) -> ndarray:
    return _global.exponential(scale, size)


def standard_gamma(shape: float, size: SizeLike = None) -> ndarray:
    return _global.standard_gamma(shape, size)


def gamma(shape: float, scale: float = 1.0, size: SizeLike = None) -> ndarray:
    return _global.gamma(shape, scale, size)


def beta(a: float, b: float, size: SizeLike = None) -> ndarray:
    return _global.beta(a, b, size)


def binomial(n: int, p: float, size: SizeLike = None) -> ndarray:
    return _global.binomial(n, p, size)


def poisson(lam: float = 1.0, size: SizeLike = None) -> ndarray:
    return _global.poisson(lam, size)


def lognormal(mean: float = 0.0, sigma: float = 1.0, size: SizeLike = None) -> ndarray:
    return _global.lognormal(mean, sigma, size)


def standard_t(df: float, size: SizeLike = None) -> ndarray:
    return _global.standard_t(df, size)


def chisquare(df: float, size: SizeLike = None) -> ndarray:
    return _global.chisquare(df, size)


def geometric(p: float, size: SizeLike = None) -> ndarray:
    return _global.geometric(p, size)


def laplace(loc: float = 0.0, scale: float = 1.0, size: SizeLike = None) -> ndarray:
    return _global.laplace(loc, scale, size)


def logistic(loc: float = 0.0, scale: float = 1.0, size: SizeLike = None) -> ndarray:
    return _global.logistic(loc, scale, size)


def gumbel(loc: float = 0.0, scale: float = 1.0, size: SizeLike = None) -> ndarray:
    return _global.gumbel(loc, scale, size)


def weibull(a: float, size: SizeLike = None) -> ndarray:
    return _global.weibull(a, size)


def pareto(a: float, size: SizeLike = None) -> ndarray:
    return _global.pareto(a, size)


def rayleigh(scale: float = 1.0, size: SizeLike = None) -> ndarray:
    return _global.rayleigh(scale, size)


def standard_cauchy(size: SizeLike = None) -> ndarray:
    return _global.standard_cauchy(size)


def power(a: float, size: SizeLike = None) -> ndarray:
    return _global.power(a, size)


def f(dfnum: float, dfden: float, size: SizeLike = None) -> ndarray:
    return _global.f(dfnum, dfden, size)


def negative_binomial(n: float, p: float, size: SizeLike = None) -> ndarray:
    return _global.negative_binomial(n, p, size)


def wald(mean: float, scale: float, size: SizeLike = None) -> ndarray:
    return _global.wald(mean, scale, size)


# The module functions share the RandomState methods' documentation.
for _name in __all__:
    _function = globals()[_name]
    if getattr(_function, "__doc__", None) is None and hasattr(RandomState, _name):
        _function.__doc__ = getattr(RandomState, _name).__doc__
del _name, _function
