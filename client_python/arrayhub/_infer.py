"""Shapes, dtypes and strides of results, computed on the client with NumPy's own rules.

A pipelined client (see _pipeline.py) answers an operation at once with a queued array, so it
must know the result's shape, dtype and layout without asking the server. NumPy decides them:

- dtypes come from running the NumPy function on 0-d (or one-element) arrays of the operands'
  dtypes, with Python scalars passed as they are (weak, NEP 50);
- views come from running NumPy's view functions on *dummies*: arrays made by ``as_strided``
  over one element with the real shape and strides. A view never reads data, so this costs the
  same for any size. Functions that could copy (and so read) are never run on a dummy:
  ``reshape`` runs with ``copy=False`` and a refused view means a C-contiguous copy;
- everything else (reductions, matmul, fancy indexing, array ops) from the shape rules.

Every function answers None when it cannot tell, or when NumPy refuses the operation: the
caller then runs the operation synchronously and the server's own message is raised. The
server checks everything again; this module is for speed only.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence
from typing import Any, Callable, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple
from numpy.lib.stride_tricks import as_strided

from arrayhub import _dtypes
from arrayhub._ufunc_names import TWO_OUTPUT_UFUNCS

__all__ = ["Meta", "contiguous", "elementwise", "reduce", "matmul", "tensor_product", "linalg",
           "view", "getitem", "array_op", "created"]


class Meta:
    """What a client knows of an array without its data: NumPy's shape, dtype, strides (in
    bytes) and flags."""

    __slots__ = ("shape", "dtype", "strides", "c_contiguous", "f_contiguous", "owns_data",
                 "writable", "key")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, strides: tuple[int, ...],
                 c_contiguous: bool, f_contiguous: bool, owns_data: bool,
                 writable: bool) -> None:
        self.shape = shape
        self.dtype = dtype
        self.strides = strides
        self.c_contiguous = c_contiguous
        self.f_contiguous = f_contiguous
        self.owns_data = owns_data
        self.writable = writable
        # Every field, for the caches of inferred results (a Meta is never changed).
        self.key = (shape, dtype, strides, c_contiguous, f_contiguous, owns_data, writable)

    def __repr__(self) -> str:
        return f"Meta(shape={self.shape}, dtype={self.dtype}, strides={self.strides})"


def _supported(dtype: np.dtype) -> Optional[np.dtype]:
    return dtype if dtype in _dtypes.SUPPORTED_DTYPES else None


def contiguous(shape: Sequence[int], dtype: Any) -> Optional[Meta]:
    """A new C-contiguous array, as the server allocates every result that is not a view."""
    try:
        return _contiguous(tuple(shape), np.dtype(dtype))
    except TypeError:  # an unhashable or non-integer extent
        return None


@functools.lru_cache(maxsize=4096)
def _contiguous(shape: tuple[int, ...], dtype: np.dtype) -> Optional[Meta]:
    # Cached: a loop makes the same result over and over (Meta is never changed).
    if _supported(dtype) is None:
        return None
    shape = tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        return None
    # NumPy's flags of a C-contiguous array: also F-contiguous when empty or when at most one
    # axis is longer than 1.
    f_contiguous = 0 in shape or sum(n > 1 for n in shape) <= 1
    return Meta(shape, dtype, _c_strides(shape, dtype), True, f_contiguous, True, True)


def _c_strides(shape: tuple[int, ...], dtype: np.dtype) -> tuple[int, ...]:
    strides, step = [], np.dtype(dtype).itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def dummy(meta: Meta) -> np.ndarray:
    """A NumPy array with ``meta``'s shape, dtype and strides over one element: views of it
    are exact and free; reading it is never done."""
    return as_strided(np.empty(1, meta.dtype), meta.shape, meta.strides, writeable=False)


def _nonempty_view(view: np.ndarray, writable: bool) -> Optional[Meta]:
    """A view's Meta (NumPy's shape, strides and flags of the view of a dummy); None for an
    empty view, whose strides the server picks its own way (so the op runs synchronously and
    the server's answer is the truth)."""
    if view.size == 0:
        return None
    flags = view.flags
    return Meta(tuple(view.shape), view.dtype, tuple(view.strides), bool(flags.c_contiguous),
                bool(flags.f_contiguous), False, writable)


def _guard(function: Callable[..., Optional[Meta]]) -> Callable[..., Optional[Meta]]:
    """Any error while inferring means "cannot tell": the caller runs the op synchronously and
    raises the server's message, exactly as without a pipeline."""
    def guarded(*args: Any, **kwargs: Any) -> Optional[Meta]:
        try:
            with np.errstate(all="ignore"):
                return function(*args, **kwargs)
        except Exception:
            return None
    guarded.__name__ = function.__name__
    guarded.__doc__ = function.__doc__
    return guarded


#: Inferred results by everything that decides them (see _cached): a loop asks for the same
#: ones over and over, and NumPy's functions cost microseconds each. Emptied when full.
_RESULTS: dict[tuple[Any, ...], Optional[Meta]] = {}
_MAX_RESULTS = 4096


def _exact(value: Any) -> Any:
    """``value`` as part of a cache key that tells apart what NumPy tells apart: 1, 1.0, True
    and numpy.int64(1) are equal in Python, so each plain value goes with its type."""
    if isinstance(value, Meta):
        return value.key
    if isinstance(value, (tuple, list)):
        return (type(value), *(_exact(v) for v in value))
    if isinstance(value, slice):
        return (slice, _exact(value.start), _exact(value.stop), _exact(value.step))
    return (type(value), value)


def _cached(key_of: Callable[..., tuple[Any, ...]], out_at: Optional[int] = None
            ) -> Callable[[Callable[..., Optional[Meta]]], Callable[..., Optional[Meta]]]:
    """Remembers a guarded inference's result by ``key_of(*args)``, which must hold everything
    the result depends on. Arguments that make no key (unhashable ones) are inferred without
    the cache. A result that is the op's out= (argument ``out_at``) answers that argument, not
    the equal Meta it was cached with."""
    def decorate(function: Callable[..., Optional[Meta]]) -> Callable[..., Optional[Meta]]:
        name = function.__name__

        def cached(*args: Any, **kwargs: Any) -> Optional[Meta]:
            if kwargs:  # (every caller passes positional arguments; keywords skip the cache)
                return function(*args, **kwargs)
            try:
                key = (name, *key_of(*args))
                result = _RESULTS.get(key, _MISSING)
            except Exception:
                return function(*args)
            if result is _MISSING:
                result = function(*args)
                if len(_RESULTS) >= _MAX_RESULTS:
                    _RESULTS.clear()
                _RESULTS[key] = result
            if result is not None and out_at is not None and args[out_at] is not None:
                return args[out_at]
            return result
        cached.__name__ = name
        cached.__doc__ = function.__doc__
        return cached
    return decorate


_MISSING = object()


# -- Elementwise ------------------------------------------------------------------------------

def _copy(x: Any, dtype: Any = None) -> np.ndarray:
    return np.array(x, dtype=dtype)


def _output_of(ufunc: np.ufunc, k: int) -> Callable[..., Any]:
    """Output k of a two-output ufunc: a server op of its own (_ufunc_pairs.py)."""
    return lambda *args, **kwargs: ufunc(*args, **kwargs)[k]


# Server op names that NumPy spells differently or that are no ufunc.
_ELEMENTWISE_FUNCS: dict[str, Callable[..., Any]] = {
    "copy": _copy, "clip": np.clip, "where": np.where,
    **{op: _output_of(getattr(np, name), k)
       for name, _, ops in TWO_OUTPUT_UFUNCS for k, op in enumerate(ops)}}


def _small(value: Any) -> Any:
    """A 0-d stand-in for an operand: a Meta by a one-element array of its dtype (ones, so
    that no warning-free op divides by zero), a scalar as itself (weak or strong, as given)."""
    if isinstance(value, Meta):
        return np.ones((), value.dtype)
    return value


def _operand_kind(value: Any) -> Any:
    """What NumPy's type resolution depends on: an array's or NumPy scalar's dtype; a weak
    Python scalar's type, and for an int, which integer dtypes it fits (its sign and bits)."""
    if isinstance(value, Meta):
        return value.dtype
    if isinstance(value, (np.generic, np.ndarray)):  # a NumPy scalar or 0-d array: strong
        return value.dtype, "scalar"
    if isinstance(value, bool) or not isinstance(value, int):
        return type(value)
    return value < 0, (-value - 1 if value < 0 else value).bit_length()


#: Result dtypes by (op, operand kinds, dtype=): a loop resolves the same types over and over.
_ELEMENTWISE_DTYPES: dict[tuple[Any, ...], Optional[np.dtype]] = {}


def _resolve(op: str, operands: Sequence[Any], dtype: Optional[np.dtype]) -> Optional[np.dtype]:
    """The result dtype of ``op`` on ``operands``: NumPy's loop resolution on 0-d stand-ins
    (raises where NumPy refuses, which is not cached)."""
    key = (op, tuple(_operand_kind(v) for v in operands), dtype)
    if key in _ELEMENTWISE_DTYPES:
        return _ELEMENTWISE_DTYPES[key]
    function = _ELEMENTWISE_FUNCS.get(op) or getattr(np, op)
    small = [_small(v) for v in operands]
    if dtype is not None:
        # The server casts inputs to dtype= only safely (NumPy: same_kind).
        if op in ("clip", "where") or not all(
                np.can_cast(v.dtype, dtype, "safe") for v in operands
                if isinstance(v, (Meta, np.generic, np.ndarray))):
            return None
        result = function(*small, dtype=dtype)
    else:
        result = function(*small)
    resolved = _supported(np.asarray(result).dtype)
    if len(_ELEMENTWISE_DTYPES) < 4096:
        _ELEMENTWISE_DTYPES[key] = resolved
    return resolved


def _shapes(operands: Sequence[Any]) -> tuple[int, ...]:
    shapes = [v.shape for v in operands if isinstance(v, Meta)]
    if all(s == shapes[0] for s in shapes[1:]):
        return shapes[0] if shapes else ()
    return np.broadcast_shapes(*shapes)


# Scalars by their kind only (_operand_kind decides the dtype), so y + 1 and y + 2 share one.
@_cached(lambda op, operands, out, dtype: (
    op, dtype, _exact(out), *[v.key if isinstance(v, Meta) else _operand_kind(v)
                              for v in operands]), out_at=2)
@_guard
def elementwise(op: str, operands: Sequence[Any], out: Optional[Meta],
                dtype: Optional[np.dtype]) -> Optional[Meta]:
    """An Elementwise result (``out`` itself when given): NumPy's loop resolution on 0-d
    stand-ins, the broadcast of the operands' shapes, and out='s same_kind cast and shape."""
    result_dtype = _resolve(op, operands, dtype)
    if result_dtype is None:
        return None
    return _into(_shapes(operands), result_dtype, out)


def _into(shape: tuple[int, ...], result_dtype: np.dtype, out: Optional[Meta]) -> Optional[Meta]:
    """A new C-contiguous result, or ``out`` when the result can be written there (its shape,
    writable, a same_kind cast, as ufuncs and matmul require)."""
    if out is None:
        return contiguous(shape, result_dtype)
    if (out.shape != shape or not out.writable
            or not np.can_cast(result_dtype, out.dtype, "same_kind")):
        return None
    return out


# -- Reductions -------------------------------------------------------------------------------

_REDUCTIONS: dict[str, Callable[..., Any]] = {
    "sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max, "mean": np.mean,
    "var": np.var, "std": np.std, "argmin": np.argmin, "argmax": np.argmax, "any": np.any,
    "all": np.all}


@_cached(lambda op, a, axis, keepdims, dtype, ddof, out: (
    op, a.key, _exact(axis), _exact(keepdims), dtype, _exact(ddof), _exact(out)), out_at=6)
@_guard
def reduce(op: str, a: Meta, axis: Any, keepdims: bool, dtype: Optional[np.dtype],
           ddof: int, out: Optional[Meta]) -> Optional[Meta]:
    """A Reduce result: the dtype NumPy gives on a one-element array of ``a``'s rank, the
    shape from the normalized axes. Empty reductions without an identity are left to the
    server (they raise)."""
    ndim = len(a.shape)
    if op in ("argmin", "argmax"):
        if axis is not None and not isinstance(axis, (int, np.integer)):
            return None
        axes = (tuple(range(ndim)) if axis is None
                else (normalize_axis_index(operator.index(axis), ndim),))
    else:
        axes = tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim)
    if op in ("min", "max", "argmin", "argmax") and any(a.shape[i] == 0 for i in axes):
        return None
    if op in ("argmin", "argmax") and ndim == 0 and axis is not None:
        return None
    kwargs: dict[str, Any] = {"axis": axis, "keepdims": keepdims}
    if dtype is not None and op in ("mean", "var", "std") and dtype.kind in "biu":
        return None  # The server refuses NumPy's truncating integer mean.
    if dtype is not None:
        kwargs["dtype"] = dtype
    if ddof and op not in ("var", "std"):
        return None  # (ddof changes no dtype: NumPy would only warn on a one-element array.)
    result = _REDUCTIONS[op](np.ones((1,) * ndim, a.dtype), **kwargs)
    result_dtype = _supported(np.asarray(result).dtype)
    if result_dtype is None:
        return None
    if keepdims:
        shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
    else:
        shape = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    if out is None:
        return contiguous(shape, result_dtype)
    if out.shape != shape or out.dtype != result_dtype or not out.writable:
        return None
    return out


