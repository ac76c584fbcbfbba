"""Avro interop: fastavro reads what floe writes, and floe reads what fastavro writes.

Run with the project's venv (tests/interop/requirements.txt):
    .cache/venv/bin/python -m pytest tests/interop/test_avro_interop.py
The floe binary is build/floe under the repository root, or $FLOE_BIN.

floe's JSON conventions (docs/avro.md): bytes and fixed as base64, enums as
symbols, unions as the plain value, NaN/Infinity as strings, logical types as
text (date "2024-02-29", timestamps "...T...+00:00", decimals "12.30", uuids).
"""

import base64
import datetime
import decimal
import io
import json
import math
import os
import pathlib
import subprocess
import uuid

import fastavro
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FLOE = pathlib.Path(os.environ.get("FLOE_BIN", ROOT / "build" / "floe"))

pytestmark = pytest.mark.skipif(not FLOE.exists(), reason=f"floe binary not found at {FLOE}")


def floe(*args, check=True):
    result = subprocess.run([str(FLOE), *map(str, args)], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"floe {' '.join(map(str, args))} failed: {result.stderr}")
    return result


def floe_cat(path, *extra):
    out = floe("avro", "cat", path, *extra).stdout
    return [json.loads(line) for line in out.splitlines()]


# --- Converting fastavro's Python values to floe's JSON conventions ---------

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


class Names:
    """Named types seen so far while walking a schema (fullname -> schema)."""

    def __init__(self):
        self.types = {}

    def resolve(self, schema, namespace):
        if isinstance(schema, str) and schema not in PRIMITIVES:
            if "." not in schema and namespace and f"{namespace}.{schema}" in self.types:
                return self.types[f"{namespace}.{schema}"], namespace
            return self.types[schema], namespace
        if isinstance(schema, dict) and schema.get("type") in ("record", "enum", "fixed"):
            name = schema["name"]
            ns = schema.get("namespace", namespace)
            full = name if "." in name else (f"{ns}.{name}" if ns else name)
            self.types.setdefault(full, schema)
            return schema, full.rpartition(".")[0]
        return schema, namespace


def type_of(schema):
    if isinstance(schema, str):
        return schema
    if isinstance(schema, list):
        return "union"
    t = schema["type"]
    return type_of(t) if not isinstance(t, str) else t


def branch_fits(schema, value, names, ns):
    schema, ns = names.resolve(schema, ns)
    t = type_of(schema)
    logical = schema.get("logicalType") if isinstance(schema, dict) else None
    if value is None:
        return t == "null"
    if logical == "decimal":
        return isinstance(value, decimal.Decimal)
    if logical == "uuid":
        return isinstance(value, (uuid.UUID, str)) and t in ("string", "fixed")
    if isinstance(value, datetime.datetime):
        return logical is not None and "timestamp" in logical
    if isinstance(value, datetime.date):
        return logical == "date"
    if isinstance(value, datetime.time):
        return logical is not None and logical.startswith("time-")
    if isinstance(value, bool):
        return t == "boolean"
    if isinstance(value, int):
        return t in ("int", "long")
    if isinstance(value, float):
        return t in ("float", "double")
    if isinstance(value, bytes):
        return t in ("bytes", "fixed")
    if isinstance(value, str):
        return t in ("string", "enum")
    if isinstance(value, list):
        return t == "array"
    if isinstance(value, dict):
        return t in ("record", "map")
    return False


