// Many operations in one call. A Batch records ops whose operands may be the results (Steps)
// of ops recorded before them; Run sends them all as one Batch RPC and answers only the
// results it is asked to keep. The server frees every other result as soon as no later op of
// the batch reads it, so intermediates cost neither a round trip nor a handle.
//
//   arrayhub::client::Batch batch(client);
//   auto t = batch.Multiply(a, b);
//   auto r = batch.Add(t, 1.0);
//   std::vector<arrayhub::client::Array> out = batch.Run({r});  // out[0] is a * b + 1
//
// A failing op fails the whole call (Run throws the op's Error, its message prefixed
// "ops[i] (op): ") and leaves no result of the batch behind; writes earlier ops made into
// existing arrays (UfuncOut) stay. See docs/semantics.md, "Batches".
//
// The Client pipelines its calls into Batches by itself (client.h); a Batch records a block
// explicitly, sends nothing before Run, and can be run again. Run first waits for the
// client's queued calls, so it comes after them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "arrayhub/client.h"

namespace arrayhub::client {

namespace detail {
struct BatchOps;  // The recorded wire ops (src/batch.cc).
}  // namespace detail

class Batch {
 public:
  // The batch runs in `client`'s session, on its current device at Run (Client::SetDevice);
  // the Client must outlive Run.
  explicit Batch(Client& client);
  ~Batch();
  Batch(Batch&& other) noexcept;
  Batch& operator=(Batch&& other) noexcept;
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  // How many ops are recorded.
  int64_t size() const;

  // Runs the recorded ops in order and answers the results of `keep` (distinct steps of
  // this batch, none of UfuncOut: that array is the caller's already), in that order. The
  // batch stays as recorded: Run again repeats it.
  std::vector<Array> Run(const std::vector<Step>& keep = {});

  // Each method records one op, with the arguments and semantics of the Client method of the
  // same name; an Operand may also be a Step of this batch (of another batch throws
  // kInvalidArgument). Arrays are named by handle when recorded and must exist at Run.

  // Elementwise.
  Step Ufunc(std::string_view name, const std::vector<Operand>& operands,
             std::optional<DType> dtype = std::nullopt);
  // Writes into `out`, an existing array; the step is `out` itself.
  Step UfuncOut(Array& out, std::string_view name, const std::vector<Operand>& operands,
                std::optional<DType> dtype = std::nullopt);
  Step Add(const Operand& a, const Operand& b) { return Ufunc("add", {a, b}); }
  Step Subtract(const Operand& a, const Operand& b) { return Ufunc("subtract", {a, b}); }
  Step Multiply(const Operand& a, const Operand& b) { return Ufunc("multiply", {a, b}); }
  Step Divide(const Operand& a, const Operand& b) { return Ufunc("divide", {a, b}); }
  Step Power(const Operand& a, const Operand& b) { return Ufunc("power", {a, b}); }
  Step Minimum(const Operand& a, const Operand& b) { return Ufunc("minimum", {a, b}); }
  Step Maximum(const Operand& a, const Operand& b) { return Ufunc("maximum", {a, b}); }
  Step Negative(const Operand& a) { return Ufunc("negative", {a}); }
  Step Abs(const Operand& a) { return Ufunc("absolute", {a}); }
  Step Exp(const Operand& a) { return Ufunc("exp", {a}); }
  Step Log(const Operand& a) { return Ufunc("log", {a}); }
  Step Sqrt(const Operand& a) { return Ufunc("sqrt", {a}); }
  Step Square(const Operand& a) { return Ufunc("square", {a}); }
  Step Where(const Operand& condition, const Operand& x, const Operand& y) {
    return Ufunc("where", {condition, x, y});
  }

  Step Matmul(const Operand& a, const Operand& b, const MatmulOptions& options = {});

  // Reductions (`array` an Array or a Step).
  Step Reduce(std::string_view name, const Operand& array, const ReduceOptions& options = {});
  Step Sum(const Operand& array, const ReduceOptions& options = {}) {
    return Reduce("sum", array, options);
  }
  Step Mean(const Operand& array, const ReduceOptions& options = {}) {
    return Reduce("mean", array, options);
  }

  // Views (`a` an Array or a Step). Diagonal needs distinct axes: (0, 0) throws NumPy's
  // kInvalidArgument here, as a batch cannot know a step's rank.
  Step Reshape(const Operand& a, const Shape& shape, Order order = Order::kC);
  Step Transpose(const Operand& a, const std::vector<int64_t>& axes = {});
  Step SwapAxes(const Operand& a, int64_t axis1, int64_t axis2);
  Step Squeeze(const Operand& a, std::optional<std::vector<int64_t>> axes = std::nullopt);
  Step ExpandDims(const Operand& a, const std::vector<int64_t>& axes);
  Step BroadcastTo(const Operand& a, const Shape& shape);
  Step Diagonal(const Operand& a, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1);
  Step Ravel(const Operand& a, Order order = Order::kC);

  // Array ops giving one array (split and nonzero give several: their steps can be neither
  // read nor kept, and the server refuses a batch that does either).
  Step ArrayOp(std::string_view op, const std::vector<Operand>& operands,
               const ArrayOpOptions& options = {});
  Step Copy(const Operand& a) { return ArrayOp("copy", {a}); }
  Step Astype(const Operand& a, DType dtype) { return ArrayOp("astype", {a}, {.dtype = dtype}); }
  Step Concatenate(const std::vector<Operand>& arrays, std::optional<int64_t> axis = 0,
                   std::optional<DType> dtype = std::nullopt);
  Step Stack(const std::vector<Operand>& arrays, int64_t axis = 0,
             std::optional<DType> dtype = std::nullopt);
  Step Sort(const Operand& a, std::optional<int64_t> axis = -1);
  Step Cumsum(const Operand& a, std::optional<int64_t> axis = std::nullopt,
              std::optional<DType> dtype = std::nullopt);

  // Creation.
  Step Empty(const Shape& shape, DType dtype = DType::kFloat64);
  Step Zeros(const Shape& shape, DType dtype = DType::kFloat64);
  Step Ones(const Shape& shape, DType dtype = DType::kFloat64);
  Step Full(const Shape& shape, Scalar value, std::optional<DType> dtype = std::nullopt);
  Step Arange(Scalar start, Scalar stop, Scalar step = 1,
              std::optional<DType> dtype = std::nullopt);
  Step Linspace(Scalar start, Scalar stop, int64_t num, bool endpoint = true,
                std::optional<DType> dtype = std::nullopt);
  Step Eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
           std::optional<DType> dtype = std::nullopt);

 private:
  // Throws kInvalidArgument for a step of another batch among `operands`; waits for arrays
  // among them that the client's pipeline has not made yet (a Batch names them by handle).
  void CheckSteps(const std::vector<Operand>& operands) const;
  // The step of the op just recorded, noting whether it wrote into an existing array.
  Step Recorded(bool writes_out = false);

  Client* client_;
  uint64_t id_;
  std::unique_ptr<detail::BatchOps> ops_;
};

}  // namespace arrayhub::client
