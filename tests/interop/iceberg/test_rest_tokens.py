"""OAuth2 tokens of floe's REST catalog client (docs/catalogs.md, "Tokens") against Apache
Iceberg's own REST server (scripts/services/iceberg-rest.sh; found as test_rest_catalog.py
finds it), which serves /v1/oauth/tokens for both grants floe uses (client credentials and
token exchange) but gives tokens no lifetime and accepts any. So a gate stands between
floe and the server and plays a strict authorization server: it adds `expires_in` to token
answers, answers 401 to a call whose token has expired or been used up, and can hold
back the config answer until the token's renewal time has come within one command."""

from __future__ import annotations

import http.client
import http.server
import json
import socketserver
import threading
import time
import urllib.parse

import pytest

from test_rest_catalog import RestLake, _by_id, _floe, _write_jsonl
from test_rest_catalog import namespace, rest_uri  # noqa: F401 - fixtures

SECRET = "floe-secret-9d41"
TOKEN_PATH = "/v1/oauth/tokens"


class TokenGate:
    """Forwards every request to `upstream`; token answers get `expires_in` (when set); a
    call bearing a token the gate did not issue (when `strict`), one older than its
    lifetime, or one already used `uses_per_token` times is answered 401. With
    `hold_config`, the config answer waits until that fraction of its token's lifetime has
    passed. `grants` lists the grant types asked for, `refusals` counts the 401s."""

    def __init__(self, upstream: str, *, expires_in: int | None = None, uses_per_token: int | None = None,
                 strict: bool = False, hold_config: float | None = None):
        target = urllib.parse.urlsplit(upstream)
        self.host, self.port = target.hostname, target.port or 80
        self.expires_in = expires_in
        self.uses_per_token = uses_per_token
        self.strict = strict
        self.hold_config = hold_config
        self.issued: dict[str, float] = {}
        self.uses: dict[str, int] = {}
        self.grants: list[str] = []
        self.refusals = 0
        self.lock = threading.Lock()
        gate = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                gate.handle(self)

            do_POST = do_HEAD = do_DELETE = do_PUT = do_GET

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> TokenGate:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def refused(self, bearer: str) -> bool:
        with self.lock:
            if bearer not in self.issued:
                return self.strict
            if self.expires_in is not None and time.monotonic() - self.issued[bearer] > self.expires_in:
                return True
            self.uses[bearer] = self.uses.get(bearer, 0) + 1
            return self.uses_per_token is not None and self.uses[bearer] > self.uses_per_token

    def handle(self, request: http.server.BaseHTTPRequestHandler) -> None:
        body = request.rfile.read(int(request.headers.get("Content-Length") or 0))
        path = urllib.parse.urlsplit(request.path).path
        bearer = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if path == TOKEN_PATH:
            self.grants.append(urllib.parse.parse_qs(body.decode())["grant_type"][0])
        elif self.refused(bearer):
            with self.lock:
                self.refusals += 1
            error = {"error": {"message": "Not authorized: token expired", "type": "NotAuthorizedException", "code": 401}}
            return self.reply(request, 401, json.dumps(error).encode(), [("Content-Type", "application/json")])
        elif path == "/v1/config" and self.hold_config is not None:
            with self.lock:
                until = self.issued[bearer] + self.hold_config * self.expires_in
            time.sleep(max(0.0, until - time.monotonic()))
        upstream = http.client.HTTPConnection(self.host, self.port, timeout=60)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("connection", "host")}
        upstream.request(request.command, request.path, body=body or None, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        upstream.close()
        if path == TOKEN_PATH and answer.status == 200:
            token = json.loads(data)
            with self.lock:  # (the server may give the same token again: a fresh one then)
                self.issued[token["access_token"]] = time.monotonic()
                self.uses[token["access_token"]] = 0
            if self.expires_in is not None:
                token["expires_in"] = self.expires_in
            data = json.dumps(token).encode()
        kept = [(k, v) for k, v in answer.getheaders() if k.lower() not in ("connection", "content-length", "transfer-encoding")]
        self.reply(request, answer.status, data, kept)

    @staticmethod
    def reply(request, status: int, data: bytes, headers: list[tuple[str, str]]) -> None:
        request.send_response(status)
        for name, value in headers:
            request.send_header(name, value)
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        if request.command != "HEAD":
            request.wfile.write(data)


def _lake(tmp_path, uri: str, setting: str) -> RestLake:
    return RestLake(tmp_path / "lake", uri, extra=f"    {setting}\n")


SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"},
]}


def test_each_refused_token_is_replaced_and_the_call_sent_once_more(floe_run, tmp_path, rest_uri, namespace):
    # Every token serves one call: each later call is refused once, gets a new token
    # (client credentials) and is sent again — the commit of `append` included.
    with TokenGate(rest_uri, uses_per_token=1) as gate:
        lake = _lake(tmp_path, gate.uri, f"credential: floe-client:{SECRET}")
        ident = f"{namespace}.gated"
        schema = tmp_path / "schema.json"
        schema.write_text(json.dumps(SCHEMA))
        rows = [{"id": i, "name": f"n{i}"} for i in range(5)]
        _floe(floe_run, lake, "table", "create-namespace", namespace)
        _floe(floe_run, lake, "table", "create", ident, "--schema", str(schema))
        appended = _floe(floe_run, lake, "table", "append", ident, str(_write_jsonl(tmp_path / "rows.jsonl", rows)))
        assert SECRET not in appended.stdout + appended.stderr
        assert gate.refusals > 0
        assert set(gate.grants) == {"client_credentials"}
        # Each command: one token at open, then one more per refusal (never a second
        # try with a refused token, never a loop).
        assert len(gate.grants) == 3 + gate.refusals, (gate.grants, gate.refusals)
    table = RestLake(tmp_path / "peer", rest_uri).py_catalog().load_table(ident)
    assert _by_id(table.scan().to_arrow().to_pylist()) == _by_id(rows)


EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"


@pytest.mark.parametrize(
    ("setting", "renewal"),
    [("", EXCHANGE), ("token-exchange-enabled: false", "client_credentials")],
    ids=["exchange", "no-exchange"],
)
def test_a_token_is_renewed_before_it_expires(floe_run, tmp_path, rest_uri, namespace, setting, renewal):
    # Tokens live 5 s and are renewed after 4.5 s; the config answer comes 4.7 s after
    # the token, so the next call finds the token due but not expired and renews it
    # first (by exchanging it, unless that is turned off): no call is ever refused.
    with TokenGate(rest_uri, expires_in=5, hold_config=0.94) as gate:
        lake = _lake(tmp_path, gate.uri, f"credential: floe-client:{SECRET}\n    {setting}")
        _floe(floe_run, lake, "table", "create-namespace", namespace)
        assert gate.grants == ["client_credentials", renewal]
        assert gate.refusals == 0


def test_a_refused_fixed_token_is_a_clear_error(floe_run, tmp_path, rest_uri):
    with TokenGate(rest_uri, strict=True) as gate:
        lake = _lake(tmp_path, gate.uri, "token: stale-token-7c2e")
        result = _floe(floe_run, lake, "table", "namespaces", ok=False)
        assert result.code != 0
        assert "catalog 'default'" in result.stderr and "set a new 'token'" in result.stderr, result.describe()
        assert "stale-token-7c2e" not in result.stdout + result.stderr
        assert gate.grants == []
