"""NumPy's trim_zeros (with NumPy 2.2's axis), composed from server ops. It reads back the
bounds of the nonzero elements (2 x ndim integers), which size its result, as NumPy's slice
does. (ediff1d, unwrap and vander live with the other numerics, in _numerics.py.)
"""

from __future__ import annotations

from typing import Any

from numpy.lib.array_utils import normalize_axis_tuple

from arrayhub import _ops
from arrayhub._errors import ArrayHubValueError, client_error
from arrayhub._index_helpers import argwhere
from arrayhub._manipulation import stack
from arrayhub._ndarray import ndarray
from arrayhub._numpy_checks import numpy_checks

__all__ = ["trim_zeros"]


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> ndarray:
    """``filt`` without its leading (``'f'``) and trailing (``'b'``) zeros along each axis
    (or the given axes): a view, as NumPy's slice."""
    filt = _ops.require_array(filt, "trim_zeros")
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise client_error(ArrayHubValueError, f"unexpected character(s) in `trim`: {trim!r}")
    with numpy_checks():
        axes = tuple(range(filt.ndim)) if axis is None else \
            normalize_axis_tuple(axis, filt.ndim, argname="axis")
    if not axes:
        return filt
    nonzero = argwhere(filt)
    if nonzero.shape[0] == 0:  # All zero: an empty slice along each trimmed axis.
        start = stop = [0] * filt.ndim
    else:
        bounds = stack([nonzero.min(axis=0), nonzero.max(axis=0)]).get()  # One read back.
        start = bounds[0].tolist() if "f" in trim else [None] * filt.ndim
        stop = (bounds[1] + 1).tolist() if "b" in trim else [None] * filt.ndim
    return filt[tuple(slice(start[a], stop[a]) if a in axes else slice(None)
                      for a in range(filt.ndim))]
