// Validation of creation requests and the fill steps that realise them on a backend.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "server/backend/backend.h"
#include "server/backend/compute.h"
#include "server/common/dtype.h"
#include "server/common/scalar.h"
#include "server/common/shape.h"
#include "server/core/limits.h"
#include "server/core/shape_limits.h"

namespace arrayhub {

struct EmptyKind {};
struct ZerosKind {};
struct OnesKind {};
struct FullKind {
  Scalar value{};
};
struct ArangeKind {
  Scalar start{};
  Scalar stop{};
  std::optional<Scalar> step = std::nullopt;  // Unset: 1.
};
struct LinspaceKind {
  Scalar start{};
  Scalar stop{};
  int64_t num = 50;
  bool endpoint = true;
};
struct RandomKind {
  RandomDistribution distribution = RandomDistribution::kUniform;
  double low = 0.0;  // As RandomCall's fields (server/backend/compute.h).
  double high = 1.0;
  int64_t int_low = 0;
  int64_t int_high = 0;
  std::optional<uint64_t> seed;  // Unset: a fresh seed from the kernel's entropy source.
};
// Elements the client sent (CreateRequest.data): C order, little-endian. The bytes are the
// request's, borrowed: the spec lives no longer than the request it was decoded from.
struct DataKind {
  std::string_view bytes;
};
struct EyeKind {
  int64_t n = 0;
  std::optional<int64_t> m;
  int64_t k = 0;
};

// A creation request after decoding, before validation.
struct CreateSpec {
  std::optional<DType> dtype;  // Unset: NumPy's default for the kind.
  Shape shape;
  std::variant<EmptyKind, ZerosKind, OnesKind, FullKind, ArangeKind, LinspaceKind, EyeKind,
               RandomKind, DataKind>
      kind;
};

// Writes `pattern` count times from byte `offset`, stride_bytes apart (DeviceMemory::FillPattern).
struct PatternFill {
  int64_t offset = 0;
  int64_t count = 0;
  int64_t stride_bytes = 0;
  ElementBytes pattern{};
  int64_t pattern_size = 0;
};
// Pseudo-random values over the whole array (ComputeKernels::FillRandom, output view added by the
// engine).
struct RandomFill {
  RandomCall call;
};
// The client's bytes copied in from byte 0 (DeviceMemory::CopyFromHost); borrowed as DataKind's.
struct HostBytesFill {
  std::span<const std::byte> bytes;
};
using FillStep = std::variant<PatternFill, AffineFill, RandomFill, HostBytesFill>;

// What to allocate and how to fill it, in order.
struct CreationPlan {
  DType dtype = DType::kFloat64;
  Shape shape;
  int64_t nbytes = 0;
  std::vector<FillStep> steps;
};

// Checks the request completely (shape, dtype, values, limits) and derives the result's
// dtype and shape with NumPy's rules. Nothing is allocated.
absl::StatusOr<CreationPlan> PlanCreation(const CreateSpec& spec, const Limits& limits);

}  // namespace arrayhub
