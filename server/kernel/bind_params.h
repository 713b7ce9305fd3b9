// in_params and out_params: parsed ("raw T x, float32 y"), then bound to one call's argument
// types, placeholders resolving as CuPy's do (arrays first, then scalars, then out=).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "server/kernel/checked_kernel.h"

namespace arrayhub::kernel {

struct BoundParameters {
  std::vector<Parameter> parameters;  // Inputs, then outputs.
  int input_count = 0;
  std::map<std::string, DType> placeholders;
};

// Throws KernelError. `token_budget` as Tokenize's.
BoundParameters BindParameters(std::string_view in_params, std::string_view out_params,
                               const ArgumentTypes& types, int64_t& token_budget);

}  // namespace arrayhub::kernel
