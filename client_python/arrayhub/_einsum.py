"""einsum, einsum_path and linalg.multi_dot: contractions lowered to views (transpose,
diagonal, broadcast_to, reshape), sums and batched matmuls on the server.

The subscripts are parsed, checked and ordered by NumPy's own einsum_path, run on host
stand-ins of the operands' shapes (zero-stride views of one element: no data, no download).
Its contraction list names, step by step, which operands to contract and their explicit
subscripts (ellipses already replaced by letters); each step runs here as: take the diagonal
of a letter repeated in one operand, sum the letters no later step or output needs, then
contract operands two at a time as one batched matmul (batch letters, free letters of each,
contracted letters; a broadcast multiply when no letter is contracted), broadcasting letters
of size 1. ``optimize=False`` (NumPy's default,
one C loop over all operands) is contracted in einsum_path's greedy order here; errors are
NumPy's einsum_path messages, as ``numpy.einsum(..., optimize=True)`` reports them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arrayhub import _ops
from arrayhub._errors import (ArrayHubLinAlgError, ArrayHubTypeError, ArrayHubValueError,
                              client_error)
from arrayhub._ndarray import ndarray

__all__ = ["einsum", "einsum_path"]  # and linalg.multi_dot


def _stand_in(value: Any) -> Any:
    """A host array of ``value``'s shape and dtype holding one element (strides 0), for
    NumPy's path code, which reads shapes only."""
    if isinstance(value, ndarray):
        return np.broadcast_to(np.zeros((), value.dtype), value.shape)
    return value  # Subscripts, sublists and host scalars as they are.


def _split(operands: tuple[Any, ...]) -> tuple[list[int], list[Any]]:
    """The positions of the operands in einsum's arguments (both of its calling forms)."""
    if isinstance(operands[0], str):
        return list(range(1, len(operands))), list(operands[1:])
    # Interleaved: operand, sublist, operand, sublist, ..., [output sublist].
    positions = list(range(0, len(operands) - len(operands) % 2, 2))
    return positions, [operands[i] for i in positions]


def einsum_path(*operands: Any, optimize: Any = "greedy", einsum_call: bool = False) -> Any:
    """NumPy's contraction order and its report for these subscripts and shapes (computed
    from the shapes alone: arrayhub arrays are not downloaded)."""
    if einsum_call:
        raise client_error(ArrayHubValueError, "einsum_path: einsum_call is NumPy's internal "
                                               "flag and is not supported")
    return np.einsum_path(*(_stand_in(o) for o in operands), optimize=optimize)


def _as_array(value: Any, client: Any) -> ndarray:
    if isinstance(value, ndarray):
        return value
    if _ops.is_operand(value):
        return _ops.upload(np.asarray(value), client)
    return _ops.require_array(value, "einsum")


def einsum(*operands: Any, out: Any = None, optimize: Any = False, dtype: Any = None,
           order: str = "K", casting: str = "safe") -> ndarray:
    """Einstein summation over the operands, as numpy.einsum (both calling forms, implicit
    and explicit output, ellipses, repeated letters for diagonals, broadcasting); in
    ``dtype`` when given (checked against ``casting``), else the operands' result type. The
    result is C-contiguous whatever ``order`` asks."""
    if not operands:
        raise client_error(ArrayHubValueError, "No input operands")
    positions, arrays = _split(operands)
    client = _ops.client_for(*(a for a in arrays if isinstance(a, ndarray)))
    path_type = "greedy" if optimize is False or optimize is True else optimize
    try:
        host, steps = np.einsum_path(*(_stand_in(o) for o in operands), optimize=path_type,
                                     einsum_call=True)
    except ValueError as error:
        raise client_error(ArrayHubValueError, str(error)) from None
    values = [_as_array(a, client) for a in arrays]
    common = np.result_type(*(v.dtype for v in values)) if dtype is None else np.dtype(dtype)
    for number, v in enumerate(values):
        if not np.can_cast(v.dtype, common, casting):
            raise client_error(ArrayHubTypeError,
                               f"Iterator operand {number} dtype could not be cast "
                               f"from {v.dtype!r} to {common!r} according to the rule "
                               f"'{casting}'")
    values = [v.astype(common, copy=False) for v in values]
    for step in steps:
        indices, spec = step[0], step[1]
        taken = [values.pop(i) for i in indices]
        values.append(_contract(spec, taken))
    result = values[0]
    if result.dtype != common:
        result = result.astype(common)
    if out is not None:
        return _ops.elementwise("copy", (result,), out=out)
    return result


# -- One step: explicit subscripts, letters only ---------------------------------------------

def _diagonals(x: ndarray, labels: str) -> tuple[ndarray, str]:
    """``x`` with each letter repeated in ``labels`` reduced to its diagonal (moved last)."""
    while len(set(labels)) != len(labels):
        letter = next(c for c in labels if labels.count(c) > 1)
        first = labels.index(letter)
        second = labels.index(letter, first + 1)
        x = x.diagonal(0, first, second)
        labels = labels[:first] + labels[first + 1:second] + labels[second + 1:] + letter
    return x, labels


