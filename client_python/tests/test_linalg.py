"""Matrix products (Matmul, TensorProduct) and numpy.linalg (Linalg) against NumPy.

Inputs are fresh random data for every run (each test's generator is seeded from a random
seed drawn at import; the captured output of a failed test shows the seed to reproduce it). Products are checked against a float64 (complex128)
product of the same inputs with an error bound scaled by |a| @ |b| and the dtype's epsilon,
so that a float32 product computed with TF32 tensor cores (about 1e-3 relative error) fails:
the default precision of float32 must be true float32. Factorizations are checked by
reconstruction and orthogonality, and against NumPy's results where those are unique.
"""

from __future__ import annotations

import secrets
import zlib
from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah

# --- Helpers ---------------------------------------------------------------------------------

_SEED = secrets.randbits(64)

FLOAT_AND_COMPLEX = [np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128)]
MATMUL_DTYPES = [np.dtype(t) for t in (np.float16, np.float32, np.float64, np.complex64,
                                       np.complex128, np.int8, np.int64)]
#: Reconstruction / orthogonality bounds the server promises (relative, Frobenius).
_FACTOR_TOL = {"f": 1e-5, "F": 1e-5, "d": 1e-12, "D": 1e-12}
#: Comparisons of values with NumPy's (relative to the largest magnitude involved).
_VALUE_TOL = {"f": 2e-4, "F": 2e-4, "d": 1e-10, "D": 1e-10}


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A generator seeded from this run's random seed and the test's id; the seed is printed
    (pytest shows it with a failure) so that a failure can be reproduced."""
    seed = (_SEED + zlib.crc32(request.node.nodeid.encode())) % 2**64
    print(f"{request.node.nodeid}: numpy.random.default_rng({seed})")
    return np.random.default_rng(seed)


def rand(rng: np.random.Generator, dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Random values of ``dtype``: standard normal floats (complex: both parts), integers
    over the dtype's whole range for int8 (products wrap, as NumPy's), small ones for wider
    integers."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype == np.int8:
        return rng.integers(-128, 128, size=shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-50, 51, size=shape).astype(dtype)
    values = rng.standard_normal(size=shape)
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(size=shape)
    return values.astype(dtype)


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _eps(dtype: np.dtype) -> float:
    return float(np.finfo(dtype).eps)


def assert_product(got: ah.ndarray, a: np.ndarray, b: np.ndarray,
                   product: Callable[..., np.ndarray] = np.matmul, **kwargs: Any) -> None:
    """``got`` is ``product(a, b)``: NumPy's dtype and shape; integers exactly as NumPy
    (wrapping included); floats within a few ulps of the dtype, per element, of the exact
    product, scaled by the same product of the absolute values."""
    expected = product(a, b, **kwargs)
    assert isinstance(got, ah.ndarray)
    assert got.dtype == expected.dtype, f"dtype {got.dtype}, NumPy gives {expected.dtype}"
    assert got.shape == expected.shape, f"shape {got.shape}, NumPy gives {expected.shape}"
    host = got.get()
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(host, expected)
        return
    exact = product(_wide(a), _wide(b), **kwargs)
    scale = product(np.abs(_wide(a)).real, np.abs(_wide(b)).real, **kwargs)
    # Rounding of k products and their sum, k the contracted length (over-estimated for
    # batches): at most k ulps of the dtype times |a| @ |b|, plus the result's own rounding.
    k = max(1, round(np.sqrt(a.size * b.size / max(1, expected.size))))
    bound = (k + 2) * _eps(expected.dtype) * scale + np.finfo(expected.dtype).tiny
    error = np.abs(_wide(host) - exact)
    assert np.all(error <= bound), (
        f"max error / bound {np.max(error / bound):.3g} (k {k}, largest error "
        f"{error.max():.3g}, largest |product| {np.abs(exact).max():.3g})")


def transposed(remote: ah.ndarray, host: np.ndarray) -> ah.ndarray:
    """``remote.T`` when the server has views; until then, the transpose uploaded (the
    product then reads an explicitly transposed array)."""
    try:
        return remote.T
    except NotImplementedError:
        return ah.asarray(np.ascontiguousarray(host.T))


def fro(x: np.ndarray) -> float:
    return float(np.linalg.norm(_wide(x).reshape(-1)))


def assert_orthonormal_columns(q: np.ndarray, tol: float) -> None:
    """Q^H Q = I over each stack."""
    q = _wide(q)
    gram = np.swapaxes(q, -1, -2).conj() @ q
    eye = np.broadcast_to(np.eye(q.shape[-1]), gram.shape)
    assert fro(gram - eye) <= tol * max(1, q.shape[-1]), fro(gram - eye)


def hermitian_pd(rng: np.random.Generator, dtype: np.dtype, n: int,
                 batch: tuple[int, ...] = ()) -> np.ndarray:
    """A Hermitian positive definite matrix (well conditioned)."""
    x = _wide(rand(rng, dtype, (*batch, n, n)))
    return (np.swapaxes(x, -1, -2).conj() @ x + n * np.eye(n)).astype(dtype)


def hermitian(rng: np.random.Generator, dtype: np.dtype, n: int,
              batch: tuple[int, ...] = ()) -> np.ndarray:
    x = rand(rng, dtype, (*batch, n, n))
    return ((x + np.swapaxes(x, -1, -2).conj()) / 2).astype(dtype)


def dtype_id(dtype: Any) -> str:
    return np.dtype(dtype).name


# --- matmul ----------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((5,), (5,)),              # 1-D . 1-D -> 0-d
    ((5,), (5, 3)),            # 1-D promoted to a row
    ((4, 5), (5,)),            # 1-D promoted to a column
    ((4, 33), (33, 7)),        # 2-D
    ((1, 1), (1, 1)),
    ((3, 4, 5), (3, 5, 2)),    # batched
    ((3, 4, 5), (5, 2)),       # batch broadcast against a matrix
    ((2, 1, 4, 5), (3, 5, 6)),  # batch axes broadcast against each other
    ((5,), (2, 5, 3)),         # 1-D against a stack
    ((2, 4, 5), (5,)),
    ((0, 5), (5, 3)),          # empty result
    ((4, 0), (0, 3)),          # k = 0: zeros
]


@pytest.mark.parametrize("dtype", MATMUL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_matches_numpy(rng: np.random.Generator, dtype: np.dtype,
                              shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    a, b = rand(rng, dtype, shapes[0]), rand(rng, dtype, shapes[1])
    x, y = ah.asarray(a), ah.asarray(b)
    assert_product(ah.matmul(x, y), a, b)
    assert_product(x @ y, a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64], ids=dtype_id)
def test_float32_products_are_true_float32_by_default(rng: np.random.Generator,
                                                      dtype: Any) -> None:
    """A long inner dimension: TF32 (10-bit mantissa) would be off by ~1e-3 relative."""
    a, b = rand(rng, dtype, (16, 512)), rand(rng, dtype, (512, 16))
    got = (ah.asarray(a) @ ah.asarray(b)).get()
    exact = _wide(a) @ _wide(b)
    scale = np.abs(_wide(a)) @ np.abs(_wide(b))
    assert np.max(np.abs(got - exact) / scale) < 1e-5


def test_float16_matmul(rng: np.random.Generator) -> None:
    """float16 stays float16, as NumPy; the error is that of one rounding to float16 of a
    product accumulated more precisely (NumPy's own is no better)."""
    a, b = rand(rng, np.float16, (6, 40)), rand(rng, np.float16, (40, 5))
    got = ah.asarray(a) @ ah.asarray(b)
    assert got.dtype == np.float16 and got.shape == (6, 5)
    exact = _wide(a) @ _wide(b)
    scale = np.abs(_wide(a)) @ np.abs(_wide(b))
    assert np.all(np.abs(got.get() - exact) <= 4 * _eps(np.float16) * scale)
    np.testing.assert_allclose(got.get().astype(np.float64), (a @ b).astype(np.float64),
                               atol=float(8 * _eps(np.float16) * scale.max()))


@pytest.mark.parametrize("pair", [(np.float32, np.float64), (np.int64, np.float32),
                                  (np.int8, np.int16), (np.float32, np.complex64),
                                  (np.float64, np.complex64), (np.bool_, np.bool_),
                                  (np.bool_, np.int32), (np.uint8, np.int8)], ids=str)
def test_matmul_promotes_as_numpy(rng: np.random.Generator, pair: tuple[Any, Any]) -> None:
    a, b = rand(rng, pair[0], (3, 4)), rand(rng, pair[1], (4, 2))
    assert_product(ah.asarray(a) @ ah.asarray(b), a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int32],
                         ids=dtype_id)
