#include "server/core/durable_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/container/flat_hash_set.h"
#include "server/common/status_macros.h"
#include "server/core/download.h"
#include "server/core/file_io.h"
#include "server/core/handle.h"
#include "server/core/npy_header.h"

namespace arrayhub {
namespace {

constexpr std::string_view kManifestSuffix = ".manifest";
constexpr std::string_view kTemporarySuffix = ".tmp";
constexpr std::string_view kDataSuffix = ".npy";
// Larger than any manifest: 1024 readers of 64 characters and a shape of rank 64.
constexpr int64_t kMaxManifestBytes = int64_t{1} << 20;

absl::StatusOr<FileDescriptor> CreateFile(const std::string& path) {
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (fd.get() < 0) return ErrnoError("cannot create", path);
  return fd;
}

absl::Status SyncAndClose(FileDescriptor fd, const std::string& path) {
  if (::fsync(fd.get()) != 0) return ErrnoError("cannot fsync", path);
  return absl::OkStatus();
}

absl::Status Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return ErrnoError("cannot rename", from);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadSmallFile(const std::string& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open", path);
  std::string text;
  char block[4096];
  while (true) {
    const ssize_t got = ::read(fd.get(), block, sizeof block);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return ErrnoError("cannot read", path);
    if (got == 0) return text;
    text.append(block, static_cast<size_t>(got));
    if (static_cast<int64_t>(text.size()) > kMaxManifestBytes) {
      return absl::DataLossError(fmt::format("{} is larger than any manifest", path));
    }
  }
}

int64_t DataFileBytes(DType dtype, const Shape& shape) {
  int64_t elements = 1;
  for (int64_t extent : shape) elements *= extent;
  return static_cast<int64_t>(NpyHeader(dtype, shape).size()) + elements * ItemSize(dtype);
}

}  // namespace

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

absl::StatusOr<std::unique_ptr<DurableStore>> DurableStore::Open(const std::string& path,
                                                                 Backend& backend,
                                                                 int64_t tenant_max_bytes,
                                                                 int64_t chunk_bytes, Log log) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return ErrnoError("cannot make the data directory", path);
  }
  FileDescriptor directory(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (directory.get() < 0) return ErrnoError("cannot open the data directory", path);
  // Other users may not even list the publications' ids.
  if (::fchmod(directory.get(), 0700) != 0) {
    return ErrnoError("cannot make the data directory private (mode 0700)", path);
  }
  std::unique_ptr<DurableStore> store(new DurableStore(
      path, std::move(directory), backend, tenant_max_bytes, chunk_bytes, std::move(log)));
  AH_RETURN_IF_ERROR(store->Scan());
  return store;
}

DurableStore::DurableStore(std::string path, FileDescriptor directory, Backend& backend,
                           int64_t tenant_max_bytes, int64_t chunk_bytes, Log log)
    : path_(std::move(path)),
      directory_(std::move(directory)),
      backend_(backend),
      disk_(std::make_shared<TenantLedger>(TenantQuota{.max_bytes = tenant_max_bytes}, "disk",
                                           "--tenant-max-disk-bytes")),
      chunk_bytes_(chunk_bytes),
      log_(std::move(log)),
      writer_([this] { WriterLoop(); }) {}

DurableStore::~DurableStore() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    changed_.SignalAll();
  }
  writer_.join();  // The loop empties the queue before it ends.
}

