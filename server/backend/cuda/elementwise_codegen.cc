#include "server/backend/cuda/elementwise_codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iterator>

#include "server/backend/cuda/device_math.h"

namespace arrayhub {

namespace {

// The C type of each dtype's elements in generated code, in kAllDTypes' order (device_math.h
// defines the ah_ ones).
constexpr std::string_view kStorageTypes[] = {"ah_b8",
                                              "signed char",
                                              "short",
                                              "int",
                                              "long long",
                                              "unsigned char",
                                              "unsigned short",
                                              "unsigned int",
                                              "unsigned long long",
                                              "ah_half",
                                              "float",
                                              "double",
                                              "ah_c64",
                                              "ah_c128"};
static_assert(std::size(kStorageTypes) == std::size(kAllDTypes));

}  // namespace

std::string_view StorageType(DType dtype) { return kStorageTypes[DTypeIndex(dtype)]; }

// The type a loop computes in: float16 loops compute in float (NumPy's half loops do too) and
// round each result to float16.
std::string_view WorkingType(DType dtype) {
  if (dtype == DType::kBool) return "bool";
  if (dtype == DType::kFloat16) return "float";
  return StorageType(dtype);
}

namespace {

// The type an op's result is rounded to before the output cast.
std::string_view ResultType(DType dtype) {
  return dtype == DType::kBool ? "bool" : StorageType(dtype);
}

// where() reads its condition as bool whatever the loop type, ldexp its exponent as int64
// (OperandDType).
std::string_view OperandWorkingType(const ElementwiseSignature::Step& step, size_t k) {
  return WorkingType(OperandDType(step.op, k, step.compute));
}

// The device function for the op: ah_op_<name> (ufuncs.def) of device_math.h. Where NumPy's
// float16 loop differs from its float one (ties of extrema and clip, nextafter's steps), the
// function takes whether the loop is float16 as its first template argument.
std::string OpFunction(const ElementwiseSignature::Step& step) {
  switch (step.op) {
    case ElementwiseOp::kMinimum:
    case ElementwiseOp::kMaximum:
    case ElementwiseOp::kFmin:
    case ElementwiseOp::kFmax:
    case ElementwiseOp::kNextafter:
    case ElementwiseOp::kClip:
      return fmt::format("ah_op_{}<{}>", OpName(step.op), step.compute == DType::kFloat16);
    default:
      return fmt::format("ah_op_{}", OpName(step.op));
  }
}

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

int ElementwiseSignature::array_inputs() const {
  int count = 0;
  for (const Input& input : inputs) count += input.scalar ? 0 : 1;
  return count;
}

int ElementwiseSignature::scalar_inputs() const {
  return static_cast<int>(inputs.size()) - array_inputs();
}

ElementwiseArgsLayout ArgsLayoutOf(const ElementwiseSignature& s) {
  const size_t outputs = s.outputs.size();
  const size_t arrays = static_cast<size_t>(s.array_inputs());
  const size_t scalars = static_cast<size_t>(s.scalar_inputs());
  ElementwiseArgsLayout layout;
  layout.out = sizeof(int64_t);
  layout.in = layout.out + sizeof(char*) * std::max<size_t>(outputs, 1);
  layout.scalar = RoundUp(layout.in + sizeof(char*) * std::max<size_t>(arrays, 1), 16);
  layout.shape = layout.scalar + 16 * std::max<size_t>(scalars, 1);
  const size_t rank = static_cast<size_t>(s.rank);
  layout.stride = layout.shape + sizeof(int64_t) * rank;
  layout.reduction = layout.stride + sizeof(int64_t) * (outputs + arrays) * rank;
  const size_t reduction_bytes = s.reduction ? 3 * sizeof(void*) : 0;
  layout.size = RoundUp(layout.reduction + reduction_bytes, 16);
  return layout;
}

namespace {

void AppendInt(std::string& text, int64_t value) {
  char digits[24];
  const std::to_chars_result end = std::to_chars(std::begin(digits), std::end(digits), value);
  text.append(digits, end.ptr);
}

}  // namespace

std::string KernelKey(const ElementwiseSignature& s) {
  // Appended piece by piece, not formatted: the key is made for every launch, and formatting
  // it (with the cache's own key) cost 8% of the daemon's time per op in a Batch (gperftools
  // on the H100, bench/RESULTS.md).
  std::string key = "ew:";
  key.reserve(64);
  for (const auto& input : s.inputs) {
    key += input.scalar ? 's' : 'a';
    key += DTypeName(input.dtype);
    key += ',';
  }
  for (const auto& step : s.steps) {
    key += ';';
    key += OpName(step.op);
    key += ':';
    key += DTypeName(step.compute);
    key += ':';
    key += DTypeName(step.result);
    for (int operand : step.operands) {
      key += ':';
      AppendInt(key, operand);
    }
  }
  key += ";>";
  for (const auto& output : s.outputs) {
    AppendInt(key, output.step);
    key += ':';
    key += DTypeName(output.dtype);
    key += ',';
  }
  key += ":r";
  AppendInt(key, s.rank);
  key += ":v";
  AppendInt(key, s.vector_width);
  key += s.index32 ? ":i32" : ":i64";
  if (s.reduction) {  // Appended only here: the keys (and sources) of other kernels stay.
    key += ":R";
    key += OpName(s.reduction->op);
    key += ':';
    AppendInt(key, s.reduction->step);
    key += ':';
    key += DTypeName(s.reduction->accumulate);
    key += ':';
    key += DTypeName(s.reduction->output);
  }
  return key;
}

namespace {

// Each fusable reduction's fold of two accumulators a and b, and its identity.
struct ReductionFold {
  ReduceOp op;
  std::string_view fold;
  std::string_view identity;
};
constexpr ReductionFold kReductionFolds[] = {
    {ReduceOp::kSum, "ah_op_add(a, b)", "ah_cast<ah_acc_t>(0)"},
    {ReduceOp::kMean, "ah_op_add(a, b)", "ah_cast<ah_acc_t>(0)"},
    {ReduceOp::kProd, "ah_op_multiply(a, b)", "ah_cast<ah_acc_t>(1)"},
    {ReduceOp::kMin, "ah_op_minimum<false>(a, b)", "ah_highest<ah_acc_t>()"},
    {ReduceOp::kMax, "ah_op_maximum<false>(a, b)", "ah_lowest<ah_acc_t>()"},
    {ReduceOp::kAny, "a || b", "false"},
    {ReduceOp::kAll, "a && b", "true"},
};

// The fold of a reduction, its identity, and how the last block finishes: ah_fold,
// ah_identity and ah_finish over ah_acc_t, storing an ah_red_t.
std::string ReductionSource(const ElementwiseSignature::Reduction& r) {
  const auto* folds = std::find_if(std::begin(kReductionFolds), std::end(kReductionFolds),
                                   [&](const ReductionFold& f) { return f.op == r.op; });
  const ReductionFold fold = folds != std::end(kReductionFolds) ? *folds : ReductionFold{};
  // The mean divides the sum by the count (each part of a complex one), in the accumulator's
  // type, as the reduction kernels divide.
  std::string finish = "total";
  if (r.op == ReduceOp::kMean) {
    finish = IsComplex(r.accumulate) ? "ah_acc_t{total.re / (ah_acc_t::value_type)n, total.im / "
                                       "(ah_acc_t::value_type)n}"
                                     : "total / (ah_acc_t)n";
  }
  return fmt::format(
      R"(typedef {0} ah_acc_t;
typedef {1} ah_red_t;
// Extremes of T: the identities of the minimum and maximum folds.
template <class T> __device__ __forceinline__ T ah_highest() {{
  if constexpr (ah_same<T, bool>::value) return true;
  else if constexpr (ah_int<T>::value && ah_int<T>::is_signed)
    return (T)((1ull << (ah_int<T>::bits - 1)) - 1);
  else if constexpr (ah_int<T>::value) return (T)~0ull;
  else return (T)__longlong_as_double(0x7ff0000000000000ll);
}}
template <class T> __device__ __forceinline__ T ah_lowest() {{
  if constexpr (ah_same<T, bool>::value) return false;
  else if constexpr (ah_int<T>::value && ah_int<T>::is_signed)
    return (T)(1ull << (ah_int<T>::bits - 1));
  else if constexpr (ah_int<T>::value) return (T)0;
  else return (T)__longlong_as_double(0xfff0000000000000ll);
}}
__device__ __forceinline__ ah_acc_t ah_fold(ah_acc_t a, ah_acc_t b) {{ return {2}; }}
__device__ __forceinline__ ah_acc_t ah_identity() {{ return {3}; }}
// The block's threads folded in a tree, into s[0].
__device__ __forceinline__ void ah_block_fold(ah_acc_t* s, ah_acc_t mine) {{
  s[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned w = {5} / 2; w > 0; w /= 2) {{
    if (threadIdx.x < w) s[threadIdx.x] = ah_fold(s[threadIdx.x], s[threadIdx.x + w]);
    __syncthreads();
  }}
}}
// Each block publishes its fold, then counts itself in; the last one folds every block's in
// block order, stores the result and returns the counter to zero.
__device__ __forceinline__ void ah_finish(ah_acc_t mine, long long n, void* out,
                                          unsigned* arrivals, ah_acc_t* partials) {{
  __shared__ alignas(16) unsigned char raw[{5} * sizeof(ah_acc_t)];
  __shared__ bool last;
  ah_acc_t* s = reinterpret_cast<ah_acc_t*>(raw);
  ah_block_fold(s, mine);
  if (threadIdx.x == 0) {{
    partials[blockIdx.x] = s[0];
    // The fold is visible to every block before this one counts itself in.
    __threadfence();
    last = atomicAdd(arrivals, 1u) == gridDim.x - 1;
  }}
  __syncthreads();
  if (!last) return;
  // Every other block published its fold before counting itself in.
  __threadfence();
  ah_acc_t folded = ah_identity();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) folded = ah_fold(folded, partials[b]);
  __syncthreads();
  ah_block_fold(s, folded);
  if (threadIdx.x == 0) {{
    const ah_acc_t total = s[0];
    *reinterpret_cast<ah_red_t*>(out) = ah_cast<ah_red_t>({4});
    *arrivals = 0;
  }}
}}
)",
      WorkingType(r.accumulate), StorageType(r.output), fold.fold, fold.identity, finish,
      kElementwiseThreads);
}

}  // namespace

