"""Manifest interop: fastavro and PyIceberg read the manifests floe writes.

Run with the project's venv (tests/interop/requirements.txt):
    .cache/venv/bin/python -m pytest tests/interop/test_manifest_interop.py

The gtest ManifestInteropTest.WriteTableForReferenceReaders (in the binary
floe_iceberg_tests: build/src/floe/iceberg/floe_iceberg_tests under the
repository root or the newest build*/ folder, or $FLOE_ICEBERG_TESTS) writes a small v2 table into
$FLOE_INTEROP_OUT/floe_manifests: two snapshots whose manifest lists hold a
data manifest (every partition transform's result type), a position-delete
manifest and an equality-delete manifest, a metadata file, and expected.json
with every entry as floe reads it back. This test checks:
  - with fastavro: the Avro schemas carry exactly the spec's field names and
    field ids (manifest_entry, r2, r102, kNNN_vMMM maps, manifest_file, r508),
    and the key-value metadata the spec requires;
  - with PyIceberg: StaticTable reads the metadata, every manifest-list entry
    and every manifest entry, with values equal to floe's; plan_files pairs
    the position deletes with their data file.
The other direction (floe reads PyIceberg's manifests) is the gtest
ManifestInteropTest.ReadsManifestsPyIcebergWrote, over the golden files in
tests/data/iceberg/manifests/ (made by make_pyiceberg_manifests.py there).
"""

import datetime
import decimal
import json
import os
import pathlib
import subprocess
import uuid

import fastavro
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _find_tests_binary():
    if "FLOE_ICEBERG_TESTS" in os.environ:
        return pathlib.Path(os.environ["FLOE_ICEBERG_TESTS"])
    # The most recently built of build*/ (each engineer has a build folder).
    candidates = sorted(ROOT.glob("build*/src/floe/iceberg/floe_iceberg_tests"),
                        key=lambda p: p.stat().st_mtime, reverse=True)
    return candidates[0] if candidates else ROOT / "build" / "src/floe/iceberg/floe_iceberg_tests"


TESTS_BIN = _find_tests_binary()
pytestmark = pytest.mark.skipif(not TESTS_BIN.exists(),
                                reason=f"floe_iceberg_tests not found at {TESTS_BIN}")


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    out = tmp_path_factory.mktemp("manifest_interop")
    env = dict(os.environ, FLOE_INTEROP_OUT=str(out))
    result = subprocess.run(
        [str(TESTS_BIN), "--gtest_filter=ManifestInteropTest.Write*"],
        env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    found = {}
    for name in ("floe_manifests", "floe_manifests_v1"):
        folder = out / name
        assert (folder / "expected.json").exists(), result.stdout
        found[name] = (folder, json.loads((folder / "expected.json").read_text()))
    return found


@pytest.fixture(scope="module")
def table(tables):
    return tables["floe_manifests"]


@pytest.fixture(scope="module", params=["floe_manifests", "floe_manifests_v1"])
def any_table(tables, request):
    return tables[request.param]


# --- The spec's Avro schemas -------------------------------------------------

OPT = "optional"
REQ = "required"

MANIFEST_ENTRY_V2 = [("status", 0, REQ), ("snapshot_id", 1, OPT), ("sequence_number", 3, OPT),
                     ("file_sequence_number", 4, OPT), ("data_file", 2, REQ)]
DATA_FILE_V2 = [("content", 134, REQ), ("file_path", 100, REQ), ("file_format", 101, REQ),
                ("partition", 102, REQ), ("record_count", 103, REQ),
                ("file_size_in_bytes", 104, REQ), ("column_sizes", 108, OPT),
                ("value_counts", 109, OPT), ("null_value_counts", 110, OPT),
                ("nan_value_counts", 137, OPT), ("lower_bounds", 125, OPT),
                ("upper_bounds", 128, OPT), ("key_metadata", 131, OPT),
                ("split_offsets", 132, OPT), ("equality_ids", 135, OPT),
                ("sort_order_id", 140, OPT)]
MAP_IDS = {"column_sizes": (117, 118, "long"), "value_counts": (119, 120, "long"),
           "null_value_counts": (121, 122, "long"), "nan_value_counts": (138, 139, "long"),
           "lower_bounds": (126, 127, "bytes"), "upper_bounds": (129, 130, "bytes")}
MANIFEST_FILE_V2 = [("manifest_path", 500, REQ), ("manifest_length", 501, REQ),
                    ("partition_spec_id", 502, REQ), ("content", 517, REQ),
                    ("sequence_number", 515, REQ), ("min_sequence_number", 516, REQ),
                    ("added_snapshot_id", 503, REQ), ("added_files_count", 504, REQ),
                    ("existing_files_count", 505, REQ), ("deleted_files_count", 506, REQ),
                    ("added_rows_count", 512, REQ), ("existing_rows_count", 513, REQ),
                    ("deleted_rows_count", 514, REQ), ("partitions", 507, OPT),
                    ("key_metadata", 519, OPT)]
FIELD_SUMMARY = [("contains_null", 509, REQ), ("contains_nan", 518, OPT),
                 ("lower_bound", 510, OPT), ("upper_bound", 511, OPT)]


def check_fields(record, expected):
    got = [(f["name"], f["field-id"], OPT if isinstance(f["type"], list) else REQ)
           for f in record["fields"]]
    assert got == expected
    for f in record["fields"]:
        if isinstance(f["type"], list):
            assert f["type"][0] == "null" and "default" in f and f["default"] is None, f


def branch(field):
    return field["type"][1] if isinstance(field["type"], list) else field["type"]


def avro_schema(path):
    # fastavro's parsed writer_schema renames; read the raw header schema instead.
    with open(path, "rb") as fo:
        reader = fastavro.reader(fo)
        meta = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in reader.metadata.items()}
        records = list(reader)
    return json.loads(meta["avro.schema"]), meta, records


