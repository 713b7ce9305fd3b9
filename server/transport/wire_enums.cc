// Compile-time checks that the wire's enums and the server's agree where code converts between
// them by number, so that renumbering either side fails the build instead of mislabelling data.
#include <grpcpp/support/status.h>

#include "absl/status/status.h"
#include "arrayhub/v1/types.pb.h"
#include "server/common/dtype.h"

namespace arrayhub {
namespace {

// DType is numbered as the wire's enum: DTypeFromWire (server/common/dtype.h) and
// ArrayInfoToProto (convert.cc) convert by number.
static_assert(static_cast<int>(DType::kBool) == v1::DTYPE_BOOL);
static_assert(static_cast<int>(DType::kInt8) == v1::DTYPE_INT8);
static_assert(static_cast<int>(DType::kInt16) == v1::DTYPE_INT16);
static_assert(static_cast<int>(DType::kInt32) == v1::DTYPE_INT32);
static_assert(static_cast<int>(DType::kInt64) == v1::DTYPE_INT64);
static_assert(static_cast<int>(DType::kUInt8) == v1::DTYPE_UINT8);
static_assert(static_cast<int>(DType::kUInt16) == v1::DTYPE_UINT16);
static_assert(static_cast<int>(DType::kUInt32) == v1::DTYPE_UINT32);
static_assert(static_cast<int>(DType::kUInt64) == v1::DTYPE_UINT64);
static_assert(static_cast<int>(DType::kFloat16) == v1::DTYPE_FLOAT16);
static_assert(static_cast<int>(DType::kFloat32) == v1::DTYPE_FLOAT32);
static_assert(static_cast<int>(DType::kFloat64) == v1::DTYPE_FLOAT64);
static_assert(static_cast<int>(DType::kComplex64) == v1::DTYPE_COMPLEX64);
static_assert(static_cast<int>(DType::kComplex128) == v1::DTYPE_COMPLEX128);
// No wire dtype lies past the last one DTypeFromWire accepts.
static_assert(v1::DType_MAX == static_cast<int>(DType::kComplex128));

// ToGrpcStatus (convert.cc) casts absl's status codes to gRPC's.
static_assert(static_cast<int>(absl::StatusCode::kOk) == grpc::StatusCode::OK);
static_assert(static_cast<int>(absl::StatusCode::kCancelled) == grpc::StatusCode::CANCELLED);
static_assert(static_cast<int>(absl::StatusCode::kUnknown) == grpc::StatusCode::UNKNOWN);
static_assert(static_cast<int>(absl::StatusCode::kInvalidArgument) ==
              grpc::StatusCode::INVALID_ARGUMENT);
static_assert(static_cast<int>(absl::StatusCode::kDeadlineExceeded) ==
              grpc::StatusCode::DEADLINE_EXCEEDED);
static_assert(static_cast<int>(absl::StatusCode::kNotFound) == grpc::StatusCode::NOT_FOUND);
static_assert(static_cast<int>(absl::StatusCode::kAlreadyExists) ==
              grpc::StatusCode::ALREADY_EXISTS);
static_assert(static_cast<int>(absl::StatusCode::kPermissionDenied) ==
              grpc::StatusCode::PERMISSION_DENIED);
static_assert(static_cast<int>(absl::StatusCode::kResourceExhausted) ==
              grpc::StatusCode::RESOURCE_EXHAUSTED);
static_assert(static_cast<int>(absl::StatusCode::kFailedPrecondition) ==
              grpc::StatusCode::FAILED_PRECONDITION);
static_assert(static_cast<int>(absl::StatusCode::kAborted) == grpc::StatusCode::ABORTED);
static_assert(static_cast<int>(absl::StatusCode::kOutOfRange) == grpc::StatusCode::OUT_OF_RANGE);
static_assert(static_cast<int>(absl::StatusCode::kUnimplemented) ==
              grpc::StatusCode::UNIMPLEMENTED);
static_assert(static_cast<int>(absl::StatusCode::kInternal) == grpc::StatusCode::INTERNAL);
static_assert(static_cast<int>(absl::StatusCode::kUnavailable) == grpc::StatusCode::UNAVAILABLE);
static_assert(static_cast<int>(absl::StatusCode::kDataLoss) == grpc::StatusCode::DATA_LOSS);
static_assert(static_cast<int>(absl::StatusCode::kUnauthenticated) ==
              grpc::StatusCode::UNAUTHENTICATED);

}  // namespace
}  // namespace arrayhub