def to_floe(schema, value, names=None, ns=""):
    """fastavro's Python value of `schema` as floe avro cat prints it."""
    names = names or Names()
    schema, ns = names.resolve(schema, ns)
    if isinstance(schema, list):
        for branch in schema:
            if branch_fits(branch, value, names, ns):
                return to_floe(branch, value, names, ns)
        raise AssertionError(f"no branch of {schema} fits {value!r}")
    t = type_of(schema)
    logical = schema.get("logicalType") if isinstance(schema, dict) else None
    if value is None:
        return None
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime.datetime):
        digits = "%f" if not logical.endswith("nanos") else "%f000"
        text = value.strftime("%Y-%m-%dT%H:%M:%S." + digits)
        return text + "+00:00" if value.tzinfo is not None else text
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, datetime.time):
        return value.strftime("%H:%M:%S.%f")
    if t in ("bytes", "fixed"):
        return base64.b64encode(value).decode()
    if t in ("float", "double"):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if t == "array":
        return [to_floe(schema["items"], v, names, ns) for v in value]
    if t == "map":
        return {k: to_floe(schema["values"], v, names, ns) for k, v in value.items()}
    if t == "record":
        return {f["name"]: to_floe(f["type"], value[f["name"]], names, ns) for f in schema["fields"]}
    return value


def fastavro_read(path, reader_schema=None):
    with open(path, "rb") as f:
        reader = fastavro.reader(f, reader_schema=reader_schema)
        return reader, list(reader)


# --- Schemas and data ---------------------------------------------------------

EVERY_TYPE = {
    "type": "record",
    "name": "every",
    "namespace": "floe.test",
    "fields": [
        {"name": "n", "type": "null"},
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "by", "type": "bytes"},
        {"name": "s", "type": "string"},
        {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "Four", "size": 4}},
        {"name": "arr", "type": {"type": "array", "items": ["null", "long"]}},
        {"name": "m", "type": {"type": "map", "values": "Color"}},
        {"name": "u", "type": ["null", "string", "double", "Four"]},
        {
            "name": "nested",
            "type": {
                "type": "record",
                "name": "Nested",
                "fields": [
                    {"name": "x", "type": "int"},
                    {"name": "tags", "type": {"type": "array", "items": "string"}},
                    {"name": "inner", "type": ["null", {
                        "type": "record", "name": "Inner",
                        "fields": [{"name": "z", "type": {"type": "map", "values": "bytes"}}]}]},
                ],
            },
        },
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tmillis", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tmicros", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsmillis", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsmicros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "localts", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 3}},
        {"name": "decfx", "type": {"type": "fixed", "name": "D9", "size": 9,
                                    "logicalType": "decimal", "precision": 20, "scale": 2}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "opt_ts", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
    ],
}

UTC = datetime.timezone.utc


def every_type_rows(n):
    rows = []
    for k in range(n):
        rows.append({
            "n": None,
            "b": k % 2 == 0,
            "i": -(2**31) if k == 1 else k * 7 - 3,
            "l": 2**63 - 1 if k == 2 else -k * 10**12,
            "f": [1.5, float("nan"), float("-inf"), 3.25][k % 4],
            "d": [0.1, -2.5e300, float("inf"), 1e-310][k % 4],
            "by": bytes(range(k % 7)) + b"\xff",
            "s": ["", "héllo", "日本", "quote\"back\\slash\nnl"][k % 4],
            "e": ["RED", "GREEN", "BLUE"][k % 3],
            "fx": bytes([k % 256, 1, 2, 255]),
            "arr": [None, k, -k] if k % 2 else [],
            "m": {f"k{j}": ["RED", "BLUE"][j % 2] for j in range(k % 3)},
            "u": [None, f"str{k}", k / 3, bytes([9, 9, 9, k % 256])][k % 4],
            "nested": {"x": k, "tags": [f"t{j}" for j in range(k % 4)],
                       "inner": None if k % 3 == 0 else {"z": {"a": b"\x00\x01", "b": b""}}},
            "date": datetime.date(2024, 2, 29) + datetime.timedelta(days=k * 400 - 20000),
            "tmillis": datetime.time(13, 45, k % 60, 123000),
            "tmicros": datetime.time(23, 59, 59, 999999 - k),
            "tsmillis": datetime.datetime(1969, 12, 31, 23, 59, 58, 999000, tzinfo=UTC)
            + datetime.timedelta(days=k * 1000),
            "tsmicros": datetime.datetime(2024, 2, 29, 13, 45, 0, k, tzinfo=UTC),
            "localts": datetime.datetime(2000, 1, 1, 0, 0, 0, 1) + datetime.timedelta(seconds=k),
            "dec": decimal.Decimal(k * 12345 - 50000) / 1000,
            "decfx": decimal.Decimal(-(10**17) + k) / 100,
            "uid": str(uuid.UUID(int=(k * 0x1234567890ABCDEF) % 2**128)),
            "opt_ts": None if k % 2 else datetime.datetime(2030, 1, 1, tzinfo=UTC),
        })
    return rows


