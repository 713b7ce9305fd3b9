// CpuCompute::FillRandom: a std::mt19937_64 seeded with the call's seed, its 64-bit draws
// mapped to values by the explicit arithmetic below rather than by the std distributions, whose
// algorithms differ between standard libraries: the values depend only on the seed, the dtype
// and the element index.
//  - uniform: u = (top 53 bits of a draw) / 2^53 in [0, 1); low + (high - low) * u in double,
//    rounded to the dtype, then clamped to the dtype's values in [low, high), since rounding
//    (to float32 or float16 especially) can reach high itself.
//  - normal: Box-Muller on pairs of uniforms; each pair gives two values.
//  - integers: r uniform in [0, high - low) without bias by rejection: draws below
//    2^64 mod (high - low), the surplus that would favour small remainders, are redrawn (as
//    OpenBSD's arc4random_uniform); the value is low + r.
//  - the other distributions: random_samplers.h's algorithms on the same stream, with the
//    uniform above and one Box-Muller value per normal.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>

#include "server/backend/host/host_parts.h"
#include "server/backend/host/host_queue.h"
#include "server/backend/host/host_types.h"
#include "server/backend/random_samplers.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace host {
namespace {

std::string_view DistributionName(RandomDistribution distribution) {
  switch (distribution) {
    case RandomDistribution::kUniform:
      return "uniform";
    case RandomDistribution::kNormal:
      return "normal";
    case RandomDistribution::kIntegers:
      return "integers";
    default:
      break;
  }
  return "distribution";
}

// Uniform in [0, 1) with the 53 bits a double holds.
double UnitInterval(std::mt19937_64& engine) {
  return static_cast<double>(engine() >> 11) * 0x1.0p-53;
}

template <typename T>
double ToDouble(T x) {
  return static_cast<double>(static_cast<MathType<T>>(x));
}

// The next representable value of T above (up) or below x.
template <typename T>
T Next(T x, bool up) {
  if constexpr (std::is_same_v<T, Half>) {
    // Sign-magnitude bits: away from zero is +1, toward zero -1; zero steps to the smallest
    // subnormal of the direction's sign.
    const uint16_t bits = x.bits();
    Half next;
    if ((bits & 0x7fff) == 0) {
      next.setBits(up ? 0x0001 : 0x8001);
    } else {
      const bool away_from_zero = up == ((bits & 0x8000) == 0);
      next.setBits(static_cast<uint16_t>(away_from_zero ? bits + 1 : bits - 1));
    }
    return next;
  } else {
    return std::nextafter(
        x, up ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity());
  }
}

// low + (high - low) * u, also when high - low exceeds the double range.
double Lerp(double low, double high, double u) {
  const double span = high - low;
  if (std::isfinite(span)) return low + span * u;
  return 2 * (low / 2 + (high / 2 - low / 2) * u);
}

template <typename T>
absl::Status FillUniform(T* out, int64_t count, double low, double high, std::mt19937_64& engine) {
  if (!(std::isfinite(low) && std::isfinite(high) && low < high)) {
    return absl::InvalidArgumentError(
        fmt::format("uniform bounds must be finite with low < high, got [{}, {})", low, high));
  }
  // The smallest T >= low and the largest T < high.
  T lowest = Convert<T>(low);
  if (ToDouble(lowest) < low) lowest = Next(lowest, true);
  T highest = Convert<T>(high);
  if (ToDouble(highest) >= high) highest = Next(highest, false);
  if (!(ToDouble(lowest) <= ToDouble(highest))) {
    return absl::InvalidArgumentError(
        fmt::format("no {} value lies in [{}, {})", DTypeName(DTypeOf<T>()), low, high));
  }
  for (int64_t i = 0; i < count; ++i) {
    const T value = Convert<T>(Lerp(low, high, UnitInterval(engine)));
    if (ToDouble(value) < ToDouble(lowest)) {
      out[i] = lowest;
    } else if (ToDouble(value) > ToDouble(highest)) {
      out[i] = highest;
    } else {
      out[i] = value;
    }
  }
  return absl::OkStatus();
}

template <typename T>
void FillNormal(T* out, int64_t count, double mean, double stddev, std::mt19937_64& engine) {
  for (int64_t i = 0; i < count; i += 2) {
    const double radius = std::sqrt(-2 * std::log(1 - UnitInterval(engine)));  // 1 - u > 0.
    const double angle = 2 * std::numbers::pi * UnitInterval(engine);
    out[i] = Convert<T>(mean + stddev * radius * std::cos(angle));
    if (i + 1 < count) out[i + 1] = Convert<T>(mean + stddev * radius * std::sin(angle));
  }
}

// random_samplers.h's Source on the call's stream.
class EngineSource {
 public:
  explicit EngineSource(std::mt19937_64& engine) : engine_(engine) {}
  double Uniform() { return UnitInterval(engine_); }
  double Normal() {
    const double radius = std::sqrt(-2 * std::log(1 - UnitInterval(engine_)));
    return radius * std::cos(2 * std::numbers::pi * UnitInterval(engine_));
  }

