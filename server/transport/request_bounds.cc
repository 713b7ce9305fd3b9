#include "server/transport/request_bounds.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// The kinds of list this file bounds, each by one rule.
enum class ListKind {
  kShape,                // Becomes a new array's shape: --max-rank dimensions.
  kAxes,                 // Axes or lengths, one per dimension: --max-rank.
  kIndex,                // An index expression: twice --max-rank.
  kBatchOps,             // A Batch's ops and keep: --max-batch-ops.
  kElementwiseOperands,  // At most 3.
  kLaunchDimensions,     // At most 3.
  kLinalgOperands,       // At most 2.
  kListed,               // Named here, open-ended: --max-list-entries.
  kUnlisted,             // Not named here: --max-list-entries too.
};

// Looked up by the field's full name, made once: the walk asks for every list it meets, many
// per Batch op.
ListKind KindOf(const FieldDescriptor& field) {
  static const auto* const kinds = new absl::flat_hash_map<std::string_view, ListKind>{
      {"arrayhub.v1.CreateRequest.shape", ListKind::kShape},
      {"arrayhub.v1.UploadHeader.shape", ListKind::kShape},
      {"arrayhub.v1.SharedMemoryCopyRequest.shape", ListKind::kShape},
      {"arrayhub.v1.ViewRequest.Reshape.shape", ListKind::kShape},
      {"arrayhub.v1.ViewRequest.BroadcastTo.shape", ListKind::kShape},
      {"arrayhub.v1.PullArrayRequest.shape", ListKind::kShape},
      {"arrayhub.v1.ReadCapabilityRequest.shape", ListKind::kShape},
      {"arrayhub.v1.ViewRequest.Transpose.axes", ListKind::kAxes},
      {"arrayhub.v1.ViewRequest.ExpandDims.axes", ListKind::kAxes},
      {"arrayhub.v1.AxisList.axes", ListKind::kAxes},
      {"arrayhub.v1.FftRequest.Lengths.values", ListKind::kAxes},
      {"arrayhub.v1.GetItemRequest.index", ListKind::kIndex},
      {"arrayhub.v1.SetItemRequest.index", ListKind::kIndex},
      {"arrayhub.v1.BatchRequest.ops", ListKind::kBatchOps},
      {"arrayhub.v1.BatchRequest.keep", ListKind::kBatchOps},
      {"arrayhub.v1.ElementwiseRequest.operands", ListKind::kElementwiseOperands},
      {"arrayhub.v1.RunRawKernelRequest.grid", ListKind::kLaunchDimensions},
      {"arrayhub.v1.RunRawKernelRequest.block", ListKind::kLaunchDimensions},
      {"arrayhub.v1.LinalgRequest.operands", ListKind::kLinalgOperands},
      {"arrayhub.v1.ArrayOpRequest.operands", ListKind::kListed},
      {"arrayhub.v1.ArrayOpRequest.ints", ListKind::kListed},
      {"arrayhub.v1.FreeRequest.handles", ListKind::kListed},
      {"arrayhub.v1.BatchRequest.free", ListKind::kListed},
      {"arrayhub.v1.PublishRequest.reader_tenants", ListKind::kListed},
      // The engine refuses more ranks than the daemon has devices before it looks any up.
      {"arrayhub.v1.CollectiveRequest.handles", ListKind::kListed},
      {"arrayhub.v1.CollectiveRequest.devices", ListKind::kListed},
      // The kernel language bounds its parameters further (server/kernel/limits.h).
      {"arrayhub.v1.RunKernelRequest.arguments", ListKind::kListed},
      {"arrayhub.v1.RunKernelRequest.outputs", ListKind::kListed},
      {"arrayhub.v1.RunRawKernelRequest.arguments", ListKind::kListed},
      {"arrayhub.v1.RunRawKernelRequest.options", ListKind::kListed},
  };
  const auto it = kinds->find(field.full_name());
  return it == kinds->end() ? ListKind::kUnlisted : it->second;
}

