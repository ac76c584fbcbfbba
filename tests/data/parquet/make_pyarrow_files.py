#!/usr/bin/env python3
"""Writes the golden Parquet files under tests/data/parquet/pyarrow/ with pyarrow,
and next to each `<name>.parquet` a `<name>.jsonl` with the rows pyarrow holds,
written in floe's JSON row conventions (docs/json-rows.md), which the reader
tests compare with what floe reads.

Run from the repository root, in a test-only virtualenv:
    python3 -m venv .cache/venv && .cache/venv/bin/pip install pyarrow
    .cache/venv/bin/python tests/data/parquet/make_pyarrow_files.py
The data is deterministic (formulas of the row number); re-running rewrites
identical rows (the files' created_by may name another pyarrow version).
"""

import base64
import datetime
import decimal
import json
import math
import os
import struct
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyarrow")
N = 120


def null_at(i, k):
    return (i + k) % 11 == 0


def col(values, k, typ):
    return pa.array([None if null_at(i, k) else v for i, v in enumerate(values)], type=typ)


def flat_table():
    r = range(N)
    cols = {
        "id": pa.array(list(r), type=pa.int64()),
        "b": col([i % 3 == 0 for i in r], 1, pa.bool_()),
        "i8": col([(i % 256) - 128 for i in r], 2, pa.int8()),
        "i16": col([i * 7 - 400 for i in r], 3, pa.int16()),
        "i32": col([i * 100003 - 5000000 for i in r], 4, pa.int32()),
        "i64": col([i * 10**12 - 7 for i in r], 5, pa.int64()),
        "u32": col([(i * 16777259) % 2**32 for i in r], 6, pa.uint32()),
        "f32": col([i * 0.5 - 3.25 for i in r], 7, pa.float32()),
        "f64": col([i * 1.25e-3 - 0.1 for i in r], 8, pa.float64()),
        "s": col(["prefix_%d" % (i * i) for i in r], 9, pa.string()),
        "bin": col([bytes([i % 256, (i * 3) % 256]) for i in r], 10, pa.binary()),
        "fx4": col([struct.pack("<I", (i * 2654435761) % 2**32) for i in r], 0, pa.binary(4)),
        "d9": col([decimal.Decimal(i * 123 - 5000).scaleb(-2) for i in r], 1, pa.decimal128(9, 2)),
        "d18": col([decimal.Decimal(i * 10**10 + 3).scaleb(-4) for i in r], 2, pa.decimal128(18, 4)),
        "d30": col([decimal.Decimal((i * 10**20 + 12345) * (-1 if i % 2 else 1)).scaleb(-5)
                    for i in r], 3, pa.decimal128(30, 5)),
        "date": col([i * 37 - 3000 for i in r], 4, pa.date32()),
        "t_ms": col([(i * 1234567) % 86400000 for i in r], 5, pa.time32("ms")),
        "t_us": col([(i * 1234567891) % 86400000000 for i in r], 6, pa.time64("us")),
        "ts_ms": col([i * 86400123 - 10**11 for i in r], 7, pa.timestamp("ms")),
        "ts_us_utc": col([i * 3600000001 for i in r], 8, pa.timestamp("us", tz="UTC")),
        "ts_ns": col([i * 1000000007000 - 5 * 10**12 for i in r], 9, pa.timestamp("ns")),
        "uuid": col([bytes((i * 17 + k) % 256 for k in range(16)) for i in r], 10, pa.uuid()),
    }
    # float16 has no Iceberg type; floe reads it as float. Built from buffers
    # (no numpy needed).
    valid = [not null_at(i, 0) for i in r]
    bitmap = bytearray((N + 7) // 8)
    for i, ok in enumerate(valid):
        if ok:
            bitmap[i // 8] |= 1 << (i % 8)
    halfs = b"".join(struct.pack("<e", i * 0.25 - 10) for i in r)
    cols["f16"] = pa.Array.from_buffers(pa.float16(), N, [pa.py_buffer(bytes(bitmap)),
                                                           pa.py_buffer(halfs)])
    fields = [pa.field(k, v.type, nullable=(k != "id")) for k, v in cols.items()]
    return pa.Table.from_arrays(list(cols.values()), schema=pa.schema(fields))


def nested_table():
    rows = []
    for i in range(N):
        m = i % 6
        st = None if m == 1 else {"x": None if m == 2 else i, "y": "y%d" % i}
        lst = None if m == 3 else ([] if m == 4 else [i + k if (i + k) % 5 else None
                                                     for k in range(i % 4 + 1)])
        los = None if m == 0 else [{"a": i * 10 + k, "b": None if k == 1 else "b%d" % k}
                                   for k in range(i % 3)]
        mp = None if m == 5 else [("k%d" % k, None if (i + k) % 4 == 0 else i * k)
                                  for k in range(i % 3)]
        lol = None if m == 2 else [[i, None] if k % 2 else [] for k in range(i % 3 + 1)]
        deep = None if m == 4 else {"inner": {"v": [i, -i] if i % 2 else None}}
        rows.append({"id": i, "st": st, "lst": lst, "los": los, "mp": mp, "lol": lol,
                     "deep": deep})
    schema = pa.schema([
        pa.field("id", pa.int32(), nullable=False),
        pa.field("st", pa.struct([("x", pa.int64()), ("y", pa.string())])),
        pa.field("lst", pa.list_(pa.int32())),
        pa.field("los", pa.list_(pa.struct([("a", pa.int64()), ("b", pa.string())]))),
        pa.field("mp", pa.map_(pa.string(), pa.int64())),
        pa.field("lol", pa.list_(pa.list_(pa.int32()))),
        pa.field("deep", pa.struct([("inner", pa.struct([("v", pa.list_(pa.int64()))]))])),
    ])
    return pa.Table.from_pylist(rows, schema=schema)


# ---------------------------------------------------------------- JSON in floe's conventions

def fmt_float32(v):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    v32 = struct.unpack("<f", struct.pack("<f", v))[0]
    for digits in range(1, 10):
        text = "%.*g" % (digits, v32)
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == v32:
            return float(text)
    return v32


def fmt_double(v):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


EPOCH = datetime.datetime(1970, 1, 1)


def ts_text(micros, utc):
    t = EPOCH + datetime.timedelta(microseconds=micros)
    s = t.strftime("%Y-%m-%dT%H:%M:%S") + ".%06d" % t.microsecond
    return s + ("+00:00" if utc else "")


def to_json(typ, v):
    if v is None:
        return None
    if pa.types.is_boolean(typ):
        return bool(v)
    if pa.types.is_integer(typ):
        return int(v)
    if pa.types.is_float16(typ) or pa.types.is_float32(typ):
        return fmt_float32(float(v))
    if pa.types.is_float64(typ):
        return fmt_double(v)
    if pa.types.is_decimal(typ):
        return "{:f}".format(v.quantize(decimal.Decimal(1).scaleb(-typ.scale)))
    if pa.types.is_date32(typ):
        return v.isoformat()
    if pa.types.is_time(typ):
        return v.strftime("%H:%M:%S") + ".%06d" % v.microsecond
    if pa.types.is_timestamp(typ):
        return ts_text(v, typ.tz is not None)
    if pa.types.is_string(typ):
        return v
    if isinstance(typ, pa.UuidType) or str(typ) == "extension<arrow.uuid>":
        return str(v if isinstance(v, uuid.UUID) else uuid.UUID(bytes=bytes(v)))
    if pa.types.is_binary(typ) or pa.types.is_fixed_size_binary(typ):
        return base64.b64encode(v).decode()
    if pa.types.is_struct(typ):
        return {typ.field(k).name: to_json(typ.field(k).type, v[typ.field(k).name])
                for k in range(typ.num_fields)}
    if pa.types.is_map(typ):
        return [{"key": to_json(typ.key_type, k), "value": to_json(typ.item_type, x)}
                for k, x in v]
    if pa.types.is_list(typ):
        return [to_json(typ.value_type, x) for x in v]
    raise TypeError(str(typ))


def raw_values(column):
    """Python values, with timestamps as integer micros (ns floored)."""
    typ = column.type
    if pa.types.is_timestamp(typ):
        ints = column.cast(pa.int64()).to_pylist()
        div = {"s": None, "ms": None, "us": 1, "ns": 1000}[typ.unit]
        mul = {"s": 1000000, "ms": 1000, "us": 1, "ns": 1}[typ.unit]
        return [None if x is None else (x // div if div else x * mul) for x in ints]
    if isinstance(typ, pa.ExtensionType):
        return column.storage.to_pylist() if hasattr(column, "storage") else \
            pa.chunked_array([c.storage for c in column.chunks]).to_pylist()
    return column.to_pylist()


def write_jsonl(table, path, int96=False):
    cols = []
    for name in table.column_names:
        c = table.column(name)
        cols.append((name, c.type, raw_values(c)))
    with open(path, "w") as f:
        for i in range(table.num_rows):
            row = {}
            for name, typ, vals in cols:
                if int96 and pa.types.is_timestamp(typ):
                    row[name] = None if vals[i] is None else ts_text(vals[i], False)
                else:
                    row[name] = to_json(typ, vals[i])
            f.write(json.dumps(row, separators=(",", ":")) + "\n")


def write(table, name, **kw):
    path = os.path.join(OUT, name + ".parquet")
    opts = dict(row_group_size=50, data_page_size=1024, write_batch_size=32,
                compression="none", store_schema=False)
    opts.update(kw)
    pq.write_table(table, path, **opts)
    write_jsonl(table, os.path.join(OUT, name + ".jsonl"),
                int96=kw.get("use_deprecated_int96_timestamps", False))


def main():
    os.makedirs(OUT, exist_ok=True)
    flat = flat_table()
    write(flat, "plain_v1", use_dictionary=False, data_page_version="1.0")
    write(flat, "dict_v1_snappy", use_dictionary=True, compression="snappy")
    small = flat.select(["id", "b", "i32", "s", "d30", "ts_us_utc", "uuid", "f64"])
    for codec in ["none", "snappy", "gzip", "zstd", "lz4"]:
        write(small, "v2_" + codec, use_dictionary=["s", "i32"], data_page_version="2.0",
              compression=codec)
    ints = flat.select(["id", "i32", "i64", "s", "bin", "fx4"])
    write(ints, "delta", use_dictionary=False, data_page_version="2.0",
          column_encoding={"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED",
                           "id": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY",
                           "bin": "DELTA_LENGTH_BYTE_ARRAY", "fx4": "DELTA_BYTE_ARRAY"})
    bss = flat.select(["id", "f32", "f64", "i32", "i64", "fx4", "d18"])
    write(bss, "byte_stream_split", use_dictionary=False,
          column_encoding={k: "BYTE_STREAM_SPLIT" for k in bss.column_names})
    nested = nested_table()
    write(nested, "nested_v1", use_dictionary=True, data_page_version="1.0")
    write(nested, "nested_v2_zstd", use_dictionary=False, data_page_version="2.0",
          compression="zstd")
    ts = flat.select(["id", "ts_us_utc", "ts_ms"])
    write(ts, "int96", use_deprecated_int96_timestamps=True)
    # Field ids from Arrow field metadata.
    with_ids = pa.schema([f.with_metadata({"PARQUET:field_id": str(100 + k)})
                          for k, f in enumerate(nested.schema)])
    write(nested.cast(with_ids), "field_ids")


if __name__ == "__main__":
    main()
