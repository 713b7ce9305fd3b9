// Uploads into byte ranges of an existing array and downloads of byte ranges: what a client
// striping a large transfer over several streams sends, in any order and at once, and the
// requests that must be refused.
#include <thread>

#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

class TransferRangeTest : public RpcTest {
 protected:
  v1::ArrayInfo Zeros(v1::DType dtype, std::vector<int64_t> shape) {
    v1::CreateRequest create;
    create.set_dtype(dtype);
    create.mutable_shape()->Assign(shape.begin(), shape.end());
    create.mutable_zeros();
    return Create(create);
  }

  static v1::UploadHeader Into(const v1::ArrayInfo& target, int64_t offset, int64_t length) {
    v1::UploadHeader header;
    header.set_dtype(target.dtype());
    *header.mutable_shape() = target.shape();
    header.set_target_handle(target.handle());
    header.set_offset_bytes(offset);
    header.set_length_bytes(length);
    return header;
  }

  grpc::Status DownloadRange(const std::string& handle, int64_t offset, int64_t length,
                             std::string* data, v1::ArrayInfo* info = nullptr) {
    auto context = Context();
    v1::DownloadRequest request;
    request.set_handle(handle);
    request.set_chunk_bytes(1000);
    request.set_offset_bytes(offset);
    request.set_length_bytes(length);
    auto reader = stub_->Download(context.get(), request);
    v1::DownloadResponse message;
    while (reader->Read(&message)) {
      if (message.has_info() && info != nullptr) *info = message.info();
      if (message.has_chunk()) *data += message.chunk();
    }
    return reader->Finish();
  }
};

TEST_F(TransferRangeTest, RangesUploadedAtOnceInAnyOrderMakeTheArray) {
  const std::string bytes = RandomBytes(3 * 4099 * 8, 11);  // float64 (3, 4099).
  const v1::ArrayInfo target = Zeros(v1::DTYPE_FLOAT64, {3, 4099});
  // Three ranges, the last one short, uploaded concurrently and last first.
  const int64_t stripe = 40000;
  std::vector<std::thread> streams;
  std::vector<grpc::Status> statuses(3);
  std::vector<v1::ArrayInfo> infos(3);
  for (int i = 2; i >= 0; --i) {
    streams.emplace_back([&, i] {
      const int64_t offset = i * stripe;
      const std::string part = bytes.substr(offset, stripe);
      statuses[i] =
          Upload(Into(target, offset, static_cast<int64_t>(part.size())), part, &infos[i], 777);
    });
  }
  for (std::thread& stream : streams) stream.join();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(statuses[i].ok()) << statuses[i].error_message();
    EXPECT_EQ(infos[i].handle(), target.handle()) << "the answer describes the target";
  }
  EXPECT_EQ(DownloadAll(target.handle()), bytes);
}

TEST_F(TransferRangeTest, LengthZeroRunsToTheEnd) {
  const v1::ArrayInfo target = Zeros(v1::DTYPE_UINT8, {100});
  const std::string tail = RandomBytes(30, 12);
  v1::ArrayInfo info;
  ASSERT_TRUE(Upload(Into(target, 70, 0), tail, &info).ok());
  EXPECT_EQ(DownloadAll(target.handle()), std::string(70, '\0') + tail);
}

TEST_F(TransferRangeTest, DownloadRangesAreTheBytesInCOrder) {
  const std::string bytes = RandomBytes(12 * 10 * 4, 13);
  v1::ArrayInfo array;
  ASSERT_TRUE(Upload(v1::DTYPE_INT32, {12, 10}, bytes, &array).ok());
  for (const auto& [offset, length] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 480}, {4, 100}, {479, 1}, {100, 0}, {480, 0}}) {
    std::string data;
    v1::ArrayInfo info;
    ASSERT_TRUE(DownloadRange(array.handle(), offset, length, &data, &info).ok());
    EXPECT_EQ(data, bytes.substr(offset, length == 0 ? std::string::npos : length))
        << offset << " + " << length;
    EXPECT_EQ(info.nbytes(), 480) << "the info message describes the whole array";
  }
  // A transposed view: ranges of its C-order bytes, not of the memory behind it.
  v1::ViewRequest transpose;
  transpose.set_handle(array.handle());
  transpose.mutable_transpose();
  v1::ArrayInfo transposed;
  ASSERT_TRUE(stub_->View(Context().get(), transpose, &transposed).ok());
  const std::string whole = DownloadAll(transposed.handle());
  std::string part;
  ASSERT_TRUE(DownloadRange(transposed.handle(), 44, 200, &part).ok());
  EXPECT_EQ(part, whole.substr(44, 200));
}

