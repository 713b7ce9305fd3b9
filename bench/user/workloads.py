"""The user scripts of the benchmark, written as a CuPy user writes them.

Each function is the timed statement sequence of one script. ``cp`` is the array module
(``arrayhub``, ``cupy`` or ``numpy``): the runner calls the same function once with each, the
way a user switches with ``import arrayhub as cp`` / ``import cupy as cp``. The arguments are
arrays the script starts from, already on the device. Every script ends with a host read and
returns the value read, so that the runner can compare the modules' answers.
"""

import numpy as np


def small_op_loop(cp, x):
    """200 dependent small ops, then one element to the host."""
    y = x
    for _ in range(200):
        y = y + 1
    return float(y[0])


def one_op_one_read(cp, x):
    return float((x + 1)[0])


def chain_with_sum(cp, a, b):
    y = a * b + a
    z = cp.exp(y) * 0.5
    return float(z.sum())


def sum_all(cp, a):
    return float(a.sum())


def matmul_corner(cp, a, b):
    return float((a @ b)[0, 0])


def fma_sum(cp, a, b):
    return float((a * b + a).sum())


def conjugate_gradient(cp, A, b, iterations=50):
    """The loop of CuPy's examples/cg/cg.py with a fixed iteration count: matrix-vector
    products with ``dot``, step sizes from ``inner`` (0-d arrays that stay on the device), and
    the residual norm read at the end instead of after every step."""
    return float(cg_residual_norm(cp, A, b, iterations))


def cg_residual_norm(cp, A, b, iterations=50):
    """conjugate_gradient's steps, answering the residual's norm as a 0-d device array."""
    x = cp.zeros_like(b)
    r = b - cp.dot(A, x)
    p = r
    rr = cp.inner(r, r)
    for _ in range(iterations):
        Ap = cp.dot(A, p)
        alpha = rr / cp.inner(p, Ap)
        x += alpha * p
        r = r - alpha * Ap
        rr_next = cp.inner(r, r)
        p = r + (rr_next / rr) * p
        rr = rr_next
    return cp.linalg.norm(r)


def kmeans(cp, X, centers, iterations=10):
    """Lloyd iterations as in CuPy's examples/kmeans: squared distances by broadcasting, the
    nearest center by argmin, and each cluster's mean from a one-hot mask (a matmul instead of
    the example's atomicAdd kernel, which only CuPy has)."""
    clusters = cp.arange(centers.shape[0])
    for _ in range(iterations):
        distances = ((X[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
        labels = distances.argmin(axis=1)
        onehot = (labels[:, None] == clusters[None, :]).astype(X.dtype)
        counts = onehot.sum(axis=0)
        centers = (onehot.T @ X) / counts[:, None]
    return float(centers.sum())


def rfft_magnitude(cp, a):
    """A spectrum's total magnitude: one real-to-complex transform, abs, sum."""
    return float(cp.abs(cp.fft.rfft(a)).sum())


def fft2_magnitude(cp, a):
    """An image's 2-D spectrum: fft2 of a real float32 image (complex64 in NumPy 2, CuPy and
    ArrayHub alike), abs, sum."""
    return float(cp.abs(cp.fft.fft2(a)).sum())


# CuPy's example kernels (examples/finance/black_scholes.py, examples/kmeans/kmeans.py),
# verbatim, made once per module that has ElementwiseKernel (arrayhub, cupy); NumPy, which has
# none, runs the same arithmetic as plain array operations.
_BLACK_SCHOLES_OPERATION = '''
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;

    const T cnd_d1 = get_cumulative_normal_distribution(d1);
    const T cnd_d2 = get_cumulative_normal_distribution(d2);

    const T exp_rt = exp(- r * t);
    call = s * cnd_d1 - x * exp_rt * cnd_d2;
    put = x * exp_rt * (1 - cnd_d2) - s * (1 - cnd_d1);
    '''
_BLACK_SCHOLES_PREAMBLE = '''
    __device__
    inline T get_cumulative_normal_distribution(T x) {
        const T A1 = 0.31938153;
        const T A2 = -0.356563782;
        const T A3 = 1.781477937;
        const T A4 = -1.821255978;
        const T A5 = 1.330274429;
        const T RSQRT2PI = 0.39894228040143267793994605993438;
        const T W = 0.2316419;

        const T k = 1 / (1 + W * abs(x));
        T cnd = RSQRT2PI * exp(- x * x / 2) *
            (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
        if (x > 0) {
            cnd = 1 - cnd;
        }
        return cnd;
    }
    '''
_KERNELS: dict = {}


def _example_kernels(cp):
    if cp not in _KERNELS:
        _KERNELS[cp] = {
            "black_scholes": cp.ElementwiseKernel(
                'T s, T x, T t, T r, T v', 'T call, T put', _BLACK_SCHOLES_OPERATION,
                'black_scholes_kernel', preamble=_BLACK_SCHOLES_PREAMBLE),
            "var": cp.ElementwiseKernel(
                'T x0, T x1, T c0, T c1', 'T out',
                'out = (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1)', 'var_kernel'),
            "sum": cp.ReductionKernel('T x, S mask', 'T out', 'mask ? x : 0', 'a + b',
                                      'out = a', '0', 'sum_kernel'),
            "count": cp.ReductionKernel('T mask', 'float32 out', 'mask ? 1.0 : 0.0', 'a + b',
                                        'out = a', '0.0', 'count_kernel'),
        }
    return _KERNELS[cp]


def _cnd(cp, x):
    """get_cumulative_normal_distribution as array operations (for NumPy)."""
    k = 1 / (1 + 0.2316419 * abs(x))
    cnd = 0.39894228040143267793994605993438 * cp.exp(-x * x / 2) * (
        k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978
                                                                       + k * 1.330274429)))))
    return cp.where(x > 0, 1 - cnd, cnd)