std::string KernelSource(const ElementwiseSignature& s) {
  const size_t inputs = s.inputs.size();
  const size_t outputs = s.outputs.size();
  std::string src(kDeviceMath);

  // ah_apply: one element, from its stored inputs to its stored outputs. Each step's value is
  // a variable of its result type, as an array of that dtype would hold it.
  std::string params;
  for (size_t k = 0; k < inputs; ++k) {
    src += fmt::format("typedef {} ah_i{}_t;\n", StorageType(s.inputs[k].dtype), k);
    params += fmt::format("{}ah_i{}_t x{}", k ? ", " : "", k, k);
  }
  for (size_t j = 0; j < outputs; ++j) {
    src += fmt::format("typedef {} ah_o{}_t;\n", StorageType(s.outputs[j].dtype), j);
    params += fmt::format("{}ah_o{}_t& y{}", params.empty() ? "" : ", ", j, j);
  }
  std::string body;
  for (size_t t = 0; t < s.steps.size(); ++t) {
    const ElementwiseSignature::Step& step = s.steps[t];
    std::string args;
    for (size_t k = 0; k < step.operands.size(); ++k) {
      const auto value = static_cast<size_t>(step.operands[k]);
      const std::string name =
          value < inputs ? fmt::format("x{}", value) : fmt::format("t{}", value - inputs);
      args += fmt::format("{}ah_cast<{}>({})", k ? ", " : "", OperandWorkingType(step, k), name);
    }
    body += fmt::format("  const {0} t{1} = ah_cast<{0}>({2}({3}));\n", ResultType(step.result), t,
                        OpFunction(step), args);
  }
  for (size_t j = 0; j < outputs; ++j) {
    body += fmt::format("  y{0} = ah_cast<ah_o{0}_t>(t{1});\n", j, s.outputs[j].step);
  }
  if (s.reduction) {
    src += ReductionSource(*s.reduction);
    params += fmt::format("{}ah_acc_t& r", params.empty() ? "" : ", ");
    body += fmt::format("  r = ah_cast<ah_acc_t>(t{});\n", s.reduction->step);
  }
  src += fmt::format("__device__ __forceinline__ void ah_apply({}) {{\n{}}}\n", params, body);

  // The argument block (see ElementwiseArgsLayout).
  src += fmt::format(
      "struct ah_args {{\n  long long n;\n  char* out[{}];\n  const char* in[{}];\n"
      "  alignas(16) unsigned char scalar[{}][16];\n",
      std::max<size_t>(outputs, 1), std::max(s.array_inputs(), 1), std::max(s.scalar_inputs(), 1));
  if (s.rank > 0) {
    src += fmt::format("  long long shape[{0}];\n  long long stride[{1}][{0}];\n", s.rank,
                       outputs + static_cast<size_t>(s.array_inputs()));
  }
  if (s.reduction) src += "  void* reduced;\n  unsigned* arrivals;\n  void* partials;\n";
  src += "};\n";

  src += fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}) {}(const __grid_constant__ ah_args "
      "args) {{\n",
      kElementwiseThreads, kElementwiseEntry);
  // Where each input is: its slot in `in` or `scalar`.
  std::vector<int> slot(inputs);
  int arrays = 0;
  int scalars = 0;
  for (size_t k = 0; k < inputs; ++k) {
    if (s.inputs[k].scalar) {
      slot[k] = scalars++;
      src += fmt::format(
          "  const ah_i{0}_t s{0} = *reinterpret_cast<const ah_i{0}_t*>(args.scalar[{1}]);\n", k,
          slot[k]);
    } else {
      slot[k] = arrays++;
    }
  }
  src +=
      "  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  const long long step = (long long)gridDim.x * blockDim.x;\n";
  if (s.reduction) src += "  ah_acc_t acc = ah_identity();\n";
  // With a reduction the kernel ends by folding the threads' accumulators.
  const std::string end_kernel = s.reduction
                                     ? "  ah_finish(acc, args.n, args.reduced, args.arrivals, "
                                       "static_cast<ah_acc_t*>(args.partials));\n}\n"
                                     : "}\n";

  // ah_apply's arguments, given how an array input and an output are reached.
  auto apply_args = [&](auto input_at, auto output_at) {
    std::string args;
    for (size_t k = 0; k < inputs; ++k) {
      args += (k ? ", " : "") + (s.inputs[k].scalar ? fmt::format("s{}", k) : input_at(k));
    }
    for (size_t j = 0; j < outputs; ++j) args += (args.empty() ? "" : ", ") + output_at(j);
    return args;
  };
  // The statement that computes one element (and folds it, with a reduction).
  auto apply = [&](const std::string& args) {
    if (!s.reduction) return fmt::format("ah_apply({});", args);
    return fmt::format("{{ ah_acc_t r; ah_apply({}{}r); acc = ah_fold(acc, r); }}", args,
                       args.empty() ? "" : ", ");
  };

  if (s.rank == 0) {
    // Dense: vectors of vector_width elements, then the tail one element at a time.
    const int v = s.vector_width;
    std::string loads;
    std::string stores;
    for (size_t k = 0; k < inputs; ++k) {
      if (s.inputs[k].scalar) continue;
      loads += fmt::format(
          "    const ah_vec<ah_i{0}_t, {1}> v{0} = reinterpret_cast<const ah_vec<ah_i{0}_t, "
          "{1}>*>(args.in[{2}])[i];\n",
          k, v, slot[k]);
    }
    for (size_t j = 0; j < outputs; ++j) {
      loads += fmt::format("    ah_vec<ah_o{0}_t, {1}> w{0};\n", j, v);
      stores += fmt::format(
          "    reinterpret_cast<ah_vec<ah_o{0}_t, {1}>*>(args.out[{0}])[i] = w{0};\n", j, v);
    }
    const std::string vector_args = apply_args([](size_t k) { return fmt::format("v{}.v[j]", k); },
                                               [](size_t j) { return fmt::format("w{}.v[j]", j); });
    const std::string tail_args = apply_args(
        [&](size_t k) {
          return fmt::format("reinterpret_cast<const ah_i{}_t*>(args.in[{}])[i]", k, slot[k]);
        },
        [](size_t j) { return fmt::format("reinterpret_cast<ah_o{0}_t*>(args.out[{0}])[i]", j); });
    src += fmt::format(
        "  const long long vectors = args.n / {0};\n"
        "  for (long long i = first; i < vectors; i += step) {{\n{1}"
        "#pragma unroll\n"
        "    for (int j = 0; j < {0}; ++j) {2}\n{3}"
        "  }}\n"
        "  for (long long i = vectors * {0} + first; i < args.n; i += step) {{\n"
        "    {4}\n"
        "  }}\n",
        v, loads, apply(vector_args), stores, apply(tail_args));
    return src + end_kernel;
  }

  // Strided: split the flat index into coordinates, innermost first, and accumulate each
  // array's byte offset (row r of args.stride: output r, then array input r - outputs). The
  // outermost coordinate needs no division.
  const char* index_type = s.index32 ? "unsigned int" : "unsigned long long";
  const size_t rows = outputs + static_cast<size_t>(s.array_inputs());
  std::string offsets = "long long ";
  std::string accumulate;
  std::string accumulate_outer;
  for (size_t r = 0; r < rows; ++r) {
    const char* separator = r ? ", " : "";
    offsets += fmt::format("{}off{} = 0", separator, r);
    accumulate += fmt::format("{0}off{1} += c * args.stride[{1}][d]", separator, r);
    accumulate_outer +=
        fmt::format("{0}off{1} += (long long)rest * args.stride[{1}][0]", separator, r);
  }
  const std::string call_args = apply_args(
      [&](size_t k) {
        return fmt::format("*reinterpret_cast<const ah_i{0}_t*>(args.in[{1}] + off{2})", k, slot[k],
                           outputs + static_cast<size_t>(slot[k]));
      },
      [](size_t j) {
        return fmt::format("*reinterpret_cast<ah_o{0}_t*>(args.out[{0}] + off{0})", j);
      });
  src += fmt::format(
      "  for (long long i = first; i < args.n; i += step) {{\n"
      "    {0} rest = ({0})i;\n"
      "    {1};\n"
      "#pragma unroll\n"
      "    for (int d = {2} - 1; d > 0; --d) {{\n"
      "      const {0} extent = ({0})args.shape[d];\n"
      "      const {0} q = rest / extent;\n"
      "      const long long c = (long long)(rest - q * extent);\n"
      "      rest = q;\n"
      "      {3};\n"
      "    }}\n"
      "    {4};\n"
      "    {5}\n"
      "  }}\n",
      index_type, offsets, s.rank, accumulate, accumulate_outer, apply(call_args));
  return src + end_kernel;
}

}  // namespace arrayhub
