// The whitelisted math functions: their names (with the float forms sqrtf, powf, ... of the
// C library), and the argument and result types of a call.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "server/common/dtype.h"
#include "server/kernel/program.h"

namespace arrayhub::kernel {

struct MathName {
  MathFn fn;
  bool float_form;  // sqrtf, powf, ...: arguments convert to float32 and the result is float32.
};
std::optional<MathName> FindMathFunction(std::string_view name);

struct MathTypes {
  std::vector<DType> arguments;  // What each argument converts to.
  DType result;
};
// The types of a call of `name` with arguments of `given` types; throws KernelError at `pos`
// when the function does not take them.
MathTypes TypeMathCall(MathName name, std::string_view spelled, const std::vector<DType>& given,
                       SourcePos pos);

}  // namespace arrayhub::kernel
