"""User kernels: CuPy's ElementwiseKernel and ReductionKernel, run by the server (RunKernel).

The kernel bodies are in the safe subset of CUDA C that the server parses and type-checks
(docs/user-kernels.md); a refusal is a ValueError with the server's "operation:L:C: ..." text.
Calls are pipelined like every op: the outputs' shapes and dtypes are inferred here with
CuPy's rules (placeholder types bound from array arguments, then scalars, then out= arrays),
so a call returns at once; where they cannot be inferred the call is sent now.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from arrayhub import _client, _dtypes, _infer, _ndarray, _ops
from arrayhub._errors import ArrayHubBatchError, ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub.v1 import arrays_pb2, compute_pb2

__all__ = ["ElementwiseKernel", "ReductionKernel"]


class _Param:
    """One entry of in_params/out_params, as CuPy's ParameterInfo reads it: ``[raw] TYPE
    NAME`` where a one-character TYPE is a placeholder and any other is a dtype name."""

    __slots__ = ("name", "raw", "ctype", "dtype")

    def __init__(self, text: str) -> None:
        tokens = text.split()
        if len(tokens) < 2:
            raise client_error(ArrayHubValueError, f"Syntax error: {text}")
        self.raw = "raw" in tokens[:-2]
        self.ctype, self.name = tokens[-2], tokens[-1]
        self.dtype: Optional[np.dtype] = None
        if len(self.ctype) > 1:
            try:
                self.dtype = np.dtype(self.ctype)
            except TypeError:
                self.dtype = None  # A C spelling the server knows ("double"): it decides.


def _params(text: str) -> tuple[_Param, ...]:
    return tuple(_Param(p.strip()) for p in text.split(",") if p.strip())


def _check_name(name: str) -> None:
    if not name.isidentifier():
        raise client_error(ArrayHubValueError, f'Invalid kernel name: "{name}"')


def _scalar_dtype(value: Any) -> Optional[np.dtype]:
    """The dtype a scalar argument binds a placeholder to: a NumPy scalar's own, a Python
    scalar's default (bool, int64, float64, complex128)."""
    if isinstance(value, (np.generic, np.ndarray)):
        return np.asarray(value).dtype
    if _dtypes.is_python_scalar(value):
        return np.asarray(value).dtype
    return None


def _argument(refs: _ops._Refs, value: Any) -> compute_pb2.KernelArgument:
    if isinstance(value, _ndarray.ndarray):
        index = refs.index(value)
        if index is not None:
            return compute_pb2.KernelArgument(batch_result=index)
        return compute_pb2.KernelArgument(handle=refs.handle(value))
    if isinstance(value, (np.generic, np.ndarray)):
        value = np.asarray(value)
        return compute_pb2.KernelArgument(scalar=_dtypes.scalar_to_proto(value.item()),
                                          dtype=_dtypes.to_wire(value.dtype))
    return compute_pb2.KernelArgument(scalar=_dtypes.scalar_to_proto(value))


def _check_argument(value: Any) -> None:
    if isinstance(value, _ndarray.ndarray) or _dtypes.is_python_scalar(value):
        return
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return
    raise client_error(ArrayHubTypeError,
                       f"Unsupported type {type(value)}: kernel arguments are arrayhub arrays "
                       f"and scalars; upload NumPy arrays with arrayhub.asarray()")


