"""Two floe processes append to the same table in a tight loop (20 appends each, in each
catalog): no commit and no file is lost, every append's rows are there exactly once, and
every snapshot's summary totals equal its parent's plus what it added (read from the
metadata JSON directly)."""

from __future__ import annotations

import collections
import json
import threading

import pytest

from iceberg_peers import FloeTables, check_live_files, check_snapshot_totals
from iceberg_rows import to_jsonl

APPENDS_PER_WRITER = 20
WRITERS = 2
ROWS_PER_APPEND = 3

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 1, "name": "writer", "required": True, "type": "int"},
        {"id": 2, "name": "seq", "required": True, "type": "int"},
        {"id": 3, "name": "k", "required": True, "type": "int"},
        {"id": 4, "name": "payload", "required": False, "type": "string"},
    ],
}


@pytest.mark.parametrize("kind", ["sql", "hadoop"])
def test_two_floe_processes_append_concurrently(floe_run, make_lake, tmp_path, kind):
    lake = make_lake(kind)
    floe = FloeTables(floe_run, lake)
    ident = "ns.events"
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    floe("create-namespace", "ns")
    floe("create", ident, "--schema", tmp_path / "schema.json")

    files = {}
    for w in range(WRITERS):
        for s in range(APPENDS_PER_WRITER):
            rows = [{"writer": w, "seq": s, "k": k, "payload": f"w{w}s{s}k{k}"} for k in range(ROWS_PER_APPEND)]
            path = tmp_path / f"w{w}-s{s}.jsonl"
            path.write_text(to_jsonl(rows))
            files[(w, s)] = path

    failures: list[str] = []

    def writer(w: int) -> None:
        for s in range(APPENDS_PER_WRITER):
            res = floe.run("append", ident, files[(w, s)])
            if res.code != 0:
                failures.append(f"writer {w} append {s} failed\n{res.describe()}")
                return

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, "\n\n".join(failures)

    what = f"{kind} table after {WRITERS} x {APPENDS_PER_WRITER} concurrent appends"
    rows = floe.scan(ident)
    counts = collections.Counter((r["writer"], r["seq"], r["k"]) for r in rows)
    want = {(w, s, k) for w in range(WRITERS) for s in range(APPENDS_PER_WRITER) for k in range(ROWS_PER_APPEND)}
    missing = sorted(want - set(counts))
    doubled = sorted(key for key, n in counts.items() if n > 1)
    extra = sorted(set(counts) - want)
    assert not missing and not doubled and not extra, (
        f"{what}: {len(missing)} rows lost (first: {missing[:5]}), {len(doubled)} duplicated "
        f"(first: {doubled[:5]}), {len(extra)} unexpected"
    )

    meta = lake.metadata(ident)
    snaps = meta["snapshots"]
    appends = [s for s in snaps if s.get("summary", {}).get("operation") == "append"]
    assert len(appends) == WRITERS * APPENDS_PER_WRITER, f"{what}: {len(appends)} append snapshots"
    # The create adds at most one (empty) snapshot.
    assert len(snaps) in (WRITERS * APPENDS_PER_WRITER, WRITERS * APPENDS_PER_WRITER + 1), (
        f"{what}: {len(snaps)} snapshots"
    )
    # One linear history: walking parents from the current snapshot visits every snapshot.
    by_id = {s["snapshot-id"]: s for s in snaps}
    chain, sid = [], meta["current-snapshot-id"]
    while sid is not None and sid in by_id:
        chain.append(sid)
        sid = by_id[sid].get("parent-snapshot-id")
    assert len(chain) == len(snaps), f"{what}: the parent chain has {len(chain)} of {len(snaps)} snapshots"
    seqs = [by_id[s]["sequence-number"] for s in reversed(chain)]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), f"{what}: sequence numbers {seqs}"
    check_snapshot_totals(meta, what)
    current = by_id[meta["current-snapshot-id"]]["summary"]
    assert int(current["total-records"]) == len(want), f"{what}: total-records {current['total-records']}"
    for s in appends:
        assert int(s["summary"]["added-records"]) == ROWS_PER_APPEND, f"{what}: snapshot {s['snapshot-id']}"
    check_live_files(lake.py_table(ident), meta, what)
