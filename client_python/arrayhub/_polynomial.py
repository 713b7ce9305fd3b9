"""NumPy's legacy polynomial helpers on coefficient arrays (highest power first), composed
from server ops: poly, polyadd, polysub, polymul, polydiv, polyder, polyint, polyval and
polyfit (least squares through arrayhub.linalg.lstsq), and roots and poly of a matrix
through arrayhub.linalg.eigvals (complex, as CuPy's: so ``roots`` is complex even where every
root is real, where NumPy's turns real).
No poly1d: arguments and results are arrays.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from arrayhub import _creation, _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._manipulation import concatenate
from arrayhub._ndarray import ndarray
from arrayhub._numerics import _array, _client, convolve, vander

__all__ = ["poly", "roots", "polyadd", "polysub", "polymul", "polyval", "polyfit", "polyder", "polyint",
           "polydiv"]


def _at_least_1d(value: Any, client: Any) -> ndarray:
    value = _array(value, client)
    return value.reshape(1) if value.ndim == 0 else value


def poly(seq_of_zeros: Any) -> Any:
    """The coefficients of the monic polynomial with the given roots (1-D), or of a square
    matrix's characteristic polynomial (its eigenvalues' roots), by one multiplication by
    ``(x - root)`` per root on the server; real when complex roots come in conjugate pairs
    (one bool read back), as NumPy."""
    zeros = _at_least_1d(seq_of_zeros, _client(seq_of_zeros))
    if zeros.ndim == 2 and zeros.shape[0] == zeros.shape[1] and zeros.shape[0] != 0:
        from arrayhub.linalg import eigvals
        zeros = eigvals(zeros)
    elif zeros.ndim != 1:
        raise client_error(ArrayHubValueError,
                           "input must be 1d or non-empty square 2d array.")
    if zeros.dtype.char not in "GDFgdf":
        zeros = zeros.astype(np.float64)
    if zeros.shape[0] == 0:
        return 1.0
    dtype = zeros.dtype
    a = _creation.ones(1, dtype)
    tail = _creation.zeros(1, dtype)
    for i in range(zeros.shape[0]):
        # a * (x - zero): the coefficients shifted one power up, minus zero times them.
        a = concatenate((a, tail)) - zeros[i] * concatenate((tail, a))
    if dtype.kind == "c":
        from arrayhub._manipulation import sort
        roots = zeros.astype(np.complex128)
        if bool(_ops.reduce("all", sort(roots) == sort(roots.conj()))):
            a = a.real.copy()
    return a


def roots(p: Any) -> ndarray:
    """The roots of the polynomial with coefficients ``p`` (highest power first): the
    eigenvalues of its companion matrix, built on the server, plus one zero per trailing zero
    coefficient. Where the nonzero coefficients start and end is read back (the coefficient
    vector is small); the roots are complex always (eigvals' dtype, as CuPy's)."""
    client = _client(p)
    p = _at_least_1d(p, client)
    if p.ndim != 1:
        raise client_error(ArrayHubValueError, "Input must be a rank-1 array.")
    nonzero = np.flatnonzero(p.get())
    if nonzero.size == 0:
        return _creation.empty(0, np.float64)
    first, last = int(nonzero[0]), int(nonzero[-1])
    trailing = p.shape[0] - 1 - last
    degree = last - first
    dtype = p.dtype if p.dtype.kind in "fc" else np.dtype(np.float64)
    if degree < 1:
        found = _creation.empty(0, np.float64)
    else:
        from arrayhub.linalg import eigvals
        coefficients = p[first:last + 1].astype(dtype)
        companion = concatenate((
            (-coefficients[1:] / coefficients[0]).reshape(1, degree),
            _creation.eye(degree - 1, degree, dtype=dtype)))
        found = eigvals(companion)
    if trailing:
        found = concatenate((found, _creation.zeros(trailing, found.dtype)))
    return found


def _padded_pair(a1: Any, a2: Any) -> tuple[ndarray, ndarray]:
    """The two coefficient arrays, the shorter one padded with leading zeros (its dtype)."""
    client = _client(a1, a2)
    a1, a2 = _at_least_1d(a1, client), _at_least_1d(a2, client)
    difference = a2.shape[0] - a1.shape[0]
    if difference > 0:
        a1 = concatenate((_creation.zeros(difference, a1.dtype), a1))
    elif difference < 0:
        a2 = concatenate((_creation.zeros(-difference, a2.dtype), a2))
    return a1, a2


def polyadd(a1: Any, a2: Any) -> ndarray:
    """The sum of two polynomials."""
    a1, a2 = _padded_pair(a1, a2)
    return a1 + a2


def polysub(a1: Any, a2: Any) -> ndarray:
    """The difference of two polynomials."""
    a1, a2 = _padded_pair(a1, a2)
    return a1 - a2


def polymul(a1: Any, a2: Any) -> ndarray:
    """The product of two polynomials (their convolution)."""
    client = _client(a1, a2)
    return convolve(_at_least_1d(a1, client), _at_least_1d(a2, client))


def polyval(p: Any, x: Any) -> ndarray:
    """The polynomial ``p`` at ``x`` by Horner's scheme (one multiply-add per coefficient on
    the server)."""
    client = _client(p, x)
    p, x = _array(p, client), _array(x, client)
    y = _creation.zeros_like(x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


def polyfit(x: Any, y: Any, deg: int, rcond: Any = None, full: bool = False, w: Any = None,
            cov: Any = False) -> Any:
    """The least-squares fit of a polynomial of degree ``deg`` to the points (``x``,
    ``y``; ``y`` may hold several data sets as columns), as NumPy: a scaled Vandermonde
    matrix solved by arrayhub.linalg.lstsq; ``full`` and ``cov`` as NumPy's."""
    from arrayhub import linalg

    client = _client(x, y, w)
    order = int(deg) + 1
    x, y = _array(x, client) + 0.0, _array(y, client) + 0.0
    if deg < 0:
        raise client_error(ArrayHubValueError, "expected deg >= 0")
    if x.ndim != 1:
        raise client_error(ArrayHubTypeError, "expected 1D vector for x")
    if x.size == 0:
        raise client_error(ArrayHubTypeError, "expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise client_error(ArrayHubTypeError, "expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise client_error(ArrayHubTypeError, "expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * np.finfo(x.dtype).eps
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _array(w, client) + 0.0
        if w.ndim != 1:
            raise client_error(ArrayHubTypeError, "expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise client_error(ArrayHubTypeError, "expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    scale = _ops.elementwise("sqrt", ((lhs * lhs).sum(axis=0),))
    lhs = lhs / scale
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    from arrayhub._products import dot, outer
    base = linalg.inv(dot(lhs.T, lhs)) / outer(scale, scale)
    if cov == "unscaled":
        factor: Any = 1
    else:
        if x.shape[0] <= order:
            raise client_error(ArrayHubValueError, "the number of data points must exceed "
                                                   "order to scale the covariance matrix")
        factor = resids / (x.shape[0] - order)
    if y.ndim == 1:
        return c, base * factor
    return c, base[:, :, None] * factor


def polyder(p: Any, m: int = 1) -> ndarray:
    """The ``m``-th derivative of the polynomial ``p``."""
    m = int(m)
    if m < 0:
        raise client_error(ArrayHubValueError,
                           "Order of derivative must be positive (see polyint)")
    p = _array(p, _client(p))
    for _ in range(m):
        n = p.shape[0] - 1
        p = p[:-1] * _creation.arange(n, 0, -1)
    return p


def polyint(p: Any, m: int = 1, k: Any = None) -> ndarray:
    """The ``m``-th antiderivative of the polynomial ``p``, the integration constants ``k``
    (a scalar, or one per integration, first first) added as NumPy adds them."""
    m = int(m)
    if m < 0:
        raise client_error(ArrayHubValueError,
                           "Order of integral must be positive (see polyder)")
    client = _client(p, k)
    constants = _at_least_1d(np.zeros(m, float) if k is None else k, client)
    if constants.shape[0] == 1 and m > 1:
        constants = constants[0] * _creation.ones(m, float)
    if constants.shape[0] < m:
        raise client_error(ArrayHubValueError,
                           "k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _array(p, client)
    for i in range(m):
        p = concatenate((p / _creation.arange(p.shape[0], 0, -1), constants[i:i + 1]))
    return p


def polydiv(u: Any, v: Any) -> tuple[ndarray, ndarray]:
    """The quotient and remainder of the polynomial division ``u / v`` (floats), leading
    remainder coefficients within 1e-14 of zero dropped as NumPy drops them (each check reads
    one bool back)."""
    from arrayhub._math_functions import allclose

    client = _client(u, v)
    u, v = _at_least_1d(u, client) + 0.0, _at_least_1d(v, client) + 0.0
    dtype = np.result_type(u.dtype, v.dtype)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1. / v[0]
    q = _creation.zeros((max(m - n + 1, 1),), dtype)
    r = u.astype(dtype)
    for k in range(m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k:k + n + 1] = r[k:k + n + 1] - d * v
    while r.shape[-1] > 1 and bool(allclose(r[0], 0, rtol=1e-14)):
        r = r[1:]
    return q, r
