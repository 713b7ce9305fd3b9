"""Random arrays: bounds, dtypes, seeds and rough statistics."""

from __future__ import annotations

import re

import numpy as np
import pytest

import arrayhub as ah

pytestmark = pytest.mark.requires_compute("Random")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_uniform_bounds_and_dtype(dtype: type) -> None:
    values = ah.random.uniform(-2.0, 3.0, size=100000, dtype=dtype).get()
    assert values.dtype == dtype and values.shape == (100000,)
    assert values.min() >= -2.0 and values.max() < 3.0
    assert abs(values.mean() - 0.5) < 0.03
    unit = ah.random.random((200, 300), dtype=dtype).get()
    assert unit.shape == (200, 300) and unit.min() >= 0 and unit.max() < 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_normal_statistics(dtype: type) -> None:
    values = ah.random.normal(1.0, 2.0, size=200000, dtype=dtype).get()
    assert values.dtype == dtype
    assert abs(values.mean() - 1.0) < 0.03 and abs(values.std() - 2.0) < 0.03
    standard = ah.random.standard_normal(100000).get()
    assert abs(standard.mean()) < 0.03 and abs(standard.std() - 1.0) < 0.03


@pytest.mark.parametrize("dtype, low, high", [
    (np.int8, -100, 100), (np.uint8, 0, 256), (np.int16, -3, 4), (np.int32, -(2**31), 2**31 - 1),
    (np.int64, 10, 20), (np.uint32, 5, 6), (np.uint64, 0, 2**40)], ids=str)
def test_integers_bounds_and_dtype(dtype: type, low: int, high: int) -> None:
    values = ah.random.integers(low, high, size=20000, dtype=dtype).get()
    assert values.dtype == dtype
    assert values.min() >= low and values.max() < high
    if high - low <= 256:
        assert len(np.unique(values)) == high - low  # every value appears


def test_integers_forms() -> None:
    assert ah.random.integers(5, size=1000).get().max() < 5
    assert ah.random.integers(5, size=1000).dtype == np.int64
    assert ah.random.integers(1, 3, size=1000, endpoint=True).get().max() == 3
    legacy = ah.random.randint(-4, 4, size=(10, 10), dtype=np.int32)
    assert legacy.dtype == np.int32 and legacy.shape == (10, 10)


def test_integers_out_of_bounds_for_dtype_is_numpys_value_error() -> None:
    with pytest.raises(ValueError, match="high is out of bounds for uint8"):
        ah.random.integers(0, 300, size=3, dtype=np.uint8)


def test_shapes_of_the_legacy_functions() -> None:
    assert ah.random.rand(2, 3).shape == (2, 3)
    assert ah.random.randn(4).dtype == np.float64
    assert ah.random.rand().shape == ()  # a 0-d array where NumPy gives a float
    assert ah.random.random_sample(5).shape == (5,)


def test_seed_makes_sequences_repeat() -> None:
    ah.random.seed(42)
    first = [ah.random.random(1000).get(), ah.random.normal(size=1000).get()]
    ah.random.seed(42)
    second = [ah.random.random(1000).get(), ah.random.normal(size=1000).get()]
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], ah.random.random(1000).get())
    ah.random.seed(None)
    assert not np.array_equal(ah.random.random(1000).get(), ah.random.random(1000).get())


def test_generators_are_independent_and_reproducible() -> None:
    a, b = ah.random.default_rng(7), ah.random.default_rng(7)
    np.testing.assert_array_equal(a.integers(0, 1000, 100).get(), b.integers(0, 1000, 100).get())
    c = ah.random.default_rng(8)
    assert not np.array_equal(a.random(100).get(), c.random(100).get())


