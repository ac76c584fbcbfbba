"""Rows, schemas and filters of the Iceberg interop tests, in floe's JSON conventions.

Everything here works on plain JSON values as floe prints them (docs/json-rows.md):
decimals as strings with exactly `scale` fraction digits, dates/times/timestamps as ISO
text with six fraction digits, timestamptz with "+00:00", binary/fixed as base64, uuid as
text, maps as [{"key": k, "value": v}]. Types are Iceberg JSON types (the schema JSON of
the spec: "long", "decimal(12, 3)", {"type": "struct", ...}).

- `generate_rows` makes random but seeded rows of `BASE_SCHEMA`.
- `to_python` / `from_python` convert between the conventions and the Python values that
  pyarrow and PyIceberg use.
- `assert_same_rows` compares two row sets exactly, order-insensitively (map entries are
  unordered; list order counts; numbers compare by value).
- `schema_signature` reduces a schema to (id, name, type, required) for comparison.
- A filter is a nested list (`["and", [">=", "id", 5], ["is_null", "s"]]`); `filter_sql`
  renders it for floe and PyIceberg, `json.dumps` for the Java peer, and `matches`
  evaluates it on a row of the model.
"""

from __future__ import annotations

import base64
import collections
import copy
import datetime as dt
import decimal
import json
import math
import random
import re
import uuid
from typing import Any, Iterable

EPOCH = dt.datetime(1970, 1, 1)
EPOCH_TZ = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)

# Ids are in the order a fresh assignment gives (top-level fields first, then nested ones, as
# Iceberg Java and PyIceberg assign them at create), so every writer keeps them as they are.
# Every primitive type floe writes, plus a struct, a list and a map. `id` is required and
# unique; `dt` is required (so `--optional dt` has something to do); `n` and `f` exist to be
# widened (int -> long, float -> double) and `b` to be dropped, none of them a partition
# source.
BASE_SCHEMA: dict = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "i", "required": False, "type": "int"},
        {"id": 3, "name": "n", "required": False, "type": "int"},
        {"id": 4, "name": "l", "required": False, "type": "long"},
        {"id": 5, "name": "f", "required": False, "type": "float"},
        {"id": 6, "name": "d", "required": False, "type": "double"},
        {"id": 7, "name": "dec", "required": False, "type": "decimal(12, 3)"},
        {"id": 8, "name": "dt", "required": True, "type": "date"},
        {"id": 9, "name": "t", "required": False, "type": "time"},
        {"id": 10, "name": "ts", "required": False, "type": "timestamp"},
        {"id": 11, "name": "tz", "required": False, "type": "timestamptz"},
        {"id": 12, "name": "s", "required": False, "type": "string"},
        {"id": 13, "name": "u", "required": False, "type": "uuid"},
        {"id": 14, "name": "fx", "required": False, "type": "fixed[4]"},
        {"id": 15, "name": "b", "required": False, "type": "binary"},
        {"id": 16, "name": "bo", "required": False, "type": "boolean"},
        {
            "id": 17,
            "name": "st",
            "required": False,
            "type": {
                "type": "struct",
                "fields": [
                    {"id": 20, "name": "x", "required": False, "type": "int"},
                    {"id": 21, "name": "y", "required": False, "type": "string"},
                ],
            },
        },
        {
            "id": 18,
            "name": "ls",
            "required": False,
            "type": {"type": "list", "element-id": 22, "element": "long", "element-required": False},
        },
        {
            "id": 19,
            "name": "mp",
            "required": False,
            "type": {
                "type": "map",
                "key-id": 23,
                "key": "string",
                "value-id": 24,
                "value": "int",
                "value-required": False,
            },
        },
    ],
}

# Each partition transform on a fitting column, in floe's --partition-by syntax (which the
# Java peer and the PyIceberg helpers also read). None of these sources is dropped or
# widened by the evolution step.
TRANSFORMS: dict[str, str] = {
    "unpartitioned": "",
    "identity": "s, bo",
    "bucket": "bucket(7, id), bucket(3, u)",
    "bucket_more": "bucket(4, dec), bucket(5, dt), bucket(3, ts), bucket(2, fx)",
    "truncate": "truncate(3, s), truncate(10, i), truncate(100, dec)",
    "year": "year(dt)",
    "month": "month(ts)",
    "day": "day(tz)",
    "hour": "hour(ts)",
}

