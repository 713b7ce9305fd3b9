// Ufunc type resolution against NumPy 2.4: every ufunc of ops.h over every tuple of the 14
// dtypes, with dtype= for every dtype, and arrays with weak Python scalars (NEP 50), from
// tests/core/ufunc_expected.inc (tests/reference/gen_ufunc_expected.py). Then the cases that
// the table does not show: scalar encodings, where's condition, copy, messages.

#include "server/core/ufunc_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace arrayhub {
namespace {

using ::testing::HasSubstr;

// --- The NumPy table ----------------------------------------------------------------------------

struct UfuncCase {
  std::string_view op;         // NumPy's name.
  std::string_view operands;   // Dtype names (arrays) and Python literals (weak scalars).
  std::string_view requested;  // dtype=, or "".
  std::string_view outcome;    // The result dtype, or "ErrorType[: message]".
  std::string_view loop;       // NumPy's loop input dtypes (one if all the same), or "".
};

constexpr UfuncCase kCases[] = {
#define AH_UFUNC_CASES
#include "tests/core/ufunc_expected.inc"
#undef AH_UFUNC_CASES
};

std::vector<std::string> Words(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// A Python literal as the generator writes it: True, -1, 9223372036854775808, 2.5, 1.5j.
Scalar ParseScalar(const std::string& literal) {
  if (literal == "True" || literal == "False") return Scalar::Bool(literal == "True");
  if (literal.back() == 'j') return Scalar::Complex({0.0, std::stod(literal)});
  if (literal.find_first_of(".e") != std::string::npos) return Scalar::Float(std::stod(literal));
  if (literal.front() == '-') return Scalar::Int(std::stoll(literal));
  const uint64_t value = std::stoull(literal);
  if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Scalar::UInt(value);
  }
  return Scalar::Int(static_cast<int64_t>(value));
}

std::vector<UfuncOperand> ParseOperands(std::string_view text) {
  std::vector<UfuncOperand> operands;
  for (const std::string& word : Words(text)) {
    if (std::optional<DType> dtype = DTypeFromName(word)) {
      operands.push_back({.array_dtype = dtype, .scalar = std::nullopt});
    } else {
      operands.push_back({.array_dtype = std::nullopt, .scalar = ParseScalar(word)});
    }
  }
  return operands;
}

bool IsError(std::string_view outcome) { return std::isupper(outcome.front()); }

// The message of an error outcome that NumPy's words must match, or "".
std::string_view ExactMessage(std::string_view outcome) {
  const size_t colon = outcome.find(": ");
  return colon == std::string_view::npos ? "" : outcome.substr(colon + 2);
}

// --- Deliberate differences from NumPy ----------------------------------------------------------

// dtype= that NumPy reaches only by same_kind input casts (add(float64, float64,
// dtype=float32)): refused here, since the backend converts operands only by safe casts.
bool NeedsUnsafeInputCast(const UfuncCase& c, const std::vector<UfuncOperand>& operands) {
  if (c.requested.empty() || IsError(c.outcome)) return false;
  const std::vector<std::string> loop = Words(c.loop);
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].array_dtype &&
        !CanCastSafely(*operands[i].array_dtype, *DTypeFromName(loop[loop.size() > 1 ? i : 0]))) {
      return true;
    }
  }
  return false;
}

// where(c, uint8 array, -1): NumPy casts the Python int unsafely (255); refused here as in
// every ufunc.
bool WhereWrapsPythonInt(const UfuncCase& c, const std::vector<UfuncOperand>& operands) {
  if (c.op != "where" || IsError(c.outcome)) return false;
  const DType result = *DTypeFromName(c.outcome);
  for (size_t i = 1; i < operands.size(); ++i) {
    if (operands[i].scalar && !EncodeScalar(*operands[i].scalar, result).ok()) return true;
  }
  return false;
}

