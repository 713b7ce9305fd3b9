from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
DTYPE_BOOL: DType
DTYPE_COMPLEX128: DType
DTYPE_COMPLEX64: DType
DTYPE_FLOAT16: DType
DTYPE_FLOAT32: DType
DTYPE_FLOAT64: DType
DTYPE_INT16: DType
DTYPE_INT32: DType
DTYPE_INT64: DType
DTYPE_INT8: DType
DTYPE_UINT16: DType
DTYPE_UINT32: DType
DTYPE_UINT64: DType
DTYPE_UINT8: DType
DTYPE_UNSPECIFIED: DType

class ArrayInfo(_message.Message):
    __slots__ = ["base_handle", "c_contiguous", "device", "device_index", "dtype", "f_contiguous", "handle", "name", "nbytes", "offset_bytes", "owner", "owns_data", "shape", "strides", "writable"]
    BASE_HANDLE_FIELD_NUMBER: _ClassVar[int]
    C_CONTIGUOUS_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    DEVICE_INDEX_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    F_CONTIGUOUS_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NBYTES_FIELD_NUMBER: _ClassVar[int]
    OFFSET_BYTES_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    OWNS_DATA_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    STRIDES_FIELD_NUMBER: _ClassVar[int]
    WRITABLE_FIELD_NUMBER: _ClassVar[int]
    base_handle: str
    c_contiguous: bool
    device: str
    device_index: int
    dtype: DType
    f_contiguous: bool
    handle: str
    name: str
    nbytes: int
    offset_bytes: int
    owner: str
    owns_data: bool
    shape: _containers.RepeatedScalarFieldContainer[int]
    strides: _containers.RepeatedScalarFieldContainer[int]
    writable: bool
    def __init__(self, handle: _Optional[str] = ..., dtype: _Optional[_Union[DType, str]] = ..., shape: _Optional[_Iterable[int]] = ..., strides: _Optional[_Iterable[int]] = ..., offset_bytes: _Optional[int] = ..., device: _Optional[str] = ..., nbytes: _Optional[int] = ..., owner: _Optional[str] = ..., name: _Optional[str] = ..., c_contiguous: bool = ..., f_contiguous: bool = ..., owns_data: bool = ..., base_handle: _Optional[str] = ..., writable: bool = ..., device_index: _Optional[int] = ...) -> None: ...

class AxisList(_message.Message):
    __slots__ = ["axes"]
    AXES_FIELD_NUMBER: _ClassVar[int]
    axes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, axes: _Optional[_Iterable[int]] = ...) -> None: ...

class Complex(_message.Message):
    __slots__ = ["imag", "real"]
    IMAG_FIELD_NUMBER: _ClassVar[int]
    REAL_FIELD_NUMBER: _ClassVar[int]
    imag: float
    real: float
    def __init__(self, real: _Optional[float] = ..., imag: _Optional[float] = ...) -> None: ...

class Scalar(_message.Message):
    __slots__ = ["bool_value", "complex_value", "float_value", "int_value", "uint_value"]
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    COMPLEX_VALUE_FIELD_NUMBER: _ClassVar[int]
    FLOAT_VALUE_FIELD_NUMBER: _ClassVar[int]
    INT_VALUE_FIELD_NUMBER: _ClassVar[int]
    UINT_VALUE_FIELD_NUMBER: _ClassVar[int]
    bool_value: bool
    complex_value: Complex
    float_value: float
    int_value: int
    uint_value: int
    def __init__(self, bool_value: bool = ..., int_value: _Optional[int] = ..., uint_value: _Optional[int] = ..., float_value: _Optional[float] = ..., complex_value: _Optional[_Union[Complex, _Mapping]] = ...) -> None: ...

class DType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
