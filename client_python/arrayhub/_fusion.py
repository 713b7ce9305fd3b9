"""``arrayhub.fuse``: CuPy's fuse. The decorated function is traced once per argument dtypes
and ranks over proxy values into ONE user kernel (_kernels.py): an ElementwiseKernel, or a
ReductionKernel when the function ends with a reduction (sum, prod, max, min, any, all, as
a method or an arrayhub function, with axis and keepdims). Each operation takes NumPy 2's
types (``ufunc.resolve_dtypes``, Python scalars weak as NEP 50 says): its operands are cast
to the ufunc's loop type and its result has NumPy's dtype, so fused results equal NumPy's.
Supported: arithmetic, comparison, logical and bitwise operators, the ufuncs with a math
function in the kernel language (exp, log, sqrt, sin, ..., maximum, minimum, where, ...) and
Python scalars. Data-dependent Python control flow (``if x > 0``) cannot be traced: TypeError.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional

import numpy as np

from arrayhub import _dtypes, _ndarray, _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error

__all__ = ["fuse"]

#: Binary ufuncs written as a C operator on operands cast to the loop type.
_OPERATORS = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/", "divide": "/",
              "less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
              "equal": "==", "not_equal": "!=", "logical_and": "&&", "logical_or": "||",
              "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "left_shift": "<<",
              "right_shift": ">>"}
#: Ufuncs that are one math function of the kernel language (NumPy name -> C name).
_FUNCTIONS = {"exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2",
              "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "cbrt": "cbrt", "sin": "sin",
              "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
              "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh",
              "arccosh": "acosh", "arctanh": "atanh", "floor": "floor", "ceil": "ceil",
              "trunc": "trunc", "rint": "rint", "fabs": "fabs", "arctan2": "atan2",
              "hypot": "hypot", "copysign": "copysign", "fmod": "fmod", "fmax": "fmax",
              "fmin": "fmin", "power": "pow", "absolute": "abs", "isnan": "isnan",
              "isinf": "isinf", "isfinite": "isfinite", "signbit": "signbit"}
#: Final reductions: (reduce_expr, identity or None).
_REDUCTIONS = {"sum": ("a + b", "0"), "prod": ("a * b", "1"),
               "max": ("(a != a || a > b) ? a : b", None),
               "min": ("(a != a || a < b) ? a : b", None),
               "any": ("a || b", "false"), "all": ("a && b", "true")}
_REDUCTION_ALIASES = {"amax": "max", "amin": "min"}


class _Trace:
    """The statements of one traced function, one typed local per operation."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def local(self, dtype: np.dtype, expression: str) -> _Var:
        name = f"v{len(self.statements)}"
        self.statements.append(f"const {dtype.name} {name} = {expression};")
        return _Var(self, name, dtype)


def _literal(value: Any, dtype: np.dtype) -> str:
    if isinstance(value, (bool, np.bool_)):
        text = "true" if value else "false"
    elif isinstance(value, (int, np.integer)):
        text = str(int(value))
    elif isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise client_error(ArrayHubValueError,
                               f"fuse: the constant {value} cannot be written in a kernel; "
                               f"pass it as an argument")
        text = repr(float(value))
    else:
        raise client_error(ArrayHubTypeError,
                           f"fuse: unsupported constant {value!r} ({type(value).__name__})")
    return f"(({dtype.name}){text})"


def _typing_of(value: Any) -> Any:
    """What resolve_dtypes takes for an operand: a proxy's dtype, a NumPy scalar's dtype, or a
    Python scalar's type (weak, also when it is an argument of the fused function)."""
    if isinstance(value, _WeakScalar):
        return value.python_type
    if isinstance(value, _Var):
        return value.dtype
    if isinstance(value, np.generic):
        return value.dtype
    if _dtypes.is_python_scalar(value):
        return type(value)
    raise client_error(ArrayHubTypeError,
                       f"fuse: unsupported operand {type(value).__name__} inside a fused "
                       f"function (proxy values and scalars only)")


def _cast(value: Any, dtype: np.dtype) -> str:
    if isinstance(value, _Var):
        return value.name if value.dtype == dtype else f"(({dtype.name}){value.name})"
    return _literal(value, dtype)


