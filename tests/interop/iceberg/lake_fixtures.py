"""Fixtures shared by the Iceberg and `floe ingest` interop tests; each conftest imports
them: `java_peer` (the Iceberg Java program, built and cached by scripts/java-peer.sh)
and `make_lake(kind)` (a fresh warehouse and catalog, "sql" or "hadoop", under the test's
tmp dir, with its floe catalog file)."""

from __future__ import annotations

import pathlib

import pytest

from iceberg_peers import Lake, find_java_peer


@pytest.fixture(scope="session")
def java_peer():
    return find_java_peer()


@pytest.fixture
def make_lake(tmp_path: pathlib.Path):
    count = [0]

    def make(kind: str) -> Lake:
        count[0] += 1
        return Lake(kind, tmp_path / f"lake{count[0]}-{kind}")

    return make