def test_matmul_transposed_operands(rng: np.random.Generator, dtype: Any) -> None:
    a, b = rand(rng, dtype, (6, 4)), rand(rng, dtype, (3, 6))
    x, y = ah.asarray(a), ah.asarray(b)
    assert_product(transposed(x, a) @ transposed(y, b), a.T, b.T)
    assert_product(transposed(x, a) @ x, a.T, a)
    assert_product(y @ transposed(y, b), b, b.T)


def test_matmul_out_and_inplace(rng: np.random.Generator) -> None:
    a, b = rand(rng, np.float64, (2, 3, 4)), rand(rng, np.float64, (4, 4))
    out = ah.empty((2, 3, 4))
    result = ah.matmul(ah.asarray(a), ah.asarray(b), out=out)
    assert result is out
    assert_product(out, a, b)
    x = ah.asarray(a)
    x @= ah.asarray(b)  # NumPy >= 1.25: matmul(x, b, out=x)
    np.testing.assert_allclose(x.get(), a @ b, rtol=1e-12, atol=1e-12)
    s = ah.asarray(b)
    s @= s  # both operands alias the output
    np.testing.assert_allclose(s.get(), b @ b, rtol=1e-12, atol=1e-12)
    v = ah.asarray(a[0, 0])
    v @= ah.asarray(b)
    np.testing.assert_allclose(v.get(), a[0, 0] @ b, rtol=1e-12, atol=1e-12)
    single = ah.zeros((3, 4), np.float32)
    ah.matmul(ah.asarray(a[0]), ah.asarray(b), out=single)  # float64 -> float32: same_kind
    np.testing.assert_allclose(single.get(), (a[0] @ b).astype(np.float32), rtol=1e-6)