def _trace_of(values: tuple[Any, ...]) -> _Trace:
    return next(v.trace for v in values if isinstance(v, _Var))


def apply_ufunc(name: str, args: tuple[Any, ...]) -> _Var:
    """One ufunc over proxies and scalars: a typed local of the trace."""
    ufunc = getattr(np, name, None)
    if name == "where":
        return _where(*args)
    if not isinstance(ufunc, np.ufunc):
        raise client_error(ArrayHubTypeError, f"fuse: {name} cannot be fused")
    canonical = ufunc.__name__
    try:
        loop = ufunc.resolve_dtypes((*map(_typing_of, args), *[None] * ufunc.nout))
    except (TypeError, np.exceptions.DTypePromotionError) as error:
        raise client_error(ArrayHubTypeError, f"fuse: {name}: {error}") from None
    if ufunc.nout != 1:
        raise client_error(ArrayHubTypeError, f"fuse: {name} has several outputs")
    inputs, result = loop[:-1], loop[-1]
    operands = [_cast(a, t) for a, t in zip(args, inputs)]
    expression = _expression(canonical, operands, inputs[0])
    return _trace_of(args).local(result, expression)


def _expression(name: str, operands: list[str], loop: np.dtype) -> str:
    if name in _OPERATORS:
        a, b = operands
        if name in ("bitwise_and", "bitwise_or", "bitwise_xor") and loop.kind == "b":
            name = {"bitwise_and": "logical_and", "bitwise_or": "logical_or"}.get(name, name)
        return f"({a} {_OPERATORS[name]} {b})"
    if name == "floor_divide":
        a, b = operands
        if loop.kind == "f":
            return f"floor({a} / {b})"
        # Python's floor of the quotient; NumPy's 0 for a zero divisor.
        return (f"({b} == 0 ? ({loop.name})0 : ({loop.name})({a} / {b} - "
                f"((({a} % {b}) != 0) && ((({a} % {b}) < 0) != ({b} < 0)))))")
    if name == "remainder":
        a, b = operands
        if loop.kind == "f":
            r = f"fmod({a}, {b})"
            return f"(({r} != 0 && (({r} < 0) != ({b} < 0))) ? {r} + {b} : {r})"
        r = f"({a} % {b})"
        return (f"({b} == 0 ? ({loop.name})0 : (({r} != 0 && (({r} < 0) != ({b} < 0))) ? "
                f"{r} + {b} : {r}))")
    if name == "power" and loop.kind != "f":
        a, b = operands
        return f"(({loop.name})pow((float64){a}, (float64){b}))"
    if name in ("maximum", "minimum"):
        a, b = operands
        op = ">" if name == "maximum" else "<"
        return f"(({a} != {a} || {a} {op} {b}) ? {a} : {b})"
    if name in _FUNCTIONS:
        return f"{_FUNCTIONS[name]}({', '.join(operands)})"
    (a,) = operands if len(operands) == 1 else (None,)
    if name == "negative":
        return f"(-{a})"
    if name == "positive":
        return a
    if name == "logical_not":
        return f"(!{a})"
    if name == "invert":
        return f"(!{a})" if loop.kind == "b" else f"(~{a})"
    if name == "square":
        return f"({a} * {a})"
    if name == "reciprocal":
        return f"(({loop.name})1 / {a})"
    if name == "sign":
        return f"(({loop.name})(({a} > 0) - ({a} < 0)))"
    raise client_error(ArrayHubTypeError, f"fuse: {name} cannot be fused")


def _where(condition: Any, x: Any, y: Any) -> _Var:
    dtype = np.result_type(*(v.python_type(0) if isinstance(v, _WeakScalar) else
                             v.dtype if isinstance(v, _Var) else v for v in (x, y)))
    trace = _trace_of((condition, x, y))
    test = (f"({condition.name} != 0)" if isinstance(condition, _Var)
            else ("true" if condition else "false"))
    return trace.local(dtype, f"({test} ? {_cast(x, dtype)} : {_cast(y, dtype)})")


class _Reduced:
    """The function's final reduction of a proxy."""

    def __init__(self, op: str, value: _Var, axis: Any, keepdims: bool) -> None:
        self.op, self.value, self.axis, self.keepdims = op, value, axis, keepdims