_GAMMA = 0.5772156649015329  # Euler's constant
# (method, arguments, exact mean, exact variance, dtype); parameters chosen with finite fourth
# moments, so that 1e5 samples pin the variance within a few percent.
_DISTRIBUTIONS = [
    ("standard_exponential", (), 1.0, 1.0, np.float64),
    ("exponential", (2.0,), 2.0, 4.0, np.float64),
    ("standard_gamma", (3.0,), 3.0, 3.0, np.float64),
    ("gamma", (2.5, 2.0), 5.0, 10.0, np.float64),
    ("gamma", (0.5, 1.0), 0.5, 0.5, np.float64),
    ("beta", (2.0, 3.0), 0.4, 0.04, np.float64),
    ("beta", (0.5, 0.5), 0.5, 0.125, np.float64),
    ("binomial", (20, 0.3), 6.0, 4.2, np.int64),
    ("binomial", (1000, 0.4), 400.0, 240.0, np.int64),
    ("binomial", (100, 0.9), 90.0, 9.0, np.int64),
    ("poisson", (3.0,), 3.0, 3.0, np.int64),
    ("poisson", (50.0,), 50.0, 50.0, np.int64),
    ("lognormal", (0.5, 0.5), np.exp(0.625), (np.exp(0.25) - 1) * np.exp(1.25), np.float64),
    ("standard_t", (10.0,), 0.0, 1.25, np.float64),
    ("chisquare", (4.0,), 4.0, 8.0, np.float64),
    ("geometric", (0.5,), 2.0, 2.0, np.int64),
    ("geometric", (0.1,), 10.0, 90.0, np.int64),
    ("laplace", (1.0, 2.0), 1.0, 8.0, np.float64),
    ("logistic", (1.0, 2.0), 1.0, 4 * np.pi**2 / 3, np.float64),
    ("gumbel", (1.0, 2.0), 1.0 + 2 * _GAMMA, 4 * np.pi**2 / 6, np.float64),
    ("weibull", (2.0,), np.sqrt(np.pi) / 2, 1 - np.pi / 4, np.float64),
    ("pareto", (20.0,), 1 / 19, 20 / (19**2 * 18), np.float64),
    ("rayleigh", (2.0,), 2 * np.sqrt(np.pi / 2), (4 - np.pi) / 2 * 4, np.float64),
    ("power", (3.0,), 0.75, 3 / 80, np.float64),
    ("f", (5.0, 20.0), 20 / 18, 2 * 400 * 23 / (5 * 18**2 * 16), np.float64),
    ("negative_binomial", (5.0, 0.3), 5 * 0.7 / 0.3, 5 * 0.7 / 0.09, np.int64),
    ("wald", (1.0, 3.0), 1.0, 1 / 3, np.float64),
]


def test_distributions_have_numpys_dtypes_shapes_and_exact_moments() -> None:
    n = 100_000
    rng = ah.random.default_rng(2024)
    for name, args, mean, variance, dtype in _DISTRIBUTIONS:
        values = getattr(rng, name)(*args, size=n).get()
        assert values.dtype == dtype and values.shape == (n,), name
        # Six standard errors of the mean; the variance within 6%.
        assert abs(values.mean() - mean) < 6 * np.sqrt(variance / n), (name, args, values.mean())
        assert abs(values.var() / variance - 1) < 0.06, (name, args, values.var())
        assert getattr(ah.random, name)(*args, size=(2, 3)).shape == (2, 3)
    cauchy = rng.standard_cauchy(n).get()  # No moments: its quartiles are -1 and 1.
    np.testing.assert_allclose(np.percentile(cauchy, [25, 50, 75]), [-1, 0, 1], atol=0.03)
    assert rng.binomial(5, 1.0, 10).get().tolist() == [5] * 10
    assert rng.poisson(0.0, 3).get().tolist() == [0] * 3
    assert rng.gamma(0.0, size=3).get().tolist() == [0.0] * 3
    assert rng.exponential(size=()).shape == ()


def test_distribution_seeds_repeat_and_state_advances() -> None:
    a, b = ah.random.RandomState(5), ah.random.RandomState(5)
    for name, args, *_ in _DISTRIBUTIONS:
        first = getattr(a, name)(*args, size=50).get()
        np.testing.assert_array_equal(first, getattr(b, name)(*args, size=50).get())
    assert not np.array_equal(a.gamma(2.0, size=50).get(), a.gamma(2.0, size=50).get())


def _now(result: object) -> object:
    """A server array's value: a pipelined call reports its error when waited for."""
    return result.get() if isinstance(result, ah.ndarray) else result


