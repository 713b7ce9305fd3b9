#include "server/kernel/checked_kernel.h"

#include <fmt/format.h>

#include <limits>

#include "absl/status/status.h"
#include "server/common/name_table.h"
#include "server/kernel/bind_params.h"
#include "server/kernel/kernel_error.h"
#include "server/kernel/lexer.h"
#include "server/kernel/limits.h"
#include "server/kernel/loop_bounds.h"
#include "server/kernel/parser.h"
#include "server/kernel/program.h"

namespace arrayhub::kernel {

namespace {

constexpr std::pair<Part, std::string_view> kPartNames[] = {
    {Part::kInParams, "in_params"},     {Part::kOutParams, "out_params"},
    {Part::kOperation, "operation"},    {Part::kMapExpr, "map_expr"},
    {Part::kReduceExpr, "reduce_expr"}, {Part::kPostMapExpr, "post_map_expr"},
    {Part::kIdentity, "identity"},      {Part::kReduceType, "reduce_type"},
    {Part::kPreamble, "preamble"},      {Part::kName, "name"}};
static_assert(std::size(kPartNames) == static_cast<size_t>(Part::kName) + 1);

}  // namespace

std::string_view PartName(Part part) { return NameOf(kPartNames, part); }

struct CheckedKernel::State {
  KernelKind kind = KernelKind::kElementwise;
  std::string name;
  std::vector<Parameter> parameters;
  int input_count = 0;
  DType reduce_type = DType::kFloat32;
  Program program;
  std::string key;
};

CheckedKernel::CheckedKernel(std::unique_ptr<State> state) : state_(std::move(state)) {}
CheckedKernel::~CheckedKernel() = default;
KernelKind CheckedKernel::kind() const { return state_->kind; }
const std::string& CheckedKernel::name() const { return state_->name; }
const std::vector<Parameter>& CheckedKernel::parameters() const { return state_->parameters; }
int CheckedKernel::input_count() const { return state_->input_count; }
DType CheckedKernel::reduce_type() const { return state_->reduce_type; }
const Program& CheckedKernel::program() const { return state_->program; }
const std::string& CheckedKernel::key() const { return state_->key; }

namespace {

constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

int64_t Add(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? kSaturated : sum;
}
int64_t Mul(int64_t a, int64_t b) {
  int64_t product;
  return __builtin_mul_overflow(a, b, &product) ? kSaturated : product;
}

// Operations per element: one per node, a loop's body times its trips, a call's callee body.
class WorkCounter {
 public:
  WorkCounter(const Program& program, std::vector<LoopPlan> plans)
      : program_(program),
        plans_(std::move(plans)),
        function_costs_(program.functions.size(), -1) {}

  int64_t Of(const Expr& expr) {
    int64_t cost = 1;
    for (const Expr& operand : expr.operands) cost = Add(cost, Of(operand));
    if (expr.kind == Expr::Kind::kCall) cost = Add(cost, OfFunction(expr.index));
    return cost;
  }

  int64_t Of(const Stmt& stmt) {
    int64_t cost = 1;
    for (const Expr& operand : stmt.operands) cost = Add(cost, Of(operand));
    int64_t body = 0;
    for (const Stmt& child : stmt.body) body = Add(body, Of(child));
    if (stmt.kind == Stmt::Kind::kFor) body = Mul(Add(body, 1), plans_[stmt.loop].trips);
    return Add(cost, body);
  }

 private:
  int64_t OfFunction(int index) {
    int64_t& cost = function_costs_[index];
    if (cost < 0) cost = Of(program_.functions[index].body);  // Callees come earlier.
    return cost;
  }