# -- Products ---------------------------------------------------------------------------------

@_cached(lambda a, b, out: (_exact(a), _exact(b), _exact(out)), out_at=2)
@_guard
def matmul(a: Any, b: Any, out: Optional[Meta]) -> Optional[Meta]:
    """numpy.matmul's result: 1-D operands promoted and the added axes removed, batch axes
    broadcast, the inner dimensions equal."""
    if not isinstance(a, Meta) or not isinstance(b, Meta) or not a.shape or not b.shape:
        return None
    result_dtype = _supported(np.matmul(np.ones((1, 1), a.dtype), np.ones((1, 1), b.dtype)).dtype)
    if result_dtype is None:
        return None
    a_shape = (1,) + a.shape if len(a.shape) == 1 else a.shape
    b_shape = b.shape + (1,) if len(b.shape) == 1 else b.shape
    if a_shape[-1] != b_shape[-2]:
        return None
    shape = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    shape += ((a_shape[-2],) if len(a.shape) > 1 else ()) + ((b_shape[-1],) if len(b.shape) > 1
                                                            else ())
    return _into(shape, result_dtype, out)


def _product_shape(op: str, a: tuple[int, ...], b: tuple[int, ...],
                   axes: int) -> Optional[tuple[int, ...]]:
    """The shape numpy.dot, inner, vdot, outer or tensordot gives; None where NumPy refuses
    (or for 0-d operands, which multiply and are left to the server)."""
    if not a or not b:
        return None
    if op == "vdot":
        return () if math.prod(a) == math.prod(b) else None
    if op == "outer":
        return (math.prod(a), math.prod(b))
    if op == "inner":
        return a[:-1] + b[:-1] if a[-1] == b[-1] else None
    if op == "tensordot":
        if axes < 0 or axes > min(len(a), len(b)) or a[len(a) - axes:] != b[:axes]:
            return None
        return a[:len(a) - axes] + b[axes:]
    # dot: the last axis of a with the only (1-D b) or second-to-last axis of b.
    inner = b[0] if len(b) == 1 else b[-2]
    if a[-1] != inner:
        return None
    return a[:-1] + (b[:-2] + b[-1:] if len(b) > 1 else ())


