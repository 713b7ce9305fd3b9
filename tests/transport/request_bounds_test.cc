// Every repeated field of every request has a deliberate bound (request_bounds.h), and a list
// past it is refused by name before anything loops over it.
#include "server/transport/request_bounds.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "arrayhub/v1/service.pb.h"

namespace arrayhub {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// The repeated fields reachable from `type`, at any depth.
void CollectRepeated(const Descriptor* type, std::set<const Descriptor*>& seen,
                     std::vector<const FieldDescriptor*>& repeated) {
  if (!seen.insert(type).second) return;
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* field = type->field(i);
    if (field->is_repeated()) repeated.push_back(field);
    if (field->message_type() != nullptr) CollectRepeated(field->message_type(), seen, repeated);
  }
}

TEST(RequestBoundsTest, EveryRepeatedFieldOfEveryRequestIsListed) {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName("arrayhub.v1.ArrayHub");
  ASSERT_NE(service, nullptr);
  std::set<const Descriptor*> seen;
  std::vector<const FieldDescriptor*> repeated;
  for (int m = 0; m < service->method_count(); ++m) {
    CollectRepeated(service->method(m)->input_type(), seen, repeated);
  }
  EXPECT_GE(repeated.size(), 18u);
  for (const FieldDescriptor* field : repeated) {
    EXPECT_TRUE(BoundOf(*field, Limits{}).listed)
        << field->full_name() << " has no bound of its own in request_bounds.cc";
  }
}

TEST(RequestBoundsTest, ListsPastTheirBoundAreRefusedByPath) {
  v1::BatchRequest batch;
  batch.add_ops()->mutable_create()->add_shape(1);
  v1::ViewRequest* view = batch.add_ops()->mutable_view();
  for (int i = 0; i < 65; ++i) view->mutable_reshape()->add_shape(1);
  const absl::Status status = CheckListLengths(batch, Limits{});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      std::string(status.message()),
      "ops[1].view.reshape.shape has 65 dimensions; the server allows at most 64 (--max-rank)");
  view->mutable_reshape()->mutable_shape()->RemoveLast();
  EXPECT_TRUE(CheckListLengths(batch, Limits{}).ok());

  v1::GetItemRequest index;
  for (int i = 0; i < 9; ++i) index.add_index()->set_new_axis(true);
  EXPECT_EQ(std::string(CheckListLengths(index, Limits{.max_rank = 4}).message()),
            "index has 9 entries; too many indices for array: the server allows at most 8 (twice "
            "--max-rank, as NumPy allows twice its maximum rank)");

  v1::FreeRequest free;
  for (int i = 0; i < 11; ++i) free.add_handles("x");
  EXPECT_EQ(std::string(CheckListLengths(free, Limits{.max_list_entries = 10}).message()),
            "handles has 11 entries; the server allows at most 10 (--max-list-entries)");
  // A Batch's frees are held to the same bound as a Free's.
  for (int i = 0; i < 11; ++i) batch.add_free("x");
  EXPECT_EQ(std::string(CheckListLengths(batch, Limits{.max_list_entries = 10}).message()),
            "free has 11 entries; the server allows at most 10 (--max-list-entries)");
  batch.mutable_free()->RemoveLast();
  EXPECT_TRUE(CheckListLengths(batch, Limits{.max_list_entries = 10}).ok());

  v1::ElementwiseRequest add;
  for (int i = 0; i < 4; ++i) add.add_operands()->set_handle("x");
  EXPECT_EQ(std::string(CheckListLengths(add, Limits{}).message()),
            "operands has 4 entries; an elementwise op takes at most 3 (clip, where)");
}

}  // namespace
}  // namespace arrayhub
