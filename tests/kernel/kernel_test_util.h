// Helpers for the kernel-language tests: sources of CuPy's examples and a short way to check.
#pragma once

#include <string>

#include "server/kernel/checked_kernel.h"

namespace arrayhub::kernel::testing {

inline ArgumentTypes::Input Array(DType dtype) { return {dtype, true}; }
inline ArgumentTypes::Input ScalarArg(DType dtype) { return {dtype, false}; }

inline KernelSource Elementwise(std::string in, std::string out, std::string operation,
                                std::string preamble = "") {
  KernelSource source;
  source.kind = KernelKind::kElementwise;
  source.in_params = std::move(in);
  source.out_params = std::move(out);
  source.operation = std::move(operation);
  source.preamble = std::move(preamble);
  source.name = "test_kernel";
  return source;
}

inline KernelSource Reduction(std::string in, std::string out, std::string map, std::string reduce,
                              std::string post_map, std::string identity) {
  KernelSource source;
  source.kind = KernelKind::kReduction;
  source.in_params = std::move(in);
  source.out_params = std::move(out);
  source.map_expr = std::move(map);
  source.reduce_expr = std::move(reduce);
  source.post_map_expr = std::move(post_map);
  source.identity = std::move(identity);
  source.name = "test_reduction";
  return source;
}

// CuPy's examples (examples/kmeans/kmeans.py, examples/finance/black_scholes.py), verbatim.
inline KernelSource KmeansVar() {
  KernelSource source = Elementwise("T x0, T x1, T c0, T c1", "T out",
                                    "out = (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1)");
  source.name = "var_kernel";
  return source;
}

inline KernelSource KmeansSum() {
  KernelSource source = Reduction("T x, S mask", "T out", "mask ? x : 0", "a + b", "out = a", "0");
  source.name = "sum_kernel";
  return source;
}

inline KernelSource KmeansCount() {
  KernelSource source =
      Reduction("T mask", "float32 out", "mask ? 1.0 : 0.0", "a + b", "out = a", "0.0");
  source.name = "count_kernel";
  return source;
}

inline KernelSource BlackScholes() {
  KernelSource source = Elementwise("T s, T x, T t, T r, T v", "T call, T put", R"(
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;

    const T cnd_d1 = get_cumulative_normal_distribution(d1);
    const T cnd_d2 = get_cumulative_normal_distribution(d2);

    const T exp_rt = exp(- r * t);
    call = s * cnd_d1 - x * exp_rt * cnd_d2;
    put = x * exp_rt * (1 - cnd_d2) - s * (1 - cnd_d1);
    )",
                                    R"(
    __device__
    inline T get_cumulative_normal_distribution(T x) {
        const T A1 = 0.31938153;
        const T A2 = -0.356563782;
        const T A3 = 1.781477937;
        const T A4 = -1.821255978;
        const T A5 = 1.330274429;
        const T RSQRT2PI = 0.39894228040143267793994605993438;
        const T W = 0.2316419;

        const T k = 1 / (1 + W * abs(x));
        T cnd = RSQRT2PI * exp(- x * x / 2) *
            (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
        if (x > 0) {
            cnd = 1 - cnd;
        }
        return cnd;
    }
    )");
  source.name = "black_scholes_kernel";
  return source;
}

}  // namespace arrayhub::kernel::testing