def test_matmul_errors() -> None:
    with pytest.raises(ValueError, match=r"core dimension 0.*\(size 3 is different from 4\)"
                                         r".*shapes \(3,4\) and \(3,4\)"):
        ah.ones((3, 4)) @ ah.ones((3, 4))
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        ah.matmul(ah.ones((3, 4)), 2.0)
    with pytest.raises(ValueError):  # batch axes that do not broadcast
        ah.ones((2, 3, 4)) @ ah.ones((3, 4, 5))
    with pytest.raises(ValueError, match="Output operand 0"):
        ah.matmul(ah.ones((3, 4)), ah.ones((4, 2)), out=ah.empty((3, 3)))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'matmul' output"):
        ah.matmul(ah.ones((3, 4)), ah.ones((4, 2)), out=ah.zeros((3, 2), np.int64))
    x = ah.ones((3, 4))
    with pytest.raises(ValueError, match="core dimension"):
        x @= ah.ones((4, 2))  # the result would not have x's shape
    with pytest.raises(ValueError, match="inplace matrix multiplication requires"):
        x @= ah.ones(4)
    with pytest.raises(TypeError):  # NumPy arrays are not operands (as CuPy)
        x @ np.ones((4, 2))


# --- dot, vdot, inner, outer, tensordot ------------------------------------------------------

TENSOR_CASES = [
    ("dot", (5,), (5,), {}),
    ("dot", (3, 5), (5,), {}),
    ("dot", (5,), (5, 2), {}),
    ("dot", (3, 5), (5, 2), {}),
    ("dot", (2, 3, 5), (4, 5, 2), {}),   # sum over a's last and b's second-to-last axis
    ("dot", (2, 3, 5), (5,), {}),
    ("dot", (), (3, 4), {}),             # a 0-d operand multiplies
    ("vdot", (5,), (5,), {}),
    ("vdot", (3, 4), (2, 6), {}),        # flattened
    ("inner", (5,), (5,), {}),
    ("inner", (3, 5), (4, 5), {}),
    ("inner", (2, 3, 5), (4, 5), {}),
    ("inner", (3, 4), (), {}),
    ("outer", (5,), (3,), {}),
    ("outer", (2, 3), (4,), {}),         # flattened
    ("tensordot", (3, 4, 5), (4, 5, 2), {"axes": 2}),
    ("tensordot", (3, 4), (4, 5), {"axes": 1}),
    ("tensordot", (3, 4), (2, 5), {"axes": 0}),
    ("tensordot", (3, 4), (3, 4), {"axes": 2}),
    ("tensordot", (2, 3, 4), (2, 3, 4, 5), {"axes": 3}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128,
                                   np.int64], ids=dtype_id)
@pytest.mark.parametrize("case", TENSOR_CASES, ids=lambda c: f"{c[0]}{c[1]}{c[2]}{c[3]}")
def test_tensor_products_match_numpy(rng: np.random.Generator, dtype: Any,
                                     case: tuple[str, tuple[int, ...], tuple[int, ...],
                                                 dict[str, int]]) -> None:
    op, a_shape, b_shape, kwargs = case
    a, b = rand(rng, dtype, a_shape), rand(rng, dtype, b_shape)
    got = getattr(ah, op)(ah.asarray(a), ah.asarray(b), **kwargs)
    assert_product(got, a, b, getattr(np, op), **kwargs)


