// Conversions between the public client types and the wire messages.
#pragma once

#include "arrayhub/client.h"
#include "arrayhub/v1/arrays.pb.h"
#include "arrayhub/v1/compute.pb.h"
#include "arrayhub/v1/types.pb.h"

namespace arrayhub::client::detail {

v1::DType ToProto(DType dtype);
// The dtype of a wire value; nullopt (unset) maps to DTYPE_UNSPECIFIED.
v1::DType ToProto(std::optional<DType> dtype);
void ToProto(const Scalar& scalar, v1::Scalar* out);
// An array operand as its handle (a result queued in the pipeline as its batch result, see
// WireName), a scalar as a weak Scalar, a batch step as a batch result.
void ToProto(const Operand& operand, v1::Operand* out);
v1::Precision ToProto(Precision precision);
// Throws kInternal for a dtype this client does not know (a newer server).
DType FromProto(v1::DType dtype);
ArrayInfo FromProto(const v1::ArrayInfo& info);
ServerInfo FromProto(const v1::ServerInfo& info);

}  // namespace arrayhub::client::detail
