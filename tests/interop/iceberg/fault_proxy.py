"""A reverse proxy on loopback that injects faults between floe and one HTTP server (the
Iceberg REST server, or the S3 server): the faults a real network and a busy service give,
which the real servers cannot be asked to give on cue.

Each request is forwarded as it came (Host header included, so S3 signatures still verify)
unless `choose(method, path)` names a fault for it:

- "lost-answer": the request is forwarded and applied, then the connection is closed
  without an answer (a commit whose answer never came back);
- "lost-request": the connection is closed without an answer and the request is NOT
  forwarded (to the client, the same as a lost answer; a commit that never happened);
- "busy": answered 503 without forwarding (a REST error model, or S3's SlowDown);
- "throttled": answered 429 without forwarding;
- "stalled": forwarded after a pause of `stall_seconds`.

`counts` holds how many of each were injected; `enabled` turns injection off.
"""

from __future__ import annotations

import collections
import http.client
import http.server
import json
import random
import socketserver
import threading
import time
import urllib.parse
from collections.abc import Callable

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class FaultProxy:
    def __init__(self, upstream: str, choose: Callable[[random.Random, str, str], str | None], *, seed: int,
                 s3: bool = False, stall_seconds: float = 1.0):
        parsed = urllib.parse.urlsplit(upstream)
        self.upstream_host = parsed.hostname
        self.upstream_port = parsed.port or 80
        self.choose = choose
        self.s3 = s3
        self.stall_seconds = stall_seconds
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.counts: collections.Counter[str] = collections.Counter()
        self.enabled = True
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    data = b""
                    while True:
                        size = int(self.rfile.readline().split(b";")[0], 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass
                            return data
                        data += self.rfile.read(size)
                        self.rfile.readline()
                length = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(length) if length else b""

            def _answer(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                if self.command != "HEAD" or not any(n.lower() == "content-length" for n, _ in headers):
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _refuse(self, status: int) -> None:
                if proxy.s3:
                    code = "SlowDown" if status == 503 else "TooManyRequests"
                    body = (f"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code>"
                            f"<Message>injected</Message></Error>").encode()
                    self._answer(status, body, [("Content-Type", "application/xml")])
                else:
                    kind = "ServiceUnavailableException" if status == 503 else "TooManyRequestsException"
                    body = json.dumps({"error": {"message": "injected", "type": kind, "code": status}}).encode()
                    self._answer(status, body, [("Content-Type", "application/json")])

            def _handle(self) -> None:
                body = self._body()
                fault = None
                if proxy.enabled:
                    with proxy.lock:
                        fault = proxy.choose(proxy.random, self.command, self.path)
                        if fault:
                            proxy.counts[fault] += 1
                if fault == "busy":
                    return self._refuse(503)
                if fault == "throttled":
                    return self._refuse(429)
                if fault == "lost-request":
                    self.close_connection = True
                    return
                if fault == "stalled":
                    time.sleep(proxy.stall_seconds)
                upstream = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port, timeout=120)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                    headers["Content-Length"] = str(len(body))
                    upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                    for name, value in headers.items():
                        upstream.putheader(name, value)
                    upstream.endheaders(body if body else None)
                    answer = upstream.getresponse()
                    data = answer.read()
                    if fault == "lost-answer":
                        self.close_connection = True
                        return
                    kept = [(k, v) for k, v in answer.getheaders() if k.lower() not in HOP_BY_HOP
                            and (k.lower() != "content-length" or self.command == "HEAD")]
                    self._answer(answer.status, data, kept)
                finally:
                    upstream.close()

            do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _handle

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def handle_error(self, request, client_address) -> None:
                pass  # a client killed mid-request resets its connection: expected here

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FaultProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
