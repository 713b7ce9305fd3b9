"""NumPy 1.x names that NumPy 2 removed and CuPy keeps, bound to what they named: alltrue,
sometrue, cumproduct, product, round_ (functions), cfloat, complex_, float_, singlecomplex
(scalar types) and infty (inf). fabs, a ufunc of its own, is in _elementwise_functions.py.
"""

from __future__ import annotations

from numpy import complex64 as singlecomplex
from numpy import complex128 as cfloat
from numpy import complex128 as complex_
from numpy import float64 as float_
from numpy import inf as infty

from arrayhub._manipulation import cumprod as cumproduct
from arrayhub._math_functions import around as round_
from arrayhub._reduction import all as alltrue
from arrayhub._reduction import any as sometrue
from arrayhub._reduction import prod as product

__all__ = ["alltrue", "sometrue", "cumproduct", "product", "round_", "cfloat", "complex_",
           "float_", "singlecomplex", "infty"]
