// Statements and preamble functions (parser.h).
#include <fmt/format.h>

#include "server/kernel/kernel_error.h"
#include "server/kernel/limits.h"
#include "server/kernel/parser.h"
#include "server/kernel/type_rules.h"

namespace arrayhub::kernel {
namespace {

constexpr std::string_view kAssignOps[] = {
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};

std::optional<BinaryOp> CompoundOp(std::string_view op) {
  if (op == "+=") return BinaryOp::kAdd;
  if (op == "-=") return BinaryOp::kSub;
  if (op == "*=") return BinaryOp::kMul;
  if (op == "/=") return BinaryOp::kDiv;
  if (op == "%=") return BinaryOp::kMod;
  if (op == "&=") return BinaryOp::kBitAnd;
  if (op == "|=") return BinaryOp::kBitOr;
  if (op == "^=") return BinaryOp::kBitXor;
  if (op == "<<=") return BinaryOp::kShl;
  if (op == ">>=") return BinaryOp::kShr;
  return std::nullopt;
}

}  // namespace

Stmt Parser::StmtNode(Stmt::Kind kind, SourcePos pos) {
  AddNodes(1, pos);
  Stmt stmt;
  stmt.kind = kind;
  stmt.pos = pos;
  return stmt;
}

void Parser::ExpectStatementEnd() {
  if (last_semicolon_optional_ && Peek().kind == Token::Kind::kEnd) return;
  Expect(";", "';'");
}

Stmt Parser::ParseSubstatement() {
  const SourcePos pos = Peek().pos;
  std::vector<Stmt> list;
  ParseStatement(list);
  if (list.size() == 1) {
    Stmt only = std::move(list[0]);
    return only;
  }
  // `if (c) int a = 1, b = 2;`: a scope of its own, as in C++.
  Stmt block = StmtNode(Stmt::Kind::kBlock, pos);
  block.body = std::move(list);
  return block;
}

void Parser::ParseStatement(std::vector<Stmt>& list) {
  const Token& token = Peek();
  const SourcePos pos = token.pos;
  DepthGuard guard(*this, pos);
  if (IsPunct("{")) {
    list.push_back(ParseBlock());
    return;
  }
  if (IsPunct(";")) {
    Next();
    return;
  }
  if (token.kind == Token::Kind::kIdentifier) {
    const std::string& word = token.text;
    if (word == "if") {
      list.push_back(ParseIf(pos));
      return;
    }
    if (word == "for") {
      list.push_back(ParseFor(pos));
      return;
    }
    if (word == "while" || word == "do") {
      Fail(pos, fmt::format("{} loops are not supported: use a for loop with a bound", word));
    }
    if (word == "goto") Fail(pos, "goto is not supported");
    if (word == "switch") Fail(pos, "switch is not supported: use if and else");
    if (word == "asm" || word == "__asm__") Fail(pos, "inline assembly is not supported");
    if (word == "break" || word == "continue") {
      Next();
      if (loop_variables_.empty()) Fail(pos, fmt::format("{} outside a loop", word));
      ExpectStatementEnd();
      list.push_back(StmtNode(word == "break" ? Stmt::Kind::kBreak : Stmt::Kind::kContinue, pos));
      return;
    }
    if (word == "return") {
      Next();
      if (scope_ != Scope::kFunction) {
        Fail(pos, fmt::format("return is only allowed in preamble functions, not in {}",
                              PartName(pos.part)));
      }
      if (IsPunct(";")) Fail(pos, fmt::format("'{}' must return a value", function_name_));
      Stmt stmt = StmtNode(Stmt::Kind::kReturn, pos);
      stmt.operands.push_back(Convert(ParseExpr(), static_cast<DType>(function_result_), true));
      ExpectStatementEnd();
      list.push_back(std::move(stmt));
      return;
    }
    if (word == "else") Fail(pos, "else without if");
    if (IsTypeStart()) {
      ParseDeclaration(list);
      ExpectStatementEnd();
      return;
    }
  }
  list.push_back(ParseAssignment());
  ExpectStatementEnd();
}

Stmt Parser::ParseBlock() {
  Stmt block = StmtNode(Stmt::Kind::kBlock, Expect("{", "'{'").pos);
  const size_t scope = names_.size();
  while (!IsPunct("}")) {
    if (Peek().kind == Token::Kind::kEnd) Fail(block.pos, "unterminated block: expected '}'");
    ParseStatement(block.body);
  }
  Next();
  names_.resize(scope);
  return block;
}

Stmt Parser::ParseIf(SourcePos pos) {
  Next();
  Expect("(", "'(' after if");
  Stmt stmt = StmtNode(Stmt::Kind::kIf, pos);
  stmt.operands.push_back(ToBool(ParseExpr()));
  Expect(")", "')' of the condition");
  // Each branch is a scope of its own, as in C++.
  size_t scope = names_.size();
  stmt.body.push_back(ParseSubstatement());
  names_.resize(scope);
  if (IsWord("else")) {
    Next();
    scope = names_.size();
    stmt.body.push_back(ParseSubstatement());
    names_.resize(scope);
  }
  return stmt;
}

Stmt Parser::ParseFor(SourcePos pos) {
  constexpr std::string_view kForm =
      "for loops need the form for (int k = start; k < bound; ++k) with start and bound "
      "invariant";
  Next();
  if (loop_variables_.size() >= static_cast<size_t>(kMaxLoopNesting)) {
    Fail(pos, fmt::format("loops nested more than {} deep", kMaxLoopNesting));
  }
  Expect("(", "'(' after for");
  const size_t scope = names_.size();
  Stmt stmt = StmtNode(Stmt::Kind::kFor, pos);
  stmt.loop = program_.loop_count++;
  if (!IsTypeStart()) Fail(Peek().pos, fmt::format("{}: declare the loop variable", kForm));
  const SourcePos type_pos = Peek().pos;
  const TypeSpec type = ParseType();
  if (!IsInteger(type.dtype)) {
    Fail(type_pos,
         fmt::format("the loop variable must be an integer, not {}", DTypeName(type.dtype)));
  }
  const SourcePos name_pos = Peek().pos;
  const std::string name = ExpectIdentifier("the loop variable's name");
  Expect("=", "'=' and the loop's start");
  Expr init = Convert(ParseExpr(), type.dtype, true);
  if (!IsInvariant(init)) {
    Fail(init.pos,
         "the loop's start must be invariant: literals, scalar parameters, "
         "x.size() and arithmetic of those");
  }
  Expect(";", "';' after the loop's start");
  stmt.index = DeclareLocal(name, type.dtype, false, name_pos);

  const Token& var = Peek();
  if (var.kind != Token::Kind::kIdentifier || var.text != name) {
    Fail(var.pos, fmt::format("{}: the condition compares '{}' with a bound", kForm, name));
  }
  Next();
  const Token& compare = Next();
  if (compare.kind != Token::Kind::kPunct ||
      !(compare.text == "<" || compare.text == "<=" || compare.text == ">" ||
        compare.text == ">=" || compare.text == "!=")) {
    Fail(compare.pos,
         fmt::format("{}: the condition is '{}' <, <=, >, >= or != a bound", kForm, name));
  }
  stmt.compare = compare.text == "<"    ? Stmt::Compare::kLess
                 : compare.text == "<=" ? Stmt::Compare::kLessEqual
                 : compare.text == ">"  ? Stmt::Compare::kGreater
                 : compare.text == ">=" ? Stmt::Compare::kGreaterEqual
                                        : Stmt::Compare::kNotEqual;
  Expr bound = ParseBinary(8);  // Stops before comparisons, && and ||.
  if (!IsInteger(bound.dtype)) {
    Fail(bound.pos,
         fmt::format("the loop's bound must be an integer, not {}", DTypeName(bound.dtype)));
  }
  if (!IsInvariant(bound)) {
    Fail(bound.pos,
         "the loop's bound must be invariant: literals, scalar parameters, "
         "x.size() and arithmetic of those");
  }
  Expect(";", fmt::format("';' after the condition ({})", kForm));

  // The step: ++k, k++, --k, k--, k += c, k -= c with c an integer literal.
  const SourcePos step_pos = Peek().pos;
  const auto expect_var = [&] {
    const Token& token = Peek();
    if (token.kind != Token::Kind::kIdentifier || token.text != name) {
      Fail(token.pos, fmt::format("{}: the step changes '{}'", kForm, name));
    }
    Next();
  };
  if (IsPunct("++") || IsPunct("--")) {
    stmt.step = Next().text == "++" ? 1 : -1;
    expect_var();
  } else {
    expect_var();
    if (IsPunct("++") || IsPunct("--")) {
      stmt.step = Next().text == "++" ? 1 : -1;
    } else if (IsPunct("+=") || IsPunct("-=")) {
      const bool down = Next().text == "-=";
      const bool negative = Accept("-");
      const Token& amount = Next();
      if (amount.kind != Token::Kind::kInteger || amount.int_value == 0 ||
          amount.int_value > static_cast<uint64_t>(INT64_MAX)) {
        Fail(amount.pos, "the loop's step must be a nonzero integer literal");
      }
      const int64_t magnitude = static_cast<int64_t>(amount.int_value);
      stmt.step = (down != negative) ? -magnitude : magnitude;
    } else {
      Fail(step_pos, fmt::format("{}: the step is ++{}, {}++, --{}, {}--, {} += c or {} -= c",
                                 kForm, name, name, name, name, name, name));
    }
  }
  Expect(")", "')' of the for");
  stmt.operands.push_back(std::move(init));
  stmt.operands.push_back(std::move(bound));
  loop_variables_.push_back(stmt.index);
  stmt.body.push_back(ParseSubstatement());
  loop_variables_.pop_back();
  names_.resize(scope);
  return stmt;
}

void Parser::ParseDeclaration(std::vector<Stmt>& list) {
  const TypeSpec type = ParseType();
  do {
    const Token& token = Peek();
    if (IsPunct("*")) Fail(token.pos, "pointers are not supported");
    if (IsPunct("&")) Fail(token.pos, "references are not supported");
    const SourcePos name_pos = token.pos;
    const std::string name = ExpectIdentifier("a variable name");
    if (IsPunct("[")) Fail(Peek().pos, "arrays are not supported");
    if (IsPunct("(")) Fail(Peek().pos, "functions are defined only in the preamble");
    Stmt stmt = StmtNode(Stmt::Kind::kDeclare, name_pos);
    if (Accept("=")) {
      if (IsPunct("{")) Fail(Peek().pos, "initialiser lists are not supported");
      stmt.operands.push_back(Convert(ParseExpr(), type.dtype, true));
      stmt.has_value = true;
    } else if (type.is_const) {
      Fail(name_pos, fmt::format("const '{}' needs an initialiser", name));
    }
    stmt.index = DeclareLocal(name, type.dtype, type.is_const, name_pos);
    list.push_back(std::move(stmt));
  } while (Accept(","));
}

Stmt Parser::ParseAssignment() {
  const SourcePos pos = Peek().pos;
  if (IsPunct("++") || IsPunct("--")) {  // ++x
    const std::string op = Next().text;
    Expr target = ParsePostfix();
    Expr one = Node(Expr::Kind::kLiteral, DType::kInt32, pos);
    one.int_value = 1;
    return MakeAssign(std::move(target), op == "++" ? "+=" : "-=", std::move(one), pos);
  }
  Expr target = ParseExpr();
  const Token& op = Peek();
  if (op.kind == Token::Kind::kPunct && (op.text == "++" || op.text == "--")) {  // x++
    const SourcePos op_pos = Next().pos;
    Expr one = Node(Expr::Kind::kLiteral, DType::kInt32, op_pos);
    one.int_value = 1;
    return MakeAssign(std::move(target), op.text == "++" ? "+=" : "-=", std::move(one), op_pos);
  }
  for (std::string_view assign : kAssignOps) {
    if (op.kind == Token::Kind::kPunct && op.text == assign) {
      const Token& op_token = Next();
      const std::string text = op_token.text;
      const SourcePos op_pos = op_token.pos;
      Expr value = ParseExpr();
      if (IsPunct("++") || IsPunct("--")) {
        Fail(Peek().pos,
             fmt::format("{} is a statement here, not part of an expression", Peek().text));
      }
      if (IsPunct("=") || CompoundOp(Peek().text)) {
        Fail(Peek().pos, "chained assignments are not supported");
      }
      if (IsPunct(",")) Fail(Peek().pos, "the comma operator is not supported");
      return MakeAssign(std::move(target), text, std::move(value), op_pos);
    }
  }
  if (op.kind == Token::Kind::kPunct && op.text == ",") {
    Fail(op.pos, "the comma operator is not supported");
  }
  Fail(pos,
       "expected a statement: a declaration, an assignment, ++ or --, if, for, break, "
       "continue or a block");
}

Stmt Parser::MakeAssign(Expr target, std::string_view op, Expr value, SourcePos pos) {
  Stmt stmt = StmtNode(Stmt::Kind::kAssign, target.pos);
  switch (target.kind) {
    case Expr::Kind::kLocal: {
      const Local& local = locals_[target.index];
      for (int variable : loop_variables_) {
        if (variable == target.index) {
          Fail(target.pos, fmt::format("cannot assign to loop variable '{}'", local.name));
        }
      }
      if (local.is_const) Fail(target.pos, fmt::format("cannot assign to const '{}'", local.name));
      stmt.target = Stmt::Target::kLocal;
      break;
    }
    case Expr::Kind::kParam:
    case Expr::Kind::kRawLoad: {
      const Parameter& p = parameters_[target.index];
      if (!p.output) {
        Fail(target.pos, fmt::format("cannot assign to input parameter '{}'", p.name));
      }
      stmt.target = target.kind == Expr::Kind::kParam ? Stmt::Target::kOutput : Stmt::Target::kRaw;
      break;
    }
    default:
      Fail(target.pos, "expression is not assignable");
  }
  stmt.index = target.index;
  const DType type = target.dtype;
  if (stmt.target == Stmt::Target::kRaw) stmt.operands.push_back(target.operands[0]);
  if (std::optional<BinaryOp> binary = CompoundOp(op)) {
    value = MakeBinary(*binary, std::move(target), std::move(value), pos);
    value = Convert(std::move(value), type, false);  // x op= v stores (T)(x op v).
  } else {
    value = Convert(std::move(value), type, true);
  }
  stmt.operands.push_back(std::move(value));
  return stmt;
}

Body Parser::ParseBody(std::vector<Token> tokens, Scope scope, std::vector<Local> predeclared,
                       bool last_semicolon_optional) {
  Start(std::move(tokens), scope, std::move(predeclared));
  last_semicolon_optional_ = last_semicolon_optional;
  Body body;
  body.block = StmtNode(Stmt::Kind::kBlock, Peek().pos);
  while (Peek().kind != Token::Kind::kEnd) ParseStatement(body.block.body);
  last_semicolon_optional_ = false;
  body.locals = std::move(locals_);
  return body;
}

void Parser::ParsePreamble(std::vector<Token> tokens) {
  Start(std::move(tokens), Scope::kFunction, {});
  while (Peek().kind != Token::Kind::kEnd) ParseFunction();
}

void Parser::ParseFunction() {
  const SourcePos pos = Peek().pos;
  bool device = false;
  while (Peek().kind == Token::Kind::kIdentifier) {
    const std::string& word = Peek().text;
    if (word == "__device__") {
      device = true;
    } else if (word != "inline" && word != "__forceinline__" && word != "__inline__" &&
               word != "static") {
      break;
    }
    Next();
  }
  if (IsWord("template")) Fail(Peek().pos, "templates are not supported");
  if (IsWord("struct") || IsWord("class") || IsWord("typedef") || IsWord("using")) {
    Fail(Peek().pos, fmt::format("{} is not supported: the preamble defines only __device__ "
                                 "functions",
                                 Peek().text));
  }
  if (!device) {
    Fail(pos, "the preamble defines only __device__ functions: expected __device__");
  }
  if (program_.functions.size() >= static_cast<size_t>(kMaxFunctions)) {
    Fail(pos, fmt::format("more than {} functions", kMaxFunctions));
  }
  if (IsWord("void")) Fail(Peek().pos, "functions must return a value: void is not supported");
  const TypeSpec result = ParseType();
  const SourcePos name_pos = Peek().pos;
  if (IsPunct("*")) Fail(name_pos, "pointers are not supported");
  if (IsPunct("&")) Fail(name_pos, "references are not supported");
  const std::string name = ExpectIdentifier("the function's name");
  CheckNewName(name, name_pos);

  // Fresh state for the function's body.
  locals_.clear();
  names_.clear();
  loop_variables_.clear();
  inlined_nodes_ = 0;
  function_name_ = name;
  function_result_ = static_cast<int>(result.dtype);

  Function function;
  function.name = name;
  function.result = result.dtype;
  function.pos = name_pos;
  Expect("(", "'(' of the parameter list");
  if (IsWord("void") && IsPunct(")", 1)) Next();
  if (!IsPunct(")")) {
    do {
      const TypeSpec type = ParseType();
      if (IsPunct("*")) Fail(Peek().pos, "pointers are not supported");
      if (IsPunct("&")) {
        if (!type.is_const) {
          Fail(Peek().pos, "reference parameters are not supported (const references are)");
        }
        Next();  // A const reference reads as a copy.
      }
      const SourcePos param_pos = Peek().pos;
      const std::string param = ExpectIdentifier("a parameter name");
      if (IsPunct("[")) Fail(Peek().pos, "arrays are not supported");
      DeclareLocal(param, type.dtype, type.is_const, param_pos);
      ++function.parameter_count;
    } while (Accept(","));
  }
  Expect(")", "')' of the parameter list");
  if (IsPunct(";")) Fail(Peek().pos, "function declarations without a body are not supported");
  function.body = ParseBlock();
  function.locals = std::move(locals_);
  locals_.clear();
  names_.clear();
  function_name_.clear();
  function_result_ = -1;
  function_inlined_nodes_.push_back(inlined_nodes_);
  program_.functions.push_back(std::move(function));
}

}  // namespace arrayhub::kernel