// The compute dtype NumPy's loop implies, where the backend contract allows it: a loop's
// common input type. Mixed int64/uint64 comparison loops compute in float64 here, and the
// logical ufuncs read bool. nullopt where NumPy's table has no loop to compare.
std::optional<DType> ExpectedComputeDType(const UfuncCase& c, std::string* difference) {
  const std::vector<std::string> loop = Words(c.loop);
  if (loop.empty()) return std::nullopt;
  if (c.op.starts_with("logical_")) {
    *difference = "logical ufunc reads bool";
    return DType::kBool;
  }
  if (c.op == "ldexp") return *DTypeFromName(loop.front());  // The float; e is read as int64.
  for (const std::string& input : loop) {
    if (input != loop.front()) {
      *difference = "mixed int64/uint64 comparison loop computes in float64";
      return DType::kFloat64;
    }
  }
  return *DTypeFromName(loop.front());
}

struct Tally {
  int checked = 0;
  std::map<std::string, int> differences;  // Deliberate ones, by kind.
};

void CheckCase(const UfuncCase& c, Tally& tally) {
  SCOPED_TRACE(::testing::Message() << c.op << "(" << c.operands << ")"
                                    << (c.requested.empty() ? "" : " dtype=") << c.requested);
  ++tally.checked;
  const std::optional<ElementwiseOp> op = ElementwiseOpFromName(c.op);
  ASSERT_TRUE(op.has_value());
  const std::vector<UfuncOperand> operands = ParseOperands(c.operands);
  const std::optional<DType> requested =
      c.requested.empty() ? std::nullopt : DTypeFromName(c.requested);
  const absl::StatusOr<UfuncResolution> resolved = ResolveUfunc(*op, operands, requested);

  if (NeedsUnsafeInputCast(c, operands) || WhereWrapsPythonInt(c, operands)) {
    ++tally.differences[NeedsUnsafeInputCast(c, operands) ? "dtype= needs a same_kind input cast"
                                                          : "where wraps a Python int"];
    EXPECT_EQ(resolved.status().code(), absl::StatusCode::kInvalidArgument);
    return;
  }
  if (IsError(c.outcome)) {
    ASSERT_FALSE(resolved.ok()) << "NumPy: " << c.outcome << "; here "
                                << DTypeName(resolved->result_dtype);
    EXPECT_EQ(resolved.status().code(), absl::StatusCode::kInvalidArgument);
    if (!ExactMessage(c.outcome).empty()) {
      EXPECT_EQ(std::string(resolved.status().message()), ExactMessage(c.outcome));
    }
    return;
  }
  ASSERT_TRUE(resolved.ok()) << resolved.status() << "; NumPy gives " << c.outcome;
  EXPECT_EQ(DTypeName(resolved->result_dtype), c.outcome);
  std::string difference;
  if (const std::optional<DType> compute = ExpectedComputeDType(c, &difference)) {
    EXPECT_EQ(DTypeName(resolved->compute_dtype), DTypeName(*compute)) << "NumPy loop " << c.loop;
    if (!difference.empty()) ++tally.differences[difference];
  } else if (c.op == "where") {
    EXPECT_EQ(resolved->compute_dtype, resolved->result_dtype);
  }
}

TEST(UfuncRulesTest, MatchesNumPyTable) {
  Tally tally;
  for (const UfuncCase& c : kCases) CheckCase(c, tally);
  std::cout << "Checked " << tally.checked << " NumPy ufunc cases; deliberate differences:\n";
  for (const auto& [kind, count] : tally.differences) {
    std::cout << "  " << count << ": " << kind << "\n";
  }
  EXPECT_GT(tally.checked, 20000);
}

// --- What the table does not show --------------------------------------------------------------

UfuncOperand A(DType dtype) { return {.array_dtype = dtype, .scalar = std::nullopt}; }
UfuncOperand S(Scalar value) { return {.array_dtype = std::nullopt, .scalar = value}; }

absl::StatusOr<UfuncResolution> Resolve(ElementwiseOp op, std::vector<UfuncOperand> operands,
                                        std::optional<DType> requested = std::nullopt) {
  return ResolveUfunc(op, operands, requested);
}

template <typename T>
T Decoded(const UfuncResolution& r, size_t operand) {
  T value;
  std::memcpy(&value, r.scalar_bytes[operand].data(), sizeof(T));
  return value;
}

