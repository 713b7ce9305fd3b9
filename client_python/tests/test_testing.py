"""arrayhub.testing: cupy.testing's assertions, on arrayhub and NumPy arrays alike."""

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import testing


def test_assertions_pass_on_equal_values_and_fail_with_numpys_messages() -> None:
    host = np.random.default_rng(5).normal(size=(3, 4))
    x = ah.asarray(host)
    testing.assert_allclose(x, host)
    testing.assert_allclose(x + 1e-9, x, rtol=1e-6)
    testing.assert_array_equal(x, ah.asarray(host), strict=True)
    testing.assert_array_almost_equal(x, host + 1e-8)
    testing.assert_array_almost_equal_nulp(x, host)
    testing.assert_array_max_ulp(x, host)
    testing.assert_array_less(x, x + 1)
    testing.assert_array_list_equal([x, x[0]], [host, host[0]])
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        testing.assert_allclose(x, host + 1)
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        testing.assert_array_equal(x, host * 2)
    with pytest.raises(AssertionError, match="Arrays are not strictly ordered"):
        testing.assert_array_less(x, x)
    with pytest.raises(AssertionError, match="List size is different"):
        testing.assert_array_list_equal([x], [host, host])
    with pytest.raises(AssertionError, match="different types"):
        testing.assert_array_list_equal([x], (host,))
