// Expressions: C's precedence and conversions over the dtypes (parser.h).
#include <fmt/format.h>

#include "server/kernel/kernel_error.h"
#include "server/kernel/limits.h"
#include "server/kernel/math_functions.h"
#include "server/kernel/parser.h"
#include "server/kernel/type_rules.h"

namespace arrayhub::kernel {
namespace {

struct BinaryInfo {
  std::string_view text;
  BinaryOp op;
  int precedence;
};

constexpr BinaryInfo kBinary[] = {
    {"||", BinaryOp::kLogicalOr, 1},    {"&&", BinaryOp::kLogicalAnd, 2},
    {"|", BinaryOp::kBitOr, 3},         {"^", BinaryOp::kBitXor, 4},
    {"&", BinaryOp::kBitAnd, 5},        {"==", BinaryOp::kEqual, 6},
    {"!=", BinaryOp::kNotEqual, 6},     {"<", BinaryOp::kLess, 7},
    {"<=", BinaryOp::kLessEqual, 7},    {">", BinaryOp::kGreater, 7},
    {">=", BinaryOp::kGreaterEqual, 7}, {"<<", BinaryOp::kShl, 8},
    {">>", BinaryOp::kShr, 8},          {"+", BinaryOp::kAdd, 9},
    {"-", BinaryOp::kSub, 9},           {"*", BinaryOp::kMul, 10},
    {"/", BinaryOp::kDiv, 10},          {"%", BinaryOp::kMod, 10},
};

std::string_view OpText(BinaryOp op) {
  for (const BinaryInfo& info : kBinary) {
    if (info.op == op) return info.text;
  }
  return "?";
}

}  // namespace

Expr Parser::Node(Expr::Kind kind, DType dtype, SourcePos pos) {
  AddNodes(1, pos);
  Expr expr;
  expr.kind = kind;
  expr.dtype = dtype;
  expr.pos = pos;
  return expr;
}

Expr Parser::Convert(Expr expr, DType to, bool implicit) {
  if (expr.dtype == to) return expr;
  if (implicit && IsComplex(expr.dtype) && !IsComplex(to)) {
    Fail(expr.pos, fmt::format("cannot convert {} to {} implicitly; use real() or a cast",
                               DTypeName(expr.dtype), DTypeName(to)));
  }
  const SourcePos pos = expr.pos;
  Expr cast = Node(Expr::Kind::kCast, to, pos);
  cast.implicit = implicit;
  cast.operands.push_back(std::move(expr));
  return cast;
}

Expr Parser::ToBool(Expr expr) {
  if (IsComplex(expr.dtype)) {
    Fail(expr.pos, fmt::format("a {} value cannot be a condition", DTypeName(expr.dtype)));
  }
  return Convert(std::move(expr), DType::kBool, true);
}

Expr Parser::ParseExpr() { return ParseConditional(); }

Expr Parser::ParseConditional() {
  Expr condition = ParseBinary(1);
  if (!IsPunct("?")) return condition;
  const SourcePos pos = Next().pos;
  DepthGuard guard(*this, pos);
  Expr yes = ParseExpr();
  Expect(":", "':' of the conditional operator");
  Expr no = ParseConditional();
  const DType type = yes.dtype == no.dtype ? yes.dtype : Common(yes.dtype, no.dtype);
  Expr expr = Node(Expr::Kind::kConditional, type, pos);
  expr.operands.push_back(ToBool(std::move(condition)));
  expr.operands.push_back(Convert(std::move(yes), type, true));
  expr.operands.push_back(Convert(std::move(no), type, true));
  return expr;
}

Expr Parser::ParseBinary(int min_precedence) {
  Expr left = ParseUnary();
  // Each operator of a chain (a + b + c) makes the tree one level deeper: it counts as a
  // nesting level, so that the trees every later pass walks recursively stay shallow.
  int chain = 0;
  while (true) {
    const Token& token = Peek();
    const BinaryInfo* info = nullptr;
    if (token.kind == Token::Kind::kPunct) {
      for (const BinaryInfo& candidate : kBinary) {
        if (candidate.text == token.text) info = &candidate;
      }
    }
    if (info == nullptr || info->precedence < min_precedence) {
      depth_ -= chain;
      return left;
    }
    const SourcePos pos = Next().pos;
    ++chain;
    if (++depth_ > kMaxDepth) Fail(pos, fmt::format("nested more than {} levels deep", kMaxDepth));
    Expr right = ParseBinary(info->precedence + 1);
    left = MakeBinary(info->op, std::move(left), std::move(right), pos);
  }
}

Expr Parser::MakeBinary(BinaryOp op, Expr left, Expr right, SourcePos pos) {
  const DType a = left.dtype;
  const DType b = right.dtype;
  const auto invalid = [&](std::string_view why) {
    Fail(pos, fmt::format("invalid operands to {} ({} and {}): {}", OpText(op), DTypeName(a),
                          DTypeName(b), why));
  };
  const bool integers = !IsFloating(a) && !IsComplex(a) && !IsFloating(b) && !IsComplex(b);
  const bool complex = IsComplex(a) || IsComplex(b);
  DType operand = Common(a, b);
  DType result = operand;
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul:
    case BinaryOp::kDiv:
      break;
    case BinaryOp::kMod:
      if (!integers) invalid("% takes integers; use fmod");
      break;
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
      if (!integers) invalid("bitwise operators take integers");
      break;
    case BinaryOp::kShl:
    case BinaryOp::kShr: {
      if (!integers) invalid("shifts take integers");
      Expr expr = Node(Expr::Kind::kBinary, Promote(a), pos);
      expr.binary = op;
      expr.operands.push_back(Convert(std::move(left), Promote(a), true));
      expr.operands.push_back(Convert(std::move(right), Promote(b), true));
      return expr;
    }
    case BinaryOp::kLess:
    case BinaryOp::kLessEqual:
    case BinaryOp::kGreater:
    case BinaryOp::kGreaterEqual:
      if (complex) invalid("complex numbers are not ordered");
      result = DType::kBool;
      break;
    case BinaryOp::kEqual:
    case BinaryOp::kNotEqual:
      result = DType::kBool;
      break;
    case BinaryOp::kLogicalAnd:
    case BinaryOp::kLogicalOr:
      operand = DType::kBool;
      result = DType::kBool;
      left = ToBool(std::move(left));
      right = ToBool(std::move(right));
      break;
  }
  Expr expr = Node(Expr::Kind::kBinary, result, pos);
  expr.binary = op;
  expr.operands.push_back(Convert(std::move(left), operand, true));
  expr.operands.push_back(Convert(std::move(right), operand, true));
  return expr;
}

