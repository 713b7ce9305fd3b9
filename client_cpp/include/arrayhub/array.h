// Arrays held by the server, seen from the client: their description and an owning handle.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrayhub/dtype.h"

namespace arrayhub::client {

namespace detail {
struct Connection;   // The channel and session a Client and its Arrays share (src/connection.h).
struct Result;       // An op's result, shared with the client's queue (src/pipeline.h).
struct ArrayAccess;  // The client's internals' view of an Array (src/pipeline.h).
}  // namespace detail

using Shape = std::vector<int64_t>;

// What the server says about an array (arrayhub.v1.ArrayInfo).
struct ArrayInfo {
  std::string handle;  // 32 lowercase hex characters.
  DType dtype = DType::kFloat64;
  Shape shape;                   // Empty for a 0-d array.
  std::vector<int64_t> strides;  // In elements, not bytes.
  int64_t offset_bytes = 0;
  int64_t nbytes = 0;
  std::string device;        // "cpu", "cpu:N" (--cpu-devices) or "cuda:N".
  int32_t device_index = 0;  // Its device: an index of ServerInfo::devices.
  std::string owner;         // Tenant charged for the memory.
  std::string name;          // Published name, empty if none.
  bool c_contiguous = false;
  bool f_contiguous = false;
  bool owns_data = false;   // False for views.
  std::string base_handle;  // For a view: the array it was made from.
  bool writable = false;
};

// Number of elements of an array of this shape (1 for a 0-d array).
int64_t ElementCount(const Shape& shape);

// An array on the server, freed there when this object is destroyed. It shares the client's
// connection, so it stays usable after the Client object that made it is moved. Once the
// session is closed (the Client destroyed) the server has freed the array already, and
// destroying the Array does nothing.
//
// An Array returned by a pipelined op (see Client) may not exist on the server yet: its
// description is lazy. handle(), dtype(), shape(), size(), nbytes() and info() wait until it
// does, sending the client's queued ops first if they are still queued, and throw the Error
// of the op (or of an earlier queued op) if it failed. operator bool never waits.
class Array {
 public:
  Array() = default;  // Empty: owns nothing.
  ~Array();
  Array(Array&& other) noexcept;
  Array& operator=(Array&& other) noexcept;
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;

  // False for an empty (default-constructed, moved-from or released) Array.
  explicit operator bool() const { return result_ != nullptr; }

  const std::string& handle() const { return Settled().handle; }
  DType dtype() const { return Settled().dtype; }
  const Shape& shape() const { return Settled().shape; }
  int64_t size() const { return ElementCount(Settled().shape); }
  int64_t nbytes() const { return Settled().nbytes; }
  // The description the server gave when the array was made.
  const ArrayInfo& info() const { return Settled(); }

  // Gives up ownership: the server array is no longer freed by this object, which becomes
  // empty. Returns the handle (free it later with Client::Free). Waits as handle() does.
  std::string Release();

 private:
  friend class Client;
  friend struct detail::ArrayAccess;
  Array(std::shared_ptr<detail::Connection> connection, std::shared_ptr<detail::Result> result);
  // The server's description, once the array exists (empty for an empty Array).
  const ArrayInfo& Settled() const;
  // Frees the server array, if any, swallowing errors; leaves this Array empty. Pipelined, the
  // handle is freed with the client's next batch instead of a call of its own.
  void Reset() noexcept;

  std::shared_ptr<detail::Connection> connection_;
  std::shared_ptr<detail::Result> result_;
};

}  // namespace arrayhub::client
