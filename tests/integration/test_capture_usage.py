"""`floe capture mysql` usage errors: out-of-range numbers (a port of -1 used
to wrap to 65535), a bad --startup, --tables or --password-env exit with code
2 and name the option, before any connection is tried; a server that cannot
be reached is a runtime error, exit code 1.

Needs only build/floe (FLOE_BIN overrides); no server.
"""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLOE = Path(os.environ.get("FLOE_BIN", ROOT / "build" / "floe"))

USAGE_ERRORS = [
    (["--port", "-1"], "--port"),
    (["--port", "0"], "--port"),
    (["--port", "65536"], "--port"),
    (["--port", "99999999999"], "--port"),
    (["--port", "abc"], "--port"),
    (["--chunk-rows", "0"], "--chunk-rows"),
    (["--chunk-rows", "-1"], "--chunk-rows"),
    (["--chunk-rows", "100000000000"], "--chunk-rows"),
    (["--snapshot-parallelism", "0"], "--snapshot-parallelism"),
    (["--snapshot-parallelism", "-3"], "--snapshot-parallelism"),
    (["--snapshot-parallelism", "100000"], "--snapshot-parallelism"),
    (["--server-id", "0"], "--server-id"),
    (["--server-id", "-1"], "--server-id"),
    (["--server-id", "4294967296"], "--server-id"),
    # The snapshot's readers take the ids after --server-id: 2^32-1 leaves no room.
    (["--server-id", "4294967295"], "--server-id"),
    (["--startup", "bogus"], "--startup"),
    (["--tables", "("], "--tables"),
    (["--password-env", "FLOE_TEST_SURELY_UNSET_VARIABLE"], "--password-env"),
    (["--bogus-option"], "--bogus-option"),
]


def run_capture(args, timeout=20):
    if not FLOE.exists():
        pytest.fail(f"{FLOE} not built")
    env = {k: v for k, v in os.environ.items() if k != "FLOE_TEST_SURELY_UNSET_VARIABLE"}
    # Port 1 on the loopback: nothing listens there, so a run that got past the
    # usage checks fails fast with a connection error.
    return subprocess.run([str(FLOE), "capture", "mysql", "--host", "127.0.0.1"] + args,
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize("args,option", USAGE_ERRORS, ids=[" ".join(a) for a, _ in USAGE_ERRORS])
def test_usage_error_exits_2_naming_the_option(args, option):
    res = run_capture(args)
    assert res.returncode == 2, f"exit {res.returncode}\n{res.stderr}"
    assert option in res.stderr, res.stderr
    assert "error" in res.stderr.lower(), res.stderr
    assert res.stdout == ""


def test_unreachable_server_is_a_runtime_error_exit_1():
    res = run_capture(["--port", "1", "--user", "nobody"])
    assert res.returncode == 1, f"exit {res.returncode}\n{res.stderr}"
    assert res.stderr.startswith("error: "), res.stderr
    assert "127.0.0.1:1" in res.stderr, res.stderr


def test_bounds_are_accepted():
    # The extremes of each range pass the usage checks (and then fail to connect).
    res = run_capture(["--port", "1", "--server-id", str(2**32 - 1 - 64), "--chunk-rows", "10000000",
                       "--snapshot-parallelism", "64"])
    assert res.returncode == 1, f"exit {res.returncode}\n{res.stderr}"
