"""NumPy's protocols (_numpy_protocols.py): NumPy's ufuncs and functions called on arrayhub
arrays run arrayhub's on the server and give arrayhub arrays, without a download; those
arrayhub lacks raise TypeError naming them; mixed NumPy/arrayhub operands raise TypeError as
in CuPy; ``numpy.asarray(x)`` is the explicit download. All-scalar ufunc calls give 0-d
arrays."""

from __future__ import annotations

import contextlib
import re
from typing import Any, Iterator

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches

pytestmark = pytest.mark.requires_compute("Elementwise")


@contextlib.contextmanager
def no_download(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fails any download (x.get(), numpy.asarray(x), a pipelined read) inside the block."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("downloaded")
    with monkeypatch.context() as patch:
        patch.setattr(ah.ndarray, "get", refuse)
        patch.setattr(ah.ndarray, "__array__", refuse)
        patch.setattr(ah.Client, "_download", refuse)
        yield


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray, ah.ndarray, ah.ndarray]:
    rng = np.random.default_rng(20)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    return a, b, ah.asarray(a), ah.asarray(b)


def test_numpy_ufuncs_run_on_the_server_and_give_arrayhub_arrays(
        data: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, x, y = data
    mask = a > 0
    out = ah.zeros((3, 4))
    kept = ah.full((3, 4), 7.0)
    with no_download(monkeypatch):
        results = {
            "add": np.add(x, y), "exp": np.exp(x), "operator": x * 2 + np.float32(1),
            "matmul": np.matmul(x, y.T), "maximum": np.maximum(x, 0.5),
            "abs": np.abs(x), "greater": np.greater(x, y), "scalar first": np.float32(2) * x,
        }
        returned = np.add(x, 1, out=out)
        np.multiply(x, y, out=kept, where=ah.asarray(mask))
        np.add(x, y, out=(x,))  # NumPy's tuple form, in place
    assert returned is out
    for result in results.values():
        assert isinstance(result, ah.ndarray)
    expected = {"add": a + b, "exp": np.exp(a), "operator": a * 2 + np.float32(1),
                "matmul": a @ b.T, "maximum": np.maximum(a, 0.5), "abs": np.abs(a),
                "greater": a > b, "scalar first": np.float32(2) * a}
    for name, result in results.items():
        assert_matches(result, expected[name])
    assert_matches(out, a + 1)
    assert_matches(kept, np.where(mask, a * b, 7.0))
    assert_matches(x, a + b)


def test_numpy_functions_run_arrayhubs_by_module_and_name(
        data: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, x, y = data
    with no_download(monkeypatch):
        results = {
            "where": np.where(x > 0, x, y), "dot": np.dot(x, y.T),
            "concatenate": np.concatenate([x, y], axis=1), "sort": np.sort(x, axis=0),
            "norm": np.linalg.norm(x), "sum": np.sum(x, axis=0), "mean": np.mean(x),
            "transpose": np.transpose(x), "reshape": np.reshape(x, (4, 3)),
            "cumsum": np.cumsum(x, axis=1), "clip": np.clip(x, -0.5, 0.5),
            "max": np.max(x, axis=1, keepdims=True), "stack": np.stack([x, y]),
        }
        assert (np.shape(x), np.ndim(x), np.size(x), np.size(x, -1)) == ((3, 4), 2, 12, 4)
        assert (ah.shape([[1, 2]]), ah.ndim(3.0), ah.size([1, 2, 3])) == ((1, 2), 0, 3)
    expected = {
        "where": np.where(a > 0, a, b), "dot": np.dot(a, b.T),
        "concatenate": np.concatenate([a, b], axis=1), "sort": np.sort(a, axis=0),
        "norm": np.asarray(np.linalg.norm(a)), "sum": np.sum(a, axis=0),
        "mean": np.asarray(np.mean(a)), "transpose": a.T, "reshape": a.reshape(4, 3),
        "cumsum": np.cumsum(a, axis=1), "clip": np.clip(a, -0.5, 0.5),
        "max": np.max(a, axis=1, keepdims=True), "stack": np.stack([a, b]),
    }
    for name, result in results.items():
        assert isinstance(result, ah.ndarray), name
        assert_matches(result, expected[name])


def test_a_function_arrayhub_gains_is_routed_when_called(
        data: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, x, _ = data
    with pytest.raises(TypeError, match="numpy.lib.stride_tricks.sliding_window_view"):
        np.lib.stride_tricks.sliding_window_view(x, 2)
    # Looked up at call time: what arrayhub (or a helper module) adds later is routed.
    monkeypatch.setattr(ah, "unwrap", lambda p, **kwargs: ("arrayhub's unwrap", p),
                        raising=False)
    assert np.unwrap(x) == ("arrayhub's unwrap", x)


def test_what_arrayhub_lacks_raises_type_error_naming_it(data: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, x, _ = data
    hint = re.escape("on ArrayHub arrays; call arrayhub.asnumpy() first to compute on the host")
    with no_download(monkeypatch):
        with pytest.raises(TypeError,
                           match=f"^no implementation found for 'numpy.spacing' {hint}$"):
            np.spacing(x)
        with pytest.raises(TypeError,
                           match=f"no implementation found for 'numpy.is_busday' {hint}"):
            np.is_busday(x)
        with pytest.raises(NotImplementedError, match="numpy.divide.reduceat"):
            np.divide.reduceat(x, [0, 1])


def test_mixed_numpy_and_arrayhub_operands_raise_type_error_as_in_cupy(data: Any) -> None:
    a, _, x, _ = data
    for mixed in (lambda: np.add(a, x), lambda: a + x, lambda: x + a,
                  lambda: np.concatenate([a, x]), lambda: np.dot(a, x.T),
                  lambda: np.where(a > 0, x, 0.0)):
        with pytest.raises(TypeError, match="Unsupported type <class 'numpy.ndarray'>|"
                                            "expected an arrayhub.ndarray, got ndarray"):
            mixed()
    with pytest.raises(TypeError, match="out must be an arrayhub.ndarray, got ndarray"):
        np.exp(x, out=a)
    # NumPy scalars and 0-d arrays are operands (they keep their dtype).
    assert_matches(np.add(x, np.float32(2)), a + np.float32(2))


def test_other_protocol_implementations_get_their_turn(data: Any) -> None:
    _, _, x, _ = data

    class Other:
        def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
            return "other's"

        def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
            return "other's"

    assert np.concatenate([x, Other()]) == "other's"
    assert np.add(x, Other()) == "other's"
    assert np.spacing(x, out=(Other(),)) == "other's"


def test_numpy_asarray_is_the_explicit_download(data: Any) -> None:
    a, _, x, _ = data
    np.testing.assert_array_equal(np.asarray(x), a)
    np.testing.assert_array_equal(np.asarray(x, dtype=np.float32), a.astype(np.float32))
    created = np.asarray([1, 2, 3], like=x)  # NEP 35: arrayhub.asarray makes it
    assert isinstance(created, ah.ndarray)
    assert_matches(created, np.array([1, 2, 3]))


def test_all_scalar_calls_give_0d_arrays_of_numpys_types() -> None:
    cases = [(ah.log, np.log, (2.0,)), (ah.add, np.add, (1, 2)), (ah.add, np.add, (True, 2)),
             (ah.logical_and, np.logical_and, (True, False)), (ah.add, np.add, (1, 2.5)),
             (ah.multiply, np.multiply, (2, 1j)), (ah.sqrt, np.sqrt, (4,)),
             (ah.invert, np.invert, (True,)),
             (ah.where, np.where, (True, 1, 2.5))]
    for ours, numpys, args in cases:
        assert_matches(ours(*args), np.asarray(numpys(*args)))
    with pytest.raises(OverflowError, match="Python int too large"):
        ah.add(2**70, 1)