_PRODUCTS: dict[str, Callable[..., Any]] = {"dot": np.dot, "vdot": np.vdot, "inner": np.inner,
                                            "outer": np.outer, "tensordot": np.dot}


@_cached(lambda op, a, b, axes, out: (op, _exact(a), _exact(b), _exact(axes),
                                             _exact(out)), out_at=4)
@_guard
def tensor_product(op: str, a: Any, b: Any, axes: int, out: Optional[Meta]) -> Optional[Meta]:
    """A TensorProduct result (dot, vdot, inner, outer, tensordot with an axis count): NumPy's
    dtype on one-element arrays, the shape from the product's rules. out= must be exactly the
    result, as numpy.dot requires."""
    if not isinstance(a, Meta) or not isinstance(b, Meta):
        return None
    shape = _product_shape(op, a.shape, b.shape, axes)
    if shape is None:
        return None
    result_dtype = _supported(np.asarray(
        _PRODUCTS[op](np.ones(1, a.dtype), np.ones(1, b.dtype))).dtype)
    if result_dtype is None:
        return None
    if out is None:
        return contiguous(shape, result_dtype)
    if out.shape != shape or out.dtype != result_dtype or not out.c_contiguous:
        return None
    return out


def _norm_order(text: str) -> Any:
    """NumPy's ord argument from the wire's spelling of it (linalg.py's _ord_text)."""
    if text in ("", "fro", "nuc"):
        return text or None
    value = float(text)
    return int(value) if value.is_integer() else value


