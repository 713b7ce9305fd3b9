// The checked tree (program.h) to slot operations (user_kernel_program.h).
#include <algorithm>
#include <cstring>
#include <map>

#include "server/backend/host/host_types.h"
#include "server/backend/host/user_kernel_program.h"
#include "server/kernel/program.h"

namespace arrayhub::host {
namespace {

using kernel::BinaryOp;
using kernel::Expr;
using kernel::Stmt;

// Slots, at most this many bytes per block: the lane count shrinks for large programs.
constexpr int64_t kArenaBytes = 4 << 20;
constexpr int kMaxLanes = 256;
constexpr int kMinLanes = 8;

bool ReadsRaw(const Expr& expr) {
  if (expr.kind == Expr::Kind::kRawLoad) return true;
  return std::any_of(expr.operands.begin(), expr.operands.end(), ReadsRaw);
}

bool ReadsParameter(const Expr& expr, int parameter) {
  if (expr.kind == Expr::Kind::kParam && expr.index == parameter) return true;
  return std::any_of(expr.operands.begin(), expr.operands.end(),
                     [&](const Expr& e) { return ReadsParameter(e, parameter); });
}

bool MentionsParameter(const Stmt& stmt, int parameter) {
  if (stmt.kind == Stmt::Kind::kAssign && stmt.target == Stmt::Target::kOutput &&
      stmt.index == parameter) {
    return true;
  }
  for (const Expr& e : stmt.operands) {
    if (ReadsParameter(e, parameter)) return true;
  }
  return std::any_of(stmt.body.begin(), stmt.body.end(),
                     [&](const Stmt& s) { return MentionsParameter(s, parameter); });
}

// Whether output `parameter` must be loaded before the block runs: unless the first top-level
// statement that mentions it assigns it (on every lane: top-level statements run on all of
// them) from a value that does not read it.
bool NeedsLoad(const Stmt& block, int parameter) {
  for (const Stmt& stmt : block.body) {
    if (!MentionsParameter(stmt, parameter)) continue;
    return !(stmt.kind == Stmt::Kind::kAssign && stmt.target == Stmt::Target::kOutput &&
             stmt.index == parameter && !ReadsParameter(stmt.operands[0], parameter));
  }
  return false;
}

class Compiler {
 public:
  explicit Compiler(HostUserKernel& out) : out_(out) {}

  int NewSlot(DType dtype) {
    out_.slots.push_back(dtype);
    return static_cast<int>(out_.slots.size()) - 1;
  }

  void CompileFunctions(const kernel::Program& program) {
    for (const kernel::Function& function : program.functions) {
      CompiledFunction compiled;
      BeginBody(function.locals);
      for (int k = 0; k < function.parameter_count; ++k) compiled.parameters.push_back(locals_[k]);
      compiled.result = NewSlot(function.result);
      result_slot_ = compiled.result;
      CompileStmt(function.body, compiled.code);
      out_.functions.push_back(std::move(compiled));
    }
  }

  // A fresh body: its locals, and temporaries of its own. No two bodies share a temporary,
  // since a function's temporaries change under a caller's that hold values across the call.
  void BeginBody(const std::vector<kernel::Local>& locals) {
    free_.clear();
    temps_.clear();
    locals_.clear();
    for (const kernel::Local& local : locals) locals_.push_back(NewSlot(local.dtype));
  }
  const std::vector<int>& locals() const { return locals_; }

