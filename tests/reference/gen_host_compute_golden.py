#!/usr/bin/env python3
"""Writes tests/backend/host_compute_golden.inc: NumPy's results for the host compute tests.

Run with NumPy 2.4:  /tmp/npenv/bin/python tests/reference/gen_host_compute_golden.py
The output is committed; the build never runs Python. Values are little-endian element bytes
in hex. Three sections, each a list of brace-initialized rows that host_compute_test.cc
includes inside an array after defining the section's macro:

AH_ELEMENTWISE_CASES  {"op", "loop dtype", "result dtype", {"operand dtype", ...},
                       {"operand hex", ...}, "expected hex", ulps}
                      Every op of ops.h on every loop dtype NumPy has for it, on special values
                      (signed zeros, infinities, NaN, integer limits, zero divisors, ties for
                      rint, shift counts past the width) and seeded random ones. ulps 0: bit for
                      bit (any NaN matching any NaN); else a tolerance in units of the last
                      place, for the transcendental functions, whose last bits NumPy's SIMD
                      code and the C library may round differently.
AH_CAST_CASES         {"from", "to", "values hex", "expected hex"}
                      astype between all pairs, on values whose conversion NumPy defines
                      (floats in range of integer targets).
AH_REDUCE_INPUTS      {"dtype", "hex"}: (3, 4, 5) arrays of every dtype, floats also with NaNs.
AH_REDUCE_CASES       {"op", input index, "accumulate dtype", "output dtype", "axes", ddof,
                       "expected hex", relative tolerance}
                      Each reduction of each input, accumulate dtypes as core's reduction
                      rules pick them; axes: "all" or axes separated by spaces.
"""

import pathlib
import sys
import warnings
import zlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from ufunc_table import read_ops  # noqa: E402  (scripts/ is no package)
OUTPUT = ROOT / "tests/backend/host_compute_golden.inc"
SEED = 20261122
RNG = np.random.default_rng(SEED)  # Reseeded for each section after the first (reseed).
COUNT = 32  # Elements per elementwise case.

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
TRANSCENDENTAL = {"exp", "expm1", "log", "log1p", "log2", "log10", "cbrt", "sin", "cos", "tan",
                  "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arctan2", "hypot",
                  "exp2", "logaddexp", "logaddexp2", "arcsinh", "arccosh", "arctanh"}
# Ops that are exact for reals but computed with hypot, cpow or csqrt for complex.
COMPLEX_INEXACT = {"absolute", "sign", "sqrt", "power", "float_power"}
# Complex products, which NumPy's SIMD loops compute with fused multiply-adds where the CPU has
# them (a last-place difference).
COMPLEX_FUSED = {"multiply", "square"}
# Integer identities of ops.h for which NumPy has no integer loop (it picks a float loop).
INTEGER_IDENTITIES = {"rint"}


def op_names():
    """The names of the ElementwiseOps, in ufuncs.def's order."""
    return [op.name for op in read_ops()]


# The NumPy ufunc each op follows, and for an output of a two-output ufunc ("frexp[1]"), which.
NUMPY = {op.name: op.numpy for op in read_ops()}
# Ops that are no ufunc: np.real and np.imag of complex arrays.
COMPLEX_PARTS = {"real": np.real, "imag": np.imag}


def ufunc(name):
    return getattr(np._core.umath, NUMPY.get(name, name).split("[")[0])


def output_index(name):
    """k for output k of a two-output ufunc, else None."""
    numpy = NUMPY.get(name, "")
    return int(numpy[:-1].split("[")[1]) if numpy.endswith("]") else None


def loop_dtypes(name):
    """Our dtypes NumPy has a homogeneous loop of for the op."""
    if name in ("where", "copy"):
        return DTYPES
    if name in COMPLEX_PARTS:
        return ["complex64", "complex128"]
    if name in ("ldexp", "_complex"):  # ldexp's loops are (float, int): the float's type.
        return ["float16", "float32", "float64"]
    found = []
    for types in ufunc(name).types:
        inputs, _ = types.split("->")
        if len(set(inputs)) != 1 or inputs[0] in "OmMgGV":
            continue
        dtype = np.dtype(inputs[0]).name
        if dtype in DTYPES and dtype not in found:
            found.append(dtype)
    if name in INTEGER_IDENTITIES:
        found += [d for d in DTYPES if np.dtype(d).kind in "biu" and d not in found]
    return sorted(found, key=DTYPES.index)


def reseed(section):
    """Starts a section's random values from a seed of its own, so that the casts and
    reductions stay the same when an op is added."""
    global RNG
    RNG = np.random.default_rng([SEED, zlib.crc32(section.encode())])


def real_specials(dtype):
    info = np.finfo(dtype)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5,
                     3.5, -3.0, 7.0, 1e-3, float(info.max), float(info.tiny) / 4, -float(info.max),
                     100.0], dtype=dtype)


