"""DLPack export of a server's device array (``ndarray.__dlpack__``), through CUDA IPC.

The capsule is the classic (unversioned) ``DLManagedTensor`` named "dltensor", which every
consumer takes (``torch.from_dlpack``, ``cupy.from_dlpack``, ``jax.dlpack``); its deleter lets go
of the ndarray, which holds the IPC mapping (see _cuda_ipc.py).
"""

from __future__ import annotations

import ctypes
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from arrayhub._errors import ArrayHubError, client_error

if TYPE_CHECKING:
    from arrayhub._ndarray import ndarray

KDL_CPU = 1  # DLDeviceType of host memory.
KDL_CUDA = 2  # DLDeviceType of CUDA memory.
_CAPSULE_NAME = b"dltensor"

# (DLDataTypeCode, bits) of each NumPy kind: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLComplex 5,
# kDLBool 6.
_TYPE_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _Deleter)]

_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CapsuleDestructor]
_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

# What each live DLManagedTensor keeps alive (the struct, its shape and strides, the ndarray),
# by the struct's address; its deleter removes the entry.
_live: dict[int, tuple[Any, ...]] = {}
_live_lock = threading.Lock()


def _delete(managed: Any) -> None:
    with _live_lock:
        _live.pop(ctypes.addressof(managed.contents), None)


def _destroy_capsule(capsule: int) -> None:
    # A consumer renames the capsule "used_dltensor" and calls the deleter itself later; an
    # unconsumed one is deleted with the capsule.
    if _capsule_is_valid(capsule, _CAPSULE_NAME):
        address = _capsule_get_pointer(capsule, _CAPSULE_NAME)
        with _live_lock:
            _live.pop(address, None)


_DELETER = _Deleter(_delete)
_CAPSULE_DESTRUCTOR = _CapsuleDestructor(_destroy_capsule)


def _dl_dtype(dtype: np.dtype) -> _DLDataType:
    code = _TYPE_CODES.get(dtype.kind)
    if code is None:
        raise client_error(ArrayHubError, f"DLPack has no type for {dtype}")
    return _DLDataType(code=code, bits=dtype.itemsize * 8, lanes=1)


def dlpack_capsule(array: ndarray, pointer: int, ordinal: int, info: Any) -> Any:
    """A "dltensor" capsule for ``array`` mapped at ``pointer`` (its first element) on this
    process's device ``ordinal``; ``info`` is the export's ArrayInfo (strides in elements)."""
    ndim = len(info.shape)
    shape = (ctypes.c_int64 * max(ndim, 1))(*info.shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*info.strides)
    managed = _DLManagedTensor()
    managed.dl_tensor = _DLTensor(
        data=pointer, device=_DLDevice(device_type=KDL_CUDA, device_id=ordinal), ndim=ndim,
        dtype=_dl_dtype(array.dtype), shape=ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)),
        strides=ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64)), byte_offset=0)
    managed.manager_ctx = None
    managed.deleter = _DELETER
    address = ctypes.addressof(managed)
    with _live_lock:
        _live[address] = (managed, shape, strides, array)
    return _capsule_new(address, _CAPSULE_NAME, _CAPSULE_DESTRUCTOR)
