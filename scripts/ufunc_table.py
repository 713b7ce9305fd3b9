"""Reads server/common/ufuncs.def, the table of elementwise ops, for the scripts that generate
from it (scripts/gen_ufuncs.py, tests/reference/gen_*.py). Standard library only."""

import dataclasses
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLE = ROOT / "server/common/ufuncs.def"

_ROW = re.compile(r"AH_UFUNC\((?P<args>[^)]*)\)\s*(?://\s*(?P<note>.*))?$")
_CONTINUATION = re.compile(r"\s+//\s*(?P<note>.*)$")


@dataclasses.dataclass(frozen=True)
class Op:
    enumerator: str      # ElementwiseOp::k<enumerator>
    name: str            # The server's name.
    numpy: str           # The NumPy ufunc it follows, or "" for none.
    arity: int
    kinds: str           # NumPy dtype.kind letters of the loops the backends implement.
    host_functor: str
    aliases: tuple       # NumPy's other names.
    note: str            # The row's comment, continuation lines joined.


def _unquote(text):
    if not (text.startswith('"') and text.endswith('"')):
        raise ValueError(f"{TABLE.name}: expected a string literal, got {text!r}")
    return text[1:-1]


def read_ops(path=TABLE):
    """The rows of the table, in its order."""
    ops = []
    for line in path.read_text().splitlines():
        row = _ROW.match(line)
        if row:
            args = [a.strip() for a in row["args"].split(",")]
            enumerator, name, numpy, arity, kinds, host_functor, *aliases = args
            ops.append(Op(enumerator, _unquote(name), _unquote(numpy), int(arity),
                          _unquote(kinds), host_functor, tuple(_unquote(a) for a in aliases),
                          (row["note"] or "").strip()))
        elif ops and (continuation := _CONTINUATION.match(line)):
            ops[-1] = dataclasses.replace(ops[-1], note=f"{ops[-1].note} {continuation['note']}")
    if not ops:
        raise ValueError(f"{path}: no AH_UFUNC rows")
    return ops


def numpy_ufuncs(path=TABLE):
    """The rows that follow a NumPy ufunc."""
    return [op for op in read_ops(path) if op.numpy]
