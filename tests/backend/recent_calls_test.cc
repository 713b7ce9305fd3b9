#include "server/backend/recent_calls.h"

#include <gtest/gtest.h>

#include <string>

namespace arrayhub {
namespace {

TEST(RecentCallsTest, NamesTheCallsSinceTheLastTakeOldestFirst) {
  RecentCalls calls;
  EXPECT_EQ(calls.Take(), "");
  calls.Note("add (tenant 'a')");
  calls.Note("sum (tenant 'a')");
  EXPECT_EQ(calls.Take(), "add (tenant 'a'), sum (tenant 'a')");
  EXPECT_EQ(calls.Take(), "");  // Taken: the count starts again.
  calls.Note("exp");
  EXPECT_EQ(calls.Take(), "exp");
}

TEST(RecentCallsTest, CountsTheCallsBeforeTheLatestFew) {
  RecentCalls calls;
  const int noted = RecentCalls::kRemembered + 3;
  for (int i = 0; i < noted; ++i) calls.Note("op" + std::to_string(i));
  std::string expected = "3 earlier calls, then ";
  for (int i = 3; i < noted; ++i) expected += (i > 3 ? ", op" : "op") + std::to_string(i);
  EXPECT_EQ(calls.Take(), expected);
}

TEST(RecentCallsTest, AShorterLabelReplacesALongerOneWhole) {
  RecentCalls calls;
  for (int i = 0; i < RecentCalls::kRemembered; ++i) calls.Note("a long label of an earlier op");
  calls.Take();
  calls.Note("x");
  EXPECT_EQ(calls.Take(), "x");
}

}  // namespace
}  // namespace arrayhub
