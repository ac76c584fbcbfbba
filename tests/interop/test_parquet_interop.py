"""Parquet interop: the reference readers read what floe writes, and floe reads
what the reference writer writes. These tests are the proof that floe's
Parquet is correct, so they are strict: every value, type, field id and
nullability is compared, floats bit for bit.

floe is driven only through its command-line contract:
  floe parquet write --schema SCHEMA.json [--codec C] [--row-group-size BYTES]
                     [--page-version 1|2] IN.jsonl OUT.parquet
  floe parquet cat FILE [--limit N]          (JSON Lines on standard output)
and the JSON row conventions of src/floe/types/row_json.h.

The corpus is random but seeded. FLOE_INTEROP_SEED=<int> picks another base
seed (FLOE_INTEROP_SEED=random draws one); a failure prints the seed and the
command that reproduces it. FLOE_INTEROP_BUDGET_SECONDS bounds the time the
randomized floe-writes cases may take (default 300); cases past it are skipped.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import itertools
import json
import math
import os
import pathlib
import random
import re
import struct
import time
import uuid

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

# --------------------------------------------------------------------------
# Seeds and budget
# --------------------------------------------------------------------------

_seed_env = os.environ.get("FLOE_INTEROP_SEED", "")
if _seed_env == "random":
    BASE_SEED = random.SystemRandom().randrange(1, 2**31)
elif _seed_env:
    BASE_SEED = int(_seed_env)
else:
    BASE_SEED = 20240611
BUDGET_SECONDS = float(os.environ.get("FLOE_INTEROP_BUDGET_SECONDS", "300"))
_budget_start: float | None = None

NUM_CORPUS_CASES = 40
MAX_ROWS = 300
CODECS = ["zstd", "snappy", "gzip", "lz4_raw", "uncompressed"]
PAGE_VERSIONS = ["1", "2"]
# How pyarrow names the codec of a column chunk written with each floe codec.
PYARROW_CODEC_NAMES = {
    "zstd": {"ZSTD"},
    "snappy": {"SNAPPY"},
    "gzip": {"GZIP"},
    "lz4_raw": {"LZ4", "LZ4_RAW"},
    "uncompressed": {"UNCOMPRESSED"},
}


def reproduce_hint(test_name: str, case: str = "") -> str:
    sel = f"{test_name}[{case}]" if case else test_name
    return (
        f"seed {BASE_SEED}; reproduce with: FLOE_INTEROP_SEED={BASE_SEED} "
        f".cache/venv/bin/python -m pytest 'tests/interop/test_parquet_interop.py::{sel}'"
    )


# --------------------------------------------------------------------------
# A model of Iceberg types, enough to generate schemas and values
# --------------------------------------------------------------------------

PRIMITIVES = [
    "boolean", "int", "long", "float", "double", "decimal", "date", "time",
    "timestamp", "timestamptz", "string", "uuid", "fixed", "binary",
]


@dataclasses.dataclass(frozen=True)
class Prim:
    name: str
    precision: int = 0
    scale: int = 0
    length: int = 0

    def to_json(self):
        if self.name == "decimal":
            return f"decimal({self.precision},{self.scale})"
        if self.name == "fixed":
            return f"fixed[{self.length}]"
        return self.name

    def __str__(self):
        return self.to_json()


@dataclasses.dataclass
class Field:
    id: int
    name: str
    required: bool
    type: object

    def to_json(self):
        return {"id": self.id, "name": self.name, "required": self.required,
                "type": self.type.to_json()}


@dataclasses.dataclass
class Struct:
    fields: list

    def to_json(self):
        return {"type": "struct", "fields": [f.to_json() for f in self.fields]}


@dataclasses.dataclass
class ListT:
    element_id: int
    element_required: bool
    element: object

    def to_json(self):
        return {"type": "list", "element-id": self.element_id,
                "element-required": self.element_required, "element": self.element.to_json()}


@dataclasses.dataclass
class MapT:
    key_id: int
    key: object
    value_id: int
    value_required: bool
    value: object

    def to_json(self):
        return {"type": "map", "key-id": self.key_id, "key": self.key.to_json(),
                "value-id": self.value_id, "value-required": self.value_required,
                "value": self.value.to_json()}


def schema_json(fields: list[Field]) -> dict:
    return {"type": "struct", "schema-id": 0, "fields": [f.to_json() for f in fields]}


def iter_prims(t):
    """Every primitive type inside t."""
    if isinstance(t, Prim):
        yield t
    elif isinstance(t, Struct):
        for f in t.fields:
            yield from iter_prims(f.type)
    elif isinstance(t, ListT):
        yield from iter_prims(t.element)
    elif isinstance(t, MapT):
        yield from iter_prims(t.key)
        yield from iter_prims(t.value)


# --------------------------------------------------------------------------
# Text forms of the JSON row conventions
# --------------------------------------------------------------------------

EPOCH_DATE = datetime.date(1970, 1, 1)
MIN_DAYS = (datetime.date(1, 1, 1) - EPOCH_DATE).days
MAX_DAYS = (datetime.date(9999, 12, 31) - EPOCH_DATE).days
MICROS_PER_DAY = 86_400_000_000
MIN_TS = MIN_DAYS * MICROS_PER_DAY
MAX_TS = (MAX_DAYS + 1) * MICROS_PER_DAY - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def fmt_date(days: int) -> str:
    return (EPOCH_DATE + datetime.timedelta(days=days)).isoformat()


def fmt_time(micros: int) -> str:
    seconds, frac = divmod(micros, 1_000_000)
    minutes, sec = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours:02d}:{minute:02d}:{sec:02d}.{frac:06d}"


def fmt_timestamp(micros: int, utc: bool) -> str:
    days, rem = divmod(micros, MICROS_PER_DAY)
    return fmt_date(days) + "T" + fmt_time(rem) + ("+00:00" if utc else "")


def fmt_decimal(unscaled: int, scale: int) -> str:
    sign = "-" if unscaled < 0 else ""
    digits = str(abs(unscaled))
    if scale == 0:
        return sign + digits
    digits = digits.rjust(scale + 1, "0")
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def f32(x: float) -> float:
    """x rounded to the nearest float32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def float_conv(x: float):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def decimal_flba_length(precision: int) -> int:
    """Minimum bytes of a two's complement integer holding 10^precision - 1."""
    n = 1
    while 2 ** (8 * n - 1) - 1 < 10**precision - 1:
        n += 1
    return n


# --------------------------------------------------------------------------
# The random corpus: schemas and values (values are in the JSON conventions)
# --------------------------------------------------------------------------

NAME_STEMS = ["id", "amount", "note", "ts", "flag", "payload", "tags", "attrs",
              "é_col", "名前", "with space", "CamelCase", "x"]

STRING_POOLS = [
    "abcdefghijklmnopqrstuvwxyz0123456789 ",
    "αβγδεжзийκλμνξ",
    "中文字符日本語한국어漢字",
    "😀🎉🚀🇫🇷👩‍💻𝄞",
    "\"\\/\n\t\r\b\f\u0001\u001f\u007f\u00a0\u2028\u2029",
    "e\u0301a\u0308",  # combining marks
]

EDGE_STRINGS = ["", " ", "\u0000", "null", "NaN", "\"", "\\", "😀", "中", "a" * 300, "é" * 100]


