"""`floe ingest --format canal-json`: Canal's flat JSON messages into upsert tables,
exactly once under SIGKILL.

A random stream of Canal messages over two tables (several rows per message, updates
whose `old` holds only the changed columns — sometimes the key, so the row moves —,
deletes, a column added mid-stream through `mysqlType`, and DDL messages that are passed
over) grows in a file while `floe ingest --follow --upsert` runs without --primary-key
(the keys come from `pkNames`); the run is killed with SIGKILL at random moments and
restarted, then a last run finishes the file. Each table must equal the model row for
row, read by Iceberg Java (the judge of equality deletes) and by the spec's rules over
PyIceberg's metadata.
"""

from __future__ import annotations

import json
import os
import random
import subprocess

from iceberg_rows import assert_same_rows
from ingest_runs import grow_and_kill
from lake_check import assert_no_checkpoint_twice, merge_on_read

BASE_TYPES = {"id": "bigint(20)", "region": "varchar(8)", "qty": "int(11)",
              "price": "decimal(10,2)", "ts": "datetime(6)", "day": "date", "note": "text"}
REGIONS = ["eu", "us", "apac"]


class CanalStream:
    """The messages, and the rows each table must hold after them (floe JSON values)."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)
        self.tables = {"orders": (["id"], dict(BASE_TYPES)), "items": (["region", "id"], dict(BASE_TYPES))}
        self.rows: dict[str, dict[tuple, dict]] = {name: {} for name in self.tables}
        self.next_id = 1
        self.sent = 0

    def _row(self) -> dict:
        r = self.random
        self.next_id += 1
        ts = f"2024-0{r.randint(1, 9)}-1{r.randint(0, 9)} 0{r.randint(0, 9)}:1{r.randint(0, 9)}:00.{r.randint(0, 999999):06d}"
        return {"id": str(self.next_id), "region": r.choice(REGIONS), "qty": str(r.randint(-5, 500)),
                "price": f"{r.randint(0, 99999)}.{r.randint(0, 99):02d}", "ts": ts,
                "day": f"2023-1{r.randint(0, 2)}-0{r.randint(1, 9)}",
                "note": r.choice([None, "plain", "quote \" and \\ and ü", "x" * r.randint(0, 40)])}

    @staticmethod
    def _floe(row: dict, types: dict) -> dict:
        out = {}
        for name in types:
            v = row.get(name)
            if v is None:
                out[name] = None
            elif name in ("id", "qty"):
                out[name] = int(v)
            elif name == "ts":
                out[name] = v.replace(" ", "T")
            else:
                out[name] = v
        return out

    def _message(self, table: str, kind: str, data: list[dict], old: list[dict] | None = None) -> str:
        key, types = self.tables[table]
        self.sent += 1
        return json.dumps({"data": data, "database": "shop", "table": table, "pkNames": key,
                           "isDdl": False, "type": kind, "es": 1700000000000 + self.sent,
                           "ts": 1700000000000 + self.sent, "id": self.sent, "sql": "",
                           "mysqlType": types, "sqlType": {n: 12 for n in types}, "old": old})

    def lines(self, count: int) -> list[str]:
        out = []
        r = self.random
        while len(out) < count:
            table = r.choice(list(self.tables))
            key, types = self.tables[table]
            rows = self.rows[table]
            pick = r.random()
            if self.sent > 400 and "color" not in self.tables["orders"][1]:
                # A column added at the source: DDL message, then rows that carry it.
                self.tables["orders"][1]["color"] = "varchar(10)"
                out.append(json.dumps({"data": None, "database": "shop", "table": "orders", "isDdl": True,
                                       "type": "ALTER", "sql": "ALTER TABLE orders ADD color varchar(10)",
                                       "es": 1, "ts": 1, "id": 0, "pkNames": None, "mysqlType": None,
                                       "sqlType": None, "old": None}))
                continue
            if pick < 0.45 or len(rows) < 5:
                data = [self._row() for _ in range(r.randint(1, 3))]
                if "color" in types:
                    for d in data:
                        d["color"] = r.choice([None, "red", "blue"])
                for d in data:
                    rows[tuple(d[k] for k in key)] = d
                out.append(self._message(table, "INSERT", data))
            elif pick < 0.85:
                chosen = r.sample(list(rows), min(len(rows), r.randint(1, 2)))
                data, old = [], []
                for k in chosen:
                    before = rows.pop(k)
                    after = dict(before)
                    changed = {}
                    for name in r.sample(["qty", "price", "note"] + (["color"] if "color" in types else []), 2):
                        changed[name] = before.get(name)
                        after[name] = self._row()[name] if name != "color" else r.choice([None, "green"])
                    if r.random() < 0.15:  # the key changes: the row moves
                        changed["id"] = before["id"]
                        after["id"] = self._row()["id"]
                    data.append(after)
                    old.append(changed)
                    rows[tuple(after[c] for c in key)] = after
                out.append(self._message(table, "UPDATE", data, old))
            else:
                chosen = r.sample(list(rows), min(len(rows), r.randint(1, 2)))
                out.append(self._message(table, "DELETE", [rows.pop(k) for k in chosen]))
        return out

    def expected(self, table: str) -> list[dict]:
        types = self.tables[table][1]
        return [self._floe(row, types) for row in self.rows[table].values()]


def _argv(binary, lake, input_file, state, *extra) -> list[str]:
    return [str(binary), "ingest", str(input_file), "--format", "canal-json",
            "--catalog-config", str(lake.config_file), "--route", "{db}.{table}", "--upsert",
            "--state-dir", str(state), "--checkpoint-interval", "200ms", *extra]


def test_canal_json_upserts_exactly_once_under_sigkill(tmp_path, make_lake, java_peer, floe_ingest_ready):
    binary = floe_ingest_ready
    lake = make_lake("sql")
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    stream = CanalStream(seed)
    rnd = random.Random(seed)
    input_file = tmp_path / "canal.jsonl"
    input_file.touch()
    state = tmp_path / "state"

    def chunks():
        while stream.sent < 8000:
            yield "".join(line + "\n" for line in stream.lines(rnd.randint(20, 200)))

    killed, _ = grow_and_kill(_argv(binary, lake, input_file, state, "--follow"), input_file, chunks(),
                              kills=6, pause=(0.3, 1.5), gap=0.03, rnd=rnd, logs_dir=tmp_path)
    final = subprocess.run(_argv(binary, lake, input_file, state), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, final.stderr[-4000:]
    for table in stream.tables:
        ident = f"shop.{table}"
        py_table = lake.py_table(ident)
        schema = json.loads(py_table.schema().model_dump_json(by_alias=True))
        key = stream.tables[table][0]
        names = sorted(py_table.schema().find_field(i).name for i in py_table.schema().identifier_field_ids)
        assert names == sorted(key), f"{ident}: identifier fields {names}, pkNames {key}"
        expected = stream.expected(table)
        what = f"seed {seed}, {killed} kills: {ident}"
        assert_same_rows(merge_on_read(py_table), expected, schema, f"{what} (spec rules over PyIceberg metadata)")
        java_rows, _ = java_peer.scan(lake, ident)
        assert_same_rows(java_rows, expected, schema, f"{what} (Iceberg Java)")
        assert_no_checkpoint_twice(lake.metadata(ident), what)
    assert "color" in [f.name for f in lake.py_table("shop.orders").schema().fields]


def test_bad_canal_messages_name_the_line_and_member(tmp_path, make_lake, floe_ingest_ready):
    lake = make_lake("sql")
    input_file = tmp_path / "bad.jsonl"
    good = json.dumps({"data": [{"id": "1", "v": "a"}], "database": "d", "table": "t", "pkNames": ["id"],
                       "isDdl": False, "type": "INSERT", "mysqlType": {"id": "int(11)", "v": "varchar(3)"}})
    bad = json.dumps({"data": [{"id": "x", "v": "a"}], "database": "d", "table": "t", "pkNames": ["id"],
                      "isDdl": False, "type": "INSERT", "mysqlType": {"id": "int(11)", "v": "varchar(3)"}})
    input_file.write_text(good + "\n" + bad + "\n")
    proc = subprocess.run(_argv(floe_ingest_ready, lake, input_file, tmp_path / "state"),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "bad.jsonl:2" in proc.stderr and "data[0].id" in proc.stderr, proc.stderr[-2000:]
    dead = tmp_path / "dead.jsonl"
    proc = subprocess.run(_argv(floe_ingest_ready, lake, input_file, tmp_path / "state2", "--on-error", "skip",
                                "--dead-letter", str(dead)),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    letters = [json.loads(line) for line in dead.read_text().splitlines()]
    assert len(letters) == 1 and letters[0]["line"] == 2 and "data[0].id" in letters[0]["error"]
    # Upsert tables carry equality deletes, which PyIceberg cannot scan: the spec's rules.
    assert merge_on_read(lake.py_table("d.t")) == [{"id": 1, "v": "a"}]
