// Elementwise and reduction requests after decoding, before validation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/common/dtype.h"
#include "server/common/ops.h"
#include "server/common/scalar.h"

namespace arrayhub {

// An operand: an array handle (as sent, validated later) or a weak Python scalar; inside an
// elementwise chain (Engine::ElementwiseChain) also the result of an earlier op of the chain.
struct OperandSpec {
  std::optional<std::string> handle = std::nullopt;
  std::optional<Scalar> scalar = std::nullopt;
  std::optional<int64_t> chain_value = std::nullopt;  // That op's index in the chain.
};

struct ElementwiseSpec {
  ElementwiseOp op = ElementwiseOp::kAdd;
  std::vector<OperandSpec> operands = {};
  std::string out = {};  // Handle of an existing array to write into; empty: a new array.
  std::optional<DType> dtype = std::nullopt;  // NumPy's dtype= argument.
};

struct ReduceSpec {
  ReduceOp op = ReduceOp::kSum;
  std::string input = {};                                   // Handle.
  std::optional<std::vector<int64_t>> axes = std::nullopt;  // Absent: all axes.
  bool keepdims = false;
  std::optional<DType> dtype = std::nullopt;
  double ddof = 0;       // NumPy's any real (an int64 from the wire's ddof is exact up to 2^53).
  std::string out = {};  // Handle of an existing array to write into; empty: a new array.
};

}  // namespace arrayhub
