"""The three parties of the Iceberg interop tests and the warehouse they share.

- `Lake`: one test's warehouse and catalog — `sql` (a SQLite file shared by floe, PyIceberg's
  SqlCatalog and Iceberg Java's JdbcCatalog) or `hadoop` (a warehouse folder in
  HadoopCatalog's layout, read by PyIceberg through StaticTable). It writes the floe
  catalog file (PyIceberg's YAML shape) and finds a table's current metadata file.
- `FloeTables`: `floe table --catalog-config FILE ...` through the run_floe fixture.
- `JavaPeer`: the IcebergPeer program (tests/interop/java/, built by scripts/java-peer.sh).
- PyIceberg helpers: schema/spec from the shared JSON/text forms, appends from rows in floe's
  conventions, scans back to those conventions.
- Checks that do not trust any reader: partition values of every data file recomputed from
  its rows, and snapshot summary totals against their parents and the live files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import decimal
import fcntl
import json
import os
import pathlib
import re
import sqlite3
import subprocess
import uuid
from typing import Any

import pytest

from iceberg_rows import arrow_rows, from_python, parse_jsonl, to_jsonl, to_python

REPO_ROOT = pathlib.Path(__file__).resolve().parents[3]
JAVA_PEER_DIR = REPO_ROOT / ".cache" / "java-peer"
JAVA_TIMEOUT_SECONDS = 600
CATALOG_NAME = "default"


def local_path(location: str) -> pathlib.Path:
    """A file: URI or plain path of a metadata/data file -> a local path."""
    if location.startswith("file://"):
        return pathlib.Path(location[len("file://") :])
    if location.startswith("file:"):
        return pathlib.Path(location[len("file:") :])
    return pathlib.Path(location)


# ----------------------------------------------------------------------------- the warehouse


@dataclasses.dataclass
class Lake:
    """One test's catalog: kind "sql" or "hadoop", everything under `root`."""

    kind: str
    root: pathlib.Path

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.warehouse.mkdir(parents=True, exist_ok=True)
        self.config_file.write_text(self.floe_yaml())

    @property
    def warehouse(self) -> pathlib.Path:
        return self.root / "warehouse"

    @property
    def db(self) -> pathlib.Path:
        return self.root / "catalog.db"

    @property
    def config_file(self) -> pathlib.Path:
        return self.root / ".floe.yaml"

    @property
    def warehouse_uri(self) -> str:
        return "file://" + str(self.warehouse)

    def floe_yaml(self) -> str:
        if self.kind == "sql":
            return (
                "catalog:\n"
                f"  {CATALOG_NAME}:\n"
                "    type: sql\n"
                f'    uri: "sqlite:///{self.db}"\n'
                f'    warehouse: "{self.warehouse_uri}"\n'
            )
        return f"catalog:\n  {CATALOG_NAME}:\n    type: hadoop\n" f'    warehouse: "{self.warehouse}"\n'

    def java_args(self) -> list[str]:
        if self.kind == "sql":
            return ["--catalog", "jdbc", "--warehouse", self.warehouse_uri, "--uri", f"jdbc:sqlite:{self.db}"]
        return ["--catalog", "hadoop", "--warehouse", str(self.warehouse)]

    # --- PyIceberg

    def py_catalog(self):
        """PyIceberg's SqlCatalog on the shared SQLite file (sql lakes only)."""
        assert self.kind == "sql", "PyIceberg has no Hadoop catalog; use py_table (StaticTable)"
        from pyiceberg.catalog.sql import SqlCatalog

        return SqlCatalog(CATALOG_NAME, uri=f"sqlite:///{self.db}", warehouse=self.warehouse_uri)

    def py_table(self, ident: str):
        """The table as PyIceberg reads it: SqlCatalog, or StaticTable on the newest
        vN.metadata.json of a Hadoop table."""
        if self.kind == "sql":
            return self.py_catalog().load_table(ident)
        from pyiceberg.table import StaticTable

        return StaticTable.from_metadata(str(self.metadata_path(ident)))

    # --- metadata, read directly

    def metadata_location(self, ident: str) -> str:
        ns, name = ident.rsplit(".", 1)
        if self.kind == "sql":
            con = sqlite3.connect(self.db)
            try:
                row = con.execute(
                    "SELECT metadata_location FROM iceberg_tables "
                    "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?",
                    (CATALOG_NAME, ns, name),
                ).fetchone()
            finally:
                con.close()
            assert row is not None, f"{ident} is not in iceberg_tables of {self.db}"
            return row[0]
        meta = self.warehouse / ns.replace(".", "/") / name / "metadata"
        versions = [
            int(m.group(1)) for p in meta.glob("v*.metadata.json") if (m := re.fullmatch(r"v(\d+)\.metadata\.json", p.name))
        ]
        assert versions, f"no vN.metadata.json in {meta}"
        hint = meta / "version-hint.text"
        if hint.exists():
            assert int(hint.read_text().strip()) <= max(versions), "version-hint.text points past the newest version"
        return str(meta / f"v{max(versions)}.metadata.json")

    def metadata_path(self, ident: str) -> pathlib.Path:
        return local_path(self.metadata_location(ident))

    def metadata(self, ident: str) -> dict:
        return json.loads(self.metadata_path(ident).read_text())

    def current_snapshot_id(self, ident: str) -> int | None:
        sid = self.metadata(ident).get("current-snapshot-id")
        return None if sid in (None, -1) else sid