  // The slot holding expr's value (a temporary, or a local's or parameter's own slot).
  int CompileExpr(const Expr& expr, std::vector<SlotOp>& code) {
    switch (expr.kind) {
      case Expr::Kind::kLiteral:
        return Constant(ConstantSlot::Kind::kValue, expr.dtype, -1, LiteralBytes(expr));
      case Expr::Kind::kLocal:
        return locals_[expr.index];
      case Expr::Kind::kParam: {
        if (out_.element_slots[expr.index] >= 0) return out_.element_slots[expr.index];
        return Constant(ConstantSlot::Kind::kScalar, expr.dtype, expr.index, {});
      }
      case Expr::Kind::kIndex:
        return Emit(Op(SlotOp::Kind::kIndex, Temp(expr.dtype)), code);
      case Expr::Kind::kIndSize:
        return Constant(ConstantSlot::Kind::kIndSize, expr.dtype, -1, {});
      case Expr::Kind::kRawSize:
        return Constant(ConstantSlot::Kind::kRawSize, expr.dtype, expr.index, {});
      case Expr::Kind::kRawLoad: {
        SlotOp op = Op(SlotOp::Kind::kRawLoad, -1);
        op.src[0] = CompileExpr(expr.operands[0], code);
        op.param = expr.index;
        op.dst = Temp(expr.dtype);
        Release(op.src[0]);
        return Emit(std::move(op), code);
      }
      case Expr::Kind::kCast:
        if (expr.operands[0].kind == Expr::Kind::kLiteral) {  // Folded: (double)2 is 2.0.
          const ElementBytes literal = LiteralBytes(expr.operands[0]);
          ElementBytes folded{};
          const std::byte* src[3] = {literal.data(), nullptr, nullptr};
          CastLanes(expr.operands[0].dtype, expr.dtype)(1, folded.data(), src);
          return Constant(ConstantSlot::Kind::kValue, expr.dtype, -1, folded);
        }
        return Compute(CastLanes(expr.operands[0].dtype, expr.dtype), expr, code);
      case Expr::Kind::kUnary:
        return Compute(UnaryLanes(expr.unary, expr.dtype), expr, code);
      case Expr::Kind::kMath:
        return Compute(MathLanes(expr.math, expr.operands[0].dtype), expr, code);
      case Expr::Kind::kBinary:
        return CompileBinary(expr, code);
      case Expr::Kind::kConditional:
        return CompileConditional(expr, code);
      case Expr::Kind::kCall: {
        SlotOp op = Op(SlotOp::Kind::kCall, -1);
        op.function = expr.index;
        for (const Expr& argument : expr.operands) op.args.push_back(CompileExpr(argument, code));
        for (int arg : op.args) Release(arg);
        op.dst = Temp(expr.dtype);
        return Emit(std::move(op), code);
      }
    }
    return -1;
  }

  // Frees `slot` for reuse when it is a temporary.
  void Release(int slot) {
    if (slot >= 0 && temps_.count(slot) != 0 && !temps_[slot]) {
      temps_[slot] = true;
      free_[out_.slots[slot]].push_back(slot);
    }
  }

  void CompileStmt(const Stmt& stmt, std::vector<SlotOp>& code) {
    switch (stmt.kind) {
      case Stmt::Kind::kBlock:
        for (const Stmt& child : stmt.body) CompileStmt(child, code);
        return;
      case Stmt::Kind::kDeclare: {
        const int local = locals_[stmt.index];
        int value;
        if (stmt.has_value) {
          value = CompileExpr(stmt.operands[0], code);
        } else {
          SlotOp zero = Op(SlotOp::Kind::kFill, Temp(out_.slots[local]));
          value = Emit(std::move(zero), code);
        }
        Copy(local, value, code);
        return;
      }
      case Stmt::Kind::kAssign: {
        if (stmt.target == Stmt::Target::kRaw) {
          SlotOp op = Op(SlotOp::Kind::kRawStore, -1);
          op.src[0] = CompileExpr(stmt.operands[0], code);
          op.src[1] = CompileExpr(stmt.operands[1], code);
          op.param = stmt.index;
          Release(op.src[0]);
          Release(op.src[1]);
          code.push_back(std::move(op));
          return;
        }
        const int target = stmt.target == Stmt::Target::kLocal ? locals_[stmt.index]
                                                               : out_.element_slots[stmt.index];
        Copy(target, CompileExpr(stmt.operands[0], code), code);
        return;
      }
      case Stmt::Kind::kIf: {
        SlotOp op = Op(SlotOp::Kind::kIf, -1);
        op.src[0] = CompileExpr(stmt.operands[0], code);
        CompileStmt(stmt.body[0], op.body);
        if (stmt.body.size() > 1) CompileStmt(stmt.body[1], op.other);
        Release(op.src[0]);
        code.push_back(std::move(op));
        return;
      }
      case Stmt::Kind::kFor: {
        SlotOp op = Op(SlotOp::Kind::kFor, locals_[stmt.index]);
        op.loop = stmt.loop;
        op.step = stmt.step;
        op.dtype = out_.slots[op.dst];
        CompileStmt(stmt.body[0], op.body);
        code.push_back(std::move(op));
        return;
      }
      case Stmt::Kind::kBreak:
        code.push_back(Op(SlotOp::Kind::kBreak, -1));
        return;
      case Stmt::Kind::kContinue:
        code.push_back(Op(SlotOp::Kind::kContinue, -1));
        return;
      case Stmt::Kind::kReturn: {
        SlotOp op = Op(SlotOp::Kind::kReturn, result_slot_);
        op.src[0] = CompileExpr(stmt.operands[0], code);
        Release(op.src[0]);
        code.push_back(std::move(op));
        return;
      }
    }
  }

