// Debezium JSON events decoded per CPU-second by floe's reader, one thread.
//
//   debezium_decode_bench FILE [--limit-before FIELD,...] [--rounds N]
//                         [--decoder onepass|simdjson|both]
//
// Reads FILE (one event per line, e.g. bench/ingest_bench.py's
// .cache/bench/upserts_50000.jsonl) into memory, then decodes every line with
// one reader, an arena reset per event, `--rounds` times (default 3), and
// prints events, input MiB and CPU-seconds per round (the process's CPU
// clock). `--limit-before 0` limits every table's before images to field 0
// after its first event, as `floe ingest` does with a table's key.
// `--decoder`: the reader as `floe ingest` runs it (onepass, the default:
// the one-pass decoder, which hands what it does not take to the simdjson
// decoder), the simdjson decoder alone, or both in turn in each round (the
// ratio of one run on a loaded machine).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "floe/cdc/debezium_json_reader.h"
#include "floe/cdc/debezium_json_reader_internal.h"

namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s FILE [--limit-before FIELD,...] [--rounds N] "
                 "[--decoder onepass|simdjson|both]\n",
                 argv[0]);
    return 2;
  }
  std::vector<int> limit;
  bool limited = false;
  int rounds = 3;
  std::string decoder = "onepass";
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--limit-before") {
      limited = true;
      std::stringstream list(argv[i + 1]);
      for (std::string item; std::getline(list, item, ',');)
        limit.push_back(std::atoi(item.c_str()));
    } else if (flag == "--decoder") {
      decoder = argv[i + 1];
      if (decoder != "onepass" && decoder != "simdjson" && decoder != "both") {
        std::fprintf(stderr, "--decoder: onepass, simdjson or both\n");
        return 2;
      }
    } else if (flag == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<std::string> lines;
  size_t bytes = 0;
  for (std::string line; std::getline(in, line);) {
    bytes += line.size() + 1;
    lines.push_back(std::move(line));
  }
  if (lines.empty()) {
    std::fprintf(stderr, "%s: no lines\n", argv[1]);
    return 1;
  }
  std::vector<std::string> decoders;
  if (decoder == "both") {
    decoders = {"simdjson", "onepass"};
  } else {
    decoders = {decoder};
  }
  int64_t errors = 0;
  for (int round = 0; round < rounds; ++round) {
    for (const std::string& name : decoders) {
      // A new reader per round and decoder: each starts with empty caches.
      floe::cdc::DebeziumJsonReader reader;
      floe::cdc::dbz::ReaderTesting::UseOnePass(&reader, name == "onepass");
      floe::Arena arena;
      double start = CpuSeconds();
      for (const std::string& line : lines) {
        arena.Reset();
        auto event = reader.Decode(line, nullptr, &arena);
        if (!event) {
          ++errors;
          continue;
        }
        if (limited && !event->before.empty()) {
          reader.LimitBeforeImage(event->db, event->table, limit);
        }
      }
      double cpu = CpuSeconds() - start;
      std::printf(
          "round %d %-8s: %zu events, %.1f MiB, %.3f CPU-s: %.0f events per CPU-second, "
          "%.0f MiB/s, %.2f CPU-s per million\n",
          round + 1, name.c_str(), lines.size(), static_cast<double>(bytes) / (1 << 20), cpu,
          static_cast<double>(lines.size()) / cpu, static_cast<double>(bytes) / (1 << 20) / cpu,
          cpu / static_cast<double>(lines.size()) * 1e6);
    }
  }
  if (errors) std::printf("%lld events failed to decode\n", static_cast<long long>(errors));
  return errors ? 1 : 0;
}
