"""Everyday math and comparison functions composed on the client from server ops.

As NumPy's own Python code does, each is a few ufuncs, views and reductions; here every one of
them is a server op whose result the client infers, so a pipelined client queues the whole
composite without a round trip. Comparisons that NumPy answers with a Python bool
(``allclose``, ``array_equal``, ``array_equiv``) give a 0-d bool array instead, as CuPy
does: ``bool(...)`` of it reads the answer.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from arrayhub import _creation, _ops
from arrayhub._errors import (ArrayHubAxisError, ArrayHubNotImplementedError, ArrayHubTypeError,
                              ArrayHubValueError, client_error)
from arrayhub._manipulation import broadcast_to, concatenate, expand_dims, stack
from arrayhub._ndarray import ndarray

__all__ = ["diff", "cross", "kron", "count_nonzero", "isclose", "allclose", "array_equal",
           "array_equiv", "ptp", "average", "round", "around"]

_NO_VALUE = object()  # NumPy's np._NoValue: prepend=None is a value (an object array).
# numpy.cross took 2-vectors (deprecated in 2.0) until NumPy 2.5 removed them: cross follows
# the NumPy installed beside it, so that code gives the same answer, or error, with either.
_CROSS_TAKES_TWO_VECTORS = np.lib.NumpyVersion(np.__version__) < "2.5.0"


def _axis(axis: Any, ndim: int, prefix: Optional[str] = None) -> int:
    """A non-negative axis; NumPy's AxisError (with its message) when out of range."""
    try:
        return normalize_axis_index(operator.index(axis), ndim, prefix)
    except np.exceptions.AxisError as error:
        raise client_error(ArrayHubAxisError, str(error)) from None


def _operand(value: Any, what: str) -> Any:
    """An arrayhub array, or a scalar as NumPy's asarray makes it: a strong NumPy scalar
    (Python's 1 is int64 there, not a weak operand). Host arrays are refused."""
    if isinstance(value, ndarray):
        return value
    if _ops.is_operand(value):
        return np.asarray(value)[()]
    return _ops.require_array(value, what)


def _ew(op: str, *args: Any) -> Any:
    """``op`` on the server when an operand is an array, else on the host scalars as NumPy's
    own Python code computes them (Python's operators keep a Python float a weak operand for
    the ops that follow; a server op would make it a strong 0-d float64 array)."""
    if any(isinstance(a, ndarray) for a in args):
        return _ops.elementwise(op, args)
    return _HOST[op](*args)


#: The host form of each op _ew runs on scalars.
_HOST = {"subtract": operator.sub, "multiply": operator.mul, "add": operator.add,
         "absolute": abs, "isfinite": np.isfinite, "isnan": np.isnan}


def _false() -> ndarray:
    """A 0-d False, made on the server (as the answers it stands beside are)."""
    return _creation.full((), False)


# -- Differences and products ------------------------------------------------------------------

def diff(a: ndarray, n: int = 1, axis: int = -1, prepend: Any = _NO_VALUE,
         append: Any = _NO_VALUE) -> ndarray:
    """The n-th discrete difference along ``axis`` (``not_equal`` for bool, as NumPy), after
    joining ``prepend`` and ``append`` (scalars are broadcast to one slice) to ``a``."""
    n = operator.index(n)
    if n == 0:
        return a
    if n < 0:
        raise client_error(ArrayHubValueError, "order must be non-negative but got " + repr(n))
    a = _ops.require_array(a, "diff")
    if a.ndim == 0:
        raise client_error(ArrayHubValueError,
                           "diff requires input that is at least one dimensional")
    axis = _axis(axis, a.ndim)
    ends = [_end(value, a, axis) for value in (prepend, append)]
    if ends[0] is not None or ends[1] is not None:
        a = concatenate([x for x in (ends[0], a, ends[1]) if x is not None], axis)
    later = (slice(None),) * axis + (slice(1, None),)
    earlier = (slice(None),) * axis + (slice(None, -1),)
    op = "not_equal" if a.dtype == np.bool_ else "subtract"
    for _ in range(n):
        a = _ops.elementwise(op, (a[later], a[earlier]))
    return a


def _end(value: Any, a: ndarray, axis: int) -> Optional[ndarray]:
    """diff's prepend/append as an array to join to ``a``: a scalar as one slice along
    ``axis``; host data (lists, NumPy arrays) uploaded, as NumPy's asanyarray."""
    if value is _NO_VALUE:
        return None
    if not isinstance(value, ndarray):
        if np.ndim(value) == 0:
            host = np.asarray(value)
            shape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
            return _creation.full(shape, host[()], host.dtype)
        value = _ops.upload(np.asarray(value), a.client)
    if value.ndim == 0:
        return broadcast_to(value, a.shape[:axis] + (1,) + a.shape[axis + 1:])
    return value


