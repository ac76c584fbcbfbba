#include "floe/iceberg/puffin/puffin_file.h"

#include <cstring>
#include <nlohmann/json.hpp>

namespace floe::iceberg {

namespace {

constexpr size_t kMagicSize = sizeof(kPuffinMagic);
/// FooterPayloadSize, Flags and the closing magic.
constexpr size_t kFooterTrailerSize = 12;
constexpr uint8_t kFlagFooterCompressed = 0x01;

bool IsMagic(const uint8_t* p) { return std::memcmp(p, kPuffinMagic, kMagicSize) == 0; }

int32_t ReadInt32LE(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return static_cast<int32_t>(v);
}

void AppendInt32LE(int32_t value, std::string* out) {
  const auto v = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

Result<std::map<std::string, std::string>> StringMap(const nlohmann::json& j,
                                                     const std::string& path,
                                                     std::string_view what) {
  std::map<std::string, std::string> out;
  if (!j.is_object()) return Corruption("Puffin file {}: {} is not an object", path, what);
  for (const auto& [key, value] : j.items()) {
    if (!value.is_string()) {
      return Corruption("Puffin file {}: {} '{}' is not a string", path, what, key);
    }
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

Result<int64_t> RequiredLong(const nlohmann::json& blob, const char* key, const std::string& path) {
  auto it = blob.find(key);
  if (it == blob.end() || !it->is_number_integer()) {
    return Corruption("Puffin file {}: a blob without an integer '{}'", path, key);
  }
  return it->get<int64_t>();
}

Result<PuffinBlobMetadata> ParseBlob(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) return Corruption("Puffin file {}: a blob is not an object", path);
  PuffinBlobMetadata blob;
  auto type = j.find("type");
  if (type == j.end() || !type->is_string()) {
    return Corruption("Puffin file {}: a blob without a 'type'", path);
  }
  blob.type = type->get<std::string>();
  auto fields = j.find("fields");
  if (fields == j.end() || !fields->is_array()) {
    return Corruption("Puffin file {}: blob '{}' without 'fields'", path, blob.type);
  }
  for (const auto& f : *fields) {
    if (!f.is_number_integer()) {
      return Corruption("Puffin file {}: blob '{}' has a non-integer field id", path, blob.type);
    }
    blob.fields.push_back(f.get<int32_t>());
  }
  FLOE_ASSIGN_OR_RETURN(blob.snapshot_id, RequiredLong(j, "snapshot-id", path));
  FLOE_ASSIGN_OR_RETURN(blob.sequence_number, RequiredLong(j, "sequence-number", path));
  FLOE_ASSIGN_OR_RETURN(blob.offset, RequiredLong(j, "offset", path));
  FLOE_ASSIGN_OR_RETURN(blob.length, RequiredLong(j, "length", path));
  if (auto codec = j.find("compression-codec"); codec != j.end() && !codec->is_null()) {
    if (!codec->is_string()) {
      return Corruption("Puffin file {}: blob '{}' has a non-string compression-codec", path,
                        blob.type);
    }
    blob.compression_codec = codec->get<std::string>();
  }
  if (auto props = j.find("properties"); props != j.end() && !props->is_null()) {
    FLOE_ASSIGN_OR_RETURN(blob.properties, StringMap(*props, path, "blob property"));
  }
  return blob;
}

}  // namespace

Result<PuffinFileMetadata> ParsePuffinFooterPayload(std::span<const uint8_t> payload,
                                                    const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(payload.begin(), payload.end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (j.is_discarded()) return Corruption("Puffin file {}: the footer is not valid JSON", path);
  if (!j.is_object()) return Corruption("Puffin file {}: the footer is not a JSON object", path);
  PuffinFileMetadata metadata;
  auto blobs = j.find("blobs");
  if (blobs == j.end() || !blobs->is_array()) {
    return Corruption("Puffin file {}: the footer has no 'blobs' list", path);
  }
  for (const auto& b : *blobs) {
    FLOE_ASSIGN_OR_RETURN(PuffinBlobMetadata blob, ParseBlob(b, path));
    metadata.blobs.push_back(std::move(blob));
  }
  if (auto props = j.find("properties"); props != j.end() && !props->is_null()) {
    FLOE_ASSIGN_OR_RETURN(metadata.properties, StringMap(*props, path, "file property"));
  }
  return metadata;
}

Result<PuffinFileMetadata> ReadPuffinFooter(const io::InputFile& file) {
  const std::string& path = file.path();
  const uint64_t size = file.size();
  // Head magic, footer magic, trailer: the smallest Puffin file is 20 bytes.
  if (size < 2 * kMagicSize + kFooterTrailerSize) {
    return Corruption("Puffin file {}: {} bytes is too short", path, size);
  }
  uint8_t head[kMagicSize];
  FLOE_RETURN_IF_ERROR(file.ReadAt(0, head));
  if (!IsMagic(head)) return Corruption("Puffin file {}: bad magic at the start", path);
  uint8_t trailer[kFooterTrailerSize];
  FLOE_RETURN_IF_ERROR(file.ReadAt(size - kFooterTrailerSize, trailer));
  if (!IsMagic(trailer + 8)) return Corruption("Puffin file {}: bad magic at the end", path);
  const int32_t payload_size = ReadInt32LE(trailer);
  // The footer's opening magic may share the head magic's bytes only in a
  // file without blobs and an empty payload, which the spec never writes.
  const uint64_t available = size - kFooterTrailerSize - 2 * kMagicSize;
  if (payload_size < 0 || static_cast<uint64_t>(payload_size) > available) {
    return Corruption("Puffin file {}: footer payload size {} does not fit the file ({} bytes)",
                      path, payload_size, size);
  }
  if (trailer[4] & kFlagFooterCompressed) {
    return NotSupported("Puffin file {}: compressed footers are not supported", path);
  }
  const uint64_t footer_start = size - kFooterTrailerSize - payload_size - kMagicSize;
  std::vector<uint8_t> footer(kMagicSize + static_cast<size_t>(payload_size));
  FLOE_RETURN_IF_ERROR(file.ReadAt(footer_start, footer));
  if (!IsMagic(footer.data())) {
    return Corruption("Puffin file {}: bad magic at the start of the footer", path);
  }
  FLOE_ASSIGN_OR_RETURN(
      PuffinFileMetadata metadata,
      ParsePuffinFooterPayload(std::span<const uint8_t>(footer).subspan(kMagicSize), path));
  for (const PuffinBlobMetadata& blob : metadata.blobs) {
    if (blob.offset < static_cast<int64_t>(kMagicSize) || blob.length < 0 ||
        static_cast<uint64_t>(blob.offset) > footer_start ||
        static_cast<uint64_t>(blob.length) > footer_start - static_cast<uint64_t>(blob.offset)) {
      return Corruption("Puffin file {}: blob '{}' at offset {} length {} is outside the blobs",
                        path, blob.type, blob.offset, blob.length);
    }
  }
  return metadata;
}

Result<std::vector<uint8_t>> ReadPuffinBlob(const io::InputFile& file, int64_t offset,
                                            int64_t length) {
  const uint64_t size = file.size();
  if (offset < 0 || length < 0 || static_cast<uint64_t>(offset) > size ||
      static_cast<uint64_t>(length) > size - static_cast<uint64_t>(offset)) {
    return Corruption("Puffin file {}: blob at offset {} length {} is outside the file ({} bytes)",
                      file.path(), offset, length, size);
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(length));
  FLOE_RETURN_IF_ERROR(file.ReadAt(static_cast<uint64_t>(offset), bytes));
  return bytes;
}

std::string EncodePuffinFile(std::vector<PuffinBlob>* blobs,
                             const std::map<std::string, std::string>& properties) {
  std::string out(reinterpret_cast<const char*>(kPuffinMagic), kMagicSize);
  nlohmann::json blob_list = nlohmann::json::array();
  for (PuffinBlob& blob : *blobs) {
    blob.metadata.offset = static_cast<int64_t>(out.size());
    blob.metadata.length = static_cast<int64_t>(blob.bytes.size());
    out += blob.bytes;
    const PuffinBlobMetadata& m = blob.metadata;
    nlohmann::json j = {{"type", m.type},
                        {"fields", m.fields},
                        {"snapshot-id", m.snapshot_id},
                        {"sequence-number", m.sequence_number},
                        {"offset", m.offset},
                        {"length", m.length}};
    if (m.compression_codec) j["compression-codec"] = *m.compression_codec;
    if (!m.properties.empty()) j["properties"] = m.properties;
    blob_list.push_back(std::move(j));
  }
  nlohmann::json footer = {{"blobs", std::move(blob_list)}};
  if (!properties.empty()) footer["properties"] = properties;
  const std::string payload = footer.dump();
  out.append(reinterpret_cast<const char*>(kPuffinMagic), kMagicSize);
  out += payload;
  AppendInt32LE(static_cast<int32_t>(payload.size()), &out);
  AppendInt32LE(0, &out);  // flags: uncompressed
  out.append(reinterpret_cast<const char*>(kPuffinMagic), kMagicSize);
  return out;
}

}  // namespace floe::iceberg