@_cached(lambda op, a, axis, keepdims, ord="": (op, a.key, _exact(axis), _exact(keepdims),
                                                      ord))
@_guard
def linalg(op: str, a: Meta, axis: Optional[tuple[int, ...]], keepdims: bool,
           ord: str = "") -> Optional[Meta]:
    """The result of a linalg routine that gives one array and whose shape the client can tell:
    norm (over ``axis``: None, one axis or two), det, inv and eigvals. None for the others,
    which run synchronously. float16, which the server's linalg refuses, is left to it to raise, as is
    an ``ord`` that NumPy refuses for these axes."""
    if a.dtype == np.float16 or not a.shape and op != "norm":
        return None
    ndim = len(a.shape)
    if op == "norm":
        axes = tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim)
        if axis is not None and not 1 <= len(axes) <= 2:
            return None  # (axis=None with no ord is the 2-norm of the flattened array)
        # On a one-element array of a's rank, NumPy checks ord against the axes as it will.
        result = np.linalg.norm(np.ones((1,) * ndim, a.dtype), _norm_order(ord), axis)
        if keepdims:
            shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
        else:
            shape = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    elif op in ("det", "inv"):
        if ndim < 2 or a.shape[-1] != a.shape[-2] or a.shape[-1] == 0:
            return None
        result = getattr(np.linalg, op)(np.ones((1, 1), a.dtype))
        shape = a.shape[:-2] if op == "det" else a.shape
    elif op == "eigvals":  # Complex of a's precision (as CuPy's), one per row.
        if ndim < 2 or a.shape[-1] != a.shape[-2]:
            return None
        result = np.ones(1, np.result_type(np.linalg.inv(np.ones((1, 1), a.dtype)), np.complex64))
        shape = a.shape[:-1]
    else:
        return None
    result_dtype = _supported(np.asarray(result).dtype)
    return None if result_dtype is None else contiguous(shape, result_dtype)


