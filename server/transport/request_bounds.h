// Every repeated field of every request is bounded before a handler, a converter or a rule
// loops over it, so that a long list costs one linear walk here and nothing quadratic later
// (tile with a million reps, transpose of a reshape to rank 20,000). Each field's bound comes
// from the limits: lists that become shapes or axes (--max-rank), an index expression (twice
// --max-rank, as NumPy bounds one), a Batch's ops and keep (--max-batch-ops), operand lists
// (the most the op takes), and the open-ended lists (arrays to join, split points, handles to
// free, a Batch's included, reader tenants: --max-list-entries).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "server/core/limits.h"

namespace arrayhub {

struct ListBound {
  int64_t most = 0;
  std::string_view unit = "entries";  // What the message counts: "dimensions" for a shape.
  std::string rule;     // Says why, for the message: "the server allows at most 64 (--max-rank)".
  bool listed = false;  // False: a field this file does not name, held to --max-list-entries.
};

ListBound BoundOf(const google::protobuf::FieldDescriptor& field, const Limits& limits);

// INVALID_ARGUMENT naming the first repeated field of `request`, at any depth, longer than its
// bound: "ops[3].view.reshape.shape has 20001 dimensions; the server allows at most 64
// (--max-rank)".
absl::Status CheckListLengths(const google::protobuf::Message& request, const Limits& limits);

}  // namespace arrayhub
