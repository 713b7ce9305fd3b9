#include "server/common/float16.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace arrayhub {

Imath::half HalfFromDouble(double value) {
  if (std::isnan(value)) return Imath::half(static_cast<float>(value));
  float rounded = static_cast<float>(value);  // Round to nearest; may overshoot |value|.
  if (static_cast<double>(rounded) != value) {
    if (std::fabs(static_cast<double>(rounded)) > std::fabs(value)) {
      rounded = std::nextafter(rounded, 0.0f);  // Now truncated toward zero.
    }
    uint32_t bits;
    std::memcpy(&bits, &rounded, sizeof bits);
    bits |= 1;  // Inexact: make it odd.
    std::memcpy(&rounded, &bits, sizeof bits);
  }
  return Imath::half(rounded);
}

}  // namespace arrayhub
