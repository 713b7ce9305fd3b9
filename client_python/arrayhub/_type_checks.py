"""Type tests and type choices of NumPy's ``lib.type_check`` for arrayhub arrays: iscomplex,
isreal, iscomplexobj, isrealobj, real_if_close, common_type, mintypecode, min_scalar_type,
plus NumPy's host-only isscalar and typename (re-exported, as CuPy does).

Elementwise answers (iscomplex, isreal) are server ops; the others read only dtypes, except
real_if_close (one boolean read back: whether every imaginary part is small) and
min_scalar_type of a 0-d array (its value, as NumPy's answer depends on it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy import isscalar, typename

from arrayhub import _creation, _ops
from arrayhub._complex_parts import imag, real
from arrayhub._ndarray import ndarray
from arrayhub._numpy_checks import numpy_checks

__all__ = ["iscomplex", "isreal", "iscomplexobj", "isrealobj", "real_if_close",
           "common_type", "mintypecode", "min_scalar_type", "isscalar", "typename"]


def iscomplex(x: Any) -> Any:
    """Whether each element has a nonzero imaginary part (all false for real dtypes). Host
    scalars get NumPy's answer, as in CuPy."""
    if not isinstance(x, ndarray) and np.isscalar(x):
        return np.iscomplex(x)
    x = _ops.require_array(x, "iscomplex")
    if x.dtype.kind == "c":
        return _ops.elementwise("not_equal", (imag(x), 0))
    return _creation.zeros(x.shape, bool)


def isreal(x: Any) -> Any:
    """Whether each element has a zero imaginary part (all true for real dtypes)."""
    if not isinstance(x, ndarray) and np.isscalar(x):
        return np.isreal(x)
    x = _ops.require_array(x, "isreal")
    if x.dtype.kind == "c":
        return _ops.elementwise("equal", (imag(x), 0))
    return _creation.ones(x.shape, bool)


def iscomplexobj(x: Any) -> bool:
    """Whether ``x`` has a complex dtype (its values are not read)."""
    if isinstance(x, ndarray):
        return x.dtype.kind == "c"
    return np.iscomplexobj(x)


def isrealobj(x: Any) -> bool:
    """Whether ``x`` has no complex dtype."""
    return not iscomplexobj(x)


def real_if_close(a: Any, tol: float = 100) -> Any:
    """``a.real`` when ``a`` is complex with every imaginary part below ``tol`` (in machine
    epsilons when ``tol > 1``), else ``a``. Whether they are is read back (one boolean)."""
    a = _ops.require_array(a, "real_if_close")
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = np.finfo(a.dtype).eps * tol
    small = _ops.elementwise("less", (_ops.elementwise("absolute", (imag(a),)), float(tol)))
    return real(a) if bool(_ops.reduce("all", small)) else a


def _dtype_stand_in(value: Any) -> Any:
    """An empty NumPy array of an arrayhub array's dtype, for NumPy's dtype-only functions."""
    return np.empty(0, value.dtype) if isinstance(value, ndarray) else value


def common_type(*arrays: Any) -> type:
    """The inexact scalar type common to the arrays' dtypes (integers count as float64)."""
    with numpy_checks():
        return np.common_type(*(_dtype_stand_in(a) for a in arrays))


def mintypecode(typechars: Any, typeset: str = "GDFgdf", default: str = "d") -> str:
    """The smallest type character of ``typeset`` that the given type characters (or
    arrays' dtypes) can be cast to safely."""
    chars = [t.dtype.char if isinstance(t, ndarray) else t for t in typechars]
    return np.mintypecode(chars, typeset, default)


def min_scalar_type(a: Any) -> np.dtype:
    """The smallest dtype that holds ``a``: an array's own dtype, unless it is 0-d, whose
    value decides (read back, as NumPy reads it)."""
    if isinstance(a, ndarray):
        return np.min_scalar_type(a.get() if a.ndim == 0 else np.empty(0, a.dtype))
    return np.min_scalar_type(a)
