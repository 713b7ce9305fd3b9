from arrayhub.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class IssueCapabilityRequest(_message.Message):
    __slots__ = ["handle", "lifetime_seconds"]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    LIFETIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    handle: str
    lifetime_seconds: int
    def __init__(self, handle: _Optional[str] = ..., lifetime_seconds: _Optional[int] = ...) -> None: ...

class IssueCapabilityResponse(_message.Message):
    __slots__ = ["capability", "lifetime_seconds", "origin"]
    CAPABILITY_FIELD_NUMBER: _ClassVar[int]
    LIFETIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    capability: str
    lifetime_seconds: int
    origin: str
    def __init__(self, capability: _Optional[str] = ..., lifetime_seconds: _Optional[int] = ..., origin: _Optional[str] = ...) -> None: ...

class PullArrayRequest(_message.Message):
    __slots__ = ["capability", "dtype", "origin", "shape"]
    CAPABILITY_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    capability: str
    dtype: _types_pb2.DType
    origin: str
    shape: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, capability: _Optional[str] = ..., origin: _Optional[str] = ..., dtype: _Optional[_Union[_types_pb2.DType, str]] = ..., shape: _Optional[_Iterable[int]] = ...) -> None: ...

class PullArrayResponse(_message.Message):
    __slots__ = ["array", "shared"]
    ARRAY_FIELD_NUMBER: _ClassVar[int]
    SHARED_FIELD_NUMBER: _ClassVar[int]
    array: _types_pb2.ArrayInfo
    shared: bool
    def __init__(self, array: _Optional[_Union[_types_pb2.ArrayInfo, _Mapping]] = ..., shared: bool = ...) -> None: ...

class ReadCapabilityRequest(_message.Message):
    __slots__ = ["capability", "chunk_bytes", "dtype", "shape", "tenant"]
    CAPABILITY_FIELD_NUMBER: _ClassVar[int]
    CHUNK_BYTES_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    capability: str
    chunk_bytes: int
    dtype: _types_pb2.DType
    shape: _containers.RepeatedScalarFieldContainer[int]
    tenant: str
    def __init__(self, capability: _Optional[str] = ..., tenant: _Optional[str] = ..., dtype: _Optional[_Union[_types_pb2.DType, str]] = ..., shape: _Optional[_Iterable[int]] = ..., chunk_bytes: _Optional[int] = ...) -> None: ...

class TransferStats(_message.Message):
    __slots__ = ["capabilities_issued", "client_download_bytes", "client_upload_bytes", "pulled_arrays", "pulled_bytes", "served_bytes", "shared_pulls"]
    CAPABILITIES_ISSUED_FIELD_NUMBER: _ClassVar[int]
    CLIENT_DOWNLOAD_BYTES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_UPLOAD_BYTES_FIELD_NUMBER: _ClassVar[int]
    PULLED_ARRAYS_FIELD_NUMBER: _ClassVar[int]
    PULLED_BYTES_FIELD_NUMBER: _ClassVar[int]
    SERVED_BYTES_FIELD_NUMBER: _ClassVar[int]
    SHARED_PULLS_FIELD_NUMBER: _ClassVar[int]
    capabilities_issued: int
    client_download_bytes: int
    client_upload_bytes: int
    pulled_arrays: int
    pulled_bytes: int
    served_bytes: int
    shared_pulls: int
    def __init__(self, capabilities_issued: _Optional[int] = ..., pulled_arrays: _Optional[int] = ..., pulled_bytes: _Optional[int] = ..., served_bytes: _Optional[int] = ..., shared_pulls: _Optional[int] = ..., client_upload_bytes: _Optional[int] = ..., client_download_bytes: _Optional[int] = ...) -> None: ...
