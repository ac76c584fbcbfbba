"""What every test under tests/ shares: the `serial` marker.

scripts/test.sh runs the tests in worker processes (pytest-xdist, `--dist loadfile`: a
file's tests stay in one process, and two files run at the same time). Each test file
therefore keeps to its own databases, tables, slots, publications, topics, buckets,
namespaces and replica server ids, and to its own temporary folders.

A test marked `serial` changes what every other file relies on (it restarts a shared
server, say); scripts/test.sh leaves it out of the parallel pass and runs it afterwards
with nothing beside it.
"""

from __future__ import annotations


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers",
        "serial: runs with no other test at the same time (it restarts a shared server); "
        "scripts/test.sh runs these after the parallel pass",
    )
