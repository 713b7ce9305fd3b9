"""Every ufunc, through functions and operators, against NumPy on random inputs of every
dtype: result dtypes (NumPy 2 promotion), values, and the errors NumPy raises."""

from __future__ import annotations

import operator
import warnings
import zlib
from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from arrayhub._ufunc_names import UFUNC_NAMES
from conftest import ALL_DTYPES, assert_matches, random_values

pytestmark = pytest.mark.requires_compute("Elementwise")

# Every ufunc of the server's table (clip, a function, has its own tests).
UNARY = [name for name, nin, _ in UFUNC_NAMES if nin == 1]
BINARY = [name for name, nin, _ in UFUNC_NAMES if nin == 2]
ALIASES = [(alias, name) for name, _, aliases in UFUNC_NAMES for alias in aliases]
N = 257  # odd: exercises vector tails on the server
# NumPy 2.1 made floor and ceil of integers keep the integer dtype; the server follows it.
_INTEGER_FLOOR_IS_FLOAT = np.lib.NumpyVersion(np.__version__) < "2.1.0"


def _inputs(op: str, dtype: np.dtype, rng: np.random.Generator) -> list[np.ndarray]:
    """Random operands; exponents and shift counts stay where NumPy defines the result."""
    arity = 1 if op in UNARY else 2
    args = [random_values(rng, dtype, (N,)) for _ in range(arity)]
    if dtype.kind in "iu" and op == "power":
        args[1] = rng.integers(0, 8, N).astype(dtype)
    if dtype.kind in "iu" and op in ("left_shift", "right_shift"):
        args[1] = rng.integers(0, dtype.itemsize * 8 + 3, N).astype(dtype)
    return args


def _numpy(function: Callable[..., Any], *args: Any) -> Any:
    """NumPy's result, or the built-in exception class NumPy raises (OverflowError,
    TypeError or ValueError)."""
    with np.errstate(all="ignore"):
        try:
            return function(*args)
        except (OverflowError, TypeError, ValueError) as error:
            return next(c for c in (OverflowError, TypeError, ValueError) if isinstance(error, c))


def _check(got: Callable[[], Any], expected: Any) -> None:
    if isinstance(expected, type):
        with pytest.raises(expected):
            got()
    else:
        assert_matches(got(), expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", UNARY + BINARY)
def test_ufunc_matches_numpy(op: str, dtype: np.dtype) -> None:
    if _INTEGER_FLOOR_IS_FLOAT and op in ("floor", "ceil") and dtype.kind in "biu":
        pytest.skip(f"NumPy {np.__version__} < 2.1 gives floats for {op} of integers; the "
                    f"server follows NumPy >= 2.1")
    rng = np.random.default_rng(zlib.crc32(f"{op}-{dtype}".encode()))
    host = _inputs(op, dtype, rng)
    remote = [ah.asarray(a) for a in host]
    _check(lambda: getattr(ah, op)(*remote), _numpy(getattr(np, op), *host))


@pytest.mark.parametrize("alias, name", ALIASES)
def test_numpy_aliases_are_the_same_ufunc(alias: str, name: str) -> None:
    assert getattr(ah, alias) is getattr(ah, name)
    integral = name in ("invert", "left_shift", "right_shift")
    x = ah.asarray([1, 2]) if integral else ah.asarray([0.25, 0.5])
    args = (x,) if getattr(ah, name).nin == 1 else (x, x)
    assert_matches(getattr(ah, alias)(*args), getattr(np, alias)(*(a.get() for a in args)))


BINARY_OPERATORS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("+", operator.add), ("-", operator.sub), ("*", operator.mul), ("/", operator.truediv),
    ("//", operator.floordiv), ("%", operator.mod), ("**", operator.pow),
    ("&", operator.and_), ("|", operator.or_), ("^", operator.xor), ("<<", operator.lshift),
    (">>", operator.rshift), ("==", operator.eq), ("!=", operator.ne), ("<", operator.lt),
    ("<=", operator.le), (">", operator.gt), (">=", operator.ge)]
OPERATOR_DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.uint16, np.int64, np.float16,
                                         np.float64, np.complex64)]