_STRING_ALPHABET = "abcxyz é/=%_-"


# ----------------------------------------------------------------------------- types


def find_field(schema: dict, name: str) -> dict:
    for f in schema["fields"]:
        if f["name"] == name:
            return f
    raise KeyError(f"no field {name!r} in schema")


def field_type(schema: dict, name: str) -> Any:
    return find_field(schema, name)["type"]


def _prim(t: Any) -> str:
    return re.sub(r"\s+", "", t) if isinstance(t, str) else t["type"]


# ----------------------------------------------------------------------------- generation


def _fmt_ts(micros: int) -> str:
    return (EPOCH + dt.timedelta(microseconds=micros)).strftime("%Y-%m-%dT%H:%M:%S.%f")


def _fmt_time(micros: int) -> str:
    t = (EPOCH + dt.timedelta(microseconds=micros)).time()
    return t.strftime("%H:%M:%S.%f")


def _fmt_decimal(unscaled: int, scale: int) -> str:
    return format(decimal.Decimal(unscaled).scaleb(-scale), "f")


def random_value(rng: random.Random, t: Any, null_rate: float = 0.1) -> Any:
    """A random value of Iceberg type `t` in floe's JSON conventions (never null at top)."""
    p = _prim(t)
    if p == "boolean":
        return rng.random() < 0.5
    if p == "int":
        return rng.randint(-(2**31), 2**31 - 1) if rng.random() < 0.2 else rng.randint(-500, 500)
    if p == "long":
        return rng.randint(-(2**63), 2**63 - 1) if rng.random() < 0.2 else rng.randint(-10**6, 10**6)
    if p == "float":
        return rng.randint(-80000, 80000) / 8  # exact in float32
    if p == "double":
        return rng.choice(["NaN", "Infinity", 0.0, -0.5]) if rng.random() < 0.05 else rng.uniform(-1e9, 1e9)
    if p.startswith("decimal"):
        precision, scale = (int(x) for x in re.findall(r"\d+", p))
        limit = 10 ** min(precision, 12) - 1
        return _fmt_decimal(rng.randint(-limit, limit) if rng.random() < 0.3 else rng.randint(-99999, 99999), scale)
    if p == "date":
        return (dt.date(1970, 1, 1) + dt.timedelta(days=rng.randint(-20000, 30000))).isoformat()
    if p == "time":
        return _fmt_time(rng.randint(0, 86_400_000_000 - 1))
    if p == "timestamp":
        return _fmt_ts(rng.randint(-1_500_000_000_000_000, 2_200_000_000_000_000))
    if p == "timestamptz":
        return _fmt_ts(rng.randint(-1_500_000_000_000_000, 2_200_000_000_000_000)) + "+00:00"
    if p == "string":
        return "".join(rng.choice(_STRING_ALPHABET) for _ in range(rng.randint(0, 8)))
    if p == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128)))
    if p.startswith("fixed"):
        n = int(re.findall(r"\d+", p)[0])
        return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(n))).decode()
    if p == "binary":
        return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 6)))).decode()
    if p == "struct":
        return {
            f["name"]: (None if not f["required"] and rng.random() < null_rate else random_value(rng, f["type"]))
            for f in t["fields"]
        }
    if p == "list":
        return [
            None if not t["element-required"] and rng.random() < null_rate else random_value(rng, t["element"])
            for _ in range(rng.randint(0, 3))
        ]
    if p == "map":
        keys: dict = {}
        for _ in range(rng.randint(0, 3)):
            k = random_value(rng, t["key"])
            keys[json.dumps(k)] = k
        return [
            {
                "key": k,
                "value": None if not t["value-required"] and rng.random() < null_rate else random_value(rng, t["value"]),
            }
            for k in keys.values()
        ]
    raise ValueError(f"no generator for type {t!r}")