# -- Views ------------------------------------------------------------------------------------

def _reshape(array: np.ndarray, shape: tuple[int, ...], order: str,
             writable: bool) -> Optional[Meta]:
    try:
        return _nonempty_view(np.reshape(array, shape, order=order, copy=False), writable)
    except ValueError:
        pass
    if order != "C":
        return None
    # A copy: NumPy resolves the -1 and checks the size on a C-contiguous dummy.
    resolved = np.reshape(as_strided(np.empty(1, array.dtype), array.shape,
                                     _c_strides(array.shape, array.dtype)), shape, copy=False)
    return contiguous(resolved.shape, array.dtype)


@_cached(lambda a, kind, spec: (a.key, kind, spec.SerializeToString(deterministic=True)))
@_guard
def view(a: Meta, kind: str, spec: Any) -> Optional[Meta]:
    """A View result: NumPy's own function on a dummy. ``kind`` is ViewRequest's oneof case and
    ``spec`` its message."""
    source = dummy(a)
    writable = a.writable
    if kind == "reshape":
        return _reshape(source, tuple(spec.shape), spec.order or "C", writable)
    if kind == "ravel":
        order = spec.order or "C"
        if order == "C" and a.c_contiguous or order == "F" and a.f_contiguous:
            return _nonempty_view(np.reshape(source, (-1,), order=order, copy=False), writable)
        return contiguous((math.prod(a.shape),), a.dtype) if order == "C" else None
    if kind == "transpose":
        result = np.transpose(source, tuple(spec.axes) or None)
    elif kind == "swapaxes":
        result = np.swapaxes(source, spec.axis1, spec.axis2)
    elif kind == "squeeze":
        result = np.squeeze(source, tuple(spec.axis.axes) if spec.HasField("axis") else None)
    elif kind == "expand_dims":
        result = np.expand_dims(source, tuple(spec.axes))
    elif kind == "broadcast_to":
        result, writable = np.broadcast_to(source, tuple(spec.shape)), False
    elif kind == "diagonal":
        axis1, axis2 = (0, 1) if spec.axis1 == spec.axis2 == 0 else (spec.axis1, spec.axis2)
        result, writable = np.diagonal(source, spec.offset, axis1, axis2), False
    else:
        return None
    return _nonempty_view(result, writable)