class Corpus:
    """Generates one schema and its rows from a seed."""

    def __init__(self, seed: int, null_rate: float | None = None):
        self.rng = random.Random(seed)
        self.next_id = 1
        self.null_rate = null_rate if null_rate is not None else self.rng.choice(
            [0.0, 0.05, 0.2, 0.5, 0.9])
        self.edge_rate = self.rng.choice([0.05, 0.2, 0.5])

    # ---- schemas
    def fid(self) -> int:
        i = self.next_id
        self.next_id += 1
        return i

    def prim(self, name: str | None = None, key: bool = False) -> Prim:
        rng = self.rng
        if name is None:
            choices = PRIMITIVES
            if key:  # map keys: no floats or booleans, as engines expect
                choices = [p for p in PRIMITIVES if p not in ("float", "double", "boolean")]
            name = rng.choice(choices)
        if name == "decimal":
            p = rng.choice([1, 4, 9, 10, 15, 18, 19, 25, 28, 33, 38, rng.randint(1, 38)])
            s = rng.choice([0, p, rng.randint(0, p), min(p, 2)])
            return Prim("decimal", precision=p, scale=s)
        if name == "fixed":
            return Prim("fixed", length=rng.choice([1, 2, 7, 16, 33, rng.randint(1, 64)]))
        return Prim(name)

    def type(self, depth: int):
        rng = self.rng
        if depth >= 3 or rng.random() < 0.55:
            return self.prim()
        kind = rng.choice(["struct", "list", "map"])
        if kind == "struct":
            return Struct(self.fields(rng.randint(1, 4), depth + 1))
        if kind == "list":
            eid = self.fid()
            return ListT(eid, rng.random() < 0.4, self.type(depth + 1))
        kid, vid = self.fid(), self.fid()
        return MapT(kid, self.prim(key=True), vid, rng.random() < 0.4, self.type(depth + 1))

    def fields(self, n: int, depth: int) -> list[Field]:
        out = []
        used = set()
        for _ in range(n):
            i = self.fid()
            stem = self.rng.choice(NAME_STEMS)
            name = f"{stem}_{i}"
            assert name not in used
            used.add(name)
            out.append(Field(i, name, self.rng.random() < 0.4, self.type(depth)))
        return out

    def schema(self) -> list[Field]:
        return self.fields(self.rng.randint(1, 8), 0)

    # ---- values
    def value(self, t, required: bool):
        rng = self.rng
        if not required and rng.random() < self.null_rate:
            return None
        if isinstance(t, Prim):
            return self.prim_value(t)
        if isinstance(t, Struct):
            return {f.name: self.value(f.type, f.required) for f in t.fields}
        if isinstance(t, ListT):
            n = rng.choice([0, 0, 1, 2, 3, 5, rng.randint(0, 12)])
            return [self.value(t.element, t.element_required) for _ in range(n)]
        if isinstance(t, MapT):
            n = rng.choice([0, 0, 1, 2, 3, rng.randint(0, 8)])
            entries, seen = [], set()
            for _ in range(n):
                k = self.prim_value(t.key)
                if k in seen:
                    continue
                seen.add(k)
                entries.append({"key": k, "value": self.value(t.value, t.value_required)})
            return entries
        raise TypeError(t)

    def prim_value(self, t: Prim):
        rng = self.rng
        edge = rng.random() < self.edge_rate
        n = t.name
        if n == "boolean":
            return rng.random() < 0.5
        if n == "int":
            if edge:
                return rng.choice([INT_MIN, INT_MAX, 0, -1, 1, INT_MIN + 1, INT_MAX - 1])
            return rng.choice([rng.randint(-100, 100), rng.randint(INT_MIN, INT_MAX)])
        if n == "long":
            if edge:
                return rng.choice([LONG_MIN, LONG_MAX, 0, -1, 1, INT_MIN - 1, INT_MAX + 1])
            return rng.choice([rng.randint(-1000, 1000), rng.randint(LONG_MIN, LONG_MAX)])
        if n == "float":
            if edge:
                return float_conv(rng.choice([
                    math.nan, math.inf, -math.inf, -0.0, 0.0, 1.0, -1.0,
                    f32(1.401298464324817e-45), f32(-1.401298464324817e-45),
                    f32(1.1754943508222875e-38), 3.4028234663852886e38, -3.4028234663852886e38]))
            if rng.random() < 0.5:
                return f32(round(rng.uniform(-1000, 1000), rng.randint(0, 3)))
            x = struct.unpack("<f", rng.getrandbits(32).to_bytes(4, "little"))[0]
            return float_conv(x)
        if n == "double":
            if edge:
                return float_conv(rng.choice([
                    math.nan, math.inf, -math.inf, -0.0, 0.0, 0.1, -1.0, 5e-324, -5e-324,
                    2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
                    2.0**53 + 1.0]))
            if rng.random() < 0.5:
                return round(rng.uniform(-1e6, 1e6), rng.randint(0, 6))
            x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            return float_conv(x)
        if n == "decimal":
            top = 10**t.precision - 1
            if edge:
                u = rng.choice([top, -top, 0, 1, -1])
            else:
                u = rng.choice([rng.randint(-top, top), rng.randint(-999, 999) % (top + 1)])
            return fmt_decimal(u, t.scale)
        if n == "date":
            if edge:
                return fmt_date(rng.choice([MIN_DAYS, MAX_DAYS, 0, -1, 1, 10956, -25508]))
            return fmt_date(rng.randint(MIN_DAYS, MAX_DAYS))
        if n == "time":
            if edge:
                return fmt_time(rng.choice([0, 1, MICROS_PER_DAY - 1, 43_200_000_000]))
            return fmt_time(rng.randrange(MICROS_PER_DAY))
        if n in ("timestamp", "timestamptz"):
            utc = n == "timestamptz"
            if edge:
                return fmt_timestamp(rng.choice([MIN_TS, MAX_TS, 0, -1, 1, -MICROS_PER_DAY,
                                                 951_782_400_000_000]), utc)
            return fmt_timestamp(rng.choice([rng.randint(MIN_TS, MAX_TS),
                                             rng.randint(-10**12, 10**12)]), utc)
        if n == "string":
            if edge:
                return rng.choice(EDGE_STRINGS)
            pool = rng.choice(STRING_POOLS)
            length = rng.choice([0, 1, 3, 8, 20, rng.randint(0, 60)])
            return "".join(rng.choice(pool) for _ in range(length))
        if n == "uuid":
            if edge:
                return str(uuid.UUID(bytes=rng.choice([b"\x00" * 16, b"\xff" * 16])))
            return str(uuid.UUID(bytes=rng.getrandbits(128).to_bytes(16, "big")))
        if n == "fixed":
            if edge:
                return b64(rng.choice([b"\x00", b"\xff"]) * t.length)
            return b64(rng.getrandbits(8 * t.length).to_bytes(t.length, "little"))
        if n == "binary":
            if edge:
                return b64(rng.choice([b"", b"\x00", b"\xff" * 40]))
            k = rng.choice([0, 1, 5, 16, rng.randint(0, 100)])
            return b64(rng.getrandbits(8 * k).to_bytes(k, "little") if k else b"")
        raise TypeError(t)

    def rows(self, fields: list[Field], n: int) -> list[dict]:
        return [{f.name: self.value(f.type, f.required) for f in fields} for _ in range(n)]


def kitchen_sink_schema() -> list[Field]:
    """Every primitive type, required and optional, plus each nesting kind three deep."""
    c = Corpus(0)
    fields = []
    for name in PRIMITIVES:
        variants = [c.prim(name)]
        if name == "decimal":
            variants = [Prim("decimal", 9, 2), Prim("decimal", 18, 6), Prim("decimal", 38, 10),
                        Prim("decimal", 38, 0), Prim("decimal", 1, 1), Prim("decimal", 38, 38)]
        if name == "fixed":
            variants = [Prim("fixed", length=1), Prim("fixed", length=16)]
        for t in variants:
            for required in (True, False):
                i = c.fid()
                fields.append(Field(i, f"{name}_{'req' if required else 'opt'}_{i}", required, t))
    # list<struct<map<string, int>, list<double>>>
    s_fields = [Field(c.fid(), "m", False,
                      MapT(c.fid(), Prim("string"), c.fid(), False, Prim("int"))),
                Field(c.fid(), "ld", True, ListT(c.fid(), True, Prim("double")))]
    fields.append(Field(c.fid(), "list_of_struct", False, ListT(c.fid(), False, Struct(s_fields))))
    # map<long, list<map<string, string>>>
    inner = MapT(c.fid(), Prim("string"), c.fid(), False, Prim("string"))
    fields.append(Field(c.fid(), "map_of_list", False,
                        MapT(c.fid(), Prim("long"), c.fid(), True, ListT(c.fid(), False, inner))))
    # struct<a: struct<b: struct<c: string>>, l: list<list<uuid>>>
    deep = Struct([Field(c.fid(), "b", False,
                         Struct([Field(c.fid(), "c", False, Prim("string")),
                                 Field(c.fid(), "d", True, Prim("date"))]))])
    fields.append(Field(c.fid(), "nest", True, Struct([
        Field(c.fid(), "a", False, deep),
        Field(c.fid(), "l", False, ListT(c.fid(), False, ListT(c.fid(), False, Prim("uuid")))),
    ])))
    return fields


