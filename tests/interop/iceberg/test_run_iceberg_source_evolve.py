"""`floe run` with `source: type: iceberg` and `schema.change.behavior: evolve` (issue 13).

PyIceberg evolves a source table between appends and deletes while the pipeline follows it:
a column renamed, one added, a type widened (int to long), a column dropped. Each change
reaches the sink table as an Iceberg schema change before the first row of the new schema —
the renamed column keeping its field id in the copy, as the source's keeps it — and Iceberg
Java reads the copy equal to the original, row for row, though the run is killed with SIGKILL
once on the way.
"""

from __future__ import annotations

import signal
import time

import pyarrow as pa

from test_run_iceberg_source import (  # noqa: F401  (fixture)
    Run,
    _caught_up,
    _no_run_left_behind,
    _pipeline,
)

PAIRS = [("db.t", "mirror.t")]


def _source_table(lake):
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, LongType, NestedField, StringType

    return lake.py_catalog().create_table("db.t", schema=Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "name", StringType(), required=False),
        NestedField(3, "score", IntegerType(), required=False),
        identifier_field_ids=[1]))


def _append(table, ids: list[int]) -> None:
    """Rows in the table's current schema: every column filled from the id."""
    from pyiceberg.io.pyarrow import schema_to_pyarrow

    schema = schema_to_pyarrow(table.schema(), include_field_ids=False)
    columns = []
    for field in schema:
        if field.name == "id":
            columns.append(pa.array(ids, field.type))
        elif pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
            columns.append(pa.array([f"{field.name}{i}" for i in ids], field.type))
        elif pa.types.is_floating(field.type):
            columns.append(pa.array([i * 0.5 for i in ids], field.type))
        else:
            columns.append(pa.array([i * 3 for i in ids], field.type))
    table.append(pa.Table.from_arrays(columns, schema=schema))
    table.refresh()


def _evolve(table, change) -> None:
    with table.update_schema() as update:
        change(update)
    table.refresh()


def _fields(lake, table: str) -> list[tuple[int, str, str]]:
    schema = lake.metadata(table)["schemas"][-1]
    return [(f["id"], f["name"], f["type"]) for f in schema["fields"]]


def test_source_schema_changes_reach_the_copy(floe_run, floe_bin, make_lake, tmp_path, java_peer):
    from pyiceberg.types import DoubleType, LongType

    lake = make_lake("sql")
    lake.py_catalog().create_namespace("db")
    table = _source_table(lake)
    _append(table, list(range(1, 100)))
    pipeline = _pipeline(lake, tmp_path, tables="db.t")
    pipeline.write_text(pipeline.read_text().replace("pipeline:\n", "pipeline:\n  schema.change.behavior: evolve\n"))

    run = Run(floe_bin, pipeline, tmp_path)
    _caught_up(run, java_peer, lake, PAIRS)
    copy_name_id = next(i for i, name, _ in _fields(lake, "mirror.t") if name == "name")

    _evolve(table, lambda u: u.rename_column("name", "label"))
    _append(table, list(range(100, 150)))
    _evolve(table, lambda u: u.add_column("extra", DoubleType()))
    _append(table, list(range(150, 200)))
    table.delete("id < 20")
    table.refresh()
    time.sleep(0.7)
    run.alive()
    run.stop(signal.SIGKILL)
    assert "rename name to label" in run.stderr() and "add extra double" in run.stderr(), run.stderr()[-3000:]
    _evolve(table, lambda u: u.update_column("score", LongType()))
    _append(table, list(range(200, 250)))
    run = Run(floe_bin, pipeline, tmp_path)
    _caught_up(run, java_peer, lake, PAIRS)
    copy = _fields(lake, "mirror.t")
    assert [(name, kind) for _, name, kind in copy] == [
        ("id", "long"), ("label", "string"), ("score", "long"), ("extra", "double")], copy
    # The rename kept the column's field id (and its history) in the copy.
    assert next(i for i, name, _ in copy if name == "label") == copy_name_id

    _evolve(table, lambda u: u.delete_column("label"))
    _append(table, list(range(250, 300)))
    table.delete("id >= 280")
    table.refresh()
    _caught_up(run, java_peer, lake, PAIRS)
    assert [(name, kind) for _, name, kind in _fields(lake, "mirror.t")] == [
        ("id", "long"), ("score", "long"), ("extra", "double")]
    assert lake.metadata("mirror.t")["schemas"][-1].get("identifier-field-ids") == [1]
    assert run.stop() == 0, run.stderr()
    assert "drop label" in run.stderr(), run.stderr()[-3000:]