# ----------------------------------------------------------------------------- floe


class FloeTables:
    """`floe table --catalog-config LAKE/.floe.yaml SUBCOMMAND ...`."""

    def __init__(self, run_floe, lake: Lake):
        self.run_floe = run_floe
        self.lake = lake

    def run(self, *args, stdin: str | None = None):
        return self.run_floe("table", "--catalog-config", self.lake.config_file, *args, stdin=stdin)

    def __call__(self, *args, stdin: str | None = None):
        """Runs a subcommand and asserts it succeeded."""
        res = self.run(*args, stdin=stdin)
        assert res.code == 0, f"floe table {args[0]} failed\n{res.describe()}"
        return res

    def append_rows(self, ident: str, rows: list[dict], path: pathlib.Path) -> None:
        path.write_text(to_jsonl(rows), encoding="utf-8")
        self("append", ident, path)

    def scan(self, ident: str, *args) -> list[dict]:
        res = self("scan", ident, *args)
        try:
            return parse_jsonl(res.stdout)
        except json.JSONDecodeError as e:
            raise AssertionError(f"floe table scan printed invalid JSON Lines: {e}\n{res.describe()}") from e


# ----------------------------------------------------------------------------- Java


class JavaPeer:
    """IcebergPeer from .cache/java-peer (see scripts/java-peer.sh)."""

    JVM_FLAGS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss4m", "-Xmx1g"]

    def __init__(self, classpath: str):
        self.classpath = classpath

    def run(self, lake: Lake, command: str, *args, stdin: str | None = None) -> str:
        argv = ["java", *self.JVM_FLAGS, "-cp", self.classpath, "dev.floe.interop.IcebergPeer", command]
        argv += lake.java_args() + [str(a) for a in args]
        try:
            proc = subprocess.run(
                argv,
                input=(stdin or "").encode(),
                capture_output=True,
                timeout=JAVA_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"IcebergPeer {command} did not finish within {JAVA_TIMEOUT_SECONDS} s")
        if proc.returncode != 0:
            raise AssertionError(
                f"IcebergPeer {command} failed (exit {proc.returncode})\n"
                f"args: {args}\n--- stderr ---\n{proc.stderr.decode(errors='replace')[-6000:]}"
            )
        return proc.stdout.decode()

    def script(self, lake: Lake, ident: str, steps: list[dict]) -> list[str]:
        """Runs steps ({"cmd": ..., "args": {...}, "stdin": str | JSON, "flags": [...]}) in one
        JVM against table `ident`; returns each step's standard output."""
        return json.loads(self.run(lake, "script", "--table", ident, stdin=json.dumps(steps)))

    def scan(self, lake: Lake, ident: str, *args) -> tuple[list[dict], dict]:
        """Rows (floe conventions) and the read schema (Iceberg JSON)."""
        schema_file = lake.root / f"java-scan-schema-{uuid.uuid4().hex}.json"
        out = self.run(lake, "scan", "--table", ident, "--schema-file", schema_file, *args)
        schema = json.loads(schema_file.read_text())
        schema_file.unlink()
        return parse_jsonl(out), schema


    def scans(self, lake: Lake, ident: str, requests: list[dict]) -> list[tuple[list[dict], dict]]:
        """Several scans in one JVM; each request holds scan options ({"snapshot": ID,
        "filter": FILTER_JSON_TEXT, "columns": "a,b"}). Returns (rows, read schema) each."""
        steps = []
        files = []
        for req in requests:
            f = lake.root / f"java-scan-schema-{uuid.uuid4().hex}.json"
            files.append(f)
            steps.append({"cmd": "scan", "args": dict(req, **{"schema-file": str(f)})})
        outs = self.script(lake, ident, steps)
        result = []
        for out, f in zip(outs, files):
            result.append((parse_jsonl(out), json.loads(f.read_text())))
            f.unlink()
        return result