def corpus_case(index: int):
    """(fields, rows, corpus) of corpus case `index` under BASE_SEED."""
    seed = BASE_SEED * 1000 + index
    c = Corpus(seed)
    if index == 0:
        fields = kitchen_sink_schema()
        c.next_id = 1000
        c.null_rate = 0.2
        c.edge_rate = 0.3
    else:
        fields = c.schema()
    n = c.rng.choice([1, 2, 17, 100, MAX_ROWS, MAX_ROWS]) if index else MAX_ROWS
    return fields, c.rows(fields, n), c


# --------------------------------------------------------------------------
# Input files for floe
# --------------------------------------------------------------------------

def drop_nulls_sometimes(value, t, rng: random.Random):
    """A copy of a row value where some null struct members are left out (missing = null)."""
    if value is None:
        return None
    if isinstance(t, Struct):
        out = {}
        for f in t.fields:
            v = value[f.name]
            if v is None and rng.random() < 0.5:
                continue
            out[f.name] = drop_nulls_sometimes(v, f.type, rng)
        return out
    if isinstance(t, ListT):
        return [drop_nulls_sometimes(v, t.element, rng) for v in value]
    if isinstance(t, MapT):
        return [{"key": e["key"], "value": drop_nulls_sometimes(e["value"], t.value, rng)}
                for e in value]
    return value


def write_inputs(directory: pathlib.Path, fields: list[Field], rows: list[dict],
                 rng: random.Random) -> tuple[pathlib.Path, pathlib.Path]:
    schema_path = directory / "schema.json"
    schema_path.write_text(json.dumps(schema_json(fields), indent=1))
    data_path = directory / "rows.jsonl"
    row_type = Struct(fields)
    ensure_ascii = rng.random() < 0.3
    with open(data_path, "w", encoding="utf-8") as out:
        for row in rows:
            line = json.dumps(drop_nulls_sometimes(row, row_type, rng),
                              ensure_ascii=ensure_ascii, allow_nan=False)
            out.write(line + "\n")
    return schema_path, data_path


# --------------------------------------------------------------------------
# pyarrow values -> JSON conventions, and strict comparison
# --------------------------------------------------------------------------

def arrow_value_to_conv(v, t):
    """A value from pyarrow's to_pylist(), of Iceberg type t, in floe's JSON conventions."""
    if v is None:
        return None
    if isinstance(t, Struct):
        assert isinstance(v, dict), f"struct read as {type(v).__name__}"
        return {f.name: arrow_value_to_conv(v.get(f.name), f.type) for f in t.fields}
    if isinstance(t, ListT):
        assert isinstance(v, list), f"list read as {type(v).__name__}"
        return [arrow_value_to_conv(e, t.element) for e in v]
    if isinstance(t, MapT):
        assert isinstance(v, list), f"map read as {type(v).__name__}"
        return [{"key": arrow_value_to_conv(k, t.key), "value": arrow_value_to_conv(x, t.value)}
                for k, x in v]
    n = t.name
    if n == "boolean":
        assert isinstance(v, bool), f"boolean read as {type(v).__name__}"
        return v
    if n in ("int", "long"):
        assert isinstance(v, int) and not isinstance(v, bool), f"{n} read as {type(v).__name__}"
        return v
    if n in ("float", "double"):
        assert isinstance(v, float), f"{n} read as {type(v).__name__}"
        return float_conv(v)
    if n == "decimal":
        assert isinstance(v, decimal.Decimal), f"decimal read as {type(v).__name__}"
        sign, digits, exponent = v.as_tuple()
        unscaled = int("".join(map(str, digits)) or "0")
        shift = exponent + t.scale
        assert shift >= 0, f"decimal {v} has more fraction digits than scale {t.scale}"
        unscaled *= 10**shift
        return fmt_decimal(-unscaled if sign else unscaled, t.scale)
    if n == "date":
        assert type(v) is datetime.date, f"date read as {type(v).__name__}"
        return v.isoformat()
    if n == "time":
        assert isinstance(v, datetime.time), f"time read as {type(v).__name__}"
        return f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}.{v.microsecond:06d}"
    if n in ("timestamp", "timestamptz"):
        assert isinstance(v, datetime.datetime), f"{n} read as {type(v).__name__}"
        if n == "timestamptz":
            assert v.tzinfo is not None, "timestamptz read without a time zone"
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        else:
            assert v.tzinfo is None, f"timestamp read with time zone {v.tzinfo}"
        return (v.date().isoformat() + "T" +
                f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}.{v.microsecond:06d}" +
                ("+00:00" if n == "timestamptz" else ""))
    if n == "string":
        assert isinstance(v, str), f"string read as {type(v).__name__}"
        return v
    if n == "uuid":
        if isinstance(v, uuid.UUID):
            return str(v)
        assert isinstance(v, bytes) and len(v) == 16, f"uuid read as {v!r}"
        return str(uuid.UUID(bytes=v))
    if n in ("fixed", "binary"):
        assert isinstance(v, bytes), f"{n} read as {type(v).__name__}"
        if n == "fixed":
            assert len(v) == t.length, f"fixed[{t.length}] read with {len(v)} bytes"
        return b64(v)
    raise TypeError(t)


def _float_bits(x, single: bool):
    if isinstance(x, str):
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        x = float(x)
    if not isinstance(x, float):
        return ("not a number", repr(x))
    if single:
        try:
            return struct.pack("<f", x)
        except OverflowError:
            return ("out of float range", x)
    return struct.pack("<d", x)


def first_difference(expected, actual, t, path: str, check_key_order: bool = False):
    """None if actual equals expected (strictly), else a description of the first difference."""
    if expected is None or actual is None:
        if expected is None and actual is None:
            return None
        return f"{path}: expected {expected!r}, got {actual!r}"
    if isinstance(t, Struct):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {actual!r}"
        names = [f.name for f in t.fields]
        if check_key_order and list(actual.keys()) != names:
            return f"{path}: expected members {names}, got {list(actual.keys())}"
        for f in t.fields:
            if f.name not in actual:
                return f"{path}.{f.name}: missing"
            d = first_difference(expected[f.name], actual[f.name], f.type, f"{path}.{f.name}",
                                 check_key_order)
            if d:
                return d
        return None
    if isinstance(t, ListT):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path}: expected {len(expected)} elements {expected!r:.300}, got {actual!r:.300}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            d = first_difference(e, a, t.element, f"{path}[{i}]", check_key_order)
            if d:
                return d
        return None
    if isinstance(t, MapT):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path}: expected {len(expected)} entries {expected!r:.300}, got {actual!r:.300}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            if not isinstance(a, dict) or sorted(a.keys()) != ["key", "value"]:
                return f"{path}[{i}]: expected {{\"key\", \"value\"}}, got {a!r}"
            d = (first_difference(e["key"], a["key"], t.key, f"{path}[{i}].key", check_key_order)
                 or first_difference(e["value"], a["value"], t.value, f"{path}[{i}].value",
                                     check_key_order))
            if d:
                return d
        return None
    if t.name in ("float", "double"):
        if _float_bits(expected, t.name == "float") != _float_bits(actual, t.name == "float"):
            return f"{path} ({t}): expected {expected!r}, got {actual!r}"
        return None
    if type(expected) is not type(actual) or expected != actual:
        return f"{path} ({t}): expected {expected!r}, got {actual!r}"
    return None


def compare_rows(expected_rows, actual_rows, fields, what: str, check_key_order=False):
    row_type = Struct(fields)
    assert len(actual_rows) == len(expected_rows), (
        f"{what}: expected {len(expected_rows)} rows, got {len(actual_rows)}")
    for i, (e, a) in enumerate(zip(expected_rows, actual_rows)):
        d = first_difference(e, a, row_type, f"row {i}", check_key_order)
        if d:
            pytest.fail(f"{what}: {d}")