class _UserKernel:
    """What ElementwiseKernel and ReductionKernel share: the source, and running it."""

    _kind = compute_pb2.KernelSource.KIND_ELEMENTWISE

    def __init__(self, in_params: str, out_params: str, name: str, preamble: str) -> None:
        _check_name(name)
        self.name = name
        self.in_params = _params(in_params)
        self.out_params = _params(out_params)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.preamble = preamble
        self._source_fields: dict[str, Any] = {
            "in_params": in_params, "out_params": out_params, "preamble": preamble,
            "name": name}

    def _types(self, args: Sequence[Any], outs: Sequence[Any]) -> Optional[list[np.dtype]]:
        """The outputs' dtypes by CuPy's rules, or None where only the server can say."""
        bound: dict[str, np.dtype] = {}
        for param, value in zip(self.in_params, args):
            if param.dtype is None and isinstance(value, _ndarray.ndarray):
                bound.setdefault(param.ctype, np.dtype(value.dtype))
        for param, value in zip(self.in_params, args):
            if param.dtype is None and not isinstance(value, _ndarray.ndarray):
                dtype = _scalar_dtype(value)
                if dtype is not None:
                    bound.setdefault(param.ctype, dtype)
        for param, out in zip(self.out_params, outs):
            if param.dtype is None and out is not None:
                bound.setdefault(param.ctype, np.dtype(out.dtype))
        types = []
        for param in self.out_params:
            dtype = param.dtype if len(param.ctype) > 1 else bound.get(param.ctype)
            if dtype is None:
                return None
            types.append(dtype)
        return types

    def _broadcast(self, args: Sequence[Any]) -> Optional[tuple[int, ...]]:
        """The broadcast shape of the non-raw array arguments (None: there are none)."""
        shapes = [a.shape for p, a in zip(self.in_params, args)
                  if not p.raw and isinstance(a, _ndarray.ndarray)]
        if not shapes:
            return None
        return np.broadcast_shapes(*shapes)

    def _run(self, args: Sequence[Any], outs: list[Any], fields: dict[str, Any],
             shape: Optional[tuple[int, ...]]) -> list[_ndarray.ndarray]:
        """One RunKernel: queued when ``shape`` (each new output's, None: unknown) and the
        output dtypes are known, else sent now. Answers the outputs in out_params order."""
        for value in args:
            _check_argument(value)
        for out in outs:
            if out is not None and not isinstance(out, _ndarray.ndarray):
                raise client_error(ArrayHubTypeError,
                                   f"Output arguments type must be arrayhub.ndarray, not "
                                   f"{type(out)}")
        client = _ops.client_for(*args, *outs)
        source = compute_pb2.KernelSource(kind=self._kind, **self._source_fields)

        def build(refs: _ops._Refs) -> compute_pb2.RunKernelRequest:
            request = compute_pb2.RunKernelRequest(
                source=source, arguments=[_argument(refs, a) for a in args], **fields)
            if any(out is not None for out in outs):
                for out in outs:
                    request.outputs.add(**refs.out(out))
            return request

        if _client.recording.get() is not None:  # An arrayhub.batch() block: no shapes yet.
            if self.nout > 1 and None in outs:
                raise client_error(ArrayHubBatchError,
                                   f"{self.name}: a kernel with several outputs writes them "
                                   f"into existing arrays in an arrayhub.batch() (pass them)")
            first = outs[0] if outs else None
            return [_ops._submit(client, "RunKernel", build, out=first, arrays=(*args, *outs)),
                    *outs[1:]]
        types = None
        if shape is not None and _ops.pipelined(client):
            types = self._types(args, outs)
        if types is not None and self.nout > 1 and None in outs:
            # Several outputs in a pipeline: each a queued new array the kernel writes into,
            # since a queued op gives one array.
            outs = [out if out is not None else _ops.create(client, arrays_pb2.CreateRequest(
                dtype=_dtypes.to_wire(dtype), shape=shape, empty=arrays_pb2.EmptySpec()))
                for out, dtype in zip(outs, types)]

        if types is not None and self.nout >= 1:
            first = outs[0]  # The op's one array: its new output, or the first out= array.
            meta = (_infer.contiguous(shape, types[0]) if first is None
                    else _ops.meta_of(first))
            if meta is not None:
                result = _ops._submit(client, "RunKernel", build, out=first, meta=meta,
                                      arrays=(*args, *outs))
                return [result, *outs[1:]]
        refs = _ops._Refs(client, None)
        response = client._rpc("RunKernel", build(refs))
        results = []
        for info, out in zip(response.outputs, outs if outs else [None] * self.nout):
            results.append(out if out is not None and out.handle == info.handle
                           else _ndarray.ndarray._wrap(client, info))
        return results