CODECS = ["null", "deflate", "snappy", "zstandard"]


def require_codec(codec):
    """Skips when this fastavro cannot use `codec` (zstandard needs backports.zstd
    on Python < 3.14, snappy needs cramjam)."""
    try:
        fastavro.writer(io.BytesIO(), fastavro.parse_schema("int"), [1], codec=codec)
    except ValueError as e:
        pytest.skip(f"fastavro cannot use codec {codec}: {e}")


@pytest.mark.parametrize("codec", CODECS)
def test_floe_reads_what_fastavro_writes(tmp_path, codec):
    require_codec(codec)
    path = tmp_path / f"every_{codec}.avro"
    rows = every_type_rows(40)
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(EVERY_TYPE), rows, codec=codec,
                        sync_interval=2000, metadata={"origin": "fastavro"})
    _, expected = fastavro_read(path)
    got = floe_cat(path)
    assert len(got) == len(expected) == 40
    for k, (g, e) in enumerate(zip(got, expected)):
        assert g == to_floe(EVERY_TYPE, e), f"row {k}"
    assert len(floe_cat(path, "--limit", 3)) == 3

    info = json.loads(floe("avro", "schema", path).stdout)
    assert info["codec"] == codec
    assert info["metadata"]["origin"] == "fastavro"
    assert info["schema"]["name"] == "every"


# An Iceberg manifest-list-like schema with ids on fields, elements, keys and values.
ICEBERG_SCHEMA = {
    "type": "record",
    "name": "manifest_file",
    "fields": [
        {"name": "manifest_path", "type": "string", "doc": "Location URI", "field-id": 500},
        {"name": "manifest_length", "type": "long", "field-id": 501},
        {"name": "content", "type": "int", "field-id": 517, "default": 0},
        {"name": "added_snapshot_id", "type": ["null", "long"], "default": None, "field-id": 503},
        {"name": "partitions", "type": ["null", {
            "type": "array", "element-id": 508,
            "items": {"type": "record", "name": "r508", "fields": [
                {"name": "contains_null", "type": "boolean", "field-id": 509},
                {"name": "lower_bound", "type": ["null", "bytes"], "default": None, "field-id": 510},
            ]},
        }], "default": None, "field-id": 507},
        {"name": "counts", "type": {"type": "array", "logicalType": "map", "items": {
            "type": "record", "name": "k1_v2", "fields": [
                {"name": "key", "type": "int", "field-id": 1},
                {"name": "value", "type": "long", "field-id": 2}]}}, "field-id": 3},
        {"name": "props", "type": {"type": "map", "values": "string", "key-id": 4, "value-id": 5},
         "field-id": 6},
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros",
                                "adjust-to-utc": True}, "field-id": 7},
    ],
}

ICEBERG_ROWS_JSON = [
    {"manifest_path": "s3://b/m0.avro", "manifest_length": 1234, "content": 0,
     "added_snapshot_id": 8744736658442914487,
     "partitions": [{"contains_null": False, "lower_bound": base64.b64encode(b"\x01\x00\x00\x00").decode()},
                    {"contains_null": True, "lower_bound": None}],
     "counts": [{"key": 1, "value": 100}], "props": {"a": "b"}, "ts": 1709214300000001},
    {"manifest_path": "s3://b/m1.avro", "manifest_length": 99, "content": 1,
     "added_snapshot_id": None, "partitions": None, "counts": [], "props": {}, "ts": -1},
    # Missing optional fields take their defaults.
    {"manifest_path": "s3://b/m2.avro", "manifest_length": 0, "counts": [], "props": {}, "ts": 0},
]


