// The durable publications' files: the .npy header, the manifest, and the data directory's
// store (writes, restore, cleanup after a crash, quota, removal).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "server/backend/host/host_backend.h"
#include "server/core/durable_manifest.h"
#include "server/core/durable_store.h"
#include "server/core/npy_header.h"
#include "tests/support/test_queue.h"

namespace arrayhub {
namespace {

namespace fs = std::filesystem;

TEST(NpyHeaderTest, IsNumpysVersion1HeaderPaddedTo64Bytes) {
  const std::string header = NpyHeader(DType::kFloat64, {3, 4});
  ASSERT_EQ(header.size() % 64, 0u);
  EXPECT_EQ(header.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(static_cast<size_t>(static_cast<uint8_t>(header[8]) | header[9] << 8),
            header.size() - 10);
  EXPECT_EQ(header.substr(10, header.find('}') - 9),
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }");
  EXPECT_EQ(header.back(), '\n');
  EXPECT_NE(NpyHeader(DType::kBool, {})
                .find("'descr': '|b1', 'fortran_order': False, "
                      "'shape': (), }"),
            std::string::npos);
  EXPECT_NE(NpyHeader(DType::kComplex64, {7}).find("'<c8'"), std::string::npos);
  EXPECT_NE(NpyHeader(DType::kComplex64, {7}).find("'shape': (7,)"), std::string::npos);
  EXPECT_EQ(NpyDescr(DType::kUInt8), "|u1");
  EXPECT_EQ(NpyDescr(DType::kFloat16), "<f2");
}

DurableManifest Example() {
  DurableManifest m;
  m.name = "lab/weights";
  m.owner = "alice";
  m.readers = {"bob", "carol"};
  m.writable = true;
  m.dtype = DType::kInt16;
  m.shape = {2, 0, 5};
  m.version = 3;
  m.data_file = DataFileName("0123456789abcdef0123456789abcdef", 3);
  m.data_bytes = 128;
  m.data_crc32 = 0xdeadbeef;
  return m;
}

TEST(DurableManifestTest, RoundTrips) {
  const absl::StatusOr<DurableManifest> parsed = ParseManifest(EncodeManifest(Example()));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->name, "lab/weights");
  EXPECT_EQ(parsed->owner, "alice");
  EXPECT_EQ(parsed->readers, (std::vector<std::string>{"bob", "carol"}));
  EXPECT_FALSE(parsed->all_tenants);
  EXPECT_TRUE(parsed->writable);
  EXPECT_EQ(parsed->dtype, DType::kInt16);
  EXPECT_EQ(parsed->shape, (Shape{2, 0, 5}));
  EXPECT_EQ(parsed->version, 3);
  EXPECT_EQ(parsed->data_file, "0123456789abcdef0123456789abcdef.3.npy");
  EXPECT_EQ(parsed->data_crc32, 0xdeadbeefu);
  DurableManifest scalar = Example();
  scalar.shape = {};
  scalar.readers = {};
  ASSERT_TRUE(ParseManifest(EncodeManifest(scalar)).ok());
  EXPECT_EQ(ParseManifest(EncodeManifest(scalar))->shape, Shape{});
}

TEST(DurableManifestTest, ADamagedManifestIsDataLoss) {
  const std::string text = EncodeManifest(Example());
  for (size_t at : {size_t{0}, text.size() / 2, text.size() - 3}) {
    std::string damaged = text;
    damaged[at] ^= 0x01;
    EXPECT_EQ(ParseManifest(damaged).status().code(), absl::StatusCode::kDataLoss) << at;
  }
  EXPECT_EQ(ParseManifest(text.substr(0, text.size() / 2)).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(ParseManifest("").status().code(), absl::StatusCode::kDataLoss);
}

TEST(DurableManifestTest, NamesNoPathAndNoNameARequestCouldNotUse) {
  // Checksums that match: what a hand-edited manifest could say.
  DurableManifest escape = Example();
  escape.data_file = "../../etc/passwd";
  EXPECT_EQ(ParseManifest(EncodeManifest(escape)).status().code(), absl::StatusCode::kDataLoss);
  DurableManifest other_version = Example();
  other_version.version = 4;  // Names the data file of version 3.
  EXPECT_EQ(ParseManifest(EncodeManifest(other_version)).status().code(),
            absl::StatusCode::kDataLoss);
  DurableManifest bad_owner = Example();
  bad_owner.owner = "../root";
  EXPECT_EQ(ParseManifest(EncodeManifest(bad_owner)).status().code(),
            absl::StatusCode::kInvalidArgument);
  DurableManifest bad_name = Example();
  bad_name.name = "a b";
  EXPECT_FALSE(ParseManifest(EncodeManifest(bad_name)).ok());
}

class DurableStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("durable-store-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<DurableStore> Open(int64_t quota = TenantQuota::kUnlimited) {
    auto store = DurableStore::Open(dir_.string(), backend_, quota, 1 << 10,
                                    [this](const std::string& line) { log_.push_back(line); });
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // `values` as a private float32 array, and the metadata of its publication `name`.
  std::pair<DurableManifest, std::shared_ptr<const ArrayRecord>> Snapshot(
      const std::string& name, const std::vector<float>& values) {
    auto record = std::make_shared<ArrayRecord>();
    record->dtype = DType::kFloat32;
    record->shape = {static_cast<int64_t>(values.size())};
    record->strides = {1};
    record->buffer =
        *backend_.memory().Allocate(TestQueue(backend_), static_cast<int64_t>(values.size() * 4));
    EXPECT_TRUE(
        backend_.memory()
            .CopyFromHost(TestQueue(backend_), *record->buffer, 0, std::as_bytes(std::span(values)))
            .ok());
    DurableManifest metadata;
    metadata.name = name;
    metadata.owner = "alice";
    metadata.readers = {"bob"};
    metadata.dtype = DType::kFloat32;
    metadata.shape = record->shape;
    return {metadata, record};
  }

  absl::Status Write(DurableStore& store, const std::string& name,
                     const std::vector<float>& values) {
    auto [metadata, snapshot] = Snapshot(name, values);
    absl::StatusOr<TenantCharge> disk =
        store.ReserveDisk(metadata.owner, metadata.dtype, metadata.shape);
    if (!disk.ok()) return disk.status();
    return store.Enqueue(metadata, *std::move(disk), snapshot, nullptr).get();
  }

  std::vector<std::string> Files() const {
    std::vector<std::string> files;
    for (const auto& item : fs::directory_iterator(dir_)) {
      files.push_back(item.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  HostBackend backend_;
  fs::path dir_;
  std::vector<std::string> log_;
};

TEST_F(DurableStoreTest, WritesPrivateFilesAndRestoresTheLastVersion) {
  {
    auto store = Open();
    ASSERT_TRUE(Write(*store, "w", {1, 2, 3}).ok());
    ASSERT_TRUE(Write(*store, "w", {4, 5, 6}).ok());  // Replaces version 1.
    EXPECT_EQ(store->DiskBytesInUse("alice"), 128 + 12);
  }
  EXPECT_EQ(fs::status(dir_).permissions(), fs::perms::owner_all);
  const std::vector<std::string> files = Files();
  ASSERT_EQ(files.size(), 2u);
  for (const std::string& file : files) {
    EXPECT_EQ(fs::status(dir_ / file).permissions(), fs::perms::owner_read | fs::perms::owner_write)
        << file;
  }
  auto store = Open();
  const std::vector<DurableManifest> restored = store->TakeRestored();
  ASSERT_EQ(restored.size(), 1u);
  EXPECT_EQ(restored[0].name, "w");
  EXPECT_EQ(restored[0].readers, std::vector<std::string>{"bob"});
  EXPECT_EQ(restored[0].version, 2);
  EXPECT_EQ(store->DiskBytesInUse("alice"), 128 + 12);
  absl::StatusOr<DurableStore::DataFile> data = store->OpenData("alice", "w");
  ASSERT_TRUE(data.ok()) << data.status();
  std::string bytes(140, '\0');
  ASSERT_EQ(::read(data->fd.get(), bytes.data(), bytes.size()), 140);
  EXPECT_EQ(Crc32(0, bytes), data->manifest.data_crc32);
  float values[3];
  std::memcpy(values, bytes.data() + 128, 12);
  EXPECT_EQ(values[2], 6.0f);
}

TEST_F(DurableStoreTest, OpenRemovesWhatAKilledWriterLeft) {
  { ASSERT_TRUE(Write(*Open(), "w", {1, 2}).ok()); }
  const std::string id = Files()[0].substr(0, 32);
  // An unfinished write, a version whose manifest never came, and one never described.
  std::ofstream(dir_ / (id + ".2.npy.tmp")) << "torn";
  std::ofstream(dir_ / (id + ".2.npy")) << "complete but never named";
  std::ofstream(dir_ / "ffffffffffffffffffffffffffffffff.1.npy") << "orphan";
  std::ofstream(dir_ / (id + ".manifest.tmp")) << "half a manifest";
  auto store = Open();
  EXPECT_EQ(Files(), (std::vector<std::string>{id + ".1.npy", id + ".manifest"}));
  EXPECT_EQ(store->TakeRestored().size(), 1u);
}

TEST_F(DurableStoreTest, SkipsAndLogsADamagedManifestOrAShortDataFile) {
  {
    auto store = Open();
    ASSERT_TRUE(Write(*store, "damaged", {1}).ok());
    ASSERT_TRUE(Write(*store, "short", {1, 2, 3}).ok());
  }
  for (const std::string& file : Files()) {
    const fs::path path = dir_ / file;
    if (file.ends_with(".manifest") && fs::file_size(path) < 300) {
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      if (text.str().find("name damaged") != std::string::npos) {
        std::ofstream(path) << text.str().replace(text.str().find("float32"), 7, "float64");
      }
    }
    if (file.ends_with(".npy") && fs::file_size(path) == 128 + 12) fs::resize_file(path, 130);
  }
  auto store = Open();
  EXPECT_TRUE(store->TakeRestored().empty());
  ASSERT_EQ(log_.size(), 2u);
  EXPECT_NE(log_[0].find("(left in place)"), std::string::npos) << log_[0];
  EXPECT_EQ(store->DiskBytesInUse("alice"), 0);
}

TEST_F(DurableStoreTest, TheDiskQuotaRefusesBeforeWriting) {
  auto store = Open(/*quota=*/200);
  ASSERT_TRUE(Write(*store, "fits", {1, 2, 3}).ok());
  const absl::Status refused = Write(*store, "too-much", std::vector<float>(20));
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.message(),
            "tenant 'alice' disk quota exceeded (--tenant-max-disk-bytes 200): the request "
            "needs 208 bytes and the tenant already uses 140 bytes");
  EXPECT_EQ(Files().size(), 2u);
}

TEST_F(DurableStoreTest, RemoveDeletesTheFilesAndDropsQueuedWrites) {
  auto store = Open();
  ASSERT_TRUE(Write(*store, "w", {1}).ok());
  store->Remove("alice", "w");
  EXPECT_TRUE(Files().empty());
  EXPECT_EQ(store->DiskBytesInUse("alice"), 0);
  store->Remove("alice", "never-durable");  // Nothing to do.
  EXPECT_FALSE(store->OpenData("alice", "w").ok());
}

// Writes and removals of the same names from many threads: whatever order they land in, the
// directory ends with one manifest and one data file per publication the store still has,
// no temporary file, and a disk charge equal to what a fresh start finds.
TEST_F(DurableStoreTest, ConcurrentWritesAndRemovalsLeaveAConsistentDirectory) {
  auto store = Open();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        const std::string name = "n" + std::to_string((t + i) % 4);
        if ((t * 7 + i) % 5 == 0) {
          store->Remove("alice", name);
          continue;
        }
        auto [metadata, snapshot] = Snapshot(name, std::vector<float>(16 + i, float(t)));
        absl::StatusOr<TenantCharge> disk =
            store->ReserveDisk(metadata.owner, metadata.dtype, metadata.shape);
        ASSERT_TRUE(disk.ok());
        store->Enqueue(metadata, *std::move(disk), snapshot, nullptr);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  store->Flush();
  const int64_t charged = store->DiskBytesInUse("alice");
  store.reset();
  int manifests = 0, data = 0;
  for (const std::string& file : Files()) {
    EXPECT_FALSE(file.ends_with(".tmp")) << file;
    manifests += file.ends_with(".manifest");
    data += file.ends_with(".npy");
  }
  EXPECT_EQ(manifests, data);
  store = Open();
  EXPECT_EQ(static_cast<int>(store->TakeRestored().size()), manifests);
  EXPECT_EQ(store->DiskBytesInUse("alice"), charged);
  EXPECT_TRUE(log_.empty());
}

}  // namespace
}  // namespace arrayhub
