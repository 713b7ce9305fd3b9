// The data directory of durable publications (--data-dir; docs/operations.md): one .npy data
// file and one manifest per publication, written by a thread of the store's own so that no
// request waits for the disk.
//
// Crash consistency: every file is written under a temporary name, fsynced, renamed into place
// and the directory fsynced; a publication's manifest names the data file of its last complete
// write, and the data file of the write before goes only after the new manifest is in place.
// So a daemon killed at any moment finds, for each publication, the last version written
// whole (or, for one never written whole, nothing). File names are random ids the store makes,
// never a publication's name. Files are mode 0600 in a directory of mode 0700.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/backend/backend.h"
#include "server/core/array_record.h"
#include "server/core/durable_manifest.h"
#include "server/core/tenants.h"

namespace arrayhub {

// A file descriptor closed when this goes.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  ~FileDescriptor();
  int get() const { return fd_; }

 private:
  int fd_;
};

class DurableStore {
 public:
  using Log = std::function<void(const std::string&)>;

  // Opens the data directory `path` (made, mode 0700, if missing; its mode set to 0700):
  // reads the manifests, logs and leaves those that are damaged or whose data file is missing
  // or of the wrong size, and removes what a killed daemon left (temporary files, data files
  // no manifest names). Data files are read only when loaded (OpenData). `tenant_max_bytes`:
  // the disk quota of each tenant; `chunk_bytes`: how much a write reads from the device at
  // once. `log` hears what an operator should know (skipped files, failed writes).
  static absl::StatusOr<std::unique_ptr<DurableStore>> Open(const std::string& path,
                                                            Backend& backend,
                                                            int64_t tenant_max_bytes,
                                                            int64_t chunk_bytes, Log log);
  // Finishes the queued writes first.
  ~DurableStore();
  DurableStore(const DurableStore&) = delete;
  DurableStore& operator=(const DurableStore&) = delete;

  // The publications Open found whole, each charged to its owner's disk quota.
  std::vector<DurableManifest> TakeRestored();

  // The disk that one write of `owner`'s array of `dtype` and `shape` takes, charged now:
  // RESOURCE_EXHAUSTED past the owner's disk quota (--tenant-max-disk-bytes).
  absl::StatusOr<TenantCharge> ReserveDisk(const std::string& owner, DType dtype,
                                           const Shape& shape);

  // Queues a write of `snapshot` (C-contiguous, that nothing else writes: a copy taken in
  // its queue's order) as the next version of the publication `metadata` describes (name,
  // owner, readers, rights, dtype, shape; the rest is filled in). `disk` is ReserveDisk's
  // charge; `queue` the one the snapshot's copy was enqueued on. The future says how the write
  // went: CANCELLED when the publication was withdrawn first.
  std::shared_future<absl::Status> Enqueue(DurableManifest metadata, TenantCharge disk,
                                           std::shared_ptr<const ArrayRecord> snapshot,
                                           std::shared_ptr<WorkQueue> queue);

  // Deletes the publication's files, manifest first; its queued writes are dropped. Nothing
  // to do for one that is not durable.
  void Remove(const std::string& owner, const std::string& name);

  // A restored publication's data file, open for reading from its start, with its manifest.
  struct DataFile {
    FileDescriptor fd;
    DurableManifest manifest;
  };
  absl::StatusOr<DataFile> OpenData(const std::string& owner, const std::string& name);
  // Renames a publication's files aside (".corrupt" appended: kept for the operator, never
  // restored) after its data failed a check, logs `why`, and forgets it.
  void SetAside(const std::string& owner, const std::string& name, const std::string& why);

  // Returns once every write queued before the call is done.
  void Flush();

  // Disk bytes charged to `tenant`: its data files and the writes queued for it.
  int64_t DiskBytesInUse(const std::string& tenant) const { return disk_->BytesInUse(tenant); }
  // Every tenant's, for operators (metrics).
  absl::flat_hash_map<std::string, int64_t> DiskBytesByTenant() const {
    return disk_->BytesByTenant();
  }

 private:
  using Key = std::pair<std::string, std::string>;  // (owner, name)
  struct Entry {
    std::string id;             // Of its files' names: "<id>.manifest", "<id>.<version>.npy".
    int64_t next_version = 1;   // Of the next write queued.
    DurableManifest committed;  // version 0 while no write has completed.
    TenantCharge disk;          // For the committed data file.
  };
  struct Job {
    Key key;
    std::string id;
    DurableManifest manifest;
    TenantCharge disk;
    std::shared_ptr<const ArrayRecord> snapshot;
    std::shared_ptr<WorkQueue> queue;
    std::promise<absl::Status> done;
  };

  DurableStore(std::string path, FileDescriptor directory, Backend& backend,
               int64_t tenant_max_bytes, int64_t chunk_bytes, Log log);
  absl::Status Scan();
  void WriterLoop();
  absl::Status Write(Job& job);
  // Renames the written data file into place, then the manifest naming it; drops the version
  // before. NOT the job's publication any more (withdrawn): CANCELLED.
  absl::Status Commit(Job& job, const std::string& temporary)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(files_mutex_);
  absl::Status SyncDirectory() const;
  std::string PathOf(std::string_view file) const { return path_ + "/" + std::string(file); }

  const std::string path_;
  const FileDescriptor directory_;
  Backend& backend_;
  const std::shared_ptr<TenantLedger> disk_;
  const int64_t chunk_bytes_;
  const Log log_;

  // Held while files are renamed or removed (a commit, Remove, SetAside), so that a commit
  // never brings back a publication being removed; requests never wait for it.
  absl::Mutex files_mutex_ ABSL_ACQUIRED_BEFORE(mutex_);
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<Key, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  std::vector<DurableManifest> restored_ ABSL_GUARDED_BY(mutex_);
  std::deque<Job> jobs_ ABSL_GUARDED_BY(mutex_);
  int64_t writing_ ABSL_GUARDED_BY(mutex_) = 0;  // Jobs taken off jobs_ and not finished.
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  // Signalled whenever jobs_, writing_ or stopping_ change. (A CondVar, not Mutex::Await: TSan
  // builds annotate CondVar::Wait, whereas Await's condition runs inside Debian's uninstrumented
  // abseil; tests/support/tsan_absl_mutex.cc.)
  absl::CondVar changed_;
  std::thread writer_;  // Last: started once everything above is.
};

}  // namespace arrayhub