# -- Indexing ---------------------------------------------------------------------------------

def _is_int(entry: Any) -> bool:
    return isinstance(entry, (int, np.integer)) and not isinstance(entry, (bool, np.bool_))


@_cached(lambda a, key: (a.key, _exact(key)))
@_guard
def getitem(a: Meta, key: tuple[Any, ...]) -> Optional[Meta]:
    """``a[key]`` for a key of ints, slices, None, Ellipsis and integer index arrays (given as
    their Meta). Basic indexing is a view, run on a dummy; with index arrays, a C-contiguous
    copy whose shape follows NumPy's rules for advanced indexing."""
    if any(isinstance(entry, Meta) for entry in key):
        return _fancy(a, key)
    if not all(entry is None or entry is Ellipsis or isinstance(entry, slice) or _is_int(entry)
               for entry in key):
        return None
    if Ellipsis not in key:
        key = key + (Ellipsis,)  # A 0-d view, not a scalar (which would read the element).
    return _nonempty_view(dummy(a)[key], a.writable)


def _fancy(a: Meta, key: tuple[Any, ...]) -> Optional[Meta]:
    if any(isinstance(e, Meta) and e.dtype.kind not in "iu" for e in key):
        return None  # A boolean mask: the shape depends on the data.
    if sum(entry is Ellipsis for entry in key) > 1:
        return None
    indexing = sum(0 if entry is None or entry is Ellipsis else 1 for entry in key)
    if indexing > len(a.shape):
        return None
    if Ellipsis in key:
        at = key.index(Ellipsis)
        key = key[:at] + (slice(None),) * (len(a.shape) - indexing) + key[at + 1:]
    else:
        key = key + (slice(None),) * (len(a.shape) - indexing)
    advanced = [i for i, entry in enumerate(key) if isinstance(entry, Meta) or _is_int(entry)]
    broadcast = np.broadcast_shapes(*(e.shape for e in key if isinstance(e, Meta)))
    dims: list[tuple[int, ...]] = []
    axis = 0
    for entry in key:
        if entry is None:
            dims.append((1,))
            continue
        if isinstance(entry, slice):
            dims.append((len(range(*entry.indices(a.shape[axis]))),))
        elif _is_int(entry):
            normalize_axis_index(operator.index(entry), a.shape[axis])  # IndexError: refused
            dims.append(())
        elif a.shape[axis] == 0 and math.prod(entry.shape):
            return None  # Any index into an empty axis is out of bounds.
        else:
            dims.append(())
        axis += 1
    basic = [d for i, d in enumerate(dims) if i not in advanced]
    if advanced == list(range(advanced[0], advanced[-1] + 1)):
        before = sum(1 for i in range(advanced[0]) if i not in advanced)
        shape = basic[:before] + [broadcast] + basic[before:]
    else:
        shape = [broadcast] + basic
    return contiguous(tuple(n for part in shape for n in part), a.dtype)


# -- Array ops --------------------------------------------------------------------------------

def _tiny(meta: Meta) -> np.ndarray:
    return np.ones((1,) * len(meta.shape), meta.dtype)


@_cached(lambda op, operands, dtype, axis, ints: (op, _exact(operands), dtype, _exact(axis),
                                                      _exact(ints)))
