#include "server/backend/compiled_code_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <tuple>
#include <vector>

#include "server/common/status_macros.h"

namespace arrayhub {

namespace {

// An entry's file: kMagic, the key (64 hex characters), the code's size (8 bytes, little
// endian), the SHA-256 of the code, the code. A change of layout changes kMagic, so that files
// of another version read as unusable rather than as wrong code.
constexpr std::string_view kMagic = "AHCODE1\n";
constexpr size_t kKeySize = 64;
constexpr size_t kDigestSize = 32;
constexpr size_t kHeaderSize = kMagic.size() + kKeySize + sizeof(uint64_t) + kDigestSize;

// Temporary files are named kTempPrefix...; one older than this was left by a writer that died
// (a live one renames its file within milliseconds) and is removed by the next eviction.
constexpr std::string_view kTempPrefix = ".tmp-";
constexpr time_t kStaleTempSeconds = 3600;

using Digest = std::array<unsigned char, kDigestSize>;

struct DigestContextDeleter {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

// SHA-256 over `parts`, each preceded by its length when `length_prefixed`.
Digest Sha256Of(std::initializer_list<std::string_view> parts, bool length_prefixed) {
  std::unique_ptr<EVP_MD_CTX, DigestContextDeleter> context(EVP_MD_CTX_new());
  Digest digest{};
  // Only allocation can fail here, and then nothing else would work either.
  if (context == nullptr || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    throw std::bad_alloc();
  }
  for (std::string_view part : parts) {
    if (length_prefixed) {
      unsigned char size[8];
      for (int b = 0; b < 8; ++b) size[b] = static_cast<unsigned char>(part.size() >> (8 * b));
      EVP_DigestUpdate(context.get(), size, sizeof(size));
    }
    EVP_DigestUpdate(context.get(), part.data(), part.size());
  }
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest.data(), &length);
  return digest;
}

bool IsKey(std::string_view name) {
  return name.size() == kKeySize && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  // Closes now, reporting close's error (which may be a deferred write error).
  int Close() {
    const int result = close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

absl::Status ErrnoStatus(int error, std::string_view what) {
  const std::string message = fmt::format("{}: {}", what, std::strerror(error));
  if (error == ENOSPC || error == EDQUOT) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

// Reads `size` bytes from the start of `fd`; what went wrong, empty when nothing did.
std::string ReadAll(int fd, char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t got = pread(fd, data + done, size - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fmt::format("read: {}", std::strerror(errno));
    if (got == 0) return fmt::format("{} of its {} bytes could be read", done, size);
    done += static_cast<size_t>(got);
  }
  return "";
}

std::string Header(std::string_view key, std::string_view code) {
  std::string header(kMagic);
  header += key;
  for (int b = 0; b < 8; ++b) header += static_cast<char>(uint64_t{code.size()} >> (8 * b));
  const Digest digest = Sha256Of({code}, false);
  header.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  return header;
}

// Why `file` (read whole) is not a usable entry for `key`; empty when it is.
std::string Defect(std::string_view file, std::string_view key) {
  if (file.size() < kHeaderSize) return fmt::format("{} bytes, shorter than a header", file.size());
  if (file.substr(0, kMagic.size()) != kMagic) return "not an entry of this version";
  if (file.substr(kMagic.size(), kKeySize) != key) return "the entry of another key";
  uint64_t size = 0;
  for (int b = 0; b < 8; ++b) {
    size |= uint64_t{static_cast<unsigned char>(file[kMagic.size() + kKeySize + b])} << (8 * b);
  }
  if (size != file.size() - kHeaderSize) {
    return fmt::format("{} bytes of code where the header says {}", file.size() - kHeaderSize,
                       size);
  }
  const Digest digest = Sha256Of({file.substr(kHeaderSize)}, false);
  if (std::memcmp(digest.data(), file.data() + kHeaderSize - kDigestSize, kDigestSize) != 0) {
    return "its checksum does not match its contents";
  }
  return "";
}

}  // namespace

absl::StatusOr<std::unique_ptr<CompiledCodeStore>> CompiledCodeStore::Open(std::string directory,
                                                                           int64_t max_bytes) {
  if (directory.empty()) return absl::InvalidArgumentError("the kernel cache directory is empty");
  if (max_bytes < 1) {
    return absl::InvalidArgumentError(
        fmt::format("a kernel cache of {} bytes cannot hold anything", max_bytes));
  }
  std::error_code error;
  if (std::filesystem::create_directories(directory, error)) {
    std::filesystem::permissions(directory, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace, error);
  }
  if (error) {
    return absl::FailedPreconditionError(
        fmt::format("cannot create the kernel cache directory {}: {}", directory, error.message()));
  }
  struct stat info {};
  if (stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(
        fmt::format("the kernel cache directory {} is not a directory", directory));
  }
  if (info.st_uid != geteuid() || (info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return absl::FailedPreconditionError(fmt::format(
        "the kernel cache directory {} (owner uid {}, mode {:o}) must be owned by this user "
        "(uid {}) and writable by no one else: its files run on the GPU",
        directory, info.st_uid, info.st_mode & 07777, geteuid()));
  }
  if (access(directory.c_str(), R_OK | W_OK | X_OK) != 0) {
    return absl::FailedPreconditionError(fmt::format("cannot use the kernel cache directory {}: {}",
                                                     directory, std::strerror(errno)));
  }
  return std::unique_ptr<CompiledCodeStore>(new CompiledCodeStore(std::move(directory), max_bytes));
}

std::string CompiledCodeStore::KeyOf(std::initializer_list<std::string_view> parts) {
  const Digest digest = Sha256Of(parts, true);
  std::string key;
  for (unsigned char byte : digest) key += fmt::format("{:02x}", byte);
  return key;
}

std::string CompiledCodeStore::PathOf(std::string_view key) const {
  return fmt::format("{}/{}", directory_, key);
}

std::optional<std::string> CompiledCodeStore::Load(std::string_view key) const {
  if (!IsKey(key)) return std::nullopt;
  const std::string path = PathOf(key);
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) {
    if (errno != ENOENT) {
      spdlog::warn("kernel cache: cannot open {}: {}; compiling instead", path,
                   std::strerror(errno));
    }
    return std::nullopt;
  }
  struct stat info {};
  std::string defect;
  std::string file;
  if (fstat(fd.get(), &info) != 0) {
    defect = fmt::format("fstat: {}", std::strerror(errno));
  } else if (!S_ISREG(info.st_mode)) {
    defect = "not a regular file";
  } else if (info.st_size > max_bytes_ + static_cast<int64_t>(kHeaderSize)) {
    defect = fmt::format("{} bytes, more than the store holds", info.st_size);
  } else {
    file.resize(static_cast<size_t>(info.st_size));
    defect = ReadAll(fd.get(), file.data(), file.size());
    if (defect.empty()) defect = Defect(file, key);
  }
  if (!defect.empty()) {
    spdlog::warn("kernel cache: ignoring {}: {}; removing it and compiling instead", path, defect);
    // Only the file that was read: another daemon may have renamed a good one into its place.
    struct stat now {};
    if (lstat(path.c_str(), &now) == 0 && now.st_dev == info.st_dev && now.st_ino == info.st_ino) {
      unlink(path.c_str());
    }
    return std::nullopt;
  }
  futimens(fd.get(), nullptr);  // Recently used: eviction keeps it longer. Best effort.
  return file.substr(kHeaderSize);
}

absl::Status CompiledCodeStore::Store(std::string_view key, std::string_view code) const {
  if (!IsKey(key)) {
    return absl::InvalidArgumentError(fmt::format("\"{}\" is not a kernel cache key", key));
  }
  const std::string header = Header(key, code);
  if (static_cast<int64_t>(header.size() + code.size()) > max_bytes_) {
    return absl::ResourceExhaustedError(
        fmt::format("{} bytes of compiled code do not fit a kernel cache of {} bytes", code.size(),
                    max_bytes_));
  }
  static std::atomic<uint64_t> counter{0};
  const std::string temp = fmt::format("{}/{}{}-{}", directory_, kTempPrefix, getpid(),
                                       counter.fetch_add(1, std::memory_order_relaxed));
  Fd fd(open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (fd.get() < 0) return ErrnoStatus(errno, fmt::format("creating {}", temp));
  absl::Status status;
  if (!WriteAll(fd.get(), header) || !WriteAll(fd.get(), code)) {
    status = ErrnoStatus(errno, fmt::format("writing {}", temp));
  } else if (fsync(fd.get()) != 0) {
    status = ErrnoStatus(errno, fmt::format("syncing {}", temp));
  } else if (fd.Close() != 0) {
    status = ErrnoStatus(errno, fmt::format("closing {}", temp));
  } else if (rename(temp.c_str(), PathOf(key).c_str()) != 0) {
    status = ErrnoStatus(errno, fmt::format("renaming {} into place", temp));
  }
  if (!status.ok()) {
    unlink(temp.c_str());
    return status;
  }
  // The rename itself survives a crash once the directory is synced; without it the entry may
  // be missing after one, which costs a compile, never a wrong load. Best effort.
  if (Fd dir(open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); dir.get() >= 0) {
    fsync(dir.get());
  }
  Evict();
  return absl::OkStatus();
}

void CompiledCodeStore::Evict() const {
  DIR* dir = opendir(directory_.c_str());
  if (dir == nullptr) return;
  struct Entry {
    timespec used;
    std::string name;
    int64_t bytes;
  };
  std::vector<Entry> entries;
  int64_t total = 0;
  const time_t now = time(nullptr);
  while (const dirent* item = readdir(dir)) {
    const std::string_view name = item->d_name;
    const bool temp = name.starts_with(kTempPrefix);
    if (!temp && !IsKey(name)) continue;
    struct stat info {};
    if (fstatat(dirfd(dir), item->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (temp) {
      if (now - info.st_mtim.tv_sec > kStaleTempSeconds) unlinkat(dirfd(dir), item->d_name, 0);
      continue;
    }
    if (!S_ISREG(info.st_mode)) continue;
    entries.push_back({info.st_mtim, std::string(name), info.st_size});
    total += info.st_size;
  }
  if (total > max_bytes_) {
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.used.tv_sec, a.used.tv_nsec, a.name) <
             std::tie(b.used.tv_sec, b.used.tv_nsec, b.name);
    });
    for (const Entry& entry : entries) {
      if (total <= max_bytes_) break;
      // Another daemon may have removed it first: either way it is gone.
      unlinkat(dirfd(dir), entry.name.c_str(), 0);
      total -= entry.bytes;
    }
  }
  closedir(dir);
}

}  // namespace arrayhub
