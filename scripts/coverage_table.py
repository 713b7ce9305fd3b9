"""Writes docs/coverage.md: every function of NumPy's main namespace, numpy.linalg,
numpy.random, numpy.fft and CuPy's top level, marked implemented, differs (why) or not yet in arrayhub.

The table is read from the modules themselves (numpy as installed, arrayhub as imported, CuPy's
names from scripts/data/cupy_top_level.txt), so it cannot drift: client_python/tests/
test_coverage_table.py fails when docs/coverage.md is not what this script writes.

    python scripts/coverage_table.py            # rewrite docs/coverage.md
    python scripts/coverage_table.py --check    # exit 1 if it is out of date, 77 if it was
                                                # made with another NumPy (not comparable)
"""

from __future__ import annotations

import argparse
import inspect
import pathlib
import sys
import types

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs/coverage.md"
CUPY_NAMES = ROOT / "scripts/data/cupy_top_level.txt"

# Implemented, but not as NumPy does it: the reason, shown in the table. Keep in step with
# docs/semantics.md, which says more.
DIFFERS = {
    "sort": "always stable (`kind` is ignored)",
    "argsort": "always stable (`kind` is ignored)",
    "linalg.eig": "always complex, as CuPy's (NumPy's turns real when every eigenvalue is)",
    "linalg.eigvals": "always complex, as CuPy's (NumPy's turns real when every eigenvalue is)",
    "einsum": "errors are einsum_path's (NumPy's `optimize=True` messages)",
    "roots": "always complex, as CuPy's (NumPy's turns real when every root is)",
    "random.*": "the same seed gives the same values on the same backend, not NumPy's streams",
    "asfortranarray": "NumPy's strides and flags, as a transposed view of a new C-ordered array "
                      "(`flags.owndata` false)",
    "require": "`'F'` as asfortranarray's (`flags.owndata` false)",
    "byte_bounds": "offsets in the base array's memory, not addresses",
}


# CuPy's lowercase top-level names that are values, not functions (a NumPy 1.x constant and a
# flag CuPy reads): present when arrayhub has the name at all.
CUPY_VALUES = {"infty", "disable_experimental_feature_warning"}
# Names in cupy/__init__.py that are no API: `from __future__ import annotations` binds one.
CUPY_NOT_API = {"annotations"}


def _is_function(value: object) -> bool:
    """A function users call: Python or builtin functions, ufuncs, NumPy's dispatchers and
    numpy.random's functions (methods of its hidden RandomState); not types, modules,
    constants or exceptions."""
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                          np.ufunc)):
        return True
    return type(value).__name__ == "_ArrayFunctionDispatcher"


def _numpy_functions(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None) or dir(module)
    return sorted(n for n in names
                  if not n.startswith("_") and _is_function(getattr(module, n, None)))


def _cupy_functions() -> list[str]:
    """CuPy's top-level names that are functions: those NumPy has as functions, and CuPy's own
    lowercase names (asnumpy, get_array_module, fuse, ...)."""
    names = [line.strip() for line in CUPY_NAMES.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    functions = []
    for name in names:
        if hasattr(np, name):
            if _is_function(getattr(np, name)):
                functions.append(name)
        elif name.islower() and name not in {"cuda", "fft", "linalg", "polynomial", "random",
                                               "testing", "lib", "sparse", *CUPY_NOT_API}:
            functions.append(name)
    return sorted(functions)


def _status(module: types.ModuleType | None, prefix: str, name: str) -> tuple[str, str]:
    present = callable(getattr(module, name, None)) or (
        prefix == "" and name in CUPY_VALUES and hasattr(module, name))
    if not present:
        return "not yet", ""
    why = DIFFERS.get(prefix + name) or DIFFERS.get(prefix + "*")
    return ("differs", why) if why else ("implemented", "")


def _section(title: str, module: types.ModuleType | None, prefix: str,
             names: list[str]) -> tuple[list[str], int, int]:
    rows = [(name, *_status(module, prefix, name)) for name in names]
    done = sum(1 for _, status, _ in rows if status != "not yet")
    lines = [f"## {title}", "",
             f"{done} of {len(rows)} functions ({100 * done / max(len(rows), 1):.0f}%).", "",
             "| function | arrayhub | note |", "| --- | --- | --- |"]
    lines += [f"| `{prefix}{name}` | {status} | {why} |" for name, status, why in rows]
    return lines + [""], done, len(rows)


def render() -> str:
    sys.path.insert(0, str(ROOT / "client_python"))
    import arrayhub  # noqa: E402  (the checkout's client, whatever is installed)

    linalg = getattr(arrayhub, "linalg", None)
    random = getattr(arrayhub, "random", None)
    fft = getattr(arrayhub, "fft", None)
    sections = [
        ("CuPy's top level", arrayhub, "", _cupy_functions()),
        ("NumPy's main namespace", arrayhub, "", _numpy_functions(np)),
        ("numpy.linalg", linalg, "linalg.", _numpy_functions(np.linalg)),
        ("numpy.random", random, "random.", _numpy_functions(np.random)),
        ("numpy.fft", fft, "fft.", _numpy_functions(np.fft)),
    ]
    body, summary = [], []
    for title, module, prefix, names in sections:
        lines, done, total = _section(title, module, prefix, names)
        body += lines
        summary.append(f"| {title} | {done} | {total} | {100 * done / max(total, 1):.0f}% |")
    header = [
        "# Coverage: which NumPy and CuPy functions arrayhub has",
        "",
        "Generated by `scripts/coverage_table.py` from the modules themselves (NumPy "
        f"{np.__version__}; CuPy's names as listed in `scripts/data/cupy_top_level.txt`); do "
        "not edit by hand. *Implemented* means `arrayhub.<name>` exists and follows NumPy 2; "
        "*differs* says where it does not; docs/semantics.md has the details. CuPy's "
        "`annotations` (its `from __future__ import annotations`) is no API and is left out; "
        "`infty` and `disable_experimental_feature_warning` are values, not functions, and "
        "count when arrayhub has them.",
        "",
        "| namespace | have | of | share |",
        "| --- | ---: | ---: | ---: |",
        *summary,
        "",
    ]
    return "\n".join(header + body)


def numpy_version_of(text: str) -> str:
    """The NumPy version a table was generated with (its header says)."""
    return text.split("(NumPy ", 1)[1].split(";", 1)[0] if "(NumPy " in text else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if docs/coverage.md differs")
    args = parser.parse_args()
    text = render()
    if args.check:
        # NumPy's namespace changes between releases: compare with the NumPy it was made with.
        if numpy_version_of(OUTPUT.read_text()) != np.__version__:
            print(f"{OUTPUT.relative_to(ROOT)} was generated with another NumPy; not checked")
            return 77
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run python "
                  "scripts/coverage_table.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