# ----------------------------------------------------------------------------- PyIceberg

_TRANSFORM_RE = re.compile(r"^\s*(\w+)\s*(?:\(\s*(?:(\d+)\s*,\s*)?(\w+)\s*\))?\s*$")


def split_partition_by(text: str) -> list[str]:
    """'bucket(16, id), day(ts)' -> ['bucket(16, id)', 'day(ts)'] (commas inside parentheses kept)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_partition_field(text: str) -> tuple[str, int | None, str]:
    """'bucket(16, id)' -> ('bucket', 16, 'id'); 's' -> ('identity', None, 's')."""
    m = _TRANSFORM_RE.match(text)
    assert m, f"bad partition field {text!r}"
    if m.group(3) is None:
        return "identity", None, m.group(1)
    return m.group(1), int(m.group(2)) if m.group(2) else None, m.group(3)


def py_transform(kind: str, arg: int | None):
    from pyiceberg import transforms as T

    return {
        "identity": lambda: T.IdentityTransform(),
        "bucket": lambda: T.BucketTransform(arg),
        "truncate": lambda: T.TruncateTransform(arg),
        "year": lambda: T.YearTransform(),
        "month": lambda: T.MonthTransform(),
        "day": lambda: T.DayTransform(),
        "hour": lambda: T.HourTransform(),
        "void": lambda: T.VoidTransform(),
    }[kind]()


def partition_field_name(kind: str, arg: int | None, source: str) -> str:
    return {
        "identity": source,
        "bucket": f"{source}_bucket",
        "truncate": f"{source}_trunc",
        "void": f"{source}_null",
    }.get(kind, f"{source}_{kind}")


def py_schema(schema: dict):
    from pyiceberg.schema import Schema

    return Schema.model_validate_json(json.dumps(schema))


def py_spec(schema: dict, partition_by: str):
    from pyiceberg.partitioning import PartitionField, PartitionSpec

    ids = {f["name"]: f["id"] for f in schema["fields"]}
    fields = []
    for k, text in enumerate(split_partition_by(partition_by)):
        kind, arg, source = parse_partition_field(text)
        fields.append(
            PartitionField(
                source_id=ids[source],
                field_id=1000 + k,
                transform=py_transform(kind, arg),
                name=partition_field_name(kind, arg, source),
            )
        )
    return PartitionSpec(*fields)


def schema_json(py_schema_obj) -> dict:
    return json.loads(py_schema_obj.model_dump_json())


def py_arrow_table(table, rows: list[dict]):
    """Rows in floe's conventions -> a pyarrow Table in the PyIceberg table's current schema."""
    import pyarrow as pa
    from pyiceberg.io.pyarrow import schema_to_pyarrow

    schema = schema_json(table.schema())
    types = {f["name"]: f["type"] for f in schema["fields"]}
    arrow_schema = schema_to_pyarrow(table.schema())
    data = [{k: to_python(r.get(k), types[k]) for k in types} for r in rows]
    return pa.Table.from_pylist(data, schema=arrow_schema)


def py_scan(table, row_filter: str | None = None, columns: list[str] | None = None, snapshot_id: int | None = None):
    """PyIceberg's scan -> (rows in floe's conventions, the read schema as Iceberg JSON)."""
    kwargs: dict[str, Any] = {}
    if row_filter is not None:
        kwargs["row_filter"] = row_filter
    if columns is not None:
        kwargs["selected_fields"] = tuple(columns)
    if snapshot_id is not None:
        kwargs["snapshot_id"] = snapshot_id
    scan = table.scan(**kwargs)
    schema = schema_json(scan.projection())
    return arrow_rows(scan.to_arrow(), schema), schema


# ----------------------------------------------------------------------------- independent checks


def _internal(value: Any) -> Any:
    """A Python value from pyarrow/PyIceberg -> Iceberg's internal representation (days,
    micros) so transforms and manifest partition values compare."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        delta = value - dt.datetime(1970, 1, 1)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(value, dt.date):
        return (value - dt.date(1970, 1, 1)).days
    if isinstance(value, dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
    return value


def _partition_value(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return value.bytes
    if isinstance(value, decimal.Decimal):
        return value
    return _internal(value)


def live_files(table) -> list:
    """The live data and delete files (PyIceberg DataFile objects) of the current snapshot,
    read from its manifests (without planning a scan, which PyIceberg refuses with equality
    deletes)."""
    snapshot = table.current_snapshot()
    if snapshot is None:
        return []
    out = []
    for manifest in snapshot.manifests(table.io):
        for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=True):
            out.append(entry.data_file)
    return out


def check_partition_values(table, what: str) -> int:
    """Recomputes, for every live data file of the current snapshot, each partition field
    from the file's own rows (read with pyarrow by field id) using PyIceberg's transforms, and
    asserts the manifest's partition value equals it for every row. Returns the number of
    files checked. (Reads the manifests through PyIceberg's inspect tables, which also work
    where PyIceberg cannot scan, e.g. with equality deletes.)"""
    import pyarrow.parquet as pq

    checked = 0
    schema = table.schema()
    specs = table.specs()
    from pyiceberg.manifest import DataFileContent

    for f in live_files(table):
        if f.content != DataFileContent.DATA:
            continue
        spec = specs[f.spec_id]
        if not spec.fields:
            continue
        path = f.file_path
        arrow = pq.read_table(str(local_path(path)))
        by_id = {}
        for i, field in enumerate(arrow.schema):
            fid = (field.metadata or {}).get(b"PARQUET:field_id")
            if fid is not None:
                by_id[int(fid)] = arrow.column(i).to_pylist()
        for k, pf in enumerate(spec.fields):
            assert pf.source_id in by_id, f"{what}: {path} has no column with field id {pf.source_id}"
            source_type = schema.find_field(pf.source_id).field_type
            fn = pf.transform.transform(source_type)
            want_values = {
                _partition_value(fn(_partition_value(v)) if v is not None else None) for v in by_id[pf.source_id]
            }
            have = _partition_value(f.partition[k])
            assert want_values == {have}, (
                f"{what}: data file {path} (spec {f.spec_id}) has partition field "
                f"{pf.name}={have!r}, but its rows give {sorted(map(repr, want_values))[:5]}"
            )
        checked += 1
    return checked


TOTALS = [
    ("total-records", "added-records", "deleted-records"),
    ("total-data-files", "added-data-files", "deleted-data-files"),
    ("total-delete-files", "added-delete-files", "removed-delete-files"),
    ("total-position-deletes", "added-position-deletes", "removed-position-deletes"),
    ("total-equality-deletes", "added-equality-deletes", "removed-equality-deletes"),
    ("total-files-size", "added-files-size", "removed-files-size"),
]
REQUIRED_TOTALS = ["total-records", "total-data-files"]


def check_snapshot_totals(metadata: dict, what: str) -> None:
    """Every snapshot's summary totals = its parent's totals + added - removed (the first:
    its added counts); total-records and total-data-files are present in every snapshot."""
    snaps = {s["snapshot-id"]: s for s in metadata.get("snapshots", [])}
    for sid, s in snaps.items():
        summary = s.get("summary", {})
        for key in REQUIRED_TOTALS:
            assert key in summary, f"{what}: snapshot {sid} summary lacks {key}: {summary}"
        parent = snaps.get(s.get("parent-snapshot-id"))
        if s.get("parent-snapshot-id") is not None and parent is None:
            continue  # parent expired: nothing to compare with
        psum = parent.get("summary", {}) if parent else {}
        for total, added, removed in TOTALS:
            if total not in summary:
                continue
            before = int(psum.get(total, 0)) if parent else 0
            want = before + int(summary.get(added, 0)) - int(summary.get(removed, 0))
            assert int(summary[total]) == want, (
                f"{what}: snapshot {sid} has {total}={summary[total]}, but parent "
                f"{s.get('parent-snapshot-id')} has {before} and it adds {summary.get(added, 0)}, "
                f"removes {summary.get(removed, 0)}"
            )


def check_live_files(table, metadata: dict, what: str) -> None:
    """The current snapshot's total-data-files / total-records / total-delete-files match
    its live files, and every live data and delete file exists."""
    from pyiceberg.manifest import DataFileContent

    files = live_files(table)
    data = [f for f in files if f.content == DataFileContent.DATA]
    deletes = [f for f in files if f.content != DataFileContent.DATA]
    for f in files:
        assert local_path(f.file_path).exists(), f"{what}: live file {f.file_path} is missing"
    sid = metadata.get("current-snapshot-id")
    snap = next(s for s in metadata["snapshots"] if s["snapshot-id"] == sid)
    summary = snap["summary"]
    assert int(summary["total-data-files"]) == len(data), (
        f"{what}: total-data-files={summary['total-data-files']} but {len(data)} live data files"
    )
    records = sum(f.record_count for f in data)
    assert int(summary["total-records"]) == records, (
        f"{what}: total-records={summary['total-records']} but the live data files hold {records}"
    )
    if "total-delete-files" in summary:
        assert int(summary["total-delete-files"]) == len(deletes), (
            f"{what}: total-delete-files={summary['total-delete-files']} but {len(deletes)} live delete files"
        )


@contextlib.contextmanager
def cache_lock(name: str):
    """Holds .cache/NAME.lock (an exclusive flock) while a shared cache folder is built or
    checked: the tests run in several processes, and only one may build it while the
    others wait and then find it done."""
    path = REPO_ROOT / ".cache" / f"{name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def find_java_peer() -> JavaPeer:
    """Builds the peer if needed (scripts/java-peer.sh: ~0 s when cached) and returns it."""
    script = REPO_ROOT / "scripts" / "java-peer.sh"
    with cache_lock("java-peer"):
        proc = subprocess.run(["bash", str(script)], stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=1800)
    if proc.returncode != 0:
        pytest.fail(
            "scripts/java-peer.sh failed; the Iceberg Java peer is needed by these tests\n"
            + proc.stdout.decode(errors="replace")[-3000:]
            + proc.stderr.decode(errors="replace")[-3000:]
        )
    classpath = (JAVA_PEER_DIR / "classpath.txt").read_text().strip()
    return JavaPeer(classpath)


def env_flag(name: str) -> bool:
    return os.environ.get(name, "") == "1"


__all__ = [
    "Lake",
    "FloeTables",
    "JavaPeer",
    "py_schema",
    "py_spec",
    "py_arrow_table",
    "py_scan",
    "schema_json",
    "check_partition_values",
    "check_snapshot_totals",
    "check_live_files",
    "find_java_peer",
    "cache_lock",
    "split_partition_by",
    "parse_partition_field",
    "from_python",
]
