"""Tables written by floe, built once per (catalog, transform, expire) and shared by the
PyIceberg and Java reader tests."""

from __future__ import annotations

import pathlib

from iceberg_peers import FloeTables, Lake
from iceberg_rows import TRANSFORMS
from iceberg_scenarios import Written, floe_scenario

_CACHE: dict[tuple, Written] = {}


def floe_written(run_floe, tmp_root: pathlib.Path, kind: str, transform: str, expire: bool) -> Written:
    key = (kind, transform, expire)
    if key not in _CACHE:
        root = tmp_root / f"floe-{kind}-{transform}-{'expired' if expire else 'live'}"
        lake = Lake(kind, root)
        seed = 3000 + sum(map(ord, transform)) + (7 if kind == "sql" else 0)
        _CACHE[key] = floe_scenario(FloeTables(run_floe, lake), TRANSFORMS[transform], seed, root, expire)
    return _CACHE[key]
