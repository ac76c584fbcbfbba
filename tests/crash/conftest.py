"""Fixtures of the crash-safety tests: the floe CLI (FLOE_BIN, default build/floe) and the
LD_PRELOAD fault shim (FLOE_FAULT_SHIM, default build/libfloe_fault_shim.so, built by the
`floe_fault_shim` target). Both are required: a missing one fails the tests, it does not
skip them."""

from __future__ import annotations

import os
import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]


def _required(path: pathlib.Path, what: str, hint: str) -> pathlib.Path:
    if not path.is_file():
        pytest.fail(f"{what} not found at {path}: {hint}")
    return path


@pytest.fixture(scope="session")
def floe_bin() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("FLOE_BIN", REPO_ROOT / "build" / "floe")).resolve()
    return _required(path, "floe binary", "build it (scripts/setup.sh) or set FLOE_BIN")


@pytest.fixture(scope="session")
def fault_shim(floe_bin: pathlib.Path) -> pathlib.Path:
    default = floe_bin.parent / "libfloe_fault_shim.so"
    path = pathlib.Path(os.environ.get("FLOE_FAULT_SHIM", default)).resolve()
    return _required(path, "fault shim", "build the floe_fault_shim target or set FLOE_FAULT_SHIM")