def test_vdot_conjugates_the_first_operand(rng: np.random.Generator) -> None:
    a, b = rand(rng, np.complex128, (4,)), rand(rng, np.complex128, (4,))
    got = ah.vdot(ah.asarray(a), ah.asarray(b))
    assert got.shape == () and got.dtype == np.complex128
    np.testing.assert_allclose(got.get(), np.vdot(a, b), rtol=1e-12)
    assert not np.isclose(np.vdot(a, b), np.dot(a, b))  # the conjugation matters here


def test_dot_out_must_have_exactly_the_result_dtype(rng: np.random.Generator) -> None:
    # np.dot(a, a, out=float32 array) raises for a float64 result; np.outer casts like a ufunc.
    a = rand(rng, np.float64, (2, 2))
    with pytest.raises(ValueError, match="output array is not acceptable"):
        ah.dot(ah.asarray(a), ah.asarray(a), out=ah.zeros((2, 2), np.float32))
    out = ah.zeros((2, 2), np.float32)
    ah.outer(ah.asarray(a[0]), ah.asarray(a[1]), out=out)
    np.testing.assert_allclose(out.get(), np.outer(a[0], a[1]).astype(np.float32), rtol=1e-6)


def test_products_with_scalars_and_methods(rng: np.random.Generator) -> None:
    a, b = rand(rng, np.float64, (3, 4)), rand(rng, np.float64, (4, 2))
    x = ah.asarray(a)
    assert_product(x.dot(ah.asarray(b)), a, b, np.dot)
    np.testing.assert_allclose(ah.dot(x, 2.5).get(), np.dot(a, 2.5), rtol=1e-15)
    assert ah.dot(2, x).dtype == np.float64
    assert ah.dot(np.float32(2), ah.asarray(a.astype(np.float32))).dtype == np.float32
    out = ah.empty((3, 2))
    assert ah.dot(x, ah.asarray(b), out=out) is out
    np.testing.assert_allclose(out.get(), a @ b, rtol=1e-12)
    out = ah.empty((12, 8))
    assert ah.outer(x, ah.asarray(b), out=out) is out
    np.testing.assert_allclose(out.get(), np.outer(a, b), rtol=1e-15)


def test_tensor_product_errors() -> None:
    with pytest.raises(ValueError, match=r"shapes \(2,3\) and \(4,5\) not aligned"):
        ah.dot(ah.ones((2, 3)), ah.ones((4, 5)))
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        ah.tensordot(ah.ones((2, 3)), ah.ones((4, 5)), axes=1)
    with pytest.raises(ValueError):
        ah.inner(ah.ones((2, 3)), ah.ones((4, 5)))
    with pytest.raises(ValueError):
        ah.vdot(ah.ones(3), ah.ones(4))
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        ah.tensordot(ah.ones((2, 3)), ah.ones((2, 3)), axes=([0], [1]))
    with pytest.raises(ValueError, match=r"too many values to unpack \(expected 2\)"):
        ah.tensordot(ah.ones((2, 3)), ah.ones((2, 3)), axes=([0], [0], [1]))


# --- svd -------------------------------------------------------------------------------------

SVD_SHAPES = [(6, 4), (4, 6), (5, 5), (1, 3), (2, 7, 3), (3, 2, 4)]


@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("shape", SVD_SHAPES, ids=str)
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_reconstructs_and_matches_numpy(rng: np.random.Generator, dtype: np.dtype,
                                            shape: tuple[int, ...],
                                            full_matrices: bool) -> None:
    a = rand(rng, dtype, shape)
    result = ah.linalg.svd(ah.asarray(a), full_matrices=full_matrices)
    assert isinstance(result, tuple) and len(result) == 3
    u, s, vh = result
    expected = np.linalg.svd(a, full_matrices=full_matrices)
    for got, want in zip((u, s, vh), expected):
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want.shape)
    U, S, Vh = u.get(), s.get(), vh.get()
    tol = _FACTOR_TOL[dtype.char]
    k = min(shape[-2:])
    assert np.all(np.diff(S, axis=-1) <= 0) and np.all(S >= 0)  # descending, non-negative
    smax = S.max(axis=-1, keepdims=True)
    assert np.all(np.abs(S - expected.S) <= _VALUE_TOL[dtype.char] * smax)
    assert_orthonormal_columns(U, tol)
    assert_orthonormal_columns(np.swapaxes(Vh, -1, -2).conj(), tol)
    rebuilt = (_wide(U[..., :k]) * S[..., None, :]) @ _wide(Vh[..., :k, :])
    assert fro(rebuilt - a) <= tol * fro(a)


