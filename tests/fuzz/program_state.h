// What the threads of one stateful-fuzzer program (stateful_fuzzer.cc) know together: the
// sessions opened, every handle seen and who holds it, and every name published with who was
// ever allowed to attach it. Thread-safe; the state of one input only.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace arrayhub::fuzz {

struct ProgramSession {
  std::string id;
  int tenant = 0;                    // Index into the program's tenant names.
  std::vector<std::string> premade;  // Arrays made when it opened; none for later sessions.
};

struct KnownHandle {
  std::string handle;
  int holder = 0;  // The tenant whose call answered it.
  bool read_only = false;
};

// A name and its publisher.
struct PublishedName {
  int owner = 0;
  std::string name;
  friend auto operator<=>(const PublishedName&, const PublishedName&) = default;
};

class ProgramState {
 public:
  // Keeps the session unless the program has kMaxSessions already; false then.
  bool AddSession(ProgramSession session) {
    std::lock_guard lock(mutex_);
    if (sessions_.size() >= kMaxSessions) return false;
    sessions_.push_back(std::move(session));
    return true;
  }

  // The session at `index` modulo their number (closed ones included); there is always one.
  ProgramSession Session(uint8_t index) const {
    std::lock_guard lock(mutex_);
    return sessions_[index % sessions_.size()];
  }

  std::vector<ProgramSession> Sessions() const {
    std::lock_guard lock(mutex_);
    return sessions_;
  }

  // Records a handle answered to `holder`'s call; false when it was known already.
  bool Learn(const std::string& handle, int holder, bool read_only) {
    std::lock_guard lock(mutex_);
    if (!handles_.try_emplace(handle, KnownHandle{handle, holder, read_only}).second) return false;
    order_.push_back(handle);
    return true;
  }

  std::optional<KnownHandle> Find(const std::string& handle) const {
    std::lock_guard lock(mutex_);
    auto it = handles_.find(handle);
    if (it == handles_.end()) return std::nullopt;
    return it->second;
  }

  // The handle whose code is `code` (see stateful_fuzzer.cc) for a call in `session` by a thread
  // whose own results are `results`.
  std::optional<KnownHandle> Resolve(char code, const ProgramSession& session,
                                     const std::vector<std::string>& results) const {
    std::lock_guard lock(mutex_);
    const std::string* handle = nullptr;
    if (code >= '0' && code <= '3' && size_t(code - '0') < session.premade.size()) {
      handle = &session.premade[code - '0'];
    } else if (code >= 'a' && code <= 'p' && size_t(code - 'a') < results.size()) {
      handle = &results[results.size() - 1 - (code - 'a')];
    } else if (!order_.empty()) {
      handle = &order_[uint8_t(code) % order_.size()];
    } else {
      return std::nullopt;
    }
    return handles_.at(*handle);
  }

  // Called before a Publish is sent, so that no Attach can succeed before its grant is known:
  // grants only ever grow, whatever the Publish answers.
  void Grant(const PublishedName& published, const std::vector<std::string>& readers,
             bool all_tenants) {
    std::lock_guard lock(mutex_);
    auto [it, added] = grants_.try_emplace(published);
    if (added) names_.push_back(published);
    it->second.all_tenants |= all_tenants;
    it->second.readers.insert(readers.begin(), readers.end());
  }

  // Whether `tenant` (named `tenant_name`) may ever have attached `published`.
  bool MayAttach(int tenant, const std::string& tenant_name, const PublishedName& published) const {
    if (tenant == published.owner) return true;
    std::lock_guard lock(mutex_);
    auto it = grants_.find(published);
    return it != grants_.end() &&
           (it->second.all_tenants || it->second.readers.contains(tenant_name));
  }

  // The name whose code is `code`: the published names in the order they were first granted.
  std::optional<PublishedName> PublishedByCode(char code) const {
    std::lock_guard lock(mutex_);
    if (names_.empty()) return std::nullopt;
    return names_[uint8_t(code) % names_.size()];
  }

  std::vector<PublishedName> Names() const {
    std::lock_guard lock(mutex_);
    return names_;
  }

  static constexpr size_t kMaxSessions = 16;

 private:
  struct Readers {
    bool all_tenants = false;
    std::set<std::string> readers;
  };

  mutable std::mutex mutex_;
  std::vector<ProgramSession> sessions_;
  std::unordered_map<std::string, KnownHandle> handles_;
  std::vector<std::string> order_;  // Handles in the order they were learnt.
  std::map<PublishedName, Readers> grants_;
  std::vector<PublishedName> names_;
};

}  // namespace arrayhub::fuzz