absl::Status DurableStore::Scan() {
  std::error_code error;
  std::vector<std::string> manifests, data_files, leftovers;
  for (const auto& item : std::filesystem::directory_iterator(path_, error)) {
    if (!item.is_regular_file()) continue;
    const std::string file = item.path().filename().string();
    if (file.ends_with(kTemporarySuffix)) leftovers.push_back(file);
    if (file.ends_with(kManifestSuffix)) manifests.push_back(file);
    if (file.ends_with(kDataSuffix)) data_files.push_back(file);
  }
  if (error) {
    return absl::InternalError(
        fmt::format("cannot list the data directory {}: {}", path_, error.message()));
  }
  absl::flat_hash_set<std::string> wanted;     // Data files that whole manifests name.
  absl::flat_hash_set<std::string> described;  // Ids of every manifest, whole or not.
  absl::flat_hash_set<std::string> whole;      // Ids of the whole ones.
  absl::MutexLock lock(&mutex_);
  for (const std::string& file : manifests) {
    const std::string id = file.substr(0, file.size() - kManifestSuffix.size());
    described.insert(id);
    absl::StatusOr<std::string> text = ReadSmallFile(PathOf(file));
    absl::StatusOr<DurableManifest> manifest =
        text.ok() ? ParseManifest(*text) : absl::StatusOr<DurableManifest>(text.status());
    if (manifest.ok() && !manifest->data_file.starts_with(id + ".")) {
      manifest = absl::DataLossError("its data file has another id");
    }
    struct stat data {};
    if (manifest.ok() && ::stat(PathOf(manifest->data_file).c_str(), &data) != 0) {
      manifest =
          absl::DataLossError(fmt::format("its data file {} is missing", manifest->data_file));
    }
    if (manifest.ok() && data.st_size != manifest->data_bytes) {
      manifest =
          absl::DataLossError(fmt::format("its data file {} has {} bytes, not {}",
                                          manifest->data_file, data.st_size, manifest->data_bytes));
    }
    if (manifest.ok() && manifest->data_bytes != DataFileBytes(manifest->dtype, manifest->shape)) {
      manifest = absl::DataLossError("its size does not match its dtype and shape");
    }
    Key key{manifest.ok() ? manifest->owner : "", manifest.ok() ? manifest->name : ""};
    if (manifest.ok() && entries_.contains(key)) {
      manifest = absl::DataLossError(
          fmt::format("another manifest ({}) has the same publication", entries_[key].id));
    }
    if (!manifest.ok()) {
      log_(fmt::format("data directory {}: skipping {} (left in place): {}", path_, file,
                       std::string(manifest.status().message())));
      continue;
    }
    wanted.insert(manifest->data_file);
    whole.insert(id);
    entries_.emplace(key, Entry{.id = id,
                                .next_version = manifest->version + 1,
                                .committed = *manifest,
                                .disk = disk_->Adopt(manifest->owner, manifest->data_bytes)});
    restored_.push_back(*std::move(manifest));
  }
  // What a killed daemon left: data files of writes whose manifest never came, and versions a
  // later manifest replaced. Those of a damaged manifest stay with it, for the operator.
  for (const std::string& file : data_files) {
    const std::string id = file.substr(0, file.find('.'));
    if (!wanted.contains(file) && (!described.contains(id) || whole.contains(id))) {
      leftovers.push_back(file);
    }
  }
  for (const std::string& file : leftovers) ::unlink(PathOf(file).c_str());
  if (!leftovers.empty()) AH_RETURN_IF_ERROR(SyncDirectory());
  return absl::OkStatus();
}

std::vector<DurableManifest> DurableStore::TakeRestored() {
  absl::MutexLock lock(&mutex_);
  return std::exchange(restored_, {});
}

absl::StatusOr<TenantCharge> DurableStore::ReserveDisk(const std::string& owner, DType dtype,
                                                       const Shape& shape) {
  return disk_->Reserve(owner, DataFileBytes(dtype, shape));
}

std::shared_future<absl::Status> DurableStore::Enqueue(DurableManifest metadata, TenantCharge disk,
                                                       std::shared_ptr<const ArrayRecord> snapshot,
                                                       std::shared_ptr<WorkQueue> queue) {
  Key key{metadata.owner, metadata.name};
  Job job{.key = key,
          .id = "",
          .manifest = std::move(metadata),
          .disk = std::move(disk),
          .snapshot = std::move(snapshot),
          .queue = std::move(queue),
          .done = {}};
  std::shared_future<absl::Status> done = job.done.get_future().share();
  absl::MutexLock lock(&mutex_);
  auto [entry, added] = entries_.try_emplace(std::move(key));
  if (added) entry->second.id = Handle::Random().ToString();
  job.id = entry->second.id;
  job.manifest.version = entry->second.next_version++;
  job.manifest.data_file = DataFileName(job.id, job.manifest.version);
  jobs_.push_back(std::move(job));
  changed_.SignalAll();
  return done;
}

