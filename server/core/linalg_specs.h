// Matrix-product and numpy.linalg requests after decoding, before validation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/backend/linalg.h"
#include "server/core/compute_specs.h"

namespace arrayhub {

// numpy.matmul. A Python scalar operand is a 0-d array of its default dtype, which matmul
// refuses as NumPy does.
struct MatmulSpec {
  OperandSpec a;
  OperandSpec b;
  bool transpose_a = false;  // The last two axes swapped (a view, no copy).
  bool transpose_b = false;
  bool conjugate_a = false;  // Complex operands conjugated (no effect on real ones).
  bool conjugate_b = false;
  std::string out = {};  // Handle of an existing array to write into; empty: a new array.
  std::optional<MatmulPrecision> precision = std::nullopt;  // Absent: the session's choice.
};

enum class TensorProductOp : uint8_t { kDot, kVdot, kInner, kOuter, kTensordot };

// numpy.dot, vdot, inner, outer and tensordot. Python scalars are 0-d arrays of their default
// dtype (NumPy converts them with asarray: dot(float32 array, 2.0) is float64).
struct TensorProductSpec {
  TensorProductOp op = TensorProductOp::kDot;
  OperandSpec a;
  OperandSpec b;
  int64_t axes = 2;  // tensordot: the number of axes contracted.
  std::string out;
  std::optional<MatmulPrecision> precision;
};

// One enumerator per row of linalg_ops.def.
enum class LinalgOp : uint8_t {
#define AH_LINALG_OP(enumerator, ...) k##enumerator,
#include "server/core/linalg_ops.def"
#undef AH_LINALG_OP
};

// numpy.linalg.<op>. Option strings are validated by core with NumPy's messages.
struct LinalgSpec {
  LinalgOp op = LinalgOp::kSvd;
  std::vector<OperandSpec> operands;  // solve and lstsq take (a, b); the others one array.
  bool full_matrices = true;          // svd
  bool compute_uv = true;             // svd
  std::string mode;                   // qr: "reduced" (also ""), "complete", "r".
  std::string uplo;                   // eigh, eigvalsh, cholesky: "L" (also "") or "U".
  std::string ord;                    // norm: "" (None), "fro", "nuc", "inf", "-inf", "2", ...
  std::optional<std::vector<int64_t>> axes;  // norm: absent means axis=None.
  bool keepdims = false;                     // norm
  double rcond = -1;                         // lstsq
};

}  // namespace arrayhub
