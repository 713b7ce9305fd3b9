from arrayhub.v1 import arrays_pb2 as _arrays_pb2
from arrayhub.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
PRECISION_DEFAULT: Precision
PRECISION_HIGHEST: Precision
PRECISION_TF32: Precision

class ArrayOpRequest(_message.Message):
    __slots__ = ["axis", "dtype", "ints", "op", "operands", "side", "split_at_indices", "stable"]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    INTS_FIELD_NUMBER: _ClassVar[int]
    OPERANDS_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    SPLIT_AT_INDICES_FIELD_NUMBER: _ClassVar[int]
    STABLE_FIELD_NUMBER: _ClassVar[int]
    axis: _types_pb2.AxisList
    dtype: _types_pb2.DType
    ints: _containers.RepeatedScalarFieldContainer[int]
    op: str
    operands: _containers.RepeatedCompositeFieldContainer[Operand]
    side: str
    split_at_indices: bool
    stable: bool
    def __init__(self, op: _Optional[str] = ..., operands: _Optional[_Iterable[_Union[Operand, _Mapping]]] = ..., dtype: _Optional[_Union[_types_pb2.DType, str]] = ..., axis: _Optional[_Union[_types_pb2.AxisList, _Mapping]] = ..., ints: _Optional[_Iterable[int]] = ..., side: _Optional[str] = ..., stable: bool = ..., split_at_indices: bool = ...) -> None: ...

class ArrayOpResponse(_message.Message):
    __slots__ = ["results"]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArrayInfo]
    def __init__(self, results: _Optional[_Iterable[_Union[_types_pb2.ArrayInfo, _Mapping]]] = ...) -> None: ...

