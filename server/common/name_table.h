// Lookups in constant tables of pairs: an enum's names (how ops are named on the wire and in
// generated code), or one enum's values as another's. A table is data a reader checks row by
// row, where a switch of the same rows would be twice the lines; keep each table complete
// (a test or a static_assert on its size says so where the enum can grow).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace arrayhub {

// The second of the first pair whose first is `key`, if any.
template <typename Key, typename Value, size_t N>
constexpr std::optional<Value> LookUp(const std::pair<Key, Value> (&pairs)[N], const Key& key) {
  for (const auto& [candidate, value] : pairs) {
    if (candidate == key) return value;
  }
  return std::nullopt;
}

// The first of the first pair whose second is `value`, if any.
template <typename Key, typename Value, size_t N>
constexpr std::optional<Key> LookUpKey(const std::pair<Key, Value> (&pairs)[N],
                                       const Value& value) {
  for (const auto& [key, candidate] : pairs) {
    if (candidate == value) return key;
  }
  return std::nullopt;
}

template <typename Op, size_t N>
constexpr std::optional<Op> FromName(const std::pair<Op, std::string_view> (&names)[N],
                                     std::string_view name) {
  return LookUpKey(names, name);
}

// `op`'s name; "?" for a value the table lacks.
template <typename Op, size_t N>
constexpr std::string_view NameOf(const std::pair<Op, std::string_view> (&names)[N], Op op) {
  return LookUp(names, op).value_or("?");
}

}  // namespace arrayhub