class _Var:
    """A value of the traced function: a typed local of its kernel."""

    __slots__ = ("trace", "name", "dtype")

    def __init__(self, trace: _Trace, name: str, dtype: np.dtype) -> None:
        self.trace, self.name, self.dtype = trace, name, dtype

    def __bool__(self) -> bool:
        raise client_error(ArrayHubTypeError,
                           "fuse: a traced value has no truth value (Python control flow on "
                           "array values cannot be fused; use arrayhub.where)")

    def astype(self, dtype: Any) -> _Var:
        dtype = np.dtype(dtype)
        return self.trace.local(dtype, _cast(self, dtype))

    def reduce(self, op: str, axis: Any = None, dtype: Any = None, out: Any = None,
               keepdims: bool = False, **_: Any) -> _Reduced:
        if dtype is not None or out is not None:
            raise client_error(ArrayHubTypeError,
                               f"fuse: {op} takes no dtype= or out= inside a fused function")
        return _Reduced(_REDUCTION_ALIASES.get(op, op), self, axis, keepdims)

    def sum(self, *args: Any, **kwargs: Any) -> _Reduced:
        return self.reduce("sum", *args, **kwargs)

    def prod(self, *args: Any, **kwargs: Any) -> _Reduced:
        return self.reduce("prod", *args, **kwargs)

    def max(self, *args: Any, **kwargs: Any) -> _Reduced:
        return self.reduce("max", *args, **kwargs)

    def min(self, *args: Any, **kwargs: Any) -> _Reduced:
        return self.reduce("min", *args, **kwargs)

    def any(self, *args: Any, **kwargs: Any) -> _Reduced:
        return self.reduce("any", *args, **kwargs)

    def all(self, *args: Any, **kwargs: Any) -> _Reduced:
        return self.reduce("all", *args, **kwargs)


def _operator(name: str, swap: bool = False) -> Callable[..., _Var]:
    if swap:
        return lambda self, other: apply_ufunc(name, (other, self))
    return lambda self, other: apply_ufunc(name, (self, other))


for _name, _ufunc in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                      ("truediv", "true_divide"), ("floordiv", "floor_divide"),
                      ("mod", "remainder"), ("pow", "power"), ("and", "bitwise_and"),
                      ("or", "bitwise_or"), ("xor", "bitwise_xor"), ("lshift", "left_shift"),
                      ("rshift", "right_shift")):
    setattr(_Var, f"__{_name}__", _operator(_ufunc))
    setattr(_Var, f"__r{_name}__", _operator(_ufunc, swap=True))
for _name, _ufunc in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                      ("ge", "greater_equal"), ("eq", "equal"), ("ne", "not_equal")):
    setattr(_Var, f"__{_name}__", _operator(_ufunc))
_Var.__neg__ = lambda self: apply_ufunc("negative", (self,))  # type: ignore[attr-defined]
_Var.__pos__ = lambda self: apply_ufunc("positive", (self,))  # type: ignore[attr-defined]
_Var.__abs__ = lambda self: apply_ufunc("absolute", (self,))  # type: ignore[attr-defined]
_Var.__invert__ = lambda self: apply_ufunc("invert", (self,))  # type: ignore[attr-defined]
_Var.__hash__ = None  # type: ignore[assignment]  # __eq__ builds an expression.
_Var.ufunc = staticmethod(apply_ufunc)  # type: ignore[attr-defined]  # For _ops' hook.


def _argument_key(value: Any) -> Any:
    if isinstance(value, _ndarray.ndarray):
        return ("array", np.dtype(value.dtype).str, value.ndim)
    if isinstance(value, np.generic):
        return ("numpy", value.dtype.str)
    if _dtypes.is_python_scalar(value):
        return ("python", type(value).__name__)
    raise client_error(ArrayHubTypeError,
                       f"fuse: unsupported argument type {type(value).__name__} (arrayhub "
                       f"arrays and scalars)")


