"""floe reads what PyIceberg writes (SqlCatalog on the shared SQLite file): appends,
overwrite by filter, delete by filter, schema evolution (update_schema), partition evolution
(update_spec), every transform. `floe table scan` must print PyIceberg's rows — current,
with --where, --columns and --snapshot."""

from __future__ import annotations

import pytest

from iceberg_peers import FloeTables, py_scan
from iceberg_rows import TRANSFORMS, assert_same_rows, decimal_columns, filter_sql, matches
from iceberg_scenarios import probe_filters, pyiceberg_can_filter, pyiceberg_scenario

COLUMNS = ["id", "label", "tz", "st", "note"]


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_floe_reads_pyiceberg_table(floe_run, make_lake, transform):
    lake = make_lake("sql")
    # The same seed as test_reference_peers.py.
    written = pyiceberg_scenario(lake, TRANSFORMS[transform], seed=2000 + len(transform))
    floe = FloeTables(floe_run, lake)
    table = lake.py_table(written.ident)
    what = f"PyIceberg-written table, {transform}, scanned by floe"

    py_rows, _ = py_scan(table)
    got = floe.scan(written.ident)
    assert_same_rows(got, written.rows, written.schema, what + " (vs the model)")
    assert_same_rows(got, py_rows, written.schema, what + " (vs PyIceberg's scan)")

    py_cols, _ = py_scan(table, columns=COLUMNS)
    got = floe.scan(written.ident, "--columns", ",".join(COLUMNS))
    assert_same_rows(got, py_cols, written.schema, what + f" --columns {COLUMNS}", columns=COLUMNS)

    for state in written.states:
        py_state, _ = py_scan(table, snapshot_id=state.snapshot_id)
        got = floe.scan(written.ident, "--snapshot", state.snapshot_id)
        assert_same_rows(got, py_state, state.schema, what + f" --snapshot {state.snapshot_id}")
        assert_same_rows(got, state.rows, state.schema, what + f" --snapshot {state.snapshot_id} (vs the model)")

    dec = decimal_columns(written.schema)
    for f in probe_filters(written):
        text = filter_sql(f, dec)
        got = floe.scan(written.ident, "--where", text)
        if pyiceberg_can_filter(f, written.schema):
            py_filtered, _ = py_scan(table, row_filter=text)
            assert_same_rows(got, py_filtered, written.schema, what + f" --where {text!r}")
        want = [r for r in written.rows if matches(r, f, written.schema)]
        assert_same_rows(got, want, written.schema, what + f" --where {text!r} (vs the model)")
