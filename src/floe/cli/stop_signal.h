#pragma once
/// How long-running commands (`ingest`, `run`, `read`, `capture`) are
/// stopped: SIGINT and SIGTERM set one flag, which the command hands to the
/// library; the library ends cleanly at its next safe point (after the
/// transaction, checkpoint or batch in hand) and returns, and the command
/// exits 0.

#include <atomic>

namespace floe::cli {

/// Installs the SIGINT and SIGTERM handlers (installing them again changes
/// nothing) and returns the flag they set. The flag lives for the process.
const std::atomic<bool>& StopOnSignals();

}  // namespace floe::cli
