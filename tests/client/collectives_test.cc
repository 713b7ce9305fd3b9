// The C++ client's collectives on a daemon with three virtual CPU devices (three, so that rank
// order and counts that are no power of two show): every kind against values computed here,
// queued inputs, Scatter/Gather, and one error per rule of the Collective contract.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrayhub/client.h"
#include "tests/support/test_server.h"

namespace {

using arrayhub::client::Array;
using arrayhub::client::Client;
using arrayhub::client::DeviceGuard;
using arrayhub::client::DType;
using arrayhub::client::Error;
using arrayhub::client::ReduceOp;
using arrayhub::client::Shape;
using arrayhub::client::StatusCode;
using ArrayRefs = std::vector<std::reference_wrapper<const Array>>;

constexpr int kRanks = 3;

class ClientCollectivesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = arrayhub::testing::StartCpuDevices(kRanks);
    ASSERT_NE(server_, nullptr);
    client_.emplace(Client::Connect(server_->address()));
    client_->SetDevice(0);
  }

  Client& client() { return *client_; }

  // `values` uploaded to `device`.
  template <typename T>
  Array On(int32_t device, const std::vector<T>& values, const Shape& shape) {
    DeviceGuard guard(client(), device);
    return client().Upload(values, shape);
  }

  // Rank i's input: {i + 1, i + 2, ...} of `shape` on device i, as T.
  template <typename T>
  std::vector<Array> Inputs(const Shape& shape) {
    std::vector<Array> arrays;
    for (int i = 0; i < kRanks; ++i) {
      std::vector<T> values;
      for (int64_t k = 0; k < arrayhub::client::ElementCount(shape); ++k) {
        values.push_back(static_cast<T>(i + 1 + k));
      }
      arrays.push_back(On(i, values, shape));
    }
    return arrays;
  }

  // The error `call` throws: kInvalidArgument, its message containing `words`.
  void ExpectInvalid(const std::function<void()>& call, const std::string& words) {
    try {
      call();
      client().Synchronize();
      ADD_FAILURE() << "threw nothing; expected \"" << words << "\"";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), StatusCode::kInvalidArgument) << error.what();
      EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
    }
  }

  std::unique_ptr<arrayhub::ArrayHubServer> server_;
  std::optional<Client> client_;  // Declared after server_, so destroyed before it.
};

ArrayRefs Refs(const std::vector<Array>& arrays) { return {arrays.begin(), arrays.end()}; }

// Each result on device i, of the shape given.
void ExpectOnRanks(const std::vector<Array>& results, const Shape& shape) {
  ASSERT_EQ(results.size(), static_cast<size_t>(kRanks));
  for (int i = 0; i < kRanks; ++i) {
    EXPECT_EQ(results[i].info().device_index, i);
    EXPECT_TRUE(results[i].info().c_contiguous);
    EXPECT_EQ(results[i].shape(), shape);
  }
}

TEST_F(ClientCollectivesTest, AllReduceGivesEveryRankTheReduction) {
  std::vector<Array> ints = Inputs<int32_t>({2, 2});  // Rank i: {i+1, i+2, i+3, i+4}.
  std::vector<Array> sums = client().AllReduce(Refs(ints));
  ExpectOnRanks(sums, {2, 2});
  for (const Array& sum : sums) {
    EXPECT_EQ(client().Download<int32_t>(sum), (std::vector<int32_t>{6, 9, 12, 15}));
  }
  EXPECT_EQ(client().Download<int32_t>(client().AllReduce(Refs(ints), ReduceOp::kProd)[2]),
            (std::vector<int32_t>{6, 24, 60, 120}));
  EXPECT_EQ(client().Download<int32_t>(client().AllReduce(Refs(ints), ReduceOp::kMin)[1]),
            (std::vector<int32_t>{1, 2, 3, 4}));
  std::vector<Array> floats = Inputs<double>({4});
  EXPECT_EQ(client().Download<double>(client().AllReduce(Refs(floats), ReduceOp::kAvg)[0]),
            (std::vector<double>{2, 3, 4, 5}));
  EXPECT_EQ(client().Download<double>(client().AllReduce(Refs(floats), ReduceOp::kMax)[0]),
            (std::vector<double>{3, 4, 5, 6}));
}

TEST_F(ClientCollectivesTest, ReduceGivesTheRootAlone) {
  std::vector<Array> arrays = Inputs<float>({3});
  Array reduced = client().Reduce(Refs(arrays), 2, ReduceOp::kSum);
  EXPECT_EQ(reduced.info().device_index, 2);
  EXPECT_EQ(client().Download<float>(reduced), (std::vector<float>{6, 9, 12}));
  // Rank order is the list's: rank 0 here is device 2.
  Array first = client().Reduce({arrays[2], arrays[0], arrays[1]}, 0, ReduceOp::kMax);
  EXPECT_EQ(first.info().device_index, 2);
  EXPECT_EQ(client().Download<float>(first), (std::vector<float>{3, 4, 5}));
}

TEST_F(ClientCollectivesTest, BroadcastCopiesToEveryDeviceInOrder) {
  Array source = On<int16_t>(1, {7, -8, 9}, {3, 1});  // int16: no NCCL reduction, bytes only.
  std::vector<Array> copies = client().Broadcast(source, {2, 1, 0});
  ASSERT_EQ(copies.size(), 3U);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(copies[k].info().device_index, 2 - k);
    EXPECT_EQ(copies[k].shape(), (Shape{3, 1}));
    EXPECT_EQ(client().Download<int16_t>(copies[k]), (std::vector<int16_t>{7, -8, 9}));
  }
}