Expr Parser::ParseUnary() {
  const Token& token = Peek();
  const SourcePos pos = token.pos;
  if (token.kind == Token::Kind::kPunct) {
    if (token.text == "*") Fail(pos, "pointers are not supported (unary * dereferences)");
    if (token.text == "&") Fail(pos, "the address-of operator & is not supported");
    if (token.text == "++" || token.text == "--") {
      Fail(pos, fmt::format("{} is a statement here, not part of an expression", token.text));
    }
    if (token.text == "-" || token.text == "+" || token.text == "!" || token.text == "~") {
      const std::string op = Next().text;
      DepthGuard guard(*this, pos);
      Expr operand = ParseUnary();
      if (op == "!") {
        Expr expr = Node(Expr::Kind::kUnary, DType::kBool, pos);
        expr.unary = UnaryOp::kLogicalNot;
        expr.operands.push_back(ToBool(std::move(operand)));
        return expr;
      }
      const DType type = IsFloating(operand.dtype) || IsComplex(operand.dtype)
                             ? operand.dtype
                             : Promote(operand.dtype);
      if (op == "~" && (IsFloating(type) || IsComplex(type))) {
        Fail(pos,
             fmt::format("invalid operand to ~ ({}): ~ takes integers", DTypeName(operand.dtype)));
      }
      operand = Convert(std::move(operand), type, true);
      if (op == "+") return operand;
      Expr expr = Node(Expr::Kind::kUnary, type, pos);
      expr.unary = op == "-" ? UnaryOp::kNegate : UnaryOp::kBitNot;
      expr.operands.push_back(std::move(operand));
      return expr;
    }
    if (token.text == "(" && IsTypeStart(1)) {  // (T)x
      Next();
      DepthGuard guard(*this, pos);
      const TypeSpec type = ParseType();
      Expect(")", "')' of the cast");
      return Convert(ParseUnary(), type.dtype, false);
    }
  }
  if (IsWord("sizeof")) Fail(pos, "sizeof is not supported");
  return ParsePostfix();
}

