#include "server/kernel/lexer.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <limits>

#include "server/kernel/kernel_error.h"
#include "server/kernel/limits.h"

namespace arrayhub::kernel {
namespace {

// Longest first: the lexer takes the first that matches.
constexpr std::string_view kPuncts[] = {
    "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "+",  "-",
    "*",   "/",   "%",  "<",  ">",  "=",  "!",  "~",  "&",  "|",  "^",  "?",
    ":",   ";",   ",",  ".",  "(",  ")",  "[",  "]",  "{",  "}",
};

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

class Lexer {
 public:
  Lexer(std::string_view source, Part part, int64_t& budget)
      : source_(source), part_(part), budget_(budget) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      SkipSpaceAndComments();
      Token token;
      token.pos = Pos();
      if (at_ >= source_.size()) {
        token.kind = Token::Kind::kEnd;
        tokens.push_back(std::move(token));
        return tokens;
      }
      if (--budget_ < 0) Fail(token.pos, fmt::format("more than {} tokens", kMaxTokens));
      const char c = source_[at_];
      if (IsIdentStart(c)) {
        const size_t start = at_;
        while (at_ < source_.size() && IsIdentChar(source_[at_])) Advance();
        token.kind = Token::Kind::kIdentifier;
        token.text = std::string(source_.substr(start, at_ - start));
        if (token.text.size() > static_cast<size_t>(kMaxIdentifierBytes)) {
          Fail(token.pos, fmt::format("identifier longer than {} bytes", kMaxIdentifierBytes));
        }
      } else if (IsDigit(c) ||
                 (c == '.' && at_ + 1 < source_.size() && IsDigit(source_[at_ + 1]))) {
        Number(token);
      } else if (c == '"') {
        Fail(token.pos, "string literals are not supported");
      } else if (c == '\'') {
        Fail(token.pos, "character literals are not supported");
      } else if (c == '#') {
        Fail(token.pos, "preprocessor directives are not supported");
      } else {
        Punct(token);
      }
      tokens.push_back(std::move(token));
    }
  }

 private:
  SourcePos Pos() const { return SourcePos{part_, line_, column_}; }

