// Sessions and their leases, driven by an explicit clock (`now` is a parameter everywhere).

#include "server/core/session_manager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace arrayhub {
namespace {

using std::chrono::hours;
using std::chrono::nanoseconds;
using std::chrono::seconds;

class SessionManagerTest : public ::testing::Test {
 protected:
  static constexpr SessionOptions kOptions{.default_lease = seconds(60),
                                           .max_lease = seconds(3600)};

  Session OpenAlice(seconds lease = seconds(0)) {
    return sessions_.Open("alice", "notebook", lease, now_).value();
  }

  static std::string NotFoundMessage(const Handle& id) {
    return "session " + id.ToString() + " not found (closed, expired, or never opened)";
  }

  static void ExpectNotFound(const absl::Status& status, const Handle& id) {
    EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
    EXPECT_EQ(status.message(), NotFoundMessage(id));
  }

  SessionManager sessions_{kOptions};
  const Clock::time_point now_ = Clock::time_point() + hours(1000);
};

TEST_F(SessionManagerTest, OpenRecordsTenantClientAndLease) {
  const Session s = OpenAlice(seconds(120));
  EXPECT_FALSE(s.id.IsNull());
  EXPECT_EQ(s.tenant, "alice");
  EXPECT_EQ(s.client_name, "notebook");
  EXPECT_EQ(s.lease, seconds(120));
  EXPECT_EQ(s.expires_at, now_ + seconds(120));
  EXPECT_EQ(sessions_.size(), 1);
}

TEST_F(SessionManagerTest, OpenWithZeroLeaseTakesTheDefault) {
  const Session s = OpenAlice(seconds(0));
  EXPECT_EQ(s.lease, seconds(60));
  EXPECT_EQ(s.expires_at, now_ + seconds(60));
}

TEST_F(SessionManagerTest, OpenWithNegativeLeaseTakesTheDefault) {
  EXPECT_EQ(OpenAlice(seconds(-5)).lease, seconds(60));
}

TEST_F(SessionManagerTest, OpenCapsTheLeaseAtTheMaximum) {
  const Session s = OpenAlice(seconds(100000));
  EXPECT_EQ(s.lease, seconds(3600));
  EXPECT_EQ(s.expires_at, now_ + seconds(3600));
  EXPECT_EQ(OpenAlice(seconds(3600)).lease, seconds(3600));
}

TEST_F(SessionManagerTest, OpenGivesEachSessionItsOwnId) {
  const Session a = OpenAlice();
  const Session b = OpenAlice();
  EXPECT_NE(a.id, b.id);
  EXPECT_EQ(sessions_.size(), 2);
}

TEST_F(SessionManagerTest, FindByItsTenantReturnsTheSession) {
  const Session opened = OpenAlice();
  absl::StatusOr<Session> found = sessions_.Find("alice", opened.id);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->id, opened.id);
  EXPECT_EQ(found->client_name, "notebook");
  EXPECT_EQ(found->expires_at, opened.expires_at);
}

TEST_F(SessionManagerTest, FindByAnotherTenantIsNotFoundLikeAnUnknownId) {
  const Session opened = OpenAlice();
  ExpectNotFound(sessions_.Find("bob", opened.id).status(), opened.id);
  const Handle unknown = Handle::Random();
  ExpectNotFound(sessions_.Find("alice", unknown).status(), unknown);
}

TEST_F(SessionManagerTest, RenewExtendsTheExpiryFromTheNewNow) {
  const Session opened = OpenAlice(seconds(30));
  const Clock::time_point later = now_ + seconds(20);
  absl::StatusOr<Session> renewed = sessions_.Renew("alice", opened.id, later);
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_EQ(renewed->expires_at, later + seconds(30));
  EXPECT_EQ(renewed->lease, seconds(30));
  EXPECT_EQ(sessions_.Find("alice", opened.id)->expires_at, later + seconds(30));
}

