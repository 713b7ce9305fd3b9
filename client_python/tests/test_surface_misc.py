"""Printing (array2string, array_repr, array_str, print options), memory overlap
(may_share_memory, shares_memory, byte_bounds), arrays from host data (frombuffer, fromfile,
fromiter, fromstring, fromfunction) and CuPy's utilities (show_config, is_available, who,
disp, safe_eval, get_array_wrap, make_aligned_dtype, memoize, clear_memo) against NumPy."""

from __future__ import annotations

import io
import pathlib

import numpy as np
import pytest

import arrayhub as ah
from conftest import assert_matches


def test_printing_follows_numpy_and_its_print_options() -> None:
    host = np.array([[1.0 / 3, -2.5e-9], [1e6, np.nan]])
    x = ah.asarray(host)
    assert ah.array2string(x, precision=3, separator=", ") == \
        np.array2string(host, precision=3, separator=", ")
    assert ah.array_repr(x) == np.array_repr(host) == repr(x)
    assert ah.array_str(x, precision=2) == np.array_str(host, precision=2)
    assert np.array2string(x) == np.array2string(host)  # NumPy's function, routed here
    with ah.printoptions(precision=2, suppress=True):
        assert repr(x) == repr(host) and str(x) == str(host)
        assert ah.get_printoptions()["precision"] == 2
    assert ah.format_float_positional(np.float32(0.1)) == "0.1"
    assert ah.format_float_scientific(1234.5, precision=2) == "1.23e+03"
    assert ah.base_repr(255, 16, padding=2) == "00FF" and ah.binary_repr(-5, width=8) == "11111011"
    with pytest.raises(TypeError, match="expected an arrayhub.ndarray"):
        ah.array_repr(host)
    ah.set_string_function(lambda a: f"<{a.shape}>")
    ah.set_string_function(lambda a: "values", repr=False)
    try:
        assert repr(x) == "<(2, 2)>" and str(x) == "values"
    finally:
        ah.set_string_function(None)
        ah.set_string_function(None, repr=False)
    assert repr(x) == repr(host) and str(x) == str(host)
    with pytest.raises(TypeError, match="Argument must be callable."):
        ah.set_string_function(3)


def test_memory_overlap_follows_the_server_views() -> None:
    x = ah.asarray(np.arange(24.0).reshape(4, 6))
    other = ah.asarray(np.arange(24.0).reshape(4, 6))
    even, odd, row = x[:, ::2], x[:, 1::2], x[1]
    assert ah.shares_memory(x, x) and ah.shares_memory(x, even) and ah.shares_memory(row, x.T)
    assert not ah.shares_memory(even, odd) and ah.may_share_memory(even, odd)
    assert not ah.may_share_memory(x[:2], x[2:]) and not ah.shares_memory(x, other)
    assert not ah.may_share_memory(x, x.get()) and not ah.shares_memory(x, x + 0)
    assert not ah.shares_memory(x[0], x[1]) and ah.shares_memory(x[1, 2:], x[:, 3])
    assert np.shares_memory(x, even)  # NumPy's function, routed here
    assert ah.byte_bounds(x) == (0, 24 * 8) and ah.byte_bounds(row) == (48, 96)
    assert ah.byte_bounds(x[::-1, 1]) == (8, 8 * 20)  # elements 1, 7, 13 and 19
    host = np.arange(4)
    assert ah.shares_memory(host, host[1:]) == np.shares_memory(host, host[1:])


def test_arrays_from_host_data(tmp_path: pathlib.Path) -> None:
    data = np.arange(7, dtype=np.int16)
    assert_matches(ah.frombuffer(data.tobytes(), np.int16, count=5, offset=2),
                   np.frombuffer(data.tobytes(), np.int16, count=5, offset=2))
    path = tmp_path / "data.bin"
    data.tofile(path)
    assert_matches(ah.fromfile(path, np.int16), np.fromfile(path, np.int16))
    assert_matches(ah.fromiter((i * i for i in range(5)), np.float32),
                   np.fromiter((i * i for i in range(5)), np.float32))
    assert_matches(ah.fromstring("1, 2, 3.5", sep=","), np.fromstring("1, 2, 3.5", sep=","))
    with pytest.raises(ValueError, match="The binary mode of fromstring is removed"):
        ah.fromstring("12")
    assert_matches(ah.fromfunction(lambda i, j: i * 10 + j, (3, 4), dtype=np.int32),
                   np.fromfunction(lambda i, j: i * 10 + j, (3, 4), dtype=np.int32))
    like = ah.asarray(np.ones(1))
    assert_matches(np.frombuffer(data.tobytes(), np.int16, like=like), data)


def test_cupy_utilities(capsys: pytest.CaptureFixture[str]) -> None:
    assert ah.is_available()
    ah.show_config()
    shown = capsys.readouterr().out
    assert f"arrayhub Version : {ah.__version__}" in shown and "Server Backend" in shown
    x = ah.asarray(np.ones((2, 3)))
    ah.who({"x": x, "alias": x, "host": np.ones(2)})
    listing = capsys.readouterr().out.splitlines()
    assert listing[0].split() == ["Name", "Shape", "Bytes", "Type"]
    assert listing[3].split() == ["x", "2", "x", "3", "48", "float64"]
    assert listing[4].split() == ["alias", "(x)", "2", "x", "3", "48", "float64"]
    assert listing[-1] == "Upper bound on total bytes  =       48"
    sink = io.StringIO()
    ah.disp("hello", sink, linefeed=False)
    ah.disp(3, sink)
    assert sink.getvalue() == "hello3\n"
    assert ah.safe_eval("{'a': (1, 2.5)}") == {"a": (1, 2.5)}
    with pytest.raises(ValueError):
        ah.safe_eval("__import__('os')")
    host = np.ones(1)
    assert ah.get_array_wrap(x, host) == host.__array_wrap__ and ah.get_array_wrap(x) is None
    aligned = ah.make_aligned_dtype([("a", "u1"), ("b", "f8"), ("c", "i2")])
    assert [aligned.fields[n][1] for n in "abc"] == [0, 8, 16] and aligned.itemsize == 24
    assert ah.make_aligned_dtype([("a", "u1")], alignment=16).itemsize == 16
    assert ah.make_aligned_dtype("f4") == np.float32
    with pytest.raises(ValueError, match="smaller than the minimal alignment 8"):
        ah.make_aligned_dtype([("b", "f8")], alignment=4)
    calls = []

    @ah.memoize(for_each_device=True)
    def square(n: int) -> int:
        calls.append(n)
        return n * n

    assert (square(3), square(3), square(4)) == (9, 9, 16) and calls == [3, 4]
    ah.clear_memo()
    assert square(3) == 9 and calls == [3, 4, 3]
    assert ah.disable_experimental_feature_warning is False and ah.iterable(x)
    assert not ah.iterable(x[0, 0])
