"""arrayhub.ndarray: a NumPy/CuPy-shaped handle to an array that lives on an ArrayHub server."""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy as np
from numpy.typing import DTypeLike

from arrayhub import _client, _dtypes, _numpy_protocols, _ops, _printing, cuda
from arrayhub._errors import ArrayHubError, ArrayHubTypeError, ArrayHubValueError, client_error
from arrayhub.v1 import arrays_pb2, compute_pb2, types_pb2

__all__ = ["ndarray", "Flags"]


class Flags:
    """Memory-layout flags, read like ``numpy.ndarray.flags`` (attributes or ``flags["C"]``)."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata", "writeable")
    _KEYS = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
             "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous",
             "OWNDATA": "owndata", "O": "owndata", "WRITEABLE": "writeable", "W": "writeable"}

    def __init__(self, info: Any) -> None:
        """From an ArrayInfo, or the inferred Meta of a queued array (same field names)."""
        self.c_contiguous = info.c_contiguous
        self.f_contiguous = info.f_contiguous
        self.owndata = info.owns_data
        self.writeable = info.writable

    def __getitem__(self, key: str) -> bool:
        return getattr(self, self._KEYS[key.upper()])

    def __repr__(self) -> str:
        return "\n".join(f"  {name} : {getattr(self, attr)}" for name, attr in (
            ("C_CONTIGUOUS", "c_contiguous"), ("F_CONTIGUOUS", "f_contiguous"),
            ("OWNDATA", "owndata"), ("WRITEABLE", "writeable")))


# The operator factories are typed to give ndarray, so that type checkers see ``a + b`` as an
# ndarray (returning NotImplemented fits any annotation).
def _binary(op: str) -> Callable[[ndarray, Any], ndarray]:
    def method(self: ndarray, other: Any) -> ndarray:
        if not _ops.is_operand(other):
            return NotImplemented
        return _ops.elementwise(op, (self, other))
    method.__doc__ = f"Elementwise ``{op}`` (server-side)."
    return method


def _reflected(op: str) -> Callable[[ndarray, Any], ndarray]:
    def method(self: ndarray, other: Any) -> ndarray:
        if not _ops.is_operand(other):
            return NotImplemented
        return _ops.elementwise(op, (other, self))
    method.__doc__ = f"Elementwise ``{op}`` with the operands swapped (server-side)."
    return method


def _inplace(op: str) -> Callable[[ndarray, Any], ndarray]:
    def method(self: ndarray, other: Any) -> ndarray:
        if not _ops.is_operand(other):
            return NotImplemented
        return _ops.elementwise(op, (self, other), out=self)
    method.__doc__ = f"In-place ``{op}``: writes into this server array (NumPy's out=)."
    return method


def _unary(op: str) -> Callable[[ndarray], ndarray]:
    def method(self: ndarray) -> ndarray:
        return _ops.elementwise(op, (self,))
    method.__doc__ = f"Elementwise ``{op}`` (server-side)."
    return method


class ndarray:
    """An array held by an ArrayHub server, with ``numpy.ndarray``'s interface.

    Every operation runs on the server; only :meth:`get` (and conversions such as
    ``float(x)``, ``x.tolist()``, ``numpy.asarray(x)``) moves data to the client.

    Differences from NumPy / CuPy:

    - ``ndarray(shape, dtype)`` allocates an uninitialised server array (as CuPy does); use
      :func:`arrayhub.asarray` to upload host data.
    - Reductions without ``axis`` return 0-d arrays (as CuPy does), not NumPy scalars.
    - Mixing with NumPy arrays in an operation raises TypeError (as CuPy does); NumPy scalars
      are accepted and keep their dtype in promotion, as in NumPy.
    - ``numpy.asarray(x)`` downloads (CuPy refuses implicit conversion); it can never avoid a
      copy, so ``copy=False`` raises ValueError.
    - An array is freed on the server when garbage-collected, in batches (see
      :meth:`arrayhub.Client.flush`); arrays from :func:`arrayhub.open` are not owned and are
      never freed by this process.
    - Operations are queued (pipelined) and return at once an array whose shape, dtype and
      strides the client computed with NumPy's rules; the host waits only where a value
      comes back to it (``get``, ``float``, ``print``, ...). See docs/semantics.md.
    - Inside an :func:`arrayhub.batch` block, operations give *pending* arrays: they have no
      data, shape or dtype until the block ends, when those still referenced become ordinary
      arrays in place.
    """

    # A pending array (a batch's op result) has _batch and _op set and no _info until the
    # batch has run: reading _info waits for it (a pipeline's queued array) or raises (an
    # arrayhub.batch() block's, which also has no _shape or _dtype; see __getattr__). _meta is
    # what the client inferred of a queued array; of an ordinary array, the same made from
    # its ArrayInfo when an op first needed it (_ops.meta_of), else None.
    # _device is the index of the array's device: known when an op is queued (the device the
    # op runs on, or a view's base's), so ``x.device`` never waits.
    __slots__ = ("_client", "_info", "_shape", "_dtype", "_owned", "_batch", "_op", "_meta",
                 "_device", "__weakref__")
    __hash__ = None  # type: ignore[assignment]  # Mutable, compared elementwise: as NumPy.
    # Above NumPy's 0 (as CuPy's 100): libraries that pick the array type of a mixed
    # operation by priority (dask.array's tensordot) pick arrayhub's.
    __array_priority__ = 100

    def __init__(self, shape: _ops.ShapeLike, dtype: DTypeLike = float) -> None:
        """Allocates an uninitialised array on the current client's server (numpy.empty)."""
        self._owned = False
        self._batch = None
        self._meta = None
        client = _client.get_client()
        info = client._create(arrays_pb2.CreateRequest(
            dtype=_dtypes.to_wire(dtype), shape=_ops.shape_tuple(shape),
            empty=arrays_pb2.EmptySpec()))
        self._adopt(client, info, owned=True)

    @classmethod
    def _wrap(cls, client: _client.Client, info: types_pb2.ArrayInfo,
              owned: bool = True) -> ndarray:
        """An ndarray for a server array; ``owned`` arrays are freed when collected."""
        array = cls.__new__(cls)
        array._owned = False
        array._adopt(client, info, owned)
        return array

    @classmethod
    def _pending(cls, client: _client.Client, batch: Any, op: int, meta: Any = None) -> ndarray:
        """The result of op ``op`` of a batch being recorded (see _batch.py); ``meta`` is its
        inferred shape, dtype and layout, when known (a pipeline's queued array)."""
        array = cls.__new__(cls)
        array._owned = False
        array._client = client
        array._batch = batch
        array._op = op
        array._meta = meta
        array._device = batch.device_index
        if meta is not None:
            array._shape = meta.shape
            array._dtype = meta.dtype
        return array

    def _adopt(self, client: _client.Client, info: types_pb2.ArrayInfo, owned: bool) -> None:
        self._client = client
        self._info = info
        self._shape = tuple(info.shape)
        self._dtype = _dtypes.from_wire(info.dtype)
        self._owned = owned
        self._batch = None
        self._meta = None
        self._device = info.device_index

    def __getattr__(self, name: str) -> Any:
        """Only reached for slots that are not set: those of a pending array's data. A queued
        array's _info waits until its batch has run."""
        batch = object.__getattribute__(self, "_batch")
        if batch is not None and name == "_info":
            return batch.resolve(self)
        if batch is not None and name in ("_shape", "_dtype"):
            raise batch.pending_error(self._op)
        raise AttributeError(f"'arrayhub.ndarray' object has no attribute '{name}'")

    def _layout(self) -> Any:
        """Strides and flags: inferred for a queued array, the server's otherwise."""
        return self._meta if self._batch is not None and self._meta is not None else self._info

    def __del__(self) -> None:
        if self._owned:
            self._client._release(self._info.handle)

    # -- Attributes -------------------------------------------------------------------------

    @property
    def handle(self) -> str:
        """The server's name for this array (32 hex characters). Another process of the same
        tenant can use it with :func:`arrayhub.open`."""
        return self._info.handle

    @property
    def client(self) -> _client.Client:
        """The session this array belongs to."""
        return self._client

    def publish(self, name: str, *, readers: Sequence[str] = (), all_tenants: bool = False,
                writable: bool = False, durable: bool = False, wait: bool = False) -> ndarray:
        """Publishes this array as ``name`` for :func:`arrayhub.attach`; see
        :func:`arrayhub.publish`."""
        from arrayhub import _sharing  # _sharing imports this module
        return _sharing.publish(self, name, readers=readers, all_tenants=all_tenants,
                                writable=writable, durable=durable, wait=wait)

    @property
    def device(self) -> cuda.Device:
        """The server's device that holds the array (:class:`arrayhub.cuda.Device`; its id is
        the index of ``ServerInfo.devices``). Known at once, even for a queued result."""
        return cuda.Device(self._device)

    @property
    def shape(self) -> tuple[int, ...]:
        """Extent of each axis."""
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        """The element type (a NumPy dtype)."""
        return self._dtype

    @property
    def ndim(self) -> int:
        """Number of axes."""
        return len(self._shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        return math.prod(self._shape)

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the elements: ``size * itemsize`` (on the server)."""
        return self.size * self._dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """Strides in bytes, as NumPy counts them (the server's are in elements)."""
        layout = self._layout()
        if layout is self._meta:
            return layout.strides
        return tuple(s * self._dtype.itemsize for s in layout.strides)

    @property
    def flags(self) -> Flags:
        """Layout flags (``c_contiguous``, ``f_contiguous``, ``owndata``, ``writeable``)."""
        return Flags(self._layout())

    @property
    def T(self) -> ndarray:
        """The transpose: a view (View RPC)."""
        return self.transpose()

    @property
    def mT(self) -> ndarray:
        """Transpose of the last two axes: a view (View RPC)."""
        return self.swapaxes(-1, -2)

    # Complex parts: _complex_parts.py (a complex array's parts are read-only copies).
    @property
    def real(self) -> ndarray:
        """The real part: this array itself when it is real (_complex_parts.py)."""
        from arrayhub import _complex_parts
        return _complex_parts.real(self)

    @real.setter
    def real(self, value: Any) -> None:
        from arrayhub import _complex_parts
        _complex_parts.set_real(self, value)

    @property
    def imag(self) -> ndarray:
        """The imaginary part: read-only zeros when the array is real (_complex_parts.py)."""
        from arrayhub import _complex_parts
        return _complex_parts.imag(self)

    @imag.setter
    def imag(self, value: Any) -> None:
        from arrayhub import _complex_parts
        _complex_parts.set_imag(self, value)

    def conj(self) -> ndarray:
        """The complex conjugate (ufunc ``conjugate``); a real array itself, as NumPy's."""
        return _ops.elementwise("conjugate", (self,)) if self.dtype.kind == "c" else self

    def conjugate(self) -> ndarray:
        """The complex conjugate: :meth:`conj`."""
        return self.conj()

    # -- Transfer and conversion ------------------------------------------------------------

    def get(self, *, out: Optional[np.ndarray] = None,
            progress: Optional[bool] = None) -> np.ndarray:
        """Downloads the array into a new NumPy array (C order), or into ``out``, a writable
        NumPy array of the same shape and dtype, which is returned (as CuPy's ``get``). When
        ``out`` is a pinned host array (:func:`arrayhub.empty_pinned`, or a C-contiguous part
        of one) of this array's client, the server writes straight into it.

        ``progress=True`` shows progress on stderr for arrays of 256 MiB or more (tqdm when
        installed); the default follows ``ARRAYHUB_PROGRESS=1``. CuPy has no such option."""
        if out is not None:
            _check_out(out, self._shape, self._dtype)
        elif self._batch is not None and self._batch._pipeline is not None:
            host = self._batch._pipeline.read(self)  # One round trip when small.
            if host is not None:
                return host
        return self._client._download(_ops.handle_of(self), self._shape, self._info.dtype, out,
                                      progress)

    def set(self, arr: Any, *, progress: Optional[bool] = None) -> None:
        """Overwrites this array with host data of the same shape and dtype (Upload RPC);
        ``progress`` as in :meth:`get`."""
        self._client._upload(np.asarray(arr), target_handle=_ops.handle_of(self),
                             progress=progress)

    def tolist(self) -> Any:
        """Downloads and returns nested Python lists (``numpy.ndarray.tolist``)."""
        return self.get().tolist()

    def item(self, *args: Any) -> Any:
        """One element as a Python scalar: with no argument the array must have size 1; an
        int is a flat (C-order) index, a tuple a multi-index, as in NumPy."""
        if not args:
            if self.size != 1:
                raise client_error(ArrayHubValueError,
                                   "can only convert an array of size 1 to a Python scalar")
            return self.get().item()
        index = args[0] if len(args) == 1 else args
        if not isinstance(index, tuple):
            index = np.unravel_index(operator.index(index), self._shape)
        return self[tuple(int(i) for i in index)].get().item()

    def __array__(self, dtype: DTypeLike | None = None, copy: Optional[bool] = None) -> np.ndarray:
        if copy is False:
            raise client_error(ArrayHubValueError,
                               "an arrayhub.ndarray cannot be converted to NumPy without a copy")
        host = self.get()
        return host if dtype is None else host.astype(dtype, copy=False)

    # -- Device memory in place, for CuPy, PyTorch, Numba, JAX (CUDA IPC, docs/ipc.md) -------

    def _on_cuda(self) -> bool:
        return self._info.device.startswith("cuda")

    def _require_cuda(self, what: str, error: type) -> None:
        if not self._on_cuda():
            raise error(f"{what}: this array lives on a {self._info.device} server, not in CUDA "
                        "memory; numpy.asarray(x) downloads it")

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """The array's device memory, mapped into this process (CUDA Array Interface v3):
        ``cupy.asarray(x)``, ``torch.as_tensor(x, device="cuda")`` and Numba use it in place,
        without a copy. The server on this host must run the CUDA backend with CUDA IPC on.
        Each access waits for the work queued on the array, so the data is current then;
        writes made through the mapping must be synchronized (e.g.
        ``cupy.cuda.Device().synchronize()``) before the next server call reads them."""
        self._require_cuda("__cuda_array_interface__", AttributeError)
        from arrayhub import _cuda_ipc
        return _cuda_ipc.cuda_array_interface(self)

    def __dlpack_device__(self) -> tuple[int, int]:
        """(kDLCUDA, this process's ordinal of the array's GPU); for a CPU server's array,
        (kDLCPU, 0): its capsule holds a downloaded copy (see :meth:`__dlpack__`)."""
        from arrayhub import _dlpack
        if not self._on_cuda():
            return _dlpack.KDL_CPU, 0
        _, ordinal, _ = self._client._ipc_mappings().map(self)
        return _dlpack.KDL_CUDA, ordinal

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Optional[bool] = None) -> Any:
        """A DLPack capsule of the array's device memory mapped in place (``torch.from_dlpack``,
        ``cupy.from_dlpack``); ``copy=True`` exports a copy made on the server. The data is
        ready when this returns, so ``stream`` needs no wait.

        A CPU server's array has no memory this process can map: its capsule is a downloaded
        host copy (DLPack lets a producer copy unless ``copy=False``, which raises
        BufferError)."""
        if not self._on_cuda():
            if copy is False:
                raise BufferError(f"__dlpack__: this array lives on a {self._info.device} "
                                  "server; only a copy can be exported (copy=False refuses it)")
            return self.get().__dlpack__(max_version=max_version, dl_device=dl_device)
        if copy:
            return self.copy().__dlpack__(dl_device=dl_device)
        pointer, ordinal, response = self._client._ipc_mappings().map(self)
        from arrayhub import _dlpack
        if dl_device is not None and tuple(dl_device) != (_dlpack.KDL_CUDA, ordinal):
            raise BufferError(f"__dlpack__: the array is on CUDA device {ordinal}, not {dl_device}")
        return _dlpack.dlpack_capsule(self, pointer, ordinal, response.array)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy ufuncs and their methods on arrayhub arrays (``numpy.exp(x)``,
        ``numpy.add.reduce(x)``) run arrayhub's on the server; TypeError for those arrayhub
        lacks (see _numpy_protocols.py)."""
        return _numpy_protocols.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Callable[..., Any], types: Any, args: Any,
                           kwargs: Any) -> Any:
        """NumPy functions on arrayhub arrays (``numpy.where``, ``numpy.linalg.norm``, ...)
        run arrayhub's function of the same module and name on the server; TypeError for
        those arrayhub lacks, instead of a download (see _numpy_protocols.py)."""
        return _numpy_protocols.array_function(func, types, args, kwargs)

    def _scalar(self, convert: Callable[[Any], Any]) -> Any:
        if self.size != 1:
            raise client_error(ArrayHubTypeError,
                               "only size-1 arrays can be converted to Python scalars")
        return convert(self.get())

    def __bool__(self) -> bool:
        if self.size == 0:
            raise client_error(ArrayHubValueError,
                               "The truth value of an empty array is ambiguous. Use "
                               "`array.size > 0` to check that an array is not empty.")
        if self.size > 1:
            raise client_error(ArrayHubValueError,
                               "The truth value of an array with more than one element is "
                               "ambiguous. Use a.any() or a.all()")
        return bool(self.get())

    def __float__(self) -> float:
        """For size-1 arrays; NumPy >= 2.4 accepts only 0-d ones (the downloaded NumPy array
        decides)."""
        return self._scalar(float)

    def __int__(self) -> int:
        return self._scalar(int)

    def __complex__(self) -> complex:
        return self._scalar(complex)

    def __index__(self) -> int:
        if self.ndim != 0 or self._dtype.kind not in "iu":
            raise client_error(ArrayHubTypeError,
                               "only integer scalar arrays can be converted to a scalar index")
        return operator.index(self.get()[()])

    def __len__(self) -> int:
        if not self._shape:
            raise client_error(ArrayHubTypeError, "len() of unsized object")
        return self._shape[0]

    def __contains__(self, value: Any) -> bool:
        """``value in x``: ``(x == value).any()``, evaluated on the server."""
        return bool(_ops.reduce("any", _ops.elementwise("equal", (self, value))))

    def __iter__(self) -> Iterator[ndarray]:
        if not self._shape:
            raise client_error(ArrayHubTypeError, "iteration over a 0-d array")
        return (self[i] for i in range(self._shape[0]))

    def __repr__(self) -> str:
        # Never raises: debuggers and tracebacks call repr.
        if self._batch is not None and self._batch.is_block:
            return (f"<arrayhub.ndarray pending: ops[{self._op}] of an arrayhub.batch(); "
                    f"{self._batch.pending_error(self._op)}>")
        try:
            return _printing.text(self, True)
        except ArrayHubError as error:
            if self._batch is not None:
                return (f"<arrayhub.ndarray queued shape={self._shape} dtype={self._dtype} "
                        f"(failed: {error})>")
            return (f"<arrayhub.ndarray {self.handle} shape={self._shape} dtype={self._dtype}"
                    f" (not downloadable: {error})>")

    def __str__(self) -> str:
        return _printing.text(self, False)

    def __copy__(self) -> ndarray:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> ndarray:
        return self.copy()

    # -- Copies, casts, views ---------------------------------------------------------------

    def __array_namespace__(self, *, api_version: Optional[str] = None) -> Any:
        """The Array API namespace of these arrays: the arrayhub module (version 2024.12)."""
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
            raise client_error(ArrayHubValueError,
                               f"Unrecognized array API version: {api_version!r}")
        import arrayhub

        return arrayhub

    def to_device(self, device: Any, /, *, stream: Any = None) -> ndarray:
        """This array on ``device`` (an :class:`arrayhub.cuda.Device` or its id): itself when
        it is there already, else a C-contiguous copy there, made device to device by the
        server (peer to peer between GPUs), in this array's client's session."""
        from arrayhub import _devices  # _devices imports this module

        index = _devices.device_index(device)
        if index == self._device:
            return self
        return _devices.copy_to_device(self, index)

    def copy(self, order: str = "C") -> ndarray:
        """A new server array with the same contents (Elementwise ``copy``), laid out in
        ``order`` as NumPy's ("K" keeps this array's layout; see arrayhub._layouts), on the
        current device, as CuPy's: an array of another device is copied over first
        (:meth:`to_device`)."""
        current = _ops.client_for(self)._current_device()
        if current != self._device:
            from arrayhub import _devices  # _devices imports this module

            moved = _devices.copy_to_device(self, current)
            return moved if order in ("C", "K", "A") else moved.copy(order)
        if order == "C":
            return _ops.elementwise("copy", (self,))
        from arrayhub._layouts import axis_order, copy_in_order  # it imports this module

        return copy_in_order(self, axis_order(order, self))

    def view(self, dtype: Any = None, type: Any = None) -> ndarray:
        """A new array on the same memory: writes through either show in the other. With
        ``dtype``, the bytes read as that dtype (View RPC), by NumPy 2's rules: any layout
        for the same itemsize; otherwise the last axis must be contiguous and changes length,
        with NumPy's ValueErrors. The server refuses what would break its kernels (see
        docs/semantics.md): a non-bool array viewed as bool, and views whose elements would
        not be aligned; a bool array viewed as another dtype is read-only. ``type`` (or a
        ``dtype`` that is an ndarray class) may only be arrayhub.ndarray."""
        if isinstance(dtype, builtins.type) and issubclass(dtype, (ndarray, np.ndarray)):
            dtype, type = None, dtype
        if type is not None and not (isinstance(type, builtins.type) and
                                     issubclass(type, ndarray)):
            raise client_error(ArrayHubTypeError, f"arrayhub arrays view as arrayhub.ndarray "
                               f"only, not {type!r}")
        if dtype is not None and np.dtype(dtype).byteorder not in "=|":
            raise client_error(ArrayHubTypeError, f"cannot view as {np.dtype(dtype)}: the "
                               f"server stores native byte order only")
        target = self.dtype if dtype is None else _dtypes.normalize(dtype)
        return _ops.view(self, view_dtype=compute_pb2.ViewRequest.ViewDType(
            dtype=_dtypes.to_wire(target)))

    def astype(self, dtype: DTypeLike, order: str = "K", copy: bool = True) -> ndarray:
        """A copy cast to ``dtype`` (NumPy's unsafe casting), laid out in ``order`` ("K", the
        default, keeps this array's layout, as NumPy's); with ``copy=False``, the same dtype
        and a layout that fits ``order``, this array itself.

        Casts NumPy allows under "same_kind" rules (int -> float, float64 -> float32,
        int64 -> int8, real -> complex, ...) are an Elementwise ``copy`` into a new array;
        the others (float -> int, complex -> real, ... ) are the ArrayOp ``astype``.
        """
        target = _dtypes.normalize(dtype)
        if _client.recording.get() is not None:
            # A batch knows no dtypes before it runs; ArrayOp astype copies with any cast.
            return _ops.array_op("astype", (self,), dtype=target)[0]
        from arrayhub._layouts import axis_order, copy_in_order, has_order

        permutation = axis_order(order, self)
        if target == self._dtype and not copy and (order in ("K", "A")
                                                   or has_order(self, permutation)):
            return self
        if permutation is not None:
            return copy_in_order(self, permutation, target)
        if target == self._dtype:
            return self.copy()
        if np.can_cast(self._dtype, target, "same_kind"):
            out = _ops.create(self._client, arrays_pb2.CreateRequest(
                dtype=_dtypes.to_wire(target), shape=self._shape, empty=arrays_pb2.EmptySpec()))
            return _ops.elementwise("copy", (self,), out=out)
        return _ops.array_op("astype", (self,), dtype=target)[0]

    def fill(self, value: Any) -> None:
        """Sets every element to ``value`` (SetItem RPC on ``[...]``)."""
        _ops.setitem(self, Ellipsis, value)

    def reshape(self, *shape: Any, order: str = "C", copy: Optional[bool] = None) -> ndarray:
        """A view when the layout allows, else a copy, as NumPy (View RPC). ``copy=True``
        always copies; ``copy=False`` raises ValueError where a copy would be needed (and
        then waits for the server's answer, unless this array is C-contiguous)."""
        dims = _ops.shape_tuple(shape[0] if len(shape) == 1 else shape)
        source = self.copy() if copy else self
        reshaped = _ops.view(source, reshape=compute_pb2.ViewRequest.Reshape(shape=dims,
                                                                             order=order))
        if copy is False and not (order == "C" and self.flags.c_contiguous) \
                and reshaped.flags.owndata:
            raise client_error(ArrayHubValueError,
                               "Unable to avoid creating a copy while reshaping.")
        return reshaped

    def transpose(self, *axes: Any) -> ndarray:
        """A view with the axes permuted (reversed when none are given)."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = tuple(axes[0] or ())
        return _ops.view(self, transpose=compute_pb2.ViewRequest.Transpose(
            axes=[operator.index(a) for a in axes]))

    def swapaxes(self, axis1: int, axis2: int) -> ndarray:
        """A view with ``axis1`` and ``axis2`` interchanged."""
        return _ops.view(self, swapaxes=compute_pb2.ViewRequest.SwapAxes(
            axis1=operator.index(axis1), axis2=operator.index(axis2)))

    def squeeze(self, axis: _ops.AxisLike = None) -> ndarray:
        """A view without the length-1 axes (those in ``axis`` only, when given)."""
        return _ops.view(self, squeeze=compute_pb2.ViewRequest.Squeeze(
            axis=_ops.axis_list(axis)))

    def ravel(self, order: str = "C") -> ndarray:
        """A 1-D view when possible, else a copy."""
        return _ops.view(self, ravel=compute_pb2.ViewRequest.Ravel(order=order))

    def flatten(self, order: str = "C") -> ndarray:
        """A 1-D copy."""
        return self.ravel(order).copy()

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ndarray:
        """A view of the diagonal. Note: the wire format reads axis1 = axis2 = 0 as NumPy's
        defaults (0, 1) instead of raising."""
        return _ops.view(self, diagonal=compute_pb2.ViewRequest.Diagonal(
            offset=operator.index(offset), axis1=operator.index(axis1),
            axis2=operator.index(axis2)))

    # -- Indexing ---------------------------------------------------------------------------

    def __getitem__(self, key: Any) -> ndarray:
        """Basic indexing gives a view, fancy indexing (arrays, lists) a copy, as NumPy.
        Integer indices give 0-d arrays, not NumPy scalars (as CuPy)."""
        return _ops.getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        _ops.setitem(self, key, value)

    # -- Reductions -------------------------------------------------------------------------

    def sum(self, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None, out: Any = None,
            keepdims: bool = False) -> ndarray:
        """Sum over ``axis`` (all axes when None); see :func:`arrayhub.sum`."""
        return _ops.reduce("sum", self, axis, dtype=dtype, out=out, keepdims=keepdims)

    def prod(self, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None, out: Any = None,
             keepdims: bool = False) -> ndarray:
        """Product over ``axis``; see :func:`arrayhub.prod`."""
        return _ops.reduce("prod", self, axis, dtype=dtype, out=out, keepdims=keepdims)

    def min(self, axis: _ops.AxisLike = None, out: Any = None, keepdims: bool = False) -> ndarray:
        """Minimum over ``axis``, NaN-propagating; see :func:`arrayhub.min`."""
        return _ops.reduce("min", self, axis, out=out, keepdims=keepdims)

    def max(self, axis: _ops.AxisLike = None, out: Any = None, keepdims: bool = False) -> ndarray:
        """Maximum over ``axis``, NaN-propagating; see :func:`arrayhub.max`."""
        return _ops.reduce("max", self, axis, out=out, keepdims=keepdims)

    def mean(self, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None, out: Any = None,
             keepdims: bool = False) -> ndarray:
        """Arithmetic mean over ``axis``; see :func:`arrayhub.mean`."""
        return _ops.reduce("mean", self, axis, dtype=dtype, out=out, keepdims=keepdims)

    def var(self, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None, out: Any = None,
            ddof: float = 0, keepdims: bool = False) -> ndarray:
        """Variance over ``axis`` with ``ddof`` delta degrees of freedom; see
        :func:`arrayhub.var`."""
        return _ops.reduce("var", self, axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def std(self, axis: _ops.AxisLike = None, dtype: DTypeLike | None = None, out: Any = None,
            ddof: float = 0, keepdims: bool = False) -> ndarray:
        """Standard deviation over ``axis``; see :func:`arrayhub.std`."""
        return _ops.reduce("std", self, axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def argmin(self, axis: Optional[int] = None, out: Any = None, *,
               keepdims: bool = False) -> ndarray:
        """Index of the minimum along ``axis`` (of the flattened array when None)."""
        return _ops.reduce("argmin", self, axis, out=out, keepdims=keepdims)

    def argmax(self, axis: Optional[int] = None, out: Any = None, *,
               keepdims: bool = False) -> ndarray:
        """Index of the maximum along ``axis`` (of the flattened array when None)."""
        return _ops.reduce("argmax", self, axis, out=out, keepdims=keepdims)

    def any(self, axis: _ops.AxisLike = None, out: Any = None, keepdims: bool = False) -> ndarray:
        """Whether any element along ``axis`` is true."""
        return _ops.reduce("any", self, axis, out=out, keepdims=keepdims)

    def all(self, axis: _ops.AxisLike = None, out: Any = None, keepdims: bool = False) -> ndarray:
        """Whether every element along ``axis`` is true."""
        return _ops.reduce("all", self, axis, out=out, keepdims=keepdims)

    # -- Other methods NumPy arrays have ----------------------------------------------------

    def clip(self, min: Any = None, max: Any = None, out: Any = None) -> ndarray:
        """See :func:`arrayhub.clip`."""
        from arrayhub._ufuncs import clip

        return clip(self, min, max, out=out)

    def dot(self, b: Any, out: Any = None) -> ndarray:
        """numpy.dot of this array and ``b``; see :func:`arrayhub.dot`."""
        return _ops.tensor_product("dot", self, b, out=out)

    def nonzero(self) -> tuple[ndarray, ...]:
        """A tuple of index arrays, one per axis, of the non-zero elements."""
        return tuple(_ops.array_op("nonzero", (self,)))

    def argsort(self, axis: Optional[int] = -1) -> ndarray:
        """Indices that sort along ``axis`` (a stable sort on the server)."""
        return _ops.array_op("argsort", (self,), axis=axis, stable=True)[0]

    def cumsum(self, axis: Optional[int] = None, dtype: DTypeLike | None = None) -> ndarray:
        """Cumulative sum along ``axis``; see :func:`arrayhub.cumsum`."""
        return _ops.array_op("cumsum", (self,), axis=axis, dtype=dtype)[0]

    def cumprod(self, axis: Optional[int] = None, dtype: DTypeLike | None = None) -> ndarray:
        """Cumulative product along ``axis``; see :func:`arrayhub.cumprod`."""
        return _ops.array_op("cumprod", (self,), axis=axis, dtype=dtype)[0]

    def repeat(self, repeats: Any, axis: Optional[int] = None) -> ndarray:
        """Repeats each element: ``repeats`` is one count, or one count per element along
        ``axis`` (an array, list or NumPy array)."""
        if isinstance(repeats, (int, np.integer)):
            return _ops.array_op("repeat", (self,), axis=axis, ints=[repeats])[0]
        if not isinstance(repeats, ndarray):
            repeats = _ops.upload(np.asarray(repeats), self._client)
        return _ops.array_op("repeat", (self, repeats), axis=axis)[0]

    def sort(self, axis: Optional[int] = -1) -> None:
        """Sorts in place (a stable sort on the server, written back into this array)."""
        _ops.setitem(self, Ellipsis, _ops.array_op("sort", (self,), axis=axis, stable=True)[0])

    def searchsorted(self, v: Any, side: str = "left") -> ndarray:
        """Indices where ``v`` would be inserted to keep this sorted 1-D array sorted."""
        return _ops.array_op("searchsorted", (self, v), side=side)[0]

    def compress(self, condition: Any, axis: Optional[int] = None) -> ndarray:
        """The slices along ``axis`` where ``condition`` is true; see
        :func:`arrayhub.compress`."""
        from arrayhub._manipulation import compress

        return compress(condition, self, axis)

    def put(self, indices: Any, values: Any, mode: str = "raise") -> None:
        """``self.flat[indices] = values``; see :func:`arrayhub.put`."""
        from arrayhub._put_functions import put

        put(self, indices, values, mode)

    def choose(self, choices: Any, out: Any = None, mode: str = "raise") -> ndarray:
        """``choices[self[i]][i]``; see :func:`arrayhub.choose`."""
        from arrayhub._put_functions import choose

        return choose(self, choices, out, mode)

    def take(self, indices: Any, axis: Optional[int] = None) -> ndarray:
        """Elements at ``indices`` (an int, an array, or a list or NumPy array, uploaded)
        along ``axis`` (of the flattened array when None)."""
        if not isinstance(indices, (ndarray, int, np.integer)):
            indices = _ops.upload(np.asarray(indices), self._client)
        if isinstance(indices, np.integer):
            indices = int(indices)
        return _ops.array_op("take", (self, indices), axis=axis)[0]

    def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1,
              dtype: DTypeLike | None = None, out: Any = None) -> ndarray:
        """Sum of the diagonal; see :func:`arrayhub.trace`."""
        from arrayhub._matrix_functions import trace

        return trace(self, offset, axis1, axis2, dtype, out)

    def round(self, decimals: int = 0, out: Any = None) -> ndarray:
        """Rounded to ``decimals`` places; see :func:`arrayhub.round`."""
        from arrayhub._math_functions import around

        return around(self, decimals, out)

    # -- Operators --------------------------------------------------------------------------

    __add__, __radd__, __iadd__ = _binary("add"), _reflected("add"), _inplace("add")
    __sub__, __rsub__, __isub__ = (_binary("subtract"), _reflected("subtract"),
                                   _inplace("subtract"))
    __mul__, __rmul__, __imul__ = (_binary("multiply"), _reflected("multiply"),
                                   _inplace("multiply"))
    __truediv__, __rtruediv__, __itruediv__ = (_binary("true_divide"), _reflected("true_divide"),
                                               _inplace("true_divide"))
    __floordiv__, __rfloordiv__, __ifloordiv__ = (
        _binary("floor_divide"), _reflected("floor_divide"), _inplace("floor_divide"))
    __mod__, __rmod__, __imod__ = (_binary("remainder"), _reflected("remainder"),
                                   _inplace("remainder"))
    __rpow__, __ipow__ = _reflected("power"), _inplace("power")
    __and__, __rand__, __iand__ = (_binary("bitwise_and"), _reflected("bitwise_and"),
                                   _inplace("bitwise_and"))
    __or__, __ror__, __ior__ = (_binary("bitwise_or"), _reflected("bitwise_or"),
                                _inplace("bitwise_or"))
    __xor__, __rxor__, __ixor__ = (_binary("bitwise_xor"), _reflected("bitwise_xor"),
                                   _inplace("bitwise_xor"))
    __lshift__, __rlshift__, __ilshift__ = (_binary("left_shift"), _reflected("left_shift"),
                                            _inplace("left_shift"))
    __rshift__, __rrshift__, __irshift__ = (_binary("right_shift"), _reflected("right_shift"),
                                            _inplace("right_shift"))
    __eq__ = _binary("equal")  # type: ignore[assignment]
    __ne__ = _binary("not_equal")  # type: ignore[assignment]
    __lt__, __le__ = _binary("less"), _binary("less_equal")
    __gt__, __ge__ = _binary("greater"), _binary("greater_equal")
    __neg__, __abs__, __invert__ = _unary("negative"), _unary("absolute"), _unary("invert")

    def __pos__(self) -> ndarray:
        from arrayhub._array_api import positive

        return positive(self)

    def __pow__(self, other: Any, modulo: Any = None) -> ndarray:
        if modulo is not None or not _ops.is_operand(other):
            return NotImplemented
        return _ops.elementwise("power", (self, other))

    def __divmod__(self, other: Any) -> tuple[ndarray, ndarray]:
        if not _ops.is_operand(other):
            return NotImplemented
        return (_ops.elementwise("floor_divide", (self, other)),
                _ops.elementwise("remainder", (self, other)))

    def __rdivmod__(self, other: Any) -> tuple[ndarray, ndarray]:
        if not _ops.is_operand(other):
            return NotImplemented
        return (_ops.elementwise("floor_divide", (other, self)),
                _ops.elementwise("remainder", (other, self)))

    def __matmul__(self, other: Any) -> ndarray:
        if not _ops.is_operand(other):
            return NotImplemented
        return _ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> ndarray:
        if not _ops.is_operand(other):
            return NotImplemented
        return _ops.matmul(other, self)

    def __imatmul__(self, other: Any) -> ndarray:
        """``a @= b``: ``matmul(a, b, out=a)``, as NumPy >= 1.25 (the result must have a's
        shape and cast to its dtype with "same_kind")."""
        if not _ops.is_operand(other):
            return NotImplemented
        if self.ndim < 1 or getattr(other, "ndim", 0) < 2:
            raise client_error(ArrayHubValueError,
                               "inplace matrix multiplication requires the first operand to "
                               "have at least one and the second at least two dimensions.")
        return _ops.matmul(self, other, out=self)


def _check_out(out: Any, shape: tuple[int, ...], dtype: np.dtype) -> None:
    """Refuses a download destination NumPy could not write the array into as it is (CuPy's
    checks and messages)."""
    if not isinstance(out, np.ndarray):
        raise client_error(ArrayHubTypeError,
                           f"out must be a numpy.ndarray, got {type(out).__name__}")
    if out.dtype != dtype:
        raise client_error(ArrayHubTypeError,
                           f"{out.dtype} array cannot be obtained from {dtype} array")
    if out.shape != shape:
        raise client_error(ArrayHubValueError,
                           f"Shape mismatch. Expected shape: {shape}, actual shape: {out.shape}")
    if not out.flags.writeable:
        raise client_error(ArrayHubValueError, "out is read-only")