@pytest.mark.parametrize("dtype", OPERATOR_DTYPES, ids=str)
@pytest.mark.parametrize("symbol, function", BINARY_OPERATORS, ids=[b[0] for b in BINARY_OPERATORS])
def test_binary_operators(symbol: str, function: Callable[[Any, Any], Any],
                          dtype: np.dtype) -> None:
    rng = np.random.default_rng(7)
    a = random_values(rng, dtype, (4, 5))
    b = random_values(rng, dtype, (5,))  # broadcasts
    if dtype.kind in "iu" and symbol in ("**", "<<", ">>"):
        # Exponents and shifts where NumPy defines the result (both ways round).
        a = rng.integers(0, 6, (4, 5)).astype(dtype)
        b = rng.integers(0, 6, 5).astype(dtype)
    x, y = ah.asarray(a), ah.asarray(b)
    _check(lambda: function(x, y), _numpy(function, a, b))
    _check(lambda: function(x, b[0].item()), _numpy(function, a, b[0].item()))  # weak scalar
    _check(lambda: function(b[1].item(), x), _numpy(function, b[1].item(), a))  # reflected


@pytest.mark.parametrize("dtype", OPERATOR_DTYPES, ids=str)
def test_unary_operators(dtype: np.dtype) -> None:
    a = random_values(np.random.default_rng(3), dtype, (6,))
    x = ah.asarray(a)
    _check(lambda: -x, _numpy(operator.neg, a))
    _check(lambda: abs(x), _numpy(abs, a))
    _check(lambda: ~x, _numpy(operator.invert, a))


@pytest.mark.parametrize("symbol, function", [
    ("+=", operator.iadd), ("-=", operator.isub), ("*=", operator.imul),
    ("//=", operator.ifloordiv), ("%=", operator.imod), ("**=", operator.ipow),
    ("&=", operator.iand), ("|=", operator.ior), ("^=", operator.ixor),
    ("<<=", operator.ilshift), (">>=", operator.irshift)])
def test_in_place_operators_update_the_same_server_array(symbol: str, function: Any) -> None:
    a = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    x = ah.asarray(a)
    handle = x.handle
    y = function(x, 3)
    assert y is x and x.handle == handle
    np.testing.assert_array_equal(x.get(), function(a.copy(), 3))


def test_in_place_true_divide_of_integers_is_numpys_type_error() -> None:
    x = ah.arange(3)
    with pytest.raises(TypeError, match="Cannot cast ufunc '(true_)?divide' output"):
        x /= 2
    y = ah.arange(3, dtype=np.float32)
    y /= 2
    assert_matches(y, np.arange(3, dtype=np.float32) / 2)


def test_out_argument_writes_into_an_existing_array() -> None:
    a, b = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    out = ah.zeros((2, 3))
    result = ah.add(ah.asarray(a), ah.asarray(b), out=out)
    assert result is out
    np.testing.assert_array_equal(out.get(), a + b)
    ah.multiply(out, 2, out)  # positional out, as NumPy allows
    np.testing.assert_array_equal(out.get(), (a + b) * 2)


def test_dtype_argument() -> None:
    a = np.array([100, 120], np.int8)
    assert_matches(ah.add(ah.asarray(a), ah.asarray(a), dtype=np.int16),
                   np.add(a, a, dtype=np.int16))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("scalar", [True, 3, -2, 300, 2**40, 2.5, -1.5j], ids=repr)
def test_python_scalars_are_weak(dtype: np.dtype, scalar: Any) -> None:
    a = random_values(np.random.default_rng(5), dtype, (5,))
    _check(lambda: ah.asarray(a) + scalar, _numpy(operator.add, a, scalar))
    _check(lambda: ah.multiply(scalar, ah.asarray(a)), _numpy(np.multiply, scalar, a))


def test_numpy_scalars_keep_their_dtype() -> None:
    a = np.arange(4, dtype=np.int8)
    assert_matches(ah.asarray(a) + np.int16(3), a + np.int16(3))
    assert_matches(ah.asarray(a) * np.float32(0.5), a * np.float32(0.5))
    assert_matches(np.float64(2.0) - ah.asarray(a), np.float64(2.0) - a)


def test_python_integer_out_of_bounds_is_an_overflow_error() -> None:
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        ah.asarray(np.ones(2, np.uint8)) + 300


@pytest.mark.parametrize("shape_a, shape_b", [((3, 4), (5,)), ((2, 3), (3, 2)),
                                              ((4, 1, 3), (2, 4))])
def test_broadcasting_errors_are_numpys_value_error(shape_a: tuple, shape_b: tuple) -> None:
    with pytest.raises(ValueError) as expected:
        np.add(np.zeros(shape_a), np.zeros(shape_b))
    with pytest.raises(ValueError) as got:
        ah.add(ah.zeros(shape_a), ah.zeros(shape_b))
    assert str(got.value).strip() == str(expected.value).strip()