class BatchError(_message.Message):
    __slots__ = ["code", "message"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class BatchRequest(_message.Message):
    __slots__ = ["device", "elapsed_time", "free", "keep", "ops", "read"]
    class Op(_message.Message):
        __slots__ = ["array_op", "copy_to_device", "create", "elementwise", "fft", "get_item", "linalg", "matmul", "record_event", "reduce", "run_kernel", "tensor_product", "view"]
        ARRAY_OP_FIELD_NUMBER: _ClassVar[int]
        COPY_TO_DEVICE_FIELD_NUMBER: _ClassVar[int]
        CREATE_FIELD_NUMBER: _ClassVar[int]
        ELEMENTWISE_FIELD_NUMBER: _ClassVar[int]
        FFT_FIELD_NUMBER: _ClassVar[int]
        GET_ITEM_FIELD_NUMBER: _ClassVar[int]
        LINALG_FIELD_NUMBER: _ClassVar[int]
        MATMUL_FIELD_NUMBER: _ClassVar[int]
        RECORD_EVENT_FIELD_NUMBER: _ClassVar[int]
        REDUCE_FIELD_NUMBER: _ClassVar[int]
        RUN_KERNEL_FIELD_NUMBER: _ClassVar[int]
        TENSOR_PRODUCT_FIELD_NUMBER: _ClassVar[int]
        VIEW_FIELD_NUMBER: _ClassVar[int]
        array_op: ArrayOpRequest
        copy_to_device: _arrays_pb2.CopyToDeviceRequest
        create: _arrays_pb2.CreateRequest
        elementwise: ElementwiseRequest
        fft: FftRequest
        get_item: GetItemRequest
        linalg: LinalgRequest
        matmul: MatmulRequest
        record_event: RecordEventRequest
        reduce: ReduceRequest
        run_kernel: RunKernelRequest
        tensor_product: TensorProductRequest
        view: ViewRequest
        def __init__(self, elementwise: _Optional[_Union[ElementwiseRequest, _Mapping]] = ..., matmul: _Optional[_Union[MatmulRequest, _Mapping]] = ..., reduce: _Optional[_Union[ReduceRequest, _Mapping]] = ..., view: _Optional[_Union[ViewRequest, _Mapping]] = ..., array_op: _Optional[_Union[ArrayOpRequest, _Mapping]] = ..., create: _Optional[_Union[_arrays_pb2.CreateRequest, _Mapping]] = ..., get_item: _Optional[_Union[GetItemRequest, _Mapping]] = ..., tensor_product: _Optional[_Union[TensorProductRequest, _Mapping]] = ..., linalg: _Optional[_Union[LinalgRequest, _Mapping]] = ..., fft: _Optional[_Union[FftRequest, _Mapping]] = ..., run_kernel: _Optional[_Union[RunKernelRequest, _Mapping]] = ..., copy_to_device: _Optional[_Union[_arrays_pb2.CopyToDeviceRequest, _Mapping]] = ..., record_event: _Optional[_Union[RecordEventRequest, _Mapping]] = ...) -> None: ...
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_TIME_FIELD_NUMBER: _ClassVar[int]
    FREE_FIELD_NUMBER: _ClassVar[int]
    KEEP_FIELD_NUMBER: _ClassVar[int]
    OPS_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    device: int
    elapsed_time: EventElapsedTimeRequest
    free: _containers.RepeatedScalarFieldContainer[str]
    keep: _containers.RepeatedScalarFieldContainer[int]
    ops: _containers.RepeatedCompositeFieldContainer[BatchRequest.Op]
    read: int
    def __init__(self, ops: _Optional[_Iterable[_Union[BatchRequest.Op, _Mapping]]] = ..., keep: _Optional[_Iterable[int]] = ..., free: _Optional[_Iterable[str]] = ..., read: _Optional[int] = ..., device: _Optional[int] = ..., elapsed_time: _Optional[_Union[EventElapsedTimeRequest, _Mapping]] = ...) -> None: ...

class BatchResponse(_message.Message):
    __slots__ = ["data", "data_omitted", "elapsed_error", "elapsed_milliseconds", "read_info", "results"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    DATA_OMITTED_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_ERROR_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    READ_INFO_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    data_omitted: bool
    elapsed_error: BatchError
    elapsed_milliseconds: float
    read_info: _types_pb2.ArrayInfo
    results: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArrayInfo]
    def __init__(self, results: _Optional[_Iterable[_Union[_types_pb2.ArrayInfo, _Mapping]]] = ..., data: _Optional[bytes] = ..., read_info: _Optional[_Union[_types_pb2.ArrayInfo, _Mapping]] = ..., data_omitted: bool = ..., elapsed_milliseconds: _Optional[float] = ..., elapsed_error: _Optional[_Union[BatchError, _Mapping]] = ...) -> None: ...

class BatchStreamResponse(_message.Message):
    __slots__ = ["error", "response"]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    error: BatchError
    response: BatchResponse
    def __init__(self, response: _Optional[_Union[BatchResponse, _Mapping]] = ..., error: _Optional[_Union[BatchError, _Mapping]] = ...) -> None: ...

class ElementwiseRequest(_message.Message):
    __slots__ = ["dtype", "op", "operands", "out", "out_batch_result"]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    OPERANDS_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    OUT_BATCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    dtype: _types_pb2.DType
    op: str
    operands: _containers.RepeatedCompositeFieldContainer[Operand]
    out: str
    out_batch_result: int
    def __init__(self, op: _Optional[str] = ..., operands: _Optional[_Iterable[_Union[Operand, _Mapping]]] = ..., out: _Optional[str] = ..., out_batch_result: _Optional[int] = ..., dtype: _Optional[_Union[_types_pb2.DType, str]] = ...) -> None: ...

class EventElapsedTimeRequest(_message.Message):
    __slots__ = ["end_event_id", "start_event_id"]
    END_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    START_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    end_event_id: int
    start_event_id: int
    def __init__(self, start_event_id: _Optional[int] = ..., end_event_id: _Optional[int] = ...) -> None: ...

class EventElapsedTimeResponse(_message.Message):
    __slots__ = ["milliseconds"]
    MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    milliseconds: float
    def __init__(self, milliseconds: _Optional[float] = ...) -> None: ...

class FftRequest(_message.Message):
    __slots__ = ["axes", "input", "norm", "op", "s"]
    class Lengths(_message.Message):
        __slots__ = ["values"]
        VALUES_FIELD_NUMBER: _ClassVar[int]
        values: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, values: _Optional[_Iterable[int]] = ...) -> None: ...
    AXES_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    NORM_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    S_FIELD_NUMBER: _ClassVar[int]
    axes: _types_pb2.AxisList
    input: Operand
    norm: str
    op: str
    s: FftRequest.Lengths
    def __init__(self, op: _Optional[str] = ..., input: _Optional[_Union[Operand, _Mapping]] = ..., axes: _Optional[_Union[_types_pb2.AxisList, _Mapping]] = ..., s: _Optional[_Union[FftRequest.Lengths, _Mapping]] = ..., norm: _Optional[str] = ...) -> None: ...