void DurableStore::Remove(const std::string& owner, const std::string& name) {
  absl::MutexLock files(&files_mutex_);
  Entry entry;
  {
    absl::MutexLock lock(&mutex_);
    auto it = entries_.find(Key{owner, name});
    if (it == entries_.end()) return;
    entry = std::move(it->second);
    entries_.erase(it);
  }
  if (entry.committed.version == 0) return;  // Nothing written yet; the queued writes drop.
  // The manifest first: once it is gone nothing restores the publication, whatever follows.
  if (::unlink(PathOf(entry.id + std::string(kManifestSuffix)).c_str()) != 0 ||
      !SyncDirectory().ok()) {
    log_(fmt::format("data directory {}: cannot remove the manifest {}{}: {}", path_, entry.id,
                     kManifestSuffix, std::strerror(errno)));
  }
  ::unlink(PathOf(entry.committed.data_file).c_str());
}

absl::StatusOr<DurableStore::DataFile> DurableStore::OpenData(const std::string& owner,
                                                              const std::string& name) {
  DurableManifest manifest;
  {
    absl::MutexLock lock(&mutex_);
    auto it = entries_.find(Key{owner, name});
    if (it == entries_.end() || it->second.committed.version == 0) {
      return absl::NotFoundError(
          fmt::format("publication '{}' of tenant '{}' has no data file", name, owner));
    }
    manifest = it->second.committed;
  }
  const std::string path = PathOf(manifest.data_file);
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open", path);
  return DataFile{.fd = std::move(fd), .manifest = std::move(manifest)};
}

void DurableStore::SetAside(const std::string& owner, const std::string& name,
                            const std::string& why) {
  absl::MutexLock files(&files_mutex_);
  Entry entry;
  {
    absl::MutexLock lock(&mutex_);
    auto it = entries_.find(Key{owner, name});
    if (it == entries_.end()) return;
    entry = std::move(it->second);
    entries_.erase(it);
  }
  const std::string manifest = PathOf(entry.id + std::string(kManifestSuffix));
  ::rename(manifest.c_str(), (manifest + ".corrupt").c_str());
  const std::string data = PathOf(entry.committed.data_file);
  ::rename(data.c_str(), (data + ".corrupt").c_str());
  (void)SyncDirectory();
  log_(
      fmt::format("data directory {}: publication '{}' of tenant '{}' is not served: {}; its "
                  "files are kept as {}.corrupt and {}.corrupt",
                  path_, name, owner, why, manifest, data));
}

void DurableStore::Flush() {
  absl::MutexLock lock(&mutex_);
  while (!jobs_.empty() || writing_ != 0) changed_.Wait(&mutex_);
}

void DurableStore::WriterLoop() {
  while (true) {
    Job job;
    {
      absl::MutexLock lock(&mutex_);
      while (jobs_.empty() && !stopping_) changed_.Wait(&mutex_);
      if (jobs_.empty()) return;  // Stopping, and nothing left to write.
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++writing_;
      changed_.SignalAll();
    }
    absl::Status written = Write(job);
    if (!written.ok() && !absl::IsCancelled(written)) {
      log_(fmt::format("data directory {}: writing publication '{}' of tenant '{}' failed: {}",
                       path_, job.key.second, job.key.first, std::string(written.message())));
    }
    job.snapshot.reset();  // Its memory goes back before anyone hears that the write is done.
    job.done.set_value(std::move(written));
    absl::MutexLock lock(&mutex_);
    --writing_;
    changed_.SignalAll();
  }
}

