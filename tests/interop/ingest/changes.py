"""Random change streams in Debezium JSON, and the final table state they must produce.

A `ChangeStream` keeps an in-memory model of every source table (key -> row, in floe's JSON
row conventions, docs/json-rows.md) and writes each change as one Debezium JSON line (the
Kafka Connect `{"schema", "payload"}` wrapper, the way Debezium's MySQL connector and
`floe capture` write them). The model after the last line is what the lake must hold.

Tables (`TABLES`): each has a primary key; `shop.items` is meant to be partitioned by
`region` (part of its key), so an update that changes `region` moves the row to another
partition. Changes: inserts, updates (several per key, within and across checkpoints),
deletes, key changes (an update whose before and after keys differ), mid-stream schema
changes (a new optional column, an int widened to a long) carried by the schema block, and,
with `truncates=True`, rare truncations (Debezium's op "t", before and after null) that empty
a table's model.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import decimal
import json
import random
from typing import Any

EPOCH = dt.datetime(1970, 1, 1)
REGIONS = ["eu", "us", "apac", "latam"]


@dataclasses.dataclass
class Column:
    name: str
    connect_type: str  # Kafka Connect type: int32, int64, string, boolean, bytes
    logical: str | None = None  # Debezium / Connect logical name
    optional: bool = True
    params: dict | None = None


def base_columns() -> list[Column]:
    return [
        Column("id", "int64", optional=False),
        Column("region", "string", optional=False),
        Column("qty", "int32"),
        Column("price", "bytes", "org.apache.kafka.connect.data.Decimal",
               params={"scale": "2", "connect.decimal.precision": "10"}),
        Column("ts", "int64", "io.debezium.time.MicroTimestamp"),
        Column("day", "int32", "io.debezium.time.Date"),
        Column("note", "string"),
        Column("flag", "boolean"),
    ]


@dataclasses.dataclass
class SourceTable:
    db: str
    name: str
    key: list[str]
    columns: list[Column]
    rows: dict = dataclasses.field(default_factory=dict)  # key tuple -> row (floe JSON)

    @property
    def ident(self) -> str:
        return f"{self.db}.{self.name}"

    def key_of(self, row: dict) -> tuple:
        return tuple(row[k] for k in self.key)


def make_tables() -> list[SourceTable]:
    return [
        SourceTable("shop", "orders", ["id"], base_columns()),
        SourceTable("shop", "items", ["region", "id"], base_columns()),
        SourceTable("crm", "people", ["id"], base_columns()),
    ]


# --- values: the floe JSON form (what a reader prints) and the Debezium wire form

def decimal_bytes(text: str, scale: int) -> str:
    unscaled = int(decimal.Decimal(text).scaleb(scale))
    length = max(1, (unscaled.bit_length() + 8) // 8)
    return base64.b64encode(unscaled.to_bytes(length, "big", signed=True)).decode()


def wire_value(column: Column, value: Any) -> Any:
    if value is None:
        return None
    if column.logical == "org.apache.kafka.connect.data.Decimal":
        return decimal_bytes(value, int(column.params["scale"]))
    if column.logical == "io.debezium.time.MicroTimestamp":
        t = dt.datetime.fromisoformat(value)
        delta = t - EPOCH
        return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    if column.logical == "io.debezium.time.Date":
        return (dt.date.fromisoformat(value) - EPOCH.date()).days
    return value


def field_schema(column: Column) -> dict:
    out: dict = {"type": column.connect_type, "optional": column.optional, "field": column.name}
    if column.logical:
        out["name"] = column.logical
        out["version"] = 1
    if column.params:
        out["parameters"] = dict(column.params)
    return out


def envelope_schema(table: SourceTable) -> dict:
    value_name = f"floe.{table.db}.{table.name}.Value"
    value = {"type": "struct", "optional": True, "name": value_name,
             "fields": [field_schema(c) for c in table.columns]}
    source = {"type": "struct", "optional": False, "name": "io.debezium.connector.mysql.Source",
              "field": "source", "fields": [
                  {"type": "string", "optional": False, "field": "db"},
                  {"type": "string", "optional": True, "field": "table"},
                  {"type": "int64", "optional": False, "field": "ts_ms"}]}
    return {"type": "struct", "optional": False, "name": f"floe.{table.db}.{table.name}.Envelope",
            "fields": [dict(value, field="before"), dict(value, field="after"), source,
                       {"type": "string", "optional": False, "field": "op"},
                       {"type": "int64", "optional": True, "field": "ts_ms"}]}


class ChangeStream:
    """Generates changes; `lines()` yields Debezium JSON lines; the tables' `rows` hold the
    expected final state."""

    def __init__(self, seed: int, tables: list[SourceTable] | None = None,
                 schema_changes: bool = True, truncates: bool = False,
                 truncate_rate: float = 0.0001):
        self.random = random.Random(seed)
        self.tables = tables if tables is not None else make_tables()
        self.next_id = 1
        self.ts_ms = 1_700_000_000_000
        self.schema_changes = schema_changes
        self.truncates = truncates
        self.truncate_rate = truncate_rate
        self.truncated = 0  # op "t" lines written
        self._schema_text: dict[str, str] = {}

    def _random_row(self, table: SourceTable, key: dict | None = None) -> dict:
        r = self.random
        row: dict = {}
        for c in table.columns:
            if c.name == "id":
                value = key["id"] if key else self._new_id()
            elif c.name == "region":
                value = key["region"] if key else r.choice(REGIONS)
            elif c.name == "qty":
                value = r.choice([None, r.randint(-1000, 1000), r.randint(-2**31, 2**31 - 1)])
            elif c.name == "price":
                value = None if r.random() < 0.1 else f"{r.randint(-99999999, 99999999) / 100:.2f}"
            elif c.name == "ts":
                # Mostly within a few days (day(ts) partitions stay few), now and then far away.
                seconds = r.randint(1_700_000_000, 1_700_000_000 + 4 * 86400) if r.random() < 0.995 \
                    else r.randint(0, 4_000_000_000)
                micros = seconds * 1_000_000 + r.randint(0, 999_999)
                value = (EPOCH + dt.timedelta(microseconds=micros)).isoformat(timespec="microseconds")
            elif c.name == "day":
                value = (EPOCH.date() + dt.timedelta(days=r.randint(0, 30000))).isoformat()
            elif c.name == "note":
                value = r.choice([None, "", "plain", "ünïcødé ✓", "quote\"back\\slash", "x" * r.randint(1, 300)])
            elif c.name == "flag":
                value = r.choice([True, False, None])
            elif c.connect_type == "string":
                value = r.choice([None, f"v{r.randint(0, 99)}"])
            else:
                value = r.choice([None, r.randint(-2**40, 2**40) if c.connect_type == "int64" else r.randint(-100, 100)])
            row[c.name] = value
        return row

    def _new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def _line(self, table: SourceTable, op: str, before: dict | None, after: dict | None) -> str:
        self.ts_ms += 1
        text = self._schema_text.get(table.ident)
        if text is None:
            text = json.dumps(envelope_schema(table), separators=(",", ":"))
            self._schema_text[table.ident] = text

        def wire(row: dict | None):
            if row is None:
                return None
            return {c.name: wire_value(c, row.get(c.name)) for c in table.columns}

        payload = {"before": wire(before), "after": wire(after),
                   "source": {"db": table.db, "table": table.name, "ts_ms": self.ts_ms},
                   "op": op, "ts_ms": self.ts_ms}
        return '{"schema":' + text + ',"payload":' + json.dumps(payload, separators=(",", ":")) + "}"

    def _evolve(self, table: SourceTable) -> None:
        names = [c.name for c in table.columns]
        if "extra" not in names:
            table.columns.append(Column("extra", "string"))
            for row in table.rows.values():
                row["extra"] = None
        elif "big" not in names:
            table.columns.append(Column("big", "int32"))
            for row in table.rows.values():
                row["big"] = None
        else:
            for c in table.columns:
                if c.name == "big" and c.connect_type == "int32":
                    c.connect_type = "int64"  # widened: int -> long
        self._schema_text.pop(table.ident, None)

    def next_line(self) -> str:
        r = self.random
        table = r.choice(self.tables)
        if self.schema_changes and r.random() < 0.0005:
            self._evolve(table)
        # Drawn only when enabled, so streams without truncations stay as they were.
        if self.truncates and r.random() < self.truncate_rate and table.rows:
            table.rows.clear()
            self.truncated += 1
            return self._line(table, "t", None, None)
        choice = r.random()
        if not table.rows or choice < 0.35:
            row = self._random_row(table)
            table.rows[table.key_of(row)] = row
            return self._line(table, r.choice("ccccr"), None, row)
        key = r.choice(list(table.rows.keys())) if len(table.rows) < 64 else self._pick_key(table)
        before = table.rows[key]
        if choice < 0.80:
            after = self._random_row(table, {"id": before["id"], "region": before["region"]})
            if "region" in table.key and r.random() < 0.1:
                after["region"] = r.choice([x for x in REGIONS if x != before["region"]])
                if table.key_of(after) in table.rows:
                    after["region"] = before["region"]
            del table.rows[key]
            table.rows[table.key_of(after)] = after
            return self._line(table, "u", before, after)
        del table.rows[key]
        return self._line(table, "d", before, None)

    def _pick_key(self, table: SourceTable) -> tuple:
        # Recent keys more often (several changes to one key within a checkpoint), any key
        # sometimes (changes across checkpoints). Dicts keep insertion order.
        keys = table.rows.keys()
        if self.random.random() < 0.6:
            recent = list(keys)[-32:]
            return self.random.choice(recent)
        index = self.random.randrange(len(table.rows))
        for i, key in enumerate(keys):
            if i == index:
                return key
        raise AssertionError("unreachable")

    def lines(self, count: int):
        for _ in range(count):
            yield self.next_line()

    def expected(self) -> dict[str, list[dict]]:
        return {t.ident: list(t.rows.values()) for t in self.tables}
