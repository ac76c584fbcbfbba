#include "floe/cli/progress_line.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "floe/cli/cli_values.h"
#include "floe/common/printable.h"

namespace floe::cli {

bool ShowProgress(std::string_view mode) {
  return mode == "always" || (mode == "auto" && isatty(2));
}

CLI::Option* AddProgressOption(CLI::App& command, std::string* mode) {
  return command
      .add_option("--progress", *mode,
                  "A progress line on standard error: auto (on a terminal), always or never")
      ->capture_default_str()
      ->check(OneOf({"auto", "always", "never"}));
}

std::unique_ptr<ProgressLine> StartProgressLine(std::string_view mode,
                                                const ingest::IngestStats* stats,
                                                ProgressLineOptions options) {
  if (!ShowProgress(mode)) return nullptr;
  return std::make_unique<ProgressLine>(stats, std::move(options));
}

ProgressLine::ProgressLine(const ingest::IngestStats* stats, ProgressLineOptions options)
    : stats_(stats),
      options_(std::move(options)),
      thread_({.interval = std::chrono::seconds(1)}, [this] { Show(); }) {}

ProgressLine::~ProgressLine() {
  thread_.Stop();
  std::fputs("\r\033[K", stderr);
}

void ProgressLine::Show() {
  auto now = std::chrono::steady_clock::now();
  int64_t events = stats_->events_read.load();
  double seconds = std::chrono::duration<double>(now - last_).count();
  double rate = seconds > 0 ? (events - last_events_) / seconds : 0;
  last_events_ = events;
  last_ = now;
  auto tables = stats_->RowsPerTable();
  std::string busiest;
  int64_t most = -1;
  for (const auto& [table, rows] : tables) {
    if (rows > most) {
      most = rows;
      busiest = table;
    }
  }
  std::string line =
      fmt::format("\r\033[K{:.0f}s  {} {} ({:.0f}/s)  rows {}",
                  std::chrono::duration<double>(now - started_).count(), options_.noun,
                  Thousands(events), rate, Thousands(stats_->rows_emitted.load()));
  if (!tables.empty()) {
    line +=
        fmt::format("  tables {}{}", tables.size(),
                    busiest.empty() ? "" : fmt::format(" (top {}: {})", busiest, Thousands(most)));
  }
  line += fmt::format("  commits {} (checkpoint {})", Thousands(stats_->commits.load()),
                      stats_->last_committed_checkpoint.load());
  if (int64_t dead = stats_->dead_letters.load(); dead > 0) {
    line += fmt::format("  dead letters {}", Thousands(dead));
  }
  if (options_.extra) line += options_.extra();
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace floe::cli