def black_scholes_kernel(cp, s, x, t):
    """black_scholes.py's ElementwiseKernel over every option (risk-free rate 0.02, volatility
    0.3), then the calls' and puts' total."""
    if hasattr(cp, "ElementwiseKernel"):
        call, put = _example_kernels(cp)["black_scholes"](s, x, t, 0.02, 0.3)
    else:
        r, v = 0.02, 0.3
        d1 = (cp.log(s / x) + (r + v * v / 2) * t) / (v * cp.sqrt(t))
        d2 = d1 - v * cp.sqrt(t)
        exp_rt = cp.exp(-r * t)
        call = s * _cnd(cp, d1) - x * exp_rt * _cnd(cp, d2)
        put = x * exp_rt * (1 - _cnd(cp, d2)) - s * (1 - _cnd(cp, d1))
    return float(call.sum() + put.sum())


def kmeans_custom_kernels(cp, X, centers, iterations=10):
    """kmeans.py's fit_custom with a fixed iteration count: var_kernel for the distances,
    argmin, sum_kernel and count_kernel for the new centers."""
    n_clusters = centers.shape[0]
    i = cp.arange(n_clusters)
    for _ in range(iterations):
        if hasattr(cp, "ElementwiseKernel"):
            kernels = _example_kernels(cp)
            distances = kernels["var"](X[:, None, 0], X[:, None, 1], centers[None, :, 1],
                                       centers[None, :, 0])
        else:
            distances = ((X[:, None, 0] - centers[None, :, 1]) ** 2
                         + (X[:, None, 1] - centers[None, :, 0]) ** 2)
        pred = cp.argmin(distances, axis=1)
        mask = pred == i[:, None]
        if hasattr(cp, "ElementwiseKernel"):
            sums = kernels["sum"](X, mask[:, :, None], axis=1)
            counts = kernels["count"](mask, axis=1).reshape((n_clusters, 1))
        else:
            sums = cp.where(mask[:, :, None], X, 0).sum(axis=1)
            counts = mask.sum(axis=1, dtype=cp.float32).reshape((n_clusters, 1))
        centers = sums / counts
    return float(centers.sum())


def einsum_matmul(cp, a, b):
    """einsum's matrix product (issue 21's first einsum case), one element read."""
    return float(cp.einsum("ij,jk->ik", a, b)[0, 0])


def median_all(cp, a):
    return float(cp.median(a))


def histogram_first_bins(cp, a):
    """A 1000-bin histogram of uniform data over [0, 1): the first bin's count."""
    counts, _ = cp.histogram(a, bins=1000, range=(0.0, 1.0))
    return float(counts[:10].sum())


def unique_count(cp, i):
    return float(cp.unique(i).size)


def partition_middle(cp, a):
    k = a.shape[0] // 2
    return float(cp.partition(a, k)[k])


#: The host rows small_uploads adds in, one per step (made once, outside the timing).
_HOST_ROWS = np.random.default_rng(18).random((50, 1000), dtype=np.float32)


def small_uploads(cp, x):
    """A loop that brings a small host array in at every step (parameters kept on the host,
    as many scripts do): 50 rows of 1000 float32, each uploaded and added, then the sum read."""
    y = x
    for row in _HOST_ROWS:
        y = y + cp.asarray(row)
    return float(y.sum())
