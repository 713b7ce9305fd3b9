// The manifest of a durable publication: a small text file beside its .npy data file in the
// data directory (docs/operations.md), one `key value` line per field, the last line a CRC-32
// of the lines before it. Every name in it is checked on reading as on a request, so that a
// manifest edited or damaged on disk can name nothing a request could not.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/common/dtype.h"
#include "server/common/shape.h"

namespace arrayhub {

struct DurableManifest {
  std::string name;   // The publication's name.
  std::string owner;  // The publishing tenant, charged for memory and disk.
  std::vector<std::string> readers;
  bool all_tenants = false;
  bool writable = false;
  DType dtype = DType::kFloat32;
  Shape shape;
  int64_t version = 0;      // 1 for the first write, one more for each later one.
  std::string data_file;    // "<id>.<version>.npy", in the same directory.
  int64_t data_bytes = 0;   // The data file's size: .npy header plus the array's bytes.
  uint32_t data_crc32 = 0;  // zlib's CRC-32 of the whole data file.
};

// The manifest's text, ending with its own CRC line.
std::string EncodeManifest(const DurableManifest& manifest);

// DATA_LOSS when the text is damaged (a checksum, a line or a value that does not parse, a
// missing or repeated key); INVALID_ARGUMENT for names that requests could not use.
absl::StatusOr<DurableManifest> ParseManifest(std::string_view text);

// "<id>.<version>.npy": a file name of the data directory's own making, never from a name a
// client chose. `id` is 32 hex characters.
std::string DataFileName(std::string_view id, int64_t version);

// zlib's CRC-32 of `bytes` continuing from `crc` (0 to start), as Python's zlib.crc32.
uint32_t Crc32(uint32_t crc, std::string_view bytes);

}  // namespace arrayhub