@_guard
def array_op(op: str, operands: Sequence[Any], dtype: Optional[np.dtype], axis: Any,
             ints: Sequence[int]) -> Optional[Meta]:
    """An ArrayOp result whose shape does not depend on the data; None for the others
    (unique, nonzero, compress, split, repeat by an array)."""
    a = operands[0]
    if not isinstance(a, Meta):
        return None
    size = math.prod(a.shape)
    if op in ("copy", "ascontiguousarray"):
        return contiguous(a.shape, a.dtype)
    if op == "astype":
        return contiguous(a.shape, dtype)
    if op in ("sort", "argsort", "partition", "argpartition"):
        if op.endswith("partition") and size:
            length = size if axis is None else a.shape[normalize_axis_index(axis, len(a.shape))]
            if any(not -length <= k < length for k in ints):
                return None  # The server's error.
        result_dtype = np.dtype(np.intp) if op.startswith("arg") else a.dtype
        if axis is None:
            return contiguous((size,), result_dtype)
        normalize_axis_index(axis, len(a.shape))
        return contiguous(a.shape, result_dtype)
    if op in ("cumsum", "cumprod"):
        result_dtype = getattr(np, op)(_tiny(a), axis=axis, dtype=dtype).dtype
        return contiguous((size,) if axis is None else a.shape, result_dtype)
    if op == "flip":
        return _nonempty_view(np.flip(dummy(a), axis), a.writable)
    if op == "roll":
        np.roll(_tiny(a), tuple(ints) if len(ints) != 1 else ints[0], axis)  # checks the axes
        return contiguous(a.shape, a.dtype)
    if op == "tile":
        reps = tuple(operator.index(r) for r in ints)
        if any(r < 0 for r in reps):
            return None
        shape = (1,) * (len(reps) - len(a.shape)) + a.shape
        reps = (1,) * (len(shape) - len(reps)) + reps
        return contiguous(tuple(n * r for n, r in zip(shape, reps)), a.dtype)
    if op == "repeat":
        if len(operands) != 1 or len(ints) != 1 or ints[0] < 0:
            return None
        if axis is None:
            return contiguous((size * ints[0],), a.dtype)
        index = normalize_axis_index(axis, len(a.shape))
        return contiguous(a.shape[:index] + (a.shape[index] * ints[0],) + a.shape[index + 1:],
                          a.dtype)
    if op in ("concatenate", "stack"):
        return _join(op, operands, dtype, axis)
    if op == "histogram":
        edges = operands[1]
        if (len(operands) != 2 or not isinstance(edges, Meta) or len(edges.shape) != 1
                or edges.shape[0] < 2 or edges.dtype.kind != "f" or a.dtype.kind == "c"):
            return None
        return contiguous((edges.shape[0] - 1,), np.dtype(np.int64))
    if op == "searchsorted":
        if len(a.shape) != 1:
            return None
        v = operands[1]
        np.searchsorted(np.ones(1, a.dtype), _small(v))  # NumPy's type checks
        return contiguous(v.shape if isinstance(v, Meta) else (), np.dtype(np.intp))
    if op == "take":
        indices = operands[1]
        shape = indices.shape if isinstance(indices, Meta) else ()
        if isinstance(indices, Meta) and indices.dtype.kind not in "iu":
            return None
        if axis is None:
            if size == 0 and math.prod(shape):
                return None
            return contiguous(shape, a.dtype)
        index = normalize_axis_index(axis, len(a.shape))
        if a.shape[index] == 0 and math.prod(shape):
            return None
        return contiguous(a.shape[:index] + shape + a.shape[index + 1:], a.dtype)
    return None


def _join(op: str, operands: Sequence[Any], dtype: Optional[np.dtype],
          axis: Any) -> Optional[Meta]:
    if not operands or not all(isinstance(o, Meta) for o in operands):
        return None
    tiny = [_tiny(o) for o in operands]
    if op == "stack":
        first = operands[0].shape
        if any(o.shape != first for o in operands):
            return None
        result_dtype = np.stack(tiny, axis=axis, dtype=dtype).dtype
        index = normalize_axis_index(axis, len(first) + 1)
        return contiguous(first[:index] + (len(operands),) + first[index:], result_dtype)
    result_dtype = np.concatenate(tiny, axis=axis, dtype=dtype).dtype
    if axis is None:
        return contiguous((sum(math.prod(o.shape) for o in operands),), result_dtype)
    first = operands[0].shape
    if not first:
        return None
    index = normalize_axis_index(axis, len(first))
    for o in operands[1:]:
        if len(o.shape) != len(first) or any(
                n != m for i, (n, m) in enumerate(zip(o.shape, first)) if i != index):
            return None
    joined = sum(o.shape[index] for o in operands)
    return contiguous(first[:index] + (joined,) + first[index + 1:], result_dtype)


