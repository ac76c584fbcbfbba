#pragma once
/// Puffin files (format/puffin-spec.md): blobs of table statistics and
/// deletion vectors with a JSON footer that describes them.
///
///   Magic Blob1 ... BlobN Footer
///   Footer = Magic FooterPayload FooterPayloadSize(int32 LE) Flags(4 bytes) Magic
///   Magic  = 50 46 41 31 ("PFA1")
///
/// The footer payload is UTF-8 JSON: {"blobs": [BlobMetadata...], "properties": {...}}.
/// ReadPuffinFooter reads only the footer (two small reads at the end of the
/// file and one of the head magic); blobs are read by their offset and length.
/// A footer compressed with LZ4 (flag bit 0) is kNotSupported: Iceberg Java
/// writes uncompressed footers.
///
/// Errors name the file: kCorruption for a bad magic, a payload size that does
/// not fit the file, invalid JSON or a blob whose range lies outside the
/// blobs area; kIo / kNotFound from the FileIO. Stateless and thread-safe.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// The four bytes at the start and end of every Puffin file.
inline constexpr uint8_t kPuffinMagic[4] = {0x50, 0x46, 0x41, 0x31};

/// One blob of a Puffin file (spec "BlobMetadata").
struct PuffinBlobMetadata {
  std::string type;             ///< e.g. "deletion-vector-v1"
  std::vector<int32_t> fields;  ///< field ids the blob was computed for
  int64_t snapshot_id = -1;     ///< -1 for deletion vectors
  int64_t sequence_number = -1;
  int64_t offset = 0;                            ///< of the blob's first byte in the file
  int64_t length = 0;                            ///< stored length (after compression)
  std::optional<std::string> compression_codec;  ///< absent: uncompressed
  std::map<std::string, std::string> properties;
};

/// A Puffin file's footer payload (spec "FileMetadata").
struct PuffinFileMetadata {
  std::vector<PuffinBlobMetadata> blobs;
  std::map<std::string, std::string> properties;
};

/// Reads and checks the footer of the Puffin file `file`. Every blob's range
/// must lie between the head magic and the footer. Errors: see above.
Result<PuffinFileMetadata> ReadPuffinFooter(const io::InputFile& file);

/// Parses a footer payload (the JSON text between the footer's magic and its
/// size field). `path` names the file in errors. Errors: kCorruption.
Result<PuffinFileMetadata> ParsePuffinFooterPayload(std::span<const uint8_t> payload,
                                                    const std::string& path);

/// A blob to write: its metadata (offset and length are filled in) and bytes.
struct PuffinBlob {
  PuffinBlobMetadata metadata;
  std::string bytes;
};

/// The bytes of a Puffin file holding `blobs` in order, with an uncompressed
/// footer; sets each blob's offset and length in `*blobs`.
std::string EncodePuffinFile(std::vector<PuffinBlob>* blobs,
                             const std::map<std::string, std::string>& properties);

/// Reads `length` bytes at `offset` of `file`, after checking that the range
/// lies inside the file (kCorruption naming the file otherwise).
Result<std::vector<uint8_t>> ReadPuffinBlob(const io::InputFile& file, int64_t offset,
                                            int64_t length);

}  // namespace floe::iceberg
