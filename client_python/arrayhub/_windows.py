"""Window functions (bartlett, blackman, hamming, hanning, kaiser), made on the server from
arange and ufuncs with NumPy's own formulas; results are float64, as NumPy's.

kaiser needs the modified Bessel function I0 of each sample. It is evaluated here by its power
series sum_k ((x/2)^2)^k / (k!)^2, whose terms are all positive (no cancellation); the number
of terms is chosen on the host from beta, the largest argument, so that the last term is below
float64's resolution of the sum. The normalizer I0(beta) is one host scalar (numpy.i0). This
keeps kaiser independent of an ``arrayhub.i0`` ufunc.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from arrayhub import _creation, _ops
from arrayhub._errors import ArrayHubTypeError, client_error

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]


def _length(M: Any) -> float:
    """The window length as NumPy reads it (``np.array([0.0, M])[1]``): a float."""
    if not isinstance(M, (int, float, np.integer, np.floating)) or isinstance(M, bool):
        try:
            return float(operator.index(M))
        except TypeError:
            raise client_error(ArrayHubTypeError, f"M must be a number, got "
                                                  f"{type(M).__name__}") from None
    return float(M)


def _short(M: float) -> Any:
    """NumPy's windows of fewer than two points: empty, or one 1.0."""
    return _creation.ones(1) if M == 1 else _creation.zeros(0)


def _cosine_window(M: Any, terms: tuple[float, ...]) -> Any:
    """sum_j terms[j] * cos(j pi n / (M - 1)) over n = 1-M, 3-M, ..., M-1 (NumPy's sample
    points for hanning, hamming and blackman)."""
    M = _length(M)
    if M <= 1:
        return _short(M)
    n = _creation.arange(1 - M, M, 2.0)
    result = None
    for j, weight in enumerate(terms):
        term = weight if j == 0 else weight * _ops.elementwise(
            "cos", (_ops.elementwise("true_divide", (j * np.pi * n, M - 1)),))
        result = term if result is None else result + term
    return result


def hanning(M: Any) -> Any:
    """The Hann window of M points."""
    return _cosine_window(M, (0.5, 0.5))


def hamming(M: Any) -> Any:
    """The Hamming window of M points."""
    return _cosine_window(M, (0.54, 0.46))


def blackman(M: Any) -> Any:
    """The Blackman window of M points."""
    return _cosine_window(M, (0.42, 0.5, 0.08))


def bartlett(M: Any) -> Any:
    """The triangular (Bartlett) window of M points."""
    M = _length(M)
    if M <= 1:
        return _short(M)
    n = _creation.arange(1 - M, M, 2.0)
    ramp = n / (M - 1)
    return _ops.elementwise("where", (n <= 0, 1 + ramp, 1 - ramp))


def _i0_terms(beta: float) -> int:
    """How many terms of I0's series reach float64's resolution for arguments up to |beta|."""
    y, term, total, k = (beta / 2) ** 2, 1.0, 1.0, 0
    while term > total * 2.0 ** -54 and k < 100_000:
        k += 1
        term *= y / (k * k)
        total += term
    return k


def kaiser(M: Any, beta: Any) -> Any:
    """The Kaiser window of M points with shape parameter beta:
    I0(beta sqrt(1 - ((n - alpha) / alpha)^2)) / I0(beta), alpha = (M - 1) / 2."""
    M, beta = _length(M), float(beta)
    if M == 1:
        return _creation.ones(1)
    n = _creation.arange(0, M, dtype=np.float64)
    alpha = (M - 1) / 2.0
    x = beta * _ops.elementwise("sqrt", (1 - ((n - alpha) / alpha) ** 2.0,))
    y = (x / 2) ** 2
    term, total = 1.0, 1.0
    for k in range(1, _i0_terms(beta) + 1):
        term = term * y * (1.0 / (k * k))
        total = total + term
    return total / float(np.i0(beta))