  void Advance() {
    if (source_[at_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++at_;
  }

  void SkipSpaceAndComments() {
    while (at_ < source_.size()) {
      const char c = source_[at_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        Advance();
      } else if (source_.substr(at_, 2) == "//") {
        while (at_ < source_.size() && source_[at_] != '\n') Advance();
      } else if (source_.substr(at_, 2) == "/*") {
        const SourcePos start = Pos();
        Advance();
        Advance();
        while (at_ < source_.size() && source_.substr(at_, 2) != "*/") Advance();
        if (at_ >= source_.size()) Fail(start, "unterminated comment");
        Advance();
        Advance();
      } else {
        return;
      }
    }
  }

  void Punct(Token& token) {
    for (std::string_view punct : kPuncts) {
      if (source_.substr(at_, punct.size()) == punct) {
        for (size_t k = 0; k < punct.size(); ++k) Advance();
        token.kind = Token::Kind::kPunct;
        token.text = std::string(punct);
        return;
      }
    }
    const unsigned char c = static_cast<unsigned char>(source_[at_]);
    if (c >= 0x21 && c < 0x7f) Fail(token.pos, fmt::format("unexpected character '{}'", char(c)));
    Fail(token.pos, fmt::format("unexpected byte 0x{:02x}", c));
  }

  std::string_view TakeWhile(bool (*pred)(char)) {
    const size_t start = at_;
    while (at_ < source_.size() && pred(source_[at_])) Advance();
    return source_.substr(start, at_ - start);
  }

  void Number(Token& token) {
    const size_t start = at_;
    const bool hex = source_.substr(at_, 2) == "0x" || source_.substr(at_, 2) == "0X";
    if (hex) {
      Advance();
      Advance();
      if (TakeWhile(IsHexDigit).empty()) Fail(token.pos, "invalid hexadecimal literal");
      if (at_ < source_.size() && (source_[at_] == '.' || source_[at_] == 'p')) {
        Fail(token.pos, "hexadecimal floating literals are not supported");
      }
    } else {
      TakeWhile(IsDigit);
      bool is_float = false;
      if (at_ < source_.size() && source_[at_] == '.') {
        is_float = true;
        Advance();
        TakeWhile(IsDigit);
      }
      if (at_ < source_.size() && (source_[at_] == 'e' || source_[at_] == 'E')) {
        is_float = true;
        Advance();
        if (at_ < source_.size() && (source_[at_] == '+' || source_[at_] == '-')) Advance();
        if (TakeWhile(IsDigit).empty()) Fail(token.pos, "exponent has no digits");
      }
      if (is_float) return Float(token, source_.substr(start, at_ - start));
    }
    Integer(token, source_.substr(start, at_ - start), hex);
  }

  std::string Suffix() { return std::string(TakeWhile(IsIdentChar)); }

  void Float(Token& token, std::string_view digits) {
    token.kind = Token::Kind::kFloat;
    token.text = std::string(digits);
    const std::string suffix = Suffix();
    double value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    // Out of range: C gives infinity (or zero for underflow); from_chars leaves value alone.
    if (error == std::errc::result_out_of_range) {
      const bool tiny = digits.find_first_of("123456789") == std::string_view::npos ||
                        digits.find("e-") != std::string_view::npos ||
                        digits.find("E-") != std::string_view::npos;
      value = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (error != std::errc() || end != digits.data() + digits.size()) {
      Fail(token.pos, fmt::format("invalid floating literal '{}'", digits));
    }
    if (suffix.empty()) {
      token.dtype = DType::kFloat64;
      token.float_value = value;
    } else if (suffix == "f" || suffix == "F") {
      token.dtype = DType::kFloat32;
      token.float_value = static_cast<float>(value);
    } else {
      Fail(token.pos, fmt::format("invalid suffix '{}' on floating literal", suffix));
    }
  }

  void Integer(Token& token, std::string_view digits, bool hex) {
    token.kind = Token::Kind::kInteger;
    token.text = std::string(digits);
    const std::string suffix = Suffix();
    int base = 10;
    std::string_view body = digits;
    if (hex) {
      base = 16;
      body.remove_prefix(2);
    } else if (digits.size() > 1 && digits[0] == '0') {
      base = 8;
      body.remove_prefix(1);
    }
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), value, base);
    if (error == std::errc::result_out_of_range) Fail(token.pos, "integer literal is too large");
    if (error != std::errc() || end != body.data() + body.size()) {
      Fail(token.pos, fmt::format("invalid integer literal '{}'", digits));
    }
    bool is_unsigned = false;
    int longs = 0;
    for (char c : suffix) {
      if ((c == 'u' || c == 'U') && !is_unsigned) {
        is_unsigned = true;
      } else if ((c == 'l' || c == 'L') && longs < 2) {
        ++longs;
      } else {
        Fail(token.pos, fmt::format("invalid suffix '{}' on integer literal", suffix));
      }
    }
    token.int_value = value;
    // C++'s rule (long is 64 bits, as on Linux and in CUDA): the first type of the list that
    // holds the value; decimal literals without u are never unsigned.
    const bool decimal = base == 10;
    const uint64_t kInt32Max = std::numeric_limits<int32_t>::max();
    const uint64_t kUInt32Max = std::numeric_limits<uint32_t>::max();
    const uint64_t kInt64Max = std::numeric_limits<int64_t>::max();
    if (is_unsigned) {
      token.dtype = longs == 0 && value <= kUInt32Max ? DType::kUInt32 : DType::kUInt64;
    } else if (longs == 0 && value <= kInt32Max) {
      token.dtype = DType::kInt32;
    } else if (longs == 0 && !decimal && value <= kUInt32Max) {
      token.dtype = DType::kUInt32;
    } else if (value <= kInt64Max) {
      token.dtype = DType::kInt64;
    } else if (!decimal) {
      token.dtype = DType::kUInt64;
    } else {
      Fail(token.pos, "integer literal is too large for long long; add a u suffix");
    }
  }

  std::string_view source_;
  Part part_;
  int64_t& budget_;
  size_t at_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view source, Part part, int64_t& token_budget) {
  return Lexer(source, part, token_budget).Run();
}

}  // namespace arrayhub::kernel