TEST_F(SessionManagerTest, RenewedSessionSurvivesItsOldExpiry) {
  const Session opened = OpenAlice(seconds(30));
  ASSERT_TRUE(sessions_.Renew("alice", opened.id, now_ + seconds(25)).ok());
  EXPECT_TRUE(sessions_.TakeExpired(now_ + seconds(40)).empty());
  EXPECT_EQ(sessions_.size(), 1);
}

TEST_F(SessionManagerTest, RenewByAnotherTenantIsNotFoundAndChangesNothing) {
  const Session opened = OpenAlice();
  ExpectNotFound(sessions_.Renew("bob", opened.id, now_ + hours(1)).status(), opened.id);
  EXPECT_EQ(sessions_.Find("alice", opened.id)->expires_at, opened.expires_at);
}

TEST_F(SessionManagerTest, CloseRemovesTheSession) {
  const Session opened = OpenAlice();
  EXPECT_TRUE(sessions_.Close("alice", opened.id).ok());
  EXPECT_EQ(sessions_.size(), 0);
  ExpectNotFound(sessions_.Find("alice", opened.id).status(), opened.id);
}

TEST_F(SessionManagerTest, CloseTwiceIsNotFound) {
  const Session opened = OpenAlice();
  ASSERT_TRUE(sessions_.Close("alice", opened.id).ok());
  ExpectNotFound(sessions_.Close("alice", opened.id), opened.id);
}

TEST_F(SessionManagerTest, CloseByAnotherTenantIsNotFoundAndKeepsTheSession) {
  const Session opened = OpenAlice();
  ExpectNotFound(sessions_.Close("bob", opened.id), opened.id);
  EXPECT_TRUE(sessions_.Find("alice", opened.id).ok());
}

TEST_F(SessionManagerTest, TakeExpiredFarInTheFutureReturnsAndRemovesEverySession) {
  const Session a = OpenAlice(seconds(10));
  const Session b = sessions_.Open("bob", "job", seconds(3600), now_).value();
  std::vector<Session> expired = sessions_.TakeExpired(now_ + hours(24 * 365));
  ASSERT_EQ(expired.size(), 2u);
  std::vector<Handle> ids = {expired[0].id, expired[1].id};
  EXPECT_TRUE(std::find(ids.begin(), ids.end(), a.id) != ids.end());
  EXPECT_TRUE(std::find(ids.begin(), ids.end(), b.id) != ids.end());
  EXPECT_EQ(sessions_.size(), 0);
  ExpectNotFound(sessions_.Find("alice", a.id).status(), a.id);
  EXPECT_TRUE(sessions_.TakeExpired(now_ + hours(24 * 365)).empty());
}

TEST_F(SessionManagerTest, TakeExpiredReturnsTheWholeSession) {
  const Session a = OpenAlice(seconds(10));
  std::vector<Session> expired = sessions_.TakeExpired(now_ + hours(1));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].id, a.id);
  EXPECT_EQ(expired[0].tenant, "alice");
  EXPECT_EQ(expired[0].client_name, "notebook");
}

TEST_F(SessionManagerTest, TakeExpiredKeepsSessionsWhoseLeaseHasNotRunOut) {
  const Session short_lease = OpenAlice(seconds(10));
  const Session long_lease = OpenAlice(seconds(100));
  std::vector<Session> expired = sessions_.TakeExpired(now_ + seconds(50));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].id, short_lease.id);
  EXPECT_TRUE(sessions_.Find("alice", long_lease.id).ok());
}

TEST_F(SessionManagerTest, LeaseRunsOutStrictlyAfterItsExpiry) {
  const Session s = OpenAlice(seconds(10));
  EXPECT_TRUE(sessions_.TakeExpired(s.expires_at).empty());
  EXPECT_EQ(sessions_.TakeExpired(s.expires_at + nanoseconds(1)).size(), 1u);
}

}  // namespace
}  // namespace arrayhub