def parse_floe_json_lines(text: str) -> list:
    # "-0" parses as the float -0.0 so the sign of a zero survives; NaN and
    # infinities are strings by convention, so bare NaN/Infinity are refused.
    def parse_int(s):
        return -0.0 if s == "-0" else int(s)

    def refuse(name):
        raise ValueError(f"bare {name} is not JSON; the convention is a string")

    rows = []
    lines = text.split("\n")  # not splitlines(): U+2028 and friends may appear raw in strings
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, 1):
        try:
            rows.append(json.loads(line, parse_int=parse_int, parse_constant=refuse))
        except ValueError as e:
            pytest.fail(f"floe printed invalid JSON on output line {number}: {e}: {line[:300]!r}")
    return rows


# --------------------------------------------------------------------------
# Expected Parquet schema (Iceberg spec, "Parquet" section)
# --------------------------------------------------------------------------

def expected_arrow_type_ok(arrow_type: pa.DataType, t) -> str | None:
    """None if pyarrow's reading of a column has the type an Iceberg type should produce."""
    if isinstance(t, Struct):
        return None if pa.types.is_struct(arrow_type) else f"expected struct, got {arrow_type}"
    if isinstance(t, ListT):
        return None if pa.types.is_list(arrow_type) else f"expected list, got {arrow_type}"
    if isinstance(t, MapT):
        return None if pa.types.is_map(arrow_type) else f"expected map, got {arrow_type}"
    n = t.name
    ok = {
        "boolean": pa.types.is_boolean(arrow_type),
        "int": arrow_type == pa.int32(),
        "long": arrow_type == pa.int64(),
        "float": arrow_type == pa.float32(),
        "double": arrow_type == pa.float64(),
        "date": arrow_type == pa.date32(),
        "time": arrow_type == pa.time64("us"),
        "timestamp": arrow_type == pa.timestamp("us"),
        "timestamptz": (pa.types.is_timestamp(arrow_type) and arrow_type.unit == "us"
                        and arrow_type.tz in ("UTC", "+00:00", "Etc/UTC")),
        "string": arrow_type in (pa.string(), pa.large_string()),
        "binary": arrow_type in (pa.binary(), pa.large_binary()),
        "fixed": arrow_type == pa.binary(t.length),
        "uuid": (arrow_type == pa.binary(16)
                 or getattr(arrow_type, "extension_name", "") == "arrow.uuid"),
        "decimal": (pa.types.is_decimal(arrow_type) and arrow_type.precision == t.precision
                    and arrow_type.scale == t.scale),
    }[n]
    return None if ok else f"expected {t}, got {arrow_type}"


def check_arrow_field(field: pa.Field, expected: Field, path: str, problems: list):
    """Name, nullability, field id and type of one field and its children."""
    if field.name != expected.name:
        problems.append(f"{path}: name {field.name!r}, expected {expected.name!r}")
    check_arrow_node(field, expected.id, expected.required, expected.type, path, problems)


def check_arrow_node(field: pa.Field, field_id: int, required: bool, t, path: str, problems: list):
    meta = field.metadata or {}
    got_id = meta.get(b"PARQUET:field_id")
    if got_id is None:
        problems.append(f"{path}: no PARQUET:field_id (expected {field_id})")
    elif int(got_id) != field_id:
        problems.append(f"{path}: field id {int(got_id)}, expected {field_id}")
    if field.nullable == required:
        problems.append(f"{path}: nullable={field.nullable}, but Iceberg required={required}")
    bad = expected_arrow_type_ok(field.type, t)
    if bad:
        problems.append(f"{path}: {bad}")
        return
    if isinstance(t, Struct):
        if field.type.num_fields != len(t.fields):
            problems.append(f"{path}: {field.type.num_fields} children, expected {len(t.fields)}")
            return
        for i, f in enumerate(t.fields):
            child = field.type.field(i)
            if child.name != f.name:
                problems.append(f"{path}.{f.name}: named {child.name!r}")
            check_arrow_node(child, f.id, f.required, f.type, f"{path}.{f.name}", problems)
    elif isinstance(t, ListT):
        check_arrow_node(field.type.value_field, t.element_id, t.element_required, t.element,
                         f"{path}.element", problems)
    elif isinstance(t, MapT):
        check_arrow_node(field.type.key_field, t.key_id, True, t.key, f"{path}.key", problems)
        check_arrow_node(field.type.item_field, t.value_id, t.value_required, t.value,
                         f"{path}.value", problems)


def expected_leaves(fields: list[Field]):
    """(display path, Prim, max definition level, max repetition level) per leaf, in order."""
    out = []

    def walk(t, required, path, d, r):
        d = d + (0 if required else 1)
        if isinstance(t, Prim):
            out.append((path, t, d, r))
        elif isinstance(t, Struct):
            for f in t.fields:
                walk(f.type, f.required, f"{path}.{f.name}", d, r)
        elif isinstance(t, ListT):
            walk(t.element, t.element_required, f"{path}.element", d + 1, r + 1)
        elif isinstance(t, MapT):
            walk(t.key, True, f"{path}.key", d + 1, r + 1)
            walk(t.value, t.value_required, f"{path}.value", d + 1, r + 1)

    for f in fields:
        walk(f.type, f.required, f.name, 0, 0)
    return out


def check_leaf_types(column, prim: Prim) -> str | None:
    """Physical and logical type of a Parquet leaf against the Iceberg spec's table."""
    phys = column.physical_type
    logical = json.loads(column.logical_type.to_json())
    kind = logical.get("Type")
    n = prim.name

    def want(physical, lkind, **attrs):
        if phys != physical:
            return f"physical {phys}, expected {physical}"
        if lkind != kind:
            return f"logical {logical}, expected {lkind}"
        for k, v in attrs.items():
            if logical.get(k) != v:
                return f"logical {logical}, expected {k}={v}"
        return None

    if n == "boolean":
        return want("BOOLEAN", "None")
    if n == "int":
        if kind == "Int":
            return want("INT32", "Int", bitWidth=32, isSigned=True)
        return want("INT32", "None")
    if n == "long":
        if kind == "Int":
            return want("INT64", "Int", bitWidth=64, isSigned=True)
        return want("INT64", "None")
    if n == "float":
        return want("FLOAT", "None")
    if n == "double":
        return want("DOUBLE", "None")
    if n == "decimal":
        if prim.precision <= 9:
            physical = "INT32"
        elif prim.precision <= 18:
            physical = "INT64"
        else:
            physical = "FIXED_LEN_BYTE_ARRAY"
            if column.length != decimal_flba_length(prim.precision):
                return (f"decimal({prim.precision},{prim.scale}) in {column.length} bytes, expected "
                        f"the minimum {decimal_flba_length(prim.precision)}")
        return want(physical, "Decimal", precision=prim.precision, scale=prim.scale)
    if n == "date":
        return want("INT32", "Date")
    if n == "time":
        return want("INT64", "Time", isAdjustedToUTC=False, timeUnit="microseconds")
    if n == "timestamp":
        return want("INT64", "Timestamp", isAdjustedToUTC=False, timeUnit="microseconds")
    if n == "timestamptz":
        return want("INT64", "Timestamp", isAdjustedToUTC=True, timeUnit="microseconds")
    if n == "string":
        return want("BYTE_ARRAY", "String")
    if n == "uuid":
        if column.length != 16:
            return f"uuid of length {column.length}"
        return want("FIXED_LEN_BYTE_ARRAY", "UUID")
    if n == "fixed":
        if column.length != prim.length:
            return f"fixed[{prim.length}] of length {column.length}"
        return want("FIXED_LEN_BYTE_ARRAY", "None")
    if n == "binary":
        return want("BYTE_ARRAY", "None")
    raise TypeError(prim)


