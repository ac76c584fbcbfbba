#pragma once
/// StatusServer: the HTTP endpoint of `floe run` (`pipeline.http: HOST:PORT`,
/// docs/pipeline.md, "Watching a pipeline"). It serves, from a RunMetrics:
///
///   GET /metrics   the Prometheus text format (RenderPrometheus)
///   GET /status    the same numbers as JSON (RenderStatusJson)
///   GET /          a small HTML page that reloads itself (RenderStatusHtml)
///
/// Anything else is 404; a method other than GET is 405. The server answers
/// on threads of its own and only reads the metrics, so a slow scraper never
/// slows the pipeline. It has no authentication and no TLS: bind it to
/// loopback or a private network.

#include <memory>
#include <string>

#include "floe/common/result.h"
#include "floe/run/run_metrics.h"

namespace floe::run {

class StatusServer {
 public:
  /// Binds `host:port` (port 0: any free port, see port()) and starts
  /// serving `metrics`, which must outlive the server. Errors: kIo when the
  /// address cannot be bound (in use, not an address of this machine), with
  /// the address in the message.
  static Result<std::unique_ptr<StatusServer>> Start(const std::string& host, int port,
                                                     const RunMetrics* metrics);
  /// Stops serving and waits for the server's threads.
  ~StatusServer();
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  /// The bound port.
  int port() const;

 private:
  StatusServer();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::run
