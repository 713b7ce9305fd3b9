// User kernels (CuPy's ElementwiseKernel and ReductionKernel) in a safe subset of CUDA C: the
// source a client sends, the types one call binds, and the checked program every backend runs.
// Nothing here touches memory: the language has no pointers, and raw parameters are read and
// written only through indexing that the backends bound-check. docs/user-kernels.md is the
// language's reference.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "server/common/dtype.h"
#include "server/common/scalar.h"

namespace arrayhub::kernel {

enum class KernelKind : uint8_t { kElementwise, kReduction };

// A kernel as the client defines it: CuPy's constructor arguments, verbatim.
struct KernelSource {
  KernelKind kind = KernelKind::kElementwise;
  std::string in_params;      // "T x, raw T y, float32 alpha"
  std::string out_params;     // "T z"
  std::string operation;      // Elementwise: statements run once per element index i.
  std::string map_expr;       // Reduction: the value element i contributes.
  std::string reduce_expr;    // Reduction: combines a and b.
  std::string post_map_expr;  // Reduction: statements assigning the outputs from a.
  std::string identity;       // Reduction: a with nothing reduced yet; empty when none.
  std::string reduce_type;    // Reduction: the type of a and b; empty: the first output's.
  std::string preamble;       // __device__ functions the bodies may call.
  std::string name;           // An identifier naming the kernel in messages and profiles.
};

// One parameter after binding: its declared type resolved to a dtype.
struct Parameter {
  std::string name;
  std::string declared_type;  // As written: a dtype name ("float32", "int64") or a placeholder.
  DType dtype = DType::kFloat32;
  bool raw = false;     // Indexed explicitly (x[k], x.size()), not element i.
  bool output = false;  // An out_params entry.
  bool scalar = false;  // An input bound to a scalar argument: one value for every index.
};

// What one call binds: per input parameter, the argument's dtype and whether it is an array
// (else a scalar: a Python value whose dtype is DefaultDType's unless the parameter's declared
// type fixes it); per output parameter, the dtype of the array given with out=, if any.
// Placeholders resolve from array arguments first, then scalars, then out= arrays, as CuPy's.
struct ArgumentTypes {
  struct Input {
    DType dtype = DType::kFloat32;
    bool array = true;
  };
  std::vector<Input> inputs;
  std::vector<std::optional<DType>> outputs;
};

struct Program;  // The checked tree: program.h.

// A kernel checked against one binding. Immutable: shared by every session and thread.
class CheckedKernel {
 public:
  ~CheckedKernel();
  CheckedKernel(const CheckedKernel&) = delete;
  CheckedKernel& operator=(const CheckedKernel&) = delete;

  KernelKind kind() const;
  const std::string& name() const;
  // Inputs (in_params' order), then outputs (out_params' order), each resolved.
  const std::vector<Parameter>& parameters() const;
  int input_count() const;
  // Reduction: the type of a and b.
  DType reduce_type() const;
  // The checked tree, with every expression's type resolved: what the backends run.
  const Program& program() const;
  // Identifies the checked program and its binding: equal keys, equal kernels. For caches.
  const std::string& key() const;
  // An upper bound of the operations one element index costs, loops' trip counts multiplied
  // in, given the values of the scalar arguments (in parameter order, one per scalar input;
  // loop bounds may name them) and the sizes of the raw arguments (one per raw parameter, in
  // parameter order). Saturates at INT64_MAX; core charges it times the element count.
  int64_t WorkPerElement(absl::Span<const Scalar> scalars,
                         absl::Span<const int64_t> raw_sizes) const;

 private:
  friend absl::StatusOr<std::shared_ptr<const CheckedKernel>> CheckKernel(
      const KernelSource& source, const ArgumentTypes& types);
  struct State;
  explicit CheckedKernel(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Parses and type-checks `source` for `types`. Every refusal is INVALID_ARGUMENT and names the
// part ("operation", "preamble", "in_params", ...), the line and the column, e.g.
// "operation:3:7: unknown function 'system'". Bounded work: sources, trees, nesting, locals
// and functions have limits (limits.h), checked before anything grows past them.
absl::StatusOr<std::shared_ptr<const CheckedKernel>> CheckKernel(const KernelSource& source,
                                                                 const ArgumentTypes& types);

}  // namespace arrayhub::kernel