@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX, ids=dtype_id)
def test_svd_values_only(rng: np.random.Generator, dtype: np.dtype) -> None:
    a = rand(rng, dtype, (2, 9, 5))
    s = ah.linalg.svd(ah.asarray(a), compute_uv=False)
    want = np.linalg.svd(a, compute_uv=False)
    assert isinstance(s, ah.ndarray) and s.dtype == want.dtype and s.shape == want.shape
    np.testing.assert_allclose(s.get(), want, rtol=0,
                               atol=_VALUE_TOL[dtype.char] * float(want.max()))


def test_svd_composes_on_the_server(rng: np.random.Generator) -> None:
    """The examples' pattern: (u * s) @ vh and norms, all on the server."""
    a = rand(rng, np.float64, (40, 12))
    x = ah.asarray(a)
    u, s, vh = ah.linalg.svd(x, full_matrices=False)
    error = float(ah.linalg.norm(x - (u * s) @ vh) / ah.linalg.norm(x))
    assert error <= 1e-12


def test_svd_of_rank_deficient_and_integer_input(rng: np.random.Generator) -> None:
    a = (rand(rng, np.float64, (6, 2)) @ rand(rng, np.float64, (2, 5)))
    s = ah.linalg.svd(ah.asarray(a), compute_uv=False).get()
    assert np.all(s[2:] <= 1e-12 * s[0])
    ints = np.arange(12).reshape(4, 3)
    s = ah.linalg.svd(ah.asarray(ints), compute_uv=False)
    assert s.dtype == np.float64
    np.testing.assert_allclose(s.get(), np.linalg.svd(ints, compute_uv=False), rtol=1e-12,
                               atol=1e-12 * 25)


# --- qr --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (2, 5, 3)], ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...],
            mode: str) -> None:
    a = rand(rng, dtype, shape)
    result = ah.linalg.qr(ah.asarray(a), mode=mode)
    expected = np.linalg.qr(a, mode=mode)
    tol = _FACTOR_TOL[dtype.char]
    if mode == "r":
        assert isinstance(result, ah.ndarray)
        r, want_r = result.get(), expected
    else:
        q_remote, r_remote = result
        assert q_remote.dtype == expected.Q.dtype and q_remote.shape == expected.Q.shape
        q, r, want_r = q_remote.get(), r_remote.get(), expected.R
        assert_orthonormal_columns(q, tol)
        assert fro(_wide(q) @ _wide(r) - a) <= tol * fro(a)
    assert r.dtype == want_r.dtype and r.shape == want_r.shape
    assert np.all(np.triu(r) == r)
    # R is unique up to the sign (phase) of each row: compare magnitudes.
    np.testing.assert_allclose(np.abs(r), np.abs(want_r), rtol=0,
                               atol=_VALUE_TOL[dtype.char] * fro(a))


def test_qr_bad_mode() -> None:
    with pytest.raises(ValueError, match="Unrecognized mode 'x'"):
        ah.linalg.qr(ah.ones((3, 3)), mode="x")
    with pytest.raises(NotImplementedError, match="raw"):
        ah.linalg.qr(ah.ones((3, 3)), mode="raw")


# --- cholesky, eigh, eigvalsh ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(rng: np.random.Generator, dtype: np.dtype, batch: tuple[int, ...],
                  upper: bool) -> None:
    a = hermitian_pd(rng, dtype, 5, batch)
    got = ah.linalg.cholesky(ah.asarray(a), upper=upper)
    want = np.linalg.cholesky(a, upper=upper)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.get(), want, rtol=0,
                               atol=_VALUE_TOL[dtype.char] * float(np.abs(want).max()))


def test_cholesky_not_positive_definite() -> None:
    with pytest.raises(ah.linalg.LinAlgError, match="not positive definite"):
        ah.linalg.cholesky(ah.asarray(-np.eye(3)))


@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("batch", [(), (2, 3)], ids=str)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(rng: np.random.Generator, dtype: np.dtype, batch: tuple[int, ...],
              uplo: str) -> None:
    h = hermitian(rng, dtype, 6, batch)
    # Garbage in the triangle eigh must not read: NumPy uses only the UPLO one.
    noise = rand(rng, dtype, h.shape)
    keep = np.tril(np.ones((6, 6), bool)) if uplo == "L" else np.triu(np.ones((6, 6), bool))
    a = np.where(keep, h, noise).astype(dtype)
    w, v = ah.linalg.eigh(ah.asarray(a), UPLO=uplo)
    want = np.linalg.eigh(a, UPLO=uplo)
    assert w.dtype == want.eigenvalues.dtype and w.shape == want.eigenvalues.shape
    assert v.dtype == want.eigenvectors.dtype and v.shape == want.eigenvectors.shape
    W, V = w.get(), v.get()
    scale = float(np.abs(want.eigenvalues).max())
    tol = _FACTOR_TOL[dtype.char]
    np.testing.assert_allclose(W, want.eigenvalues, rtol=0,
                               atol=_VALUE_TOL[dtype.char] * scale)
    assert np.all(np.diff(W, axis=-1) >= 0)
    assert_orthonormal_columns(V, tol)
    residual = _wide(h) @ _wide(V) - _wide(V) * W[..., None, :]
    assert fro(residual) <= 10 * tol * fro(h)
    values = ah.linalg.eigvalsh(ah.asarray(a), UPLO=uplo)
    assert values.dtype == want.eigenvalues.dtype
    np.testing.assert_allclose(values.get(), want.eigenvalues, rtol=0,
                               atol=_VALUE_TOL[dtype.char] * scale)


