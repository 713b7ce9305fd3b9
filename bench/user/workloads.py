"""The user scripts of the benchmark, written as a CuPy user writes them.

Each function is the timed statement sequence of one script. ``cp`` is the array module
(``arrayhub``, ``cupy`` or ``numpy``): the runner calls the same function once with each, the
way a user switches with ``import arrayhub as cp`` / ``import cupy as cp``. The arguments are
arrays the script starts from, already on the device. Every script ends with a host read and
returns the value read, so that the runner can compare the modules' answers.
"""


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