@pytest.mark.parametrize("call, message", [
    (lambda r: r.exponential(-1.0), "scale < 0"),
    (lambda r: r.gamma(-1.0), "shape < 0"),
    (lambda r: r.gamma(1.0, -1.0), "scale < 0"),
    (lambda r: r.beta(0.0, 1.0), "a <= 0"),
    (lambda r: r.beta(1.0, 0.0), "b <= 0"),
    (lambda r: r.binomial(-1, 0.5), "n < 0"),
    (lambda r: r.binomial(3, 1.5), "p < 0, p > 1 or p is NaN"),
    (lambda r: r.poisson(-1.0), "lam < 0 or lam is NaN"),
    (lambda r: r.poisson(1e19), "lam value too large"),
    (lambda r: r.lognormal(0.0, -1.0), "sigma < 0"),
    (lambda r: r.standard_t(0.0), "df <= 0"),
    (lambda r: r.chisquare(0.0), "df <= 0"),
    (lambda r: r.geometric(0.0), "p <= 0, p > 1 or p contains NaNs"),
    (lambda r: r.laplace(0.0, -1.0), "scale < 0"),
    (lambda r: r.weibull(-1.0), "a < 0"),
    (lambda r: r.pareto(0.0), "a <= 0"),
    (lambda r: r.rayleigh(-1.0), "scale < 0"),
    (lambda r: r.power(0.0), "a <= 0"),
    (lambda r: r.f(0.0, 1.0), "dfnum <= 0"),
    (lambda r: r.f(1.0, 0.0), "dfden <= 0"),
    (lambda r: r.negative_binomial(0.0, 0.5), "n <= 0"),
    (lambda r: r.negative_binomial(1.0, 0.0), "p <= 0, p > 1 or p contains NaNs"),
    (lambda r: r.wald(0.0, 1.0), "mean <= 0"),
    (lambda r: r.wald(1.0, 0.0), "scale <= 0"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_parameter_errors_are_numpys(call, message: str) -> None:
    for rng in (ah.random.default_rng(0), np.random.default_rng(0)):
        with pytest.raises(ValueError, match=re.escape(message) + "$"):
            _now(call(rng))


def test_array_valued_parameters_say_so() -> None:
    with pytest.raises(NotImplementedError, match="scale: array-valued"):
        ah.random.exponential(np.array([1.0, 2.0]))


def test_permutation_is_a_permutation_and_shuffle_keeps_the_multiset() -> None:
    rng = ah.random.default_rng(1)
    order = rng.permutation(1000).get()
    assert order.dtype == np.int64 and sorted(order) == list(range(1000))
    assert order.tolist() != list(range(1000))
    x = ah.asarray(np.arange(40.0).reshape(20, 2))
    permuted = ah.random.permutation(x).get()
    assert sorted(map(tuple, permuted)) == [(2.0 * i, 2.0 * i + 1) for i in range(20)]
    y = ah.asarray(np.repeat(np.arange(10), 3))
    ah.random.shuffle(y)
    assert sorted(y.get().tolist()) == sorted(np.repeat(np.arange(10), 3).tolist())
    rows = rng.permuted(ah.asarray(np.tile(np.arange(50), (3, 1))), axis=1).get()
    assert all(sorted(r) == list(range(50)) for r in rows) and rows.tolist()[0] != rows.tolist()[1]
    with pytest.raises(TypeError, match="arrayhub array"):
        ah.random.shuffle(np.arange(3))


def test_choice_semantics_and_numpys_errors() -> None:
    rs = ah.random.RandomState(3)
    distinct = rs.choice(50, 50, replace=False).get()
    assert sorted(distinct.tolist()) == list(range(50))
    picked = rs.choice(ah.asarray(np.arange(100, 200)), (4, 5), replace=False).get()
    assert picked.shape == (4, 5) and len(set(picked.ravel())) == 20 and picked.min() >= 100
    weighted = rs.choice(4, 40_000, p=[0.1, 0.2, 0.3, 0.4]).get()
    np.testing.assert_allclose(np.bincount(weighted, minlength=4) / 40_000,
                               [0.1, 0.2, 0.3, 0.4], atol=0.015)
    server_p = ah.asarray(np.array([0.0, 0.5, 0.5]))
    no_replace = rs.choice(3, 2, replace=False, p=server_p).get()
    assert sorted(no_replace.tolist()) == [1, 2]
    assert rs.choice(5).shape == () and rs.choice(5, 7).dtype == np.int64
    for call, message in [
        (lambda r: r.choice(np.zeros((2, 2)), 3), "a must be 1-dimensional"),
        (lambda r: r.choice(np.array(2.5), 3), "a must be 1-dimensional or an integer"),
        (lambda r: r.choice(3, 2, p=[np.nan, 0.5, 0.5]), "probabilities contain NaN"),
        (lambda r: r.choice(5, 3, p=[0.5, 0.5, 0.5, 0, 0]), "probabilities do not sum to 1"),
        (lambda r: r.choice(5, 6, replace=False),
         "Cannot take a larger sample than population when 'replace=False'"),
        (lambda r: r.choice(0, 3), "a must be greater than 0 unless no samples are taken"),
        (lambda r: r.choice(3, 2, p=[1.5, -0.5, 0]), "probabilities are not non-negative"),
        (lambda r: r.choice(3, 2, p=[0.5, 0.5]), "'a' and 'p' must have same size"),
    ]:
        for rng in (rs, np.random.RandomState(0)):
            with pytest.raises(ValueError, match=message.replace("(", "[(]").replace(")", "[)]")):
                _now(call(rng))
    with pytest.raises(ValueError, match="probabilities do not sum to 1"):
        rs.choice(2, 2, p=ah.asarray(np.array([0.5, 0.6])))
