from arrayhub.v1 import peer_pb2 as _peer_pb2
from arrayhub.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ArangeSpec(_message.Message):
    __slots__ = ["start", "step", "stop"]
    START_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    start: _types_pb2.Scalar
    step: _types_pb2.Scalar
    stop: _types_pb2.Scalar
    def __init__(self, start: _Optional[_Union[_types_pb2.Scalar, _Mapping]] = ..., stop: _Optional[_Union[_types_pb2.Scalar, _Mapping]] = ..., step: _Optional[_Union[_types_pb2.Scalar, _Mapping]] = ...) -> None: ...

class AttachRequest(_message.Message):
    __slots__ = ["name", "owner"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ...) -> None: ...

class AttachResponse(_message.Message):
    __slots__ = ["array"]
    ARRAY_FIELD_NUMBER: _ClassVar[int]
    array: _types_pb2.ArrayInfo
    def __init__(self, array: _Optional[_Union[_types_pb2.ArrayInfo, _Mapping]] = ...) -> None: ...

class CheckpointRequest(_message.Message):
    __slots__ = ["wait"]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    wait: bool
    def __init__(self, wait: bool = ...) -> None: ...

class CheckpointResponse(_message.Message):
    __slots__ = ["bytes", "publications", "tenant_disk_bytes"]
    BYTES_FIELD_NUMBER: _ClassVar[int]
    PUBLICATIONS_FIELD_NUMBER: _ClassVar[int]
    TENANT_DISK_BYTES_FIELD_NUMBER: _ClassVar[int]
    bytes: int
    publications: int
    tenant_disk_bytes: int
    def __init__(self, publications: _Optional[int] = ..., bytes: _Optional[int] = ..., tenant_disk_bytes: _Optional[int] = ...) -> None: ...

class CloseSessionRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class CloseSessionResponse(_message.Message):
    __slots__ = ["arrays_freed"]
    ARRAYS_FREED_FIELD_NUMBER: _ClassVar[int]
    arrays_freed: int
    def __init__(self, arrays_freed: _Optional[int] = ...) -> None: ...

class CollectiveRequest(_message.Message):
    __slots__ = ["devices", "handles", "kind", "op", "root"]
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = []
    class ReduceOp(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = []
    ALL_GATHER: CollectiveRequest.Kind
    ALL_REDUCE: CollectiveRequest.Kind
    ALL_TO_ALL: CollectiveRequest.Kind
    AVG: CollectiveRequest.ReduceOp
    BROADCAST: CollectiveRequest.Kind
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    HANDLES_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    KIND_UNSPECIFIED: CollectiveRequest.Kind
    MAX: CollectiveRequest.ReduceOp
    MIN: CollectiveRequest.ReduceOp
    OP_FIELD_NUMBER: _ClassVar[int]
    PROD: CollectiveRequest.ReduceOp
    REDUCE: CollectiveRequest.Kind
    REDUCE_OP_UNSPECIFIED: CollectiveRequest.ReduceOp
    REDUCE_SCATTER: CollectiveRequest.Kind
    ROOT_FIELD_NUMBER: _ClassVar[int]
    SUM: CollectiveRequest.ReduceOp
    devices: _containers.RepeatedScalarFieldContainer[int]
    handles: _containers.RepeatedScalarFieldContainer[str]
    kind: CollectiveRequest.Kind
    op: CollectiveRequest.ReduceOp
    root: int
    def __init__(self, kind: _Optional[_Union[CollectiveRequest.Kind, str]] = ..., handles: _Optional[_Iterable[str]] = ..., devices: _Optional[_Iterable[int]] = ..., op: _Optional[_Union[CollectiveRequest.ReduceOp, str]] = ..., root: _Optional[int] = ...) -> None: ...

class CollectiveResponse(_message.Message):
    __slots__ = ["results"]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArrayInfo]
    def __init__(self, results: _Optional[_Iterable[_Union[_types_pb2.ArrayInfo, _Mapping]]] = ...) -> None: ...