def test_broadcasting_matches_numpy() -> None:
    rng = np.random.default_rng(11)
    a, b = rng.normal(size=(4, 1, 3)), rng.normal(size=(2, 1))
    assert_matches(ah.asarray(a) * ah.asarray(b), a * b)
    assert_matches(ah.asarray(a) + ah.full((), 2.0), a + 2.0)


def test_integer_overflow_wraps() -> None:
    assert_matches(ah.asarray(np.array([127, -128], np.int8)) + 1,
                   np.array([127, -128], np.int8) + 1)
    top = np.array([np.iinfo(np.uint64).max], np.uint64)
    assert_matches(ah.asarray(top) + 1, top + 1)
    big = np.array([2**31 - 1, -(2**31)], np.int32)
    with np.errstate(over="ignore"):
        assert_matches(ah.asarray(big) * 3, big * 3)
        assert_matches(-ah.asarray(big), -big)
        assert_matches(abs(ah.asarray(big)), abs(big))
    assert (ah.asarray(np.array([200], np.uint8)) * 2).tolist() == [144]


def test_where_and_clip() -> None:
    rng = np.random.default_rng(13)
    condition = rng.integers(0, 2, (3, 4)).astype(bool)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    assert_matches(ah.where(ah.asarray(condition), ah.asarray(a), ah.asarray(b)),
                   np.where(condition, a, b))
    assert_matches(ah.where(ah.asarray(condition), ah.asarray(a), -1.0),
                   np.where(condition, a, -1.0))
    assert_matches(ah.clip(ah.asarray(a), -0.5, 0.5), np.clip(a, -0.5, 0.5))
    assert_matches(ah.asarray(a).clip(max=0.1), np.clip(a, None, 0.1))
    assert_matches(ah.asarray(a).clip(min=0.1), np.clip(a, 0.1, None))


_CLIP_X = [-0.0, 0.0, -0.0, 0.0, 0.5, np.nan]


def _assert_same_zeros(got: ah.ndarray, expected: np.ndarray) -> None:
    assert_matches(got, expected)
    assert np.signbit(got.get()).tolist() == np.signbit(expected).tolist()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_clip_ties_of_signed_zeros_are_numpys(dtype: type) -> None:
    """On a +-0 tie with bounds that are arrays, NumPy's float16 clip keeps the value and its
    float32/float64 loops take the bound; float16 keeps it with scalar bounds too
    (np.clip(np.float16(-0.0), 0, 1) is -0.0). The sign of each zero is compared."""
    x = np.array(_CLIP_X, dtype)
    low = np.array([0.0, -0.0, -1.0, -1.0, 0.5, 0.0], dtype)
    high = np.array([1.0, 1.0, 0.0, -0.0, 0.5, 1.0], dtype)
    _assert_same_zeros(ah.clip(ah.asarray(x), ah.asarray(low), ah.asarray(high)),
                       np.clip(x, low, high))
    if dtype == np.float16:
        _assert_same_zeros(ah.clip(ah.asarray(x), 0, 1), np.clip(x, 0, 1))
        _assert_same_zeros(ah.clip(ah.asarray(x), -1, 0), np.clip(x, -1, 0))


@pytest.mark.xfail(strict=True, reason="NumPy's float32/float64 clip keeps the value on a tie "
                   "when both bounds are constant along its inner loop (clip.cpp's "
                   "_npy_clip_const_minmax_); the server takes the bound, as for array bounds")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_ties_with_constant_bounds_keep_the_value(dtype: type) -> None:
    x = np.array(_CLIP_X, dtype)
    _assert_same_zeros(ah.clip(ah.asarray(x), 0, 1), np.clip(x, 0, 1))