class GetItemRequest(_message.Message):
    __slots__ = ["batch_handle", "handle", "index"]
    BATCH_HANDLE_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    batch_handle: int
    handle: str
    index: _containers.RepeatedCompositeFieldContainer[IndexItem]
    def __init__(self, handle: _Optional[str] = ..., batch_handle: _Optional[int] = ..., index: _Optional[_Iterable[_Union[IndexItem, _Mapping]]] = ...) -> None: ...

class IndexItem(_message.Message):
    __slots__ = ["array", "batch_array", "ellipsis", "index", "new_axis", "slice"]
    ARRAY_FIELD_NUMBER: _ClassVar[int]
    BATCH_ARRAY_FIELD_NUMBER: _ClassVar[int]
    ELLIPSIS_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    NEW_AXIS_FIELD_NUMBER: _ClassVar[int]
    SLICE_FIELD_NUMBER: _ClassVar[int]
    array: str
    batch_array: int
    ellipsis: bool
    index: int
    new_axis: bool
    slice: Slice
    def __init__(self, index: _Optional[int] = ..., slice: _Optional[_Union[Slice, _Mapping]] = ..., ellipsis: bool = ..., new_axis: bool = ..., array: _Optional[str] = ..., batch_array: _Optional[int] = ...) -> None: ...

class KernelArgument(_message.Message):
    __slots__ = ["batch_result", "dtype", "handle", "scalar"]
    BATCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    SCALAR_FIELD_NUMBER: _ClassVar[int]
    batch_result: int
    dtype: _types_pb2.DType
    handle: str
    scalar: _types_pb2.Scalar
    def __init__(self, handle: _Optional[str] = ..., scalar: _Optional[_Union[_types_pb2.Scalar, _Mapping]] = ..., batch_result: _Optional[int] = ..., dtype: _Optional[_Union[_types_pb2.DType, str]] = ...) -> None: ...

class KernelOutput(_message.Message):
    __slots__ = ["out", "out_batch_result"]
    OUT_BATCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: str
    out_batch_result: int
    def __init__(self, out: _Optional[str] = ..., out_batch_result: _Optional[int] = ...) -> None: ...

