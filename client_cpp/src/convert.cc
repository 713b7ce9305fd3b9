#include "convert.h"

#include <limits>
#include <string>
#include <type_traits>

#include "pipeline.h"

namespace arrayhub::client::detail {

void ToProto(const Operand& operand, v1::Operand* out) {
  if (const auto* array = std::get_if<const Array*>(&operand.value())) {
    std::variant<std::string, int32_t> name = WireName(**array);
    if (auto* handle = std::get_if<std::string>(&name)) {
      out->set_handle(std::move(*handle));
    } else {
      out->set_batch_result(std::get<int32_t>(name));
    }
  } else if (const auto* step = std::get_if<Step>(&operand.value())) {
    out->set_batch_result(step->index());
  } else {
    ToProto(std::get<Scalar>(operand.value()), out->mutable_scalar());
  }
}

v1::Precision ToProto(Precision precision) {
  switch (precision) {
    case Precision::kHighest:
      return v1::PRECISION_HIGHEST;
    case Precision::kTF32:
      return v1::PRECISION_TF32;
    case Precision::kDefault:
      break;
  }
  return v1::PRECISION_DEFAULT;
}

v1::DType ToProto(DType dtype) { return static_cast<v1::DType>(dtype); }

v1::DType ToProto(std::optional<DType> dtype) {
  return dtype ? ToProto(*dtype) : v1::DTYPE_UNSPECIFIED;
}

void ToProto(const Scalar& scalar, v1::Scalar* out) {
  std::visit(
      [out](auto value) {
        using T = decltype(value);
        if constexpr (std::is_same_v<T, bool>) {
          out->set_bool_value(value);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out->set_int_value(value);
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          // The wire keeps uint_value for Python ints beyond int64; smaller ones are plain ints.
          if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            out->set_int_value(static_cast<int64_t>(value));
          } else {
            out->set_uint_value(value);
          }
        } else if constexpr (std::is_same_v<T, double>) {
          out->set_float_value(value);
        } else {
          out->mutable_complex_value()->set_real(value.real());
          out->mutable_complex_value()->set_imag(value.imag());
        }
      },
      scalar.value());
}

DType FromProto(v1::DType dtype) {
  if (dtype < v1::DTYPE_BOOL || dtype > v1::DTYPE_COMPLEX128) {
    throw Error(StatusCode::kInternal,
                "server sent dtype " + std::to_string(dtype) + ", unknown to this client");
  }
  return static_cast<DType>(dtype);
}

ArrayInfo FromProto(const v1::ArrayInfo& info) {
  ArrayInfo out;
  out.handle = info.handle();
  out.dtype = FromProto(info.dtype());
  out.shape.assign(info.shape().begin(), info.shape().end());
  out.strides.assign(info.strides().begin(), info.strides().end());
  out.offset_bytes = info.offset_bytes();
  out.nbytes = info.nbytes();
  out.device = info.device();
  out.device_index = info.device_index();
  out.owner = info.owner();
  out.name = info.name();
  out.c_contiguous = info.c_contiguous();
  out.f_contiguous = info.f_contiguous();
  out.owns_data = info.owns_data();
  out.base_handle = info.base_handle();
  out.writable = info.writable();
  return out;
}

ServerInfo FromProto(const v1::ServerInfo& info) {
  ServerInfo out;
  out.version = info.version();
  out.backend = info.backend();
  out.tenant = info.tenant();
  for (const v1::DeviceInfo& device : info.devices()) {
    out.devices.push_back({.name = device.name(),
                           .description = device.description(),
                           .total_memory_bytes = device.total_memory_bytes(),
                           .free_memory_bytes = device.free_memory_bytes(),
                           .bytes_in_use = device.bytes_in_use(),
                           .sessions = device.sessions()});
  }
  out.bytes_in_use = info.bytes_in_use();
  out.arrays = info.arrays();
  out.sessions = info.sessions();
  out.tenant_bytes_in_use = info.tenant_bytes_in_use();
  const v1::ServerLimits& limits = info.limits();
  out.limits = {.max_rank = limits.max_rank(),
                .max_array_bytes = limits.max_array_bytes(),
                .max_chunk_bytes = limits.max_chunk_bytes(),
                .default_chunk_bytes = limits.default_chunk_bytes(),
                .max_message_bytes = limits.max_message_bytes()};
  return out;
}

}  // namespace arrayhub::client::detail