def test_divmod() -> None:
    a = np.array([-7, -3, 0, 5, 9], np.int16)
    quotient, remainder = divmod(ah.asarray(a), 4)
    assert_matches(quotient, a // 4)
    assert_matches(remainder, a % 4)


def test_numpy_ufuncs_dispatch_to_the_server() -> None:
    a = np.linspace(0.1, 2, 7)
    x = ah.asarray(a)
    assert_matches(np.exp(x), np.exp(a))
    assert_matches(np.add(x, 1.0), a + 1.0)
    with pytest.raises(TypeError):
        np.ones(7) + x  # NumPy arrays are not uploaded implicitly (as in CuPy)


SAME_KIND_CASTS = [(s, t) for s in ALL_DTYPES for t in ALL_DTYPES
                   if np.can_cast(s, t, "same_kind")]


@pytest.mark.parametrize("source, target", SAME_KIND_CASTS, ids=str)
def test_astype_matches_numpy(source: np.dtype, target: np.dtype) -> None:
    """Casts NumPy allows under same_kind rules; the others need ArrayOp (see
    test_not_yet_implemented.py)."""
    values = np.random.default_rng(17).uniform(0, 100, 11)
    if source.kind in "biu":
        values = np.floor(values)
    a = values.astype(source)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        expected = a.astype(target)
    got = ah.asarray(a).astype(target)
    assert_matches(got, expected)


def test_copy_is_a_new_array() -> None:
    x = ah.arange(5)
    y = x.copy()
    assert y.handle != x.handle
    x += 1
    assert y.tolist() == [0, 1, 2, 3, 4]
    assert ah.asarray(x, dtype=np.int64) is x
    assert ah.array(x).handle != x.handle


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_cbrt_matches_numpy_on_special_values(dtype: str) -> None:
    """cbrt, ufuncs.def's demonstration row: real cube roots, signed zeros kept."""
    x = np.array([-8.0, -0.0, 0.0, 27.0, np.inf, -np.inf, np.nan, 2.0, 1e-30, -3e4], dtype)
    got = ah.cbrt(ah.asarray(x))
    assert_matches(got, np.cbrt(x))
    assert np.array_equal(np.signbit(got.get()), np.signbit(np.cbrt(x)))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64"])
def test_cbrt_of_integers_takes_numpys_float_loop(dtype: str) -> None:
    x = np.arange(-5, 6).astype(dtype)
    assert_matches(ah.cbrt(ah.asarray(x)), np.cbrt(x))
    with pytest.raises(TypeError):
        ah.cbrt(ah.asarray(x), dtype=np.int64)  # No integer loop, as NumPy.
    assert_matches(ah.cbrt(ah.asarray(x), dtype=np.float64), np.cbrt(x, dtype=np.float64))


# ufuncs.def's rows after cbrt, each also checked on NumPy's special values below.
REGISTRY_UFUNCS = ["exp2", "reciprocal", "trunc", "fmax", "fmin", "copysign", "logaddexp",
                   "logaddexp2", "deg2rad", "rad2deg", "signbit", "heaviside", "fmod",
                   "float_power", "nextafter", "gcd", "lcm", "fabs", "bitwise_count"]
# Ties of +0.0 and -0.0 in NumPy's fmax and fmin keep the first or the second operand
# depending on the element's position in NumPy's SIMD loop: not compared.
_ZERO_TIES_UNSPECIFIED = {"fmax", "fmin"}


def _special_values(op: str, dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "b":
        return np.array([False, True])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = [v for v in range(-7, 8) if info.min <= v <= info.max]
        values += [int(info.min), int(info.min) + 1, int(info.max) - 1, int(info.max)]
        if op == "reciprocal":  # NumPy's 1 / 0 is the platform's: tested on its own.
            values = [v for v in values if v != 0]
        return np.array(values, dtype)
    reals = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.5, 27.0, 1e-30, -3e4, np.inf, -np.inf, np.nan]
    if dtype.kind == "f":
        return np.array(reals, dtype)
    re, im = np.meshgrid(reals[::2], reals[1::2])
    values = np.empty(re.size, dtype)
    values.real, values.imag = re.ravel(), im.ravel()
    return values


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=str)
def test_complex_log_keeps_the_tiny_real_part_near_the_unit_circle(dtype: type) -> None:
    """log|z| for |z| close to 1 is tiny; log(hypot(x, y)) rounds it to 0 or to noise, NumPy's
    clog keeps it (log|1e-30 - i| = 5e-61). cpow's b log a depends on it when b is infinite."""
    z = np.array([1e-30 - 1j, 1 + 1e-10j, 0.6 + 0.8j, 0.8 - 0.6j, 1.5 + 0.2j, 0.7 + 0.71j,
                  0.9999999 + 1e-4j, -0.5 + 0.866j, 3 + 4j, 1e-300 + 1e-300j], dtype)
    got = ah.log(ah.asarray(z)).get()
    with np.errstate(divide="ignore"):  # complex64's 1e-300 is 0
        want = np.log(z)
    rtol = 1e-12 if dtype == np.complex128 else 2e-6
    np.testing.assert_allclose(got.real, want.real, rtol=rtol, atol=0)
    np.testing.assert_allclose(got.imag, want.imag, rtol=rtol, atol=0)
    b = np.array([np.inf - np.inf * 1j], dtype)
    with np.errstate(all="ignore"):
        expected = np.float_power(z[:1], b)  # NaN: b log z's real part is inf * 5e-61 - inf
    assert_matches(ah.float_power(ah.asarray(z[:1]), ah.asarray(b)), expected)


