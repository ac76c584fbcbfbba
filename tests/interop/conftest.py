"""Shared fixtures of floe's interop tests.

The interop tests talk to floe only through its command line, the way a user
does: `run_floe("parquet", "cat", path)` runs the binary named by the FLOE_BIN
environment variable (default: build/floe in the repository) and returns its
exit code, standard output and standard error.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import subprocess

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]

# One floe command may take this long before the test fails (no test input is
# big enough to need more; a hang is a bug).
FLOE_TIMEOUT_SECONDS = 120


@dataclasses.dataclass
class FloeRun:
    """What one floe invocation did."""

    args: list[str]
    code: int
    stdout: str
    stderr: str

    @property
    def command(self) -> str:
        """The command line, for failure messages a developer can paste."""
        return " ".join(_shell_quote(a) for a in self.args)

    def describe(self) -> str:
        return (
            f"$ {self.command}\nexit code {self.code}\n"
            f"--- stderr ---\n{self.stderr[-4000:]}\n--- stdout (first 2000 chars) ---\n"
            f"{self.stdout[:2000]}"
        )


def _shell_quote(arg: str) -> str:
    if arg and all(c.isalnum() or c in "-_./=:," for c in arg):
        return arg
    return "'" + arg.replace("'", "'\\''") + "'"


def floe_binary() -> pathlib.Path:
    return pathlib.Path(os.environ.get("FLOE_BIN", REPO_ROOT / "build" / "floe")).resolve()


@pytest.fixture(scope="session")
def repo_root() -> pathlib.Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def floe_bin() -> pathlib.Path:
    """The floe CLI under test; the test fails (it does not skip) when it is missing."""
    path = floe_binary()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"floe binary not found at {path}: build it (scripts/setup.sh) or set FLOE_BIN")
    return path


@pytest.fixture
def tmp_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    """A fresh directory for one test's files (kept by pytest for the last runs)."""
    return tmp_path


@pytest.fixture(scope="session")
def run_floe(floe_bin: pathlib.Path):
    """run_floe(*args, stdin=None, timeout=FLOE_TIMEOUT_SECONDS) -> FloeRun."""

    def run(*args, stdin: str | None = None, timeout: float = FLOE_TIMEOUT_SECONDS) -> FloeRun:
        argv = [str(floe_bin)] + [str(a) for a in args]
        try:
            proc = subprocess.run(
                argv,
                input=stdin.encode() if stdin is not None else None,
                stdin=None if stdin is not None else subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"floe did not finish within {timeout} s: {' '.join(argv)}")
            raise AssertionError from e  # not reached
        return FloeRun(
            args=argv,
            code=proc.returncode,
            stdout=proc.stdout.decode("utf-8", errors="replace"),
            stderr=proc.stderr.decode("utf-8", errors="replace"),
        )

    return run