  void Copy(int dst, int src, std::vector<SlotOp>& code) {
    SlotOp op = Op(SlotOp::Kind::kCopy, dst);
    op.src[0] = src;
    Release(src);
    code.push_back(std::move(op));
  }

 private:
  static SlotOp Op(SlotOp::Kind kind, int dst) {
    SlotOp op;
    op.kind = kind;
    op.dst = dst;
    return op;
  }

  static int Emit(SlotOp op, std::vector<SlotOp>& code) {
    const int dst = op.dst;
    code.push_back(std::move(op));
    return dst;
  }

  // The slot of a constant, one per distinct constant.
  int Constant(ConstantSlot::Kind kind, DType dtype, int param, ElementBytes value) {
    for (const ConstantSlot& constant : out_.constants) {
      if (constant.kind == kind && constant.param == param && constant.value == value &&
          out_.slots[constant.slot] == dtype) {
        return constant.slot;
      }
    }
    out_.constants.push_back(ConstantSlot{kind, NewSlot(dtype), param, value});
    return out_.constants.back().slot;
  }

  int Temp(DType dtype) {
    std::vector<int>& free = free_[dtype];
    if (!free.empty()) {
      const int slot = free.back();
      free.pop_back();
      temps_[slot] = false;
      return slot;
    }
    const int slot = NewSlot(dtype);
    temps_[slot] = false;
    return slot;
  }

  static ElementBytes LiteralBytes(const Expr& expr) {
    ElementBytes bytes{};
    VisitDType(expr.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T value{};
      if constexpr (kIsInteger<T> || std::is_same_v<T, bool>) {
        value = static_cast<T>(expr.int_value);
      } else if constexpr (!kIsComplex<T>) {
        value = Convert<T>(expr.float_value);
      }
      std::memcpy(bytes.data(), &value, sizeof(T));
    });
    return bytes;
  }

  int Compute(LaneFn fn, const Expr& expr, std::vector<SlotOp>& code) {
    SlotOp op = Op(SlotOp::Kind::kCompute, -1);
    op.fn = fn;
    for (size_t k = 0; k < expr.operands.size(); ++k) {
      op.src[k] = CompileExpr(expr.operands[k], code);
    }
    for (size_t k = 0; k < expr.operands.size(); ++k) Release(op.src[k]);
    op.dst = Temp(expr.dtype);
    return Emit(std::move(op), code);
  }

  int CompileBinary(const Expr& expr, std::vector<SlotOp>& code) {
    const BinaryOp op = expr.binary;
    const Expr& left = expr.operands[0];
    const Expr& right = expr.operands[1];
    if ((op == BinaryOp::kLogicalAnd || op == BinaryOp::kLogicalOr) && ReadsRaw(right)) {
      SlotOp masked = Op(op == BinaryOp::kLogicalAnd ? SlotOp::Kind::kAnd : SlotOp::Kind::kOr, -1);
      masked.src[0] = CompileExpr(left, code);
      masked.src[1] = CompileExpr(right, masked.body);
      Release(masked.src[0]);
      Release(masked.src[1]);
      masked.dst = Temp(DType::kBool);
      return Emit(std::move(masked), code);
    }
    SlotOp compute = Op(SlotOp::Kind::kCompute, -1);
    compute.fn = BinaryLanes(op, left.dtype);
    compute.src[0] = CompileExpr(left, code);
    compute.src[1] = CompileExpr(right, code);
    if ((op == BinaryOp::kShl || op == BinaryOp::kShr) && right.dtype != left.dtype) {
      // The count in the left's type: truncation keeps the low bits the mask keeps.
      SlotOp cast = Op(SlotOp::Kind::kCompute, Temp(left.dtype));
      cast.fn = CastLanes(right.dtype, left.dtype);
      cast.src[0] = compute.src[1];
      Release(compute.src[1]);
      compute.src[1] = Emit(std::move(cast), code);
    }
    Release(compute.src[0]);
    Release(compute.src[1]);
    compute.dst = Temp(expr.dtype);
    return Emit(std::move(compute), code);
  }

