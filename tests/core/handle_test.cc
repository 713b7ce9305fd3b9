// Handles: random 128-bit ids, their 32-character hex text, and parsing with messages that
// say what was wrong without echoing the (possibly secret) text.

#include "server/core/handle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace arrayhub {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kValidHex = "0123456789abcdef0123456789ABCDEF";

bool IsLowercaseHex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string ToUpper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

void ExpectInvalidArgument(const absl::StatusOr<Handle>& parsed, std::string_view fragment) {
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << parsed.status();
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(fragment));
}

TEST(HandleTest, DefaultHandleIsNull) {
  EXPECT_TRUE(Handle().IsNull());
  EXPECT_EQ(Handle().ToString(), std::string(32, '0'));
}

TEST(HandleTest, RandomHandlesAreNeverNullAndNeverRepeat) {
  absl::flat_hash_set<Handle> seen;
  for (int i = 0; i < 10000; ++i) {
    const Handle h = Handle::Random();
    EXPECT_FALSE(h.IsNull());
    EXPECT_TRUE(seen.insert(h).second) << "repeated handle " << h.ToString();
  }
  EXPECT_EQ(seen.size(), 10000u);
}

// Handles come from per-thread buffers of the kernel's bytes (server/core/entropy.cc).
TEST(HandleTest, RandomHandlesOfManyThreadsNeverRepeat) {
  constexpr int kThreads = 4, kEach = 2000;
  std::vector<std::vector<Handle>> drawn(kThreads);
  std::vector<std::thread> threads;
  for (auto& handles : drawn) {
    threads.emplace_back([&handles] {
      for (int i = 0; i < kEach; ++i) handles.push_back(Handle::Random());
    });
  }
  for (std::thread& thread : threads) thread.join();
  absl::flat_hash_set<Handle> seen;
  for (const auto& handles : drawn) seen.insert(handles.begin(), handles.end());
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kEach));
}

TEST(HandleTest, ForkedChildDrawsOtherHandlesThanItsParent) {
  Handle::Random();  // This thread's buffer holds unused bytes, which the child inherits.
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const Handle h = Handle::Random();
    const bool written = write(pipe_ends[1], &h, sizeof(h)) == sizeof(h);
    _exit(written ? 0 : 1);
  }
  const Handle parent = Handle::Random();
  Handle from_child;
  ASSERT_EQ(read(pipe_ends[0], &from_child, sizeof(from_child)), sizeof(from_child));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  close(pipe_ends[0]);
  close(pipe_ends[1]);
  EXPECT_NE(from_child, parent);
}

TEST(HandleTest, ToStringIs32LowercaseHexCharacters) {
  for (int i = 0; i < 100; ++i) {
    const std::string text = Handle::Random().ToString();
    EXPECT_EQ(text.size(), 32u) << text;
    EXPECT_TRUE(IsLowercaseHex(text)) << text;
  }
}

TEST(HandleTest, ToStringKeepsLeadingZeros) {
  const Handle h = Handle::Parse("000000000000000f0000000000000001").value();
  EXPECT_EQ(h.ToString(), "000000000000000f0000000000000001");
}

TEST(HandleTest, ParseRoundTripsToString) {
  for (int i = 0; i < 100; ++i) {
    const Handle h = Handle::Random();
    absl::StatusOr<Handle> parsed = Handle::Parse(h.ToString());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, h);
  }
}

TEST(HandleTest, ParseAcceptsUppercaseAndMixedCase) {
  const Handle h = Handle::Random();
  absl::StatusOr<Handle> upper = Handle::Parse(ToUpper(h.ToString()));
  ASSERT_TRUE(upper.ok()) << upper.status();
  EXPECT_EQ(*upper, h);

  absl::StatusOr<Handle> mixed = Handle::Parse(kValidHex);
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_EQ(mixed->ToString(), "0123456789abcdef0123456789abcdef");
}

TEST(HandleTest, ParseRejectsEmptyText) {
  absl::StatusOr<Handle> parsed = Handle::Parse("");
  ExpectInvalidArgument(parsed, "is empty");
  EXPECT_EQ(parsed.status().message(), "handle is empty");
}

TEST(HandleTest, ParseRejectsWrongLengthSayingTheLength) {
  const std::string text(kValidHex);
  absl::StatusOr<Handle> short_text = Handle::Parse(text.substr(0, 31));
  ExpectInvalidArgument(short_text, "expected 32 hex characters");
  ExpectInvalidArgument(short_text, "got 31 characters");

  absl::StatusOr<Handle> long_text = Handle::Parse(text + "0");
  ExpectInvalidArgument(long_text, "expected 32 hex characters");
  ExpectInvalidArgument(long_text, "got 33 characters");
}

TEST(HandleTest, ParseRejectsNonHexCharacterNamingItsPosition) {
  std::string text(kValidHex);
  text[7] = 'g';
  ExpectInvalidArgument(Handle::Parse(text), "character 7 is not a hex digit");

  text = std::string(kValidHex);
  text[0] = ' ';
  ExpectInvalidArgument(Handle::Parse(text), "character 0 is not a hex digit");

  text = std::string(kValidHex);
  text[31] = '-';
  ExpectInvalidArgument(Handle::Parse(text), "character 31 is not a hex digit");
}

TEST(HandleTest, ParseRejectsEmbeddedNul) {
  std::string text(kValidHex);
  text[12] = '\0';
  ExpectInvalidArgument(Handle::Parse(text), "character 12 is not a hex digit");
}

TEST(HandleTest, ParseMessagesNameTheField) {
  std::string bad(kValidHex);
  bad[3] = 'x';
  ExpectInvalidArgument(Handle::Parse("", "session id"), "session id is empty");
  ExpectInvalidArgument(Handle::Parse("abc", "handles[3]"), "malformed handles[3]:");
  ExpectInvalidArgument(Handle::Parse(bad, "base handle"), "malformed base handle:");
}

TEST(HandleTest, ParseMessagesDoNotEchoTheText) {
  std::string bad = "secretsecretsecretsecretsecret";  // 30 characters: wrong length.
  EXPECT_THAT(std::string(Handle::Parse(bad).status().message()), Not(HasSubstr("secret")));
  bad = "0123456789abcdef0123456789abcdeZ";  // Right length, last character bad.
  EXPECT_THAT(std::string(Handle::Parse(bad).status().message()), Not(HasSubstr(bad)));
}

}  // namespace
}  // namespace arrayhub
