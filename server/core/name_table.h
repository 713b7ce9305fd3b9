// Lookups in constant tables of (enum value, NumPy name) pairs: how ops are named on the wire.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace arrayhub {

template <typename Op, size_t N>
std::optional<Op> FromName(const std::pair<Op, std::string_view> (&names)[N],
                           std::string_view name) {
  for (const auto& [op, op_name] : names) {
    if (op_name == name) return op;
  }
  return std::nullopt;
}

template <typename Op, size_t N>
std::string_view NameOf(const std::pair<Op, std::string_view> (&names)[N], Op op) {
  for (const auto& [candidate, name] : names) {
    if (candidate == op) return name;
  }
  return "?";
}

}  // namespace arrayhub