def check_parquet_schema(pf: pq.ParquetFile, fields: list[Field]) -> list[str]:
    problems = []
    arrow_schema = pf.schema_arrow
    names = [f.name for f in fields]
    if arrow_schema.names != names:
        return [f"top-level columns {arrow_schema.names}, expected {names}"]
    for f in fields:
        check_arrow_field(arrow_schema.field(f.name), f, f.name, problems)
    leaves = expected_leaves(fields)
    if pf.metadata.num_columns != len(leaves):
        problems.append(f"{pf.metadata.num_columns} leaf columns, expected {len(leaves)}")
        return problems
    for i, (path, prim, d, r) in enumerate(leaves):
        column = pf.schema.column(i)
        bad = check_leaf_types(column, prim)
        if bad:
            problems.append(f"leaf {path} ({column.path}): {bad}")
        if (column.max_definition_level, column.max_repetition_level) != (d, r):
            problems.append(
                f"leaf {path} ({column.path}): definition/repetition levels "
                f"{column.max_definition_level}/{column.max_repetition_level}, expected {d}/{r}")
    return problems


# --------------------------------------------------------------------------
# DuckDB: a second, independent reader
# --------------------------------------------------------------------------

def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def check_with_duckdb(path: pathlib.Path, fields: list[Field], rows: list[dict]) -> None:
    con = duckdb.connect()
    try:
        source = f"read_parquet('{path}')"
        # Decode every column of every row.
        table = con.sql(f"select * from {source}").arrow()
        if isinstance(table, pa.RecordBatchReader):
            table = table.read_all()
        assert table.num_rows == len(rows), f"DuckDB read {table.num_rows} rows, expected {len(rows)}"
        # Checksums of top-level columns, computed by DuckDB and by us.
        exprs, expected = ["count(*)"], [len(rows)]
        for f in fields:
            col = quote_ident(f.name)
            values = [r[f.name] for r in rows if r[f.name] is not None]
            exprs.append(f"count({col})")
            expected.append(len(values))
            if isinstance(f.type, Prim):
                n = f.type.name
                if n in ("int", "long"):
                    exprs.append(f"sum({col}::HUGEINT)")
                    expected.append(sum(values) if values else None)
                elif n == "string":
                    exprs.append(f"sum(strlen({col}))")
                    expected.append(sum(len(v.encode()) for v in values) if values else None)
                elif n in ("binary", "fixed"):
                    exprs.append(f"sum(octet_length({col}))")
                    expected.append(sum(len(base64.b64decode(v)) for v in values) if values else None)
                elif n == "date":
                    exprs.append(f"sum(datediff('day', DATE '1970-01-01', {col}))")
                    expected.append(sum((datetime.date.fromisoformat(v) - EPOCH_DATE).days
                                        for v in values) if values else None)
                elif n == "boolean":
                    exprs.append(f"count_if({col})")
                    expected.append(sum(1 for v in values if v))
                elif n == "uuid":
                    exprs.append(f"count(DISTINCT {col})")
                    expected.append(len(set(values)))
            elif isinstance(f.type, (ListT, MapT)):
                fn = "len" if isinstance(f.type, ListT) else "cardinality"
                exprs.append(f"sum({fn}({col}))")
                expected.append(sum(len(v) for v in values) if values else None)
        got = con.sql(f"select {', '.join(exprs)} from {source}").fetchall()[0]
        got = [int(g) if isinstance(g, (int, decimal.Decimal)) and g is not None else g for g in got]
        for e_sql, e, g in zip(exprs, expected, got):
            assert e == g, f"DuckDB {e_sql} = {g}, expected {e}"
    finally:
        con.close()


# --------------------------------------------------------------------------
# floe writes, pyarrow and DuckDB read
# --------------------------------------------------------------------------

def write_with_floe(run_floe, schema_path, data_path, out_path, codec=None, page_version=None,
                    row_group_size=None):
    args = ["parquet", "write", "--schema", schema_path]
    if codec is not None:
        args += ["--codec", codec]
    if row_group_size is not None:
        args += ["--row-group-size", str(row_group_size)]
    if page_version is not None:
        args += ["--page-version", page_version]
    args += [data_path, out_path]
    return run_floe(*args)


def read_back_with_pyarrow(path, fields):
    table = pq.read_table(path)
    row_type = fields
    out = []
    for row in table.to_pylist():
        out.append({f.name: arrow_value_to_conv(row.get(f.name), f.type) for f in row_type})
    return out


@pytest.mark.parametrize("case", [f"case{i}" for i in range(NUM_CORPUS_CASES)])
def test_floe_written_files_read_by_pyarrow_and_duckdb(case, run_floe, tmp_dir):
    global _budget_start
    if _budget_start is None:
        _budget_start = time.monotonic()
    elif time.monotonic() - _budget_start > BUDGET_SECONDS:
        pytest.skip(f"over the corpus time budget of {BUDGET_SECONDS} s")
    index = int(case[4:])
    fields, rows, corpus = corpus_case(index)
    rng = corpus.rng
    schema_path, data_path = write_inputs(tmp_dir, fields, rows, rng)
    hint = reproduce_hint("test_floe_written_files_read_by_pyarrow_and_duckdb", case)

    for codec, page_version in itertools.product(CODECS, PAGE_VERSIONS):
        row_group_size = None
        if rng.random() < 0.3:
            row_group_size = rng.choice([1, 512, 4096, 65536])
        out = tmp_dir / f"out-{codec}-v{page_version}.parquet"
        run = write_with_floe(run_floe, schema_path, data_path, out, codec, page_version,
                              row_group_size)
        what = f"{hint}\n$ {run.command}\n"
        assert run.code == 0, f"{what}floe parquet write failed:\n{run.describe()}"
        assert out.is_file(), f"{what}no output file"

        try:
            pf = pq.ParquetFile(out)
        except Exception as e:  # noqa: BLE001 - any pyarrow error is the finding
            pytest.fail(f"{what}pyarrow cannot open the file: {e!r}")
        assert pf.metadata.num_rows == len(rows), (
            f"{what}footer says {pf.metadata.num_rows} rows, wrote {len(rows)}")
        problems = check_parquet_schema(pf, fields)
        assert not problems, f"{what}schema problems:\n  " + "\n  ".join(problems)
        for rg in range(pf.metadata.num_row_groups):
            for col in range(pf.metadata.num_columns):
                chunk = pf.metadata.row_group(rg).column(col)
                assert chunk.compression in PYARROW_CODEC_NAMES[codec], (
                    f"{what}row group {rg} column {chunk.path_in_schema}: codec "
                    f"{chunk.compression}, asked for {codec}")

        try:
            actual = read_back_with_pyarrow(out, fields)
        except Exception as e:  # noqa: BLE001
            pytest.fail(f"{what}pyarrow cannot read the values: {e!r}")
        compare_rows(rows, actual, fields, f"{what}pyarrow read")

        try:
            check_with_duckdb(out, fields, rows)
        except AssertionError as e:
            pytest.fail(f"{what}{e}")
        except Exception as e:  # noqa: BLE001
            pytest.fail(f"{what}DuckDB cannot read the file: {e!r}")

        if codec == "zstd":
            # floe reads back what it wrote.
            cat = run_floe("parquet", "cat", out)
            assert cat.code == 0, f"{what}floe parquet cat failed:\n{cat.describe()}"
            compare_rows(rows, parse_floe_json_lines(cat.stdout), fields,
                         f"{what}floe parquet cat of its own file", check_key_order=True)


def test_floe_default_codec_is_zstd(run_floe, tmp_dir):
    fields = [Field(1, "id", True, Prim("long")), Field(2, "s", False, Prim("string"))]
    rows = [{"id": i, "s": f"row {i}"} for i in range(10)]
    schema_path, data_path = write_inputs(tmp_dir, fields, rows, random.Random(1))
    out = tmp_dir / "default.parquet"
    run = write_with_floe(run_floe, schema_path, data_path, out)
    assert run.code == 0, run.describe()
    pf = pq.ParquetFile(out)
    assert {pf.metadata.row_group(0).column(i).compression for i in range(2)} == {"ZSTD"}
    compare_rows(rows, read_back_with_pyarrow(out, fields), fields, "default codec file")