  int CompileConditional(const Expr& expr, std::vector<SlotOp>& code) {
    if (ReadsRaw(expr.operands[1]) || ReadsRaw(expr.operands[2])) {
      SlotOp op = Op(SlotOp::Kind::kSelect, -1);
      op.src[0] = CompileExpr(expr.operands[0], code);
      op.src[1] = CompileExpr(expr.operands[1], op.body);
      op.src[2] = CompileExpr(expr.operands[2], op.other);
      for (int k = 0; k < 3; ++k) Release(op.src[k]);
      op.dst = Temp(expr.dtype);
      op.fn = SelectLanes(expr.dtype);
      return Emit(std::move(op), code);
    }
    return Compute(SelectLanes(expr.dtype), expr, code);
  }

  HostUserKernel& out_;
  std::vector<int> locals_;
  int result_slot_ = -1;
  std::map<DType, std::vector<int>> free_;
  std::map<int, bool> temps_;  // Temporary slots: whether free.
};

}  // namespace

std::shared_ptr<const HostUserKernel> CompileUserKernel(
    std::shared_ptr<const kernel::CheckedKernel> checked) {
  auto out = std::make_shared<HostUserKernel>();
  const kernel::Program& program = checked->program();
  const std::vector<kernel::Parameter>& parameters = checked->parameters();
  Compiler compiler(*out);
  out->element_slots.assign(parameters.size(), -1);
  out->load_output.assign(parameters.size(), false);
  for (size_t k = 0; k < parameters.size(); ++k) {
    const kernel::Parameter& p = parameters[k];
    if (!p.raw && !p.scalar) out->element_slots[k] = compiler.NewSlot(p.dtype);
  }
  compiler.CompileFunctions(program);
  if (checked->kind() == kernel::KernelKind::kElementwise) {
    compiler.BeginBody(program.operation.locals);
    compiler.CompileStmt(program.operation.block, out->operation);
    for (size_t k = 0; k < parameters.size(); ++k) {
      if (parameters[k].output && !parameters[k].raw) {
        out->load_output[k] = NeedsLoad(program.operation.block, static_cast<int>(k));
      }
    }
  } else {
    const DType r = checked->reduce_type();
    compiler.BeginBody({});
    out->map_result = compiler.NewSlot(r);
    compiler.Copy(out->map_result, compiler.CompileExpr(program.map_expr, out->map), out->map);
    compiler.BeginBody({kernel::Local{"a", r, true, {}}, kernel::Local{"b", r, true, {}}});
    out->reduce_a = compiler.locals()[0];
    out->reduce_b = compiler.locals()[1];
    out->reduce_result = compiler.NewSlot(r);
    compiler.Copy(out->reduce_result, compiler.CompileExpr(program.reduce_expr, out->reduce),
                  out->reduce);
    compiler.BeginBody(program.post_map.locals);
    out->post_map_a = compiler.locals()[0];
    compiler.CompileStmt(program.post_map.block, out->post_map);
    for (size_t k = 0; k < parameters.size(); ++k) {
      if (parameters[k].output) {
        out->load_output[k] = NeedsLoad(program.post_map.block, static_cast<int>(k));
      }
    }
    if (program.has_identity) {
      compiler.BeginBody({});
      out->identity_result = compiler.NewSlot(r);
      compiler.Copy(out->identity_result, compiler.CompileExpr(program.identity, out->identity),
                    out->identity);
    }
    out->work = compiler.NewSlot(r);
  }
  int64_t bytes_per_lane = 0;
  for (DType dtype : out->slots) bytes_per_lane += ItemSize(dtype);
  out->lanes = kMaxLanes;
  while (out->lanes > kMinLanes && out->lanes * bytes_per_lane > kArenaBytes) out->lanes /= 2;
  out->kernel = std::move(checked);
  return out;
}

}  // namespace arrayhub::host