def generate_rows(
    seed: int, count: int, first_id: int, schema: dict = BASE_SCHEMA, null_rate: float = 0.1
) -> list[dict]:
    """`count` rows of `schema` with ids first_id, first_id + 1, ...; seeded, so repeatable."""
    rng = random.Random(seed)
    # A small pool of values per column so identity/truncate partitions hold several rows.
    pools = {f["name"]: [random_value(rng, f["type"]) for _ in range(6)] for f in schema["fields"]}
    rows = []
    for k in range(count):
        row = {}
        for f in schema["fields"]:
            name = f["name"]
            if name == "id":
                row[name] = first_id + k
            elif not f["required"] and rng.random() < null_rate:
                row[name] = None
            elif rng.random() < 0.5:
                row[name] = copy.deepcopy(rng.choice(pools[name]))
            else:
                row[name] = random_value(rng, f["type"], null_rate)
        rows.append(row)
    return rows


def to_jsonl(rows: Iterable[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def parse_jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# ----------------------------------------------------------------------------- Python values


def to_python(value: Any, t: Any) -> Any:
    """floe JSON convention -> the Python value pyarrow takes for Iceberg type `t`."""
    if value is None:
        return None
    p = _prim(t)
    if p in ("boolean", "int", "long", "string"):
        return value
    if p in ("float", "double"):
        return float(value)
    if p.startswith("decimal"):
        return decimal.Decimal(str(value))
    if p == "date":
        return dt.date.fromisoformat(value)
    if p == "time":
        return dt.time.fromisoformat(value)
    if p in ("timestamp", "timestamptz"):
        return dt.datetime.fromisoformat(value)
    if p == "uuid":
        return uuid.UUID(value)
    if p.startswith("fixed") or p == "binary":
        return base64.b64decode(value)
    if p == "struct":
        return {f["name"]: to_python(value.get(f["name"]), f["type"]) for f in t["fields"]}
    if p == "list":
        return [to_python(v, t["element"]) for v in value]
    if p == "map":
        return [(to_python(e["key"], t["key"]), to_python(e["value"], t["value"])) for e in value]
    raise ValueError(f"type {t!r}")


def _fmt_float(x: float) -> Any:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def from_python(value: Any, t: Any) -> Any:
    """A Python value from pyarrow's to_pylist() -> floe's JSON convention for type `t`."""
    if value is None:
        return None
    p = _prim(t)
    if p in ("boolean", "int", "long", "string"):
        return value
    if p in ("float", "double"):
        return _fmt_float(float(value))
    if p.startswith("decimal"):
        scale = int(re.findall(r"\d+", p)[1])
        return format(decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-scale)), "f")
    if p == "date":
        return value.isoformat()
    if p == "time":
        return value.strftime("%H:%M:%S.%f")
    if p == "timestamp":
        return value.strftime("%Y-%m-%dT%H:%M:%S.%f")
    if p == "timestamptz":
        return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f") + "+00:00"
    if p == "uuid":
        return str(value if isinstance(value, uuid.UUID) else uuid.UUID(bytes=bytes(value)))
    if p.startswith("fixed") or p == "binary":
        return base64.b64encode(bytes(value)).decode()
    if p == "struct":
        return {f["name"]: from_python(value.get(f["name"]), f["type"]) for f in t["fields"]}
    if p == "list":
        return [from_python(v, t["element"]) for v in value]
    if p == "map":
        items = value.items() if isinstance(value, dict) else value
        return [{"key": from_python(k, t["key"]), "value": from_python(v, t["value"])} for k, v in items]
    raise ValueError(f"type {t!r}")


def arrow_rows(table, schema: dict) -> list[dict]:
    """A pyarrow Table (from PyIceberg) -> rows in floe's conventions, typed by `schema`."""
    types = {f["name"]: f["type"] for f in schema["fields"]}
    return [{k: from_python(v, types[k]) for k, v in row.items()} for row in table.to_pylist()]


# ----------------------------------------------------------------------------- comparison


def _canon(value: Any, t: Any) -> Any:
    if value is None:
        return None
    p = _prim(t)
    if p in ("float", "double"):
        return value if isinstance(value, str) else float(value)
    if p == "struct":
        return tuple((f["name"], _canon(value.get(f["name"]), f["type"])) for f in t["fields"])
    if p == "list":
        return tuple(_canon(v, t["element"]) for v in value)
    if p == "map":
        entries = [(_canon(e["key"], t["key"]), _canon(e["value"], t["value"])) for e in value]
        return tuple(sorted(entries, key=repr))
    return value


