#include "floe/iceberg/puffin/deletion_vector_writer.h"

#include <set>

#include "floe/common/random.h"
#include "floe/iceberg/puffin/deletion_vector.h"
#include "floe/iceberg/puffin/puffin_file.h"

namespace floe::iceberg {

namespace {

/// The field id of `_pos`, the row position a deletion vector is computed for.
constexpr int32_t kRowPositionFieldId = 2147483545;

}  // namespace

Result<std::vector<DataFile>> WriteDeletionVectors(io::FileIO& io, const std::string& path,
                                                   std::span<const DeletionVectorToWrite> vectors) {
  if (vectors.empty()) return InvalidArgument("no deletion vectors to write to {}", path);
  std::vector<PuffinBlob> blobs;
  std::vector<int64_t> cardinalities;
  blobs.reserve(vectors.size());
  std::set<std::string_view> named;
  for (const DeletionVectorToWrite& v : vectors) {
    if (v.positions.empty()) {
      return InvalidArgument("deletion vector for {} has no positions", v.data_file);
    }
    if (!named.insert(v.data_file).second) {
      return InvalidArgument("two deletion vectors for {} in {}", v.data_file, path);
    }
    for (int64_t p : v.positions) {
      if (p < 0) return InvalidArgument("deletion vector for {}: position {}", v.data_file, p);
    }
    PuffinBlob blob;
    int64_t cardinality = 0;
    blob.bytes = DeletionVector::Encode(v.positions, &cardinality);
    cardinalities.push_back(cardinality);
    blob.metadata.type = std::string(kDeletionVectorBlobType);
    blob.metadata.fields = {kRowPositionFieldId};
    blob.metadata.properties[std::string(kDeletionVectorReferencedDataFile)] = v.data_file;
    blob.metadata.properties[std::string(kDeletionVectorCardinality)] = std::to_string(cardinality);
    blobs.push_back(std::move(blob));
  }
  const std::string bytes = EncodePuffinFile(&blobs, {{"created-by", "floe"}});
  FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(path));
  Status written = out->Write(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  if (written) written = out->Sync();
  if (written) written = out->Close();
  if (!written) {
    (void)io.Delete(path);
    return std::unexpected(std::move(written).error().WithContext(fmt::format("writing {}", path)));
  }
  std::vector<DataFile> files;
  files.reserve(vectors.size());
  for (size_t i = 0; i < vectors.size(); ++i) {
    DataFile f;
    f.content = DataFileContent::kPositionDeletes;
    f.file_format = std::string(kFormatPuffin);
    f.file_path = path;
    f.file_size_in_bytes = static_cast<int64_t>(bytes.size());
    f.partition = vectors[i].partition;
    f.record_count = cardinalities[i];
    f.referenced_data_file = vectors[i].data_file;
    f.content_offset = blobs[i].metadata.offset;
    f.content_size_in_bytes = blobs[i].metadata.length;
    files.push_back(std::move(f));
  }
  return files;
}

std::string NewDeletionVectorPath(std::string_view table_location) {
  std::string location(table_location);
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  return location + "/data/" + RandomUuid() + "-deletes.puffin";
}

}  // namespace floe::iceberg