class KernelSource(_message.Message):
    __slots__ = ["identity", "in_params", "kind", "map_expr", "name", "operation", "out_params", "post_map_expr", "preamble", "reduce_expr", "reduce_type"]
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = []
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    IN_PARAMS_FIELD_NUMBER: _ClassVar[int]
    KIND_ELEMENTWISE: KernelSource.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    KIND_REDUCTION: KernelSource.Kind
    MAP_EXPR_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    OUT_PARAMS_FIELD_NUMBER: _ClassVar[int]
    POST_MAP_EXPR_FIELD_NUMBER: _ClassVar[int]
    PREAMBLE_FIELD_NUMBER: _ClassVar[int]
    REDUCE_EXPR_FIELD_NUMBER: _ClassVar[int]
    REDUCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    identity: str
    in_params: str
    kind: KernelSource.Kind
    map_expr: str
    name: str
    operation: str
    out_params: str
    post_map_expr: str
    preamble: str
    reduce_expr: str
    reduce_type: str
    def __init__(self, kind: _Optional[_Union[KernelSource.Kind, str]] = ..., in_params: _Optional[str] = ..., out_params: _Optional[str] = ..., operation: _Optional[str] = ..., map_expr: _Optional[str] = ..., reduce_expr: _Optional[str] = ..., post_map_expr: _Optional[str] = ..., identity: _Optional[str] = ..., reduce_type: _Optional[str] = ..., preamble: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class LinalgRequest(_message.Message):
    __slots__ = ["axis", "compute_uv", "full_matrices", "keepdims", "mode", "op", "operands", "ord", "precision", "rcond", "uplo"]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_UV_FIELD_NUMBER: _ClassVar[int]
    FULL_MATRICES_FIELD_NUMBER: _ClassVar[int]
    KEEPDIMS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    OPERANDS_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    ORD_FIELD_NUMBER: _ClassVar[int]
    PRECISION_FIELD_NUMBER: _ClassVar[int]
    RCOND_FIELD_NUMBER: _ClassVar[int]
    UPLO_FIELD_NUMBER: _ClassVar[int]
    axis: _types_pb2.AxisList
    compute_uv: bool
    full_matrices: bool
    keepdims: bool
    mode: str
    op: str
    operands: _containers.RepeatedCompositeFieldContainer[Operand]
    ord: str
    precision: Precision
    rcond: float
    uplo: str
    def __init__(self, op: _Optional[str] = ..., operands: _Optional[_Iterable[_Union[Operand, _Mapping]]] = ..., full_matrices: bool = ..., compute_uv: bool = ..., mode: _Optional[str] = ..., uplo: _Optional[str] = ..., ord: _Optional[str] = ..., axis: _Optional[_Union[_types_pb2.AxisList, _Mapping]] = ..., keepdims: bool = ..., rcond: _Optional[float] = ..., precision: _Optional[_Union[Precision, str]] = ...) -> None: ...

class LinalgResponse(_message.Message):
    __slots__ = ["results"]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArrayInfo]
    def __init__(self, results: _Optional[_Iterable[_Union[_types_pb2.ArrayInfo, _Mapping]]] = ...) -> None: ...

class MatmulRequest(_message.Message):
    __slots__ = ["a", "b", "conjugate_a", "conjugate_b", "out", "out_batch_result", "precision", "transpose_a", "transpose_b"]
    A_FIELD_NUMBER: _ClassVar[int]
    B_FIELD_NUMBER: _ClassVar[int]
    CONJUGATE_A_FIELD_NUMBER: _ClassVar[int]
    CONJUGATE_B_FIELD_NUMBER: _ClassVar[int]
    OUT_BATCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    PRECISION_FIELD_NUMBER: _ClassVar[int]
    TRANSPOSE_A_FIELD_NUMBER: _ClassVar[int]
    TRANSPOSE_B_FIELD_NUMBER: _ClassVar[int]
    a: Operand
    b: Operand
    conjugate_a: bool
    conjugate_b: bool
    out: str
    out_batch_result: int
    precision: Precision
    transpose_a: bool
    transpose_b: bool
    def __init__(self, a: _Optional[_Union[Operand, _Mapping]] = ..., b: _Optional[_Union[Operand, _Mapping]] = ..., transpose_a: bool = ..., transpose_b: bool = ..., conjugate_a: bool = ..., conjugate_b: bool = ..., out: _Optional[str] = ..., out_batch_result: _Optional[int] = ..., precision: _Optional[_Union[Precision, str]] = ...) -> None: ...

class OpenBatchLaneRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class OpenBatchLaneResponse(_message.Message):
    __slots__ = ["proof", "socket_path", "ticket"]
    PROOF_FIELD_NUMBER: _ClassVar[int]
    SOCKET_PATH_FIELD_NUMBER: _ClassVar[int]
    TICKET_FIELD_NUMBER: _ClassVar[int]
    proof: str
    socket_path: str
    ticket: str
    def __init__(self, socket_path: _Optional[str] = ..., ticket: _Optional[str] = ..., proof: _Optional[str] = ...) -> None: ...

