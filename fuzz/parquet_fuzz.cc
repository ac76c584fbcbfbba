// Opens arbitrary bytes as a Parquet file (through an in-memory InputFile)
// and reads every row and every row group's statistics. Any outcome but a
// crash, a sanitizer report, a hang or a huge allocation is fine.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "floe/format/parquet/reader.h"
#include "floe/types/row_json.h"

namespace {

class MemoryInputFile final : public floe::io::InputFile {
 public:
  MemoryInputFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const std::string& path() const override { return path_; }
  uint64_t size() const override { return size_; }
  floe::Status ReadAt(uint64_t offset, std::span<uint8_t> out) const override {
    if (offset > size_ || out.size() > size_ - offset) {
      return floe::Corruption("{}: read past the end at offset {}", path_, offset);
    }
    if (!out.empty()) std::memcpy(out.data(), data_ + offset, out.size());
    return floe::Ok();
  }

 private:
  std::string path_ = "fuzz.parquet";
  const uint8_t* data_;
  size_t size_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  floe::format::parquet::ReaderOptions options;
  options.max_page_size = 1 << 20;
  options.max_page_values = 1 << 16;
  auto reader = floe::format::parquet::ParquetReader::Open(
      std::make_unique<MemoryInputFile>(data, size), options);
  if (!reader) return 0;
  for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
    (void)(*reader)->ReadRowGroupStats(g);
  }
  floe::Arena arena;
  std::vector<floe::types::Value> values;
  std::string json;
  size_t width = (*reader)->schema().fields().size();
  for (int batch = 0; batch < 10000; ++batch) {
    arena.Reset();
    values.clear();
    auto n = (*reader)->ReadBatch(&arena, 256, &values);
    if (!n || *n == 0) break;
    for (size_t i = 0; i < *n; ++i) {
      json.clear();
      floe::types::AppendRowJson((*reader)->schema(),
                                 floe::types::Row(values.data() + i * width, width), &json);
    }
  }
  return 0;
}