int64_t MostOf(ListKind kind, const Limits& limits) {
  switch (kind) {
    case ListKind::kShape:
    case ListKind::kAxes:
      return limits.max_rank;
    case ListKind::kIndex:
      return 2 * limits.max_rank;
    case ListKind::kBatchOps:
      return limits.max_batch_ops;
    case ListKind::kElementwiseOperands:
    case ListKind::kLaunchDimensions:
      return 3;
    case ListKind::kLinalgOperands:
      return 2;
    case ListKind::kListed:
    case ListKind::kUnlisted:
      return limits.max_list_entries;
  }
  return limits.max_list_entries;
}

// Where the walk is: the fields it went down, with the element of each repeated one.
struct Step {
  const FieldDescriptor* field;
  int index;  // -1 for a singular field.
};

std::string PathText(const std::vector<Step>& path, const FieldDescriptor& field) {
  std::string text;
  for (const Step& step : path) {
    text += step.field->name();
    if (step.index >= 0) text += fmt::format("[{}]", step.index);
    text += '.';
  }
  return text + std::string(field.name());
}

absl::Status Walk(const Message& message, const Limits& limits, std::vector<Step>& path) {
  const Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);  // Only fields that are set, non-empty lists.
  for (const FieldDescriptor* field : fields) {
    const bool nested = field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (!field->is_repeated()) {
      if (!nested) continue;
      path.push_back({field, -1});
      AH_RETURN_IF_ERROR(Walk(reflection->GetMessage(message, field), limits, path));
      path.pop_back();
      continue;
    }
    const int size = reflection->FieldSize(message, field);
    if (size > MostOf(KindOf(*field), limits)) {
      const ListBound bound = BoundOf(*field, limits);
      return absl::InvalidArgumentError(
          fmt::format("{} has {} {}; {}", PathText(path, *field), size, bound.unit, bound.rule));
    }
    if (!nested) continue;
    for (int i = 0; i < size; ++i) {
      path.push_back({field, i});
      AH_RETURN_IF_ERROR(Walk(reflection->GetRepeatedMessage(message, field, i), limits, path));
      path.pop_back();
    }
  }
  return absl::OkStatus();
}

}  // namespace

ListBound BoundOf(const FieldDescriptor& field, const Limits& limits) {
  const ListKind kind = KindOf(field);
  ListBound bound;
  bound.most = MostOf(kind, limits);
  bound.listed = kind != ListKind::kUnlisted;
  switch (kind) {
    case ListKind::kShape:
      // Said as core says it of a new array's shape (shape_limits.h).
      bound.unit = "dimensions";
      [[fallthrough]];
    case ListKind::kAxes:
      bound.rule = fmt::format("the server allows at most {} (--max-rank)", limits.max_rank);
      break;
    case ListKind::kIndex:
      bound.rule = fmt::format(
          "too many indices for array: the server allows at most {} (twice --max-rank, as "
          "NumPy allows twice its maximum rank)",
          bound.most);
      break;
    case ListKind::kBatchOps:
      bound.rule = fmt::format("a batch has at most {}", bound.most);
      break;
    case ListKind::kElementwiseOperands:
      bound.rule = "an elementwise op takes at most 3 (clip, where)";
      break;
    case ListKind::kLaunchDimensions:
      bound.rule = "a CUDA launch has at most 3 dimensions";
      break;
    case ListKind::kLinalgOperands:
      bound.rule = "a linalg op takes at most 2 (solve, lstsq)";
      break;
    case ListKind::kListed:
    case ListKind::kUnlisted:
      bound.rule = fmt::format("the server allows at most {} (--max-list-entries)", bound.most);
      break;
  }
  return bound;
}

absl::Status CheckListLengths(const Message& request, const Limits& limits) {
  std::vector<Step> path;
  return Walk(request, limits, path);
}

}  // namespace arrayhub