TEST_F(TransferRangeTest, BadRangesAndTargetsAreRefused) {
  const v1::ArrayInfo target = Zeros(v1::DTYPE_INT16, {4, 5});  // 40 bytes.
  v1::ArrayInfo info;
  EXPECT_STATUS(Upload(Into(target, 32, 10), RandomBytes(10, 1), &info), OUT_OF_RANGE,
                "bytes [32, 42) (header.offset_bytes 32, header.length_bytes 10) are outside the "
                "array's 40 bytes");
  EXPECT_STATUS(Upload(Into(target, 41, 0), "", &info), OUT_OF_RANGE,
                "bytes [41, end) (header.offset_bytes 41, header.length_bytes 0) are outside the "
                "array's 40 bytes");
  EXPECT_STATUS(Upload(Into(target, -2, 4), RandomBytes(4, 1), &info), INVALID_ARGUMENT,
                "header.offset_bytes and header.length_bytes must not be negative, got -2 and 4");
  v1::UploadHeader wrong_dtype = Into(target, 0, 0);
  wrong_dtype.set_dtype(v1::DTYPE_UINT16);
  EXPECT_STATUS(Upload(wrong_dtype, RandomBytes(40, 1), &info), INVALID_ARGUMENT,
                "the header says uint16 of shape (4, 5), but the target " + target.handle() +
                    " is int16 of shape (4, 5)");
  v1::UploadHeader wrong_shape = Into(target, 0, 0);
  wrong_shape.clear_shape();
  wrong_shape.add_shape(20);
  EXPECT_STATUS(Upload(wrong_shape, RandomBytes(40, 1), &info), INVALID_ARGUMENT,
                "is int16 of shape (4, 5)");
  v1::UploadHeader missing = Into(target, 0, 0);
  missing.set_target_handle("0123456789abcdef0123456789abcdef");
  EXPECT_STATUS(Upload(missing, RandomBytes(40, 1), &info), NOT_FOUND, "");
  v1::UploadHeader no_target = Into(target, 8, 0);
  no_target.clear_target_handle();
  EXPECT_STATUS(Upload(no_target, RandomBytes(32, 1), &info), INVALID_ARGUMENT,
                "header.offset_bytes and header.length_bytes need a header.target_handle");

  v1::ViewRequest transpose;
  transpose.set_handle(target.handle());
  transpose.mutable_transpose();
  v1::ArrayInfo transposed;
  ASSERT_TRUE(stub_->View(Context().get(), transpose, &transposed).ok());
  EXPECT_STATUS(Upload(Into(transposed, 0, 0), RandomBytes(40, 1), &info), INVALID_ARGUMENT,
                "is not C-contiguous");

  std::string data;
  EXPECT_STATUS(
      DownloadRange(target.handle(), 30, 11, &data), OUT_OF_RANGE,
      "bytes [30, 41) (offset_bytes 30, length_bytes 11) are outside the array's 40 bytes");
  // A length near the int64 limit: the end is printed as asked, not overflowed.
  EXPECT_STATUS(DownloadRange(target.handle(), 10, INT64_MAX, &data), OUT_OF_RANGE,
                "bytes [10, 9223372036854775817) (offset_bytes 10, length_bytes "
                "9223372036854775807) are outside the array's 40 bytes");
  EXPECT_STATUS(DownloadRange(target.handle(), 0, -1, &data), INVALID_ARGUMENT,
                "offset_bytes and length_bytes must not be negative");
  // Nothing above wrote to the target.
  EXPECT_EQ(DownloadAll(target.handle()), std::string(40, '\0'));

  // Too few or too many bytes for the range: refused, but the bytes that arrived in time have
  // landed (a range is not all or nothing; the client uploads it again).
  EXPECT_STATUS(
      Upload(Into(target, 0, 8), RandomBytes(6, 1), &info), INVALID_ARGUMENT,
      "upload ended after 6 bytes, but the range [0, 8) of " + target.handle() + " needs 8 bytes");
  EXPECT_STATUS(Upload(Into(target, 0, 8), RandomBytes(10, 1), &info, 5), INVALID_ARGUMENT,
                "upload has more data than the header declares: 10 bytes received, range [0, 8) "
                "of " +
                    target.handle() + " holds 8 bytes");

  EXPECT_EQ(DownloadAll(target.handle()).substr(8), std::string(32, '\0'));
}

}  // namespace
}  // namespace arrayhub::testing