class Operand(_message.Message):
    __slots__ = ["batch_result", "handle", "scalar"]
    BATCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    SCALAR_FIELD_NUMBER: _ClassVar[int]
    batch_result: int
    handle: str
    scalar: _types_pb2.Scalar
    def __init__(self, handle: _Optional[str] = ..., scalar: _Optional[_Union[_types_pb2.Scalar, _Mapping]] = ..., batch_result: _Optional[int] = ...) -> None: ...

class QueryEventRequest(_message.Message):
    __slots__ = ["event_id", "wait"]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    event_id: int
    wait: bool
    def __init__(self, event_id: _Optional[int] = ..., wait: bool = ...) -> None: ...

class QueryEventResponse(_message.Message):
    __slots__ = ["done"]
    DONE_FIELD_NUMBER: _ClassVar[int]
    done: bool
    def __init__(self, done: bool = ...) -> None: ...

class RawKernelArgument(_message.Message):
    __slots__ = ["dtype", "handle", "scalar"]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    SCALAR_FIELD_NUMBER: _ClassVar[int]
    dtype: _types_pb2.DType
    handle: str
    scalar: _types_pb2.Scalar
    def __init__(self, handle: _Optional[str] = ..., scalar: _Optional[_Union[_types_pb2.Scalar, _Mapping]] = ..., dtype: _Optional[_Union[_types_pb2.DType, str]] = ...) -> None: ...

class RecordEventRequest(_message.Message):
    __slots__ = ["event_id"]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    event_id: int
    def __init__(self, event_id: _Optional[int] = ...) -> None: ...

class ReduceRequest(_message.Message):
    __slots__ = ["axis", "ddof", "ddof_real", "dtype", "input", "keepdims", "op", "out", "out_batch_result"]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    DDOF_FIELD_NUMBER: _ClassVar[int]
    DDOF_REAL_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    KEEPDIMS_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    OUT_BATCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    axis: _types_pb2.AxisList
    ddof: int
    ddof_real: float
    dtype: _types_pb2.DType
    input: Operand
    keepdims: bool
    op: str
    out: str
    out_batch_result: int
    def __init__(self, op: _Optional[str] = ..., input: _Optional[_Union[Operand, _Mapping]] = ..., axis: _Optional[_Union[_types_pb2.AxisList, _Mapping]] = ..., keepdims: bool = ..., dtype: _Optional[_Union[_types_pb2.DType, str]] = ..., ddof: _Optional[int] = ..., out: _Optional[str] = ..., out_batch_result: _Optional[int] = ..., ddof_real: _Optional[float] = ...) -> None: ...

class RunKernelRequest(_message.Message):
    __slots__ = ["arguments", "axis", "keepdims", "outputs", "size", "source"]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    KEEPDIMS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    arguments: _containers.RepeatedCompositeFieldContainer[KernelArgument]
    axis: _types_pb2.AxisList
    keepdims: bool
    outputs: _containers.RepeatedCompositeFieldContainer[KernelOutput]
    size: int
    source: KernelSource
    def __init__(self, source: _Optional[_Union[KernelSource, _Mapping]] = ..., arguments: _Optional[_Iterable[_Union[KernelArgument, _Mapping]]] = ..., outputs: _Optional[_Iterable[_Union[KernelOutput, _Mapping]]] = ..., size: _Optional[int] = ..., axis: _Optional[_Union[_types_pb2.AxisList, _Mapping]] = ..., keepdims: bool = ...) -> None: ...

class RunKernelResponse(_message.Message):
    __slots__ = ["outputs"]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    outputs: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArrayInfo]
    def __init__(self, outputs: _Optional[_Iterable[_Union[_types_pb2.ArrayInfo, _Mapping]]] = ...) -> None: ...

