"""Catalogs, storage and table maintenance against hostile input and faults,
through the `floe table` command line (issue "Hostile input and faults":
D2, D3, D6, S1-S4, U2, U3, U7, C6, C7, W2, W3).

Each test is the reproducer of one finding: it fails on a floe without the
fix. The disk-full test mounts a small tmpfs and is skipped (with the reason)
where mounting is not allowed.
"""

from __future__ import annotations

import json
import os
import pathlib
import sqlite3
import subprocess
import uuid

import pytest

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "v", "required": False, "type": "string"},
    ],
}


def write_schema(path: pathlib.Path, schema: dict = SCHEMA) -> pathlib.Path:
    path.write_text(json.dumps(schema))
    return path


def sql_config(root: pathlib.Path, warehouse: str | None = "wh", uri: str | None = None) -> pathlib.Path:
    lines = ["catalog:", "  default:", "    type: sql", f"    uri: \"{uri or f'sqlite:///{root}/catalog.db'}\""]
    if warehouse is not None:
        lines.append(f"    warehouse: \"{warehouse if warehouse.startswith('/') or ':' in warehouse else root / warehouse}\"")
    path = root / "floe.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def hadoop_config(root: pathlib.Path, warehouse: str) -> pathlib.Path:
    path = root / "floe.yaml"
    path.write_text(f"catalog:\n  default:\n    type: hadoop\n    warehouse: \"{warehouse}\"\n")
    return path