absl::Status DurableStore::Write(Job& job) {
  const std::string temporary = PathOf(job.manifest.data_file + std::string(kTemporarySuffix));
  absl::Status status = [&]() -> absl::Status {
    {
      absl::MutexLock lock(&mutex_);
      auto it = entries_.find(job.key);
      if (it == entries_.end() || it->second.id != job.id) {
        return absl::CancelledError("the publication was withdrawn before it was written");
      }
    }
    AH_ASSIGN_OR_RETURN(FileDescriptor file, CreateFile(temporary));
    const std::string header = NpyHeader(job.manifest.dtype, job.manifest.shape);
    AH_RETURN_IF_ERROR(WriteAll(file.get(), header, temporary));
    uint32_t crc = Crc32(0, header);
    const int64_t nbytes = job.snapshot->nbytes();
    if (nbytes > 0) {
      // The backend's download path, chunk by chunk through staging memory, on the queue the
      // snapshot was taken on: the next chunk is copied while this one is written.
      PendingDownload download(backend_, job.queue, job.snapshot, job.snapshot, 0, nbytes,
                               chunk_bytes_);
      while (true) {
        AH_ASSIGN_OR_RETURN(std::span<const std::byte> chunk, download.Next());
        if (chunk.empty()) break;
        const std::string_view bytes(reinterpret_cast<const char*>(chunk.data()), chunk.size());
        AH_RETURN_IF_ERROR(WriteAll(file.get(), bytes, temporary));
        crc = Crc32(crc, bytes);
      }
    }
    AH_RETURN_IF_ERROR(SyncAndClose(std::move(file), temporary));
    job.manifest.data_bytes = static_cast<int64_t>(header.size()) + nbytes;
    job.manifest.data_crc32 = crc;
    absl::MutexLock files(&files_mutex_);
    return Commit(job, temporary);
  }();
  if (!status.ok()) ::unlink(temporary.c_str());
  return status;
}

absl::Status DurableStore::Commit(Job& job, const std::string& temporary) {
  std::string replaced;  // The data file of the version before.
  {
    absl::MutexLock lock(&mutex_);
    auto it = entries_.find(job.key);
    if (it == entries_.end() || it->second.id != job.id) {
      return absl::CancelledError("the publication was withdrawn before it was written");
    }
    replaced = it->second.committed.data_file;
  }
  AH_RETURN_IF_ERROR(Rename(temporary, PathOf(job.manifest.data_file)));
  // The data file's name is durable before any manifest names it.
  AH_RETURN_IF_ERROR(SyncDirectory());
  const std::string manifest = PathOf(job.id + std::string(kManifestSuffix));
  const std::string manifest_temporary = manifest + std::string(kTemporarySuffix);
  absl::Status written = [&]() -> absl::Status {
    AH_ASSIGN_OR_RETURN(FileDescriptor file, CreateFile(manifest_temporary));
    AH_RETURN_IF_ERROR(WriteAll(file.get(), EncodeManifest(job.manifest), manifest_temporary));
    AH_RETURN_IF_ERROR(SyncAndClose(std::move(file), manifest_temporary));
    AH_RETURN_IF_ERROR(Rename(manifest_temporary, manifest));
    return SyncDirectory();
  }();
  if (!written.ok()) {
    ::unlink(manifest_temporary.c_str());
    ::unlink(PathOf(job.manifest.data_file).c_str());
    return written;
  }
  if (!replaced.empty()) ::unlink(PathOf(replaced).c_str());
  absl::MutexLock lock(&mutex_);
  Entry& entry = entries_[job.key];
  entry.committed = job.manifest;
  entry.disk = std::move(job.disk);  // The version before's charge goes with its file.
  return absl::OkStatus();
}

absl::Status DurableStore::SyncDirectory() const {
  if (::fsync(directory_.get()) != 0) return ErrnoError("cannot fsync the directory", path_);
  return absl::OkStatus();
}

}  // namespace arrayhub
