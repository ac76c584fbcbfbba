// Decodes arbitrary bytes as a sequence of binlog events: the input is split
// into events by a 2-byte little-endian length prefix each; a FORMAT_DESCRIPTION
// is decoded first so checksums and post-header lengths are set, and every
// rows event is decoded against the table map it names, row by row.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "floe/cdc/mysql/binlog_event.h"
#include "floe/cdc/mysql/binlog_row_image.h"

using namespace floe::cdc::mysql;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  BinlogDecoderOptions options;
  options.verify_checksum = false;  // let the fuzzer reach the bodies
  options.initial_checksum = ChecksumAlg::kOff;
  BinlogDecoder decoder(options);
  decoder.set_current_file("fuzz.000001");
  floe::Arena arena;
  RowImageDecoder rows;
  size_t off = 0;
  std::vector<uint8_t> event;
  while (off + 2 <= size) {
    size_t len = data[off] | (size_t{data[off + 1]} << 8);
    off += 2;
    if (len > size - off) len = size - off;
    event.assign(data + off, data + off + len);
    off += len;
    // Make the header's size field agree with the bytes, so the bodies get decoded.
    if (event.size() >= kEventHeaderSize) {
      uint32_t n = static_cast<uint32_t>(event.size());
      std::memcpy(event.data() + 9, &n, 4);
    }
    auto ev = decoder.Decode(event);
    if (!ev) continue;
    if (auto* re = std::get_if<RowsEvent>(&ev->body)) {
      auto table = decoder.FindTable(re->table_id);
      if (!table) continue;
      if (!rows.Reset(**table, *re, "fuzz")) continue;
      for (int i = 0; i < 1000; ++i) {
        floe::types::Row before, after;
        auto more = rows.Next(&arena, &before, &after);
        if (!more || !*more) break;
      }
      arena.Reset();
    }
  }
  // The binary JSON decoder on its own, too.
  std::string out;
  (void)MySqlJsonToText({data, size}, &out);
  return 0;
}
