#!/usr/bin/env python3
"""Writes tests/core/ufunc_expected.inc: what NumPy does, for the core typing-rule tests.

Run with NumPy 2.4:  python tests/reference/gen_ufunc_expected.py
The output is committed; the build never runs Python. It has three sections, each a list of
brace-initialized rows that a test includes inside an array after defining the section's macro:

AH_PROMOTION_CASES  {"a", "b", "promote_types(a, b)", can_cast safe, can_cast same_kind}
                    for all 196 pairs of our 14 dtypes.
AH_UFUNC_CASES      {"op", "operands", "dtype=", "outcome", "loop"}
                    operands: dtype names for arrays, Python literals for weak scalars
                    (True, -1, 300, 9223372036854775808, 2.5, 1e+40, 1.5j).
                    outcome: the result dtype, or the error: "ErrorType: message" for the
                    messages the server reproduces, else "ErrorType".
                    loop: the input dtypes of the loop NumPy resolves (ufunc.resolve_dtypes),
                    written once when they are all the same,
                    "" where that is not what runs (where, and comparisons with an
                    out-of-range Python int, which NumPy answers without a loop).
AH_REDUCE_CASES     {"op", "dtype", "shape", "axis", "dtype=", "outcome", "shape", "keepdims shape"}
                    axis: "none" (axis=None), "()" (empty tuple), or axes separated by spaces;
                    a single axis is passed as an int, several as a tuple.
"""