def integer_specials(dtype):
    info = np.iinfo(dtype)
    values = [0, 1, 2, 3, 7, 100 % (int(info.max) + 1), int(info.max), int(info.max) - 1]
    if info.min < 0:
        values += [-1, -2, -3, -7, int(info.min), int(info.min) + 1]
    return np.array(values, dtype=dtype)


def random_reals(dtype, count, low=-3.0, high=3.0):
    magnitude = 10.0 ** RNG.uniform(low, high, count) * RNG.uniform(1, 2, count)
    return (magnitude * RNG.choice([-1, 1], count)).astype(dtype)


def values(dtype, count, role="any"):
    """`count` values of `dtype` mixing special and random ones; role narrows the range."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return RNG.integers(0, 2, count).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if role == "shift":
            return RNG.integers(-2 if info.min < 0 else 0, dt.itemsize * 8 + 3, count).astype(dt)
        if role == "exponent":
            return RNG.integers(0, 70, count).astype(dt)
        if role == "ldexp":  # Exponents that scale into subnormals and overflow, and int clamps.
            specials = [0, 1, -1, 2000, -2000, 2**40, -2**40, 2**31, -2**31 - 1, -1074, -149, -24]
            return np.concatenate([specials, RNG.integers(-60, 60, count - len(specials))
                                   ]).astype(dt)
        if role == "base":
            small = RNG.integers(max(-3, int(info.min)), 4, count // 2).astype(dt)
            return np.concatenate([small, RNG.choice(integer_specials(dt), count - count // 2)
                                   ]).astype(dt)
        pool = np.concatenate([integer_specials(dt),
                               RNG.integers(info.min, info.max, count, endpoint=True, dtype=dt)])
        if role == "nonzero":  # Integer reciprocal: NumPy's result for 0 is the platform's.
            pool = pool[pool != 0]
        return RNG.permutation(pool)[:count]
    if dt.kind == "f":
        if role == "unit":  # arcsin, arccos: mostly inside [-1, 1].
            return np.concatenate([RNG.uniform(-1, 1, count - 6),
                                   [1.0, -1.0, 0.0, 1.5, np.nan, np.inf]]).astype(dt)
        if role == "moderate":  # exp, sinh, cosh: results mostly finite.
            return np.concatenate([RNG.uniform(-10, 10, count - 5),
                                   [0.0, -0.0, np.nan, np.inf, -np.inf]]).astype(dt)
        pool = np.concatenate([real_specials(dt), random_reals(dt, count)])
        return RNG.permutation(pool)[:count]
    real = np.dtype(f"float{dt.itemsize * 4}")
    if role == "finite":  # Complex transcendentals: finite inputs (special cases differ).
        return complex_array(dt, random_reals(real, count, -2, 1), random_reals(real, count, -2, 1))
    re, im = values(real, count), values(real, count)
    # Half the elements get a zero or random part, so that ties and real axes show.
    im[: count // 4] = 0
    re[count // 4: count // 2] = random_reals(real, count // 4)
    return complex_array(dt, re, im)


def complex_array(dtype, re, im):
    """re + i im, also for infinite parts (where re + 1j * im would make NaNs)."""
    result = np.empty(len(re), dtype)
    result.real, result.imag = re, im
    return result


def role(name, dtype, index):
    kind = np.dtype(dtype).kind
    if name in ("left_shift", "right_shift") and index == 1:
        return "shift"
    if name == "ldexp" and index == 1:
        return "ldexp"
    if name == "power" and kind in "iu":
        return "exponent" if index == 1 else "base"
    if kind == "c" and (name in TRANSCENDENTAL or name in COMPLEX_INEXACT):
        return "finite"
    if name in ("arcsin", "arccos", "arctanh"):
        return "unit"
    if name in ("exp", "expm1", "exp2", "sinh", "cosh", "tanh"):
        return "moderate"
    if name == "reciprocal" and kind in "iu":
        return "nonzero"
    return "any"


def tolerance_ulps(name, dtype):
    """Units in the last place at the result's scale (the larger part's for complex); complex
    functions get more, NumPy's complex log1p, for one, being off by 8 at times."""
    kind = np.dtype(dtype).kind
    if kind == "c" and (name in TRANSCENDENTAL or name in COMPLEX_INEXACT):
        return 16
    if name in TRANSCENDENTAL or (name in ("power", "float_power") and kind == "f"):
        return 1 if dtype == "float16" else 8
    if kind == "c" and name in COMPLEX_FUSED:
        return 2
    return 0


def hexbytes(array):
    return np.ascontiguousarray(array).tobytes().hex()