# -- Creation ---------------------------------------------------------------------------------

def _scalar(message: Any) -> Any:
    case = message.WhichOneof("value")
    if case == "complex_value":
        return complex(message.complex_value.real, message.complex_value.imag)
    return getattr(message, case) if case else None


@_guard
def _float_arange(start: Any, stop: Any, step: Any, dtype: Optional[np.dtype]
                  ) -> Optional[Meta]:
    """arange with a float bound or step, into a floating dtype: its length is NumPy's
    ceil((stop - start) / step) in float64, which the server computes the same way. Other
    dtypes (a float range cast to integers, which the server checks element by element) and
    the lengths the server refuses are left to it."""
    if dtype is not None and dtype.kind != "f":
        return None
    values = (start, stop, step)
    if not all(isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        return None  # complex bounds: the server's error
    start, stop, step = (float(v) for v in values)
    if step == 0.0:
        return None
    length = (stop - start) / step
    if not math.isfinite(length) or math.ceil(length) >= 9.2e18:
        return None
    return contiguous((max(math.ceil(length), 0),), dtype if dtype is not None
                      else np.dtype(np.float64))


def created(request: Any) -> Optional[Meta]:
    """A CreateRequest's result (the Create RPC's NumPy rules for each kind)."""
    kind = request.WhichOneof("kind")
    dtype = _dtypes.from_wire(request.dtype) if request.dtype else None
    shape = tuple(request.shape)
    if kind in ("empty", "zeros", "ones"):
        return contiguous(shape, dtype if dtype is not None else np.dtype(np.float64))
    if kind == "data":  # The server refuses data without a dtype, or of the wrong size.
        if dtype is None or len(request.data.values) != dtype.itemsize * math.prod(shape):
            return None
        return contiguous(shape, dtype)
    if kind == "random":
        return _random(request.random, shape, dtype)
    if kind == "full":
        value = _scalar(request.full.value)
        return contiguous(shape, dtype if dtype is not None else np.asarray(value).dtype)
    if kind == "arange":
        spec = request.arange
        start, stop = _scalar(spec.start), _scalar(spec.stop)
        step = _scalar(spec.step) if spec.HasField("step") else 1
        if all(_is_int(v) for v in (start, stop, step)) and step != 0:
            result_dtype = np.arange(start, start + step, step, dtype=dtype).dtype
            return contiguous((len(range(start, stop, step)),), result_dtype)
        return _float_arange(start, stop, step, dtype)
    if kind == "linspace":
        spec = request.linspace
        if spec.num < 0:
            return None
        result_dtype = np.linspace(_scalar(spec.start), _scalar(spec.stop), 2, dtype=dtype).dtype
        return contiguous((spec.num,), result_dtype)
    if kind == "eye":
        spec = request.eye
        if spec.n < 0 or spec.has_m and spec.m < 0:
            return None
        return contiguous((spec.n, spec.m if spec.has_m else spec.n),
                          dtype if dtype is not None else np.dtype(np.float64))
    return None


def _random(spec: Any, shape: tuple[int, ...], dtype: Optional[np.dtype]) -> Optional[Meta]:
    """A random draw: NumPy's Generator checks of the distribution's dtype and parameters
    (the server's messages are raised for the draws it would refuse)."""
    case = spec.WhichOneof("distribution")
    if case == "integers":
        dtype = dtype if dtype is not None else np.dtype(np.int64)
        if dtype.kind not in "iu":
            return None
        limits = np.iinfo(dtype)
        low, high = spec.integers.low, spec.integers.high
        if not limits.min <= low < high or high - 1 > limits.max:
            return None
        return contiguous(shape, dtype)
    dtype = dtype if dtype is not None else np.dtype(np.float64)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        return None
    if case == "normal" and not spec.normal.stddev >= 0:
        return None
    if case == "uniform" and not math.isfinite(spec.uniform.high - spec.uniform.low):
        return None
    return contiguous(shape, dtype)
