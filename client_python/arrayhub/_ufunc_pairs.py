"""NumPy's ufuncs with two outputs (frexp, modf, divmod), evaluated on the server.

The server's ops have one output each, so each of these ufuncs is two ops of the server's table
(``_frexp_mantissa`` and ``_frexp_exponent``, ...; see docs/ufuncs.md), with the loops of
NumPy's ufunc for that output. A call sends both (pipelined: no extra round trip) and returns
the pair, as NumPy does. Importing this module adds them to :data:`arrayhub._ufuncs.UFUNCS`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._ndarray import ndarray
from arrayhub._ufunc_names import TWO_OUTPUT_UFUNCS
from arrayhub._ufuncs import UFUNCS, ufunc

__all__ = ["two_output_ufunc"]


class two_output_ufunc(ufunc):
    """A NumPy ufunc with two outputs: ``f(x1[, x2], out=(None, None), dtype=None)`` returns a
    tuple of two arrays. ``out`` is a pair (either may be None); ``dtype=`` applies to both
    outputs, as NumPy's does."""

    def __init__(self, name: str, nin: int, ops: tuple[str, str]) -> None:
        super().__init__(name, nin)
        self.nout = 2
        self.nargs = nin + 2
        self._ops = ops

    def __call__(self, *args: Any, out: Any = None,  # type: ignore[override]
                 dtype: DTypeLike | None = None) -> tuple[ndarray, ndarray]:
        if len(args) == self.nargs and out is None:  # outputs given positionally
            args, out = args[:self.nin], args[self.nin:]
        if len(args) != self.nin:
            raise client_error(ArrayHubTypeError,
                               f"{self.__name__}() takes from {self.nin} to {self.nargs} "
                               f"positional arguments but {len(args)} were given")
        outs = (None, None) if out is None else out
        if not isinstance(outs, tuple) or len(outs) != 2:
            raise client_error(ArrayHubValueError,
                               "The 'out' tuple must have exactly one entry per ufunc output")
        if outs[1] is not None:
            self._check_second_output(args, outs[1], dtype)
        first, second = (_ops.elementwise(op, args, out=o, dtype=dtype)
                         for op, o in zip(self._ops, outs))
        return first, second

    def _check_second_output(self, args: tuple[Any, ...], out: Any, dtype: Any) -> None:
        """NumPy's same_kind rule for the second output, checked before the first op writes
        into its out= (the server checks each op alone). Operands NumPy cannot type are left
        to the server's messages."""
        numpy_ufunc = getattr(np, self.__name__)
        operands = tuple(a.dtype if isinstance(a, ndarray) else
                         np.asarray(a).dtype if isinstance(a, np.generic) else type(a)
                         for a in args)
        signature = {} if dtype is None else {
            "signature": (None,) * self.nin + (np.dtype(dtype),) * 2}
        try:
            result = numpy_ufunc.resolve_dtypes(operands + (None, None), **signature)[-1]
        except (TypeError, ValueError):
            return
        if isinstance(out, ndarray) and not np.can_cast(result, out.dtype, "same_kind"):
            raise client_error(ArrayHubTypeError,
                               f"Cannot cast ufunc '{self.__name__}' output {self.nin + 1} "
                               f"from {result!r} to {out.dtype!r} with casting rule "
                               "'same_kind'")


#: The two-output ufuncs by name.
TWO_OUTPUT: dict[str, two_output_ufunc] = {
    name: two_output_ufunc(name, nin, ops) for name, nin, ops in TWO_OUTPUT_UFUNCS}
UFUNCS.update(TWO_OUTPUT)
