// The watchers of sessions: watching first, a lease warning once per renewal, the session's
// end or the drain last, nothing after the last event or once a watch is gone, and watches
// that come and go while events are delivered on other threads.
#include "server/core/session_watchers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace arrayhub {
namespace {

using namespace std::chrono_literals;
using Kind = SessionEvent::Kind;

struct Heard {
  std::vector<SessionEvent> events;
  SessionWatchers::Listener Listener() {
    return [this](const SessionEvent& event) { events.push_back(event); };
  }
  std::vector<Kind> Kinds() const {
    std::vector<Kind> kinds;
    for (const SessionEvent& event : events) kinds.push_back(event.kind);
    return kinds;
  }
};

class SessionWatchersTest : public ::testing::Test {
 protected:
  Session Open(std::chrono::seconds lease, Clock::time_point now) {
    return *sessions_.Open("alice", "test", lease, now);
  }
  SessionManager sessions_{SessionOptions{}};
  SessionWatchers watchers_{/*warning_fraction=*/0.75};
};

TEST_F(SessionWatchersTest, WatchingFirstThenAWarningOncePerRenewalThenTheEndLast) {
  const Clock::time_point start = Clock::now();
  const Session session = Open(4s, start);
  Heard heard;
  auto watch = watchers_.Add(session, heard.Listener());
  ASSERT_EQ(heard.Kinds(), (std::vector<Kind>{Kind::kWatching}));
  EXPECT_EQ(heard.events[0].lease_expires_at, start + 4s);

  EXPECT_EQ(watchers_.WarnExpiring(sessions_, start + 2900ms), 0);  // Less than 3/4 passed.
  EXPECT_EQ(watchers_.WarnExpiring(sessions_, start + 3s), 1);
  EXPECT_EQ(watchers_.WarnExpiring(sessions_, start + 3500ms), 0);  // Once per expiry.
  ASSERT_EQ(heard.events.back().kind, Kind::kLeaseExpiring);
  EXPECT_EQ(heard.events.back().lease_expires_at, start + 4s);
  // A renewal moves the expiry, and the next warning with it.
  ASSERT_TRUE(sessions_.Renew("alice", session.id, start + 3500ms).ok());
  EXPECT_EQ(watchers_.WarnExpiring(sessions_, start + 6400ms), 0);
  EXPECT_EQ(watchers_.WarnExpiring(sessions_, start + 6500ms), 1);
  EXPECT_EQ(heard.events.back().lease_expires_at, start + 7500ms);

  watchers_.EndSession(Handle::Random(), SessionEvent::EndReason::kClosed, 9);  // Another one.
  ASSERT_TRUE(sessions_.Close("alice", session.id).ok());
  watchers_.EndSession(session.id, SessionEvent::EndReason::kLeaseExpired, 3);
  ASSERT_EQ(heard.events.size(), 4u);
  EXPECT_EQ(heard.events[3].kind, Kind::kSessionEnded);
  EXPECT_EQ(heard.events[3].reason, SessionEvent::EndReason::kLeaseExpired);
  EXPECT_EQ(heard.events[3].arrays_freed, 3);
  // Nothing after the last event.
  watchers_.Drain();
  EXPECT_EQ(heard.events.size(), 4u);
  EXPECT_EQ(watchers_.size(), 1);
  watch.reset();
  EXPECT_EQ(watchers_.size(), 0);
}

TEST_F(SessionWatchersTest, TheDrainReachesEveryWatchAndEveryLaterOneAtOnce) {
  const Session one = Open(60s, Clock::now()), other = Open(60s, Clock::now());
  Heard first, second, late;
  auto a = watchers_.Add(one, first.Listener());
  auto b = watchers_.Add(other, second.Listener());
  watchers_.Drain();
  EXPECT_EQ(first.Kinds(), (std::vector<Kind>{Kind::kWatching, Kind::kDraining}));
  EXPECT_EQ(second.Kinds(), (std::vector<Kind>{Kind::kWatching, Kind::kDraining}));
  auto c = watchers_.Add(one, late.Listener());
  EXPECT_EQ(late.Kinds(), (std::vector<Kind>{Kind::kWatching, Kind::kDraining}));
}

TEST_F(SessionWatchersTest, AWatchThatWentHearsNothing) {
  const Session session = Open(60s, Clock::now());
  Heard heard;
  watchers_.Add(session, heard.Listener()).reset();
  watchers_.EndSession(session.id, SessionEvent::EndReason::kClosed, 0);
  watchers_.Drain();
  EXPECT_EQ(heard.Kinds(), (std::vector<Kind>{Kind::kWatching}));
}

// Watches added and dropped on many threads while others end sessions, warn and drain: no
// listener runs after its watch is gone (each would touch a dead counter) and none is left.
TEST_F(SessionWatchersTest, WatchesComeAndGoWhileEventsAreDelivered) {
  constexpr int kThreads = 8;
  std::vector<Session> sessions;
  for (int i = 0; i < 4; ++i) sessions.push_back(Open(1s, Clock::now()));
  std::atomic<bool> stop{false};
  std::thread events([&] {
    while (!stop.load()) {
      for (const Session& session : sessions) {
        watchers_.EndSession(session.id, SessionEvent::EndReason::kClosed, 1);
      }
      watchers_.WarnExpiring(sessions_, Clock::now() + 1s);
    }
    watchers_.Drain();
  });
  std::atomic<int64_t> heard{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        auto alive = std::make_shared<std::atomic<bool>>(true);
        auto watch = watchers_.Add(sessions[(t + round) % sessions.size()],
                                   [alive, &heard](const SessionEvent&) {
                                     EXPECT_TRUE(alive->load());
                                     ++heard;
                                   });
        watch.reset();
        alive->store(false);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  stop = true;
  events.join();
  EXPECT_GE(heard.load(), kThreads * 200);  // At least every kWatching.
  EXPECT_EQ(watchers_.size(), 0);
}

}  // namespace
}  // namespace arrayhub