def manifest_paths(expected):
    paths = []
    for manifests in expected["snapshots"].values():
        for m in manifests:
            if m["manifest_path"] not in paths:
                paths.append(m["manifest_path"])
    return paths


def test_manifest_schemas_follow_the_spec(table):
    folder, expected = table
    metadata = json.loads(pathlib.Path(expected["metadata"]).read_text())
    spec = next(s for s in metadata["partition-specs"] if s["spec-id"] == 1)
    for path in manifest_paths(expected):
        schema, meta, records = avro_schema(path)
        assert schema["name"] == "manifest_entry"
        check_fields(schema, MANIFEST_ENTRY_V2)
        data_file = schema["fields"][4]["type"]
        assert data_file["name"] == "r2"
        check_fields(data_file, DATA_FILE_V2)
        by_name = {f["name"]: f for f in data_file["fields"]}
        for name, (key_id, value_id, value_type) in MAP_IDS.items():
            arr = branch(by_name[name])
            assert arr["type"] == "array" and arr["logicalType"] == "map"
            assert arr["items"]["name"] == f"k{key_id}_v{value_id}"
            assert [(f["name"], f["field-id"], f["type"]) for f in arr["items"]["fields"]] == \
                [("key", key_id, "int"), ("value", value_id, value_type)]
        assert branch(by_name["split_offsets"])["element-id"] == 133
        assert branch(by_name["equality_ids"])["element-id"] == 136
        partition = by_name["partition"]["type"]
        assert partition["name"] == "r102"
        assert [f["field-id"] for f in partition["fields"]] == [f["field-id"] for f in spec["fields"]]
        assert [f["name"] for f in partition["fields"]] == [f["name"] for f in spec["fields"]]
        # Key-value metadata.
        assert meta["format-version"] == "2"
        assert meta["partition-spec-id"] == "1"
        assert meta["schema-id"] == "0"
        assert json.loads(meta["partition-spec"]) == spec["fields"]
        assert json.loads(meta["schema"])["fields"] == metadata["schemas"][0]["fields"]
        assert meta["content"] in ("data", "deletes")
        assert len(records) >= 1
    # The partition types of the data manifest, per the spec's Avro mapping.
    schema, _, _ = avro_schema(manifest_paths(expected)[0])
    types = {f["name"]: branch(f) for f in schema["fields"][4]["type"]["fields"][3]["type"]["fields"]}
    assert types["id"] == "long" and types["i"] == "int" and types["flag"] == "boolean"
    assert types["f"] == "float" and types["d"] == "double" and types["s"] == "string"
    assert types["bin"] == "bytes"
    assert types["day"] == {"type": "int", "logicalType": "date"}
    assert types["ts_day"] == {"type": "int", "logicalType": "date"}
    assert types["t"] == {"type": "long", "logicalType": "time-micros"}
    assert types["ts"] == {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False}
    assert types["tstz"] == {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": True}
    assert types["amount"] == {"type": "fixed", "name": "decimal_9_2", "size": 4,
                               "logicalType": "decimal", "precision": 9, "scale": 2}
    assert types["big"]["size"] == 16 and types["big"]["precision"] == 38
    assert types["u"] == {"type": "fixed", "name": "uuid_fixed", "size": 16, "logicalType": "uuid"}
    assert types["fx"] == {"type": "fixed", "name": "fixed_4", "size": 4}
    for name in ("id_bucket", "ts_year", "tstz_month", "tstz_hour", "i_null"):
        assert types[name] == "int", name


def test_v1_manifest_schemas(tables):
    folder, expected = tables["floe_manifests_v1"]
    metadata = json.loads(pathlib.Path(expected["metadata"]).read_text())
    for snap in metadata["snapshots"]:
        schema, meta, records = avro_schema(snap["manifest-list"])
        assert [f["field-id"] for f in schema["fields"]] == \
            [500, 501, 502, 503, 504, 505, 506, 512, 513, 514, 507, 519]
        assert "sequence-number" not in meta and meta["format-version"] == "1"
    for path in manifest_paths(expected):
        schema, meta, records = avro_schema(path)
        check_fields(schema, [("status", 0, REQ), ("snapshot_id", 1, REQ), ("data_file", 2, REQ)])
        ids = [f["field-id"] for f in schema["fields"][2]["type"]["fields"]]
        assert ids == [100, 101, 102, 103, 104, 105, 108, 109, 110, 137, 125, 128, 131, 132, 140]
        assert meta["format-version"] == "1" and "content" not in meta
        assert all(r["data_file"]["block_size_in_bytes"] == 64 * 1024 * 1024 for r in records)


def test_manifest_list_schema_and_metadata(table):
    folder, expected = table
    metadata = json.loads(pathlib.Path(expected["metadata"]).read_text())
    for snap in metadata["snapshots"]:
        schema, meta, records = avro_schema(snap["manifest-list"])
        assert schema["name"] == "manifest_file"
        check_fields(schema, MANIFEST_FILE_V2)
        parts = schema["fields"][13]["type"][1]
        assert parts["element-id"] == 508 and parts["items"]["name"] == "r508"
        check_fields(parts["items"], FIELD_SUMMARY)
        assert meta["snapshot-id"] == str(snap["snapshot-id"])
        assert meta["parent-snapshot-id"] == str(snap.get("parent-snapshot-id", "null"))
        assert meta["sequence-number"] == str(snap["sequence-number"])
        assert meta["format-version"] == "2"
        want = expected["snapshots"][str(snap["snapshot-id"])]
        assert len(records) == len(want)
        for rec, m in zip(records, want):
            for key in ("manifest_path", "manifest_length", "partition_spec_id", "content",
                        "sequence_number", "min_sequence_number", "added_snapshot_id",
                        "added_files_count", "existing_files_count", "deleted_files_count",
                        "added_rows_count", "existing_rows_count", "deleted_rows_count"):
                assert rec[key] == m[key], key
            got = [{"contains_null": p["contains_null"], "contains_nan": p["contains_nan"],
                    "lower_bound": p["lower_bound"].hex() if p["lower_bound"] is not None else None,
                    "upper_bound": p["upper_bound"].hex() if p["upper_bound"] is not None else None}
                   for p in rec["partitions"]]
            assert got == m["partitions"]


# --- PyIceberg ----------------------------------------------------------------

def py_value(v):
    """PyIceberg's partition value in floe's expected.json form."""
    if v is None or isinstance(v, bool | int | float):
        return v
    if isinstance(v, datetime.datetime):
        epoch = datetime.datetime(1970, 1, 1, tzinfo=v.tzinfo)
        return (v - epoch) // datetime.timedelta(microseconds=1)
    if isinstance(v, datetime.date):
        return (v - datetime.date(1970, 1, 1)).days
    if isinstance(v, datetime.time):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    if isinstance(v, decimal.Decimal):
        return str(int(v.scaleb(-v.as_tuple().exponent)))
    if isinstance(v, str):
        return v.encode().hex()
    if isinstance(v, uuid.UUID):
        return v.bytes.hex()
    if isinstance(v, bytes | bytearray):
        return bytes(v).hex()
    raise TypeError(f"{type(v)}: {v!r}")


def same_number(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a == pytest.approx(b, rel=1e-7)
    return a == b


def test_pyiceberg_reads_every_entry(any_table):
    from pyiceberg.table import StaticTable

    folder, expected = any_table
    tbl = StaticTable.from_metadata(expected["metadata"])
    assert tbl.metadata.format_version == expected["format_version"]
    assert tbl.metadata.current_snapshot_id == max(int(s) for s in expected["snapshots"])
    names = {s.spec_id: [f.name for f in s.fields] for s in tbl.metadata.partition_specs}
    for snap in tbl.metadata.snapshots:
        want = expected["snapshots"][str(snap.snapshot_id)]
        manifests = snap.manifests(tbl.io)
        assert len(manifests) == len(want)
        for m, wm in zip(manifests, want):
            assert m.manifest_path == wm["manifest_path"]
            assert m.manifest_length == wm["manifest_length"]
            assert int(m.content) == wm["content"]
            assert m.sequence_number == wm["sequence_number"]
            assert m.min_sequence_number == wm["min_sequence_number"]
            assert m.added_snapshot_id == wm["added_snapshot_id"]
            assert m.added_files_count == wm["added_files_count"]
            assert m.added_rows_count == wm["added_rows_count"]
            entries = m.fetch_manifest_entry(tbl.io, discard_deleted=False)
            assert len(entries) == len(wm["entries"])
            for e, we in zip(entries, wm["entries"]):
                f = e.data_file
                assert int(e.status) == we["status"]
                assert e.snapshot_id == we["snapshot_id"]
                assert e.sequence_number == we["sequence_number"]
                assert e.file_sequence_number == we["file_sequence_number"]
                assert int(f.content) == we["content"]
                assert f.file_path == we["file_path"]
                assert f.file_format.value.lower() == we["file_format"]
                assert f.record_count == we["record_count"]
                assert f.file_size_in_bytes == we["file_size_in_bytes"]
                assert {str(k): v for k, v in (f.column_sizes or {}).items()} == we["column_sizes"]
                assert {str(k): v for k, v in (f.value_counts or {}).items()} == we["value_counts"]
                assert {str(k): v for k, v in (f.null_value_counts or {}).items()} == we["null_value_counts"]
                assert {str(k): v for k, v in (f.nan_value_counts or {}).items()} == we["nan_value_counts"]
                assert {str(k): bytes(v).hex() for k, v in (f.lower_bounds or {}).items()} == we["lower_bounds"]
                assert {str(k): bytes(v).hex() for k, v in (f.upper_bounds or {}).items()} == we["upper_bounds"]
                assert (bytes(f.key_metadata).hex() if f.key_metadata is not None else None) == we["key_metadata"]
                assert list(f.split_offsets or []) == we["split_offsets"]
                assert list(f.equality_ids or []) == we["equality_ids"]
                assert f.sort_order_id == we["sort_order_id"]
                field_names = names[m.partition_spec_id]
                got = {n: py_value(f.partition[i]) for i, n in enumerate(field_names)}
                for n, wv in we["partition"].items():
                    assert same_number(got[n], wv) if isinstance(wv, float) else got[n] == wv, \
                        (f.file_path, n, got[n], wv)


def test_pyiceberg_plans_files_with_position_deletes(table):
    from pyiceberg.table import StaticTable

    folder, expected = table
    tbl = StaticTable.from_metadata(expected["metadata"])
    tasks = list(tbl.scan(snapshot_id=1001).plan_files())
    by_path = {t.file.file_path: t for t in tasks}
    data = [e["file_path"] for m in expected["snapshots"]["1001"] for e in m["entries"]
            if e["content"] == 0]
    assert sorted(by_path) == sorted(data)
    pos = [e["file_path"] for m in expected["snapshots"]["1001"] for e in m["entries"]
           if e["content"] == 1]
    file1 = next(p for p in data if p.endswith("file-1.parquet"))
    assert [d.file_path for d in by_path[file1].delete_files] == pos
    for p in data:
        if p != file1:
            assert not by_path[p].delete_files, p