def test_floe_row_group_size_limit(run_floe, tmp_dir):
    """--row-group-size is a limit: 20000 rows of ~60 bytes in 64 KiB row groups make many."""
    fields = [Field(1, "id", True, Prim("long")), Field(2, "s", False, Prim("string")),
              Field(3, "d", False, Prim("double"))]
    rng = random.Random(BASE_SEED)
    rows = [{"id": i, "s": "".join(rng.choice("abcdefgh") for _ in range(40)),
             "d": rng.random()} for i in range(20000)]
    schema_path, data_path = write_inputs(tmp_dir, fields, rows, rng)
    out = tmp_dir / "groups.parquet"
    run = write_with_floe(run_floe, schema_path, data_path, out, "uncompressed", "1", 65536)
    assert run.code == 0, run.describe()
    md = pq.ParquetFile(out).metadata
    assert md.num_row_groups >= 4, f"{md.num_row_groups} row groups for ~1.2 MB at 64 KiB each"
    assert sum(md.row_group(i).num_rows for i in range(md.num_row_groups)) == len(rows)
    compare_rows(rows, read_back_with_pyarrow(out, fields), fields, f"$ {run.command}")


def test_floe_writes_empty_input(run_floe, tmp_dir):
    fields = kitchen_sink_schema()
    schema_path, data_path = write_inputs(tmp_dir, fields, [], random.Random(1))
    out = tmp_dir / "empty.parquet"
    run = write_with_floe(run_floe, schema_path, data_path, out)
    assert run.code == 0, run.describe()
    pf = pq.ParquetFile(out)
    assert pf.metadata.num_rows == 0
    problems = check_parquet_schema(pf, fields)
    assert not problems, "\n".join(problems)
    assert pq.read_table(out).num_rows == 0
    assert duckdb.sql(f"select count(*) from read_parquet('{out}')").fetchall() == [(0,)]


def test_floe_schema_json_as_java_writes_it(run_floe, tmp_dir):
    """Iceberg Java writes "decimal(9, 2)" with a space; floe must read it too."""
    fields = [Field(1, "d", True, Prim("decimal", 9, 2)), Field(2, "f", False, Prim("fixed", length=4))]
    rows = [{"d": "-1234567.89", "f": b64(b"abcd")}, {"d": "0.01", "f": None}]
    schema_path, data_path = write_inputs(tmp_dir, fields, rows, random.Random(1))
    schema_path.write_text(schema_path.read_text().replace("decimal(9,2)", "decimal(9, 2)"))
    out = tmp_dir / "java.parquet"
    run = write_with_floe(run_floe, schema_path, data_path, out)
    assert run.code == 0, run.describe()
    compare_rows(rows, read_back_with_pyarrow(out, fields), fields, "decimal(9, 2) schema")


def _sort_key(prim: Prim, v):
    n = prim.name
    if n in ("int", "long", "boolean"):
        return v
    if n == "decimal":
        return decimal.Decimal(v)
    if n == "date":
        return datetime.date.fromisoformat(v)
    if n == "time":
        return datetime.time.fromisoformat(v)
    if n in ("timestamp", "timestamptz"):
        return datetime.datetime.fromisoformat(v.replace("+00:00", ""))
    if n == "string":
        return v.encode("utf-8")
    if n == "uuid":
        return uuid.UUID(v).bytes
    if n in ("fixed", "binary"):
        return base64.b64decode(v)
    raise TypeError(prim)


@pytest.mark.parametrize("case", [f"case{i}" for i in range(0, NUM_CORPUS_CASES, 4)])
def test_floe_statistics(case, run_floe, tmp_dir):
    """min/max/null count of every top-level primitive column, per row group, in each
    type's sort order (signed, unsigned bytes, UTF-8 bytes, decimals)."""
    index = int(case[4:])
    fields, rows, corpus = corpus_case(index)
    schema_path, data_path = write_inputs(tmp_dir, fields, rows, corpus.rng)
    out = tmp_dir / "stats.parquet"
    run = write_with_floe(run_floe, schema_path, data_path, out, "zstd", "1", 2048)
    hint = reproduce_hint("test_floe_statistics", case)
    assert run.code == 0, f"{hint}\n{run.describe()}"
    pf = pq.ParquetFile(out)
    leaf_index = {pf.schema.column(i).path: i for i in range(pf.metadata.num_columns)}
    start = 0
    for rg in range(pf.metadata.num_row_groups):
        group = pf.metadata.row_group(rg)
        group_rows = rows[start:start + group.num_rows]
        start += group.num_rows
        for f in fields:
            if not isinstance(f.type, Prim) or f.type.name in ("float", "double"):
                continue
            chunk = group.column(leaf_index[f.name])
            stats = chunk.statistics
            where = f"{hint}\n$ {run.command}\nrow group {rg}, column {f.name} ({f.type})"
            assert stats is not None, f"{where}: no statistics"
            values = [r[f.name] for r in group_rows if r[f.name] is not None]
            assert stats.null_count == len(group_rows) - len(values), (
                f"{where}: null_count {stats.null_count}, expected {len(group_rows) - len(values)}")
            if not values:
                continue
            if f.type.name == "uuid":
                # floe writes no uuid min/max on purpose: Iceberg Java filters row
                # groups with a signed uuid order and would skip matching groups.
                assert not stats.has_min_max, f"{where}: uuid min/max written"
                continue
            assert stats.has_min_max, f"{where}: no min/max"
            key = lambda v: _sort_key(f.type, v)  # noqa: E731
            want_min, want_max = min(values, key=key), max(values, key=key)
            got_min = arrow_value_to_conv(stats.min, f.type)
            got_max = arrow_value_to_conv(stats.max, f.type)
            if f.type.name in ("string", "binary") and max(len(key(v)) for v in values) > 64:
                # Long byte arrays may be truncated: the bounds must still hold.
                assert key(got_min) <= key(want_min), f"{where}: min {got_min!r} > {want_min!r}"
                assert key(got_max) >= key(want_max), f"{where}: max {got_max!r} < {want_max!r}"
            else:
                assert got_min == want_min, f"{where}: min {got_min!r}, expected {want_min!r}"
                assert got_max == want_max, f"{where}: max {got_max!r}, expected {want_max!r}"


# --------------------------------------------------------------------------
# floe parquet write on bad input
# --------------------------------------------------------------------------

BAD_INPUT_FIELDS = [
    Field(1, "id", True, Prim("long")),
    Field(2, "name", True, Prim("string")),
    Field(3, "payload", False, Struct([Field(4, "amount", False, Prim("decimal", 9, 2))])),
    Field(5, "note", False, Prim("string")),
]


def _good_line(i: int) -> str:
    return json.dumps({"id": i, "name": f"n{i}", "payload": {"amount": f"{i}.25"},
                       "note": "x" * 50})


BAD_LINES = {
    "invalid_json": ('{"id": 7, "name": "seven"', None),
    "not_an_object": ('[1, 2, 3]', None),
    "wrong_type": ('{"id": "seven", "name": "seven"}', "id"),
    "missing_required": ('{"id": 7, "note": "no name"}', "name"),
    "null_required": ('{"id": 7, "name": null}', "name"),
    "nested_wrong_type": ('{"id": 7, "name": "s", "payload": {"amount": true}}', "amount"),
    "decimal_too_many_digits": ('{"id": 7, "name": "s", "payload": {"amount": "1.234"}}', "amount"),
    "int_overflow": ('{"id": 9223372036854775808, "name": "s"}', "id"),
}


