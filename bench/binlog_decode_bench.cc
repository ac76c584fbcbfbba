// Row events decoded per second by floe's binlog decoder, with CPU seconds.
//
//   binlog_decode_bench [BINLOG_FILE...]
//
// With no argument, builds 1M row changes in memory in the binlog byte format
// (a table of 8 columns: INT pk, BIGINT, VARCHAR(64) utf8mb4, DECIMAL(12,2),
// DATETIME(6), DOUBLE, TINYINT, TEXT), as two workloads: bulk (1000 rows per
// WRITE_ROWS event) and single-row transactions (GTID + TABLE_MAP + 1-row
// WRITE_ROWS + XID each), and decodes every row into Values (an arena reset
// per event). With binlog files (e.g. .cache/mariadb/data/mariadb-bin.000001),
// decodes their events the same way.
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "floe/cdc/mysql/binlog_event.h"
#include "floe/cdc/mysql/binlog_row_image.h"

using namespace floe::cdc::mysql;

namespace {

struct Buf {
  std::vector<uint8_t> b;
  void u8(uint8_t v) { b.push_back(v); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void be(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void str(std::string_view s) { b.insert(b.end(), s.begin(), s.end()); }
};

std::vector<uint8_t> Event(uint8_t type, const Buf& body, uint32_t& pos) {
  Buf e;
  uint32_t size = static_cast<uint32_t>(19 + body.b.size() + 4);
  pos += size;
  e.le(1700000000, 4);
  e.u8(type);
  e.le(1, 4);
  e.le(size, 4);
  e.le(pos, 4);
  e.le(0, 2);
  e.b.insert(e.b.end(), body.b.begin(), body.b.end());
  e.le(crc32(0, e.b.data(), static_cast<uInt>(e.b.size())), 4);
  return e.b;
}

std::vector<uint8_t> Fde(uint32_t& pos) {
  Buf b;
  b.le(4, 2);
  std::string v = "10.11.6-MariaDB-log";
  v.resize(50, '\0');
  b.str(v);
  b.le(0, 4);
  b.u8(19);
  std::vector<uint8_t> phl(164, 0);
  phl[2 - 1] = 13;
  phl[4 - 1] = 8;
  phl[19 - 1] = 8;
  phl[23 - 1] = 8;
  phl[24 - 1] = 8;
  phl[25 - 1] = 8;
  phl[162 - 1] = 19;
  b.b.insert(b.b.end(), phl.begin(), phl.end());
  b.u8(1);
  return Event(15, b, pos);
}

Buf TableMap() {
  Buf tm;
  tm.le(42, 6);
  tm.le(1, 2);
  tm.u8(5);
  tm.str("bench");
  tm.u8(0);
  tm.u8(1);
  tm.str("t");
  tm.u8(0);
  tm.u8(8);
  for (uint8_t t : {3, 8, 15, 246, 18, 5, 1, 252}) tm.u8(t);
  Buf meta;
  meta.le(256, 2);  // VARCHAR(64) utf8mb4 = 256 bytes
  meta.u8(12);
  meta.u8(2);  // DECIMAL(12,2)
  meta.u8(6);  // DATETIME(6)
  meta.u8(8);  // DOUBLE
  meta.u8(2);  // TEXT
  tm.u8(static_cast<uint8_t>(meta.b.size()));
  tm.b.insert(tm.b.end(), meta.b.begin(), meta.b.end());
  tm.u8(0xFE);
  // COLUMN_CHARSET: VARCHAR and TEXT utf8mb4 (45)
  tm.u8(3);
  tm.u8(2);
  tm.u8(45);
  tm.u8(45);
  return tm;
}

void AppendRow(Buf& r, uint32_t i) {
  r.u8(0);  // no nulls
  r.le(i, 4);
  r.le(uint64_t{i} * 7919, 8);
  std::string s = "customer-" + std::to_string(i) + "@example.com";
  r.le(s.size(), 2);
  r.str(s);  // VARCHAR of > 255 bytes: 2-byte length
  // DECIMAL(12,2): intg 10 -> 4 + 1 bytes; frac 2 -> 1 byte
  Buf d;
  d.u8(0);
  d.be(i % 1000000000, 4);
  d.u8(static_cast<uint8_t>(i % 100));
  d.b[0] ^= 0x80;
  r.b.insert(r.b.end(), d.b.begin(), d.b.end());
  uint64_t ymd = ((2024ull * 13 + 5) << 5) | 17, hms = (12 << 12) | (30 << 6) | 15;
  r.be(((ymd << 17) | hms) + 0x8000000000ull, 5);
  r.be(i % 1000000, 3);
  double x = i * 0.5;
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  r.le(bits, 8);
  r.u8(static_cast<uint8_t>(i));
  std::string t = "note " + std::to_string(i);
  r.le(t.size(), 2);
  r.str(t);
}

std::vector<std::vector<uint8_t>> Build(size_t total_rows, size_t rows_per_event,
                                        bool transactions) {
  std::vector<std::vector<uint8_t>> events;
  uint32_t pos = 4;
  events.push_back(Fde(pos));
  uint32_t id = 0;
  uint64_t seq = 0;
  while (id < total_rows) {
    if (transactions) {
      Buf g;
      g.le(++seq, 8);
      g.le(0, 4);
      g.u8(0);
      g.le(0, 6);
      events.push_back(Event(162, g, pos));
    }
    events.push_back(Event(19, TableMap(), pos));
    Buf rows;
    rows.le(42, 6);
    rows.le(1, 2);
    rows.u8(8);
    rows.u8(0xFF);
    for (size_t k = 0; k < rows_per_event && id < total_rows; ++k) AppendRow(rows, id++);
    events.push_back(Event(23, rows, pos));
    if (transactions) {
      Buf x;
      x.le(seq, 8);
      events.push_back(Event(16, x, pos));
    }
  }
  return events;
}

struct Outcome {
  uint64_t rows = 0;
  double wall = 0, cpu = 0;
};

Outcome Decode(const std::vector<std::vector<uint8_t>>& events) {
  BinlogDecoder decoder;
  decoder.set_current_file("bench.000001");
  RowImageDecoder rows;
  floe::Arena arena;
  Outcome o;
  auto w0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  for (const auto& e : events) {
    auto ev = decoder.Decode(e);
    if (!ev) {
      std::fprintf(stderr, "decode failed: %s\n", ev.error().ToString().c_str());
      std::exit(1);
    }
    if (auto* re = std::get_if<RowsEvent>(&ev->body)) {
      auto t = decoder.FindTable(re->table_id);
      if (!t || !rows.Reset(**t, *re, "bench")) continue;
      floe::types::Row before, after;
      while (true) {
        auto more = rows.Next(&arena, &before, &after);
        if (!more) {
          std::fprintf(stderr, "row decode failed: %s\n", more.error().ToString().c_str());
          std::exit(1);
        }
        if (!*more) break;
        ++o.rows;
      }
      arena.Reset();
    }
  }
  o.cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  o.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  return o;
}

std::vector<std::vector<uint8_t>> ReadBinlogFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::vector<uint8_t>> events;
  size_t off = 4;  // magic
  while (off + 19 <= all.size()) {
    uint32_t size;
    std::memcpy(&size, all.data() + off + 9, 4);
    if (size < 19 || off + size > all.size()) break;
    events.emplace_back(all.begin() + static_cast<long>(off),
                        all.begin() + static_cast<long>(off + size));
    // The server sets LOG_EVENT_BINLOG_IN_USE_F on the file's FORMAT_DESCRIPTION after
    // computing its checksum; a reader of the file clears it (the dump protocol sends it clear).
    if (events.back()[4] == 15) events.back()[17] &= static_cast<uint8_t>(~1u);
    off += size;
  }
  return events;
}

void Report(const char* name, const Outcome& o) {
  std::printf("%-34s %9llu rows  wall %.3f s  cpu %.3f s  %12.0f rows/s (cpu)\n", name,
              static_cast<unsigned long long>(o.rows), o.wall, o.cpu,
              o.rows / (o.cpu > 0 ? o.cpu : 1e-9));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    for (int i = 1; i < argc; ++i) Report(argv[i], Decode(ReadBinlogFile(argv[i])));
    return 0;
  }
  const size_t n = 1000000;
  Report("bulk (1000 rows/event)", Decode(Build(n, 1000, false)));
  Report("single-row transactions", Decode(Build(n, 1, true)));
  return 0;
}
