"""numpy.fft on the server (Fft RPC): cuFFT on the GPU backend, FFTW on the CPU.

The transforms take NumPy 2's arguments (``n``/``s``, ``axis``/``axes``, ``norm`` of
"backward", "ortho" or "forward") and give NumPy 2's dtypes: complex64 from float16, float32
and complex64 inputs (float32 from irfft and hfft; float16 stays float16 there), complex128 from
everything else (float64 from irfft and hfft). Multi-axis transforms run one axis after another
in NumPy's order, so repeated axes transform again as in NumPy. ``out=`` is filled from the
result (``out[...] = result``) rather than written in place.

fftfreq, rfftfreq, fftshift and ifftshift are built from arange and roll on the server: their
data never travels to the client.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

# _ops first: it imports the client's modules in the order they need (as linalg's import does).
from arrayhub import _ops  # isort: skip
from arrayhub import _creation, _infer, _manipulation
from arrayhub._errors import ArrayHubValueError, client_error
from arrayhub._ndarray import ndarray
from arrayhub.v1 import compute_pb2

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_REAL_OUTPUT = ("irfft", "hfft")


def _result_meta(op: str, a: Any, s: Optional[list[int]],
                 axes: Optional[list[int]]) -> Optional[_infer.Meta]:
    """The result a pipelined client can queue: numpy.fft's shape and dtype rules on the
    operand's shape, the axes in the order NumPy transforms them (which decides the length
    of a repeated axis); None wherever NumPy would refuse (the server then says why)."""
    shape = list(a.shape)
    ndim = len(shape)
    if axes is None:
        axes = list(range(-(len(s) if s is not None else ndim), 0))
    try:
        axes = [normalize_axis_index(ax, ndim) for ax in axes]
    except np.exceptions.AxisError:
        return None
    count = len(axes)
    if s is not None and len(s) != count or not axes:
        return None
    lengths = [shape[ax] if s is None or s[i] == -1 else s[i] for i, ax in enumerate(axes)]
    if s is None and op in _REAL_OUTPUT:
        lengths[-1] = (shape[axes[-1]] - 1) * 2
    if any(n < 1 for n in lengths):
        return None
    if op in _REAL_OUTPUT:
        order = list(range(count))
    elif op in ("rfft", "ihfft"):
        order = [count - 1] + list(range(count - 2, -1, -1))
    else:
        order = list(range(count - 1, -1, -1))
    for i in order:
        real_axis = i == count - 1 and op in ("rfft", "ihfft")
        shape[axes[i]] = lengths[i] // 2 + 1 if real_axis else lengths[i]
    dtype = np.dtype(a.dtype)
    if op in ("rfft", "ihfft") and dtype.kind == "c":
        return None
    single = dtype in (np.float16, np.float32, np.complex64)
    if op in _REAL_OUTPUT:
        result = np.float16 if dtype == np.float16 else (np.float32 if single else np.float64)
    else:
        result = np.complex64 if single else np.complex128
    return _infer.contiguous(shape, result)


def _transform(op: str, a: ndarray, s: Optional[Sequence[Any]], axes: Any,
               norm: Optional[str], out: Any) -> ndarray:
    """One Fft request; ``s`` and ``axes`` as numpy.fft's n-dimensional functions take
    them."""
    a = _ops.require_array(a, op)
    if axes is not None:
        axes = [operator.index(ax) for ax in
                (axes if isinstance(axes, Sequence) else (axes,))]
    if s is not None:
        s = list(s)
        if None in s:
            # NumPy 2 (deprecated): the 1-D default of each axis, which differs from the
            # whole axis (-1) only on the last axis of an inverse real transform.
            cooked = axes if axes is not None else list(range(-len(s), 0))
            last = len(s) - 1
            s = [(a.shape[cooked[last]] - 1) * 2 if n is None and i == last and
                 op in _REAL_OUTPUT else -1 if n is None else operator.index(n)
                 for i, n in enumerate(s)]
        else:
            s = [operator.index(n) for n in s]
    if norm is not None and not isinstance(norm, str):
        raise client_error(ArrayHubValueError,
                           f'Invalid norm value {norm}; should be "backward","ortho" or '
                           '"forward".')
    client = _ops.client_for(a)
    meta = _result_meta(op, _ops.meta_of(a), s, axes) if _ops.pipelined(client) else None

    def build(refs: Any) -> compute_pb2.FftRequest:
        request = compute_pb2.FftRequest(op=op, input=refs.array(a), norm=norm or "")
        if axes is not None:
            request.axes.axes.extend(axes)
        if s is not None:
            request.s.values.extend(s)
        return request

    result = _ops._submit(client, "Fft", build, meta=meta, arrays=(a,))
    if out is not None:
        out[...] = result
        return out
    return result


def _one_axis(op: str, a: ndarray, n: Optional[int], axis: int, norm: Optional[str],
              out: Any) -> ndarray:
    """The 1-D functions: ``n`` is one length (NumPy's -1 means nothing special here)."""
    if n is not None:
        n = operator.index(n)
        if n == -1:  # The server reads -1 in s as the whole axis (fftn's rule).
            raise client_error(ArrayHubValueError,
                               "Invalid number of FFT data points (-1) specified.")
    return _transform(op, a, None if n is None else [n], [operator.index(axis)], norm, out)


def fft(a: ndarray, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
        out: Any = None) -> ndarray:
    """One-dimensional discrete Fourier transform along ``axis``, the input cut or
    zero-padded to ``n`` points."""
    return _one_axis("fft", a, n, axis, norm, out)


def ifft(a: ndarray, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
         out: Any = None) -> ndarray:
    """One-dimensional inverse discrete Fourier transform along ``axis``."""
    return _one_axis("ifft", a, n, axis, norm, out)


def rfft(a: ndarray, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
         out: Any = None) -> ndarray:
    """Transform of a real input along ``axis``: the ``n // 2 + 1`` non-negative
    frequencies. A complex input raises TypeError, as in NumPy."""
    return _one_axis("rfft", a, n, axis, norm, out)


def irfft(a: ndarray, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
          out: Any = None) -> ndarray:
    """Inverse of rfft: ``n`` real points (default ``2 * (m - 1)``) from the ``n // 2 + 1``
    first input points along ``axis``."""
    return _one_axis("irfft", a, n, axis, norm, out)


def hfft(a: ndarray, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
         out: Any = None) -> ndarray:
    """Transform of a signal with Hermitian symmetry (given by its first half): a real
    result of ``n`` points (default ``2 * (m - 1)``)."""
    return _one_axis("hfft", a, n, axis, norm, out)


def ihfft(a: ndarray, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None,
          out: Any = None) -> ndarray:
    """Inverse of hfft: the ``n // 2 + 1`` first points of the Hermitian spectrum of a real
    input."""
    return _one_axis("ihfft", a, n, axis, norm, out)


def fftn(a: ndarray, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
         norm: Optional[str] = None, out: Any = None) -> ndarray:
    """N-dimensional transform over ``axes`` (default: the last ``len(s)``, or all), each
    cut or zero-padded to ``s``."""
    return _transform("fft", a, s, axes, norm, out)


def ifftn(a: ndarray, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
          norm: Optional[str] = None, out: Any = None) -> ndarray:
    """N-dimensional inverse transform over ``axes``."""
    return _transform("ifft", a, s, axes, norm, out)


def rfftn(a: ndarray, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
          norm: Optional[str] = None, out: Any = None) -> ndarray:
    """N-dimensional transform of a real input: rfft along the last of ``axes``, then fft
    along the others."""
    return _transform("rfft", a, s, axes, norm, out)


def irfftn(a: ndarray, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
           norm: Optional[str] = None, out: Any = None) -> ndarray:
    """Inverse of rfftn: ifft along all but the last of ``axes``, then irfft along it
    (``s[-1]`` real points, default ``2 * (m - 1)``)."""
    return _transform("irfft", a, s, axes, norm, out)


def fft2(a: ndarray, s: Optional[Sequence[int]] = None, axes: Sequence[int] = (-2, -1),
         norm: Optional[str] = None, out: Any = None) -> ndarray:
    """Two-dimensional transform: fftn over the last two axes."""
    return _transform("fft", a, s, axes, norm, out)


def ifft2(a: ndarray, s: Optional[Sequence[int]] = None, axes: Sequence[int] = (-2, -1),
          norm: Optional[str] = None, out: Any = None) -> ndarray:
    """Two-dimensional inverse transform: ifftn over the last two axes."""
    return _transform("ifft", a, s, axes, norm, out)


def rfft2(a: ndarray, s: Optional[Sequence[int]] = None, axes: Sequence[int] = (-2, -1),
          norm: Optional[str] = None, out: Any = None) -> ndarray:
    """Two-dimensional transform of a real input: rfftn over the last two axes."""
    return _transform("rfft", a, s, axes, norm, out)


def irfft2(a: ndarray, s: Optional[Sequence[int]] = None, axes: Sequence[int] = (-2, -1),
           norm: Optional[str] = None, out: Any = None) -> ndarray:
    """Inverse of rfft2: irfftn over the last two axes."""
    return _transform("irfft", a, s, axes, norm, out)


def fftfreq(n: int, d: float = 1.0, device: Any = None) -> ndarray:
    """Sample frequencies of an n-point fft: ``[0, 1, ..., -(n // 2), ..., -1] / (n * d)``
    (float64), made on the server."""
    n = operator.index(n)
    values = _manipulation.roll(_creation.arange(-(n // 2), (n - 1) // 2 + 1), -(n // 2))
    return values * (1.0 / (n * d))


def rfftfreq(n: int, d: float = 1.0, device: Any = None) -> ndarray:
    """Sample frequencies of an n-point rfft: ``[0, 1, ..., n // 2] / (n * d)`` (float64)."""
    n = operator.index(n)
    return _creation.arange(0, n // 2 + 1) * (1.0 / (n * d))


def _shifts(x: ndarray, axes: Any, sign: int) -> tuple[list[int], list[int]]:
    if axes is None:
        axes = list(range(x.ndim))
    elif not isinstance(axes, Sequence):
        axes = [axes]
    axes = [operator.index(ax) for ax in axes]
    return [sign * (x.shape[ax] // 2) for ax in axes], axes


def fftshift(x: ndarray, axes: Any = None) -> ndarray:
    """The zero frequency moved to the middle: a roll by half of each axis (all by
    default)."""
    shift, axes = _shifts(_ops.require_array(x, "fftshift"), axes, 1)
    return _manipulation.roll(x, shift, axes)


def ifftshift(x: ndarray, axes: Any = None) -> ndarray:
    """Inverse of fftshift (they differ for odd lengths)."""
    shift, axes = _shifts(_ops.require_array(x, "ifftshift"), axes, -1)
    return _manipulation.roll(x, shift, axes)