def canonical_row(row: dict, schema: dict, columns: Iterable[str] | None = None) -> tuple:
    """A hashable form of a row: the listed columns (default: the schema's) in order; a
    column the row lacks shows as "<missing>", one it has beyond them as "<unexpected>"."""
    names = list(columns) if columns is not None else [f["name"] for f in schema["fields"]]
    out: list[tuple] = []
    for n in names:
        out.append((n, _canon(row[n], field_type(schema, n)) if n in row else "<missing>"))
    for n in sorted(set(row) - set(names)):
        out.append((n, "<unexpected>", repr(row[n])))
    return tuple(out)


def assert_same_rows(
    actual: list[dict],
    expected: list[dict],
    schema: dict,
    what: str,
    columns: Iterable[str] | None = None,
) -> None:
    """Asserts the two row multisets are equal (order-insensitive), naming the differences."""
    cols = list(columns) if columns is not None else None
    a = collections.Counter(canonical_row(r, schema, cols) for r in actual)
    e = collections.Counter(canonical_row(r, schema, cols) for r in expected)
    if a == e:
        return
    missing = list((e - a).elements())
    extra = list((a - e).elements())

    def show(rows):
        return "\n".join("    " + repr(r)[:800] for r in rows[:5])

    raise AssertionError(
        f"{what}: rows differ: {len(actual)} read, {len(expected)} expected; "
        f"{len(missing)} missing, {len(extra)} unexpected\n"
        f"  missing (first 5):\n{show(missing)}\n  unexpected (first 5):\n{show(extra)}"
    )


def _type_signature(t: Any) -> Any:
    if isinstance(t, str):
        return re.sub(r"\s+", "", t).lower()
    kind = t["type"]
    if kind == "struct":
        return ("struct", tuple(_field_signature(f) for f in t["fields"]))
    if kind == "list":
        return ("list", t["element-id"], bool(t["element-required"]), _type_signature(t["element"]))
    if kind == "map":
        return (
            "map",
            t["key-id"],
            _type_signature(t["key"]),
            t["value-id"],
            bool(t["value-required"]),
            _type_signature(t["value"]),
        )
    raise ValueError(f"type {t!r}")


def _field_signature(f: dict) -> tuple:
    return (f["id"], f["name"], _type_signature(f["type"]), bool(f["required"]))


def schema_signature(schema: dict) -> tuple:
    """(id, name, type, required) of every field, nested ones inside their parent's type."""
    return tuple(_field_signature(f) for f in schema["fields"])


def assert_same_schema(actual: dict, expected: dict, what: str) -> None:
    a, e = schema_signature(actual), schema_signature(expected)
    if a != e:
        lines = [f"{what}: schemas differ"]
        for x, y in zip(a, e):
            if x != y:
                lines.append(f"  read {x}\n  want {y}")
        if len(a) != len(e):
            lines.append(f"  read {len(a)} fields, want {len(e)}: read {a}\n want {e}")
        raise AssertionError("\n".join(lines))


# ----------------------------------------------------------------------------- filters


def _sql_literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def filter_sql(f: list, decimal_columns: Iterable[str] = ()) -> str:
    """SQL-like text for floe's --where and PyIceberg's row_filter. Decimal literals are
    written as numbers; everything else that is text in JSON is quoted."""
    dec = set(decimal_columns)
    op = f[0]
    if op == "true":
        return "true"
    if op in ("and", "or"):
        return f"({filter_sql(f[1], dec)} {op.upper()} {filter_sql(f[2], dec)})"
    if op == "not":
        return f"NOT ({filter_sql(f[1], dec)})"
    if op == "is_null":
        return f"{f[1]} IS NULL"
    if op == "not_null":
        return f"{f[1]} IS NOT NULL"

    def lit(v):
        return str(v) if f[1] in dec else _sql_literal(v)

    if op == "in":
        return f"{f[1]} IN ({', '.join(lit(v) for v in f[2])})"
    return f"{f[1]} {op} {lit(f[2])}"


