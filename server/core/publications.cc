#include "server/core/publications.h"

#include <fmt/format.h>

#include <algorithm>

namespace arrayhub {
namespace {

absl::Status NameNotFound(const std::string& owner, const std::string& name) {
  return absl::NotFoundError(
      fmt::format("no array published as '{}' by tenant '{}' that you may attach", name, owner));
}

}  // namespace

absl::Status ValidatePublicationName(std::string_view name) {
  if (name.empty() || name.size() > 128) {
    return absl::InvalidArgumentError(
        fmt::format("name must have 1 to 128 characters, got {}", name.size()));
  }
  auto bad = std::find_if_not(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '/' || c == '-';
  });
  if (bad != name.end()) {
    return absl::InvalidArgumentError(
        fmt::format("name may contain only [A-Za-z0-9._/-]; character {} (byte 0x{:02x}) is not",
                    bad - name.begin(), static_cast<unsigned char>(*bad)));
  }
  return absl::OkStatus();
}

absl::Status PublicationRegistry::Add(Publication publication) {
  absl::MutexLock lock(&mutex_);
  Key key{publication.owner, publication.name};
  if (publications_.contains(key)) {
    return absl::AlreadyExistsError(
        fmt::format("tenant '{}' has already published an array as '{}'; unpublish it first",
                    publication.owner, publication.name));
  }
  publications_.emplace(std::move(key), std::move(publication));
  return absl::OkStatus();
}

absl::StatusOr<Publication> PublicationRegistry::Find(const std::string& reader,
                                                      const std::string& owner,
                                                      const std::string& name) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = publications_.find(Key{owner, name});
  if (it == publications_.end() || !it->second.ReadableBy(reader)) {
    return NameNotFound(owner, name);
  }
  return it->second;
}

absl::StatusOr<Publication> PublicationRegistry::Remove(const std::string& owner,
                                                        const std::string& name) {
  absl::MutexLock lock(&mutex_);
  auto it = publications_.find(Key{owner, name});
  if (it == publications_.end()) {
    return absl::NotFoundError(
        fmt::format("tenant '{}' has published no array as '{}'", owner, name));
  }
  Publication removed = std::move(it->second);
  publications_.erase(it);
  return removed;
}

std::vector<Publication> PublicationRegistry::AttachableBy(const std::string& reader) const {
  std::vector<Publication> attachable;
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [key, publication] : publications_) {
    if (publication.ReadableBy(reader)) attachable.push_back(publication);
  }
  return attachable;
}

std::vector<Publication> PublicationRegistry::OwnedBy(const std::string& owner) const {
  std::vector<Publication> owned;
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [key, publication] : publications_) {
    if (key.first == owner) owned.push_back(publication);
  }
  return owned;
}

bool PublicationRegistry::Holds(const std::string& owner, const std::string& name,
                                const ArrayRecord* record) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = publications_.find(Key{owner, name});
  return it != publications_.end() && it->second.record.get() == record;
}

bool PublicationRegistry::Replace(const std::string& owner, const std::string& name,
                                  const ArrayRecord* expected,
                                  std::shared_ptr<const ArrayRecord> record) {
  Publication removed;  // Dropped after the lock.
  absl::MutexLock lock(&mutex_);
  auto it = publications_.find(Key{owner, name});
  if (it == publications_.end() || it->second.record.get() != expected) return false;
  if (record != nullptr) {
    it->second.record = std::move(record);
  } else {
    removed = std::move(it->second);
    publications_.erase(it);
  }
  return true;
}

int64_t PublicationRegistry::CountOf(const std::string& owner) const {
  absl::ReaderMutexLock lock(&mutex_);
  return std::count_if(publications_.begin(), publications_.end(),
                       [&](const auto& entry) { return entry.first.first == owner; });
}

}  // namespace arrayhub