# Operand pairs that decide signs of zero, NaN propagation and infinity rules, put first in
# the binary (and clip's first two) operands of floats; complex ones also tie real parts.
REAL_PAIRS = [(0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0), (np.nan, 1.0), (1.0, np.nan),
              (np.inf, -np.inf), (-np.inf, np.inf), (np.inf, np.inf), (1.0, 0.0), (-1.0, 0.0),
              (1.0, -0.0), (0.0, 0.0), (np.inf, 1.0), (-1.0, np.inf), (2.5, -np.inf), (-7.0, 2.0)]
COMPLEX_PAIRS = [(1 + 1j, 1 + 2j), (1 + 2j, 1 + 1j), (complex(1, np.nan), 2.0),
                 (2.0, complex(1, np.nan)), (complex(np.nan, 0), 1.0), (3 - 0j, 3 + 0j)]


def with_special_pairs(operands, dtype):
    first, second = operands[0].copy(), operands[1].copy()
    pairs = REAL_PAIRS + (COMPLEX_PAIRS if np.dtype(dtype).kind == "c" else [])
    for i, (a, b) in enumerate(pairs):
        first[i], second[i] = a, b
    return [first, second] + operands[2:]


def elementwise_case(name, dtype):
    arity = {"where": 3, "clip": 3, "copy": 1, "real": 1, "imag": 1, "_complex": 2}.get(name) or \
        ufunc(name).nin
    operand_dtypes = [dtype] * arity
    if name == "where":
        operand_dtypes[0] = "int32" if dtype.startswith("int") else "bool"
    if name == "ldexp":  # Read as int64 (ufuncs.def): values beyond int32 show the clamp.
        operand_dtypes[1] = "int64"
    operands = [values(operand_dtypes[i], COUNT, role(name, dtype, i)) for i in range(arity)]
    if name == "clip":  # Bounds where low > high too (NumPy: the result is high).
        operands[1], operands[2] = np.minimum(operands[1], operands[2]), operands[2]
    special = arity >= 2 and name != "where" and all(role(name, dtype, i) == "any" for i in (0, 1))
    if special and np.dtype(dtype).kind in "fc":
        operands = with_special_pairs(operands, dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if name == "where":
            expected = np.where(operands[0], operands[1], operands[2])
        elif name == "copy":
            expected = operands[0].copy()
        elif name in INTEGER_IDENTITIES and np.dtype(dtype).kind in "biu":
            expected = operands[0].copy()
        elif name in COMPLEX_PARTS:
            expected = COMPLEX_PARTS[name](operands[0]).copy()
        elif name == "_complex":  # No NumPy function: re + i im, part by part.
            expected = complex_array("complex128" if dtype == "float64" else "complex64",
                                     *operands)
        elif name == "ldexp":
            expected = np.ldexp(*operands)
        elif output_index(name) is not None:
            nout = ufunc(name).nout
            expected = ufunc(name)(*operands, signature=(dtype,) * arity + (None,) * nout
                                   )[output_index(name)]
        else:
            expected = ufunc(name)(*operands, signature=(dtype,) * arity + (None,))
        if name == "nextafter" and dtype == "float16":
            # NumPy 2.5's float16 loop gives the second of equal operands, +0.0 and -0.0 too,
            # as C and its other loops do (numpy#31475); 2.4's gave the first.
            expected = np.where(operands[0] == operands[1], operands[1], expected)
    return (name, dtype, expected.dtype.name, operand_dtypes, [hexbytes(o) for o in operands],
            hexbytes(expected), tolerance_ulps(name, dtype))


def cast_values(source, target):
    """Values of `source` whose conversion to `target` NumPy defines (no float overflow into
    integers, no negative floats into unsigned)."""
    src, dst = np.dtype(source), np.dtype(target)
    if src.kind in "fc" and dst.kind in "iu":
        info = np.iinfo(dst)
        low = max(float(info.min), -60000.0) if info.min < 0 else 0.0
        high = min(float(info.max), 60000.0)
        reals = RNG.uniform(low, high, 16)
        reals[:4] = [0.0, 0.75, high - 0.5, low]
        data = complex_array(src, reals, np.full(16, 3.0)) if src.kind == "c" else reals.astype(src)
        # Rounding to the source dtype may leave the target's range: use 1 there instead.
        rounded = np.trunc(data.real.astype(np.float64))
        data[(rounded < float(info.min)) | (rounded > float(info.max))] = 1
        return data
    return values(source, 16)


def cast_case(source, target):
    data = cast_values(source, target)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = data.astype(target)
    return source, target, hexbytes(data), hexbytes(expected)


# --- Reductions --------------------------------------------------------------------------------

REDUCE_OPS = ["sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "any",
              "all"]
SHAPE = (3, 4, 5)
AXES = [None, (0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)]


def accumulate_and_result(op, dtype):
    """core's reduction rules (reduction_rules.h) without dtype=."""
    kind = np.dtype(dtype).kind
    wide = "uint64" if kind == "u" else "int64"
    summation = {"float16": "float32", "float32": "float64"}
    if op in ("sum", "prod"):
        if kind in "biu":
            return wide, wide
        return (summation.get(dtype, dtype) if op == "sum" or dtype == "float16" else dtype,
                dtype)
    if op in ("mean", "var", "std"):
        base = dtype if kind in "fc" else "float64"
        result = base
        if op != "mean" and kind == "c":
            result = {"complex64": "float32", "complex128": "float64"}[dtype]
        return summation.get(base, base), result
    if op in ("argmin", "argmax"):
        return dtype, "int64"
    if op in ("any", "all"):
        return "bool", "bool"
    return dtype, dtype


def reduce_input(dtype, with_nan):
    dt = np.dtype(dtype)
    count = int(np.prod(SHAPE))
    if dt.kind == "b":
        data = RNG.integers(0, 2, count).astype(bool)
        data[:20] = True  # One all-true slice along the last axes.
    elif dt.kind in "iu":
        data = RNG.integers(0 if dt.kind == "u" else -9, 10, count).astype(dt)
    else:
        real = np.dtype(f"float{dt.itemsize * 4}") if dt.kind == "c" else dt
        data = RNG.uniform(-4, 4, count).astype(real)
        if dt.kind == "c":
            data = complex_array(dt, data, RNG.uniform(-4, 4, count))
            data[::7] = data[::7].real  # Equal real parts order by the imaginary ones.
        data[5] = data[17]  # A repeated value: argmin/argmax take the first.
        if with_nan:
            data[[13, 41]] = np.nan
    return data.reshape(SHAPE)


def reduce_inputs():
    reseed("reduce")
    for dtype in DTYPES:
        inexact = np.dtype(dtype).kind in "fc"
        for with_nan in ([False, True] if inexact else [False]):
            yield reduce_input(dtype, with_nan)


def reduce_cases(inputs):
    for index, data in enumerate(inputs):
        dtype = data.dtype.name
        for op in REDUCE_OPS:
            accumulate, result = accumulate_and_result(op, dtype)
            for axes in AXES:
                if op in ("argmin", "argmax") and axes is not None and len(axes) > 1:
                    continue
                for ddof in ([0, 1] if op in ("var", "std") else [0]):
                    yield reduce_case(op, index, accumulate, result, data, axes, ddof)


def reduce_case(op, index, accumulate, result, data, axes, ddof):
    dtype = data.dtype.name
    kwargs = {"ddof": ddof} if op in ("var", "std") else {}
    if op in ("sum", "prod", "mean", "var", "std"):
        kwargs["dtype"] = accumulate if np.dtype(dtype).kind in "biu" else None
    axis = axes if axes is None or len(axes) > 1 else axes[0]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if op in ("argmin", "argmax") and axes is None:
            expected = getattr(np, op)(data)
        else:
            expected = getattr(np, op)(data, axis=axis, **kwargs)
    expected = np.asarray(expected).astype(result)
    kind = np.dtype(result).kind
    if kind in "biu":
        tolerance = 0.0
    elif op in ("min", "max"):
        tolerance = 0.0
    else:  # Summation orders differ; float16 NumPy accumulates var in float16.
        tolerance = {"float16": 4e-3, "float32": 2e-6, "complex64": 2e-6}.get(result, 1e-13)
        if op in ("var", "std") and dtype == "float16":
            tolerance = 2e-2
    axes_text = "all" if axes is None else " ".join(str(a) for a in axes)
    return op, index, accumulate, result, axes_text, ddof, hexbytes(expected), tolerance


# --- Output ------------------------------------------------------------------------------------

def literal(value):
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "{" + ", ".join(literal(v) for v in value) + "}"
    return repr(value)


def main():
    lines = [f"// Generated by tests/reference/gen_host_compute_golden.py with NumPy "
             f"{np.__version__}; do not edit.", ""]
    lines.append("#ifdef AH_ELEMENTWISE_CASES")
    for name in op_names():
        for dtype in loop_dtypes(name):
            lines.append(literal(elementwise_case(name, dtype)) + ",")
    lines.append("#endif")
    lines.append("#ifdef AH_CAST_CASES")
    reseed("astype")
    for source in DTYPES:
        for target in DTYPES:
            lines.append(literal(cast_case(source, target)) + ",")
    lines.append("#endif")
    inputs = list(reduce_inputs())
    lines.append("#ifdef AH_REDUCE_INPUTS")
    for data in inputs:
        lines.append(literal((data.dtype.name, hexbytes(data))) + ",")
    lines.append("#endif")
    lines.append("#ifdef AH_REDUCE_CASES")
    for case in reduce_cases(inputs):
        lines.append(literal(case) + ",")
    lines.append("#endif")
    OUTPUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUTPUT} ({OUTPUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
