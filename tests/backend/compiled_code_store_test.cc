// The on-disk store of compiled code (server/backend/compiled_code_store.h): entries survive a
// new store over the same directory, damaged files are never loaded, the directory stays
// within its bytes, and many threads of two stores, or of two processes, share one directory
// without ever loading the wrong or a partial entry.
#include "server/backend/compiled_code_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

namespace arrayhub {
namespace {

namespace fs = std::filesystem;

class CompiledCodeStoreTest : public testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/compiled_code_store_test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    dir_ = root_ + "/cache/kernels";
  }
  void TearDown() override { fs::remove_all(root_); }

  std::unique_ptr<CompiledCodeStore> OpenStore(int64_t max_bytes = int64_t{1} << 20) {
    auto store = CompiledCodeStore::Open(dir_, max_bytes);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.push_back(entry.path().filename());
    }
    return names;
  }

  std::string root_;
  std::string dir_;
};

std::string Key(int k) { return CompiledCodeStore::KeyOf({"source", std::to_string(k)}); }

// Code of a size and content that only key k has, so a wrong entry cannot pass for it.
std::string CodeOf(int k) {
  std::string code;
  for (int i = 0; i < 700 + 37 * k; ++i) code += static_cast<char>('a' + (i * 7 + k) % 26);
  return code;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST_F(CompiledCodeStoreTest, KeysHashLengthPrefixedParts) {
  const std::string key = CompiledCodeStore::KeyOf({"ab", "c"});
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(key, CompiledCodeStore::KeyOf({"ab", "c"}));
  EXPECT_NE(key, CompiledCodeStore::KeyOf({"a", "bc"}));
  EXPECT_NE(key, CompiledCodeStore::KeyOf({"abc"}));
}

TEST_F(CompiledCodeStoreTest, ANewStoreOverTheDirectoryLoadsWhatAnEarlierOneStored) {
  auto first = OpenStore();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->Load(Key(1)), std::nullopt);
  ASSERT_TRUE(first->Store(Key(1), CodeOf(1)).ok());
  first.reset();
  auto second = OpenStore();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->Load(Key(1)), CodeOf(1));
  EXPECT_EQ(second->Load(Key(2)), std::nullopt);
  // The directory is the user's alone, the entry too, and no temporary file is left.
  EXPECT_EQ(fs::status(dir_).permissions(), fs::perms::owner_all);
  EXPECT_EQ(fs::status(dir_ + "/" + Key(1)).permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(Files(), std::vector<std::string>{Key(1)});
  // Storing again replaces the entry.
  ASSERT_TRUE(second->Store(Key(1), "other code").ok());
  EXPECT_EQ(second->Load(Key(1)), "other code");
}

TEST_F(CompiledCodeStoreTest, RefusesKeysItCannotHaveMadeAndCodeLargerThanTheStore) {
  auto store = OpenStore(4096);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->Store("../escape", "x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->Store(Key(1).substr(1), "x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->Load("../escape"), std::nullopt);
  EXPECT_EQ(store->Store(Key(1), std::string(4096, 'x')).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(Files().empty());
}

TEST_F(CompiledCodeStoreTest, RefusesADirectoryOthersMayWriteOrThatIsNotOne) {
  ASSERT_NE(OpenStore(), nullptr);
  fs::permissions(dir_, fs::perms::all, fs::perm_options::replace);
  EXPECT_EQ(CompiledCodeStore::Open(dir_, 1 << 20).status().code(),
            absl::StatusCode::kFailedPrecondition);
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec,
                  fs::perm_options::replace);
  EXPECT_TRUE(CompiledCodeStore::Open(dir_, 1 << 20).ok());  // Readable by others is fine.
  WriteFile(root_ + "/file", "x");
  EXPECT_EQ(CompiledCodeStore::Open(root_ + "/file", 1 << 20).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CompiledCodeStore::Open("", 1 << 20).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CompiledCodeStore::Open(dir_, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

// Each way a file can be damaged: the load misses (the caller compiles again), the file goes,
// and the next store and load work.
TEST_F(CompiledCodeStoreTest, DamagedEntriesAreNeverLoaded) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Store(Key(1), CodeOf(1)).ok());
  const std::string path = dir_ + "/" + Key(1);
  const std::string good = ReadFile(path);
  const size_t header = good.size() - CodeOf(1).size();
  auto flipped = [&](size_t at) {
    std::string bytes = good;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x20);
    return bytes;
  };
  const std::vector<std::pair<std::string, std::string>> damages = {
      {"empty", ""},
      {"a torn header", good.substr(0, header - 1)},
      {"truncated code", good.substr(0, good.size() / 2 + header / 2)},
      {"one byte missing", good.substr(0, good.size() - 1)},
      {"one byte too many", good + "x"},
      {"a changed code byte", flipped(good.size() - 1)},
      {"a changed checksum byte", flipped(header - 1)},
      {"a changed size byte", flipped(8 + 64)},
      {"another key", flipped(8)},
      {"another format", flipped(0)},
  };
  for (const auto& [what, bytes] : damages) {
    SCOPED_TRACE(what);
    WriteFile(path, bytes);
    EXPECT_EQ(store->Load(Key(1)), std::nullopt);
    EXPECT_FALSE(fs::exists(path));
    ASSERT_TRUE(store->Store(Key(1), CodeOf(1)).ok());
    EXPECT_EQ(store->Load(Key(1)), CodeOf(1));
  }
  // An entry copied under another key's name is that other key's miss.
  fs::copy_file(path, dir_ + "/" + Key(2));
  EXPECT_EQ(store->Load(Key(2)), std::nullopt);
  // Neither a link (even to a good entry) nor a directory is followed.
  fs::create_symlink(path, dir_ + "/" + Key(3));
  EXPECT_EQ(store->Load(Key(3)), std::nullopt);
  fs::create_directory(dir_ + "/" + Key(4));
  EXPECT_EQ(store->Load(Key(4)), std::nullopt);
  EXPECT_EQ(store->Load(Key(1)), CodeOf(1));
}

