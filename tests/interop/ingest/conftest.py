"""Fixtures of the `floe ingest` tests (issue 4's judgement): a lake per test (from the
Iceberg interop fixtures), the Java peer, and running `floe ingest` as a user does."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "iceberg"))

from lake_fixtures import java_peer, make_lake  # noqa: E402,F401

REPO_ROOT = HERE.parents[2]


def floe_binary() -> pathlib.Path:
    return pathlib.Path(os.environ.get("FLOE_BIN", REPO_ROOT / "build" / "floe")).resolve()


@pytest.fixture(scope="session")
def floe_ingest_ready() -> pathlib.Path:
    path = floe_binary()
    proc = subprocess.run([str(path), "ingest", "--help"], capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=60)
    if proc.returncode != 0:
        pytest.fail(f"{path} ingest --help exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return path
