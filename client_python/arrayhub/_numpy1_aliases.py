"""NumPy 1.x names that NumPy 2 removed and CuPy keeps, bound to what they named: alltrue,
sometrue, cumproduct, product, round_, trapz, in1d, msort (functions), cfloat, complex_,
float_, singlecomplex (scalar types) and infty (inf). fabs, a ufunc of its own, is in
_elementwise_functions.py.
"""

from __future__ import annotations

from numpy import complex64 as singlecomplex
from numpy import complex128 as cfloat
from numpy import complex128 as complex_
from numpy import float64 as float_
from numpy import inf as infty

from typing import Any

from arrayhub._manipulation import cumprod as cumproduct
from arrayhub._manipulation import sort
from arrayhub._math_functions import around as round_
from arrayhub._ndarray import ndarray
from arrayhub._numerics import trapezoid as trapz
from arrayhub._reduction import all as alltrue
from arrayhub._reduction import any as sometrue
from arrayhub._reduction import prod as product
from arrayhub._sets import isin

__all__ = ["alltrue", "sometrue", "cumproduct", "product", "round_", "cfloat", "complex_",
           "float_", "singlecomplex", "infty", "trapz", "in1d", "msort"]


def in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False, *,
         kind: Any = None) -> ndarray:
    """NumPy 1.x's in1d: :func:`isin` of ``ar1`` flattened."""
    return isin(ar1, ar2, assume_unique=assume_unique, invert=invert, kind=kind).ravel()


def msort(a: Any) -> ndarray:
    """NumPy 1.x's msort: a copy sorted along the first axis."""
    return sort(a, axis=0)
