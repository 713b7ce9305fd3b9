"""permutation, shuffle and choice from server uniforms: a permutation is the argsort of n
uniforms (stable, so the rare ties still give a permutation), weighted sampling a
searchsorted into the cumulative probabilities. Nothing is downloaded, except one check of a
server-side ``p`` (see choice)."""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from arrayhub import _ops
from arrayhub._creation import arange, asarray
from arrayhub._errors import ArrayHubValueError, client_error
from arrayhub._manipulation import argsort, searchsorted, stack, take
from arrayhub._math_functions import count_nonzero
from arrayhub._ndarray import ndarray
from arrayhub._ufuncs import UFUNCS

SizeLike = Union[None, int, Sequence[int]]
Uniforms = Callable[[SizeLike], ndarray]
Bounded = Callable[[int, Optional[int], SizeLike, Any, bool], ndarray]


def _value_error(message: str) -> Exception:
    return client_error(ArrayHubValueError, message)


def order(uniforms: Uniforms, n: int) -> ndarray:
    """A uniformly random permutation of range(n), on the server."""
    return argsort(uniforms(n))


def permutation(uniforms: Uniforms, x: Any, axis: int = 0) -> ndarray:
    if isinstance(x, (int, np.integer)):
        return order(uniforms, operator.index(x))
    x = x if isinstance(x, ndarray) else asarray(x)
    if x.ndim == 0:
        raise _value_error("x must be an integer or at least 1-dimensional")
    return take(x, order(uniforms, x.shape[axis]), axis=axis)


def shuffle(uniforms: Uniforms, x: ndarray, axis: int = 0) -> None:
    if not isinstance(x, ndarray):
        raise TypeError("shuffle: x must be an arrayhub array (it is shuffled in place on "
                        "the server)")
    if x.ndim == 0:
        raise TypeError("shuffle: x must be at least 1-dimensional")
    x[...] = permutation(uniforms, x, axis)


def choice(uniforms: Uniforms, bounded: Bounded, a: Any, size: SizeLike, replace: bool,
           p: Any) -> ndarray:
    population, pool = _population(a)
    shape = () if size is None else _ops.shape_tuple(size)
    count = math.prod(shape)
    if population <= 0 and count != 0:
        raise _value_error("a must be greater than 0 unless no samples are taken")
    weights = None if p is None else _probabilities(p, population, count, replace)
    if not replace and count > population:
        raise _value_error("Cannot take a larger sample than population when 'replace=False'")
    if weights is None:
        if replace:
            picks = bounded(0, population, count, np.int64, False)
        else:
            picks = order(uniforms, population)[:count]
    elif replace:
        cdf = weights.cumsum()
        cdf = cdf / cdf[-1]  # The last bin ends at 1 exactly: every uniform falls in a bin.
        picks = searchsorted(cdf, uniforms(count), side="right")
    else:
        # The `count` largest keys U ** (1 / p), compared through log(U) / p.
        keys = UFUNCS["log"](uniforms(population)) / weights
        picks = argsort(-keys)[:count]
    picks = picks.reshape(shape)
    return picks if pool is None else take(pool, picks)


def _population(a: Any) -> tuple[int, Optional[ndarray]]:
    """The population size, and the array to take samples from (None for range(a)). A host
    ``a`` is checked before it is uploaded."""
    if isinstance(a, (int, np.integer)):
        return operator.index(a), None
    shape = a.shape if isinstance(a, ndarray) else np.shape(a)
    if len(shape) == 0:
        try:
            value = a.item() if isinstance(a, ndarray) else np.asarray(a).item()
            return operator.index(value), None
        except TypeError:
            raise _value_error("a must be 1-dimensional or an integer") from None
    if len(shape) != 1:
        raise _value_error("a must be 1-dimensional")
    return shape[0], a if isinstance(a, ndarray) else asarray(np.asarray(a))


def _probabilities(p: Any, population: int, count: int, replace: bool) -> ndarray:
    """``p`` on the server after NumPy's checks; a server ``p`` is checked with one
    download of its sum, minimum and number of non-zero entries."""
    on_host = not isinstance(p, ndarray)
    probabilities = np.asarray(p, dtype=np.float64) if on_host else p
    if probabilities.ndim != 1:
        raise _value_error("p must be 1-dimensional")
    if probabilities.shape[0] != population:
        raise _value_error("'a' and 'p' must have same size")
    if on_host:
        # initial=0.0: an empty p has no negative entry.
        total, smallest = math.fsum(probabilities), probabilities.min(initial=0.0)
        nonzero = int(np.count_nonzero(probabilities))
    else:
        summary = stack([probabilities.sum(dtype=np.float64),
                         probabilities.min().astype(np.float64),
                         count_nonzero(probabilities).astype(np.float64)])
        total, smallest, nonzero_f = (float(v) for v in summary.get())
        nonzero = int(nonzero_f)
    if np.isnan(total):
        raise _value_error("probabilities contain NaN")
    if not smallest >= 0:
        raise _value_error("probabilities are not non-negative")
    if abs(total - 1.0) > math.sqrt(np.finfo(np.float64).eps):
        raise _value_error("probabilities do not sum to 1")
    if not replace and nonzero < count:
        raise _value_error("Fewer non-zero entries in p than size")
    return asarray(probabilities) if on_host else probabilities.astype(np.float64)