TEST_F(CompiledCodeStoreTest, EvictsTheLeastRecentlyUsedBeyondItsBytes) {
  auto probe = OpenStore();
  ASSERT_TRUE(probe->Store(Key(0), CodeOf(0)).ok());
  const int64_t entry_bytes = static_cast<int64_t>(fs::file_size(dir_ + "/" + Key(0)));
  fs::remove(dir_ + "/" + Key(0));
  // Room for three entries of key 0's size (later keys are a little larger).
  auto store = OpenStore(3 * entry_bytes + 3 * 37 * 3);
  ASSERT_NE(store, nullptr);
  // Used long ago, in the order 0, 1, 2: explicit times, so that the test does not depend on
  // the filesystem's timestamp granularity.
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(store->Store(Key(k), CodeOf(k)).ok());
    const timespec times[2] = {{1000 + k, 0}, {1000 + k, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, (dir_ + "/" + Key(k)).c_str(), times, 0), 0);
  }
  ASSERT_EQ(store->Load(Key(0)), CodeOf(0));  // Now 0 is the most recently used.
  ASSERT_TRUE(store->Store(Key(3), CodeOf(3)).ok());
  EXPECT_EQ(store->Load(Key(1)), std::nullopt);  // The least recently used went.
  EXPECT_EQ(store->Load(Key(0)), CodeOf(0));
  EXPECT_EQ(store->Load(Key(2)), CodeOf(2));
  EXPECT_EQ(store->Load(Key(3)), CodeOf(3));
  int64_t total = 0;
  for (const std::string& name : Files()) total += fs::file_size(dir_ + "/" + name);
  EXPECT_LE(total, store->max_bytes());
}

TEST_F(CompiledCodeStoreTest, RemovesTemporaryFilesThatWritersLeftLongAgo) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  const std::string stale = dir_ + "/.tmp-1-1";
  const std::string live = dir_ + "/.tmp-2-1";
  WriteFile(stale, "half an entry");
  WriteFile(live, "half an entry");
  const timespec long_ago[2] = {{1000, 0}, {1000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, stale.c_str(), long_ago, 0), 0);
  ASSERT_TRUE(store->Store(Key(1), CodeOf(1)).ok());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));  // Perhaps another daemon's, being written now.
}

// Threads of one store instance storing and loading 24 keys in a directory with room for a
// few, so that eviction runs all the time: every load finds the exact entry or none.
int Churn(const CompiledCodeStore& store, int threads, int seed) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        const int k = (i * 7 + t * 5 + seed) % 24;
        if (std::optional<std::string> code = store.Load(Key(k))) {
          if (*code != CodeOf(k)) ++wrong;
        } else if (!store.Store(Key(k), CodeOf(k)).ok()) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  return wrong.load();
}

TEST_F(CompiledCodeStoreTest, ManyThreadsOfTwoStoresShareOneDirectory) {
  auto a = OpenStore(6000);
  auto b = OpenStore(6000);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::thread other([&] { EXPECT_EQ(Churn(*b, 8, 1), 0); });
  EXPECT_EQ(Churn(*a, 8, 0), 0);
  other.join();
  for (const std::string& name : Files()) EXPECT_FALSE(name.starts_with(".tmp")) << name;
  ASSERT_TRUE(a->Store(Key(0), CodeOf(0)).ok());  // Evicts down to the bound, alone.
  int64_t total = 0;
  for (const std::string& name : Files()) total += fs::file_size(dir_ + "/" + name);
  EXPECT_LE(total, 6000);
}

TEST_F(CompiledCodeStoreTest, TwoProcessesShareOneDirectory) {
  ASSERT_NE(OpenStore(), nullptr);  // Creates the directory before either process uses it.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child's own store; it reports through its exit status only.
    auto store = CompiledCodeStore::Open(dir_, 6000);
    _exit(store.ok() && Churn(**store, 4, 3) == 0 ? 0 : 1);
  }
  auto store = OpenStore(6000);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(Churn(*store, 4, 0), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace arrayhub
