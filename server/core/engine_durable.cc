// Durable publications: the data directory's side of Publish, Unpublish and Attach, and
// Checkpoint (docs/operations.md, "The data directory").
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "server/common/status_macros.h"
#include "server/core/engine.h"
#include "server/core/npy_header.h"
#include "server/core/shape_limits.h"

namespace arrayhub {
namespace {

absl::Status NoDataDirectory() {
  return absl::FailedPreconditionError(
      "durable publications need a data directory: start arrayhubd with --data-dir");
}

DurableManifest MetadataOf(const Publication& publication) {
  std::vector<std::string> readers(publication.readers.begin(), publication.readers.end());
  std::sort(readers.begin(), readers.end());
  DurableManifest metadata;
  metadata.name = publication.name;
  metadata.owner = publication.owner;
  metadata.readers = std::move(readers);
  metadata.all_tenants = publication.all_tenants;
  metadata.writable = publication.writable;
  metadata.dtype = publication.record->dtype;
  metadata.shape = publication.record->shape;
  return metadata;
}

// Fills `bytes` from `fd`: DATA_LOSS when the file ends first.
absl::Status ReadFully(int fd, std::span<std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t got = ::read(fd, bytes.data(), bytes.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return absl::InternalError(fmt::format("cannot read: {}", std::strerror(errno)));
    if (got == 0) return absl::DataLossError("its data file ends early (torn)");
    bytes = bytes.subspan(static_cast<size_t>(got));
  }
  return absl::OkStatus();
}

std::string_view AsChars(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

absl::Status Engine::OpenDataDirectory(const std::string& path, DurableStore::Log log) {
  AH_ASSIGN_OR_RETURN(durable_,
                      DurableStore::Open(path, *devices_.front(), ledger_->quota().max_disk_bytes,
                                         limits_.max_chunk_bytes, log));
  for (DurableManifest& manifest : durable_->TakeRestored()) {
    // The limits may be tighter than when it was written: then it waits for them to grow.
    if (absl::Status fits = CheckedArrayBytes(manifest.shape, manifest.dtype, limits_).status();
        !fits.ok()) {
      log(fmt::format("data directory {}: publication '{}' of tenant '{}' is not restored: {}",
                      path, manifest.name, manifest.owner, std::string(fits.message())));
      continue;
    }
    // No data yet (a null buffer): Attach loads it.
    auto record = std::make_shared<ArrayRecord>();
    record->dtype = manifest.dtype;
    record->shape = manifest.shape;
    record->strides = ContiguousStrides(manifest.shape);
    record->owner = record->holder = manifest.owner;
    record->name = manifest.name;
    AH_RETURN_IF_ERROR(
        publications_.Add(Publication{.owner = manifest.owner,
                                      .name = manifest.name,
                                      .record = std::move(record),
                                      .readers = {manifest.readers.begin(), manifest.readers.end()},
                                      .all_tenants = manifest.all_tenants,
                                      .writable = manifest.writable}));
  }
  return absl::OkStatus();
}

absl::StatusOr<Engine::DurableWrite> Engine::PrepareDurableWrite(const Caller& caller,
                                                                 const ArrayRecord& array) {
  if (durable_ == nullptr) return NoDataDirectory();
  AH_ASSIGN_OR_RETURN(TenantCharge disk,
                      durable_->ReserveDisk(caller.tenant, array.dtype, array.shape));
  // The store reads device 0's memory (OpenDataDirectory): the snapshot is taken there, after
  // the work enqueued on the array so far, whichever session enqueued it.
  AH_ASSIGN_OR_RETURN(ArrayRecord copy,
                      CopyAcross(OnDevice(caller, 0), std::make_shared<const ArrayRecord>(array),
                                 /*temporary=*/true));
  return DurableWrite{.disk = std::move(disk),
                      .snapshot = std::make_shared<const ArrayRecord>(std::move(copy))};
}

std::shared_future<absl::Status> Engine::EnqueueDurableWrite(const Caller& caller,
                                                             const Publication& publication,
                                                             DurableWrite write) {
  return durable_->Enqueue(MetadataOf(publication), std::move(write.disk),
                           std::move(write.snapshot), caller.queue);
}

absl::StatusOr<CheckpointResult> Engine::Checkpoint(const Caller& caller, bool wait) {
  if (durable_ == nullptr) return NoDataDirectory();
  // Every snapshot first: a refusal (a quota) leaves nothing queued.
  std::vector<std::pair<Publication, DurableWrite>> prepared;
  for (Publication& publication : publications_.OwnedBy(caller.tenant)) {
    // Restored and never attached: nobody could write it, its file is its latest version.
    if (publication.record->buffer == nullptr) continue;
    AH_ASSIGN_OR_RETURN(DurableWrite write, PrepareDurableWrite(caller, *publication.record));
    prepared.emplace_back(std::move(publication), std::move(write));
  }
  CheckpointResult result;
  std::vector<std::shared_future<absl::Status>> writes;
  {
    absl::MutexLock lock(&durable_mutex_);
    for (auto& [publication, write] : prepared) {
      // Withdrawn (or withdrawn and published again) since it was listed: not this data.
      if (!publications_.Holds(publication.owner, publication.name, publication.record.get())) {
        continue;
      }
      writes.push_back(EnqueueDurableWrite(caller, publication, std::move(write)));
      ++result.publications;
      result.bytes += publication.record->nbytes();
    }
  }
  prepared.clear();  // The snapshots of withdrawn publications go now.
  if (wait) {
    absl::Status all;
    for (const auto& written : writes) all.Update(written.get());
    AH_RETURN_IF_ERROR(all);
  }
  return result;
}

void Engine::FinishDurableWrites() {
  if (durable_ != nullptr) durable_->Flush();
}

int64_t Engine::TenantDiskBytes(const std::string& tenant) const {
  return durable_ == nullptr ? 0 : durable_->DiskBytesInUse(tenant);
}

absl::flat_hash_map<std::string, int64_t> Engine::DiskBytesByTenant() const {
  if (durable_ == nullptr) return {};
  return durable_->DiskBytesByTenant();
}

absl::StatusOr<Publication> Engine::LoadRestored(const Caller& caller, Publication publication) {
  absl::MutexLock lock(&restore_mutex_);
  const std::string owner = publication.owner, name = publication.name;
  // Another attach may have loaded it meanwhile, or its owner withdrawn it.
  AH_ASSIGN_OR_RETURN(publication, publications_.Find(caller.tenant, owner, name));
  if (publication.record->buffer != nullptr) return publication;
  AH_ASSIGN_OR_RETURN(DurableStore::DataFile file, durable_->OpenData(owner, name));
  absl::StatusOr<std::shared_ptr<const ArrayRecord>> loaded =
      ReadDataFile(file, *publication.record);
  if (absl::IsDataLoss(loaded.status())) {
    // Never served: withdrawn, and its files kept aside for the operator.
    durable_->SetAside(owner, name, std::string(loaded.status().message()));
    publications_.Replace(owner, name, publication.record.get(), nullptr);
    return absl::DataLossError(fmt::format(
        "publication '{}' of tenant '{}' was restored from the data directory, but {}: it is "
        "withdrawn",
        name, owner, std::string(loaded.status().message())));
  }
  AH_RETURN_IF_ERROR(loaded.status());
  publications_.Replace(owner, name, publication.record.get(), *loaded);
  publication.record = *std::move(loaded);
  return publication;
}

absl::StatusOr<std::shared_ptr<const ArrayRecord>> Engine::ReadDataFile(
    DurableStore::DataFile& file, const ArrayRecord& described) {
  const int fd = file.fd.get();
  const std::string expected_header = NpyHeader(described.dtype, described.shape);
  std::string header(expected_header.size(), '\0');
  AH_RETURN_IF_ERROR(ReadFully(fd, std::as_writable_bytes(std::span(header))));
  if (header != expected_header) {
    return absl::DataLossError("its data file's .npy header does not match its manifest");
  }
  uint32_t crc = Crc32(0, header);
  // The owner's memory, from a queue of the owner's: whoever attaches first, the publication
  // is the owner's as if it had just published it.
  AH_ASSIGN_OR_RETURN(std::shared_ptr<WorkQueue> queue,
                      devices_.front()->queues().NewQueue(described.owner));
  // Allocated on it, the memory is the owner's (the pool CUDA IPC exports).
  const std::unique_ptr<QueueBinding> bound =
      devices_.front()->queues().Bind(queue, fmt::format("restore (tenant '{}')", described.owner));
  const int64_t nbytes = described.nbytes();
  ArrayRecord record = described;
  AH_ASSIGN_OR_RETURN(record.buffer,
                      AllocateCharged(*devices_.front(), *bound, described.owner, nbytes));
  PendingUpload upload(
      *devices_.front(), queue, std::move(record), 0, nbytes,
      fmt::format("publication '{}'", described.name), limits_.max_chunk_bytes,
      [](ArrayRecord loaded) -> absl::StatusOr<std::shared_ptr<const ArrayRecord>> {
        return std::make_shared<const ArrayRecord>(std::move(loaded));
      });
  absl::Status read;
  while (upload.received() < nbytes && read.ok()) {
    const int64_t size = std::min(limits_.max_chunk_bytes, nbytes - upload.received());
    AH_RETURN_IF_ERROR(upload.Append(size, [&](std::span<std::byte> chunk) {
      read = ReadFully(fd, chunk);
      crc = Crc32(crc, AsChars(chunk));
    }));
  }
  AH_RETURN_IF_ERROR(read);
  std::byte extra;
  if (::read(fd, &extra, 1) != 0)
    return absl::DataLossError("its data file is longer than its array");
  AH_ASSIGN_OR_RETURN(std::shared_ptr<const ArrayRecord> loaded, upload.Finish());
  // Checked before anyone may see it: the record becomes the publication's only below.
  if (crc != file.manifest.data_crc32) {
    return absl::DataLossError("its data file fails its checksum (torn or corrupted)");
  }
  return loaded;
}

}  // namespace arrayhub