def _comparable(v: Any, t: Any) -> Any:
    p = _prim(t)
    if p.startswith("decimal"):
        return decimal.Decimal(str(v))
    if p == "date":
        return dt.date.fromisoformat(v)
    if p == "timestamp":
        return dt.datetime.fromisoformat(v)
    if p == "timestamptz":
        x = dt.datetime.fromisoformat(v)
        return x if x.tzinfo else x.replace(tzinfo=dt.timezone.utc)
    if p == "time":
        return dt.time.fromisoformat(v)
    if p == "uuid":
        return uuid.UUID(v)
    return v


def matches(row: dict, f: list, schema: dict) -> bool:
    """Evaluates a filter on a model row (comparisons with null are false)."""
    op = f[0]
    if op == "true":
        return True
    if op == "and":
        return matches(row, f[1], schema) and matches(row, f[2], schema)
    if op == "or":
        return matches(row, f[1], schema) or matches(row, f[2], schema)
    if op == "not":
        return not matches(row, f[1], schema)
    if op == "is_null":
        return row.get(f[1]) is None
    if op == "not_null":
        return row.get(f[1]) is not None
    t = field_type(schema, f[1])
    v = row.get(f[1])
    if v is None:
        return False
    v = _comparable(v, t)
    if op == "in":
        return v in [_comparable(x, t) for x in f[2]]
    lit = _comparable(f[2], t)
    return {
        "=": v == lit,
        "!=": v != lit,
        "<": v < lit,
        "<=": v <= lit,
        ">": v > lit,
        ">=": v >= lit,
    }[op]


def decimal_columns(schema: dict) -> list[str]:
    return [f["name"] for f in schema["fields"] if isinstance(f["type"], str) and f["type"].startswith("decimal")]


# ----------------------------------------------------------------------------- schema changes


def evolve_schema(schema: dict, changes: list[dict], last_column_id: int) -> tuple[dict, int]:
    """Applies schema changes ({"op": "add"|"rename"|"drop"|"widen"|"optional", ...}, the
    Java peer's format) the way the spec assigns ids: added columns get last_column_id + 1, ...
    Returns the new schema and last column id."""
    s = copy.deepcopy(schema)
    for c in changes:
        op = c["op"]
        if op == "add":
            last_column_id += 1
            s["fields"].append({"id": last_column_id, "name": c["name"], "required": False, "type": c["type"]})
        elif op == "rename":
            find_field(s, c["name"])["name"] = c["to"]
        elif op == "drop":
            s["fields"] = [f for f in s["fields"] if f["name"] != c["name"]]
        elif op == "widen":
            find_field(s, c["name"])["type"] = c["type"]
        elif op == "optional":
            find_field(s, c["name"])["required"] = False
        else:
            raise ValueError(op)
    return s, last_column_id


def evolve_rows(rows: Iterable[dict], changes: list[dict]) -> list[dict]:
    """The model's rows after the same schema changes (added columns read as null)."""
    out = []
    for r in rows:
        r = dict(r)
        for c in changes:
            if c["op"] == "add":
                r[c["name"]] = None
            elif c["op"] == "rename":
                r[c["to"]] = r.pop(c["name"])
            elif c["op"] == "drop":
                r.pop(c["name"])
            # widen and optional change no value (float32 values are exact in double)
        out.append(r)
    return out


def floe_evolve_args(changes: list[dict]) -> list[str]:
    """The same changes as `floe table evolve` options."""
    args: list[str] = []
    for c in changes:
        if c["op"] == "add":
            args += ["--add", f"{c['name']} {c['type']}"]
        elif c["op"] == "rename":
            args += ["--rename", f"{c['name']}={c['to']}"]
        elif c["op"] == "drop":
            args += ["--drop", c["name"]]
        elif c["op"] == "widen":
            args += ["--widen", f"{c['name']} {c['type']}"]
        elif c["op"] == "optional":
            args += ["--optional", c["name"]]
    return args


# The evolution every scenario applies: add, rename, drop, widen int->long and
# float->double, required->optional. `s` is renamed (it is a partition source in some
# specs, which must keep working through the rename).
SCHEMA_CHANGES: list[dict] = [
    {"op": "add", "name": "note", "type": "string"},
    {"op": "add", "name": "qty", "type": "long"},
    {"op": "rename", "name": "s", "to": "label"},
    {"op": "drop", "name": "b"},
    {"op": "widen", "name": "n", "type": "long"},
    {"op": "widen", "name": "f", "type": "double"},
    {"op": "optional", "name": "dt"},
]
