"""floe reads what Iceberg Java writes: appends, overwrites (by filter and dynamic), row
deltas with position AND equality deletes (and rows re-added under deleted keys in the same
commit, which must survive), every partition transform, schema and partition evolution; in
both catalogs. `floe table scan` must print the same rows as Java's scan — current, with
--where, --columns and --snapshot. The scenario's model is the one test_reference_peers.py
proves Java agrees with."""

from __future__ import annotations

import json

import pytest

from iceberg_peers import FloeTables
from iceberg_rows import TRANSFORMS, assert_same_rows, decimal_columns, filter_sql, matches
from iceberg_scenarios import java_scenario, probe_filters

KINDS = ["sql", "hadoop"]
COLUMNS = ["id", "label", "dt", "mp", "qty"]


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("kind", KINDS)
def test_floe_reads_java_table(floe_run, java_peer, make_lake, tmp_path, kind, transform):
    lake = make_lake(kind)
    # The same seed as test_reference_peers.py, so the model is one Java was checked against.
    written = java_scenario(java_peer, lake, TRANSFORMS[transform], seed=1000 + len(transform))
    floe = FloeTables(floe_run, lake)
    what = f"Java-written {kind} table, {transform}, scanned by floe"
    filters = probe_filters(written)
    requests = [{}, {"columns": ",".join(COLUMNS)}] + [{"snapshot": s.snapshot_id} for s in written.states]
    requests += [{"filter": json.dumps(f)} for f in filters]
    results = java_peer.scans(lake, written.ident, requests)

    java_rows, _ = results[0]
    floe_rows = floe.scan(written.ident)
    assert_same_rows(floe_rows, written.rows, written.schema, what + " (vs the model)")
    assert_same_rows(floe_rows, java_rows, written.schema, what + " (vs Java's scan)")

    java_cols, _ = results[1]
    floe_cols = floe.scan(written.ident, "--columns", ",".join(COLUMNS))
    assert_same_rows(floe_cols, java_cols, written.schema, what + f" --columns {COLUMNS}", columns=COLUMNS)

    for state, (java_state, _) in zip(written.states, results[2:]):
        got = floe.scan(written.ident, "--snapshot", state.snapshot_id)
        assert_same_rows(got, java_state, state.schema, what + f" --snapshot {state.snapshot_id}")
        assert_same_rows(got, state.rows, state.schema, what + f" --snapshot {state.snapshot_id} (vs the model)")

    dec = decimal_columns(written.schema)
    for f, (java_filtered, _) in zip(filters, results[2 + len(written.states) :]):
        got = floe.scan(written.ident, "--where", filter_sql(f, dec))
        want = [r for r in written.rows if matches(r, f, written.schema)]
        assert_same_rows(got, java_filtered, written.schema, what + f" --where {filter_sql(f, dec)!r}")
        assert_same_rows(got, want, written.schema, what + f" --where {filter_sql(f, dec)!r} (vs the model)")