class _Fused:
    """A fused function: one kernel per argument types, traced on first use."""

    def __init__(self, func: Callable[..., Any], kernel_name: Optional[str]) -> None:
        self._func = func
        self._name = kernel_name or getattr(func, "__name__", "fused")
        if not self._name.isidentifier() or self._name == "<lambda>":
            self._name = "fused"
        self._kernels: dict[tuple[Any, ...], tuple[Any, Optional[_Reduced]]] = {}
        functools.update_wrapper(self, func)

    def __call__(self, *args: Any) -> Any:
        if not any(isinstance(a, _ndarray.ndarray) for a in args):
            return self._func(*args)  # Scalars alone: the plain function.
        key = tuple(map(_argument_key, args))
        entry = self._kernels.get(key)
        if entry is None:
            entry = self._kernels[key] = self._compile(args)
        kernel, reduced = entry
        if reduced is None:
            return kernel(*args)
        return kernel(*args, axis=reduced.axis, keepdims=reduced.keepdims)

    def _compile(self, args: tuple[Any, ...]) -> tuple[Any, Optional[_Reduced]]:
        from arrayhub import _kernels  # noqa: PLC0415  (_kernels imports the client's modules)
        trace = _Trace()
        params, proxies = [], []
        for k, value in enumerate(args):
            dtype = (np.dtype(value.dtype) if isinstance(value, (_ndarray.ndarray, np.generic))
                     else np.asarray(value).dtype)
            params.append(f"{dtype.name} in{k}")
            # Python scalars stay weak in the typing (their parameter holds the value).
            proxy = _Var(trace, f"in{k}", dtype)
            proxies.append(proxy if not _dtypes.is_python_scalar(value) else _WeakScalar(
                trace, f"in{k}", dtype, type(value)))
        result = self._func(*proxies)
        in_params = ", ".join(params)
        if isinstance(result, _Reduced):
            return self._reduction(trace, in_params, result, len(args)), result
        results = result if isinstance(result, tuple) else (result,)
        outs = []
        for k, value in enumerate(results):
            if not isinstance(value, _Var):
                raise client_error(ArrayHubTypeError,
                                   f"fuse: {self._name} must return traced values (arrays), "
                                   f"got {type(value).__name__}")
            outs.append((f"{value.dtype.name} out{k}", f"out{k} = {value.name};"))
        operation = "\n".join([*trace.statements, *(o[1] for o in outs)])
        kernel = _kernels.ElementwiseKernel(in_params, ", ".join(o[0] for o in outs), operation,
                                            self._name, return_tuple=isinstance(result, tuple))
        return kernel, None

    def _reduction(self, trace: _Trace, in_params: str, reduced: _Reduced, count: int) -> Any:
        from arrayhub import _kernels  # noqa: PLC0415
        op, value = reduced.op, reduced.value
        if op not in _REDUCTIONS:
            raise client_error(ArrayHubTypeError, f"fuse: the reduction {op} cannot be fused")
        if op in ("sum", "prod"):
            dtype = getattr(np, op)(np.empty(0, value.dtype)).dtype
        elif op in ("any", "all"):
            dtype = np.dtype(bool)
        else:
            dtype = value.dtype
        expression, identity = _REDUCTIONS[op]
        arguments = ", ".join(f"in{k}" for k in range(count))
        returned = (f"({value.name} != 0)" if dtype.kind == "b" and value.dtype.kind != "b"
                    else _cast(value, dtype))
        preamble = (f"__device__ {dtype.name} {self._name}_map({in_params}) {{\n"
                    + "\n".join(trace.statements) + f"\nreturn {returned};\n}}")
        return _kernels.ReductionKernel(in_params, f"{dtype.name} out0",
                                        f"{self._name}_map({arguments})", expression,
                                        "out0 = a", identity, self._name,
                                        reduce_type=dtype.name, preamble=preamble)


class _WeakScalar(_Var):
    """A Python scalar argument: its parameter holds the value, its typing stays weak."""

    __slots__ = ("python_type",)

    def __init__(self, trace: _Trace, name: str, dtype: np.dtype, python_type: type) -> None:
        super().__init__(trace, name, dtype)
        self.python_type = python_type


def fuse(*args: Any, kernel_name: Optional[str] = None) -> Any:
    """CuPy's ``fuse``: ``@arrayhub.fuse`` or ``@arrayhub.fuse(kernel_name='f')``."""
    if len(args) == 1 and callable(args[0]) and kernel_name is None:
        return _Fused(args[0], None)
    if args:
        raise client_error(ArrayHubTypeError, "fuse takes a function or kernel_name= only")
    return lambda func: _Fused(func, kernel_name)


_ops.FUSION_VALUE = _Var
