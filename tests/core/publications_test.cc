// The registry of published names: who may find what, uniqueness per owner, withdrawal.
#include "server/core/publications.h"

#include <gtest/gtest.h>

namespace arrayhub {
namespace {

Publication Make(std::string owner, std::string name, std::vector<std::string> readers = {},
                 bool all_tenants = false) {
  auto record = std::make_shared<ArrayRecord>();
  record->handle = Handle::Random();
  record->owner = owner;
  record->name = name;
  return {.owner = std::move(owner),
          .name = std::move(name),
          .record = record,
          .readers = {readers.begin(), readers.end()},
          .all_tenants = all_tenants,
          .writable = false};
}

TEST(PublicationRegistryTest, ReadersFindWhatTheyMayAndNothingElse) {
  PublicationRegistry registry;
  ASSERT_TRUE(registry.Add(Make("alice", "private")).ok());
  ASSERT_TRUE(registry.Add(Make("alice", "for-bob", {"bob"})).ok());
  ASSERT_TRUE(registry.Add(Make("alice", "public", {}, true)).ok());
  EXPECT_TRUE(registry.Find("alice", "alice", "private").ok());
  EXPECT_TRUE(registry.Find("bob", "alice", "for-bob").ok());
  EXPECT_TRUE(registry.Find("carol", "alice", "public").ok());
  const absl::Status hidden = registry.Find("carol", "alice", "for-bob").status();
  const absl::Status absent = registry.Find("carol", "alice", "nothing").status();
  EXPECT_EQ(hidden.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(hidden.message(),
            "no array published as 'for-bob' by tenant 'alice' that you may attach");
  EXPECT_EQ(absent.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.AttachableBy("bob").size(), 2u);
  EXPECT_EQ(registry.AttachableBy("carol").size(), 1u);
  EXPECT_EQ(registry.AttachableBy("alice").size(), 3u);  // Its own, private ones included.
  EXPECT_EQ(registry.CountOf("alice"), 3);
}

TEST(PublicationRegistryTest, NamesAreUniquePerOwnerAndWithdrawnByTheOwner) {
  PublicationRegistry registry;
  ASSERT_TRUE(registry.Add(Make("alice", "x")).ok());
  EXPECT_EQ(registry.Add(Make("alice", "x")).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(registry.Add(Make("bob", "x")).ok());
  EXPECT_EQ(registry.Remove("carol", "x").status().code(), absl::StatusCode::kNotFound);
  auto removed = registry.Remove("alice", "x");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(removed->owner, "alice");
  EXPECT_EQ(registry.CountOf("alice"), 0);
  EXPECT_TRUE(registry.Find("bob", "bob", "x").ok());
}

TEST(PublicationNameTest, NamesArePathLikeAndBounded) {
  EXPECT_TRUE(ValidatePublicationName("lab/run-7/weights_v1.2").ok());
  EXPECT_TRUE(ValidatePublicationName(std::string(128, 'a')).ok());
  EXPECT_FALSE(ValidatePublicationName("").ok());
  EXPECT_FALSE(ValidatePublicationName(std::string(129, 'a')).ok());
  EXPECT_EQ(ValidatePublicationName("a\xff").message(),
            "name may contain only [A-Za-z0-9._/-]; character 1 (byte 0xff) is not");
}

// What loading a restored publication relies on: its record is replaced (or the publication
// withdrawn) only if nobody replaced or withdrew it first.
TEST(PublicationRegistryTest, ReplaceOnlyWhileTheRecordIsTheExpectedOne) {
  PublicationRegistry registry;
  const Publication restored = Make("alice", "x", {"bob"});
  ASSERT_TRUE(registry.Add(restored).ok());
  ASSERT_TRUE(registry.Add(Make("bob", "y")).ok());
  EXPECT_EQ(registry.OwnedBy("alice").size(), 1u);
  EXPECT_TRUE(registry.Holds("alice", "x", restored.record.get()));
  auto loaded = std::make_shared<ArrayRecord>(*restored.record);
  EXPECT_TRUE(registry.Replace("alice", "x", restored.record.get(), loaded));
  EXPECT_FALSE(registry.Holds("alice", "x", restored.record.get()));
  EXPECT_EQ(registry.Find("bob", "alice", "x")->record, loaded);
  // A second loader, which still expects the old record, changes nothing.
  EXPECT_FALSE(registry.Replace("alice", "x", restored.record.get(), nullptr));
  EXPECT_TRUE(registry.Find("alice", "alice", "x").ok());
  EXPECT_TRUE(registry.Replace("alice", "x", loaded.get(), nullptr));  // Withdrawn.
  EXPECT_FALSE(registry.Find("alice", "alice", "x").ok());
  EXPECT_FALSE(registry.Replace("alice", "x", loaded.get(), nullptr));
}

}  // namespace
}  // namespace arrayhub
