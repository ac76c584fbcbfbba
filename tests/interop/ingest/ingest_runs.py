"""Running `floe ingest` against a lake, and checking the lake against the model."""

from __future__ import annotations

import json
import pathlib
import subprocess

from changes import ChangeStream
from iceberg_peers import Lake
from iceberg_rows import assert_same_rows
from lake_check import assert_no_checkpoint_twice, merge_on_read

# shop.items: partitioned by a key column, so updates that change `region` move rows
# between partitions. Identifier fields = the primary key (region, id).
ITEMS_SCHEMA = {
    "type": "struct", "schema-id": 0, "identifier-field-ids": [1, 2],
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "region", "required": True, "type": "string"},
        {"id": 3, "name": "qty", "required": False, "type": "int"},
        {"id": 4, "name": "price", "required": False, "type": "decimal(10, 2)"},
        {"id": 5, "name": "ts", "required": False, "type": "timestamp"},
        {"id": 6, "name": "day", "required": False, "type": "date"},
        {"id": 7, "name": "note", "required": False, "type": "string"},
        {"id": 8, "name": "flag", "required": False, "type": "boolean"},
    ],
}


def ingest_argv(binary: pathlib.Path, lake: Lake, input_file: pathlib.Path, state: pathlib.Path,
                *extra: str) -> list[str]:
    return [str(binary), "ingest", str(input_file), "--catalog-config", str(lake.config_file),
            "--route", "{db}.{table}", "--primary-key", "id", "--state-dir", str(state),
            "--checkpoint-interval", "200ms", *extra]


def create_tables(binary: pathlib.Path, lake: Lake, tmp: pathlib.Path, changelog: bool) -> None:
    """shop.items, partitioned by its key column region (and a bucket of id); with a
    changelog (not upsert), also shop.orders partitioned by day(ts), a column that is not
    in the key and changes with every update, so updates move rows between partitions."""
    tables = [("shop.items", ITEMS_SCHEMA, "region, bucket(4, id)")]
    if changelog:
        orders = dict(ITEMS_SCHEMA, **{"identifier-field-ids": [1]})
        tables.append(("shop.orders", orders, "day(ts)"))
    commands = [["create-namespace", "shop"]]
    for ident, schema, partition_by in tables:
        schema_file = tmp / f"{ident}-schema.json"
        schema_file.write_text(json.dumps(schema))
        commands.append(["create", ident, "--schema", str(schema_file), "--partition-by", partition_by])
    for args in commands:
        proc = subprocess.run([str(binary), "table", "--catalog-config", str(lake.config_file), *args],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr


def check_lake(lake: Lake, stream: ChangeStream, java_peer, what: str) -> dict[str, int]:
    """Every table equals the model, read by Iceberg Java and by the spec's rules over
    PyIceberg's metadata; no checkpoint committed twice. Returns commits per table."""
    commits = {}
    for ident, expected in stream.expected().items():
        table = lake.py_table(ident)
        schema = json.loads(table.schema().model_dump_json(by_alias=True))
        reference = merge_on_read(table)
        assert_same_rows(reference, expected, schema, f"{what}: {ident} (spec rules over PyIceberg metadata)")
        java_rows, _ = java_peer.scan(lake, ident)
        assert_same_rows(java_rows, expected, schema, f"{what}: {ident} (Iceberg Java)")
        commits[ident] = assert_no_checkpoint_twice(lake.metadata(ident), f"{what}: {ident}")
    return commits