import itertools
import pathlib
import sys
import re
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from ufunc_table import numpy_ufuncs  # noqa: E402  (scripts/ is no package)
OUTPUT = ROOT / "tests/core/ufunc_expected.inc"

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
SCALARS = [True, -1, 300, 2**63, 2.5, 1e40, 1.5j]
COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
REDUCE_OPS = ["sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "any", "all"]
SHAPES = [(), (0,), (3,), (2, 3), (2, 0), (0, 3), (0, 0), (2, 3, 4)]
AXES = [None, (), (0,), (-1,), (1,), (-2,), (2,), (-3,), (0, 1), (1, 0), (0, -1), (0, 0),
        (0, -2), (-1, 2), (0, 1, 2), (2, 0, 1)]


class OneOutput:
    """Output k of a two-output ufunc (ufuncs.def's "frexp[1]"), as a one-output ufunc."""

    def __init__(self, ufunc, output):
        self.ufunc, self.output = ufunc, output
        self.nin = ufunc.nin

    def _signature(self, dtype):
        """dtype= of the op: this output's type alone (NumPy's dtype= would set both)."""
        outputs = [None] * self.ufunc.nout
        outputs[self.output] = np.dtype(dtype)
        return (None,) * self.nin + tuple(outputs)

    def __call__(self, *args, dtype=None):
        kwargs = {} if dtype is None else {"signature": self._signature(dtype)}
        return self.ufunc(*args, **kwargs)[self.output]

    def resolve_dtypes(self, dtypes, signature=None):
        kwargs = {} if signature is None else {"signature": self._signature(signature[-1])}
        return self._pick(self.ufunc.resolve_dtypes(dtypes[:-1] + (None,) * self.ufunc.nout,
                                                    **kwargs))

    def _pick(self, loop):
        return loop[:self.nin] + (loop[self.nin + self.output],)


def ufunc_of(numpy_name):
    if numpy_name.endswith("]"):
        name, output = numpy_name[:-1].split("[")
        return OneOutput(getattr(np._core.umath, name), int(output))
    return getattr(np._core.umath, numpy_name)


def ufuncs():
    """(name, ufunc) of every ElementwiseOp that is a NumPy ufunc, in ufuncs.def's order."""
    return [(op.name, ufunc_of(op.numpy)) for op in numpy_ufuncs()]


def is_scalar(x):
    return not isinstance(x, np.dtype)


def text(x):
    return x.name if isinstance(x, np.dtype) else repr(x)


def call(function, operands, **kwargs):
    """NumPy's result dtype name for arrays of ones of the given dtypes and the scalars."""
    args = [np.ones(1, x) if isinstance(x, np.dtype) else x for x in operands]
    return np.asarray(function(*args, **kwargs)).dtype.name


# Messages the server reproduces word for word; other errors are recorded by class only.
EXACT_MESSAGES = re.compile(r"Python integer .* out of bounds|numpy boolean|out of bounds for "
                            r"array|duplicate value|zero-size array|empty sequence")


def outcome(thunk):
    try:
        return thunk()
    except Exception as e:  # NumPy's error is the expectation.
        name = type(e).__name__
        return f"{name}: {e}" if EXACT_MESSAGES.search(str(e)) else name


def resolved(ufunc, operands, requested=None):
    """The dtypes (inputs and output) of the loop NumPy picks, or None."""
    dtypes = tuple(np.dtype(bool) if isinstance(x, bool) else type(x) if is_scalar(x) else x
                   for x in operands)
    kwargs = {} if requested is None else {
        "signature": (None,) * ufunc.nin + (np.dtype(requested),)}
    try:
        return ufunc.resolve_dtypes(dtypes + (None,), **kwargs)
    except Exception:
        return None


def resolved_loop(ufunc, operands, requested=None):
    """Input dtypes of the loop NumPy picks (one name when all are the same), "" if none."""
    loop = resolved(ufunc, operands, requested)
    if loop is None:
        return ""
    names = [d.name for d in loop[:ufunc.nin]]
    return names[0] if len(set(names)) == 1 else " ".join(names)


def out_of_range_int(x, dtype):
    return (type(x) is int and dtype.kind in "iu"
            and not np.iinfo(dtype).min <= x <= np.iinfo(dtype).max)


def ufunc_row(name, ufunc, operands, requested=None):
    function = np.clip if name == "clip" else ufunc  # np.clip: NumPy's user-facing rules.
    kwargs = {} if requested is None else {"dtype": requested}
    result = outcome(lambda: call(function, operands, **kwargs))
    if result == "ValueError":  # power(int8 array, -1) refuses the value, not the types.
        result = resolved(ufunc, operands, requested)[-1].name
    resolve_operands = list(operands)
    if name == "clip" and is_scalar(operands[0]):  # np.clip makes `a` an array.
        resolve_operands[0] = np.asarray(operands[0]).dtype
    loop = resolved_loop(ufunc, resolve_operands, requested)
    arrays = [x for x in resolve_operands if not is_scalar(x)]
    if name in COMPARISONS and any(out_of_range_int(x, np.result_type(*arrays))
                                   for x in operands if is_scalar(x)):
        loop = ""
    return (name, " ".join(text(x) for x in operands), requested or "", result, loop)


def ufunc_cases():
    d = [np.dtype(n) for n in DTYPES]
    rows = []
    for name, ufunc in ufuncs():
        for operands in itertools.product(d, repeat=ufunc.nin):
            rows.append(ufunc_row(name, ufunc, operands))
        if ufunc.nin == 2:
            for x, s in itertools.product(d, SCALARS):
                rows.append(ufunc_row(name, ufunc, (x, s)))
                rows.append(ufunc_row(name, ufunc, (s, x)))
        if name == "clip":
            for x, s in itertools.product(d, SCALARS):
                rows += [ufunc_row(name, ufunc, (x, s, x)), ufunc_row(name, ufunc, (x, x, s)),
                         ufunc_row(name, ufunc, (s, x, x))]
                rows += [ufunc_row(name, ufunc, (x, s, t)) for t in SCALARS]
        for x, r in itertools.product(d, DTYPES):
            rows.append(ufunc_row(name, ufunc, (x,) * ufunc.nin, r))
    return rows + where_cases(d)


def where_row(operands):
    return ("where", " ".join(text(x) for x in operands), "",
            outcome(lambda: call(np.where, operands)), "")


def where_cases(d):
    boolean = np.dtype(bool)
    rows = [where_row((boolean, a, b)) for a, b in itertools.product(d, repeat=2)]
    rows += [where_row((c, np.dtype("float32"), np.dtype("int8"))) for c in d]
    for x, s in itertools.product(d, SCALARS):
        rows += [where_row((boolean, x, s)), where_row((boolean, s, x))]
    rows += [where_row((boolean, s, t)) for s, t in itertools.product(SCALARS, repeat=2)]
    return rows


def reduce_call(op, dtype, shape, axis, requested=None, keepdims=False):
    kwargs = {"keepdims": keepdims}
    if axis is not None:
        kwargs["axis"] = axis[0] if len(axis) == 1 else axis
    if requested is not None:
        kwargs["dtype"] = requested
    return np.asarray(getattr(np, op)(np.ones(shape, dtype), **kwargs))


def reduce_row(op, dtype, shape, axis, requested=None):
    def run():
        result = reduce_call(op, dtype, shape, axis, requested)
        kept = reduce_call(op, dtype, shape, axis, requested, keepdims=True)
        return result.dtype.name, shape_text(result.shape), shape_text(kept.shape)

    result = outcome(run)
    if isinstance(result, str):
        result = (result, "", "")
    axis_text = "none" if axis is None else "()" if not axis else " ".join(map(str, axis))
    return (op, dtype, shape_text(shape), axis_text, requested or "") + result


def shape_text(shape):
    return " ".join(map(str, shape))


def reduce_cases():
    rows = [reduce_row(op, d, (2, 3), None) for op in REDUCE_OPS for d in DTYPES]
    rows += [reduce_row(op, d, (2, 3), None, r)
             for op in ("sum", "prod", "mean", "var", "std") for d in DTYPES for r in DTYPES]
    rows += [reduce_row(op, "float64", s, a) for op in REDUCE_OPS for s in SHAPES for a in AXES]
    return rows


def literal(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def section(macro, rows):
    lines = [f"#ifdef {macro}"]
    lines += ["{" + ", ".join(literal(v) for v in row) + "}," for row in rows]
    return lines + [f"#endif  // {macro}"]


def promotion_cases():
    return [(a, b, np.promote_types(a, b).name, bool(np.can_cast(a, b, "safe")),
             bool(np.can_cast(a, b, "same_kind"))) for a in DTYPES for b in DTYPES]


def main():
    warnings.simplefilter("ignore")
    lines = [f"// Generated by tests/reference/gen_ufunc_expected.py from NumPy {np.__version__};",
             "// do not edit. Sections and row layouts are described in the script.",
             "// clang-format off"]
    lines += section("AH_PROMOTION_CASES", promotion_cases())
    lines += section("AH_UFUNC_CASES", ufunc_cases())
    lines += section("AH_REDUCE_CASES", reduce_cases())
    lines.append("// clang-format on")
    OUTPUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
