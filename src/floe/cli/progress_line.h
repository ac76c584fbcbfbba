#pragma once
/// The progress line of `floe ingest` and `floe run`: one line on standard
/// error, rewritten every second while the command runs, erased at the end.
/// Commands add `--progress` with AddProgressOption and start the line with
/// StartProgressLine; their logs erase it first (log_format.h,
/// CommandLogOptions::under_progress_line).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "floe/common/periodic_thread.h"
#include "floe/ingest/ingest_stats.h"

namespace floe::cli {

/// Whether to show the line for `--progress MODE`: "always", "never", or
/// "auto" (when standard error is a terminal).
bool ShowProgress(std::string_view mode);

/// `--progress MODE` (auto, always, never; default as `*mode` holds), checked
/// while the command line is parsed.
CLI::Option* AddProgressOption(CLI::App& command, std::string* mode);

struct ProgressLineOptions {
  /// What IngestStats::events_read counts: "events" (ingest), "changes" (run).
  std::string noun = "events";
  /// Text appended to the line (e.g. the binlog position); called once a
  /// second on the line's thread, so it must be thread-safe. May be empty.
  std::function<std::string()> extra;
};

/// Shows `stats` (which must outlive it) from construction to destruction:
/// elapsed time, events and events/s, rows, tables (with the busiest), commits
/// and the last committed checkpoint, dead letters when there are any, then
/// `options.extra`.
class ProgressLine {
 public:
  explicit ProgressLine(const ingest::IngestStats* stats, ProgressLineOptions options = {});
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void Show();

  const ingest::IngestStats* stats_;
  ProgressLineOptions options_;
  // On the line's thread only: for the rate.
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = started_;
  int64_t last_events_ = 0;
  PeriodicThread thread_;  ///< last: started once the rest is ready
};

/// A ProgressLine showing `stats` when ShowProgress(mode), else nullptr (no line).
std::unique_ptr<ProgressLine> StartProgressLine(std::string_view mode,
                                                const ingest::IngestStats* stats,
                                                ProgressLineOptions options = {});

}  // namespace floe::cli
