#include "floe/cli/stop_signal.h"

#include <csignal>

namespace floe::cli {
namespace {

std::atomic<bool> g_stop{false};

void OnStopSignal(int) { g_stop.store(true); }

}  // namespace

const std::atomic<bool>& StopOnSignals() {
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  return g_stop;
}

}  // namespace floe::cli
