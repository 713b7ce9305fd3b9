#include "server/transport/request_bounds.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "server/common/status_macros.h"

namespace arrayhub {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

bool IsOneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view candidate : names) {
    if (name == candidate) return true;
  }
  return false;
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
    const ListBound bound = BoundOf(*field, limits);
    if (size > bound.most) {
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
  const std::string_view name = field.full_name();
  const std::string rank_rule =
      fmt::format("the server allows at most {} (--max-rank)", limits.max_rank);
  // Said as core says it of a new array's shape (shape_limits.h).
  if (IsOneOf(name,
              {"arrayhub.v1.CreateRequest.shape", "arrayhub.v1.UploadHeader.shape",
               "arrayhub.v1.SharedMemoryCopyRequest.shape", "arrayhub.v1.ViewRequest.Reshape.shape",
               "arrayhub.v1.ViewRequest.BroadcastTo.shape", "arrayhub.v1.PullArrayRequest.shape",
               "arrayhub.v1.ReadCapabilityRequest.shape"})) {
    return {.most = limits.max_rank, .unit = "dimensions", .rule = rank_rule, .listed = true};
  }
  if (IsOneOf(name,
              {"arrayhub.v1.ViewRequest.Transpose.axes", "arrayhub.v1.ViewRequest.ExpandDims.axes",
               "arrayhub.v1.AxisList.axes", "arrayhub.v1.FftRequest.Lengths.values"})) {
    return {.most = limits.max_rank, .rule = rank_rule, .listed = true};
  }
  if (IsOneOf(name, {"arrayhub.v1.GetItemRequest.index", "arrayhub.v1.SetItemRequest.index"})) {
    return {.most = 2 * limits.max_rank,
            .rule = fmt::format("too many indices for array: the server allows at most {} "
                                "(twice --max-rank, as NumPy allows twice its maximum rank)",
                                2 * limits.max_rank),
            .listed = true};
  }
  if (IsOneOf(name, {"arrayhub.v1.BatchRequest.ops", "arrayhub.v1.BatchRequest.keep"})) {
    return {.most = limits.max_batch_ops,
            .rule = fmt::format("a batch has at most {}", limits.max_batch_ops),
            .listed = true};
  }
  if (name == "arrayhub.v1.ElementwiseRequest.operands") {
    return {.most = 3, .rule = "an elementwise op takes at most 3 (clip, where)", .listed = true};
  }
  if (IsOneOf(name,
              {"arrayhub.v1.RunRawKernelRequest.grid", "arrayhub.v1.RunRawKernelRequest.block"})) {
    return {.most = 3, .rule = "a CUDA launch has at most 3 dimensions", .listed = true};
  }
  if (name == "arrayhub.v1.LinalgRequest.operands") {
    return {.most = 2, .rule = "a linalg op takes at most 2 (solve, lstsq)", .listed = true};
  }
  const bool listed = IsOneOf(
      name,
      {"arrayhub.v1.ArrayOpRequest.operands", "arrayhub.v1.ArrayOpRequest.ints",
       "arrayhub.v1.FreeRequest.handles", "arrayhub.v1.BatchRequest.free",
       "arrayhub.v1.PublishRequest.reader_tenants",
       // The engine refuses more ranks than the daemon has devices before it looks any up.
       "arrayhub.v1.CollectiveRequest.handles", "arrayhub.v1.CollectiveRequest.devices",
       // The kernel language bounds its parameters further (server/kernel/limits.h).
       "arrayhub.v1.RunKernelRequest.arguments", "arrayhub.v1.RunKernelRequest.outputs",
       "arrayhub.v1.RunRawKernelRequest.arguments", "arrayhub.v1.RunRawKernelRequest.options"});
  return {.most = limits.max_list_entries,
          .rule = fmt::format("the server allows at most {} (--max-list-entries)",
                              limits.max_list_entries),
          .listed = listed};
}

absl::Status CheckListLengths(const Message& request, const Limits& limits) {
  std::vector<Step> path;
  return Walk(request, limits, path);
}

}  // namespace arrayhub