class ElementwiseKernel(_UserKernel):
    """CuPy's ElementwiseKernel: ``operation`` runs once per element index ``i`` of the
    broadcast shape of the non-raw array arguments (or of ``size``), with each non-raw
    parameter standing for its element i and ``raw`` ones indexed explicitly (``x[k]``,
    ``_ind.size()``). Outputs are new arrays of that shape, or the arrays passed after the
    inputs. ``loop_prep`` and ``after_loop`` (code outside the per-element loop) are not
    supported; ``reduce_dims`` and ``options`` are accepted and change nothing (the server
    lays out the iteration itself)."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "kernel",
                 reduce_dims: bool = True, preamble: str = "", no_return: bool = False,
                 return_tuple: bool = False, loop_prep: str = "", after_loop: str = "",
                 options: tuple = ()) -> None:
        if loop_prep or after_loop:
            raise client_error(
                ArrayHubValueError,
                "loop_prep and after_loop are not supported: arrayhub's kernels run only the "
                "per-element operation (docs/user-kernels.md)")
        super().__init__(in_params, out_params, name, preamble)
        if any(p.name == "i" for p in self.in_params + self.out_params):
            raise client_error(ArrayHubValueError, "Can not use 'i' as a parameter name")
        self.operation = operation
        self.reduce_dims = reduce_dims
        self.no_return = no_return
        self.return_tuple = return_tuple
        self.options = options
        self._source_fields["operation"] = operation

    def __call__(self, *args: Any, size: Optional[int] = None, block_size: Optional[int] = None,
                 stream: Any = None) -> Any:
        """Runs the kernel; ``block_size`` and ``stream`` are CuPy's and change nothing."""
        if block_size is not None and block_size <= 0:
            raise client_error(ArrayHubValueError, "block_size must be greater than zero")
        if len(args) not in (self.nin, self.nargs):
            raise client_error(ArrayHubTypeError, f"Wrong number of arguments for {self.name}")
        inputs, outs = list(args[:self.nin]), list(args[self.nin:]) or [None] * self.nout
        fields: dict[str, Any] = {}
        shape: Optional[tuple[int, ...]] = None
        if size is not None:
            size = operator.index(size)
            fields["size"] = size
            shape = (size,)
        elif _client.recording.get() is None:  # (a block's pending arrays have no shape)
            try:
                shape = self._broadcast(inputs)
            except ValueError:
                shape = None  # The server answers CuPy's message.
            if shape is None:
                shape = next((o.shape for p, o in zip(self.out_params, outs)
                              if o is not None and not p.raw), None)
        if shape is not None and any(
                p.raw and o is None for p, o in zip(self.out_params, outs)) and size is None:
            shape = None  # "Output array size is Undecided": the server says so.
        results = self._run(inputs, outs, fields, shape)
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return results[0]
        return tuple(results)


class ReductionKernel(_UserKernel):
    """CuPy's ReductionKernel: ``map_expr`` gives element i's value, ``reduce_expr`` combines
    two (``a``, ``b``; taken to be associative and commutative), ``post_map_expr`` assigns the
    outputs from the reduced ``a``; ``identity`` is ``a`` before anything is reduced (None: a
    zero-size reduction is refused). ``axis``/``keepdims`` as NumPy's reductions."""

    _kind = compute_pb2.KernelSource.KIND_REDUCTION

    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str,
                 post_map_expr: str, identity: Optional[str], name: str = "reduce_kernel",
                 reduce_type: Optional[str] = None, reduce_dims: bool = True,
                 preamble: str = "", options: tuple = ()) -> None:
        super().__init__(in_params, out_params, name, preamble)
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = identity
        self.reduce_type = reduce_type
        self.reduce_dims = reduce_dims
        self.options = options
        self._source_fields.update(
            map_expr=map_expr, reduce_expr=reduce_expr, post_map_expr=post_map_expr,
            identity="" if identity is None else str(identity), reduce_type=reduce_type or "")

    def __call__(self, *args: Any, out: Any = None, axis: Any = None, keepdims: bool = False,
                 stream: Any = None) -> Any:
        """Runs the reduction; ``stream`` is CuPy's and changes nothing."""
        if len(args) not in (self.nin, self.nargs):
            raise client_error(ArrayHubTypeError, f"Wrong number of arguments for {self.name}")
        inputs, outs = list(args[:self.nin]), list(args[self.nin:]) or [None] * self.nout
        if out is not None:
            if self.nout != 1:
                raise client_error(ArrayHubValueError,
                                   f"{self.name}: out= takes one array; this kernel has "
                                   f"{self.nout} outputs (pass them after the inputs)")
            if len(args) != self.nin:
                raise client_error(ArrayHubValueError,
                                   "cannot specify 'out' as both a positional and keyword "
                                   "argument")
            outs = [out]
        fields: dict[str, Any] = {"keepdims": bool(keepdims)}
        if axis is not None:
            fields["axis"] = _ops.axis_list(axis)
        shape = None
        try:
            if _client.recording.get() is not None:  # A block's pending arrays: no shape.
                raise ValueError
            broadcast = self._broadcast(inputs)
            full = broadcast if broadcast is not None else ()
            axes = (tuple(range(len(full))) if axis is None
                    else normalize_axis_tuple(axis, len(full)))
            shape = tuple(1 if d in axes else n for d, n in enumerate(full)) if keepdims \
                else tuple(n for d, n in enumerate(full) if d not in axes)
        except (ValueError, TypeError, np.exceptions.AxisError):
            shape = None  # The server answers NumPy's or CuPy's message.
        results = self._run(inputs, outs, fields, shape)
        return results[0] if self.nout == 1 else tuple(results)
