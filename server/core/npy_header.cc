#include "server/core/npy_header.h"

#include <fmt/format.h>

#include <bit>

namespace arrayhub {

// The data is written as the backend holds it: in the host's byte order, which "<" names.
static_assert(std::endian::native == std::endian::little, "the .npy descr assumes little-endian");

std::string NpyDescr(DType dtype) {
  const int64_t size = ItemSize(dtype);
  return fmt::format("{}{}{}", size == 1 ? '|' : '<', KindLetter(KindOf(dtype)), size);
}

std::string NpyHeader(DType dtype, const Shape& shape) {
  std::string dims;
  for (int64_t dim : shape) dims += fmt::format("{}, ", dim);
  // A tuple: "()", "(3,)", "(3, 4)".
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  if (shape.size() == 1) dims.pop_back();
  std::string dictionary = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                       NpyDescr(dtype), dims);
  // Magic (6) + version (2) + length (2) + dictionary + newline, to a multiple of 64.
  constexpr size_t kPreamble = 10;
  const size_t unpadded = kPreamble + dictionary.size() + 1;
  dictionary.append((64 - unpadded % 64) % 64, ' ');
  dictionary.push_back('\n');
  std::string header("\x93NUMPY\x01\x00", 8);
  header.push_back(static_cast<char>(dictionary.size() & 0xff));
  header.push_back(static_cast<char>(dictionary.size() >> 8));
  return header + dictionary;
}

}  // namespace arrayhub