def expected_iceberg_row(row):
    out = dict(row)
    out.setdefault("content", 0)
    out.setdefault("added_snapshot_id", None)
    out.setdefault("partitions", None)
    if out["partitions"]:
        out["partitions"] = [
            {"contains_null": p["contains_null"],
             "lower_bound": None if p["lower_bound"] is None else base64.b64decode(p["lower_bound"])}
            for p in out["partitions"]]
    out["ts"] = datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(microseconds=out["ts"])
    return out


@pytest.mark.parametrize("codec", CODECS)
def test_fastavro_reads_what_floe_writes(tmp_path, codec):
    require_codec(codec)
    schema_path = tmp_path / "manifest_file.avsc"
    schema_path.write_text(json.dumps(ICEBERG_SCHEMA))
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in ICEBERG_ROWS_JSON * 50) + "\n")
    out = tmp_path / f"m_{codec}.avro"
    iceberg_schema_json = json.dumps({"type": "struct", "schema-id": 0, "fields": []})
    floe("avro", "write", "--schema", schema_path, "--codec", codec, "--block-size", 512,
         "--meta", f"schema={iceberg_schema_json}", "--meta", "format-version=2",
         "--meta", "content=data", "--meta", "partition-spec=[]", jsonl, out)

    reader, rows = fastavro_read(out)
    assert reader.codec == codec
    assert reader.metadata["format-version"] == "2"
    assert reader.metadata["content"] == "data"
    assert reader.metadata["partition-spec"] == "[]"
    assert json.loads(reader.metadata["schema"]) == json.loads(iceberg_schema_json)
    # The schema comes back with every property (field-id, element-id, key-id, ...).
    assert json.loads(reader.metadata["avro.schema"]) == ICEBERG_SCHEMA
    assert len(rows) == 150
    for k, row in enumerate(rows):
        assert row == expected_iceberg_row(ICEBERG_ROWS_JSON[k % 3]), f"row {k}"

    # And floe reads its own file back to the same JSON (raw mode: as written).
    raw = floe_cat(out, "--raw")
    assert raw[0]["partitions"][0]["lower_bound"] == ICEBERG_ROWS_JSON[0]["partitions"][0]["lower_bound"]
    assert raw[0]["ts"] == 1709214300000001
    assert floe_cat(out)[0]["ts"] == "2024-02-29T13:45:00.000001+00:00"


def test_every_type_round_trips_through_floe_write(tmp_path):
    # fastavro writes, floe cat --raw prints, floe write re-encodes, fastavro reads it equal.
    src = tmp_path / "src.avro"
    rows = every_type_rows(12)
    with open(src, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(EVERY_TYPE), rows, codec="deflate")
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text(floe("avro", "cat", "--raw", src).stdout)
    schema_path = tmp_path / "every.avsc"
    schema_path.write_text(floe("avro", "schema", "--schema-only", src).stdout)
    dst = tmp_path / "dst.avro"
    floe("avro", "write", "--schema", schema_path, "--codec", "snappy", jsonl, dst)
    _, a = fastavro_read(src)
    _, b = fastavro_read(dst)
    assert [to_floe(EVERY_TYPE, r) for r in a] == [to_floe(EVERY_TYPE, r) for r in b]