def _sorted_eigenvalues(w: np.ndarray) -> np.ndarray:
    """Eigenvalues in a canonical order (by real part, then imaginary), per matrix."""
    return np.take_along_axis(w, np.lexsort((w.imag, w.real), axis=-1), axis=-1)


@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX + [np.dtype(np.int32)], ids=dtype_id)
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
def test_eig(rng: np.random.Generator, dtype: np.dtype, batch: tuple[int, ...]) -> None:
    a = rand(rng, dtype, batch + (7, 7))
    w, v = ah.linalg.eig(ah.asarray(a))
    want = np.linalg.eig(a)
    # Complex always (as CuPy's), of NumPy's precision.
    complex_dtype = np.result_type(want.eigenvalues.dtype, np.complex64)
    assert w.dtype == complex_dtype and w.shape == want.eigenvalues.shape
    assert v.dtype == complex_dtype and v.shape == want.eigenvectors.shape
    W, V = w.get(), v.get()
    tol = _FACTOR_TOL["d" if complex_dtype == np.complex128 else "f"]
    scale = fro(a)
    np.testing.assert_allclose(_sorted_eigenvalues(W), _sorted_eigenvalues(
        want.eigenvalues.astype(complex_dtype)), rtol=0, atol=100 * tol * scale)
    residual = _wide(a) @ _wide(V) - _wide(V) * W[..., None, :]
    assert fro(residual) <= 100 * tol * scale
    np.testing.assert_allclose(np.linalg.norm(_wide(V), axis=-2), 1, atol=10 * tol)
    values = ah.linalg.eigvals(ah.asarray(a))
    assert values.dtype == complex_dtype and values.shape == W.shape
    np.testing.assert_allclose(_sorted_eigenvalues(values.get()), _sorted_eigenvalues(W),
                               rtol=0, atol=100 * tol * scale)


def test_eig_refuses_what_numpy_refuses() -> None:
    with pytest.raises(np.linalg.LinAlgError, match="Array must not contain infs or NaNs"):
        ah.linalg.eig(ah.asarray(np.array([[1.0, np.nan], [0.0, 1.0]])))
    with pytest.raises(np.linalg.LinAlgError, match="Last 2 dimensions of the array must be "
                                                    "square"):
        ah.linalg.eigvals(ah.ones((2, 3)))
    empty = ah.linalg.eigvals(ah.ones((4, 0, 0)))
    assert empty.shape == (4, 0) and empty.dtype == np.complex128


def test_eigh_bad_uplo() -> None:
    with pytest.raises(ValueError, match="UPLO argument must be 'L' or 'U'"):
        ah.linalg.eigh(ah.eye(3), UPLO="X")


# --- solve, inv, det, slogdet ----------------------------------------------------------------

def well_conditioned(rng: np.random.Generator, dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
    n = shape[-1]
    return (rand(rng, dtype, shape) + 2 * np.sqrt(n) * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((4, 4), (4,)), ((4, 4), (4, 3)), ((2, 4, 4), (2, 4, 3)),
                                    ((2, 4, 4), (4,)), ((3, 1, 4, 4), (2, 4, 1))], ids=str)
