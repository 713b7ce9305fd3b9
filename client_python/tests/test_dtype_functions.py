"""NumPy's dtype functions and scalar-type names in arrayhub: promotion for arrayhub arrays by
their dtypes (nothing downloaded), finfo/iinfo, isdtype/issubdtype, and the aliases NumPy 2
keeps, each one NumPy's own object for a dtype the server stores."""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah


def test_dtype_functions_follow_numpy() -> None:
    x8, xf = ah.zeros(2, np.int8), ah.zeros((), np.float32)
    assert ah.result_type(x8, 1) == np.int8 and ah.result_type(x8, 1.0) == np.float64
    assert ah.result_type(x8, xf) == np.float32 and ah.result_type(x8, np.uint8) == np.int16
    assert ah.result_type(xf, 1j) == np.complex64 and ah.result_type("f2", x8) == np.float16
    assert ah.can_cast(x8, np.int16) and not ah.can_cast(xf, np.int64)
    assert ah.can_cast(xf, np.float16, "same_kind")
    with pytest.raises(TypeError, match="does not support Python ints"):
        ah.can_cast(1, np.int8)
    assert ah.promote_types(np.uint64, np.int64) == np.float64
    assert ah.finfo(xf).eps == np.finfo(np.float32).eps and ah.finfo(np.complex64).bits == 32
    assert ah.iinfo(x8).min == -128 and ah.iinfo(np.uint16).max == 65535
    assert ah.isdtype(x8.dtype, "integral") and not ah.isdtype(xf.dtype, ("integral", "bool"))
    assert ah.isdtype(xf.dtype, "real floating") and ah.isdtype(np.dtype("c8"), "complex floating")
    assert ah.issubdtype(x8.dtype, ah.signedinteger) and ah.issubdtype(xf.dtype, ah.inexact)
    assert not ah.issubdtype(x8.dtype, ah.unsignedinteger)
    for name in ("bool", "int_", "intp", "uint", "uintp", "intc", "uintc", "byte", "ubyte",
                 "short", "ushort", "long", "ulong", "longlong", "ulonglong", "half", "single",
                 "double", "csingle", "cdouble", "generic", "number", "integer", "signedinteger",
                 "unsignedinteger", "inexact", "floating", "complexfloating"):
        assert getattr(ah, name) is getattr(np, name), name
        if not issubclass(getattr(np, name), np.generic) or getattr(np, name).__subclasses__():
            continue
        assert np.dtype(getattr(ah, name)) in ah.SUPPORTED_DTYPES, name
    assert ah.zeros(2, ah.int_).dtype == np.int64 and ah.arange(3, dtype=ah.single).dtype == "f4"
