#include "floe/run/status_server.h"

#include <sys/socket.h>

#include <chrono>
#include <exception>
#include <thread>

#include <httplib.h>
#include <spdlog/spdlog.h>

namespace floe::run {

struct StatusServer::Impl {
  httplib::Server server;
  std::thread thread;
  const RunMetrics* metrics = nullptr;
  int port = 0;
};

StatusServer::StatusServer() : impl_(std::make_unique<Impl>()) {}

StatusServer::~StatusServer() {
  try {
    impl_->server.stop();
  } catch (...) {
  }
  if (impl_->thread.joinable()) impl_->thread.join();
}

int StatusServer::port() const { return impl_->port; }

Result<std::unique_ptr<StatusServer>> StatusServer::Start(const std::string& host, int port,
                                                          const RunMetrics* metrics) {
  std::unique_ptr<StatusServer> s(new StatusServer());
  Impl& m = *s->impl_;
  m.metrics = metrics;
  // httplib may throw (allocation, a handler's exception): every handler
  // answers 500 instead, and Start reports an error.
  auto serve = [metrics](std::string (*render)(const MetricsSnapshot&), const char* type) {
    return [metrics, render, type](const httplib::Request&, httplib::Response& res) {
      try {
        res.set_content(render(metrics->Read()), type);
        res.set_header("Cache-Control", "no-store");
      } catch (const std::exception& e) {
        res.status = 500;
        res.set_content(std::string("status server: ") + e.what() + "\n", "text/plain");
      }
    };
  };
  try {
    m.server.Get("/metrics", serve(&RenderPrometheus, "text/plain; version=0.0.4; charset=utf-8"));
    m.server.Get("/status", serve(&RenderStatusJson, "application/json"));
    m.server.Get("/", serve([](const MetricsSnapshot& s) { return RenderStatusHtml(s); },
                            "text/html; charset=utf-8"));
    auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
      res.status = 405;
      res.set_header("Allow", "GET");
      res.set_content("only GET is served\n", "text/plain");
    };
    m.server.Post(".*", not_allowed);
    m.server.Put(".*", not_allowed);
    m.server.Delete(".*", not_allowed);
    m.server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.status == 404)
        res.set_content("not found: try /, /metrics or /status\n", "text/plain");
    });
    m.server.set_keep_alive_max_count(100);
    // httplib's default also sets SO_REUSEPORT, which would let a second
    // pipeline bind the same port and take half of the requests.
    m.server.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    std::string bind_host = host;
    if (bind_host.size() > 1 && bind_host.front() == '[' && bind_host.back() == ']') {
      bind_host = bind_host.substr(1, bind_host.size() - 2);
    }
    if (port == 0) {
      m.port = m.server.bind_to_any_port(bind_host);
      if (m.port < 0) return IoError("status server: cannot bind {}:0", host);
    } else {
      if (!m.server.bind_to_port(bind_host, port)) {
        return IoError(
            "status server: cannot bind {}:{} (address in use, or not an address of "
            "this machine)",
            host, port);
      }
      m.port = port;
    }
    m.thread = std::thread([&m] {
      try {
        m.server.listen_after_bind();
      } catch (const std::exception& e) {
        spdlog::error("status server: stopped: {}", e.what());
      }
    });
  } catch (const std::exception& e) {
    return IoError("status server on {}:{}: {}", host, port, e.what());
  }
  // Until the thread is in its accept loop, Server::stop() would be a no-op
  // and the destructor would wait for ever.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!m.server.is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return IoError("status server on {}:{}: did not start listening", host, m.port);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  spdlog::info("run: status and metrics on http://{}:{}/ (/metrics, /status)", host, m.port);
  return s;
}

}  // namespace floe::run
