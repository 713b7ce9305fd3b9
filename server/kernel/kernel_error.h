// How the checker refuses a kernel: it throws KernelError at the first problem, and CheckKernel
// turns it into INVALID_ARGUMENT "PART:LINE:COL: message".
#pragma once

#include <string>

#include "server/kernel/program.h"

namespace arrayhub::kernel {

struct KernelError {
  SourcePos pos;
  std::string message;
};

[[noreturn]] inline void Fail(SourcePos pos, std::string message) {
  throw KernelError{pos, std::move(message)};
}

}  // namespace arrayhub::kernel
