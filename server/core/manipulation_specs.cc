#include "server/core/manipulation_specs.h"

#include "server/common/name_table.h"

namespace arrayhub {
namespace {

constexpr std::pair<ArrayOpKind, std::string_view> kArrayOpNames[] = {
#define AH_ARRAY_OP(enumerator, name, answer) {ArrayOpKind::k##enumerator, name},
#include "server/core/array_ops.def"
#undef AH_ARRAY_OP
};

enum class Answer : uint8_t { kOne, kSeveral };

// Indexed by ArrayOpKind: both come from array_ops.def in its order.
constexpr Answer kAnswers[] = {
#define AH_ARRAY_OP(enumerator, name, answer) Answer::k##answer,
#include "server/core/array_ops.def"
#undef AH_ARRAY_OP
};

}  // namespace

std::optional<ArrayOpKind> ArrayOpFromName(std::string_view name) {
  return FromName(kArrayOpNames, name);
}

std::string_view ArrayOpName(ArrayOpKind op) { return NameOf(kArrayOpNames, op); }

bool ArrayOpGivesSeveral(ArrayOpKind op) {
  return kAnswers[static_cast<size_t>(op)] == Answer::kSeveral;
}

}  // namespace arrayhub