  const Program& program_;
  std::vector<LoopPlan> plans_;
  std::vector<int64_t> function_costs_;
};

bool IsIdentifier(std::string_view name) {
  if (name.empty() || name.size() > static_cast<size_t>(kMaxIdentifierBytes)) return false;
  for (size_t k = 0; k < name.size(); ++k) {
    const char c = name[k];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(k > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Everything that decides the checked program: the sources and the binding.
std::string KeyOf(const KernelSource& source, const std::vector<Parameter>& parameters,
                  DType reduce_type) {
  std::string key = fmt::format("v1 {} {}", static_cast<int>(source.kind), DTypeName(reduce_type));
  for (std::string_view part :
       {std::string_view(source.name), std::string_view(source.in_params),
        std::string_view(source.out_params), std::string_view(source.operation),
        std::string_view(source.map_expr), std::string_view(source.reduce_expr),
        std::string_view(source.post_map_expr), std::string_view(source.identity),
        std::string_view(source.reduce_type), std::string_view(source.preamble)}) {
    key += fmt::format(" {}:{}", part.size(), part);
  }
  for (const Parameter& p : parameters) {
    key += fmt::format(" {}{}{}", DTypeName(p.dtype), p.raw ? "r" : "", p.scalar ? "s" : "");
  }
  return key;
}

}  // namespace

int64_t CheckedKernel::WorkPerElement(absl::Span<const Scalar> scalars,
                                      absl::Span<const int64_t> raw_sizes) const {
  CallConstants constants;
  constants.scalars.resize(state_->parameters.size());
  constants.sizes.resize(state_->parameters.size());
  size_t next_scalar = 0;
  size_t next_raw = 0;
  for (size_t k = 0; k < state_->parameters.size(); ++k) {
    const Parameter& p = state_->parameters[k];
    if (p.scalar && next_scalar < scalars.size()) {
      // A scalar that does not fit has been refused by core; zero keeps this total.
      absl::StatusOr<ElementBytes> bytes = EncodeScalar(scalars[next_scalar++], p.dtype);
      constants.scalars[k] = bytes.ok() ? *bytes : ElementBytes{};
    }
    if (p.raw && next_raw < raw_sizes.size()) constants.sizes[k] = raw_sizes[next_raw++];
  }
  const Program& program = state_->program;
  WorkCounter counter(program, PlanLoops(program, constants));
  if (state_->kind == KernelKind::kElementwise) return counter.Of(program.operation.block);
  int64_t work = Add(counter.Of(program.map_expr), counter.Of(program.reduce_expr));
  return Add(work, counter.Of(program.post_map.block));
}

absl::StatusOr<std::shared_ptr<const CheckedKernel>> CheckKernel(const KernelSource& source,
                                                                 const ArgumentTypes& types) {
  auto state = std::make_unique<CheckedKernel::State>();
  try {
    int64_t bytes = 0;
    for (const std::string* part :
         {&source.in_params, &source.out_params, &source.operation, &source.map_expr,
          &source.reduce_expr, &source.post_map_expr, &source.identity, &source.reduce_type,
          &source.preamble, &source.name}) {
      bytes += static_cast<int64_t>(part->size());
    }
    if (bytes > kMaxSourceBytes) {
      Fail(SourcePos{Part::kName, 1, 1},
           fmt::format("the kernel's source is {} bytes, more than {}", bytes, kMaxSourceBytes));
    }
    if (!IsIdentifier(source.name)) {
      Fail(SourcePos{Part::kName, 1, 1},
           fmt::format("kernel name '{}' is not an identifier", source.name));
    }
    state->kind = source.kind;
    state->name = source.name;
    int64_t token_budget = kMaxTokens;
    BoundParameters bound =
        BindParameters(source.in_params, source.out_params, types, token_budget);
    state->parameters = std::move(bound.parameters);
    state->input_count = bound.input_count;
    Program& program = state->program;
    Parser parser(state->parameters, std::move(bound.placeholders), program);
    parser.ParsePreamble(Tokenize(source.preamble, Part::kPreamble, token_budget));
    if (source.kind == KernelKind::kElementwise) {
      program.operation = parser.ParseBody(
          Tokenize(source.operation, Part::kOperation, token_budget), Scope::kOperation, {}, true);
    } else {
      const size_t outputs = state->parameters.size() - state->input_count;
      if (outputs == 0) Fail(SourcePos{Part::kOutParams, 1, 1}, "a reduction needs an output");
      for (const Parameter& p : state->parameters) {
        if (p.output && p.raw) {
          Fail(SourcePos{Part::kOutParams, 1, 1},
               fmt::format("a reduction's output '{}' cannot be raw", p.name));
        }
      }
      DType reduce_type = state->parameters[state->input_count].dtype;
      if (!source.reduce_type.empty()) {
        reduce_type =
            parser.ParseTypeName(Tokenize(source.reduce_type, Part::kReduceType, token_budget));
      }
      state->reduce_type = reduce_type;
      const Local a{"a", reduce_type, true, SourcePos{Part::kReduceExpr, 1, 1}};
      const Local b{"b", reduce_type, true, SourcePos{Part::kReduceExpr, 1, 1}};
      program.map_expr = parser.ParseExpression(
          Tokenize(source.map_expr, Part::kMapExpr, token_budget), Scope::kMap, {}, reduce_type);
      program.reduce_expr =
          parser.ParseExpression(Tokenize(source.reduce_expr, Part::kReduceExpr, token_budget),
                                 Scope::kReduce, {a, b}, reduce_type);
      program.post_map = parser.ParseBody(
          Tokenize(source.post_map_expr, Part::kPostMapExpr, token_budget), Scope::kPostMap,
          {Local{"a", reduce_type, true, SourcePos{Part::kPostMapExpr, 1, 1}}}, true);
      if (!source.identity.empty()) {
        program.has_identity = true;
        program.identity =
            parser.ParseExpression(Tokenize(source.identity, Part::kIdentity, token_budget),
                                   Scope::kIdentity, {}, reduce_type);
      }
    }
    state->key = KeyOf(source, state->parameters, state->reduce_type);
  } catch (const KernelError& error) {
    return absl::InvalidArgumentError(fmt::format("{}:{}:{}: {}", PartName(error.pos.part),
                                                  error.pos.line, error.pos.column, error.message));
  }
  return std::shared_ptr<const CheckedKernel>(new CheckedKernel(std::move(state)));
}

}  // namespace arrayhub::kernel