class RunRawKernelRequest(_message.Message):
    __slots__ = ["arguments", "block", "code", "grid", "name", "options", "shared_mem"]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    GRID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SHARED_MEM_FIELD_NUMBER: _ClassVar[int]
    arguments: _containers.RepeatedCompositeFieldContainer[RawKernelArgument]
    block: _containers.RepeatedScalarFieldContainer[int]
    code: str
    grid: _containers.RepeatedScalarFieldContainer[int]
    name: str
    options: _containers.RepeatedScalarFieldContainer[str]
    shared_mem: int
    def __init__(self, code: _Optional[str] = ..., name: _Optional[str] = ..., options: _Optional[_Iterable[str]] = ..., grid: _Optional[_Iterable[int]] = ..., block: _Optional[_Iterable[int]] = ..., shared_mem: _Optional[int] = ..., arguments: _Optional[_Iterable[_Union[RawKernelArgument, _Mapping]]] = ...) -> None: ...

class RunRawKernelResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class SetItemRequest(_message.Message):
    __slots__ = ["combine", "handle", "index", "value"]
    COMBINE_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    combine: str
    handle: str
    index: _containers.RepeatedCompositeFieldContainer[IndexItem]
    value: Operand
    def __init__(self, handle: _Optional[str] = ..., index: _Optional[_Iterable[_Union[IndexItem, _Mapping]]] = ..., value: _Optional[_Union[Operand, _Mapping]] = ..., combine: _Optional[str] = ...) -> None: ...

class SetItemResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Slice(_message.Message):
    __slots__ = ["has_start", "has_stop", "start", "step", "stop"]
    HAS_START_FIELD_NUMBER: _ClassVar[int]
    HAS_STOP_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    has_start: bool
    has_stop: bool
    start: int
    step: int
    stop: int
    def __init__(self, has_start: bool = ..., start: _Optional[int] = ..., has_stop: bool = ..., stop: _Optional[int] = ..., step: _Optional[int] = ...) -> None: ...

class TensorProductRequest(_message.Message):
    __slots__ = ["a", "axes", "b", "op", "out", "out_batch_result", "precision"]
    AXES_FIELD_NUMBER: _ClassVar[int]
    A_FIELD_NUMBER: _ClassVar[int]
    B_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    OUT_BATCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    PRECISION_FIELD_NUMBER: _ClassVar[int]
    a: Operand
    axes: int
    b: Operand
    op: str
    out: str
    out_batch_result: int
    precision: Precision
    def __init__(self, op: _Optional[str] = ..., a: _Optional[_Union[Operand, _Mapping]] = ..., b: _Optional[_Union[Operand, _Mapping]] = ..., axes: _Optional[int] = ..., out: _Optional[str] = ..., out_batch_result: _Optional[int] = ..., precision: _Optional[_Union[Precision, str]] = ...) -> None: ...

