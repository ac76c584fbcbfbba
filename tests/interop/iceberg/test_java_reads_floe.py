"""Iceberg Java reads what floe writes (HadoopCatalog, or JdbcCatalog on the same SQLite
file): identical rows and schemas, current, by snapshot, filtered and after expire."""

from __future__ import annotations

import json

import pytest

from floe_written import floe_written
from iceberg_rows import TRANSFORMS, assert_same_rows, assert_same_schema, matches
from iceberg_scenarios import probe_filters

KINDS = ["sql", "hadoop"]


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("kind", KINDS)
def test_java_reads_floe_table(floe_run, java_peer, tmp_path_factory, kind, transform):
    written = floe_written(floe_run, tmp_path_factory.getbasetemp(), kind, transform, expire=False)
    what = f"floe-written {kind} table, {transform}, read by Iceberg Java"
    filters = probe_filters(written)
    requests = [{}] + [{"snapshot": s.snapshot_id} for s in written.states]
    requests += [{"filter": json.dumps(f)} for f in filters]
    results = java_peer.scans(written.lake, written.ident, requests)
    rows, schema = results[0]
    assert_same_schema(schema, written.schema, what)
    assert_same_rows(rows, written.rows, written.schema, what)
    for state, (r, s) in zip(written.states, results[1:]):
        assert_same_schema(s, state.schema, f"{what}, snapshot {state.snapshot_id}")
        assert_same_rows(r, state.rows, state.schema, f"{what}, snapshot {state.snapshot_id}")
    for f, (r, _) in zip(filters, results[1 + len(written.states) :]):
        want = [x for x in written.rows if matches(x, f, written.schema)]
        assert_same_rows(r, want, written.schema, f"{what}, filter {f}")


@pytest.mark.parametrize("transform", ["unpartitioned", "identity", "hour"])
@pytest.mark.parametrize("kind", KINDS)
def test_java_reads_floe_table_after_expire(floe_run, java_peer, tmp_path_factory, kind, transform):
    written = floe_written(floe_run, tmp_path_factory.getbasetemp(), kind, transform, expire=True)
    what = f"floe-written {kind} table, {transform}, expired, read by Iceberg Java"
    rows, schema = java_peer.scan(written.lake, written.ident)
    assert_same_schema(schema, written.schema, what)
    assert_same_rows(rows, written.rows, written.schema, what)
    snaps = json.loads(java_peer.run(written.lake, "snapshots", "--table", written.ident))
    assert len(snaps["snapshots"]) == 1, f"{what}: Java sees {len(snaps['snapshots'])} snapshots after expire"