Expr Parser::ParsePostfix() {
  Expr expr = ParsePrimary();
  const Token& token = Peek();
  if (token.kind == Token::Kind::kPunct) {
    if (token.text == "[") Fail(token.pos, "only raw parameters can be indexed");
    if (token.text == "->") Fail(token.pos, "pointers are not supported ('->')");
    if (token.text == ".") Fail(token.pos, "only raw parameters and _ind have members (size())");
    if (token.text == "(") Fail(token.pos, "called object is not a function");
    if (token.text == "++" || token.text == "--") {
      // x++ as a whole statement is the statement parser's; here it is inside an expression.
      if (!(IsPunct(";", 1) || Peek(1).kind == Token::Kind::kEnd)) {
        Fail(token.pos,
             fmt::format("{} is a statement here, not part of an expression", token.text));
      }
    }
  }
  return expr;
}

Expr Parser::ParsePrimary() {
  const Token& token = Peek();
  const SourcePos pos = token.pos;
  switch (token.kind) {
    case Token::Kind::kInteger: {
      Expr expr = Node(Expr::Kind::kLiteral, token.dtype, pos);
      expr.int_value = Next().int_value;
      return expr;
    }
    case Token::Kind::kFloat: {
      Expr expr = Node(Expr::Kind::kLiteral, token.dtype, pos);
      expr.float_value = Next().float_value;
      return expr;
    }
    case Token::Kind::kEnd:
      Fail(pos, "expected an expression");
    case Token::Kind::kPunct:
      if (token.text == "(") {
        Next();
        DepthGuard guard(*this, pos);
        Expr expr = ParseExpr();
        Expect(")", "')'");
        return expr;
      }
      if (token.text == "{") Fail(pos, "initialiser lists are not supported");
      Fail(pos, fmt::format("expected an expression, found '{}'", token.text));
    case Token::Kind::kIdentifier:
      break;
  }
  if (token.text == "true" || token.text == "false") {
    Expr expr = Node(Expr::Kind::kLiteral, DType::kBool, pos);
    expr.int_value = Next().text == "true" ? 1 : 0;
    return expr;
  }
  if (token.text == "static_cast") {
    Next();
    DepthGuard guard(*this, pos);
    Expect("<", "'<' of static_cast");
    const TypeSpec type = ParseType();
    Expect(">", "'>' of static_cast");
    Expect("(", "'(' of static_cast");
    Expr operand = ParseExpr();
    Expect(")", "')' of static_cast");
    return Convert(std::move(operand), type.dtype, false);
  }
  if (token.text == "reinterpret_cast" || token.text == "const_cast" ||
      token.text == "dynamic_cast") {
    Fail(pos, fmt::format("{} is not supported", token.text));
  }
  if (IsTypeStart()) {  // T(x)
    DepthGuard guard(*this, pos);
    const TypeSpec type = ParseType();
    Expect("(", "'(' of a functional cast");
    Expr operand = ParseExpr();
    Expect(")", "')' of a functional cast");
    return Convert(std::move(operand), type.dtype, false);
  }
  const Token name = Next();
  return ParseIdentifier(name);
}

Expr Parser::ParseIdentifier(const Token& token) {
  const std::string& name = token.text;
  const SourcePos pos = token.pos;
  if (name.starts_with("__")) {
    Fail(pos, fmt::format("'{}': identifiers starting with __ are reserved", name));
  }
  if (std::optional<int> local = FindLocal(name)) {
    Expr expr = Node(Expr::Kind::kLocal, locals_[*local].dtype, pos);
    expr.index = *local;
    return expr;
  }
  const bool indexed = scope_ == Scope::kOperation || scope_ == Scope::kMap;
  if (name == "i" && indexed) return Node(Expr::Kind::kIndex, DType::kInt64, pos);
  if ((name == "_ind" && indexed) || (name == "_in_ind" && scope_ == Scope::kMap)) {
    Expect(".", "'.size()' after " + name);
    if (ExpectIdentifier("size") != "size") Fail(pos, name + " has only size()");
    Expect("(", "'('");
    Expect(")", "')'");
    return Node(Expr::Kind::kIndSize, DType::kInt64, pos);
  }
  if (std::optional<int> parameter = FindParameter(name)) {
    const Parameter& p = parameters_[*parameter];
    if (p.raw) return ParseRawAccess(token, *parameter);
    Expr expr = Node(Expr::Kind::kParam, p.dtype, pos);
    expr.index = *parameter;
    return expr;
  }
  if (IsPunct("(")) return ParseCall(token);
  for (const Function& function : program_.functions) {
    if (function.name == name) Fail(pos, fmt::format("function '{}' is not called", name));
  }
  for (const Parameter& p : parameters_) {
    if (p.name == name) {
      Fail(pos, fmt::format("parameter '{}' is not available in {}", name, PartName(pos.part)));
    }
  }
  if (name == "i" || name == "_ind" || name == "_in_ind") {
    Fail(pos, fmt::format("'{}' is not available in {}", name, PartName(pos.part)));
  }
  Fail(pos, fmt::format("use of undeclared identifier '{}'", name));
}