class ViewRequest(_message.Message):
    __slots__ = ["batch_handle", "broadcast_to", "diagonal", "expand_dims", "handle", "ravel", "reshape", "squeeze", "swapaxes", "transpose", "view_dtype"]
    class BroadcastTo(_message.Message):
        __slots__ = ["shape"]
        SHAPE_FIELD_NUMBER: _ClassVar[int]
        shape: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, shape: _Optional[_Iterable[int]] = ...) -> None: ...
    class Diagonal(_message.Message):
        __slots__ = ["axis1", "axis2", "offset"]
        AXIS1_FIELD_NUMBER: _ClassVar[int]
        AXIS2_FIELD_NUMBER: _ClassVar[int]
        OFFSET_FIELD_NUMBER: _ClassVar[int]
        axis1: int
        axis2: int
        offset: int
        def __init__(self, offset: _Optional[int] = ..., axis1: _Optional[int] = ..., axis2: _Optional[int] = ...) -> None: ...
    class ExpandDims(_message.Message):
        __slots__ = ["axes"]
        AXES_FIELD_NUMBER: _ClassVar[int]
        axes: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, axes: _Optional[_Iterable[int]] = ...) -> None: ...
    class Ravel(_message.Message):
        __slots__ = ["order"]
        ORDER_FIELD_NUMBER: _ClassVar[int]
        order: str
        def __init__(self, order: _Optional[str] = ...) -> None: ...
    class Reshape(_message.Message):
        __slots__ = ["order", "shape"]
        ORDER_FIELD_NUMBER: _ClassVar[int]
        SHAPE_FIELD_NUMBER: _ClassVar[int]
        order: str
        shape: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, shape: _Optional[_Iterable[int]] = ..., order: _Optional[str] = ...) -> None: ...
    class Squeeze(_message.Message):
        __slots__ = ["axis"]
        AXIS_FIELD_NUMBER: _ClassVar[int]
        axis: _types_pb2.AxisList
        def __init__(self, axis: _Optional[_Union[_types_pb2.AxisList, _Mapping]] = ...) -> None: ...
    class SwapAxes(_message.Message):
        __slots__ = ["axis1", "axis2"]
        AXIS1_FIELD_NUMBER: _ClassVar[int]
        AXIS2_FIELD_NUMBER: _ClassVar[int]
        axis1: int
        axis2: int
        def __init__(self, axis1: _Optional[int] = ..., axis2: _Optional[int] = ...) -> None: ...
    class Transpose(_message.Message):
        __slots__ = ["axes"]
        AXES_FIELD_NUMBER: _ClassVar[int]
        axes: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, axes: _Optional[_Iterable[int]] = ...) -> None: ...
    class ViewDType(_message.Message):
        __slots__ = ["dtype"]
        DTYPE_FIELD_NUMBER: _ClassVar[int]
        dtype: _types_pb2.DType
        def __init__(self, dtype: _Optional[_Union[_types_pb2.DType, str]] = ...) -> None: ...
    BATCH_HANDLE_FIELD_NUMBER: _ClassVar[int]
    BROADCAST_TO_FIELD_NUMBER: _ClassVar[int]
    DIAGONAL_FIELD_NUMBER: _ClassVar[int]
    EXPAND_DIMS_FIELD_NUMBER: _ClassVar[int]
    HANDLE_FIELD_NUMBER: _ClassVar[int]
    RAVEL_FIELD_NUMBER: _ClassVar[int]
    RESHAPE_FIELD_NUMBER: _ClassVar[int]
    SQUEEZE_FIELD_NUMBER: _ClassVar[int]
    SWAPAXES_FIELD_NUMBER: _ClassVar[int]
    TRANSPOSE_FIELD_NUMBER: _ClassVar[int]
    VIEW_DTYPE_FIELD_NUMBER: _ClassVar[int]
    batch_handle: int
    broadcast_to: ViewRequest.BroadcastTo
    diagonal: ViewRequest.Diagonal
    expand_dims: ViewRequest.ExpandDims
    handle: str
    ravel: ViewRequest.Ravel
    reshape: ViewRequest.Reshape
    squeeze: ViewRequest.Squeeze
    swapaxes: ViewRequest.SwapAxes
    transpose: ViewRequest.Transpose
    view_dtype: ViewRequest.ViewDType
    def __init__(self, handle: _Optional[str] = ..., batch_handle: _Optional[int] = ..., reshape: _Optional[_Union[ViewRequest.Reshape, _Mapping]] = ..., transpose: _Optional[_Union[ViewRequest.Transpose, _Mapping]] = ..., swapaxes: _Optional[_Union[ViewRequest.SwapAxes, _Mapping]] = ..., squeeze: _Optional[_Union[ViewRequest.Squeeze, _Mapping]] = ..., expand_dims: _Optional[_Union[ViewRequest.ExpandDims, _Mapping]] = ..., broadcast_to: _Optional[_Union[ViewRequest.BroadcastTo, _Mapping]] = ..., diagonal: _Optional[_Union[ViewRequest.Diagonal, _Mapping]] = ..., ravel: _Optional[_Union[ViewRequest.Ravel, _Mapping]] = ..., view_dtype: _Optional[_Union[ViewRequest.ViewDType, _Mapping]] = ...) -> None: ...

class Precision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