def _last(x: ndarray, axis: int) -> ndarray:
    """A view of ``x`` with ``axis`` moved to the end (numpy.moveaxis(x, axis, -1))."""
    if axis == x.ndim - 1:
        return x
    return x.transpose([i for i in range(x.ndim) if i != axis] + [axis])


def not_three_vectors(n1: int, n2: int) -> Exception:
    """NumPy's error for cross products of vectors that are not 3-vectors (numpy.linalg.cross's,
    and numpy.cross's from NumPy 2.5)."""
    return client_error(ArrayHubValueError, "Both input arrays must be (arrays of) 3-dimensional "
                        f"vectors, but they are {n1} and {n2} dimensional instead.")


def cross(a: ndarray, b: ndarray, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: Optional[int] = None) -> ndarray:
    """Cross products of the 3-vectors along ``axisa`` of ``a`` and ``axisb`` of ``b``,
    broadcast; the result's vectors lie along ``axisc`` (``axis`` sets all three). Before NumPy
    2.5 (as the installed NumPy does) 2-vectors are taken too, deprecated: their third component
    is 0, and two 2-vectors give the z component alone."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _ops.require_array(a, "cross"), _ops.require_array(b, "cross")
    if a.ndim < 1 or b.ndim < 1:
        raise client_error(ArrayHubValueError, "At least one array has zero dimension")
    a = _last(a, _axis(axisa, a.ndim, "axisa"))
    b = _last(b, _axis(axisb, b.ndim, "axisb"))
    if not _CROSS_TAKES_TWO_VECTORS and (a.shape[-1] != 3 or b.shape[-1] != 3):
        raise not_three_vectors(a.shape[-1], b.shape[-1])
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise client_error(ArrayHubValueError, "incompatible dimensions for cross product\n"
                                               "(dimension must be 2 or 3)")
    if a.shape[-1] == 2 or b.shape[-1] == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    try:
        shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError as error:
        raise client_error(ArrayHubValueError, str(error)) from None
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]

    def mul(x: ndarray, y: ndarray) -> ndarray:
        return _ops.elementwise("multiply", (x, y))

    def sub(x: ndarray, y: ndarray) -> ndarray:
        return _ops.elementwise("subtract", (x, y))

    z = sub(mul(a0, b1), mul(a1, b0))
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return z
    axisc = _axis(axisc, len(shape) + 1, "axisc")
    if a.shape[-1] == 2:  # a2 = 0
        b2 = b[..., 2]
        x, y = mul(a1, b2), _ops.elementwise("negative", (mul(a0, b2),))
    elif b.shape[-1] == 2:  # b2 = 0
        a2 = a[..., 2]
        x, y = _ops.elementwise("negative", (mul(a2, b1),)), mul(a2, b0)
    else:
        a2, b2 = a[..., 2], b[..., 2]
        x, y = sub(mul(a1, b2), mul(a2, b1)), sub(mul(a2, b0), mul(a0, b2))
    # Stacked at axisc: NumPy's values (it moves the axis of a C-ordered result there).
    return stack([x, y, z], axis=axisc)


def kron(a: Any, b: Any) -> ndarray:
    """The Kronecker product: blocks of ``a[i] * b``, with the shorter shape padded with
    leading ones. Scalars are NumPy's (int64, float64, ...), as numpy.asarray makes them."""
    a, b = _operand(a, "kron"), _operand(b, "kron")
    nda, ndb = np.ndim(a), np.ndim(b)
    if nda == 0 or ndb == 0:
        return _ops.elementwise("multiply", (a, b))
    nd = max(nda, ndb)
    a_shape = (1,) * (nd - nda) + a.shape
    b_shape = (1,) * (nd - ndb) + b.shape
    # a as (a0, 1, a1, 1, ...) and b as (1, b0, 1, b1, ...): the product's blocks in order.
    a_axes = [2 * i for i in range(nd - nda)] + [2 * i + 1 for i in range(nd)]
    b_axes = [2 * i + 1 for i in range(nd - ndb)] + [2 * i for i in range(nd)]
    product = _ops.elementwise("multiply", (expand_dims(a, sorted(a_axes)),
                                            expand_dims(b, sorted(b_axes))))
    return product.reshape(tuple(m * n for m, n in zip(a_shape, b_shape)))


# -- Counting, closeness and equality --------------------------------------------------------