@pytest.mark.parametrize("bad_line_number", [1, 3, 5000])
@pytest.mark.parametrize("kind", sorted(BAD_LINES))
def test_floe_write_rejects_bad_line(kind, bad_line_number, run_floe, tmp_dir):
    bad, field = BAD_LINES[kind]
    lines = [_good_line(i) for i in range(1, bad_line_number)] + [bad, _good_line(bad_line_number + 1)]
    data_path = tmp_dir / "in.jsonl"
    data_path.write_text("\n".join(lines) + "\n")
    schema_path = tmp_dir / "schema.json"
    schema_path.write_text(json.dumps(schema_json(BAD_INPUT_FIELDS)))
    out = tmp_dir / "out.parquet"
    # A small row group size, so rows before the bad line have been flushed.
    run = write_with_floe(run_floe, schema_path, data_path, out, "zstd", "1", 1024)
    assert run.code == 1, f"expected exit code 1:\n{run.describe()}"
    # "line 3" or the compiler-style "in.jsonl:3:".
    line_named = (re.search(rf"line\D{{0,3}}{bad_line_number}\b", run.stderr, re.IGNORECASE)
                  or f"in.jsonl:{bad_line_number}:" in run.stderr)
    assert line_named, (
        f"stderr does not name line {bad_line_number}:\n{run.describe()}")
    if field:
        assert field in run.stderr, f"stderr does not name field {field!r}:\n{run.describe()}"
    assert not out.exists(), f"a partial output file was left behind:\n{run.describe()}"
    leftovers = [p.name for p in tmp_dir.iterdir() if p.name not in ("in.jsonl", "schema.json")]
    assert not leftovers, f"temporary files left behind: {leftovers}"


