#include "server/core/manipulation_specs.h"

#include "server/common/name_table.h"

namespace arrayhub {
namespace {

constexpr std::pair<ArrayOpKind, std::string_view> kArrayOpNames[] = {
    {ArrayOpKind::kCopy, "copy"},
    {ArrayOpKind::kAscontiguousarray, "ascontiguousarray"},
    {ArrayOpKind::kAstype, "astype"},
    {ArrayOpKind::kTake, "take"},
    {ArrayOpKind::kCompress, "compress"},
    {ArrayOpKind::kNonzero, "nonzero"},
    {ArrayOpKind::kConcatenate, "concatenate"},
    {ArrayOpKind::kStack, "stack"},
    {ArrayOpKind::kSplit, "split"},
    {ArrayOpKind::kTile, "tile"},
    {ArrayOpKind::kRepeat, "repeat"},
    {ArrayOpKind::kFlip, "flip"},
    {ArrayOpKind::kRoll, "roll"},
    {ArrayOpKind::kSort, "sort"},
    {ArrayOpKind::kArgsort, "argsort"},
    {ArrayOpKind::kPartition, "partition"},
    {ArrayOpKind::kArgpartition, "argpartition"},
    {ArrayOpKind::kCumsum, "cumsum"},
    {ArrayOpKind::kCumprod, "cumprod"},
    {ArrayOpKind::kUnique, "unique"},
    {ArrayOpKind::kSearchsorted, "searchsorted"},
    {ArrayOpKind::kHistogram, "histogram"},
};

}  // namespace

std::optional<ArrayOpKind> ArrayOpFromName(std::string_view name) {
  return FromName(kArrayOpNames, name);
}

std::string_view ArrayOpName(ArrayOpKind op) { return NameOf(kArrayOpNames, op); }

bool ArrayOpGivesSeveral(ArrayOpKind op) {
  return op == ArrayOpKind::kSplit || op == ArrayOpKind::kNonzero;
}

}  // namespace arrayhub
