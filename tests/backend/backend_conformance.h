// The contract every backend keeps, written once and run on each (in the manner of rmm's
// mr_tests.cpp): a suite instantiates these typed suites with a factory, a type with
//   static constexpr std::string_view kName;         // Backend::name()
//   static constexpr std::string_view kDeviceName;   // Backend::DeviceName()
//   static constexpr std::string_view kOutOfMemory;  // how a refused allocation's message begins
//   static std::string Unavailable();  // why this machine cannot run it ("" when it can)
//   static absl::StatusOr<std::unique_ptr<Backend>> Make();
// host_conformance_test.cc runs them on the host backend everywhere, cuda_conformance_test.cc
// on the CUDA backend where there is a GPU. What one backend alone promises (host memory
// limits, a lost CUDA device) stays in that backend's own suites.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/backend/backend.h"
#include "tests/backend/backend_io.h"
#include "tests/backend/element_bytes.h"
#include "tests/support/status_assert.h"
#include "tests/support/test_queue.h"

namespace arrayhub {

template <typename Factory>
class BackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = Factory::Unavailable(); !why.empty()) GTEST_SKIP() << why;
    AH_TEST_ASSIGN(backend_, Factory::Make());
  }

  Backend& backend() { return *backend_; }

  std::shared_ptr<Buffer> MustAllocate(int64_t nbytes) {
    absl::StatusOr<std::shared_ptr<Buffer>> buffer =
        backend_->memory().Allocate(TestQueue(*backend_), nbytes);
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    return buffer.ok() ? *buffer : nullptr;
  }

  // A new buffer holding `contents`.
  std::shared_ptr<Buffer> BufferWith(const Bytes& contents) {
    absl::StatusOr<std::shared_ptr<Buffer>> buffer = Upload(*backend_, contents);
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    return buffer.ok() ? *buffer : nullptr;
  }

  // The first `count` elements of `buffer` as T (all of it when `count` is -1); empty, with the
  // test failed, when the copy fails.
  template <typename T = std::byte>
  std::vector<T> Contents(const Buffer& buffer, int64_t count = -1) {
    absl::StatusOr<std::vector<T>> values = Download<T>(*backend_, buffer, count);
    EXPECT_TRUE(values.ok()) << values.status();
    return values.ok() ? *std::move(values) : std::vector<T>();
  }

  // A view of `shape` with `strides` (C order when none are given), from the first byte of a new
  // buffer holding `values` (of the dtype's C++ type).
  template <typename T>
  ArrayView Array(DType dtype, const std::vector<T>& values, const Shape& shape,
                  Strides strides = {}) {
    const auto* bytes = reinterpret_cast<const std::byte*>(values.data());
    buffers_.push_back(BufferWith(Bytes(bytes, bytes + values.size() * sizeof(T))));
    return {.buffer = buffers_.back().get(),
            .offset_bytes = 0,
            .dtype = dtype,
            .shape = shape,
            .strides = strides.empty() ? ContiguousStrides(shape) : std::move(strides)};
  }

  // A C-contiguous output whose bytes are all 0x7f, so that an element left unwritten shows.
  ArrayView Output(DType dtype, const Shape& shape) {
    const Bytes garbage(static_cast<size_t>(Count(shape) * ItemSize(dtype)), std::byte{0x7f});
    buffers_.push_back(BufferWith(garbage));
    return {.buffer = buffers_.back().get(),
            .offset_bytes = 0,
            .dtype = dtype,
            .shape = shape,
            .strides = ContiguousStrides(shape)};
  }

  // The elements of a C-contiguous view made by Array or Output.
  template <typename T>
  std::vector<T> Read(const ArrayView& view) {
    if (view.buffer == nullptr) return {};
    return Contents<T>(*view.buffer, Count(view.shape));
  }

  std::unique_ptr<Backend> backend_;
  std::vector<std::shared_ptr<Buffer>> buffers_;  // Keeps the views' buffers alive.
};

}  // namespace arrayhub