def test_floe_write_rejects_bad_schema(run_floe, tmp_dir):
    data_path = tmp_dir / "in.jsonl"
    data_path.write_text(_good_line(1) + "\n")
    schema_path = tmp_dir / "schema.json"
    schema_path.write_text(json.dumps({"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "lnog"}]}))
    out = tmp_dir / "out.parquet"
    run = write_with_floe(run_floe, schema_path, data_path, out)
    assert run.code == 1, run.describe()
    assert "lnog" in run.stderr, run.describe()
    assert not out.exists()


# --------------------------------------------------------------------------
# pyarrow writes, floe reads
# --------------------------------------------------------------------------

def arrow_type_for(t, uuid_as_extension=True, with_ids=True) -> pa.DataType:
    def field(name, fid, required, ft):
        meta = {b"PARQUET:field_id": str(fid).encode()} if with_ids else None
        return pa.field(name, arrow_type_for(ft, uuid_as_extension, with_ids), nullable=not required,
                        metadata=meta)

    if isinstance(t, Struct):
        return pa.struct([field(f.name, f.id, f.required, f.type) for f in t.fields])
    if isinstance(t, ListT):
        return pa.list_(field("element", t.element_id, t.element_required, t.element))
    if isinstance(t, MapT):
        return pa.map_(field("key", t.key_id, True, t.key),
                       field("value", t.value_id, t.value_required, t.value))
    return {
        "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(), "float": pa.float32(),
        "double": pa.float64(), "date": pa.date32(), "time": pa.time64("us"),
        "timestamp": pa.timestamp("us"), "timestamptz": pa.timestamp("us", tz="UTC"),
        "string": pa.string(), "binary": pa.binary(),
        "uuid": pa.uuid() if uuid_as_extension else pa.binary(16),
        "fixed": pa.binary(t.length),
        "decimal": pa.decimal128(t.precision, t.scale) if t.name == "decimal" else None,
    }[t.name]


def conv_to_python(v, t):
    """A conventions value as the Python object pyarrow builds arrays from (uuid as bytes)."""
    if v is None:
        return None
    if isinstance(t, Struct):
        return {f.name: conv_to_python(v[f.name], f.type) for f in t.fields}
    if isinstance(t, ListT):
        return [conv_to_python(e, t.element) for e in v]
    if isinstance(t, MapT):
        return [(conv_to_python(e["key"], t.key), conv_to_python(e["value"], t.value)) for e in v]
    n = t.name
    if n in ("float", "double"):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(v, v) \
            if isinstance(v, str) else v
    if n == "decimal":
        return decimal.Decimal(v)
    if n == "date":
        return datetime.date.fromisoformat(v)
    if n == "time":
        return datetime.time.fromisoformat(v)
    if n == "timestamp":
        return datetime.datetime.fromisoformat(v)
    if n == "timestamptz":
        return datetime.datetime.fromisoformat(v)
    if n == "uuid":
        return uuid.UUID(v).bytes
    if n in ("fixed", "binary"):
        return base64.b64decode(v)
    return v


def build_arrow_table(fields: list[Field], rows: list[dict], with_ids=True) -> pa.Table:
    columns, schema_fields = [], []
    for f in fields:
        target = arrow_type_for(f.type, True, with_ids)
        storage = arrow_type_for(f.type, False, with_ids)
        array = pa.array([conv_to_python(r[f.name], f.type) for r in rows], type=storage)
        if target != storage:
            array = array.cast(target)
        columns.append(array)
        meta = {b"PARQUET:field_id": str(f.id).encode()} if with_ids else None
        schema_fields.append(pa.field(f.name, target, nullable=not f.required, metadata=meta))
    return pa.Table.from_arrays(columns, schema=pa.schema(schema_fields))


ENCODING_MODES = ["dictionary", "dictionary_fallback", "plain", "delta", "byte_stream_split"]
PYARROW_CODECS = ["NONE", "SNAPPY", "GZIP", "LZ4", "ZSTD"]


def encodings_for(mode: str, pf_schema) -> dict | None:
    if mode in ("dictionary", "dictionary_fallback"):
        return None
    table = {
        "plain": {"BOOLEAN": "PLAIN", "INT32": "PLAIN", "INT64": "PLAIN", "FLOAT": "PLAIN",
                  "DOUBLE": "PLAIN", "BYTE_ARRAY": "PLAIN", "FIXED_LEN_BYTE_ARRAY": "PLAIN"},
        "delta": {"BOOLEAN": "RLE", "INT32": "DELTA_BINARY_PACKED",
                  "INT64": "DELTA_BINARY_PACKED", "FLOAT": "BYTE_STREAM_SPLIT",
                  "DOUBLE": "BYTE_STREAM_SPLIT", "BYTE_ARRAY": "DELTA_LENGTH_BYTE_ARRAY",
                  "FIXED_LEN_BYTE_ARRAY": "DELTA_BYTE_ARRAY"},
        "byte_stream_split": {"BOOLEAN": "PLAIN", "INT32": "BYTE_STREAM_SPLIT",
                              "INT64": "BYTE_STREAM_SPLIT", "FLOAT": "BYTE_STREAM_SPLIT",
                              "DOUBLE": "BYTE_STREAM_SPLIT", "BYTE_ARRAY": "DELTA_BYTE_ARRAY",
                              "FIXED_LEN_BYTE_ARRAY": "BYTE_STREAM_SPLIT"},
    }[mode]
    out = {}
    for i in range(len(pf_schema)):
        column = pf_schema.column(i)
        if column.physical_type in table:
            out[column.path] = table[column.physical_type]
    return out


def write_with_pyarrow(table: pa.Table, path: pathlib.Path, mode: str, page_version: str,
                       codec: str, **extra) -> dict:
    options = dict(
        compression=codec,
        data_page_version=page_version,
        data_page_size=512,  # many pages per column chunk
        write_batch_size=32,
        row_group_size=120,
        write_statistics=True,
        store_decimal_as_integer=(mode in ("delta", "byte_stream_split")),
    )
    if mode == "dictionary":
        options["use_dictionary"] = True
    elif mode == "dictionary_fallback":
        options["use_dictionary"] = True
        options["dictionary_pagesize_limit"] = 128  # the dictionary overflows: falls back to PLAIN
    else:
        options["use_dictionary"] = False
        probe = path.with_suffix(".probe.parquet")
        pq.write_table(table.slice(0, 1), probe, **{**options, **extra})
        options["column_encoding"] = encodings_for(mode, pq.ParquetFile(probe).schema)
        probe.unlink()
    options.update(extra)
    pq.write_table(table, path, **options)
    return options


def check_encodings_used(path: pathlib.Path, mode: str, options: dict, strict: bool) -> set:
    """The file really uses the encodings the case claims to test. Whether a dictionary
    is used and overflows depends on the data, so that is only checked when `strict`
    (the kitchen-sink schema, whose data is known to need it)."""
    pf = pq.ParquetFile(path)
    md = pf.metadata
    used = set()
    dictionary_and_plain = False
    for rg in range(md.num_row_groups):
        for c in range(md.num_columns):
            chunk = md.row_group(rg).column(c)
            encodings = set(chunk.encodings)
            used |= encodings
            wanted = (options.get("column_encoding") or {}).get(chunk.path_in_schema)
            if wanted and chunk.num_values > 0:
                assert wanted in encodings, (
                    f"pyarrow wrote {chunk.path_in_schema} as {encodings}, the case needs {wanted}")
            if {"RLE_DICTIONARY", "PLAIN"} <= encodings:
                dictionary_and_plain = True
    if strict and mode in ("dictionary", "dictionary_fallback"):
        assert used & {"RLE_DICTIONARY", "PLAIN_DICTIONARY"}, f"no dictionary in {used}"
    if strict and mode == "dictionary_fallback":
        assert dictionary_and_plain, f"no column fell back from dictionary to PLAIN: {used}"
    return used


def floe_cat_rows(run_floe, path, *extra):
    run = run_floe("parquet", "cat", path, *extra)
    assert run.code == 0, f"floe parquet cat failed:\n{run.describe()}"
    return run, parse_floe_json_lines(run.stdout)


def pyarrow_cases():
    cases = []
    for mode, page_version, codec in itertools.product(ENCODING_MODES, ["1.0", "2.0"],
                                                       PYARROW_CODECS):
        cases.append(pytest.param("sink", mode, page_version, codec,
                                  id=f"sink-{mode}-v{page_version}-{codec}"))
    rng = random.Random(BASE_SEED)
    for i in range(1, 13):
        mode = rng.choice(ENCODING_MODES)
        page_version = rng.choice(["1.0", "2.0"])
        codec = rng.choice(PYARROW_CODECS)
        cases.append(pytest.param(f"case{i}", mode, page_version, codec,
                                  id=f"case{i}-{mode}-v{page_version}-{codec}"))
    return cases


@pytest.mark.parametrize("schema_case,mode,page_version,codec", pyarrow_cases())
def test_floe_reads_pyarrow_files(schema_case, mode, page_version, codec, run_floe, tmp_dir):
    if schema_case == "sink":
        fields, rows, _ = corpus_case(0)
    else:
        fields, rows, _ = corpus_case(int(schema_case[4:]))
    table = build_arrow_table(fields, rows)
    path = tmp_dir / "pyarrow.parquet"
    options = write_with_pyarrow(table, path, mode, page_version, codec)
    used = check_encodings_used(path, mode, options, strict=schema_case == "sink")
    hint = reproduce_hint("test_floe_reads_pyarrow_files",
                          f"{schema_case}-{mode}-v{page_version}-{codec}")
    # pyarrow itself reads back what was generated (guards the test's own conversions).
    compare_rows(rows, read_back_with_pyarrow(path, fields), fields, "pyarrow self-check")
    run, got = floe_cat_rows(run_floe, path)
    compare_rows(rows, got, fields,
                 f"{hint}\n$ {run.command}\npyarrow options {options}, encodings {sorted(used)}",
                 check_key_order=True)


@pytest.mark.parametrize("compliant", [True, False], ids=["element", "legacy_item"])
def test_floe_reads_pyarrow_nested_list_naming(compliant, run_floe, tmp_dir):
    """pyarrow's older list layout names the element 'item' instead of 'element'."""
    fields, rows, _ = corpus_case(0)
    table = build_arrow_table(fields, rows)
    path = tmp_dir / "lists.parquet"
    pq.write_table(table, path, use_compliant_nested_type=compliant)
    run, got = floe_cat_rows(run_floe, path)
    compare_rows(rows, got, fields, f"$ {run.command}", check_key_order=True)


def test_floe_reads_pyarrow_file_without_field_ids(run_floe, tmp_dir):
    fields, rows, _ = corpus_case(0)
    table = build_arrow_table(fields, rows, with_ids=False)
    path = tmp_dir / "no-ids.parquet"
    pq.write_table(table, path)
    run, got = floe_cat_rows(run_floe, path)
    compare_rows(rows, got, fields, f"$ {run.command}", check_key_order=True)


def test_floe_reads_pyarrow_int96_timestamps(run_floe, tmp_dir):
    rng = random.Random(BASE_SEED)
    ts_edges = [MIN_TS, MAX_TS, 0, -1, 1, 951_782_400_000_001]
    rows = []
    for i in range(500):
        a = rng.choice(ts_edges) if i < 30 else rng.randint(MIN_TS, MAX_TS)
        b = None if i % 7 == 0 else rng.randint(-10**12, 10**12)
        rows.append({"ts": fmt_timestamp(a, False), "tz": None if b is None else fmt_timestamp(b, True),
                     "nested": {"l": [fmt_timestamp(rng.randint(0, 10**15), False), None]}})
    fields = [
        Field(1, "ts", True, Prim("timestamp")),
        Field(2, "tz", False, Prim("timestamptz")),
        Field(3, "nested", False, Struct([
            Field(4, "l", False, ListT(5, False, Prim("timestamp")))])),
    ]
    table = build_arrow_table(fields, rows)
    path = tmp_dir / "int96.parquet"
    for page_version in ("1.0", "2.0"):
        pq.write_table(table, path, use_deprecated_int96_timestamps=True,
                       data_page_version=page_version, data_page_size=512, write_batch_size=32)
        pf = pq.ParquetFile(path)
        assert {pf.schema.column(i).physical_type for i in range(3)} == {"INT96"}
        # pyarrow reads its own INT96 back (as naive timestamps, at micros).
        self_check = [{k: arrow_value_to_conv(v, Prim("timestamp")) if k != "nested" else v
                       for k, v in r.items()}
                      for r in pq.read_table(path, coerce_int96_timestamp_unit="us").to_pylist()]
        assert [r["ts"] for r in self_check] == [r["ts"] for r in rows]
        run, got = floe_cat_rows(run_floe, path)
        # INT96 carries no UTC flag: accept the timestamp text with or without "+00:00".
        for row in got:
            for key in ("ts", "tz"):
                if isinstance(row.get(key), str):
                    row[key] = row[key].removesuffix("+00:00")
            l = (row.get("nested") or {}).get("l") or []
            for i, v in enumerate(l):
                if isinstance(v, str):
                    l[i] = v.removesuffix("+00:00")
        expected = [{"ts": r["ts"], "tz": None if r["tz"] is None else r["tz"][:-6],
                     "nested": r["nested"]} for r in rows]
        plain_fields = [Field(1, "ts", True, Prim("timestamp")),
                        Field(2, "tz", False, Prim("timestamp")), fields[2]]
        compare_rows(expected, got, plain_fields, f"$ {run.command} (page {page_version})",
                     check_key_order=True)


def test_floe_cat_limit(run_floe, tmp_dir):
    fields, rows, _ = corpus_case(0)
    table = build_arrow_table(fields, rows)
    path = tmp_dir / "limit.parquet"
    pq.write_table(table, path, row_group_size=50)
    for limit in (0, 1, 5, 51, len(rows), len(rows) + 10):
        run, got = floe_cat_rows(run_floe, path, "--limit", str(limit))
        compare_rows(rows[:limit], got, fields, f"$ {run.command}", check_key_order=True)


@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
@pytest.mark.parametrize("codec", PYARROW_CODECS)
def test_floe_reads_empty_pages(codec, page_version, run_floe, tmp_dir):
    """Pages and dictionaries that decompress to zero bytes (all-null columns: an empty
    dictionary page, a v2 page with no values) are valid in every codec. Found by the
    corpus: gzip pages of zero bytes were refused as corrupt."""
    fields = [Field(1, "id", True, Prim("long")), Field(2, "s", False, Prim("string")),
              Field(3, "l", False, ListT(4, False, Prim("int")))]
    rows = [{"id": i, "s": None, "l": None if i % 2 else []} for i in range(10)]
    table = build_arrow_table(fields, rows)
    for use_dictionary in (True, False):
        path = tmp_dir / f"empty-{use_dictionary}.parquet"
        pq.write_table(table, path, compression=codec, data_page_version=page_version,
                       use_dictionary=use_dictionary)
        run, got = floe_cat_rows(run_floe, path)
        compare_rows(rows, got, fields, f"$ {run.command}", check_key_order=True)