 private:
  std::mt19937_64& engine_;
};

template <typename T>
void FillDistribution(T* out, int64_t count, const RandomCall& call, std::mt19937_64& engine) {
  EngineSource source(engine);
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_same_v<T, int64_t>) {
      out[i] = samplers::Count(source, call.distribution, call.int_high, call.low, call.high);
    } else {
      out[i] = Convert<T>(samplers::Real(source, call.distribution, call.low, call.high));
    }
  }
}

template <typename T>
absl::Status FillIntegers(T* out, int64_t count, int64_t low, int64_t high,
                          std::mt19937_64& engine) {
  if (high <= low) {
    return absl::InvalidArgumentError(
        fmt::format("integers need low < high, got [{}, {})", low, high));
  }
  // Unsigned arithmetic: the range and low + r wrap exactly where int64 would overflow.
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  const uint64_t reject_below = (0 - range) % range;  // 2^64 mod range.
  for (int64_t i = 0; i < count; ++i) {
    uint64_t draw = engine();
    while (draw < reject_below) draw = engine();
    out[i] = Convert<T>(static_cast<int64_t>(static_cast<uint64_t>(low) + draw % range));
  }
  return absl::OkStatus();
}

absl::Status FillRandom(const RandomCall& call) {
  int64_t count = 1;
  for (int64_t extent : call.output.shape) count *= extent;
  std::mt19937_64 engine(call.seed);
  void* const data = static_cast<std::byte*>(call.output.buffer->data()) + call.output.offset_bytes;
  return VisitDType(call.output.dtype, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    T* const out = static_cast<T*>(data);
    switch (call.distribution) {
      case RandomDistribution::kUniform:
        if constexpr (kIsReal<T>) return FillUniform(out, count, call.low, call.high, engine);
        break;
      case RandomDistribution::kNormal:
        if constexpr (kIsReal<T>) {
          FillNormal(out, count, call.low, call.high, engine);
          return absl::OkStatus();
        }
        break;
      case RandomDistribution::kIntegers:
        if constexpr (!kIsReal<T> && !kIsComplex<T>) {
          return FillIntegers(out, count, call.int_low, call.int_high, engine);
        }
        break;
      default:
        if constexpr (kIsReal<T> || std::is_same_v<T, int64_t>) {
          if (samplers::IsCount(call.distribution) == std::is_same_v<T, int64_t>) {
            FillDistribution(out, count, call, engine);
            return absl::OkStatus();
          }
        }
        break;
    }
    return absl::InvalidArgumentError(fmt::format("the host backend draws no {} values of {}",
                                                  DistributionName(call.distribution),
                                                  DTypeName(call.output.dtype)));
  });
}

}  // namespace
}  // namespace host

absl::Status CpuCompute::FillRandom(QueueBinding& queue, const RandomCall& call) {
  AH_ASSIGN_OR_RETURN(const HostCall held, HostCall::Enter(queue));
  return host::FillRandom(call);
}

}  // namespace arrayhub