def test_solve(rng: np.random.Generator, dtype: np.dtype,
               shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    a, b = well_conditioned(rng, dtype, shapes[0]), rand(rng, dtype, shapes[1])
    got = ah.linalg.solve(ah.asarray(a), ah.asarray(b))
    want = np.linalg.solve(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.get(), want, rtol=0,
                               atol=_VALUE_TOL[dtype.char] * float(np.abs(want).max()))


@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (3, 4, 4)], ids=str)
def test_inv_det_slogdet(rng: np.random.Generator, dtype: np.dtype,
                         shape: tuple[int, ...]) -> None:
    a = well_conditioned(rng, dtype, shape)
    x = ah.asarray(a)
    tol = _VALUE_TOL[dtype.char]
    inverse, want = ah.linalg.inv(x), np.linalg.inv(a)
    assert inverse.dtype == want.dtype and inverse.shape == want.shape
    np.testing.assert_allclose(inverse.get(), want, rtol=0, atol=tol * float(np.abs(want).max()))
    det, want = ah.linalg.det(x), np.linalg.det(a)
    assert det.dtype == want.dtype and det.shape == np.shape(want)
    np.testing.assert_allclose(det.get(), want, rtol=tol)
    sign, logabsdet = ah.linalg.slogdet(x)
    want = np.linalg.slogdet(a)
    assert sign.dtype == want.sign.dtype and logabsdet.dtype == want.logabsdet.dtype
    assert sign.shape == np.shape(want.sign)
    np.testing.assert_allclose(sign.get(), want.sign, rtol=tol, atol=tol)
    np.testing.assert_allclose(logabsdet.get(), want.logabsdet, rtol=tol, atol=tol)


def test_integer_input_computes_in_float64() -> None:
    a = np.array([[2, 1], [1, 3]])
    for name in ("inv", "det"):
        got = getattr(ah.linalg, name)(ah.asarray(a))
        want = getattr(np.linalg, name)(a)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got.get(), want, rtol=1e-14)


def test_singular_matrices() -> None:
    singular = ah.asarray(np.array([[1.0, 2.0], [2.0, 4.0]]))
    for call in (lambda: ah.linalg.inv(singular), lambda: ah.linalg.solve(singular, ah.ones(2)),
                 lambda: ah.linalg.inv(ah.zeros((3, 3)))):
        with pytest.raises(ah.linalg.LinAlgError, match="Singular matrix") as raised:
            call()
            ah.synchronize()  # Found in the data: a queued inv raises at the next wait.
        assert isinstance(raised.value, ValueError)
        assert isinstance(raised.value, np.linalg.LinAlgError)
        assert isinstance(raised.value, ah.ArrayHubLinAlgError)
        assert raised.value.code is not None and raised.value.code.name == "FAILED_PRECONDITION"
    assert float(ah.linalg.det(ah.zeros((3, 3)))) == 0.0
    sign, logabsdet = ah.linalg.slogdet(ah.zeros((3, 3)))
    assert float(sign) == 0.0 and float(logabsdet) == -np.inf


def test_linalg_argument_errors() -> None:
    assert issubclass(ah.linalg.LinAlgError, ValueError)
    with pytest.raises(ah.linalg.LinAlgError, match="Last 2 dimensions of the array must be "
                                                    "square"):
        ah.linalg.inv(ah.ones((2, 3)))
    with pytest.raises(ah.linalg.LinAlgError, match="1-dimensional array given"):
        ah.linalg.det(ah.ones(3))
    with pytest.raises(TypeError, match="array type float16 is unsupported in linalg"):
        ah.linalg.inv(ah.eye(3, dtype=np.float16))
    with pytest.raises(ValueError, match=r"solve.*mismatch in its core dimension"):
        ah.linalg.solve(ah.eye(3), ah.ones(2))
    with pytest.raises(ah.linalg.LinAlgError, match="Incompatible dimensions"):
        ah.linalg.lstsq(ah.ones((2, 3)), ah.ones(3))
    with pytest.raises(TypeError):  # NumPy arrays must be uploaded first (as CuPy)
        ah.linalg.inv(np.eye(3))


# --- norm ------------------------------------------------------------------------------------

VECTOR_ORDS = [None, 2, 1, np.inf, -np.inf, 0, 0.5, 3, -1, 2.0]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX + [np.dtype(np.int32)], ids=dtype_id)
def test_norm_variants(rng: np.random.Generator, dtype: np.dtype) -> None:
    tol = _VALUE_TOL.get(dtype.char, 1e-10)
    v = rand(rng, dtype, (7,))
    m = rand(rng, dtype, (4, 5))
    t = rand(rng, dtype, (3, 4, 5))
    cases: list[tuple[np.ndarray, Any, Any, bool]] = []
    cases += [(v, ord, None, False) for ord in VECTOR_ORDS]
    cases += [(m, ord, None, False) for ord in MATRIX_ORDS]
    cases += [(t, None, None, False), (t, None, None, True), (m, None, None, True)]
    cases += [(t, ord, axis, keepdims) for ord in (None, 1, np.inf, 0.5)
              for axis in (0, -1, 1) for keepdims in (False, True)]
    cases += [(t, ord, axis, keepdims) for ord in (None, "fro", "nuc", 1, -np.inf, 2)
              for axis in ((1, 2), (2, 0), (-1, -2)) for keepdims in (False, True)]
    for x, ord, axis, keepdims in cases:
        got = ah.linalg.norm(ah.asarray(x), ord=ord, axis=axis, keepdims=keepdims)
        with np.errstate(divide="ignore"):  # negative orders of vectors holding a zero
            want = np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
        where = f"norm(shape {x.shape}, ord={ord!r}, axis={axis}, keepdims={keepdims})"
        assert got.dtype == want.dtype, where
        assert got.shape == np.shape(want), where
        np.testing.assert_allclose(got.get(), want, rtol=tol, err_msg=where)


