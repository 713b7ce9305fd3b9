"""The Array API's unique_values, unique_counts, unique_inverse and unique_all (NumPy 2 has
them too), from one stable server sort of the flattened input: a run of equal values starts
where an element differs from the one before it. NaNs differ from everything, themselves
included, so each NaN is a value of its own, as both standards ask (arrayhub.unique, like
NumPy's unique, collapses them instead). Everything runs on the server and pipelines; the
number of distinct values is known once the server has counted the run starts."""

from __future__ import annotations

from typing import Any, NamedTuple

from arrayhub import _ops
from arrayhub._ndarray import ndarray

__all__ = ["unique_values", "unique_counts", "unique_inverse", "unique_all"]


class UniqueAllResult(NamedTuple):
    values: ndarray
    indices: ndarray
    inverse_indices: ndarray
    counts: ndarray


class UniqueCountsResult(NamedTuple):
    values: ndarray
    counts: ndarray


class UniqueInverseResult(NamedTuple):
    values: ndarray
    inverse_indices: ndarray


class _Runs(NamedTuple):
    order: ndarray   # The stable argsort of the flattened input.
    starts: ndarray  # Positions in sorted order where a run of equal values begins.
    values: ndarray  # The first value of each run.
    is_start: ndarray  # Bool, per sorted position.


def _runs(x: Any, what: str, equal_nan: bool = False) -> _Runs:
    """The runs of the flattened ``x``; with ``equal_nan``, all NaNs make one run (as
    numpy.unique's default)."""
    flat = _ops.require_array(x, what).ravel()
    order = flat.argsort(0)
    ordered = flat[order]
    later, earlier = ordered[1:], ordered[:-1]
    differs = _ops.elementwise("not_equal", (later, earlier))
    if equal_nan and flat.dtype.kind in "fc":
        both_nan = _ops.elementwise("logical_and", (_ops.elementwise("isnan", (later,)),
                                                    _ops.elementwise("isnan", (earlier,))))
        differs = _ops.elementwise("logical_and", (
            differs, _ops.elementwise("logical_not", (both_nan,))))
    return runs_of(order, ordered, differs)


def runs_of(order: ndarray, ordered: ndarray, differs: ndarray) -> _Runs:
    """The runs of ``ordered`` (the input taken in ``order`` along axis 0), where
    ``differs[i]`` tells whether item i + 1 differs from item i."""
    from arrayhub._creation import ones
    from arrayhub._manipulation import concatenate

    # The first item starts a run (when there is one).
    is_start = concatenate([ones(min(ordered.shape[0], 1), dtype=bool), differs])
    (starts,) = is_start.nonzero()
    return _Runs(order, starts, ordered[starts], is_start)


def counts_of(runs: _Runs, size: int) -> ndarray:
    """How many items each run has (``size`` items in all)."""
    from arrayhub._creation import full
    from arrayhub._manipulation import concatenate

    ends = concatenate([runs.starts[1:], full(min(size, 1), size, runs.starts.dtype)])
    return ends - runs.starts


def inverse_of(runs: _Runs, shape: tuple[int, ...]) -> ndarray:
    """The run number of each item, in its original place (reshaped to ``shape``)."""
    from arrayhub._creation import empty

    # The run number of each sorted position, written back to where it came from.
    ranks = runs.is_start.cumsum(dtype="int64") - 1
    inverse = empty(runs.order.shape, "int64")
    inverse[runs.order] = ranks
    return inverse.reshape(shape)


def unique_values(x: ndarray, /) -> ndarray:
    """The distinct values of ``x``, sorted (each NaN counts as distinct)."""
    return _runs(x, "unique_values").values


def unique_counts(x: ndarray, /) -> UniqueCountsResult:
    """The distinct values and how often each occurs."""
    x = _ops.require_array(x, "unique_counts")
    runs = _runs(x, "unique_counts")
    return UniqueCountsResult(runs.values, counts_of(runs, x.size))


def unique_inverse(x: ndarray, /) -> UniqueInverseResult:
    """The distinct values, and for each element of ``x`` (in ``x``'s shape) the index of its
    value among them."""
    x = _ops.require_array(x, "unique_inverse")
    runs = _runs(x, "unique_inverse")
    return UniqueInverseResult(runs.values, inverse_of(runs, x.shape))


def unique_all(x: ndarray, /) -> UniqueAllResult:
    """The distinct values, the index of each one's first occurrence in the flattened ``x``,
    the inverse indices (``x``'s shape) and the counts."""
    x = _ops.require_array(x, "unique_all")
    runs = _runs(x, "unique_all")
    return UniqueAllResult(runs.values, runs.order[runs.starts], inverse_of(runs, x.shape),
                           counts_of(runs, x.size))
