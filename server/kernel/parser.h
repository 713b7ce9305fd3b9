// The parser and type checker in one pass (C declares before use, so every name and type is
// known when it is read): tokens in, checked tree (program.h) out. Every refusal throws
// KernelError. One Parser checks all parts of one kernel, so the budgets (limits.h) span them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/kernel/checked_kernel.h"
#include "server/kernel/lexer.h"
#include "server/kernel/program.h"

namespace arrayhub::kernel {

// What the names of a part may refer to.
enum class Scope : uint8_t {
  kOperation,  // Elementwise operation: every parameter, i, _ind.size().
  kMap,        // map_expr: inputs, i, _ind.size() (and _in_ind.size()).
  kReduce,     // reduce_expr: locals a and b only.
  kPostMap,    // post_map_expr: local a, scalar inputs, non-raw outputs.
  kIdentity,   // identity: literals and math only.
  kFunction,   // A preamble function's body: its own parameters and locals.
  kTypeOnly,   // reduce_type.
};

class Parser {
 public:
  // `parameters` are bound (dtypes resolved); `placeholders` maps each placeholder to its
  // dtype. `program` receives the functions and counts the loops.
  Parser(const std::vector<Parameter>& parameters, std::map<std::string, DType> placeholders,
         Program& program);

  // The preamble: __device__ function definitions, added to program.functions.
  void ParsePreamble(std::vector<Token> tokens);
  // Statements (operation, post_map_expr). `predeclared` locals come first (post_map's a).
  // `last_semicolon_optional`: CuPy pastes operation and post_map_expr followed by ';', so
  // their last statement may lack its own.
  Body ParseBody(std::vector<Token> tokens, Scope scope, std::vector<Local> predeclared,
                 bool last_semicolon_optional);
  // One whole expression (map_expr, reduce_expr, identity), converted to `result`.
  Expr ParseExpression(std::vector<Token> tokens, Scope scope, std::vector<Local> predeclared,
                       DType result);
  // One whole type (reduce_type).
  DType ParseTypeName(std::vector<Token> tokens);

 private:
  struct TypeSpec {
    DType dtype;
    bool is_const;
  };

  // Tokens.
  const Token& Peek(int ahead = 0) const;
  const Token& Next();
  bool IsPunct(std::string_view text, int ahead = 0) const;
  bool IsWord(std::string_view text, int ahead = 0) const;
  bool Accept(std::string_view punct);
  const Token& Expect(std::string_view punct, std::string_view what);
  std::string ExpectIdentifier(std::string_view what);
  void ExpectEnd();
  void Start(std::vector<Token> tokens, Scope scope, std::vector<Local> predeclared);

  // Budgets.
  void AddNodes(int64_t count, SourcePos pos);
  struct DepthGuard {
    explicit DepthGuard(Parser& parser, SourcePos pos);
    ~DepthGuard();
    Parser& parser;
  };

  // Types.
  bool IsTypeStart(int ahead = 0) const;
  TypeSpec ParseType();
  std::optional<DType> NamedType(const std::string& word) const;

  // Expressions.
  Expr ParseExpr();
  Expr ParseConditional();
  Expr ParseBinary(int min_precedence);
  Expr ParseUnary();
  Expr ParsePostfix();
  Expr ParsePrimary();
  Expr ParseIdentifier(const Token& token);
  Expr ParseCall(const Token& name);
  Expr ParseRawAccess(const Token& name, int parameter);
  Expr MakeBinary(BinaryOp op, Expr left, Expr right, SourcePos pos);
  Expr Convert(Expr expr, DType to, bool implicit);
  Expr ToBool(Expr expr);
  Expr Node(Expr::Kind kind, DType dtype, SourcePos pos);

  // Statements.
  // Appends the statement's nodes to `list`: none for ';', one per declarator of a
  // declaration (a declaration's names belong to the enclosing block).
  void ParseStatement(std::vector<Stmt>& list);
  // The one statement of an if branch or a loop body.
  Stmt ParseSubstatement();
  Stmt ParseBlock();
  Stmt ParseIf(SourcePos pos);
  Stmt ParseFor(SourcePos pos);
  void ParseDeclaration(std::vector<Stmt>& list);
  Stmt ParseAssignment();
  Stmt MakeAssign(Expr target, std::string_view op, Expr value, SourcePos pos);
  void ExpectStatementEnd();
  Stmt StmtNode(Stmt::Kind kind, SourcePos pos);
  void ParseFunction();

  // Names.
  int DeclareLocal(const std::string& name, DType dtype, bool is_const, SourcePos pos);
  std::optional<int> FindLocal(const std::string& name) const;
  std::optional<int> FindParameter(const std::string& name) const;
  void CheckNewName(const std::string& name, SourcePos pos) const;
  bool IsInvariant(const Expr& expr) const;

  const std::vector<Parameter>& parameters_;
  std::map<std::string, DType> placeholders_;
  Program& program_;

  // Budgets over all parts.
  int64_t nodes_ = 0;
  int depth_ = 0;

  // The part being parsed.
  std::vector<Token> tokens_;
  size_t at_ = 0;
  Scope scope_ = Scope::kOperation;
  std::vector<Local> locals_;
  std::vector<std::pair<std::string, int>> names_;  // Visible locals, innermost last.
  std::vector<int> loop_variables_;                 // Of the enclosing loops.
  int function_result_ = -1;                        // kFunction: the result dtype.
  std::string function_name_;
  bool last_semicolon_optional_ = false;
  // Nodes of the part, callees' inlined counts included (kMaxInlinedNodes).
  int64_t inlined_nodes_ = 0;
  std::vector<int64_t> function_inlined_nodes_;
};

}  // namespace arrayhub::kernel
