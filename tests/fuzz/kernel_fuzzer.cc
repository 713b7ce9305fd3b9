// Feeds arbitrary kernels to the kernel language's checker (CheckKernel) and runs what it
// accepts on the host backend's evaluator over small arrays, as core would: only when the
// work it would charge is small.
//
// Input: byte 0 picks the kind (even: elementwise, odd: reduction); bytes 1..8 describe the
// arguments, one per input parameter (low 4 bits: the dtype, kAllDTypes[b % 14]; bit 7: a
// scalar, not an array); then the kernel's text parts separated by 0x1e: in_params,
// out_params, operation (map_expr for reductions), preamble, reduce_expr, post_map_expr,
// identity, reduce_type. The element bytes of every array repeat the input; every scalar is
// the input's first byte modulo 128.
// The input fails (aborts) when a refusal is not INVALID_ARGUMENT with a "part:line:col: "
// prefix, or when running fails other than with a raw index out of range.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/kernel/checked_kernel.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

using kernel::ArgumentTypes;
using kernel::KernelKind;
using kernel::KernelSource;

constexpr int64_t kMaxWork = 200'000;  // Operations one input may run.

void Require(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "kernel_fuzzer: %s\n", what.c_str());
    std::abort();
  }
}

// The parameters a list declares: its commas plus one, as the checker will count them.
size_t Count(std::string_view list) {
  if (list.find_first_not_of(" \t\n") == std::string_view::npos) return 0;
  size_t count = 1;
  for (char c : list) count += c == ',';
  return count;
}

bool PrefixIsPosition(std::string_view message) {
  // "part:line:col: ..."
  const size_t first = message.find(':');
  if (first == std::string_view::npos || first == 0) return false;
  size_t at = first + 1;
  for (int field = 0; field < 2; ++field) {
    const size_t start = at;
    while (at < message.size() && message[at] >= '0' && message[at] <= '9') ++at;
    if (at == start || at >= message.size() || message[at] != ':') return false;
    ++at;
  }
  return at < message.size() && message[at] == ' ';
}

class Runner {
 public:
  explicit Runner(std::string_view fill) : fill_(fill.empty() ? std::string_view("\1") : fill) {}

  ArrayView Array(DType dtype, Shape shape) {
    int64_t n = 1;
    for (int64_t e : shape) n *= e;
    const int64_t bytes = n * ItemSize(dtype);
    auto buffer = backend_.memory().Allocate(TestQueue(backend_), bytes);
    Require(buffer.ok(), "allocation failed");
    auto* data = static_cast<char*>((*buffer)->data());
    for (int64_t k = 0; k < bytes; ++k) data[k] = fill_[k % fill_.size()];
    buffers_.push_back(*buffer);
    Strides strides(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    return ArrayView{buffer->get(), 0, dtype, std::move(shape), std::move(strides)};
  }

  void Run(const std::shared_ptr<const kernel::CheckedKernel>& checked) {
    const bool reduction = checked->kind() == KernelKind::kReduction;
    const Shape shape = reduction ? Shape{2, 3} : Shape{4};
    std::vector<UserKernelArgument> arguments;
    std::vector<Scalar> scalars;
    std::vector<int64_t> raw_sizes;
    for (const kernel::Parameter& p : checked->parameters()) {
      UserKernelArgument argument;
      if (p.scalar) {
        // The value the work is charged for is the value that runs: 0..127 fits every dtype.
        const Scalar value = Scalar::Int(static_cast<unsigned char>(fill_[0]) & 0x7f);
        absl::StatusOr<ElementBytes> bytes = EncodeScalar(value, p.dtype);
        Require(bytes.ok(), "EncodeScalar failed: " + bytes.status().ToString());
        argument.kind = UserKernelArgument::Kind::kScalar;
        argument.scalar = *bytes;
        scalars.push_back(value);
      } else if (p.raw) {
        argument.kind = UserKernelArgument::Kind::kRaw;
        argument.view = Array(p.dtype, {5});
        raw_sizes.push_back(5);
      } else {
        argument.kind = UserKernelArgument::Kind::kArray;
        argument.view = Array(p.dtype, p.output && reduction ? Shape{2} : shape);
      }
      arguments.push_back(std::move(argument));
    }
    const int64_t work = checked->WorkPerElement(scalars, raw_sizes);
    if (work > kMaxWork / 6) return;  // Core would charge it; nothing new to find here.
    auto prepared = backend_.user_kernels().PrepareUserKernel(checked);
    Require(prepared.ok(), "PrepareUserKernel failed: " + prepared.status().ToString());
    const UserKernelCall call{checked, *prepared, shape,
                              reduction ? std::vector<int64_t>{1} : std::vector<int64_t>{},
                              std::move(arguments)};
    const absl::Status status = backend_.user_kernels().RunUserKernel(TestQueue(backend_), call);
    Require(status.ok() || (status.code() == absl::StatusCode::kInvalidArgument &&
                            status.message().find("is out of bounds for raw parameter") !=
                                std::string_view::npos),
            "RunUserKernel failed: " + status.ToString());
  }

 private:
  std::string_view fill_;
  HostBackend backend_{int64_t{64} << 20};
  std::vector<std::shared_ptr<Buffer>> buffers_;
};

}  // namespace
}  // namespace arrayhub

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arrayhub;
  if (size < 9) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  std::string_view text = input.substr(9);
  while (parts.size() < 8) {
    const size_t end = text.find('\x1e');
    parts.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  parts.resize(8);
  KernelSource source;
  source.kind = data[0] % 2 == 0 ? KernelKind::kElementwise : KernelKind::kReduction;
  source.in_params = parts[0];
  source.out_params = parts[1];
  (source.kind == KernelKind::kElementwise ? source.operation : source.map_expr) = parts[2];
  source.preamble = parts[3];
  source.reduce_expr = parts[4];
  source.post_map_expr = parts[5];
  source.identity = parts[6];
  source.reduce_type = parts[7];
  source.name = "fuzzed";
  ArgumentTypes types;
  const size_t inputs = Count(source.in_params);
  for (size_t k = 0; k < inputs; ++k) {
    const uint8_t b = k < 8 ? data[1 + k] : 0;
    types.inputs.push_back({kAllDTypes[(b & 0x0f) % 14], (b & 0x80) == 0});
  }
  types.outputs.assign(Count(source.out_params), std::nullopt);
  auto checked = kernel::CheckKernel(source, types);
  if (!checked.ok()) {
    Require(checked.status().code() == absl::StatusCode::kInvalidArgument &&
                PrefixIsPosition(std::string(checked.status().message())),
            "refusal without a position: " + checked.status().ToString());
    return 0;
  }
  Runner(input).Run(*checked);
  return 0;
}