def test_norm_errors() -> None:
    with pytest.raises(ValueError, match="Invalid norm order 'fro' for vectors"):
        ah.linalg.norm(ah.ones(3), "fro")
    with pytest.raises(ValueError, match="Invalid norm order for matrices"):
        ah.linalg.norm(ah.ones((3, 3)), 3)
    with pytest.raises(ValueError, match="Improper number of dimensions to norm"):
        ah.linalg.norm(ah.ones((2, 2, 2)), 1)
    with pytest.raises(ValueError, match="Duplicate axes given"):
        ah.linalg.norm(ah.ones((2, 2)), axis=(0, 0))
    with pytest.raises(np.exceptions.AxisError):
        ah.linalg.norm(ah.ones((2, 2)), axis=2)


# --- lstsq -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_AND_COMPLEX, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((8, 3), (8,)), ((8, 3), (8, 2)), ((3, 6), (3,)),
                                    ((5, 5), (5, 2))], ids=str)
def test_lstsq(rng: np.random.Generator, dtype: np.dtype,
               shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    a, b = rand(rng, dtype, shapes[0]), rand(rng, dtype, shapes[1])
    x, residuals, rank, s = ah.linalg.lstsq(ah.asarray(a), ah.asarray(b))
    want = np.linalg.lstsq(a, b)
    _compare_lstsq((x, residuals, rank, s), want, dtype)


def test_lstsq_rank_deficient_and_rcond(rng: np.random.Generator) -> None:
    a = rand(rng, np.float64, (8, 2)) @ rand(rng, np.float64, (2, 4))  # rank 2
    b = rand(rng, np.float64, (8, 3))
    got = ah.linalg.lstsq(ah.asarray(a), ah.asarray(b))
    want = np.linalg.lstsq(a, b)
    assert want[2] == 2
    _compare_lstsq(got, want, np.dtype(np.float64))
    full = rand(rng, np.float64, (8, 4)) * np.array([1, 1, 1, 1e-3])
    for rcond in (None, 1e-2, 1e-6):
        _compare_lstsq(ah.linalg.lstsq(ah.asarray(full), ah.asarray(b), rcond=rcond),
                       np.linalg.lstsq(full, b, rcond=rcond), np.dtype(np.float64))


def _compare_lstsq(got: tuple[Any, ...], want: tuple[Any, ...], dtype: np.dtype) -> None:
    x, residuals, rank, s = got
    assert isinstance(rank, int) and rank == want[2]
    tol = _VALUE_TOL[dtype.char]
    for name, remote, expected in (("x", x, want[0]), ("residuals", residuals, want[1]),
                                   ("s", s, want[3])):
        assert isinstance(remote, ah.ndarray), name
        assert remote.dtype == expected.dtype, (name, remote.dtype, expected.dtype)
        assert remote.shape == expected.shape, (name, remote.shape, expected.shape)
        scale = float(np.abs(expected).max()) if expected.size else 1.0
        np.testing.assert_allclose(remote.get(), expected, rtol=0, atol=tol * scale,
                                   err_msg=name)


def test_cond_tensorinv_tensorsolve_match_numpy(rng: np.random.Generator) -> None:
    a = well_conditioned(rng, np.float64, (3, 4, 4))
    for p in (None, 2, -2, 1, -1, "fro", np.inf):
        np.testing.assert_allclose(ah.linalg.cond(ah.asarray(a), p).get(), np.linalg.cond(a, p),
                                   rtol=1e-10)
    t = well_conditioned(rng, np.float64, (6, 6)).reshape(6, 2, 3)
    np.testing.assert_allclose(ah.linalg.tensorinv(ah.asarray(t), ind=1).get(),
                               np.linalg.tensorinv(t, ind=1), rtol=1e-9, atol=1e-12)
    b = rand(rng, np.float64, (6,))
    np.testing.assert_allclose(ah.linalg.tensorsolve(ah.asarray(t), ah.asarray(b)).get(),
                               np.linalg.tensorsolve(t, b), rtol=1e-9, atol=1e-12)
    with pytest.raises(np.linalg.LinAlgError, match="Input arrays must satisfy"):
        ah.linalg.tensorsolve(ah.asarray(t), ah.ones((6, 1)))
