"""NumPy's elementwise functions that are no server ufuncs (fix, sinc, nan_to_num,
isposinf, isneginf), composed from the server's ufuncs with NumPy's own formulas, so
that dtypes, special values and signs of zero come out as NumPy's. Each op is queued
(pipelined): a composite costs no round trip of its own.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from arrayhub import _ops
from arrayhub._complex_parts import from_parts
from arrayhub._errors import ArrayHubTypeError, client_error
from arrayhub._ndarray import ndarray

__all__ = ["fix", "sinc", "nan_to_num", "isposinf", "isneginf"]


def fix(x: ndarray, out: Optional[ndarray] = None) -> ndarray:
    """numpy.fix: round toward zero. NumPy takes ceil below zero and floor elsewhere, which is
    trunc value for value (NaN, signed zeros and integers included); complex arrays get
    NumPy's error, which names ceil."""
    x = _ops.require_array(x, "fix")
    return _ops.elementwise("ceil" if x.dtype.kind == "c" else "trunc", (x,), out=out)


def sinc(x: ndarray) -> ndarray:
    """numpy.sinc: ``sin(y) / y`` for y = pi x, where a zero y is taken as the dtype's
    epsilon (1e-20 for complex), as NumPy 2.4 computes it."""
    x = _ops.require_array(x, "sinc")
    y = _ops.elementwise("multiply", (np.pi, x))
    dtype = np.result_type(np.pi, np.empty(0, x.dtype))  # y's dtype, by NumPy's rules
    eps = float(np.finfo(dtype).eps) if dtype.kind == "f" else 1e-20
    y = _ops.elementwise("where", (y, y, eps))
    return _ops.elementwise("true_divide", (_ops.elementwise("sin", (y,)), y))



def _replace_non_finite(d: ndarray, nan: float, posinf: float, neginf: float) -> ndarray:
    """One real part: NaN, +inf and -inf replaced (NumPy's three copyto calls, whose masks
    all come from the original values)."""
    result = _ops.elementwise("where", (_ops.elementwise("isnan", (d,)), nan, d))
    result = _ops.elementwise("where", (_ops.elementwise("equal", (d, np.inf)), posinf, result))
    return _ops.elementwise("where", (_ops.elementwise("equal", (d, -np.inf)), neginf, result))


def nan_to_num(x: ndarray, copy: bool = True, nan: float = 0.0, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> ndarray:
    """numpy.nan_to_num: NaN -> ``nan``, +inf -> ``posinf`` (default the dtype's largest
    finite value), -inf -> ``neginf`` (its most negative), in each part of a complex array.
    Other dtypes are returned as they are (copied unless ``copy=False``); ``copy=False``
    writes into ``x``."""
    x = _ops.require_array(x, "nan_to_num")
    if x.dtype.kind not in "fc":
        return x.copy() if copy else x
    info = np.finfo(x.dtype)
    high = float(info.max) if posinf is None else posinf
    low = float(info.min) if neginf is None else neginf
    if x.dtype.kind == "c":
        result = from_parts(*(_replace_non_finite(_ops.elementwise(part, (x,)), nan, high, low)
                              for part in ("real", "imag")))
    else:
        result = _replace_non_finite(x, nan, high, low)
    if copy:
        return result
    x[...] = result
    return x


def _infinity_test(name: str, sign: float, x: Any, out: Optional[ndarray]) -> ndarray:
    """isposinf/isneginf: NumPy's ``isinf(x) & (signbit(x) == negative)`` is ``x == +-inf``
    for every real dtype; complex is NumPy's TypeError."""
    x = _ops.require_array(x, name)
    if x.dtype.kind == "c":
        raise client_error(ArrayHubTypeError, f"This operation is not supported for {x.dtype} "
                                              "values because it would be ambiguous.")
    return _ops.elementwise("equal", (x, sign * np.inf), out=out)


def isposinf(x: ndarray, out: Optional[ndarray] = None) -> ndarray:
    """numpy.isposinf: whether each element is +inf (bool)."""
    return _infinity_test("isposinf", 1.0, x, out)


def isneginf(x: ndarray, out: Optional[ndarray] = None) -> ndarray:
    """numpy.isneginf: whether each element is -inf (bool)."""
    return _infinity_test("isneginf", -1.0, x, out)