def files_under(path: pathlib.Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*") if p.is_file()}


def ok(run) -> None:
    assert run.code == 0, run.describe()


def failed(run, *needles: str) -> None:
    """The command failed cleanly (exit 1, no signal) with `error: ...` naming each needle."""
    assert run.code == 1, run.describe()
    assert "error: " in run.stderr, run.describe()
    for needle in needles:
        assert needle in run.stderr, f"{needle!r} not in stderr\n{run.describe()}"


def table_cmd(run_floe, config: pathlib.Path, *args):
    return run_floe("table", "--catalog-config", config, *args)


def parquet_file(run_floe, root: pathlib.Path, name: str, rows: list[dict]) -> pathlib.Path:
    schema = write_schema(root / "rows-schema.json")
    src = root / f"{name}.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = root / f"{name}.parquet"
    ok(run_floe("parquet", "write", "--schema", schema, src, out))
    return out


# D2: two tables at one location; purge deletes only what the table references.
def test_purge_spares_a_shared_location_and_strangers(run_floe, tmp_path):
    config = sql_config(tmp_path)
    schema = write_schema(tmp_path / "s.json")
    shared = tmp_path / "shared"
    ok(table_cmd(run_floe, config, "create-namespace", "ns"))
    ok(table_cmd(run_floe, config, "create", "ns.a", "--schema", schema, "--location", shared))
    failed(table_cmd(run_floe, config, "create", "ns.b", "--schema", schema, "--location", shared),
           "already holds")
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": 1, "v": "x"}\n{"id": 2, "v": "y"}\n')
    ok(table_cmd(run_floe, config, "append", "ns.a", rows))
    (shared / "data" / "stranger.parquet").write_text("not the table's")
    (shared / "notes.txt").write_text("keep me")
    before = files_under(shared)
    ok(table_cmd(run_floe, config, "drop", "ns.a", "--purge"))
    assert files_under(shared) == {"data/stranger.parquet", "notes.txt"}, before


# D2: an edited Hadoop `location` must not make purge wipe a foreign folder.
def test_purge_with_edited_hadoop_location_spares_foreign_folder(run_floe, tmp_path):
    config = hadoop_config(tmp_path, str(tmp_path / "lake"))
    schema = write_schema(tmp_path / "s.json")
    ok(table_cmd(run_floe, config, "create-namespace", "ns"))
    ok(table_cmd(run_floe, config, "create", "ns.t", "--schema", schema))
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": 1, "v": "x"}\n')
    ok(table_cmd(run_floe, config, "append", "ns.t", rows))
    foreign = tmp_path / "foreign"
    (foreign / "data").mkdir(parents=True)
    (foreign / "metadata").mkdir()
    (foreign / "data" / "precious.parquet").write_text("precious")
    (foreign / "metadata" / "keep.json").write_text("{}")
    metadata_dir = tmp_path / "lake" / "ns" / "t" / "metadata"
    newest = max(metadata_dir.glob("v*.metadata.json"), key=lambda p: int(p.name[1:].split(".")[0]))
    doc = json.loads(newest.read_text())
    doc["location"] = str(foreign)
    newest.write_text(json.dumps(doc))
    run = table_cmd(run_floe, config, "drop", "ns.t", "--purge")
    ok(run)
    assert "outside the table's location" in run.stderr, run.describe()
    assert files_under(foreign) == {"data/precious.parquet", "metadata/keep.json"}


def fill(path: pathlib.Path) -> None:
    """Writes zeros to `path` until the file system is full."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    finally:
        os.close(fd)


# D3: disk full during `table create` (Hadoop): no partial vN.metadata.json,
# the command fails and the table does not exist; with space it can be created.
def test_disk_full_during_create_leaves_no_stuck_table(run_floe, tmp_path):
    mnt = tmp_path / "small"
    mnt.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs to fill up (needs root): {mounted.stderr.strip()}")
    try:
        config = hadoop_config(tmp_path, str(mnt / "lake"))
        schema = write_schema(tmp_path / "s.json")
        ok(table_cmd(run_floe, config, "create-namespace", "ns"))
        filler = mnt / "filler"
        fill(filler)
        run = table_cmd(run_floe, config, "create", "ns.t", "--schema", schema)
        failed(run, "No space left on device")
        metadata = mnt / "lake" / "ns" / "t" / "metadata"
        leftovers = sorted(p.name for p in metadata.glob("*.metadata.json")) if metadata.exists() else []
        assert leftovers == [], leftovers
        failed(table_cmd(run_floe, config, "describe", "ns.t"), "does not exist")
        filler.unlink()
        ok(table_cmd(run_floe, config, "create", "ns.t", "--schema", schema))
        ok(table_cmd(run_floe, config, "describe", "ns.t"))
        # Full again while committing: the commit fails, the table stays readable.
        fill(filler)
        failed(table_cmd(run_floe, config, "set-property", "ns.t", "k=v"))
        assert [p.name for p in metadata.glob("v*.metadata.json")] == ["v1.metadata.json"]
        filler.unlink()
        ok(table_cmd(run_floe, config, "set-property", "ns.t", "k=v"))
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


# D6, U7: relative warehouse and sqlite paths are resolved against the config
# file's folder; metadata holds absolute paths; other folders see the same catalog.
@pytest.mark.parametrize("kind", ["sql", "hadoop"])
def test_relative_paths_resolve_against_config_folder(run_floe, tmp_path, monkeypatch, kind):
    conf = tmp_path / "conf"
    conf.mkdir()
    config = conf / "floe.yaml"
    if kind == "sql":
        config.write_text("catalog:\n  default:\n    type: sql\n    uri: sqlite:///catalog.db\n"
                          "    warehouse: ./warehouse\n")
    else:
        config.write_text("catalog:\n  default:\n    type: hadoop\n    warehouse: ./lake\n")
    schema = write_schema(tmp_path / "s.json")
    monkeypatch.chdir(conf)
    ok(table_cmd(run_floe, config, "create-namespace", "ns"))
    created = table_cmd(run_floe, config, "create", "ns.t", "--schema", schema)
    ok(created)
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.chdir(other)
    listed = table_cmd(run_floe, config, "list")
    ok(listed)
    assert listed.stdout.split() == ["ns.t"], listed.describe()
    described = table_cmd(run_floe, config, "describe", "ns.t", "--json")
    ok(described)
    doc = json.loads(described.stdout)
    assert pathlib.PurePath(doc["location"]).is_absolute(), doc["location"]
    assert doc["location"].startswith(str(conf)), doc["location"]
    assert list(other.iterdir()) == []  # no new empty catalog here


# S1: expire keeps unreachable files outside the table's location unless asked.
def test_expire_keeps_files_outside_the_location(run_floe, tmp_path):
    config = sql_config(tmp_path)
    schema = write_schema(tmp_path / "s.json")
    ok(table_cmd(run_floe, config, "create-namespace", "ns"))
    for name, flags, kept in [("a", [], True), ("b", ["--delete-outside-location"], False)]:
        ok(table_cmd(run_floe, config, "create", f"ns.{name}", "--schema", schema))
        outside = parquet_file(run_floe, tmp_path, f"outside-{name}", [{"id": 1, "v": "x"}])
        ok(table_cmd(run_floe, config, "append", f"ns.{name}", outside))
        deleted = table_cmd(run_floe, config, "delete", f"ns.{name}", "--where", "id >= 0")
        ok(deleted)
        run = table_cmd(run_floe, config, "expire", f"ns.{name}", "--older-than",
                        "2999-01-01T00:00:00", "--retain-last", "1", *flags)
        ok(run)
        assert outside.exists() == kept, run.describe()
        if kept:
            assert "outside the table's location" in run.stderr, run.describe()


# S2: a secret substituted into a catalog uri never reaches an error message.
def test_secret_in_uri_is_redacted(run_floe, tmp_path, monkeypatch):
    monkeypatch.setenv("FLOE_TEST_PW", "TopSecret123")
    config = sql_config(tmp_path, uri="postgresql://floe:${FLOE_TEST_PW}@db.example/cat?token=${FLOE_TEST_PW}")
    run = table_cmd(run_floe, config, "list")
    failed(run, "floe:***@db.example")
    assert "TopSecret123" not in run.stderr + run.stdout


# S3: a sql catalog without warehouse must not put tables under "/".
def test_sql_catalog_without_warehouse_is_an_error(run_floe, tmp_path):
    config = sql_config(tmp_path, warehouse=None)
    schema = write_schema(tmp_path / "s.json")
    ns = f"ns{uuid.uuid4().hex[:8]}"
    run = table_cmd(run_floe, config, "create", f"{ns}.t", "--schema", schema)
    failed(run, "warehouse")
    assert not pathlib.Path(f"/{ns}.db").exists()


# S4: a hadoop catalog on s3:// and schemes floe has no storage for are
# refused by name, never made a local folder named "s3:" or "gs:".
def test_unsupported_scheme_is_named(run_floe, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = hadoop_config(tmp_path, "s3://bucket/wh")
    failed(table_cmd(run_floe, config, "create-namespace", "ns"), "hadoop catalog cannot live on S3")
    assert not (tmp_path / "s3:").exists()
    config = hadoop_config(tmp_path, "gs://bucket/wh")
    failed(table_cmd(run_floe, config, "create-namespace", "ns"), "scheme 'gs' not supported")
    assert not (tmp_path / "gs:").exists()
    # A manifest list with a scheme floe cannot read, named as such.
    config = hadoop_config(tmp_path, str(tmp_path / "lake"))
    schema = write_schema(tmp_path / "s.json")
    ok(table_cmd(run_floe, config, "create-namespace", "ns"))
    ok(table_cmd(run_floe, config, "create", "ns.t", "--schema", schema))
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": 1, "v": "x"}\n')
    ok(table_cmd(run_floe, config, "append", "ns.t", rows))
    newest = tmp_path / "lake" / "ns" / "t" / "metadata" / "v2.metadata.json"
    doc = json.loads(newest.read_text())
    for snapshot in doc["snapshots"]:
        snapshot["manifest-list"] = "gs://bucket/wh/ns/t/metadata/snap.avro"
    newest.write_text(json.dumps(doc))
    failed(table_cmd(run_floe, config, "files", "ns.t"), "scheme 'gs' not supported",
           "gs://bucket/wh/ns/t/metadata/snap.avro")


# U2: a catalog row without metadata_location is named as such.
def test_null_metadata_location_is_named(run_floe, tmp_path):
    config = sql_config(tmp_path)
    schema = write_schema(tmp_path / "s.json")
    ok(table_cmd(run_floe, config, "create-namespace", "ns"))
    ok(table_cmd(run_floe, config, "create", "ns.t", "--schema", schema))
    with sqlite3.connect(tmp_path / "catalog.db") as db:
        db.execute("UPDATE iceberg_tables SET metadata_location = NULL")
    failed(table_cmd(run_floe, config, "describe", "ns.t"), "ns.t", "no metadata_location")


# U3: a version hint naming a missing version is named in the error.
def test_bad_version_hint_is_named(run_floe, tmp_path):
    config = hadoop_config(tmp_path, str(tmp_path / "lake"))
    schema = write_schema(tmp_path / "s.json")
    ok(table_cmd(run_floe, config, "create-namespace", "ns"))
    ok(table_cmd(run_floe, config, "create", "ns.t", "--schema", schema))
    hint = tmp_path / "lake" / "ns" / "t" / "metadata" / "version-hint.text"
    hint.write_text("99")
    failed(table_cmd(run_floe, config, "describe", "ns.t"), str(hint), "v99.metadata.json")


# C6, C7: a config that is a scalar, a list or a folder is a clear error, not an abort.
@pytest.mark.parametrize("content", ["hello\n", "- a\n- b\n", "catalog: [\n", None])
def test_hostile_catalog_config_is_an_error(run_floe, tmp_path, content):
    if content is None:
        config = tmp_path / "folder.yaml"
        config.mkdir()
    else:
        config = tmp_path / "c.yaml"
        config.write_text(content)
    run = table_cmd(run_floe, config, "list")
    failed(run, str(config))
    if content is None:
        assert "folder" in run.stderr, run.describe()


# W3: format-version is reserved: upgrades go through the metadata, other values are refused.
def test_format_version_property_is_reserved(run_floe, tmp_path):
    config = sql_config(tmp_path)
    schema = write_schema(tmp_path / "s.json")
    ok(table_cmd(run_floe, config, "create-namespace", "ns"))
    ok(table_cmd(run_floe, config, "create", "ns.t", "--schema", schema))
    failed(table_cmd(run_floe, config, "set-property", "ns.t", "format-version=99"), "not supported")
    failed(table_cmd(run_floe, config, "set-property", "ns.t", "format-version=1"), "downgrade")
    ok(table_cmd(run_floe, config, "set-property", "ns.t", "format-version=3"))
    described = table_cmd(run_floe, config, "describe", "ns.t", "--json")
    ok(described)
    doc = json.loads(described.stdout)
    assert doc["format-version"] == 3
    assert "format-version" not in doc.get("properties", {})


# W2: a struct holding an identifier field cannot be dropped (nor the field itself).
def test_drop_identifier_field_is_refused(run_floe, tmp_path):
    config = sql_config(tmp_path)
    schema = write_schema(tmp_path / "s.json", {
        "type": "struct",
        "schema-id": 0,
        "identifier-field-ids": [3],
        "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "key", "required": True, "type": {
                "type": "struct",
                "fields": [{"id": 3, "name": "tenant", "required": True, "type": "long"}],
            }},
        ],
    })
    ok(table_cmd(run_floe, config, "create-namespace", "ns"))
    ok(table_cmd(run_floe, config, "create", "ns.t", "--schema", schema))
    failed(table_cmd(run_floe, config, "evolve", "ns.t", "--drop", "key"), "identifier field")
    failed(table_cmd(run_floe, config, "evolve", "ns.t", "--drop", "key.tenant"), "identifier field")
    described = table_cmd(run_floe, config, "describe", "ns.t")
    ok(described)
    assert "key" in described.stdout