class CopyToDeviceRequest(_message.Message):
    __slots__ = ["batch_handle", "device", "handle"]
    BATCH_HANDLE_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    batch_handle: int
    device: int
    handle: str
    def __init__(self, handle: _Optional[str] = ..., batch_handle: _Optional[int] = ..., device: _Optional[int] = ...) -> None: ...

class CreateRequest(_message.Message):
    __slots__ = ["arange", "data", "dtype", "empty", "eye", "full", "linspace", "ones", "random", "shape", "zeros"]
    ARANGE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    EMPTY_FIELD_NUMBER: _ClassVar[int]
    EYE_FIELD_NUMBER: _ClassVar[int]
    FULL_FIELD_NUMBER: _ClassVar[int]
    LINSPACE_FIELD_NUMBER: _ClassVar[int]
    ONES_FIELD_NUMBER: _ClassVar[int]
    RANDOM_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    ZEROS_FIELD_NUMBER: _ClassVar[int]
    arange: ArangeSpec
    data: DataSpec
    dtype: _types_pb2.DType
    empty: EmptySpec
    eye: EyeSpec
    full: FullSpec
    linspace: LinspaceSpec
    ones: OnesSpec
    random: RandomSpec
    shape: _containers.RepeatedScalarFieldContainer[int]
    zeros: ZerosSpec
    def __init__(self, dtype: _Optional[_Union[_types_pb2.DType, str]] = ..., shape: _Optional[_Iterable[int]] = ..., empty: _Optional[_Union[EmptySpec, _Mapping]] = ..., zeros: _Optional[_Union[ZerosSpec, _Mapping]] = ..., ones: _Optional[_Union[OnesSpec, _Mapping]] = ..., full: _Optional[_Union[FullSpec, _Mapping]] = ..., arange: _Optional[_Union[ArangeSpec, _Mapping]] = ..., linspace: _Optional[_Union[LinspaceSpec, _Mapping]] = ..., eye: _Optional[_Union[EyeSpec, _Mapping]] = ..., random: _Optional[_Union[RandomSpec, _Mapping]] = ..., data: _Optional[_Union[DataSpec, _Mapping]] = ...) -> None: ...

class DataSpec(_message.Message):
    __slots__ = ["values"]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: bytes
    def __init__(self, values: _Optional[bytes] = ...) -> None: ...

class DescribeRequest(_message.Message):
    __slots__ = ["handle"]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    handle: str
    def __init__(self, handle: _Optional[str] = ...) -> None: ...

class DeviceInfo(_message.Message):
    __slots__ = ["bytes_in_use", "description", "free_memory_bytes", "name", "sessions", "total_memory_bytes"]
    BYTES_IN_USE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    FREE_MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    bytes_in_use: int
    description: str
    free_memory_bytes: int
    name: str
    sessions: int
    total_memory_bytes: int
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., total_memory_bytes: _Optional[int] = ..., free_memory_bytes: _Optional[int] = ..., bytes_in_use: _Optional[int] = ..., sessions: _Optional[int] = ...) -> None: ...

class DownloadRequest(_message.Message):
    __slots__ = ["chunk_bytes", "handle", "length_bytes", "offset_bytes"]
    CHUNK_BYTES_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    LENGTH_BYTES_FIELD_NUMBER: _ClassVar[int]
    OFFSET_BYTES_FIELD_NUMBER: _ClassVar[int]
    chunk_bytes: int
    handle: str
    length_bytes: int
    offset_bytes: int
    def __init__(self, handle: _Optional[str] = ..., chunk_bytes: _Optional[int] = ..., offset_bytes: _Optional[int] = ..., length_bytes: _Optional[int] = ...) -> None: ...

