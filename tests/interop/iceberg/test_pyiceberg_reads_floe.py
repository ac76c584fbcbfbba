"""PyIceberg reads what floe writes: floe creates, appends, deletes (position deletes),
evolves the schema and expires snapshots; PyIceberg (SqlCatalog on the same SQLite file, or
StaticTable on the Hadoop catalog's metadata) reads identical rows and schemas, current and
by snapshot, with and without filters. Each data file's partition values are recomputed from
its rows, and every snapshot's summary totals are checked against its parent."""

from __future__ import annotations

import pytest

from floe_written import floe_written
from iceberg_peers import check_live_files, check_partition_values, check_snapshot_totals, local_path, py_scan
from iceberg_rows import TRANSFORMS, assert_same_rows, assert_same_schema, decimal_columns, filter_sql, matches
from iceberg_scenarios import probe_filters, pyiceberg_can_filter

KINDS = ["sql", "hadoop"]


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("kind", KINDS)
def test_pyiceberg_reads_floe_table(floe_run, tmp_path_factory, kind, transform):
    written = floe_written(floe_run, tmp_path_factory.getbasetemp(), kind, transform, expire=False)
    what = f"floe-written {kind} table, {transform}, read by PyIceberg"
    table = written.lake.py_table(written.ident)
    rows, schema = py_scan(table)
    assert_same_schema(schema, written.schema, what)
    assert_same_rows(rows, written.rows, written.schema, what)
    meta = written.lake.metadata(written.ident)
    assert meta["format-version"] == 2, f"{what}: floe writes format v2"
    check_snapshot_totals(meta, what)
    check_live_files(table, meta, what)
    if TRANSFORMS[transform]:
        assert check_partition_values(table, what) > 0


@pytest.mark.parametrize("transform", ["unpartitioned", "bucket", "day"])
@pytest.mark.parametrize("kind", KINDS)
def test_pyiceberg_time_travels_floe_table(floe_run, tmp_path_factory, kind, transform):
    written = floe_written(floe_run, tmp_path_factory.getbasetemp(), kind, transform, expire=False)
    table = written.lake.py_table(written.ident)
    assert written.states, "the scenario recorded no snapshots"
    for state in written.states:
        what = f"floe-written {kind} table, {transform}, snapshot {state.snapshot_id}, read by PyIceberg"
        rows, schema = py_scan(table, snapshot_id=state.snapshot_id)
        assert_same_rows(rows, state.rows, state.schema, what)


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("kind", KINDS)
def test_pyiceberg_filters_floe_table(floe_run, tmp_path_factory, kind, transform):
    """Filters on partition sources prune by the partition values floe wrote: a wrong
    bucket or day shows up here as missing rows."""
    written = floe_written(floe_run, tmp_path_factory.getbasetemp(), kind, transform, expire=False)
    table = written.lake.py_table(written.ident)
    for f in probe_filters(written):
        if not pyiceberg_can_filter(f, written.schema):
            continue  # Java's filtered scans of the same table cover it
        what = f"floe-written {kind} table, {transform}, PyIceberg filter {f}"
        rows, _ = py_scan(table, row_filter=filter_sql(f, decimal_columns(written.schema)))
        want = [r for r in written.rows if matches(r, f, written.schema)]
        assert_same_rows(rows, want, written.schema, what)


@pytest.mark.parametrize("transform", ["unpartitioned", "identity", "hour"])
@pytest.mark.parametrize("kind", KINDS)
def test_pyiceberg_reads_floe_table_after_expire(floe_run, tmp_path_factory, kind, transform):
    written = floe_written(floe_run, tmp_path_factory.getbasetemp(), kind, transform, expire=True)
    what = f"floe-written {kind} table, {transform}, expired, read by PyIceberg"
    meta = written.lake.metadata(written.ident)
    assert len(meta["snapshots"]) == 1, f"{what}: --retain-last 1 left {len(meta['snapshots'])} snapshots"
    assert meta["snapshots"][0]["snapshot-id"] == meta["current-snapshot-id"]
    for manifest_list in written.notes["expired_manifest_lists"]:
        assert not local_path(manifest_list).exists(), f"{what}: expired manifest list {manifest_list} still exists"
    table = written.lake.py_table(written.ident)
    rows, schema = py_scan(table)
    assert_same_schema(schema, written.schema, what)
    assert_same_rows(rows, written.rows, written.schema, what)
    check_live_files(table, meta, what)