WRITER_V1 = {
    "type": "record", "name": "event", "fields": [
        {"name": "id", "type": "int"},
        {"name": "score", "type": "float"},
        {"name": "name", "type": "string"},
        {"name": "payload", "type": "bytes"},
        {"name": "level", "type": {"type": "enum", "name": "Level", "symbols": ["LOW", "MID", "HIGH"]}},
        {"name": "dropped", "type": {"type": "array", "items": {"type": "map", "values": "long"}}},
        {"name": "maybe", "type": ["null", "int"]},
        {"name": "sizes", "type": {"type": "array", "items": "int"}},
        {"name": "plain", "type": "long"},
    ],
}

READER_V2 = {
    "type": "record", "name": "event", "fields": [
        {"name": "plain", "type": ["null", "long"]},
        {"name": "level", "type": {"type": "enum", "name": "Level",
                                   "symbols": ["HIGH", "LOW", "OTHER"], "default": "OTHER"}},
        {"name": "id", "type": "long"},
        {"name": "score", "type": "double"},
        {"name": "label", "aliases": ["name"], "type": "bytes"},
        {"name": "payload", "type": "string"},
        {"name": "maybe", "type": ["null", "double"]},
        {"name": "sizes", "type": {"type": "array", "items": "double"}},
        {"name": "added", "type": "string", "default": "none"},
        {"name": "added_rec", "type": {"type": "record", "name": "Extra", "fields": [
            {"name": "q", "type": "int", "default": 5}]}, "default": {"q": 6}},
    ],
}


def test_reader_schema_resolution_matches_fastavro(tmp_path):
    path = tmp_path / "events.avro"
    rows = [{"id": k, "score": k / 4, "name": f"n{k}", "payload": f"p{k}".encode(),
             "level": ["LOW", "MID", "HIGH"][k % 3], "dropped": [{"a": k}],
             "maybe": None if k % 2 else k, "sizes": list(range(k % 5)), "plain": -k}
            for k in range(30)]
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(WRITER_V1), rows, codec="null")
    reader_path = tmp_path / "v2.avsc"
    reader_path.write_text(json.dumps(READER_V2))
    _, expected = fastavro_read(path, reader_schema=fastavro.parse_schema(READER_V2))
    got = floe_cat(path, "--reader-schema", reader_path)
    assert len(got) == 30
    for k, (g, e) in enumerate(zip(got, expected)):
        assert g == to_floe(READER_V2, e), f"row {k}"
    # Spot checks that do not depend on the converter.
    assert got[1]["level"] == "OTHER" and got[2]["level"] == "HIGH"
    assert got[3]["label"] == base64.b64encode(b"n3").decode()
    assert got[0]["added_rec"] == {"q": 6}


def test_incompatible_reader_schema_is_an_error(tmp_path):
    path = tmp_path / "e.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(WRITER_V1), [], codec="null")
    bad = tmp_path / "bad.avsc"
    bad.write_text(json.dumps({"type": "record", "name": "event", "fields": [
        {"name": "required_new", "type": "int"}]}))
    result = floe("avro", "cat", path, "--reader-schema", bad, check=False)
    assert result.returncode == 1
    assert result.stderr.startswith("error: ")
    assert "required_new" in result.stderr


def test_corrupt_files_fail_cleanly(tmp_path):
    good = tmp_path / "good.avro"
    with open(good, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(WRITER_V1),
                        [{"id": 1, "score": 1.0, "name": "x", "payload": b"", "level": "LOW",
                          "dropped": [], "maybe": None, "sizes": [], "plain": 1}] * 100)
    data = good.read_bytes()
    cases = {
        "magic": b"XXXX" + data[4:],
        "truncated": data[: len(data) - 7],
        "sync": data[:-1] + bytes([data[-1] ^ 1]),
    }
    for name, bad in cases.items():
        path = tmp_path / f"{name}.avro"
        path.write_bytes(bad)
        result = floe("avro", "cat", path, check=False)
        assert result.returncode == 1, name
        assert result.stderr.startswith("error: corruption: "), (name, result.stderr)
        assert str(path) in result.stderr, (name, result.stderr)