Expr Parser::ParseRawAccess(const Token& name, int parameter) {
  const Parameter& p = parameters_[parameter];
  const SourcePos pos = name.pos;
  if (IsPunct(".")) {
    Next();
    if (ExpectIdentifier("size") != "size") {
      Fail(pos, fmt::format("raw parameter '{}' has only size()", p.name));
    }
    Expect("(", "'('");
    Expect(")", "')'");
    Expr expr = Node(Expr::Kind::kRawSize, DType::kInt64, pos);
    expr.index = parameter;
    return expr;
  }
  if (!IsPunct("[")) {
    Fail(pos, fmt::format("raw parameter '{}' is used only as {}[k] or {}.size()", p.name, p.name,
                          p.name));
  }
  const SourcePos bracket = Next().pos;
  DepthGuard guard(*this, bracket);
  Expr index = ParseExpr();
  Expect("]", "']'");
  if (!IsInteger(index.dtype)) {
    Fail(index.pos,
         fmt::format("the index of '{}' is {}, not an integer", p.name, DTypeName(index.dtype)));
  }
  Expr expr = Node(Expr::Kind::kRawLoad, p.dtype, pos);
  expr.index = parameter;
  // uint64 indices past INT64_MAX become negative: out of range either way.
  expr.operands.push_back(Convert(std::move(index), DType::kInt64, true));
  return expr;
}

Expr Parser::ParseCall(const Token& name) {
  const SourcePos pos = name.pos;
  Next();  // (
  DepthGuard guard(*this, pos);
  std::vector<Expr> arguments;
  if (!IsPunct(")")) {
    do {
      arguments.push_back(ParseExpr());
    } while (Accept(","));
  }
  Expect(")", "')' of the call");
  if (scope_ == Scope::kFunction && name.text == function_name_) {
    Fail(pos, fmt::format("function '{}' calls itself: recursion is not supported", name.text));
  }
  for (size_t f = 0; f < program_.functions.size(); ++f) {
    const Function& function = program_.functions[f];
    if (function.name != name.text) continue;
    if (scope_ == Scope::kIdentity) Fail(pos, "identity may not call preamble functions");
    if (arguments.size() != static_cast<size_t>(function.parameter_count)) {
      Fail(pos, fmt::format("function '{}' takes {} argument{}, {} given", name.text,
                            function.parameter_count, function.parameter_count == 1 ? "" : "s",
                            arguments.size()));
    }
    Expr expr = Node(Expr::Kind::kCall, function.result, pos);
    expr.index = static_cast<int>(f);
    for (size_t k = 0; k < arguments.size(); ++k) {
      expr.operands.push_back(Convert(std::move(arguments[k]), function.locals[k].dtype, true));
    }
    inlined_nodes_ += function_inlined_nodes_[f];
    if (inlined_nodes_ > kMaxInlinedNodes) {
      Fail(pos, fmt::format("more than {} nodes with every call inlined", kMaxInlinedNodes));
    }
    return expr;
  }
  const std::optional<MathName> math = FindMathFunction(name.text);
  if (!math) {
    if (name.text.starts_with("__")) {
      Fail(pos, fmt::format("'{}': identifiers starting with __ are reserved", name.text));
    }
    Fail(pos, fmt::format("unknown function '{}'", name.text));
  }
  std::vector<DType> given;
  for (const Expr& argument : arguments) given.push_back(argument.dtype);
  const MathTypes types = TypeMathCall(*math, name.text, given, pos);
  Expr expr = Node(Expr::Kind::kMath, types.result, pos);
  expr.math = math->fn;
  for (size_t k = 0; k < arguments.size(); ++k) {
    expr.operands.push_back(Convert(std::move(arguments[k]), types.arguments[k], true));
  }
  return expr;
}

}  // namespace arrayhub::kernel