def _sum_out(x: ndarray, labels: str, needed: set[str]) -> tuple[ndarray, str]:
    """``x`` summed (in its own dtype, as einsum accumulates) over the letters not
    ``needed``."""
    axes = tuple(i for i, c in enumerate(labels) if c not in needed)
    if not axes:
        return x, labels
    return (_ops.reduce("sum", x, axes, dtype=x.dtype),
            "".join(c for c in labels if c in needed))


def _contract(spec: str, operands: list[ndarray]) -> ndarray:
    inputs, output = spec.split("->")
    terms = []
    for x, labels in zip(operands, inputs.split(",")):
        terms.append(_diagonals(x, labels))
    while len(terms) > 1:
        needed = set(output).union(*(labels for _, labels in terms[2:]))
        (a, la), (b, lb) = terms[0], terms[1]
        a, la = _sum_out(a, la, needed | set(lb))
        b, lb = _sum_out(b, lb, needed | set(la))
        terms = [_pair(a, la, b, lb, needed)] + terms[2:]
    x, labels = _sum_out(*terms[0], set(output))
    if labels != output:
        x = x.transpose([labels.index(c) for c in output])
    return x


def _pair(a: ndarray, la: str, b: ndarray, lb: str, needed: set[str]) -> tuple[ndarray, str]:
    """``a`` and ``b`` contracted over their shared letters not ``needed`` later, as one
    batched matmul (batch, a's free) x (batch, b's free), broadcasting size-1 letters."""
    from arrayhub._manipulation import broadcast_to

    batch = [c for c in la if c in lb and c in needed]
    summed = [c for c in la if c in lb and c not in needed]
    a_free = [c for c in la if c not in lb]
    b_free = [c for c in lb if c not in la]
    size = dict(zip(la, a.shape))
    for c, n in zip(lb, b.shape):  # einsum_path checked that shared sizes match or are 1.
        size[c] = n if size.get(c, 1) == 1 else size[c]

    def arranged(x: ndarray, labels: str, order: list[str], groups: list[list[str]]) -> ndarray:
        if list(labels) != order:
            x = x.transpose([labels.index(c) for c in order])
        shape = tuple(size[c] for c in order)
        if x.shape != shape:
            x = broadcast_to(x, shape)
        return x.reshape(tuple(int(np.prod([size[c] for c in g], dtype=np.int64))
                               for g in groups))

    labels = batch + a_free + b_free
    if not summed:  # Nothing to contract: one broadcast multiply, not many 1x1 products.
        def spread(x: ndarray, own: str) -> ndarray:
            order = [c for c in labels if c in own]
            sizes = dict(zip(own, x.shape))  # Its own: broadcast by the multiply.
            if list(own) != order:
                x = x.transpose([own.index(c) for c in order])
            return x.reshape(tuple(sizes.get(c, 1) for c in labels))

        return _ops.elementwise("multiply", (spread(a, la), spread(b, lb))), "".join(labels)
    left = arranged(a, la, batch + a_free + summed, [batch, a_free, summed])
    right = arranged(b, lb, batch + summed + b_free, [batch, summed, b_free])
    product = _ops.matmul(left, right)
    return product.reshape(tuple(size[c] for c in labels)), "".join(labels)


# -- linalg.multi_dot ---------------------------------------------------------------------------

def _chain_order(shapes: list[tuple[int, int]]) -> list[list[int]]:
    """NumPy's matrix-chain order (dynamic programming over the scalar multiplications):
    ``split[i][j]`` is where the product of matrices i..j splits."""
    n = len(shapes)
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None  # type: ignore[call-overload]
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def multi_dot(arrays: Any, *, out: Any = None) -> ndarray:
    """The product of two or more matrices in the cheapest order (NumPy's: the first and
    last may be 1-D, as a row and a column vector); one matmul per product on the server."""
    arrays = [_ops.require_array(a, "multi_dot") for a in arrays]
    n = len(arrays)
    if n < 2:
        raise client_error(ArrayHubValueError, "Expecting at least two arrays.")
    if n == 2:  # NumPy's: dot, whatever the dimensions.
        from arrayhub._products import dot
        return dot(arrays[0], arrays[1], out=out)
    first_1d, last_1d = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first_1d:
        arrays[0] = arrays[0].reshape(1, -1)
    if last_1d:
        arrays[-1] = arrays[-1].reshape(-1, 1)
    for a in arrays:
        if a.ndim != 2:
            raise client_error(ArrayHubLinAlgError, f"{a.ndim}-dimensional array given. "
                                                    "Array must be two-dimensional")
    split = _chain_order([a.shape for a in arrays])

    def product(i: int, j: int) -> ndarray:
        if i == j:
            return arrays[i]
        k = split[i][j]
        return _ops.matmul(product(i, k), product(k + 1, j))

    result = product(0, n - 1)
    if first_1d and last_1d:
        result = result[0, 0]
    elif first_1d or last_1d:
        result = result.ravel()
    return result if out is None else _ops.elementwise("copy", (result,), out=out)
