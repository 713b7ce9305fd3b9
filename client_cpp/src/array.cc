#include "arrayhub/array.h"

#include <utility>

#include "connection.h"
#include "pipeline.h"

namespace arrayhub::client {

int64_t ElementCount(const Shape& shape) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

Array::Array(std::shared_ptr<detail::Connection> connection, std::shared_ptr<detail::Result> result)
    : connection_(std::move(connection)), result_(std::move(result)) {}

Array::~Array() { Reset(); }

Array::Array(Array&& other) noexcept
    : connection_(std::move(other.connection_)), result_(std::move(other.result_)) {}

Array& Array::operator=(Array&& other) noexcept {
  if (this != &other) {
    Reset();
    connection_ = std::move(other.connection_);
    result_ = std::move(other.result_);
  }
  return *this;
}

const ArrayInfo& Array::Settled() const {
  static const ArrayInfo kEmpty;
  if (result_ == nullptr) return kEmpty;
  if (result_->state.load(std::memory_order_acquire) != detail::Result::State::kReady) {
    connection_->pipeline->Wait(result_);
  }
  return result_->info;
}

std::string Array::Release() {
  std::string handle = Settled().handle;
  connection_.reset();
  result_.reset();
  return handle;
}

void Array::Reset() noexcept {
  // A result not made yet is left out of its batch's `keep`, or freed when its reply comes.
  if (connection_ != nullptr && connection_->session_open && result_ != nullptr &&
      result_->state.load(std::memory_order_acquire) == detail::Result::State::kReady &&
      !result_->info.handle.empty()) {
    try {
      if (connection_->pipeline->sync()) {
        connection_->Free(result_->info.handle, /*cleanup=*/true);
      } else {
        connection_->pipeline->Drop(result_->info.handle);
      }
    } catch (...) {
      // A destructor must not throw; the server frees the array with its session anyway.
    }
  }
  connection_.reset();
  result_.reset();
}

}  // namespace arrayhub::client
