// Tokens, names, types and budgets of the parser (parser.h); expressions are parse_expr.cc's,
// statements and functions parse_stmt.cc's.
#include "server/kernel/parser.h"

#include <fmt/format.h>

#include "server/kernel/kernel_error.h"
#include "server/kernel/limits.h"
#include "server/kernel/math_functions.h"
#include "server/kernel/type_rules.h"

namespace arrayhub::kernel {
namespace {

// Words of C and CUDA that name a construct the language does not have.
constexpr std::string_view kUnsupportedWords[] = {
    "while",    "do",     "goto",     "switch",   "case",      "default",  "asm",
    "struct",   "union",  "class",    "enum",     "typedef",   "template", "new",
    "delete",   "extern", "static",   "volatile", "register",  "auto",     "this",
    "operator", "throw",  "try",      "catch",    "namespace", "using",    "typename",
    "nullptr",  "NULL",   "void",     "sizeof",   "return",    "if",       "else",
    "for",      "break",  "continue", "inline",   "const",     "signed",   "unsigned",
};

// The words a multi-word C integer type is made of.
bool IsIntegerWord(std::string_view word) {
  return word == "unsigned" || word == "signed" || word == "char" || word == "short" ||
         word == "int" || word == "long";
}

}  // namespace

Parser::Parser(const std::vector<Parameter>& parameters, std::map<std::string, DType> placeholders,
               Program& program)
    : parameters_(parameters), placeholders_(std::move(placeholders)), program_(program) {}

const Token& Parser::Peek(int ahead) const {
  const size_t k = std::min(at_ + ahead, tokens_.size() - 1);
  return tokens_[k];
}

const Token& Parser::Next() {
  const Token& token = tokens_[at_];
  if (at_ + 1 < tokens_.size()) ++at_;
  return token;
}

bool Parser::IsPunct(std::string_view text, int ahead) const {
  const Token& token = Peek(ahead);
  return token.kind == Token::Kind::kPunct && token.text == text;
}

bool Parser::IsWord(std::string_view text, int ahead) const {
  const Token& token = Peek(ahead);
  return token.kind == Token::Kind::kIdentifier && token.text == text;
}

bool Parser::Accept(std::string_view punct) {
  if (!IsPunct(punct)) return false;
  Next();
  return true;
}

const Token& Parser::Expect(std::string_view punct, std::string_view what) {
  // A '>>' closing two template lists: take its first '>' and leave the second.
  if (punct == ">" && IsPunct(">>")) {
    Token& token = tokens_[at_];
    token.text.pop_back();  // ">>" -> ">"
    ++token.pos.column;
    return token;
  }
  if (!IsPunct(punct)) {
    const Token& token = Peek();
    Fail(token.pos, fmt::format("expected {}, found {}", what,
                                token.kind == Token::Kind::kEnd ? std::string("the end")
                                                                : fmt::format("'{}'", token.text)));
  }
  return Next();
}

std::string Parser::ExpectIdentifier(std::string_view what) {
  const Token& token = Peek();
  if (token.kind != Token::Kind::kIdentifier) {
    Fail(token.pos, fmt::format("expected {}, found {}", what,
                                token.kind == Token::Kind::kEnd ? std::string("the end")
                                                                : fmt::format("'{}'", token.text)));
  }
  return Next().text;
}

void Parser::ExpectEnd() {
  const Token& token = Peek();
  if (token.kind != Token::Kind::kEnd) {
    Fail(token.pos, fmt::format("unexpected '{}' after the end", token.text));
  }
}

void Parser::Start(std::vector<Token> tokens, Scope scope, std::vector<Local> predeclared) {
  tokens_ = std::move(tokens);
  at_ = 0;
  scope_ = scope;
  locals_.clear();
  names_.clear();
  loop_variables_.clear();
  inlined_nodes_ = 0;
  for (Local& local : predeclared) {
    const std::string name = local.name;
    locals_.push_back(std::move(local));
    names_.emplace_back(name, static_cast<int>(locals_.size()) - 1);
  }
}

void Parser::AddNodes(int64_t count, SourcePos pos) {
  nodes_ += count;
  inlined_nodes_ += count;
  if (nodes_ > kMaxNodes) Fail(pos, fmt::format("more than {} nodes", kMaxNodes));
  if (inlined_nodes_ > kMaxInlinedNodes) {
    Fail(pos, fmt::format("more than {} nodes with every call inlined", kMaxInlinedNodes));
  }
}

Parser::DepthGuard::DepthGuard(Parser& parser, SourcePos pos) : parser(parser) {
  if (++parser.depth_ > kMaxDepth) {
    Fail(pos, fmt::format("nested more than {} levels deep", kMaxDepth));
  }
}

Parser::DepthGuard::~DepthGuard() { --parser.depth_; }

std::optional<DType> Parser::NamedType(const std::string& word) const {
  if (const auto it = placeholders_.find(word); it != placeholders_.end()) return it->second;
  if (word.starts_with("type_")) {  // CuPy's typedef of each parameter's type.
    if (std::optional<int> p = FindParameter(word.substr(5))) return parameters_[*p].dtype;
  }
  return TypeFromWord(word);
}

bool Parser::IsTypeStart(int ahead) const {
  const Token& token = Peek(ahead);
  if (token.kind != Token::Kind::kIdentifier) return false;
  const std::string& word = token.text;
  if (word == "const" || word == "complex" || word == "thrust" || word == "bool") return true;
  // A local or parameter hides nothing: names that are types are refused as names.
  return NamedType(word).has_value();
}

Parser::TypeSpec Parser::ParseType() {
  TypeSpec spec{DType::kInt32, false};
  const SourcePos pos = Peek().pos;
  while (IsWord("const")) {
    Next();
    spec.is_const = true;
  }
  if (IsWord("thrust") && IsPunct("::", 1)) {
    Next();
    Next();
    if (!IsWord("complex")) Fail(Peek().pos, "expected complex after thrust::");
  }
  if (IsWord("complex")) {
    Next();
    Expect("<", "'<' of complex<...>");
    const SourcePos inner_pos = Peek().pos;
    const TypeSpec inner = ParseType();
    Expect(">", "'>' of complex<...>");
    if (inner.dtype == DType::kFloat32) {
      spec.dtype = DType::kComplex64;
    } else if (inner.dtype == DType::kFloat64) {
      spec.dtype = DType::kComplex128;
    } else {
      Fail(inner_pos, fmt::format("complex<{}> is not supported: use complex<float> or "
                                  "complex<double>",
                                  DTypeName(inner.dtype)));
    }
  } else if (Peek().kind == Token::Kind::kIdentifier && IsIntegerWord(Peek().text)) {
    bool is_unsigned = false;
    bool is_signed = false;
    int longs = 0;
    int shorts = 0;
    int chars = 0;
    int ints = 0;
    while (Peek().kind == Token::Kind::kIdentifier &&
           (IsIntegerWord(Peek().text) || Peek().text == "const")) {
      const std::string word = Next().text;
      if (word == "unsigned") is_unsigned = true;
      if (word == "signed") is_signed = true;
      if (word == "long") ++longs;
      if (word == "short") ++shorts;
      if (word == "char") ++chars;
      if (word == "int") ++ints;
      if (word == "const") spec.is_const = true;
    }
    if (IsWord("double") && longs > 0) Fail(pos, "long double is not supported");
    if ((is_unsigned && is_signed) || longs > 2 || shorts > 1 || chars > 1 || ints > 1 ||
        (chars + shorts + (longs > 0 ? 1 : 0) > 1) || (chars > 0 && ints > 0)) {
      Fail(pos, "invalid combination of type words");
    }
    DType dtype = is_unsigned ? DType::kUInt32 : DType::kInt32;
    if (chars > 0) dtype = is_unsigned ? DType::kUInt8 : DType::kInt8;
    if (shorts > 0) dtype = is_unsigned ? DType::kUInt16 : DType::kInt16;
    if (longs > 0) dtype = is_unsigned ? DType::kUInt64 : DType::kInt64;
    spec.dtype = dtype;
  } else {
    const Token& token = Peek();
    std::optional<DType> dtype;
    if (token.kind == Token::Kind::kIdentifier) dtype = NamedType(token.text);
    if (!dtype) {
      if (token.kind == Token::Kind::kIdentifier && token.text == "void") {
        Fail(token.pos, "void is not supported here");
      }
      Fail(token.pos,
           fmt::format("expected a type, found {}", token.kind == Token::Kind::kEnd
                                                        ? std::string("the end")
                                                        : fmt::format("'{}'", token.text)));
    }
    Next();
    spec.dtype = *dtype;
  }
  while (IsWord("const")) {
    Next();
    spec.is_const = true;
  }
  return spec;
}

std::optional<int> Parser::FindLocal(const std::string& name) const {
  for (auto it = names_.rbegin(); it != names_.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return std::nullopt;
}

std::optional<int> Parser::FindParameter(const std::string& name) const {
  for (size_t k = 0; k < parameters_.size(); ++k) {
    const Parameter& p = parameters_[k];
    if (p.name != name) continue;
    switch (scope_) {
      case Scope::kOperation:
        return static_cast<int>(k);
      case Scope::kMap:
        if (!p.output) return static_cast<int>(k);
        return std::nullopt;
      case Scope::kPostMap:
        if ((p.output && !p.raw) || p.scalar) return static_cast<int>(k);
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

void Parser::CheckNewName(const std::string& name, SourcePos pos) const {
  if (name.starts_with("__")) {
    Fail(pos, fmt::format("'{}': identifiers starting with __ are reserved", name));
  }
  for (std::string_view word : kUnsupportedWords) {
    if (word == name) Fail(pos, fmt::format("'{}' is a keyword", name));
  }
  if (name == "true" || name == "false" || name == "static_cast" || name == "complex") {
    Fail(pos, fmt::format("'{}' is a keyword", name));
  }
  if (NamedType(name)) Fail(pos, fmt::format("'{}' names a type", name));
  if (FindLocal(name)) Fail(pos, fmt::format("redeclaration of '{}'", name));
  if (scope_ != Scope::kFunction) {
    for (const Parameter& p : parameters_) {
      if (p.name == name) Fail(pos, fmt::format("'{}' is a parameter", name));
    }
    if (name == "i" || name == "_ind" || name == "_in_ind") {
      Fail(pos, fmt::format("'{}' is reserved", name));
    }
  }
  for (const Function& function : program_.functions) {
    if (function.name == name) Fail(pos, fmt::format("'{}' is a function", name));
  }
  if (FindMathFunction(name)) Fail(pos, fmt::format("'{}' is a math function", name));
}

int Parser::DeclareLocal(const std::string& name, DType dtype, bool is_const, SourcePos pos) {
  CheckNewName(name, pos);
  if (locals_.size() >= static_cast<size_t>(kMaxLocals)) {
    Fail(pos, fmt::format("more than {} local variables", kMaxLocals));
  }
  locals_.push_back(Local{name, dtype, is_const, pos});
  const int index = static_cast<int>(locals_.size()) - 1;
  names_.emplace_back(name, index);
  return index;
}

bool Parser::IsInvariant(const Expr& expr) const {
  switch (expr.kind) {
    case Expr::Kind::kLiteral:
    case Expr::Kind::kRawSize:
      break;
    case Expr::Kind::kParam:
      if (!parameters_[expr.index].scalar) return false;
      break;
    case Expr::Kind::kCast:
    case Expr::Kind::kUnary:
    case Expr::Kind::kBinary:
    case Expr::Kind::kConditional:
      if (IsComplex(expr.dtype)) return false;
      break;
    case Expr::Kind::kMath:
      if (expr.math != MathFn::kMin && expr.math != MathFn::kMax && expr.math != MathFn::kAbs) {
        return false;
      }
      break;
    default:
      return false;
  }
  for (const Expr& operand : expr.operands) {
    if (!IsInvariant(operand)) return false;
  }
  return true;
}

DType Parser::ParseTypeName(std::vector<Token> tokens) {
  Start(std::move(tokens), Scope::kTypeOnly, {});
  const TypeSpec type = ParseType();
  ExpectEnd();
  return type.dtype;
}

Expr Parser::ParseExpression(std::vector<Token> tokens, Scope scope, std::vector<Local> predeclared,
                             DType result) {
  Start(std::move(tokens), scope, std::move(predeclared));
  Expr expr = ParseExpr();
  ExpectEnd();
  return Convert(std::move(expr), result, true);
}

}  // namespace arrayhub::kernel