class DownloadResponse(_message.Message):
    __slots__ = ["chunk", "info"]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    info: _types_pb2.ArrayInfo
    def __init__(self, info: _Optional[_Union[_types_pb2.ArrayInfo, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class EmptySpec(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ExportIpcRequest(_message.Message):
    __slots__ = ["handle"]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    handle: str
    def __init__(self, handle: _Optional[str] = ...) -> None: ...

class ExportIpcResponse(_message.Message):
    __slots__ = ["array", "device_ordinal", "device_uuid", "lease", "offset_bytes", "pointer_export_data", "pool_id", "pool_ticket", "socket_path"]
    ARRAY_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ORDINAL_FIELD_NUMBER: _ClassVar[int]
    DEVICE_UUID_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    OFFSET_BYTES_FIELD_NUMBER: _ClassVar[int]
    POINTER_EXPORT_DATA_FIELD_NUMBER: _ClassVar[int]
    POOL_ID_FIELD_NUMBER: _ClassVar[int]
    POOL_TICKET_FIELD_NUMBER: _ClassVar[int]
    SOCKET_PATH_FIELD_NUMBER: _ClassVar[int]
    array: _types_pb2.ArrayInfo
    device_ordinal: int
    device_uuid: str
    lease: str
    offset_bytes: int
    pointer_export_data: bytes
    pool_id: str
    pool_ticket: str
    socket_path: str
    def __init__(self, lease: _Optional[str] = ..., pointer_export_data: _Optional[bytes] = ..., offset_bytes: _Optional[int] = ..., pool_id: _Optional[str] = ..., pool_ticket: _Optional[str] = ..., socket_path: _Optional[str] = ..., device_uuid: _Optional[str] = ..., device_ordinal: _Optional[int] = ..., array: _Optional[_Union[_types_pb2.ArrayInfo, _Mapping]] = ...) -> None: ...

class EyeSpec(_message.Message):
    __slots__ = ["has_m", "k", "m", "n"]
    HAS_M_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    M_FIELD_NUMBER: _ClassVar[int]
    N_FIELD_NUMBER: _ClassVar[int]
    has_m: bool
    k: int
    m: int
    n: int
    def __init__(self, n: _Optional[int] = ..., has_m: bool = ..., m: _Optional[int] = ..., k: _Optional[int] = ...) -> None: ...

class FreeRequest(_message.Message):
    __slots__ = ["handles"]
    HANDLES_FIELD_NUMBER: _ClassVar[int]
    handles: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, handles: _Optional[_Iterable[str]] = ...) -> None: ...

class FreeResponse(_message.Message):
    __slots__ = ["freed"]
    FREED_FIELD_NUMBER: _ClassVar[int]
    freed: int
    def __init__(self, freed: _Optional[int] = ...) -> None: ...

class FullSpec(_message.Message):
    __slots__ = ["value"]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: _types_pb2.Scalar
    def __init__(self, value: _Optional[_Union[_types_pb2.Scalar, _Mapping]] = ...) -> None: ...

class KeepAliveRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class KeepAliveResponse(_message.Message):
    __slots__ = ["lease_expires_unix_ms"]
    LEASE_EXPIRES_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    lease_expires_unix_ms: int
    def __init__(self, lease_expires_unix_ms: _Optional[int] = ...) -> None: ...

class LinspaceSpec(_message.Message):
    __slots__ = ["endpoint", "num", "start", "stop"]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    NUM_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    endpoint: bool
    num: int
    start: _types_pb2.Scalar
    stop: _types_pb2.Scalar
    def __init__(self, start: _Optional[_Union[_types_pb2.Scalar, _Mapping]] = ..., stop: _Optional[_Union[_types_pb2.Scalar, _Mapping]] = ..., num: _Optional[int] = ..., endpoint: bool = ...) -> None: ...

class ListRequest(_message.Message):
    __slots__ = ["all_sessions", "include_shared"]
    ALL_SESSIONS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SHARED_FIELD_NUMBER: _ClassVar[int]
    all_sessions: bool
    include_shared: bool
    def __init__(self, all_sessions: bool = ..., include_shared: bool = ...) -> None: ...

class ListResponse(_message.Message):
    __slots__ = ["arrays"]
    ARRAYS_FIELD_NUMBER: _ClassVar[int]
    arrays: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArrayInfo]
    def __init__(self, arrays: _Optional[_Iterable[_Union[_types_pb2.ArrayInfo, _Mapping]]] = ...) -> None: ...

class OnesSpec(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class OpenSessionRequest(_message.Message):
    __slots__ = ["client_name", "device", "lease_seconds"]
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    LEASE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    client_name: str
    device: int
    lease_seconds: int
    def __init__(self, client_name: _Optional[str] = ..., lease_seconds: _Optional[int] = ..., device: _Optional[int] = ...) -> None: ...

class OpenSessionResponse(_message.Message):
    __slots__ = ["device", "lease_seconds", "session_id", "tenant"]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    LEASE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    device: int
    lease_seconds: int
    session_id: str
    tenant: str
    def __init__(self, session_id: _Optional[str] = ..., lease_seconds: _Optional[int] = ..., tenant: _Optional[str] = ..., device: _Optional[int] = ...) -> None: ...

class PublishRequest(_message.Message):
    __slots__ = ["all_tenants", "durable", "handle", "name", "reader_tenants", "wait_durable", "writable"]
    ALL_TENANTS_FIELD_NUMBER: _ClassVar[int]
    DURABLE_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    READER_TENANTS_FIELD_NUMBER: _ClassVar[int]
    WAIT_DURABLE_FIELD_NUMBER: _ClassVar[int]
    WRITABLE_FIELD_NUMBER: _ClassVar[int]
    all_tenants: bool
    durable: bool
    handle: str
    name: str
    reader_tenants: _containers.RepeatedScalarFieldContainer[str]
    wait_durable: bool
    writable: bool
    def __init__(self, handle: _Optional[str] = ..., name: _Optional[str] = ..., reader_tenants: _Optional[_Iterable[str]] = ..., all_tenants: bool = ..., writable: bool = ..., durable: bool = ..., wait_durable: bool = ...) -> None: ...

class PublishResponse(_message.Message):
    __slots__ = ["array"]
    ARRAY_FIELD_NUMBER: _ClassVar[int]
    array: _types_pb2.ArrayInfo
    def __init__(self, array: _Optional[_Union[_types_pb2.ArrayInfo, _Mapping]] = ...) -> None: ...

class RandomSpec(_message.Message):
    __slots__ = ["beta", "binomial", "chisquare", "exponential", "f", "gamma", "geometric", "gumbel", "has_seed", "integers", "laplace", "logistic", "lognormal", "negative_binomial", "normal", "pareto", "poisson", "power", "rayleigh", "seed", "standard_cauchy", "standard_t", "uniform", "wald", "weibull"]
    class Beta(_message.Message):
        __slots__ = ["a", "b"]
        A_FIELD_NUMBER: _ClassVar[int]
        B_FIELD_NUMBER: _ClassVar[int]
        a: float
        b: float
        def __init__(self, a: _Optional[float] = ..., b: _Optional[float] = ...) -> None: ...
    class Binomial(_message.Message):
        __slots__ = ["n", "p"]
        N_FIELD_NUMBER: _ClassVar[int]
        P_FIELD_NUMBER: _ClassVar[int]
        n: int
        p: float
        def __init__(self, n: _Optional[int] = ..., p: _Optional[float] = ...) -> None: ...
    class F(_message.Message):
        __slots__ = ["dfden", "dfnum"]
        DFDEN_FIELD_NUMBER: _ClassVar[int]
        DFNUM_FIELD_NUMBER: _ClassVar[int]
        dfden: float
        dfnum: float
        def __init__(self, dfnum: _Optional[float] = ..., dfden: _Optional[float] = ...) -> None: ...
    class Gamma(_message.Message):
        __slots__ = ["scale", "shape"]
        SCALE_FIELD_NUMBER: _ClassVar[int]
        SHAPE_FIELD_NUMBER: _ClassVar[int]
        scale: float
        shape: float
        def __init__(self, shape: _Optional[float] = ..., scale: _Optional[float] = ...) -> None: ...
    class Geometric(_message.Message):
        __slots__ = ["p"]
        P_FIELD_NUMBER: _ClassVar[int]
        p: float
        def __init__(self, p: _Optional[float] = ...) -> None: ...
    class Integers(_message.Message):
        __slots__ = ["high", "low"]
        HIGH_FIELD_NUMBER: _ClassVar[int]
        LOW_FIELD_NUMBER: _ClassVar[int]
        high: int
        low: int
        def __init__(self, low: _Optional[int] = ..., high: _Optional[int] = ...) -> None: ...
    class LocScale(_message.Message):
        __slots__ = ["loc", "scale"]
        LOC_FIELD_NUMBER: _ClassVar[int]
        SCALE_FIELD_NUMBER: _ClassVar[int]
        loc: float
        scale: float
        def __init__(self, loc: _Optional[float] = ..., scale: _Optional[float] = ...) -> None: ...
    class NegativeBinomial(_message.Message):
        __slots__ = ["n", "p"]
        N_FIELD_NUMBER: _ClassVar[int]
        P_FIELD_NUMBER: _ClassVar[int]
        n: float
        p: float
        def __init__(self, n: _Optional[float] = ..., p: _Optional[float] = ...) -> None: ...
    class Normal(_message.Message):
        __slots__ = ["mean", "stddev"]
        MEAN_FIELD_NUMBER: _ClassVar[int]
        STDDEV_FIELD_NUMBER: _ClassVar[int]
        mean: float
        stddev: float
        def __init__(self, mean: _Optional[float] = ..., stddev: _Optional[float] = ...) -> None: ...
    class Poisson(_message.Message):
        __slots__ = ["lam"]
        LAM_FIELD_NUMBER: _ClassVar[int]
        lam: float
        def __init__(self, lam: _Optional[float] = ...) -> None: ...
    class Scale(_message.Message):
        __slots__ = ["scale"]
        SCALE_FIELD_NUMBER: _ClassVar[int]
        scale: float
        def __init__(self, scale: _Optional[float] = ...) -> None: ...
    class Shape(_message.Message):
        __slots__ = ["a"]
        A_FIELD_NUMBER: _ClassVar[int]
        a: float
        def __init__(self, a: _Optional[float] = ...) -> None: ...
    class StandardCauchy(_message.Message):
        __slots__ = []
        def __init__(self) -> None: ...
    class Uniform(_message.Message):
        __slots__ = ["high", "low"]
        HIGH_FIELD_NUMBER: _ClassVar[int]
        LOW_FIELD_NUMBER: _ClassVar[int]
        high: float
        low: float
        def __init__(self, low: _Optional[float] = ..., high: _Optional[float] = ...) -> None: ...
    class Wald(_message.Message):
        __slots__ = ["mean", "scale"]
        MEAN_FIELD_NUMBER: _ClassVar[int]
        SCALE_FIELD_NUMBER: _ClassVar[int]
        mean: float
        scale: float
        def __init__(self, mean: _Optional[float] = ..., scale: _Optional[float] = ...) -> None: ...
    BETA_FIELD_NUMBER: _ClassVar[int]
    BINOMIAL_FIELD_NUMBER: _ClassVar[int]
    CHISQUARE_FIELD_NUMBER: _ClassVar[int]
    EXPONENTIAL_FIELD_NUMBER: _ClassVar[int]
    F_FIELD_NUMBER: _ClassVar[int]
    GAMMA_FIELD_NUMBER: _ClassVar[int]
    GEOMETRIC_FIELD_NUMBER: _ClassVar[int]
    GUMBEL_FIELD_NUMBER: _ClassVar[int]
    HAS_SEED_FIELD_NUMBER: _ClassVar[int]
    INTEGERS_FIELD_NUMBER: _ClassVar[int]
    LAPLACE_FIELD_NUMBER: _ClassVar[int]
    LOGISTIC_FIELD_NUMBER: _ClassVar[int]
    LOGNORMAL_FIELD_NUMBER: _ClassVar[int]
    NEGATIVE_BINOMIAL_FIELD_NUMBER: _ClassVar[int]
    NORMAL_FIELD_NUMBER: _ClassVar[int]
    PARETO_FIELD_NUMBER: _ClassVar[int]
    POISSON_FIELD_NUMBER: _ClassVar[int]
    POWER_FIELD_NUMBER: _ClassVar[int]
    RAYLEIGH_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    STANDARD_CAUCHY_FIELD_NUMBER: _ClassVar[int]
    STANDARD_T_FIELD_NUMBER: _ClassVar[int]
    UNIFORM_FIELD_NUMBER: _ClassVar[int]
    WALD_FIELD_NUMBER: _ClassVar[int]
    WEIBULL_FIELD_NUMBER: _ClassVar[int]
    beta: RandomSpec.Beta
    binomial: RandomSpec.Binomial
    chisquare: RandomSpec.Shape
    exponential: RandomSpec.Scale
    f: RandomSpec.F
    gamma: RandomSpec.Gamma
    geometric: RandomSpec.Geometric
    gumbel: RandomSpec.LocScale
    has_seed: bool
    integers: RandomSpec.Integers
    laplace: RandomSpec.LocScale
    logistic: RandomSpec.LocScale
    lognormal: RandomSpec.Normal
    negative_binomial: RandomSpec.NegativeBinomial
    normal: RandomSpec.Normal
    pareto: RandomSpec.Shape
    poisson: RandomSpec.Poisson
    power: RandomSpec.Shape
    rayleigh: RandomSpec.Scale
    seed: int
    standard_cauchy: RandomSpec.StandardCauchy
    standard_t: RandomSpec.Shape
    uniform: RandomSpec.Uniform
    wald: RandomSpec.Wald
    weibull: RandomSpec.Shape
    def __init__(self, has_seed: bool = ..., seed: _Optional[int] = ..., uniform: _Optional[_Union[RandomSpec.Uniform, _Mapping]] = ..., normal: _Optional[_Union[RandomSpec.Normal, _Mapping]] = ..., integers: _Optional[_Union[RandomSpec.Integers, _Mapping]] = ..., exponential: _Optional[_Union[RandomSpec.Scale, _Mapping]] = ..., gamma: _Optional[_Union[RandomSpec.Gamma, _Mapping]] = ..., beta: _Optional[_Union[RandomSpec.Beta, _Mapping]] = ..., binomial: _Optional[_Union[RandomSpec.Binomial, _Mapping]] = ..., poisson: _Optional[_Union[RandomSpec.Poisson, _Mapping]] = ..., lognormal: _Optional[_Union[RandomSpec.Normal, _Mapping]] = ..., standard_t: _Optional[_Union[RandomSpec.Shape, _Mapping]] = ..., chisquare: _Optional[_Union[RandomSpec.Shape, _Mapping]] = ..., geometric: _Optional[_Union[RandomSpec.Geometric, _Mapping]] = ..., laplace: _Optional[_Union[RandomSpec.LocScale, _Mapping]] = ..., logistic: _Optional[_Union[RandomSpec.LocScale, _Mapping]] = ..., gumbel: _Optional[_Union[RandomSpec.LocScale, _Mapping]] = ..., weibull: _Optional[_Union[RandomSpec.Shape, _Mapping]] = ..., pareto: _Optional[_Union[RandomSpec.Shape, _Mapping]] = ..., rayleigh: _Optional[_Union[RandomSpec.Scale, _Mapping]] = ..., standard_cauchy: _Optional[_Union[RandomSpec.StandardCauchy, _Mapping]] = ..., power: _Optional[_Union[RandomSpec.Shape, _Mapping]] = ..., f: _Optional[_Union[RandomSpec.F, _Mapping]] = ..., negative_binomial: _Optional[_Union[RandomSpec.NegativeBinomial, _Mapping]] = ..., wald: _Optional[_Union[RandomSpec.Wald, _Mapping]] = ...) -> None: ...

class RegisterSharedMemoryRequest(_message.Message):
    __slots__ = ["byte_size", "descriptor_ticket", "region_name"]
    BYTE_SIZE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTOR_TICKET_FIELD_NUMBER: _ClassVar[int]
    REGION_NAME_FIELD_NUMBER: _ClassVar[int]
    byte_size: int
    descriptor_ticket: str
    region_name: str
    def __init__(self, region_name: _Optional[str] = ..., byte_size: _Optional[int] = ..., descriptor_ticket: _Optional[str] = ...) -> None: ...

class RegisterSharedMemoryResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ReleaseIpcRequest(_message.Message):
    __slots__ = ["lease"]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    lease: str
    def __init__(self, lease: _Optional[str] = ...) -> None: ...

class ReleaseIpcResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ServerInfo(_message.Message):
    __slots__ = ["arrays", "backend", "bytes_in_use", "devices", "kernel_compilations", "limits", "sessions", "shared_memory_socket", "tenant", "tenant_bytes_in_use", "tenant_disk_bytes", "tenant_spill_wait_seconds", "tenant_spilled_disk_bytes", "tenant_spilled_host_bytes", "transfers", "version"]
    ARRAYS_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    BYTES_IN_USE_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    KERNEL_COMPILATIONS_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    SHARED_MEMORY_SOCKET_FIELD_NUMBER: _ClassVar[int]
    TENANT_BYTES_IN_USE_FIELD_NUMBER: _ClassVar[int]
    TENANT_DISK_BYTES_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    TENANT_SPILLED_DISK_BYTES_FIELD_NUMBER: _ClassVar[int]
    TENANT_SPILLED_HOST_BYTES_FIELD_NUMBER: _ClassVar[int]
    TENANT_SPILL_WAIT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TRANSFERS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    arrays: int
    backend: str
    bytes_in_use: int
    devices: _containers.RepeatedCompositeFieldContainer[DeviceInfo]
    kernel_compilations: int
    limits: ServerLimits
    sessions: int
    shared_memory_socket: str
    tenant: str
    tenant_bytes_in_use: int
    tenant_disk_bytes: int
    tenant_spill_wait_seconds: float
    tenant_spilled_disk_bytes: int
    tenant_spilled_host_bytes: int
    transfers: _peer_pb2.TransferStats
    version: str
    def __init__(self, version: _Optional[str] = ..., backend: _Optional[str] = ..., devices: _Optional[_Iterable[_Union[DeviceInfo, _Mapping]]] = ..., bytes_in_use: _Optional[int] = ..., arrays: _Optional[int] = ..., sessions: _Optional[int] = ..., limits: _Optional[_Union[ServerLimits, _Mapping]] = ..., tenant: _Optional[str] = ..., tenant_bytes_in_use: _Optional[int] = ..., shared_memory_socket: _Optional[str] = ..., kernel_compilations: _Optional[int] = ..., tenant_disk_bytes: _Optional[int] = ..., tenant_spilled_host_bytes: _Optional[int] = ..., tenant_spilled_disk_bytes: _Optional[int] = ..., tenant_spill_wait_seconds: _Optional[float] = ..., transfers: _Optional[_Union[_peer_pb2.TransferStats, _Mapping]] = ...) -> None: ...

class ServerInfoRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ServerLimits(_message.Message):
    __slots__ = ["batch_lane", "batch_stream", "default_chunk_bytes", "max_array_bytes", "max_batch_ops", "max_chunk_bytes", "max_inline_create_bytes", "max_inline_read_bytes", "max_message_bytes", "max_rank"]
    BATCH_LANE_FIELD_NUMBER: _ClassVar[int]
    BATCH_STREAM_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_CHUNK_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_ARRAY_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_OPS_FIELD_NUMBER: _ClassVar[int]
    MAX_CHUNK_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_INLINE_CREATE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_INLINE_READ_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_RANK_FIELD_NUMBER: _ClassVar[int]
    batch_lane: bool
    batch_stream: bool
    default_chunk_bytes: int
    max_array_bytes: int
    max_batch_ops: int
    max_chunk_bytes: int
    max_inline_create_bytes: int
    max_inline_read_bytes: int
    max_message_bytes: int
    max_rank: int
    def __init__(self, max_rank: _Optional[int] = ..., max_array_bytes: _Optional[int] = ..., max_chunk_bytes: _Optional[int] = ..., default_chunk_bytes: _Optional[int] = ..., max_message_bytes: _Optional[int] = ..., max_inline_read_bytes: _Optional[int] = ..., max_batch_ops: _Optional[int] = ..., batch_stream: bool = ..., batch_lane: bool = ..., max_inline_create_bytes: _Optional[int] = ...) -> None: ...

class SessionEnded(_message.Message):
    __slots__ = ["arrays_freed", "reason"]
    class Reason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = []
    ARRAYS_FREED_FIELD_NUMBER: _ClassVar[int]
    REASON_CLOSED: SessionEnded.Reason
    REASON_FIELD_NUMBER: _ClassVar[int]
    REASON_LEASE_EXPIRED: SessionEnded.Reason
    REASON_UNSPECIFIED: SessionEnded.Reason
    arrays_freed: int
    reason: SessionEnded.Reason
    def __init__(self, reason: _Optional[_Union[SessionEnded.Reason, str]] = ..., arrays_freed: _Optional[int] = ...) -> None: ...

class SessionEvent(_message.Message):
    __slots__ = ["kind", "lease_expires_unix_ms", "session_ended"]
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = []
    KIND_DRAINING: SessionEvent.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    KIND_LEASE_EXPIRING: SessionEvent.Kind
    KIND_SESSION_ENDED: SessionEvent.Kind
    KIND_UNSPECIFIED: SessionEvent.Kind
    KIND_WATCHING: SessionEvent.Kind
    LEASE_EXPIRES_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    SESSION_ENDED_FIELD_NUMBER: _ClassVar[int]
    kind: SessionEvent.Kind
    lease_expires_unix_ms: int
    session_ended: SessionEnded
    def __init__(self, lease_expires_unix_ms: _Optional[int] = ..., kind: _Optional[_Union[SessionEvent.Kind, str]] = ..., session_ended: _Optional[_Union[SessionEnded, _Mapping]] = ...) -> None: ...

class SharedMemoryCopyRequest(_message.Message):
    __slots__ = ["dtype", "handle", "offset_bytes", "region_name", "shape"]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    OFFSET_BYTES_FIELD_NUMBER: _ClassVar[int]
    REGION_NAME_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    dtype: _types_pb2.DType
    handle: str
    offset_bytes: int
    region_name: str
    shape: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, region_name: _Optional[str] = ..., offset_bytes: _Optional[int] = ..., handle: _Optional[str] = ..., dtype: _Optional[_Union[_types_pb2.DType, str]] = ..., shape: _Optional[_Iterable[int]] = ...) -> None: ...

class SharedMemoryCopyResponse(_message.Message):
    __slots__ = ["array"]
    ARRAY_FIELD_NUMBER: _ClassVar[int]
    array: _types_pb2.ArrayInfo
    def __init__(self, array: _Optional[_Union[_types_pb2.ArrayInfo, _Mapping]] = ...) -> None: ...

class UnpublishRequest(_message.Message):
    __slots__ = ["name"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class UnpublishResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class UnregisterSharedMemoryRequest(_message.Message):
    __slots__ = ["region_name"]
    REGION_NAME_FIELD_NUMBER: _ClassVar[int]
    region_name: str
    def __init__(self, region_name: _Optional[str] = ...) -> None: ...

class UnregisterSharedMemoryResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class UploadHeader(_message.Message):
    __slots__ = ["dtype", "length_bytes", "offset_bytes", "shape", "target_handle"]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    LENGTH_BYTES_FIELD_NUMBER: _ClassVar[int]
    OFFSET_BYTES_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    TARGET_HANDLE_FIELD_NUMBER: _ClassVar[int]
    dtype: _types_pb2.DType
    length_bytes: int
    offset_bytes: int
    shape: _containers.RepeatedScalarFieldContainer[int]
    target_handle: str
    def __init__(self, dtype: _Optional[_Union[_types_pb2.DType, str]] = ..., shape: _Optional[_Iterable[int]] = ..., target_handle: _Optional[str] = ..., offset_bytes: _Optional[int] = ..., length_bytes: _Optional[int] = ...) -> None: ...

class UploadRequest(_message.Message):
    __slots__ = ["chunk", "header"]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    header: UploadHeader
    def __init__(self, header: _Optional[_Union[UploadHeader, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class UploadResponse(_message.Message):
    __slots__ = ["array"]
    ARRAY_FIELD_NUMBER: _ClassVar[int]
    array: _types_pb2.ArrayInfo
    def __init__(self, array: _Optional[_Union[_types_pb2.ArrayInfo, _Mapping]] = ...) -> None: ...

class WatchSessionRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ZerosSpec(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...
