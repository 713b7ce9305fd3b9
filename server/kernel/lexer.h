// Splits one part of a kernel's source into tokens: identifiers, numbers and punctuators.
// Comments go; strings, characters and preprocessor lines are refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/common/dtype.h"
#include "server/kernel/program.h"

namespace arrayhub::kernel {

struct Token {
  enum class Kind : uint8_t { kIdentifier, kInteger, kFloat, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // As written (for numbers: without the suffix).
  SourcePos pos;
  DType dtype = DType::kInt32;  // kInteger, kFloat: the literal's C type.
  uint64_t int_value = 0;
  double float_value = 0;
};

// The tokens of `source` (part `part`), ending with one kEnd. `token_budget` is what is left
// of kMaxTokens for all parts; it shrinks by the tokens made.
std::vector<Token> Tokenize(std::string_view source, Part part, int64_t& token_budget);

}  // namespace arrayhub::kernel
