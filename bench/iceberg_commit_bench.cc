// Commit and planning cost as a table's history grows: 1,000 append commits
// of 10 data files each (10,000 files) on a Hadoop-catalog table, printing
// every 100 snapshots the mean commit time of the last 100 commits and the
// time to plan the current snapshot (read the manifest list and manifests,
// keep files whose metrics may match `id < 5000`).
//
//   build/bench/iceberg_commit_bench [--snapshots N] [--files-per-commit K] [--no-merge]
//
// Numbers are in bench/README.md. Not part of ctest.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/expression/file_filter.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/update/fast_append.h"
#include "floe/iceberg/update/table_metadata_builder.h"

using namespace floe;
using namespace floe::iceberg;

namespace {

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::string LongBytes(int64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

int Fail(const Error& e) {
  std::fprintf(stderr, "error: %s\n", e.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int snapshots = 1000;
  int files_per_commit = 10;
  bool merge = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--snapshots" && i + 1 < argc)
      snapshots = std::atoi(argv[++i]);
    else if (a == "--files-per-commit" && i + 1 < argc)
      files_per_commit = std::atoi(argv[++i]);
    else if (a == "--no-merge")
      merge = false;
  }
  auto dir =
      std::filesystem::temp_directory_path() / ("floe_commit_bench_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  io::LocalFileIO io;
  HadoopCatalog catalog("bench", dir.string(), &io);
  if (auto s = catalog.CreateNamespace({"ns"}); !s) return Fail(s.error());

  auto builder = TableMetadataBuilder::ForNewTable();
  types::Schema schema(
      {{1, "id", true, types::Type::Long(), ""}, {2, "name", false, types::Type::String(), ""}});
  (void)builder->Apply(update::AddSchema{schema, std::nullopt});
  (void)builder->Apply(update::SetCurrentSchema{-1});
  (void)builder->Apply(update::SetLocation{catalog.DefaultTableLocation({{"ns"}, "events"})});
  if (!merge)
    (void)builder->Apply(update::SetProperties{{{"commit.manifest-merge.enabled", "false"}}});
  auto metadata = builder->Build();
  if (!metadata) return Fail(metadata.error());
  auto loaded = catalog.CreateTable({{"ns"}, "events"}, *metadata);
  if (!loaded) return Fail(loaded.error());
  Table table(&catalog, *loaded);
  auto filter = ParseFilter("id < 5000");

  std::printf(
      "snapshots  files  commit_ms: median    p90   mean    max  plan_ms  planned_files  "
      "manifests\n");
  std::vector<double> window;
  int64_t next_id = 0;
  for (int s = 1; s <= snapshots; ++s) {
    auto append = table.NewAppend();
    for (int f = 0; f < files_per_commit; ++f) {
      DataFile file;
      file.file_path = (dir / "ns" / "events" / "data" /
                        ("f" + std::to_string(s) + "-" + std::to_string(f) + ".parquet"))
                           .string();
      file.record_count = 1000;
      file.file_size_in_bytes = 64 << 10;
      file.value_counts = {{1, 1000}, {2, 1000}};
      file.null_value_counts = {{1, 0}, {2, 0}};
      file.lower_bounds = {{1, LongBytes(next_id)}, {2, "a"}};
      file.upper_bounds = {{1, LongBytes(next_id + 999)}, {2, "z"}};
      next_id += 1000;
      append->AppendFile(std::move(file));
    }
    auto t0 = std::chrono::steady_clock::now();
    if (auto st = append->Commit(); !st) return Fail(st.error());
    double ms = Ms(std::chrono::steady_clock::now() - t0);
    window.push_back(ms);
    if (s % 100 == 0) {
      auto p0 = std::chrono::steady_clock::now();
      const Snapshot* current = table.metadata().CurrentSnapshot();
      auto manifests = SnapshotManifests(io, *current, table.metadata().format_version);
      if (!manifests) return Fail(manifests.error());
      auto ff = FileFilter::Make(*filter, table.metadata());
      if (!ff) return Fail(ff.error());
      int64_t planned = 0;
      for (const auto& m : *manifests) {
        auto may = ff->ManifestMayMatch(m);
        if (!may) return Fail(may.error());
        if (!*may) continue;
        auto entries = ReadManifest(io, m, table.metadata());
        if (!entries) return Fail(entries.error());
        for (const auto& e : *entries) {
          if (e.status == ManifestEntryStatus::kDeleted) continue;
          auto match = ff->Match(e.data_file, m.partition_spec_id);
          if (match && *match != FileMatch::kNone) ++planned;
        }
      }
      double plan_ms = Ms(std::chrono::steady_clock::now() - p0);
      std::sort(window.begin(), window.end());
      double mean = 0;
      for (double w : window) mean += w;
      mean /= static_cast<double>(window.size());
      std::printf("%9d  %5d  %17.2f %6.2f %6.2f %6.2f  %7.2f  %13lld  %9zu\n", s,
                  s * files_per_commit, window[window.size() / 2], window[window.size() * 9 / 10],
                  mean, window.back(), plan_ms, static_cast<long long>(planned), manifests->size());
      std::fflush(stdout);
      window.clear();
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}
