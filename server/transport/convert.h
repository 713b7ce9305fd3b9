// Conversions between wire messages and core types. Decoding validates what the wire format
// alone cannot express (enum ranges, unset oneofs) and names the offending field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "arrayhub/v1/service.pb.h"
#include "grpcpp/support/status.h"
#include "server/common/dtype.h"
#include "server/common/scalar.h"
#include "server/core/array_record.h"
#include "server/core/batch_runner.h"
#include "server/core/compute_specs.h"
#include "server/core/creation.h"
#include "server/core/fft_rules.h"
#include "server/core/linalg_specs.h"
#include "server/core/manipulation_specs.h"
#include "server/core/session_manager.h"
#include "server/core/user_kernel_rules.h"

namespace arrayhub {

// absl and gRPC share the canonical code numbers; the message is kept as is.
grpc::Status ToGrpcStatus(const absl::Status& status);

// A time on the server's steady clock (a lease's expiry) as Unix milliseconds, for clients.
int64_t UnixMillis(Clock::time_point steady);

// A dtype field that must be set.
absl::StatusOr<DType> RequiredDType(int wire_value, std::string_view field);
// A dtype field where unspecified means "choose": nullopt.
absl::StatusOr<std::optional<DType>> OptionalDType(int wire_value, std::string_view field);

absl::StatusOr<Scalar> ScalarFromProto(const v1::Scalar& scalar, std::string_view field);

template <typename RepeatedInt64>
Shape ShapeFromProto(const RepeatedInt64& extents) {
  return Shape(extents.begin(), extents.end());
}

// The handle of op `op`'s result, named by `field` (batch_handle, out_batch_result, ...).
absl::StatusOr<std::string> BatchHandleFromProto(int64_t op, std::string_view field,
                                                 const BatchResults* batch);
// The array a CopyToDeviceRequest copies: its handle, or in a Batch its batch_handle's.
absl::StatusOr<std::string> CopyToDeviceHandleFromProto(const v1::CopyToDeviceRequest& request,
                                                        const BatchResults* batch);
absl::StatusOr<OperandSpec> OperandFromProto(const v1::Operand& operand, std::string_view field,
                                             const BatchResults* batch = nullptr);
// A request's `operands`, each named operands[i] in messages.
absl::StatusOr<std::vector<OperandSpec>> OperandsFromProto(
    const google::protobuf::RepeatedPtrField<v1::Operand>& operands, const BatchResults* batch);
// An AxisList field: nullopt when absent (NumPy's axis=None).
std::optional<std::vector<int64_t>> AxesFromProto(bool present, const v1::AxisList& axes);

absl::StatusOr<CreateSpec> CreateSpecFromProto(const v1::CreateRequest& request);
absl::StatusOr<ElementwiseSpec> ElementwiseSpecFromProto(const v1::ElementwiseRequest& request,
                                                         const BatchResults* batch = nullptr);
absl::StatusOr<ReduceSpec> ReduceSpecFromProto(const v1::ReduceRequest& request,
                                               const BatchResults* batch = nullptr);
absl::StatusOr<MatmulSpec> MatmulSpecFromProto(const v1::MatmulRequest& request,
                                               const BatchResults* batch = nullptr);
absl::StatusOr<TensorProductSpec> TensorProductSpecFromProto(
    const v1::TensorProductRequest& request, const BatchResults* batch = nullptr);
absl::StatusOr<LinalgSpec> LinalgSpecFromProto(const v1::LinalgRequest& request,
                                               const BatchResults* batch = nullptr);
absl::StatusOr<FftSpec> FftSpecFromProto(const v1::FftRequest& request,
                                         const BatchResults* batch = nullptr);
// kernel_rpcs.cc
absl::StatusOr<RunKernelSpec> RunKernelSpecFromProto(const v1::RunKernelRequest& request,
                                                     const BatchResults* batch = nullptr);
// convert_manipulation.cc
absl::StatusOr<ViewSpec> ViewSpecFromProto(const v1::ViewRequest& request,
                                           const BatchResults* batch = nullptr);
absl::StatusOr<GetItemSpec> GetItemSpecFromProto(const v1::GetItemRequest& request,
                                                 const BatchResults* batch = nullptr);
absl::StatusOr<SetItemSpec> SetItemSpecFromProto(const v1::SetItemRequest& request);
absl::StatusOr<ArrayOpSpec> ArrayOpSpecFromProto(const v1::ArrayOpRequest& request,
                                                 const BatchResults* batch = nullptr);

void ArrayInfoToProto(const ArrayRecord& record, std::string_view device, v1::ArrayInfo* info);

}  // namespace arrayhub
