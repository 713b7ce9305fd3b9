#include "server/core/durable_manifest.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "server/common/status_macros.h"
#include "server/core/publications.h"
#include "server/core/tenants.h"

namespace arrayhub {
namespace {

constexpr std::string_view kFirstLine = "arrayhub-durable 1";
constexpr std::array<std::string_view, 11> kKeys = {
    "name",  "owner",   "readers", "all_tenants", "writable",  "dtype",
    "shape", "version", "data",    "data_bytes",  "data_crc32"};

absl::Status Damaged(std::string_view what) {
  return absl::DataLossError(fmt::format("damaged manifest: {}", what));
}

// The whole of `text` as a number in `base`.
template <typename T>
bool ParseNumber(std::string_view text, T& value, int base = 10) {
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value, base);
  return error == std::errc() && stop == end && !text.empty();
}

absl::StatusOr<int64_t> ParseCount(std::string_view key, std::string_view text) {
  int64_t value = 0;
  if (!ParseNumber(text, value) || value < 0) {
    return Damaged(fmt::format("{} is not a count", key));
  }
  return value;
}

absl::StatusOr<bool> ParseBool(std::string_view key, std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return Damaged(fmt::format("{} is neither true nor false", key));
}

// `text` cut at each `separator`; with `skip_empty`, without the empty pieces.
std::vector<std::string_view> Split(std::string_view text, char separator, bool skip_empty) {
  std::vector<std::string_view> pieces;
  while (true) {
    const size_t at = text.find(separator);
    const std::string_view piece = text.substr(0, at);
    if (!piece.empty() || !skip_empty) pieces.push_back(piece);
    if (at == std::string_view::npos) return pieces;
    text.remove_prefix(at + 1);
  }
}

std::vector<std::string_view> Words(std::string_view text) { return Split(text, ' ', true); }

}  // namespace

uint32_t Crc32(uint32_t crc, std::string_view bytes) {
  // zlib takes at most a uInt at once.
  while (!bytes.empty()) {
    const size_t step = std::min<size_t>(bytes.size(), std::numeric_limits<uInt>::max());
    crc = static_cast<uint32_t>(
        crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(step)));
    bytes.remove_prefix(step);
  }
  return crc;
}

std::string DataFileName(std::string_view id, int64_t version) {
  return fmt::format("{}.{}.npy", id, version);
}

std::string EncodeManifest(const DurableManifest& m) {
  std::string text = fmt::format(
      "{}\nname {}\nowner {}\nreaders {}\nall_tenants {}\nwritable {}\ndtype {}\nshape {}\n"
      "version {}\ndata {}\ndata_bytes {}\ndata_crc32 {:08x}\n",
      kFirstLine, m.name, m.owner, fmt::join(m.readers, " "), m.all_tenants, m.writable,
      DTypeName(m.dtype), fmt::join(m.shape, " "), m.version, m.data_file, m.data_bytes,
      m.data_crc32);
  return text + fmt::format("manifest_crc32 {:08x}\n", Crc32(0, text));
}

absl::StatusOr<DurableManifest> ParseManifest(std::string_view text) {
  // The checksum first: nothing of a damaged manifest is believed.
  const size_t last = text.rfind("manifest_crc32 ");
  if (last == std::string_view::npos || (last > 0 && text[last - 1] != '\n')) {
    return Damaged("no manifest_crc32 line");
  }
  uint32_t expected = 0;
  std::string_view crc_text = text.substr(last + 15);
  if (!crc_text.ends_with('\n') || crc_text.size() != 9 ||
      !ParseNumber(crc_text.substr(0, 8), expected, 16)) {
    return Damaged("the manifest_crc32 line does not parse");
  }
  const std::string_view body = text.substr(0, last);
  if (Crc32(0, body) != expected) return Damaged("its checksum does not match");

  std::vector<std::string_view> lines = Split(body, '\n', false);
  if (lines.empty() || lines.front() != kFirstLine) return Damaged("not an arrayhub manifest");
  lines.pop_back();  // After the body's last newline.
  absl::flat_hash_map<std::string_view, std::string_view> values;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const size_t space = line.find(' ');
    const std::string_view key = line.substr(0, space);
    const std::string_view value = space == std::string_view::npos ? "" : line.substr(space + 1);
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      return Damaged(fmt::format("unknown key '{}'", key.substr(0, 32)));
    }
    if (!values.emplace(key, value).second) return Damaged(fmt::format("{} repeated", key));
  }
  for (std::string_view key : kKeys) {
    if (!values.contains(key)) return Damaged(fmt::format("no {} line", key));
  }

  DurableManifest m;
  m.name = std::string(values["name"]);
  AH_RETURN_IF_ERROR(ValidatePublicationName(m.name));
  m.owner = std::string(values["owner"]);
  AH_RETURN_IF_ERROR(ValidateTenantName(m.owner, "owner"));
  for (std::string_view reader : Words(values["readers"])) {
    AH_RETURN_IF_ERROR(ValidateTenantName(reader, "readers"));
    m.readers.emplace_back(reader);
  }
  if (static_cast<int64_t>(m.readers.size()) > kMaxReaderTenants)
    return Damaged("too many readers");
  AH_ASSIGN_OR_RETURN(m.all_tenants, ParseBool("all_tenants", values["all_tenants"]));
  AH_ASSIGN_OR_RETURN(m.writable, ParseBool("writable", values["writable"]));
  const std::optional<DType> dtype = DTypeFromName(values["dtype"]);
  if (!dtype.has_value()) return Damaged("unknown dtype");
  m.dtype = *dtype;
  for (std::string_view dim : Words(values["shape"])) {
    AH_ASSIGN_OR_RETURN(int64_t extent, ParseCount("shape", dim));
    m.shape.push_back(extent);
  }
  AH_ASSIGN_OR_RETURN(m.version, ParseCount("version", values["version"]));
  m.data_file = std::string(values["data"]);
  AH_ASSIGN_OR_RETURN(m.data_bytes, ParseCount("data_bytes", values["data_bytes"]));
  if (values["data_crc32"].size() != 8 || !ParseNumber(values["data_crc32"], m.data_crc32, 16)) {
    return Damaged("data_crc32 does not parse");
  }
  // Only a name the store itself makes: never a path.
  const size_t dot = m.data_file.find('.');
  const std::string_view id = std::string_view(m.data_file).substr(0, dot);
  if (m.version == 0 || id.size() != 32 ||
      !std::all_of(id.begin(), id.end(),
                   [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }) ||
      m.data_file != DataFileName(id, m.version)) {
    return Damaged("the data file is not one the store names");
  }
  return m;
}

}  // namespace arrayhub
