"""The package is typed for type checkers (py.typed): arithmetic, comparison and matmul
operators on arrays are annotated to give arrays, so ``a + b`` is an ``arrayhub.ndarray`` to
mypy and pyright, not ``Any``."""

from __future__ import annotations

import pathlib
import typing

import pytest

import arrayhub
from arrayhub import ndarray

_ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
               "lshift", "rshift", "matmul")
OPERATORS = ([f"__{prefix}{op}__" for op in _ARITHMETIC for prefix in ("", "r", "i")]
             + [f"__{op}__" for op in ("eq", "ne", "lt", "le", "gt", "ge", "neg", "abs",
                                       "invert")])


def test_the_package_says_it_is_typed() -> None:
    assert (pathlib.Path(arrayhub.__file__).parent / "py.typed").is_file()


@pytest.mark.parametrize("name", OPERATORS)
def test_operators_are_annotated_to_give_arrays(name: str) -> None:
    assert typing.get_type_hints(getattr(ndarray, name))["return"] is ndarray


def test_divmod_gives_two_arrays() -> None:
    for name in ("__divmod__", "__rdivmod__"):
        assert typing.get_type_hints(getattr(ndarray, name))["return"] == tuple[ndarray, ndarray]
