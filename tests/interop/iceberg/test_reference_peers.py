"""The reference peers checked against the scenarios' models, without floe.

These prove the harness itself: Iceberg Java's and PyIceberg's own writes, read back by
themselves and by each other, equal the Python model that the floe tests are judged with;
the independent checks (partition values recomputed from the rows, snapshot totals) pass on
what the references write. If one of these fails, fix the harness before blaming floe.
"""

from __future__ import annotations

import json
import os

import pytest

from iceberg_peers import check_live_files, check_partition_values, check_snapshot_totals, py_scan
from iceberg_rows import TRANSFORMS, assert_same_rows, assert_same_schema, filter_sql, decimal_columns, matches
from iceberg_scenarios import java_scenario, probe_filters, pyiceberg_can_filter, pyiceberg_scenario

# A spread of the transforms by default (each JVM start costs seconds on CI's two cores);
# FLOE_ICEBERG_SELF_CHECK_ALL=1 checks every scenario the floe tests use.
if os.environ.get("FLOE_ICEBERG_SELF_CHECK_ALL") == "1":
    JAVA_TRANSFORMS = PY_TRANSFORMS = list(TRANSFORMS)
else:
    JAVA_TRANSFORMS = ["unpartitioned", "identity", "bucket_more", "hour"]
    PY_TRANSFORMS = ["unpartitioned", "bucket", "truncate", "day"]


@pytest.mark.parametrize("transform", JAVA_TRANSFORMS)
@pytest.mark.parametrize("kind", ["hadoop", "sql"])
def test_java_writes_java_reads_model(java_peer, make_lake, kind, transform):
    lake = make_lake(kind)
    written = java_scenario(java_peer, lake, TRANSFORMS[transform], seed=1000 + len(transform))
    what = f"Java-written {kind} table, {transform}"
    filters = probe_filters(written)
    requests = [{}] + [{"snapshot": s.snapshot_id} for s in written.states]
    requests += [{"filter": json.dumps(f)} for f in filters]
    results = java_peer.scans(lake, written.ident, requests)
    rows, schema = results[0]
    assert_same_schema(schema, written.schema, what)
    assert_same_rows(rows, written.rows, written.schema, what)
    for state, (r, s) in zip(written.states, results[1:]):
        assert_same_schema(s, state.schema, f"{what}, snapshot {state.snapshot_id}")
        assert_same_rows(r, state.rows, state.schema, f"{what}, snapshot {state.snapshot_id}")
    for f, (r, _) in zip(filters, results[1 + len(written.states) :]):
        want = [x for x in written.rows if matches(x, f, written.schema)]
        assert_same_rows(r, want, written.schema, f"{what}, filter {f}")
    meta = lake.metadata(written.ident)
    check_snapshot_totals(meta, what)
    table = lake.py_table(written.ident)
    check_live_files(table, meta, what)
    assert check_partition_values(table, what) > 0


@pytest.mark.parametrize("transform", PY_TRANSFORMS)
def test_pyiceberg_writes_both_read_model(java_peer, make_lake, transform):
    lake = make_lake("sql")
    written = pyiceberg_scenario(lake, TRANSFORMS[transform], seed=2000 + len(transform))
    what = f"PyIceberg-written table, {transform}"
    table = lake.py_table(written.ident)
    rows, schema = py_scan(table)
    assert_same_schema(schema, written.schema, what + " (PyIceberg)")
    assert_same_rows(rows, written.rows, written.schema, what + " (PyIceberg)")
    filters = probe_filters(written)
    results = java_peer.scans(lake, written.ident, [{}] + [{"filter": json.dumps(f)} for f in filters])
    jrows, jschema = results[0]
    assert_same_schema(jschema, written.schema, what + " (Java)")
    assert_same_rows(jrows, written.rows, written.schema, what + " (Java)")
    for f, (r, _) in zip(filters, results[1:]):
        want = [x for x in written.rows if matches(x, f, written.schema)]
        assert_same_rows(r, want, written.schema, f"{what} (Java), filter {f}")
        if pyiceberg_can_filter(f, written.schema):
            prow, _ = py_scan(table, row_filter=filter_sql(f, decimal_columns(written.schema)))
            assert_same_rows(prow, want, written.schema, f"{what} (PyIceberg), filter {f}")
    for state in written.states:
        r, s = py_scan(table, snapshot_id=state.snapshot_id)
        assert_same_rows(r, state.rows, state.schema, f"{what} (PyIceberg), snapshot {state.snapshot_id}")
    meta = lake.metadata(written.ident)
    check_snapshot_totals(meta, what)
    check_live_files(table, meta, what)
    check_partition_values(table, what)