def _signs(values: np.ndarray) -> np.ndarray:
    """Signs of the real (and imaginary) parts, NaN's sign left out."""
    parts = [values.real, values.imag] if values.dtype.kind == "c" else [values]
    return np.stack([np.where(np.isnan(p), False, np.signbit(p)) for p in parts])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", REGISTRY_UFUNCS)
def test_registry_ufuncs_match_numpy_on_special_values(op: str, dtype: np.dtype) -> None:
    """Signed zeros, infinities, NaN and integer limits, every pair of them for binary ufuncs:
    NumPy's values and signs, or NumPy's error for a dtype without a loop."""
    ufunc = getattr(np, op)
    values = _special_values(op, dtype)
    if ufunc.nin == 1:
        host = [values]
    else:
        first, second = np.meshgrid(values, values)
        host = [first.ravel(), second.ravel()]
    expected = _numpy(ufunc, *host) if op != "nextafter" else _nextafter(*host)
    _check(lambda: getattr(ah, op)(*(ah.asarray(h) for h in host)), expected)
    if isinstance(expected, type) or expected.dtype.kind not in "fc":
        return
    got = getattr(ah, op)(*(ah.asarray(h) for h in host)).get()
    compared = np.ones(expected.shape, bool)
    if op in _ZERO_TIES_UNSPECIFIED:
        compared = ~((host[0] == 0) & (host[1] == 0))
    np.testing.assert_array_equal(_signs(got)[:, compared], _signs(expected)[:, compared])


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint64"])
def test_reciprocal_of_integer_zero_is_zero(dtype: str) -> None:
    """NumPy converts 1.0 / 0 to the integer type, which C leaves undefined: the server gives 0
    (ufuncs.def), as for x // 0."""
    x = np.array([0, 1, 2], dtype)
    assert ah.reciprocal(ah.asarray(x)).tolist() == [0, 1, 0]


def test_new_aliases_are_numpys_other_ufuncs() -> None:
    """radians and degrees are ufuncs of their own in NumPy, with deg2rad's and rad2deg's
    values: here they are the same ufunc."""
    x = np.array([-720.0, -0.0, 45.0, 1e-30, np.inf, np.nan], np.float32)
    assert_matches(ah.radians(ah.asarray(x)), np.radians(x))
    assert_matches(ah.degrees(ah.asarray(x)), np.degrees(x))


def _nextafter(x: np.ndarray, y: np.ndarray) -> Any:
    """NumPy's nextafter as of NumPy 2.5, whose float16 loop gives y for equal operands (+0.0
    and -0.0 too), as C's and its other loops do; NumPy < 2.5 gave x there (numpy#31472)."""
    with np.errstate(all="ignore"):
        result = _numpy(np.nextafter, x, y)
    if isinstance(result, type) or x.dtype != np.float16:
        return result
    return np.where(x == y, y, result)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nextafter_steps_one_unit_of_the_dtype(dtype: str) -> None:
    """float16 steps float16's bits (NumPy's own loop), not a float's."""
    x = np.array([0.0, -0.0, 1.0, -1.0, 65504.0, np.inf, 6e-8, 0.0, -0.0], dtype)
    y = np.array([1.0, -1.0, 2.0, 0.0, np.inf, 0.0, 0.0, -0.0, 0.0], dtype)
    got = ah.nextafter(ah.asarray(x), ah.asarray(y)).get()
    assert got.tobytes() == _nextafter(x, y).tobytes()


def test_integer_fmod_gcd_lcm_of_limits_wrap_as_numpy() -> None:
    a = np.array([-128, -128, -128, 0, 0, -7, 7, -6, 127, 64], np.int8)
    b = np.array([-1, 0, -128, 0, -128, 2, -2, -4, -128, 3], np.int8)
    for op in ("fmod", "gcd", "lcm"):
        with np.errstate(divide="ignore"):  # fmod by 0: 0, with NumPy's warning.
            want = getattr(np, op)(a, b)
        assert_matches(getattr(ah, op)(ah.asarray(a), ah.asarray(b)), want)
    big = np.array([2**62, -(2**63), 0], np.int64)
    assert_matches(ah.lcm(ah.asarray(big), 3), np.lcm(big, 3))
    assert_matches(ah.gcd(ah.asarray(big), 0), np.gcd(big, 0))