def count_nonzero(a: ndarray, axis: _ops.AxisLike = None, *, keepdims: bool = False) -> ndarray:
    """The number of non-zero elements (int64) along ``axis`` (all when None). Always an
    array: a 0-d one where NumPy returns an int (as CuPy)."""
    a = _ops.require_array(a, "count_nonzero")
    nonzero = a if a.dtype == np.bool_ else _ops.elementwise("not_equal", (a, 0))
    return _ops.reduce("sum", nonzero, axis, dtype=np.intp, keepdims=keepdims)


def _check_tolerances(atol: Any, rtol: Any) -> None:
    """NumPy's check that the tolerances are finite, reported as np.seterr's ``invalid``
    asks (a read of the tolerance arrays, if they are server arrays)."""
    finite = all(bool(_ew("isfinite", t).all()) if isinstance(t, ndarray)
                 else bool(np.all(np.isfinite(t))) for t in (atol, rtol))
    if finite:
        return
    mode = np.geterr()["invalid"]
    message = f"One of rtol or atol is not valid, atol: {atol}, rtol: {rtol}"
    if mode == "warn":
        warnings.warn(message, RuntimeWarning, stacklevel=3)
    elif mode == "raise":
        raise FloatingPointError(message)
    elif mode == "print":
        print(message)


def isclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8,
            equal_nan: bool = False) -> ndarray:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` for finite ``b``, or ``a == b`` (so equal
    infinities are close); with ``equal_nan``, NaN is close to NaN. ``b`` is compared as a
    float (its integer dtype promoted with 1.0), as in NumPy 2."""
    if not isinstance(a, ndarray) and not isinstance(b, ndarray):
        _ops.require_array(a, "isclose")
    x, y = (v if isinstance(v, (int, float, complex)) else _operand(v, "isclose")
            for v in (a, b))
    atol, rtol = (v if isinstance(v, (int, float, complex, ndarray)) else _operand(v, "isclose")
                  for v in (atol, rtol))
    if isinstance(y, ndarray):
        y = y.astype(np.result_type(y.dtype, 1.), copy=False)
    elif isinstance(y, np.generic):
        y = np.asarray(y, dtype=np.result_type(y, 1.))[()]
    elif isinstance(y, int):
        y = float(y)
    _check_tolerances(atol, rtol)
    with np.errstate(invalid="ignore"):
        bound = _ew("add", atol, _ew("multiply", rtol, _ew("absolute", y)))
        close = _ops.elementwise("less_equal", (_ew("absolute", _ew("subtract", x, y)), bound))
        result = _ops.elementwise("bitwise_or", (
            _ops.elementwise("bitwise_and", (close, _ew("isfinite", y))),
            _ops.elementwise("equal", (x, y))))
        if equal_nan:
            result = _ops.elementwise("bitwise_or", (result, _ops.elementwise(
                "bitwise_and", (_ew("isnan", x), _ew("isnan", y)))))
    return result


def allclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8,
             equal_nan: bool = False) -> ndarray:
    """Whether every element of :func:`isclose` is true: a 0-d bool array (NumPy: a bool)."""
    return _ops.reduce("all", isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> ndarray:
    """Whether the two have the same shape and elements (NaNs equal with ``equal_nan``): a
    0-d bool array (NumPy: a bool)."""
    a1, a2 = _operand(a1, "array_equal"), _operand(a2, "array_equal")
    if np.shape(a1) != np.shape(a2):
        return _false()
    if equal_nan and a1 is a2:  # NaN equals itself here.
        return _creation.full((), True)
    equal = _ops.elementwise("equal", (a1, a2))
    if equal_nan and (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
        both_nan = _ops.elementwise("bitwise_and", (_ops.elementwise("isnan", (a1,)),
                                                    _ops.elementwise("isnan", (a2,))))
        equal = _ops.elementwise("bitwise_or", (equal, both_nan))
    return _ops.reduce("all", equal)


def array_equiv(a1: Any, a2: Any) -> ndarray:
    """Whether the two broadcast together and are equal elementwise: a 0-d bool array
    (NumPy: a bool)."""
    a1, a2 = _operand(a1, "array_equiv"), _operand(a2, "array_equiv")
    try:
        np.broadcast_shapes(np.shape(a1), np.shape(a2))
    except ValueError:
        return _false()
    return _ops.reduce("all", _ops.elementwise("equal", (a1, a2)))


# -- Statistics ---------------------------------------------------------------------------------

def ptp(a: ndarray, axis: _ops.AxisLike = None, out: Any = None,
        keepdims: bool = False) -> ndarray:
    """Range of values (maximum - minimum) along ``axis``; bool raises as NumPy's subtract."""
    highest = _ops.reduce("max", a, axis, out=out, keepdims=keepdims)
    lowest = _ops.reduce("min", a, axis, keepdims=keepdims)
    return _ops.elementwise("subtract", (highest, lowest), out=out)


def average(a: ndarray, axis: _ops.AxisLike = None, weights: Any = None,
            returned: bool = False, *, keepdims: bool = False) -> Any:
    """The (weighted) mean along ``axis``; with ``returned``, also the sum of the weights (the
    element count without weights) as an array of the average's shape. With ``weights``, one
    round trip checks that they do not sum to zero (NumPy raises ZeroDivisionError)."""
    a = _ops.require_array(a, "average")
    if axis is not None:
        try:
            axis = normalize_axis_tuple(axis, a.ndim, argname="axis")
        except np.exceptions.AxisError as error:
            raise client_error(ArrayHubAxisError, str(error)) from None
    if weights is None:
        average_ = _ops.reduce("mean", a, axis, keepdims=keepdims)
        if not returned:
            return average_
        count = average_.dtype.type(a.size / average_.size)
        return average_, _creation.full(average_.shape, count, average_.dtype)
    if not isinstance(weights, ndarray):
        weights = _ops.upload(np.asarray(weights), a.client)
    if a.dtype.kind in "biu":
        result_dtype = np.result_type(a.dtype, weights.dtype, "f8")
    else:
        result_dtype = np.result_type(a.dtype, weights.dtype)
    if a.shape != weights.shape:
        if axis is None:
            raise client_error(ArrayHubTypeError,
                               "Axis must be specified when shapes of a and weights differ.")
        if weights.shape != tuple(a.shape[ax] for ax in axis):
            raise client_error(ArrayHubValueError, "Shape of weights must be consistent with "
                                                   "shape of a along specified axis.")
        weights = weights.transpose(tuple(np.argsort(axis)))
        weights = weights.reshape(tuple(s if ax in axis else 1 for ax, s in enumerate(a.shape)))
    total = _ops.reduce("sum", weights, axis, dtype=result_dtype, keepdims=keepdims)
    if bool(_ops.reduce("any", _ops.elementwise("equal", (total, 0.0)))):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    weighted = _ops.elementwise("multiply", (a, weights), dtype=result_dtype)
    average_ = _ops.elementwise("divide", (
        _ops.reduce("sum", weighted, axis, keepdims=keepdims), total))
    if not returned:
        return average_
    if total.shape != average_.shape:
        total = broadcast_to(total, average_.shape).copy()
    return average_, total


# -- Rounding -----------------------------------------------------------------------------------

def _power_of_ten(n: int) -> float:
    """10.0 ** n as NumPy's round computes it (exact table, then repeated products)."""
    if n < 9:
        return (1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8)[n]
    result = 1e9
    for _ in range(n - 9):
        result *= 10.0
    return result


def around(a: ndarray, decimals: int = 0, out: Any = None) -> ndarray:
    """Rounds half to even to ``decimals`` places (negative: left of the point) with NumPy's
    algorithm, ``rint(a * 10**decimals) / 10**decimals``: floats stay floats, integers are
    rounded through float64 for negative ``decimals`` and returned as a copy otherwise, bool
    gives float16 as ``rint`` does. Complex arrays only with ``decimals=0`` for now (NumPy
    rounds the real and imaginary parts apart; the server has no op to split them yet)."""
    a = _ops.require_array(a, "around")
    decimals = operator.index(decimals)
    integer = a.dtype.kind in "iu"
    if decimals >= 0:
        if integer:
            return _ops.elementwise("copy", (a,), out=out)
        if decimals == 0:  # rint of complex rounds both parts, as NumPy's round.
            return _ops.elementwise("rint", (a,), out=out)
        scale, unscale = "multiply", "divide"
    else:
        scale, unscale, decimals = "divide", "multiply", -decimals
    if a.dtype.kind == "c":
        raise client_error(ArrayHubNotImplementedError,
                           "round: complex arrays with decimals != 0 are not supported yet")
    if out is None:  # NumPy's: a new array of a's dtype, float64 for integers.
        out = _creation.empty(a.shape, np.float64 if integer else a.dtype)
        result_dtype = a.dtype if integer else None
    else:
        result_dtype = None
    factor = _power_of_ten(decimals)
    result = _ops.elementwise(scale, (a, factor), out=out)
    result = _ops.elementwise("rint", (result,), out=result)
    result = _ops.elementwise(unscale, (result, factor), out=result)
    return result if result_dtype is None else result.astype(result_dtype)


round = around  # noqa: A001  (NumPy's name; the builtin is not used in this module)