void ExpectError(const absl::StatusOr<UfuncResolution>& r, std::string_view message) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(r.status().message()), message);
}

TEST(UfuncRulesTest, ScalarsAreEncodedInTheComputeDType) {
  absl::StatusOr<UfuncResolution> r =
      Resolve(ElementwiseOp::kAdd, {A(DType::kUInt8), S(Scalar::Int(200))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kUInt8);
  EXPECT_EQ(r->scalar_dtypes, (std::vector<DType>{DType::kUInt8, DType::kUInt8}));
  EXPECT_EQ(Decoded<uint8_t>(*r, 1), 200);

  // true_divide(int8 array, 300): the loop is float64, so 300 needs no int8 room.
  r = Resolve(ElementwiseOp::kTrueDivide, {A(DType::kInt8), S(Scalar::Int(300))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->scalar_dtypes[1], DType::kFloat64);
  EXPECT_EQ(Decoded<double>(*r, 1), 300.0);

  // dtype= widens the loop, and the scalar with it: add(int8 array, 300, dtype=int16).
  r = Resolve(ElementwiseOp::kAdd, {A(DType::kInt8), S(Scalar::Int(300))}, DType::kInt16);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Decoded<int16_t>(*r, 1), 300);
}

TEST(UfuncRulesTest, OutOfBoundsPythonInt) {
  ExpectError(Resolve(ElementwiseOp::kAdd, {A(DType::kUInt8), S(Scalar::Int(300))}),
              "Python integer 300 out of bounds for uint8");
  ExpectError(Resolve(ElementwiseOp::kSubtract, {S(Scalar::Int(-1)), A(DType::kUInt16)}),
              "Python integer -1 out of bounds for uint16");
}

TEST(UfuncRulesTest, AtLeastOneArray) {
  ExpectError(Resolve(ElementwiseOp::kAdd, {S(Scalar::Int(1)), S(Scalar::Float(2))}),
              "add needs at least one array operand; got only scalars");
  ExpectError(Resolve(ElementwiseOp::kSin, {S(Scalar::Float(2))}),
              "sin needs at least one array operand; got only scalars");
}

TEST(UfuncRulesTest, MalformedOperands) {
  ExpectError(Resolve(ElementwiseOp::kAdd, {A(DType::kInt8)}), "add takes 2 operands; got 1");
  ExpectError(Resolve(ElementwiseOp::kAdd, {A(DType::kInt8), UfuncOperand{}}),
              "operand 1 of add must be either an array or a scalar, not both or neither");
}

TEST(UfuncRulesTest, NoLoopMessages) {
  ExpectError(Resolve(ElementwiseOp::kBitwiseAnd, {A(DType::kFloat64), A(DType::kFloat64)}),
              "ufunc 'bitwise_and' not supported for the input types (float64, float64)");
  ExpectError(Resolve(ElementwiseOp::kBitwiseAnd, {A(DType::kInt8), S(Scalar::Float(2.5))}),
              "ufunc 'bitwise_and' not supported for the input types (int8, float64)");
  ExpectError(Resolve(ElementwiseOp::kSign, {A(DType::kBool)}),
              "ufunc 'sign' not supported for the input types (bool)");
  ExpectError(Resolve(ElementwiseOp::kSubtract, {A(DType::kBool), S(Scalar::Bool(true))}),
              "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
              "the `^` operator, or the logical_xor function instead.");
  ExpectError(Resolve(ElementwiseOp::kNegative, {A(DType::kBool)}),
              "The numpy boolean negative, the `-` operator, is not supported, use the `~` "
              "operator or the logical_not function instead.");
}

TEST(UfuncRulesTest, RequestedDTypeMessages) {
  ExpectError(Resolve(ElementwiseOp::kAdd, {A(DType::kFloat64), A(DType::kFloat64)}, DType::kInt8),
              "Cannot cast ufunc 'add' input 0 from dtype('float64') to dtype('int8') with "
              "casting rule 'same_kind'");
  ExpectError(Resolve(ElementwiseOp::kSqrt, {A(DType::kComplex64)}, DType::kFloat32),
              "Cannot cast ufunc 'sqrt' input from dtype('complex64') to dtype('float32') with "
              "casting rule 'same_kind'");
  ExpectError(
      Resolve(ElementwiseOp::kAdd, {A(DType::kFloat64), A(DType::kFloat64)}, DType::kFloat32),
      "Cannot cast ufunc 'add' input 0 from dtype('float64') to dtype('float32') with casting "
      "rule 'safe' (NumPy would cast with 'same_kind'; this server casts ufunc inputs only "
      "safely: convert the operand with astype first)");
  ExpectError(Resolve(ElementwiseOp::kEqual, {A(DType::kInt8), A(DType::kInt8)}, DType::kFloat64),
              "No loop matching the specified signature and casting was found for ufunc equal "
              "(input types (int8, int8), dtype=float64)");
  ExpectError(
      Resolve(ElementwiseOp::kLogicalAnd, {A(DType::kInt8), A(DType::kInt8)}, DType::kInt8),
      "No loop matching the specified signature and casting was found for ufunc logical_and "
      "(input types (int8, int8), dtype=int8)");
}

TEST(UfuncRulesTest, LogicalUfuncsReadBool) {
  // NumPy: logical_and(int8 array, 300) is True where the array is nonzero; no overflow.
  absl::StatusOr<UfuncResolution> r =
      Resolve(ElementwiseOp::kLogicalAnd, {A(DType::kInt8), S(Scalar::Int(300))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kBool);
  EXPECT_EQ(r->result_dtype, DType::kBool);
  EXPECT_EQ(r->scalar_dtypes, (std::vector<DType>{DType::kInt8, DType::kBool}));
  EXPECT_EQ(Decoded<uint8_t>(*r, 1), 1);
  r = Resolve(ElementwiseOp::kLogicalOr, {S(Scalar::Float(0.0)), A(DType::kComplex64)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Decoded<uint8_t>(*r, 0), 0);
  // NumPy converts the int through a C long first.
  ExpectError(
      Resolve(ElementwiseOp::kLogicalXor, {A(DType::kFloat16), S(Scalar::UInt(uint64_t{1} << 63))}),
      "Python integer 9223372036854775808 out of bounds for int64");
}

TEST(UfuncRulesTest, ComparisonWithOutOfRangePythonInt) {
  // NumPy 2: uint8_array < 300 is all True, without an overflow error.
  absl::StatusOr<UfuncResolution> r =
      Resolve(ElementwiseOp::kLess, {A(DType::kUInt8), S(Scalar::Int(300))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->result_dtype, DType::kBool);
  EXPECT_EQ(r->compute_dtype, DType::kInt16);
  EXPECT_EQ(Decoded<int16_t>(*r, 1), 300);

  // int64 values near 2**63 round to 2**63 in float64; the int moves beyond all of them.
  r = Resolve(ElementwiseOp::kEqual, {A(DType::kInt64), S(Scalar::UInt(uint64_t{1} << 63))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kFloat64);
  EXPECT_EQ(Decoded<double>(*r, 1), 0x1p64);
  r = Resolve(ElementwiseOp::kGreater, {S(Scalar::Int(-1)), A(DType::kUInt64)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Decoded<double>(*r, 0), -0x1p64);

  // In range, the ordinary loop.
  r = Resolve(ElementwiseOp::kLess, {A(DType::kUInt8), S(Scalar::Int(200))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kUInt8);
}

TEST(UfuncRulesTest, ClipDropsBoundsBeyondAnIntegerRange) {
  // numpy.clip(uint8 array, -1000, 300) clips by nothing; the bounds become 0 and 255.
  absl::StatusOr<UfuncResolution> r =
      Resolve(ElementwiseOp::kClip, {A(DType::kUInt8), S(Scalar::Int(-1000)), S(Scalar::Int(300))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->result_dtype, DType::kUInt8);
  EXPECT_EQ(Decoded<uint8_t>(*r, 1), 0);
  EXPECT_EQ(Decoded<uint8_t>(*r, 2), 255);
  // A lower bound above the range stays and fails, as in NumPy.
  ExpectError(
      Resolve(ElementwiseOp::kClip, {A(DType::kUInt8), S(Scalar::Int(300)), S(Scalar::Int(400))}),
      "Python integer 300 out of bounds for uint8");
  // numpy.clip(5, int8, int8): `a` becomes an int64 array, not a weak scalar.
  r = Resolve(ElementwiseOp::kClip, {S(Scalar::Int(5)), A(DType::kInt8), A(DType::kInt8)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->result_dtype, DType::kInt64);
  EXPECT_EQ(Decoded<int64_t>(*r, 0), 5);
}

TEST(UfuncRulesTest, WhereReadsItsConditionAsBool) {
  absl::StatusOr<UfuncResolution> r =
      Resolve(ElementwiseOp::kWhere, {S(Scalar::Float(0.5)), A(DType::kInt8), S(Scalar::Int(-3))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kInt8);
  EXPECT_EQ(r->result_dtype, DType::kInt8);
  EXPECT_EQ(r->scalar_dtypes, (std::vector<DType>{DType::kBool, DType::kInt8, DType::kInt8}));
  EXPECT_EQ(Decoded<uint8_t>(*r, 0), 1);
  EXPECT_EQ(Decoded<int8_t>(*r, 2), -3);

  // Only the condition an array: the values promote among themselves (float64).
  r = Resolve(ElementwiseOp::kWhere,
              {A(DType::kComplex64), S(Scalar::Int(2)), S(Scalar::Float(3.0))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->result_dtype, DType::kFloat64);
  EXPECT_EQ(r->scalar_dtypes[0], DType::kComplex64);

  ExpectError(Resolve(ElementwiseOp::kWhere, {A(DType::kBool), A(DType::kInt8), A(DType::kInt8)},
                      DType::kInt16),
              "where takes no dtype argument (the output's dtype selects a final cast)");
}

TEST(UfuncRulesTest, CopyKeepsItsOperandDType) {
  absl::StatusOr<UfuncResolution> r = Resolve(ElementwiseOp::kCopy, {A(DType::kFloat16)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kFloat16);
  EXPECT_EQ(r->result_dtype, DType::kFloat16);
  EXPECT_EQ(r->scalar_dtypes, std::vector<DType>{DType::kFloat16});
  ExpectError(Resolve(ElementwiseOp::kCopy, {A(DType::kFloat16)}, DType::kInt8),
              "copy takes no dtype argument (the output's dtype selects a final cast)");
  ExpectError(Resolve(ElementwiseOp::kCopy, {S(Scalar::Int(1))}),
              "copy needs at least one array operand; got only scalars");
}

// ldexp computes in its float; the exponent, a Python int too, is read as int64 after fitting
// the loop's int32 (the table shows the dtypes, not the encoding).
TEST(UfuncRulesTest, LdexpReadsItsExponentAsInt64) {
  absl::StatusOr<UfuncResolution> r =
      Resolve(ElementwiseOp::kLdexp, {A(DType::kFloat32), S(Scalar::Int(-3))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kFloat32);
  EXPECT_EQ(r->result_dtype, DType::kFloat32);
  EXPECT_EQ(r->scalar_dtypes, (std::vector<DType>{DType::kFloat32, DType::kInt64}));
  EXPECT_EQ(Decoded<int64_t>(*r, 1), -3);
  r = Resolve(ElementwiseOp::kLdexp, {S(Scalar::Int(300)), A(DType::kInt8)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kFloat16);
  EXPECT_EQ(r->scalar_dtypes, (std::vector<DType>{DType::kFloat16, DType::kInt8}));
  ExpectError(
      Resolve(ElementwiseOp::kLdexp, {A(DType::kFloat32), S(Scalar::Int(int64_t{1} << 40))}),
      "Python integer 1099511627776 out of bounds for int32");
  ExpectError(Resolve(ElementwiseOp::kLdexp, {A(DType::kFloat32), A(DType::kFloat32)}),
              "ufunc 'ldexp' not supported for the input types (float32, float32)");
}

// The ops of a two-output ufunc speak with its name.
TEST(UfuncRulesTest, TwoOutputOpsNameTheirUfunc) {
  ExpectError(Resolve(ElementwiseOp::kFrexpExponent, {A(DType::kComplex64)}),
              "ufunc 'frexp' not supported for the input types (complex64)");
  ExpectError(Resolve(ElementwiseOp::kDivmodRemainder, {A(DType::kFloat32), A(DType::kFloat32)},
                      DType::kInt8),
              "Cannot cast ufunc 'divmod' input 0 from dtype('float32') to dtype('int8') with "
              "casting rule 'same_kind'");
  absl::StatusOr<UfuncResolution> r = Resolve(ElementwiseOp::kFrexpExponent, {A(DType::kInt8)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kFloat16);
  EXPECT_EQ(r->result_dtype, DType::kInt32);
}

TEST(UfuncRulesTest, ComplexPartsAndTheirInverse) {
  absl::StatusOr<UfuncResolution> r = Resolve(ElementwiseOp::kImag, {A(DType::kComplex64)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kComplex64);
  EXPECT_EQ(r->result_dtype, DType::kFloat32);
  ExpectError(Resolve(ElementwiseOp::kReal, {A(DType::kFloat64)}),
              "real takes a complex operand; got float64 (np.real of a real array is the "
              "clients' to answer)");
  r = Resolve(ElementwiseOp::kComplex, {A(DType::kFloat16), S(Scalar::Float(-0.0))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->compute_dtype, DType::kFloat16);
  EXPECT_EQ(r->result_dtype, DType::kComplex64);
  r = Resolve(ElementwiseOp::kComplex, {A(DType::kFloat32), A(DType::kFloat64)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->result_dtype, DType::kComplex128);
  ExpectError(Resolve(ElementwiseOp::kComplex, {A(DType::kInt8), A(DType::kInt16)}),
              "_complex takes float parts; got (int8, int16)");
}

// ufuncs.def's loop kinds cover every loop core resolves to, so that no backend refuses one:
// every op over every tuple of array dtypes, with and without dtype=.
TEST(UfuncRulesTest, EveryResolvedLoopIsOneTheBackendsHave) {
  constexpr size_t kDTypes = std::size(kAllDTypes);
  std::vector<std::optional<DType>> requests = {std::nullopt};
  requests.insert(requests.end(), std::begin(kAllDTypes), std::end(kAllDTypes));
  int resolved = 0;
  for (ElementwiseOp op : kAllElementwiseOps) {
    size_t tuples = 1;
    for (int k = 0; k < Arity(op); ++k) tuples *= kDTypes;
    for (size_t n = 0; n < tuples; ++n) {
      std::vector<UfuncOperand> operands;
      for (size_t rest = n; operands.size() < static_cast<size_t>(Arity(op)); rest /= kDTypes) {
        operands.push_back(A(kAllDTypes[rest % kDTypes]));
      }
      for (std::optional<DType> requested : requests) {
        const absl::StatusOr<UfuncResolution> r = ResolveUfunc(op, operands, requested);
        if (!r.ok()) continue;
        ++resolved;
        EXPECT_TRUE(HasLoop(op, r->compute_dtype))
            << OpName(op) << " resolves to a " << DTypeName(r->compute_dtype) << " loop";
      }
    }
  }
  EXPECT_GT(resolved, 10000);
}

TEST(CheckOutputCastTest, SameKind) {
  EXPECT_TRUE(CheckOutputCast(ElementwiseOp::kAdd, DType::kFloat64, DType::kFloat32).ok());
  EXPECT_TRUE(CheckOutputCast(ElementwiseOp::kAdd, DType::kUInt64, DType::kInt8).ok());
  EXPECT_TRUE(CheckOutputCast(ElementwiseOp::kLess, DType::kBool, DType::kFloat16).ok());
  const absl::Status status = CheckOutputCast(ElementwiseOp::kAdd, DType::kFloat64, DType::kInt64);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()),
            "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting "
            "rule 'same_kind'");
  EXPECT_FALSE(CheckOutputCast(ElementwiseOp::kAbsolute, DType::kComplex64, DType::kFloat32).ok());
}

}  // namespace
}  // namespace arrayhub
