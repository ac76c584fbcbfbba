"""Primary keys from schema-change events: without --primary-key, `floe ingest` takes a
table's identifier fields from the `tableChanges[].table.primaryKeyColumnNames` of the
schema-change events before its rows (Debezium's schema-change events, and the CREATE
events `floe capture` writes for every table it snapshots). The keys are part of the
checkpoint: here the events come in one run and the rows in the next."""

from __future__ import annotations

import json
import subprocess

from changes import ChangeStream
from ingest_runs import check_lake


def schema_change(db: str, table: str, key: list[str]) -> str:
    return json.dumps({"source": {"db": db, "table": table}, "databaseName": db, "ddl": "",
                       "tableChanges": [{"type": "CREATE", "id": f'"{db}"."{table}"',
                                         "table": {"primaryKeyColumnNames": key, "columns": []}}]})


def test_primary_keys_from_schema_change_events(tmp_path, make_lake, java_peer, floe_ingest_ready):
    binary = floe_ingest_ready
    lake = make_lake("sql")
    stream = ChangeStream(77)
    input_file = tmp_path / "changes.jsonl"
    input_file.write_text("".join(schema_change(t.db, t.name, t.key) + "\n" for t in stream.tables))
    argv = [str(binary), "ingest", str(input_file), "--catalog-config", str(lake.config_file),
            "--route", "{db}.{table}", "--state-dir", str(tmp_path / "state"),
            "--checkpoint-interval", "200ms"]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr[-3000:]
    with open(input_file, "a") as out:
        for line in stream.lines(4000):
            out.write(line + "\n")
    second = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-3000:]
    check_lake(lake, stream, java_peer, "keys from schema-change events")
    for t in stream.tables:
        schema = lake.py_table(t.ident).schema()
        names = sorted(schema.find_field(i).name for i in schema.identifier_field_ids)
        assert names == sorted(t.key), f"{t.ident}: identifier fields {names}, source key {t.key}"
