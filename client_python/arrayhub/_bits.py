"""packbits and unpackbits, composed from server ops (bitwise_count is a server ufunc).

packbits weights each group of eight truth values by its bit (128 ... 1, or 1 ... 128 for
``bitorder='little'``) and sums them in uint8; unpackbits shifts each byte by 7 ... 0 and masks
the low bit.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from arrayhub import _creation, _ops
from arrayhub._errors import ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub._manipulation import concatenate
from arrayhub._numpy_checks import numpy_checks
from arrayhub._shape_functions import moveaxis

__all__ = ["packbits", "unpackbits"]


def _along_last(a: Any, axis: Optional[int], what: str) -> tuple[Any, int]:
    """``a`` (flattened when ``axis`` is None) with ``axis`` moved last, and that axis."""
    a = _ops.require_array(a, what)
    if axis is None:
        return a.ravel(), 0
    with numpy_checks():
        axis = normalize_axis_index(operator.index(axis), a.ndim)
    return moveaxis(a, axis, -1), axis


def _bit_positions(bitorder: str) -> Any:
    """The shift of each bit of a byte, most significant first ('big') or last."""
    start, stop, step = (7, -1, -1) if bitorder[:1] == "b" else (0, 8, 1)
    return _creation.arange(start, stop, step, dtype=np.uint8)


def packbits(a: Any, axis: Optional[int] = None, bitorder: str = "big") -> Any:
    """The elements of an integer or boolean array, read as true or false, packed eight to a
    uint8 along ``axis`` (the flattened array by default), the last byte padded with zeros."""
    if bitorder not in ("little", "big"):  # Checked first, as NumPy does.
        raise client_error(ArrayHubValueError, "'order' must be either 'little' or 'big'")
    if _ops.require_array(a, "packbits").dtype.kind not in "biu":
        raise client_error(ArrayHubTypeError,
                           "Expected an input array of integer or boolean data type")
    moved, axis = _along_last(a, axis, "packbits")
    bits = _ops.elementwise("not_equal", (moved, 0))
    lead, n = bits.shape[:-1], bits.shape[-1]
    if n % 8:
        bits = concatenate([bits, _creation.zeros(lead + (-n % 8,), bool)], axis=-1)
    weights = _ops.elementwise("left_shift", (np.uint8(1), _bit_positions(bitorder)))
    packed = (bits.reshape(lead + (-(-n // 8), 8)) * weights).sum(-1, dtype=np.uint8)
    return moveaxis(packed, -1, axis)


def unpackbits(a: Any, axis: Optional[int] = None, count: Optional[int] = None,
               bitorder: str = "big") -> Any:
    """Each uint8 element unpacked into its eight bits (0 or 1, uint8) along ``axis`` (the
    flattened array by default); ``count`` keeps that many bits (negative: drops them from the
    end; beyond the bits: pads with zeros)."""
    if not isinstance(bitorder, str) or bitorder[:1] not in ("l", "b"):
        raise client_error(ArrayHubValueError, "'order' must begin with 'l' or 'b'")
    if _ops.require_array(a, "unpackbits").dtype != np.uint8:
        raise client_error(ArrayHubTypeError,
                           "Expected an input array of unsigned byte data type")
    count = None if count is None else operator.index(count)
    moved, axis = _along_last(a, axis, "unpackbits")
    lead, n = moved.shape[:-1], moved.shape[-1]
    bits = (moved.reshape(lead + (n, 1)) >> _bit_positions(bitorder)) & 1
    bits = bits.reshape(lead + (8 * n,))
    if count is not None:
        if count < -8 * n:
            raise client_error(ArrayHubValueError, "-count larger than number of elements")
        if count > 8 * n:
            bits = concatenate([bits, _creation.zeros(lead + (count - 8 * n,), np.uint8)], -1)
        else:
            bits = bits[..., :count if count >= 0 else 8 * n + count]
    return moveaxis(bits, -1, axis)

