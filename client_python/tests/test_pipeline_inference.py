"""The pipelined client's inference (_infer.py) against NumPy, on seeded random cases of
every op family: a queued result's shape, dtype and strides are NumPy's (views: NumPy's
strides exactly; new arrays: C-contiguous, as the server allocates them), and the server's
ArrayInfo agrees once the result has run. Where NumPy raises, arrayhub raises at once."""

from __future__ import annotations

import contextlib
import itertools
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import arrayhub as ah
from arrayhub import _infer, _ops
from conftest import ALL_DTYPES, random_values

pytestmark = [pytest.mark.requires_compute("Elementwise"),
              pytest.mark.skipif(ah.is_sync(), reason="tests the pipelined mode (ARRAYHUB_SYNC)")]

CASES = 60  # per family; seeded, so every run checks the same cases


def _c_strides(shape: tuple[int, ...], dtype: np.dtype) -> tuple[int, ...]:
    """NumPy's strides of a new C-contiguous array; for an empty one, the strides it would
    have with every 0 read as 1 (the server's; NumPy >= 2.4 gives zeros there)."""
    return np.empty(tuple(max(n, 1) for n in shape), dtype).strides


def _strides(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[Any, ...]:
    """Strides, with those of length-1 axes left out: they never move and the server
    picks its own (expand_dims gives 0 where NumPy repeats the next axis's)."""
    return tuple(s if n != 1 else None for n, s in zip(shape, strides))


def _layout(array: ah.ndarray) -> tuple[Any, ...]:
    return (array.shape, array.dtype, _strides(array.shape, array.strides),
            array.flags.c_contiguous, array.flags.f_contiguous, array.flags.writeable,
            array.flags.owndata)


def _check(make: Callable[[], Any], expected: Callable[[], Any], *, view: bool,
           queued: bool = True) -> None:
    """Runs ``make`` (arrayhub) and ``expected`` (NumPy on host arrays). Both raise the same
    kind of exception, or: the arrayhub result was queued, with NumPy's shape and dtype and
    NumPy's strides (a view) or C strides (a copy), and the server's layout is the same."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's "Mean of empty slice" and such
            want = np.asarray(expected())
    except Exception:  # NumPy refuses: arrayhub must too, at once (the class may differ
        # where two checks fail: NumPy resolves the loop first, the server broadcasts first).
        with pytest.raises(ah.ArrayHubError):
            make()
        return
    got = make()
    assert isinstance(got, ah.ndarray)
    if queued and not (view and want.size == 0):  # Empty views run at once (their strides).
        assert got._batch is not None and not got._batch.is_block, "was not queued"
    inferred = _layout(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (inferred, want.shape,
                                                                   want.dtype)
    if want.size == 0:
        pass  # An empty array's strides are arbitrary (NumPy >= 2.4 gives zeros)
    elif view:
        assert inferred[2] == _strides(want.shape, want.strides), (inferred, want.strides)
    else:
        assert got.strides == _c_strides(want.shape, want.dtype), inferred
    got.handle  # Waits for the batch: the server's ArrayInfo from now on.
    assert got._batch is None
    assert _layout(got) == inferred, (_layout(got), inferred)


def _shape(rng: np.random.Generator, ndim: int | None = None, low: int = 0) -> tuple[int, ...]:
    ndim = int(rng.integers(0, 4)) if ndim is None else ndim
    return tuple(int(n) for n in rng.integers(low, 5, size=ndim))


def _dtype(rng: np.random.Generator, kinds: str = "biufc") -> np.dtype:
    return rng.choice([d for d in ALL_DTYPES if d.kind in kinds])


def _pair(rng: np.random.Generator, shape: tuple[int, ...],
          dtype: np.dtype) -> tuple[np.ndarray, ah.ndarray]:
    """A host array and its server copy, sometimes as a transposed or strided view (the same
    view on both)."""
    host = random_values(rng, dtype, shape)
    remote = ah.asarray(host)
    form = rng.integers(0, 3)
    if form == 1 and host.ndim >= 2:
        return host.T, remote.T
    if form == 2 and host.ndim >= 1:
        return host[::-2], remote[::-2]
    return host, remote


_BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
           "maximum", "minimum", "equal", "less", "logical_and", "logical_xor", "arctan2",
           "hypot", "bitwise_and", "bitwise_or", "left_shift"]
_UNARY = ["negative", "absolute", "sign", "exp", "sqrt", "square", "floor", "rint",
          "logical_not", "invert", "isnan", "isfinite", "sin", "log1p"]


def test_elementwise_matches_numpy() -> None:
    rng = np.random.default_rng(181)
    for _ in range(CASES):
        base = _shape(rng)
        # Two shapes that broadcast: trailing parts of one shape, some extents set to 1.
        shapes = [tuple(n if rng.random() < 0.7 else 1
                        for n in base[int(rng.integers(0, len(base) + 1)):]) for _ in range(2)]
        (h1, a1), (h2, a2) = (_pair(rng, s, _dtype(rng)) for s in shapes)
        op = str(rng.choice(_BINARY))
        if op == "power" and (h1.dtype.kind in "biu" or h2.dtype.kind in "biu"):
            op = "multiply"  # integer ** negative: the server's documented difference
        kind = rng.integers(0, 4)
        if kind == 0:
            _check(lambda: getattr(ah, op)(a1, a2), lambda: getattr(np, op)(h1, h2), view=False)
        elif kind == 1:  # A weak Python scalar (NEP 50).
            # Ints that fit some integer dtypes and not others: NumPy's OverflowError.
            scalar = [True, 3, -2, 2.5, 1 - 1j, 300, -129, 70000][int(rng.integers(0, 8))]
            _check(lambda: getattr(ah, op)(a1, scalar), lambda: getattr(np, op)(h1, scalar),
                   view=False)
        elif kind == 2:  # A NumPy scalar (strong).
            scalar = [np.float32(1.5), np.int16(3), np.asarray(np.uint8(7))][
                int(rng.integers(0, 3))]
            _check(lambda: getattr(ah, op)(scalar, a2), lambda: getattr(np, op)(scalar, h2),
                   view=False)
        else:
            unary = str(rng.choice(_UNARY))
            _check(lambda: getattr(ah, unary)(a1), lambda: getattr(np, unary)(h1), view=False)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_cbrt_is_inferred_as_numpy(dtype: np.dtype) -> None:
    """cbrt (ufuncs.def's demonstration row) queues with NumPy's dtype: float loops only, so
    integers and bool go to a float, complex is refused at once."""
    host = random_values(np.random.default_rng(183), dtype, (3, 4))
    remote = ah.asarray(host)
    _check(lambda: ah.cbrt(remote), lambda: np.cbrt(host), view=False)
    _check(lambda: ah.cbrt(remote.T), lambda: np.cbrt(host.T), view=False)
    _check(lambda: ah.cbrt(remote, dtype=np.float64), lambda: np.cbrt(host, dtype=np.float64),
           view=False)


# ufuncs.def's rows after cbrt.
_REGISTRY_UNARY = ["exp2", "reciprocal", "trunc", "deg2rad", "rad2deg", "signbit", "conjugate",
                   "fabs", "bitwise_count"]
_REGISTRY_BINARY = ["fmax", "fmin", "copysign", "logaddexp", "logaddexp2", "heaviside", "fmod",
                    "float_power", "nextafter", "gcd", "lcm", "ldexp"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", _REGISTRY_UNARY + _REGISTRY_BINARY)
def test_registry_ufuncs_are_inferred_as_numpy(op: str, dtype: np.dtype) -> None:
    """Each queues with NumPy's result dtype (its loops: float-only ufuncs take integers to a
    float, integer-only ones refuse floats at once), also with a weak scalar and dtype=."""
    rng = np.random.default_rng(184)
    host = random_values(rng, dtype, (3, 4))
    remote = ah.asarray(host)
    args = (host,) if op in _REGISTRY_UNARY else (host, host.T[:1].T)
    remote_args = (remote,) if op in _REGISTRY_UNARY else (remote, remote.T[:1].T)
    _check(lambda: getattr(ah, op)(*remote_args), lambda: getattr(np, op)(*args), view=False)
    if op in _REGISTRY_BINARY:
        _check(lambda: getattr(ah, op)(remote, 3), lambda: getattr(np, op)(host, 3), view=False)
        _check(lambda: getattr(ah, op)(2.5, remote), lambda: getattr(np, op)(2.5, host),
               view=False)
    _check(lambda: getattr(ah, op)(*remote_args, dtype=np.float64),
           lambda: getattr(np, op)(*args, dtype=np.float64), view=False)


def test_elementwise_dtype_and_out_match_numpy() -> None:
    rng = np.random.default_rng(182)
    for _ in range(CASES):
        shape = _shape(rng, low=1)
        h1, h2 = (random_values(rng, _dtype(rng, "biuf"), shape) for _ in range(2))
        a1, a2 = ah.asarray(h1), ah.asarray(h2)
        op = str(rng.choice(["add", "multiply", "subtract", "maximum", "true_divide"]))
        if rng.random() < 0.5:
            dtype = _dtype(rng, "iufc")
            if not all(np.can_cast(h.dtype, dtype, "safe") for h in (h1, h2)):
                # The server's documented difference: inputs cast to dtype= only safely.
                with pytest.raises(TypeError):
                    getattr(ah, op)(a1, a2, dtype=dtype)
                continue
            _check(lambda: getattr(ah, op)(a1, a2, dtype=dtype),
                   lambda: getattr(np, op)(h1, h2, dtype=dtype), view=False)
            continue
        out_dtype = _dtype(rng, "biufc")
        host_out = np.zeros(shape, out_dtype)
        out = ah.asarray(host_out)
        def expected() -> np.ndarray:
            getattr(np, op)(h1, h2, out=host_out)
            return host_out
        _check(lambda: getattr(ah, op)(a1, a2, out=out), expected, view=False, queued=False)


def test_reductions_match_numpy() -> None:
    rng = np.random.default_rng(183)
    ops = ["sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "any", "all"]
    for _ in range(CASES):
        host, remote = _pair(rng, _shape(rng), _dtype(rng, "biuf"))
        op = str(rng.choice(ops))
        ndim = host.ndim
        choice = rng.integers(0, 4)
        axis: Any = None
        if choice == 1 and ndim:
            axis = int(rng.integers(-ndim, ndim))
        elif choice == 2 and ndim and op not in ("argmin", "argmax"):
            axis = tuple(int(a) for a in rng.choice(ndim, size=rng.integers(1, ndim + 1),
                                                    replace=False))
        elif choice == 3:
            axis = ndim + 1  # out of bounds: refused at once
        kwargs: dict[str, Any] = {"axis": axis, "keepdims": bool(rng.random() < 0.4)}
        if op in ("sum", "prod", "mean") and rng.random() < 0.3:
            # The server refuses NumPy's truncating integer mean (documented).
            kwargs["dtype"] = _dtype(rng, "uif" if op != "mean" else "f")
        _check(lambda: getattr(ah, op)(remote, **kwargs),
               lambda: getattr(np, op)(host, **kwargs), view=False)


def test_matmul_matches_numpy() -> None:
    rng = np.random.default_rng(184)
    for _ in range(CASES):
        m, k, n = (int(v) for v in rng.integers(1, 4, size=3))
        batch = _shape(rng, int(rng.integers(0, 3)), low=1)
        a_shape = [(k,), (m, k), batch + (m, k)][int(rng.integers(0, 3))]
        b_shape = [(k,), (k, n), batch[int(rng.integers(0, len(batch) + 1)):] + (k, n)][
            int(rng.integers(0, 3))]
        if rng.random() < 0.15:
            b_shape = b_shape[:-1] + (b_shape[-1] + 1,) if len(b_shape) == 1 else (k + 1, n)
        dtype = _dtype(rng, "iufc")
        (ha, a), (hb, b) = _pair(rng, a_shape, dtype), _pair(rng, b_shape, _dtype(rng, "iuf"))
        _check(lambda: a @ b, lambda: ha @ hb, view=False)


def test_tensor_products_match_numpy() -> None:
    rng = np.random.default_rng(188)
    for _ in range(CASES):
        op = str(rng.choice(["dot", "inner", "vdot", "outer", "tensordot"]))
        k = int(rng.integers(1, 4))
        a_shape = _shape(rng, int(rng.integers(1, 4)), low=1)[:-1] + (k,)
        b_shape = {"dot": _shape(rng, int(rng.integers(0, 2)), low=1) + (k,)
                   + _shape(rng, int(rng.integers(0, 2)), low=1),
                   "inner": _shape(rng, int(rng.integers(0, 3)), low=1) + (k,)}.get(
            op, a_shape if op == "vdot" else _shape(rng, int(rng.integers(1, 3)), low=1))
        if op == "dot" and len(b_shape) >= 2 and rng.random() < 0.5:
            b_shape = b_shape[-2:]
        if rng.random() < 0.1:
            b_shape = b_shape[:-1] + (b_shape[-1] + 1,)  # NumPy refuses: arrayhub too
        axes = int(rng.integers(0, 2))
        if op == "tensordot":
            b_shape = a_shape[len(a_shape) - axes:] + b_shape
        (ha, a), (hb, b) = (_pair(rng, a_shape, _dtype(rng, "iuf")),
                            _pair(rng, b_shape, _dtype(rng, "iuf")))
        if op == "tensordot":
            _check(lambda: ah.tensordot(a, b, axes), lambda: np.tensordot(ha, hb, axes),
                   view=False)
        else:
            _check(lambda: getattr(ah, op)(a, b), lambda: getattr(np, op)(ha, hb), view=False)


def test_norm_det_inv_match_numpy() -> None:
    rng = np.random.default_rng(189)
    for _ in range(CASES):
        n = int(rng.integers(1, 4))
        shape = _shape(rng, int(rng.integers(0, 2)), low=1) + (n, n)
        # float16, which NumPy takes, is refused by the server's linalg (not queued).
        host, remote = _pair(rng, shape, np.dtype(rng.choice(["float32", "float64"])))
        op = str(rng.choice(["norm", "det", "inv"]))
        if op == "norm":
            axis = [None, -1, (0, 1), 0][int(rng.integers(0, 4))]
            keepdims = bool(rng.integers(0, 2))
            _check(lambda: ah.linalg.norm(remote, axis=axis, keepdims=keepdims),
                   lambda: np.linalg.norm(host, axis=axis, keepdims=keepdims), view=False)
        else:
            host = random_values(rng, host.dtype, shape) + n * np.eye(n, dtype=host.dtype)
            remote = ah.asarray(host)  # square in its last two axes, far from singular
            _check(lambda: getattr(ah.linalg, op)(remote),
                   lambda: getattr(np.linalg, op)(host), view=False)


def _reshape_target(rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[int, ...]:
    size = int(np.prod(shape))
    factors = [d for d in range(1, size + 1) if size % d == 0] if size else [0]
    first = int(rng.choice(factors))
    target = [first, size // first if first else int(rng.integers(0, 3))]
    if rng.random() < 0.5 and size:
        target[int(rng.integers(0, 2))] = -1
    return tuple(target)


def test_views_match_numpy() -> None:
    rng = np.random.default_rng(185)
    for _ in range(CASES * 2):
        host, remote = _pair(rng, _shape(rng, int(rng.integers(1, 4))), _dtype(rng))
        ndim = host.ndim
        kind = int(rng.integers(0, 9))
        if kind == 0:
            target = _reshape_target(rng, host.shape)
            view = np.shares_memory(host, host.reshape(target)) if host.size else True
            _check(lambda: remote.reshape(target), lambda: host.reshape(target), view=view)
        elif kind == 1:
            axes = tuple(int(a) for a in rng.permutation(ndim))
            _check(lambda: remote.transpose(axes), lambda: host.transpose(axes), view=True)
        elif kind == 2:
            a1, a2 = (int(v) for v in rng.integers(-ndim, ndim, size=2))
            _check(lambda: remote.swapaxes(a1, a2), lambda: host.swapaxes(a1, a2), view=True)
        elif kind == 3:
            ones = tuple(i for i, n in enumerate(host.shape) if n == 1)
            axis = ones[:1] or None if rng.random() < 0.7 else 0
            _check(lambda: remote.squeeze(axis), lambda: host.squeeze(axis), view=True)
        elif kind == 4:
            axis = int(rng.integers(-ndim - 1, ndim + 2))
            _check(lambda: ah.expand_dims(remote, axis), lambda: np.expand_dims(host, axis),
                   view=True)
        elif kind == 5:
            shape = (2,) + tuple(1 if rng.random() < 0.2 else n for n in host.shape)
            shape = shape if rng.random() < 0.9 else shape + (3,)
            _check(lambda: ah.broadcast_to(remote, shape), lambda: np.broadcast_to(host, shape),
                   view=True)
        elif kind == 6 and ndim >= 2:
            offset = int(rng.integers(-2, 3))
            _check(lambda: remote.diagonal(offset), lambda: host.diagonal(offset), view=True)
        elif kind == 7:
            view = host.flags.c_contiguous
            _check(lambda: remote.ravel(), lambda: host.ravel(), view=view)
        else:
            _check(lambda: remote.T, lambda: host.T, view=True)


def _basic_key(rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[Any, ...]:
    key: list[Any] = []
    for n in shape:
        choice = rng.integers(0, 4)
        if choice == 0 and n:
            key.append(int(rng.integers(-n, n)))
        elif choice == 1:
            start, stop = (int(v) for v in rng.integers(-n - 1, n + 2, size=2))
            key.append(slice(start, stop, int(rng.choice([1, 2, -1, -3]))))
        elif choice == 2:
            key.append(slice(None))
        else:
            key.append(None)
            key.append(slice(None, None, 2))
    if rng.random() < 0.3 and key:
        key[int(rng.integers(0, len(key)))] = Ellipsis
    if rng.random() < 0.1:
        key.append(0)  # one index too many for some shapes
    return tuple(key)


def _check_inferred_index(remote: ah.ndarray, key: tuple[Any, ...], want: np.ndarray,
                          view: bool) -> None:
    """The client's inference of ``remote[key]`` alone (what a server without GetItem in a
    Batch never asks for)."""
    entries = tuple(_ops.meta_of(e) for e in key)
    meta = _infer.getitem(_ops.meta_of(remote), entries)
    if meta is None:
        assert view and want.size == 0  # Only empty views are left to the server.
        return
    assert (meta.shape, meta.dtype) == (want.shape, want.dtype)
    if want.size:
        expected = want.strides if view else _c_strides(want.shape, want.dtype)
        assert _strides(meta.shape, meta.strides) == _strides(want.shape, expected)


def test_indexing_matches_numpy(client: ah.Client) -> None:
    rng = np.random.default_rng(186)
    queued = client._pipeline.batch_fields  # Older servers take no GetItem in a Batch.
    for _ in range(CASES * 2):
        host, remote = _pair(rng, _shape(rng, int(rng.integers(1, 4)), low=1), _dtype(rng))
        if rng.random() < 0.7:
            key = _basic_key(rng, host.shape)
            _check(lambda: remote[key], lambda: host[key], view=True, queued=queued)
            with contextlib.suppress(IndexError, ValueError):
                _check_inferred_index(remote, key, host[key], view=True)
            continue
        index_shape = _shape(rng, int(rng.integers(0, 3)))
        index = rng.integers(0, min(host.shape), size=index_shape)
        remote_index = ah.asarray(index)
        key = [slice(None)] * host.ndim
        positions = rng.choice(host.ndim, size=rng.integers(1, host.ndim + 1), replace=False)
        for p in positions:
            key[p] = index if rng.random() < 0.8 else 0
        if all(not isinstance(k, np.ndarray) for k in key):
            key[positions[0]] = index
        if rng.random() < 0.3:  # a new axis, which can part the index arrays
            key.insert(int(rng.integers(0, len(key) + 1)), None)
        if rng.random() < 0.2 and isinstance(key[-1], slice):
            key[-1] = Ellipsis
        remote_key = tuple(remote_index if isinstance(k, np.ndarray) else k for k in key)
        _check(lambda: remote[remote_key], lambda: host[tuple(key)], view=False, queued=queued)
        _check_inferred_index(remote, remote_key, host[tuple(key)], view=False)


def test_array_ops_match_numpy(client: ah.Client) -> None:
    rng = np.random.default_rng(187)
    for _ in range(CASES * 2):
        host, remote = _pair(rng, _shape(rng, int(rng.integers(1, 4))), _dtype(rng, "biuf"))
        ndim = host.ndim
        axis = int(rng.integers(-ndim, ndim)) if rng.random() < 0.8 else None
        kind = int(rng.integers(0, 13))
        if kind == 0:
            dtype = _dtype(rng)
            # A same_kind cast is a Create and a copy into it (out= a queued result: needs the
            # server's out_batch_result, else the Create runs first).
            _check(lambda: remote.astype(dtype), lambda: host.astype(dtype), view=False,
                   queued=client._pipeline.batch_fields or dtype == host.dtype
                   or not np.can_cast(host.dtype, dtype, "same_kind"))
        elif kind == 1:
            _check(lambda: remote.copy(), lambda: host.copy(), view=False)
        elif kind == 2:
            other_host, other = _pair(rng, host.shape, _dtype(rng, "biuf"))
            cat_axis = axis if axis is not None or rng.random() < 0.5 else 0
            _check(lambda: ah.concatenate([remote, other], axis=cat_axis),
                   lambda: np.concatenate([host, other_host], axis=cat_axis), view=False)
        elif kind == 3:
            other_host, other = _pair(rng, host.shape, host.dtype)
            stack_axis = int(rng.integers(-ndim - 1, ndim + 1))
            _check(lambda: ah.stack([remote, other], axis=stack_axis),
                   lambda: np.stack([host, other_host], axis=stack_axis), view=False)
        elif kind == 4:
            _check(lambda: ah.sort(remote, axis=axis),
                   lambda: np.sort(host, axis=axis), view=False)
        elif kind == 5:
            _check(lambda: ah.argsort(remote, axis=axis),
                   lambda: np.argsort(host, axis=axis), view=False)
        elif kind == 6:
            op = "cumsum" if rng.random() < 0.5 else "cumprod"
            _check(lambda: getattr(ah, op)(remote, axis=axis),
                   lambda: getattr(np, op)(host, axis=axis), view=False)
        elif kind == 7:
            _check(lambda: ah.flip(remote, axis), lambda: np.flip(host, axis), view=True)
        elif kind == 8:
            shift = int(rng.integers(-5, 6))
            _check(lambda: ah.roll(remote, shift, axis), lambda: np.roll(host, shift, axis),
                   view=False)
        elif kind == 9:
            reps = tuple(int(r) for r in rng.integers(1, 3, size=rng.integers(1, 4)))
            _check(lambda: ah.tile(remote, reps), lambda: np.tile(host, reps), view=False)
        elif kind == 10:
            count = int(rng.integers(0, 3))
            _check(lambda: ah.repeat(remote, count, axis), lambda: np.repeat(host, count, axis),
                   view=False)
        elif kind == 11:
            flat_host = np.sort(host.ravel())
            flat = ah.asarray(flat_host)
            value_host, value = _pair(rng, _shape(rng), host.dtype)
            _check(lambda: ah.searchsorted(flat, value), lambda: np.searchsorted(flat_host,
                                                                               value_host),
                   view=False)
        elif host.shape[axis or 0] if axis is not None else host.size:
            bound = host.shape[axis] if axis is not None else host.size
            indices = rng.integers(0, bound, size=_shape(rng, int(rng.integers(0, 3))))
            remote_indices = ah.asarray(indices)
            _check(lambda: ah.take(remote, remote_indices, axis=axis),
                   lambda: np.take(host, indices, axis=axis), view=False)


def test_creation_matches_numpy() -> None:
    rng = np.random.default_rng(188)
    for _ in range(CASES):
        shape = _shape(rng)
        dtype = _dtype(rng)
        kind = int(rng.integers(0, 8))
        if kind == 0:
            _check(lambda: ah.zeros(shape, dtype), lambda: np.zeros(shape, dtype), view=False)
        elif kind == 1:
            _check(lambda: ah.ones(shape), lambda: np.ones(shape), view=False)
        elif kind == 2:
            value = [True, 7, -1.5, 2j][int(rng.integers(0, 4))]
            _check(lambda: ah.full(shape, value), lambda: np.full(shape, value), view=False)
        elif kind == 3:
            start, stop, step = (int(v) for v in rng.integers(-6, 7, size=3))
            step = step or 1
            _check(lambda: ah.arange(start, stop, step), lambda: np.arange(start, stop, step),
                   view=False)
        elif kind == 4:
            num = int(rng.integers(0, 6))
            _check(lambda: ah.linspace(0, 1, num), lambda: np.linspace(0, 1, num), view=False)
        elif kind == 5:
            n, m, k = (int(v) for v in rng.integers(0, 4, size=3))
            _check(lambda: ah.eye(n, m, k), lambda: np.eye(n, m, k), view=False)
        elif kind == 6:
            _check(lambda: ah.random.random(shape), lambda: np.random.random(shape), view=False)
        else:  # A float range: its length is a float64 ceil, rounding included.
            start, stop = (float(v) for v in rng.choice([0, 0.1, -1.5, 1 / 3, 2.7, 1e-9], 2))
            step = float(rng.choice([0.1, 0.25, -0.3, 1 / 3, 0.7, -1e-3, 0.0]))
            dtype = [None, np.float32, np.float64][int(rng.integers(0, 3))]
            _check(lambda: ah.arange(start, stop, step, dtype=dtype),
                   lambda: np.arange(start, stop, step, dtype=dtype), view=False)


def test_float_ranges_match_numpy_in_length_at_rounding_edges() -> None:
    """Lengths where (stop - start) / step rounds onto or just past an integer."""
    for start, stop, step in [(0, 1, 0.1), (0, 0.3, 0.1), (1, 1.3, 0.1), (0, 1, 1 / 3),
                              (0.1, 0.7, 0.2), (-1, 1, 0.1), (1, 0, -0.1), (0, 10, 0.7),
                              (0, 1e-9, 1e-10), (5, 5.0, 0.5), (0, -1, 0.5)]:
        _check(lambda: ah.arange(start, stop, step), lambda: np.arange(start, stop, step),
               view=False)
        np.testing.assert_array_equal(ah.arange(start, stop, step).get(),
                                      np.arange(start, stop, step))


def test_chains_of_queued_results_match_numpy() -> None:
    """Inference on queued inputs: each step reads the previous queued result."""
    rng = np.random.default_rng(189)
    for _ in range(10):
        host, remote = _pair(rng, _shape(rng, 3, low=1), np.dtype(np.float32))
        steps = [lambda x, m: x * 2 + 1, lambda x, m: x.T, lambda x, m: x.sum(axis=0),
                 lambda x, m: x.reshape(-1), lambda x, m: x[..., ::2],
                 lambda x, m: m.exp(x) - x, lambda x, m: x.astype(np.float64),
                 lambda x, m: m.expand_dims(x, 0)]
        for step in itertools.islice(rng.permutation(len(steps)), 5):
            with np.errstate(all="ignore"):
                host = steps[step](host, np)
            remote = steps[step](remote, ah)
            assert (remote.shape, remote.dtype) == (host.shape, host.dtype)
        np.testing.assert_allclose(remote.get(), host, rtol=1e-4)
