"""The draws that Generator and RandomState share: each distribution is one Create RPC with
a RandomSpec, so the values are made on the server and the call pipelines."""

from __future__ import annotations

import operator
import threading
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._creation import create
from arrayhub._ndarray import ndarray
from arrayhub.random import _permutations
from arrayhub.v1 import arrays_pb2

SizeLike = Union[None, int, Sequence[int]]
SeedLike = Union[None, int, Sequence[int], np.random.SeedSequence, np.random.BitGenerator]
_Spec = arrays_pb2.RandomSpec


def scalar(value: Any, name: str) -> float:
    """A distribution parameter as a float; arrays are refused (NumPy broadcasts them)."""
    if isinstance(value, (ndarray, list, tuple)) or np.ndim(value) != 0:
        raise NotImplementedError(
            f"{name}: array-valued parameters are not supported yet; pass a scalar")
    return float(value)


def integer(value: Any, name: str) -> int:
    """A count parameter as an int (a float is truncated, as NumPy casts it to int64)."""
    scalar(value, name)
    return operator.index(value) if isinstance(value, (int, np.integer)) else int(value)


class Sampler:
    """Seeding and the distributions common to :class:`Generator` and :class:`RandomState`.

    With a seed, every call asks the server for values from a fresh 64-bit seed derived from
    ``numpy.random.SeedSequence(seed)``, so successive calls differ and the whole sequence
    repeats for the same seed. Without one, the server seeds each call from its entropy
    source.
    """

    def __init__(self, seed: SeedLike = None) -> None:
        self._lock = threading.Lock()
        self._reseed(seed)

    def _reseed(self, seed: SeedLike) -> None:
        if seed is None or isinstance(seed, np.random.SeedSequence):
            self._seeds: Optional[np.random.SeedSequence] = seed
        elif isinstance(seed, np.random.BitGenerator):
            # As numpy.random.default_rng(bit_generator): its seed sequence seeds the draws
            # (dask.array's Generator hands each chunk a spawned bit generator).
            self._seeds = seed.seed_seq
        else:
            self._seeds = np.random.SeedSequence(seed)

    def _draw(self, size: SizeLike, dtype: DTypeLike | None, **distribution: Any) -> ndarray:
        spec = _Spec(**distribution)
        if self._seeds is not None:
            with self._lock:
                child = self._seeds.spawn(1)[0]
            spec.has_seed = True
            spec.seed = int(child.generate_state(1, np.uint64)[0])
        shape = () if size is None else _ops.shape_tuple(size)
        return create(shape, dtype, random=spec)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: SizeLike = None,
                dtype: DTypeLike = np.float64) -> ndarray:
        """Uniform floats in [low, high). ``dtype`` is an extension NumPy's uniform lacks."""
        return self._draw(size, dtype, uniform=_Spec.Uniform(
            low=scalar(low, "low"), high=scalar(high, "high")))

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: SizeLike = None,
               dtype: DTypeLike = np.float64) -> ndarray:
        """Normal floats with mean ``loc`` and standard deviation ``scale``."""
        return self._draw(size, dtype, normal=_Spec.Normal(
            mean=scalar(loc, "loc"), stddev=scalar(scale, "scale")))

    def standard_normal(self, size: SizeLike = None,
                        dtype: DTypeLike = np.float64) -> ndarray:
        """Normal floats with mean 0 and standard deviation 1 (``dtype`` is an
        extension of RandomState's)."""
        return self.normal(0.0, 1.0, size, dtype)

    def _bounded(self, low: int, high: Optional[int], size: SizeLike, dtype: DTypeLike,
                 endpoint: bool) -> ndarray:
        if high is None:
            low, high = 0, low
        high = operator.index(high) + (1 if endpoint else 0)
        return self._draw(size, dtype, integers=_Spec.Integers(
            low=operator.index(low), high=high))

    def standard_exponential(self, size: SizeLike = None,
                             dtype: DTypeLike = np.float64) -> ndarray:
        """Exponential floats with scale 1."""
        return self._draw(size, dtype, exponential=_Spec.Scale(scale=1.0))

    def exponential(self, scale: float = 1.0, size: SizeLike = None) -> ndarray:
        """Exponential floats with mean ``scale``."""
        return self._draw(size, None, exponential=_Spec.Scale(scale=scalar(scale, "scale")))

    def standard_gamma(self, shape: float, size: SizeLike = None,
                       dtype: DTypeLike = np.float64) -> ndarray:
        """Gamma floats with scale 1."""
        return self._draw(size, dtype, gamma=_Spec.Gamma(shape=scalar(shape, "shape"),
                                                         scale=1.0))

    def gamma(self, shape: float, scale: float = 1.0, size: SizeLike = None) -> ndarray:
        """Gamma floats (Marsaglia-Tsang on the server)."""
        return self._draw(size, None, gamma=_Spec.Gamma(shape=scalar(shape, "shape"),
                                                        scale=scalar(scale, "scale")))

    def beta(self, a: float, b: float, size: SizeLike = None) -> ndarray:
        """Beta floats in [0, 1]."""
        return self._draw(size, None, beta=_Spec.Beta(a=scalar(a, "a"), b=scalar(b, "b")))

    def binomial(self, n: int, p: float, size: SizeLike = None) -> ndarray:
        """int64 counts of successes in ``n`` trials of probability ``p``."""
        return self._draw(size, None, binomial=_Spec.Binomial(n=integer(n, "n"),
                                                              p=scalar(p, "p")))

    def poisson(self, lam: float = 1.0, size: SizeLike = None) -> ndarray:
        """int64 Poisson counts with mean ``lam``."""
        return self._draw(size, None, poisson=_Spec.Poisson(lam=scalar(lam, "lam")))

    def lognormal(self, mean: float = 0.0, sigma: float = 1.0, size: SizeLike = None) -> ndarray:
        """exp of normal floats with mean ``mean`` and standard deviation ``sigma``."""
        return self._draw(size, None, lognormal=_Spec.Normal(
            mean=scalar(mean, "mean"), stddev=scalar(sigma, "sigma")))

    def standard_t(self, df: float, size: SizeLike = None) -> ndarray:
        """Student's t floats with ``df`` degrees of freedom."""
        return self._draw(size, None, standard_t=_Spec.Shape(a=scalar(df, "df")))

    def chisquare(self, df: float, size: SizeLike = None) -> ndarray:
        """Chi-square floats with ``df`` degrees of freedom."""
        return self._draw(size, None, chisquare=_Spec.Shape(a=scalar(df, "df")))

    def geometric(self, p: float, size: SizeLike = None) -> ndarray:
        """int64 numbers of trials up to the first success (>= 1)."""
        return self._draw(size, None, geometric=_Spec.Geometric(p=scalar(p, "p")))

    def laplace(self, loc: float = 0.0, scale: float = 1.0, size: SizeLike = None) -> ndarray:
        """Laplace (double exponential) floats."""
        return self._draw(size, None, laplace=_Spec.LocScale(loc=scalar(loc, "loc"),
                                                             scale=scalar(scale, "scale")))

    def logistic(self, loc: float = 0.0, scale: float = 1.0, size: SizeLike = None) -> ndarray:
        """Logistic floats."""
        return self._draw(size, None, logistic=_Spec.LocScale(loc=scalar(loc, "loc"),
                                                              scale=scalar(scale, "scale")))

    def gumbel(self, loc: float = 0.0, scale: float = 1.0, size: SizeLike = None) -> ndarray:
        """Gumbel floats."""
        return self._draw(size, None, gumbel=_Spec.LocScale(loc=scalar(loc, "loc"),
                                                            scale=scalar(scale, "scale")))

    def weibull(self, a: float, size: SizeLike = None) -> ndarray:
        """Weibull floats with shape ``a`` and scale 1."""
        return self._draw(size, None, weibull=_Spec.Shape(a=scalar(a, "a")))

    def pareto(self, a: float, size: SizeLike = None) -> ndarray:
        """Pareto II (Lomax) floats with shape ``a``, as NumPy's pareto."""
        return self._draw(size, None, pareto=_Spec.Shape(a=scalar(a, "a")))

    def rayleigh(self, scale: float = 1.0, size: SizeLike = None) -> ndarray:
        """Rayleigh floats."""
        return self._draw(size, None, rayleigh=_Spec.Scale(scale=scalar(scale, "scale")))

    def standard_cauchy(self, size: SizeLike = None) -> ndarray:
        """Standard Cauchy floats."""
        return self._draw(size, None, standard_cauchy=_Spec.StandardCauchy())

    def power(self, a: float, size: SizeLike = None) -> ndarray:
        """Floats in [0, 1] with density a x ** (a - 1)."""
        return self._draw(size, None, power=_Spec.Shape(a=scalar(a, "a")))

    def f(self, dfnum: float, dfden: float, size: SizeLike = None) -> ndarray:
        """F (Fisher-Snedecor) floats."""
        return self._draw(size, None, f=_Spec.F(dfnum=scalar(dfnum, "dfnum"),
                                                dfden=scalar(dfden, "dfden")))

    def negative_binomial(self, n: float, p: float, size: SizeLike = None) -> ndarray:
        """int64 failures before the ``n``-th success (``n`` need not be whole)."""
        return self._draw(size, None, negative_binomial=_Spec.NegativeBinomial(
            n=scalar(n, "n"), p=scalar(p, "p")))

    def wald(self, mean: float, scale: float, size: SizeLike = None) -> ndarray:
        """Wald (inverse Gaussian) floats."""
        return self._draw(size, None, wald=_Spec.Wald(mean=scalar(mean, "mean"),
                                                      scale=scalar(scale, "scale")))

    # --- Permutations and sampling (_permutations.py) ---

    def permutation(self, x: Any, axis: int = 0) -> ndarray:
        """A permuted range (int ``x``) or a permuted copy of ``x`` along ``axis`` (argsort
        of server uniforms)."""
        return _permutations.permutation(self.random_sample, x, axis)

    def shuffle(self, x: ndarray, axis: int = 0) -> None:
        """Shuffles server array ``x`` in place along ``axis``."""
        _permutations.shuffle(self.random_sample, x, axis)

    def choice(self, a: Any, size: SizeLike = None, replace: bool = True,
               p: Any = None) -> ndarray:
        """Samples of ``a`` (an int n for range(n), or a 1-D array), uniformly or with
        probabilities ``p``. Checking that ``p`` sums to 1 reads one value back when ``p`` is
        a server array (a host ``p`` is checked before upload); everything else stays on the
        server. Without replacement and with ``p``, the samples are the ``size`` largest keys
        U ** (1 / p) (Efraimidis-Spirakis), the distribution of NumPy's successive draws."""
        return _permutations.choice(self.random_sample, self._bounded, a, size, replace, p)

    def random_sample(self, size: SizeLike = None) -> ndarray:
        """Uniform float64 values in [0, 1)."""
        return self.uniform(0.0, 1.0, size)