TEST_F(ClientCollectivesTest, AllGatherConcatenatesInRankOrder) {
  std::vector<Array> arrays = Inputs<int64_t>({1, 2});
  std::vector<Array> gathered = client().AllGather(Refs(arrays));
  ExpectOnRanks(gathered, {3, 2});
  for (const Array& all : gathered) {
    EXPECT_EQ(client().Download<int64_t>(all), (std::vector<int64_t>{1, 2, 2, 3, 3, 4}));
  }
}

TEST_F(ClientCollectivesTest, ReduceScatterGivesRankIPartI) {
  std::vector<Array> arrays = Inputs<float>({6});  // The sum: {6, 9, 12, 15, 18, 21}.
  std::vector<Array> parts = client().ReduceScatter(Refs(arrays));
  ExpectOnRanks(parts, {2});
  EXPECT_EQ(client().Download<float>(parts[0]), (std::vector<float>{6, 9}));
  EXPECT_EQ(client().Download<float>(parts[1]), (std::vector<float>{12, 15}));
  EXPECT_EQ(client().Download<float>(parts[2]), (std::vector<float>{18, 21}));
}

TEST_F(ClientCollectivesTest, AllToAllGivesRankJPartJOfEveryInput) {
  std::vector<Array> arrays = Inputs<int32_t>({3, 2});  // Rank i: rows {i+1, i+2}, ...
  std::vector<Array> swapped = client().AllToAll(Refs(arrays));
  ExpectOnRanks(swapped, {3, 2});
  // Rank j: row j of inputs 0, 1 and 2.
  EXPECT_EQ(client().Download<int32_t>(swapped[0]), (std::vector<int32_t>{1, 2, 2, 3, 3, 4}));
  EXPECT_EQ(client().Download<int32_t>(swapped[2]), (std::vector<int32_t>{5, 6, 6, 7, 7, 8}));
}

TEST_F(ClientCollectivesTest, QueuedInputsAreSentFirst) {
  std::vector<Array> ranges;
  std::vector<Array> arrays;
  for (int i = 0; i < kRanks; ++i) {
    DeviceGuard guard(client(), i);
    ranges.push_back(client().Arange(0, 4, 1, DType::kFloat32));
    arrays.push_back(client().Ufunc("add", {ranges.back(), i}));
  }
  std::vector<Array> sums = client().AllReduce(Refs(arrays));
  EXPECT_EQ(client().Download<float>(sums[1]), (std::vector<float>{3, 6, 9, 12}));
}

TEST_F(ClientCollectivesTest, ScatterAndGatherRoundTrip) {
  std::vector<int32_t> values(14);
  for (int k = 0; k < 14; ++k) values[k] = k;
  Array x = client().Upload(values, {7, 2});
  std::vector<Array> rows = client().Scatter(x, {2, 0, 1});  // 7 rows: 3, 2 and 2.
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(rows[2].shape(), (Shape{2, 2}));
  EXPECT_EQ(rows[0].info().device_index, 2);
  EXPECT_EQ(rows[1].info().device_index, 0);
  EXPECT_EQ(client().Download<int32_t>(rows[1]), (std::vector<int32_t>{6, 7, 8, 9}));
  Array back = client().Gather(Refs(rows));
  EXPECT_EQ(back.info().device_index, 0);
  EXPECT_EQ(client().Download<int32_t>(back), values);
  std::vector<Array> columns = client().Scatter(x, {0, 1}, -1);  // One column each.
  EXPECT_EQ(columns[0].shape(), (Shape{7, 1}));
  EXPECT_TRUE(columns[0].info().c_contiguous);
  Array there = client().Gather(Refs(columns), 1, 1);
  EXPECT_EQ(there.info().device_index, 1);
  EXPECT_EQ(client().Download<int32_t>(there), values);
  EXPECT_EQ(client().CurrentDevice(), 0);
  ExpectInvalid([&] { client().Scatter(x, {0}, 2); },
                "axis 2 is out of bounds for array of dimension 2");
}

TEST_F(ClientCollectivesTest, TheServerRefusesWhatTheContractRefuses) {
  ExpectInvalid([&] { client().AllReduce({}); }, "needs at least one array");
  std::vector<Array> shorts = Inputs<int16_t>({3});
  ExpectInvalid([&] { client().AllReduce(Refs(shorts)); }, "dtype int16 cannot be reduced");
  std::vector<Array> ints = Inputs<int32_t>({3});
  ExpectInvalid([&] { client().AllReduce(Refs(ints), ReduceOp::kAvg); },
                "op avg needs a floating or complex dtype, not int32");
  Array longer = On<int32_t>(1, {1, 2, 3, 4}, {4});
  ExpectInvalid(
      [&] {
        client().AllReduce({ints[0], longer});
      },
      "handles[1] is int32 of shape (4,)");
  ExpectInvalid(
      [&] {
        client().AllGather({ints[0], ints[1], ints[1]});
      },
      "handles[2] is on device 1 (cpu:1) as handles[1] is");
  ExpectInvalid([&] { client().ReduceScatter({ints[0], ints[1]}); }, "does not split into 2 equal");
  ExpectInvalid([&] { client().AllToAll({ints[0], ints[1]}); }, "does not split into 2 equal");
  ExpectInvalid([&] { client().Reduce(Refs(ints), 3); }, "root 3 is not a rank");
  ExpectInvalid(
      [&] {
        client().Broadcast(ints[0], {1, 2});
      },
      "the array is on device 0 (cpu:0), which devices must include");
  // The session goes on after its refusals.
  EXPECT_EQ(client().Download<int32_t>(client().AllReduce(Refs(ints))[0]),
            (std::vector<int32_t>{6, 9, 12}));
}

}  // namespace
