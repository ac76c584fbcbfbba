"""Running `floe ingest` against a lake, and checking the lake against the model."""

from __future__ import annotations

import json
import pathlib
import random
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from changes import ChangeStream
from iceberg_peers import Lake
from iceberg_rows import assert_same_rows
from lake_check import assert_no_checkpoint_twice, merge_on_read

# shop.items: partitioned by a key column, so updates that change `region` move rows
# between partitions. Identifier fields = the primary key (region, id).
ITEMS_SCHEMA = {
    "type": "struct", "schema-id": 0, "identifier-field-ids": [1, 2],
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "region", "required": True, "type": "string"},
        {"id": 3, "name": "qty", "required": False, "type": "int"},
        {"id": 4, "name": "price", "required": False, "type": "decimal(10, 2)"},
        {"id": 5, "name": "ts", "required": False, "type": "timestamp"},
        {"id": 6, "name": "day", "required": False, "type": "date"},
        {"id": 7, "name": "note", "required": False, "type": "string"},
        {"id": 8, "name": "flag", "required": False, "type": "boolean"},
    ],
}


def ingest_argv(binary: pathlib.Path, lake: Lake, input_file: pathlib.Path, state: pathlib.Path,
                *extra: str) -> list[str]:
    return [str(binary), "ingest", str(input_file), "--catalog-config", str(lake.config_file),
            "--route", "{db}.{table}", "--primary-key", "id", "--state-dir", str(state),
            "--checkpoint-interval", "200ms", *extra]


def create_tables(binary: pathlib.Path, lake: Lake, tmp: pathlib.Path, changelog: bool) -> None:
    """shop.items, partitioned by its key column region (and a bucket of id); with a
    changelog (not upsert), also shop.orders partitioned by day(ts), a column that is not
    in the key and changes with every update, so updates move rows between partitions."""
    tables = [("shop.items", ITEMS_SCHEMA, "region, bucket(4, id)")]
    if changelog:
        orders = dict(ITEMS_SCHEMA, **{"identifier-field-ids": [1]})
        tables.append(("shop.orders", orders, "day(ts)"))
    commands = [["create-namespace", "shop"]]
    for ident, schema, partition_by in tables:
        schema_file = tmp / f"{ident}-schema.json"
        schema_file.write_text(json.dumps(schema))
        commands.append(["create", ident, "--schema", str(schema_file), "--partition-by", partition_by])
    for args in commands:
        proc = subprocess.run([str(binary), "table", "--catalog-config", str(lake.config_file), *args],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr


def check_lake(lake: Lake, stream: ChangeStream, java_peer, what: str) -> dict[str, int]:
    """Every table equals the model, read by Iceberg Java and by the spec's rules over
    PyIceberg's metadata; no checkpoint committed twice. Returns commits per table."""
    commits = {}
    for ident, expected in stream.expected().items():
        table = lake.py_table(ident)
        schema = json.loads(table.schema().model_dump_json(by_alias=True))
        reference = merge_on_read(table)
        assert_same_rows(reference, expected, schema, f"{what}: {ident} (spec rules over PyIceberg metadata)")
        java_rows, _ = java_peer.scan(lake, ident)
        assert_same_rows(java_rows, expected, schema, f"{what}: {ident} (Iceberg Java)")
        commits[ident] = assert_no_checkpoint_twice(lake.metadata(ident), f"{what}: {ident}")
    return commits


def change_chunks(stream, total: int) -> Iterator[str]:
    """`total` lines of `stream` (a changes.ChangeStream) as text chunks of 20 to 400 lines."""
    written = 0
    while written < total:
        chunk = min(total - written, stream.random.randint(20, 400))
        yield "".join(line + "\n" for line in stream.lines(chunk))
        written += chunk


def grow(input_file: pathlib.Path, chunks: Iterable[str], stop: threading.Event, gap: float,
         rnd: random.Random, half_written: Callable[[str], int] | None = None) -> None:
    """Appends the text `chunks` to `input_file`, a random pause of up to `gap` s after
    each, until they are all written or `stop` is set. `half_written(text)`, if given, is
    where to cut a chunk for a moment (a writer's partial line; len(text) for no cut)."""
    pending = iter(chunks)
    with open(input_file, "a", encoding="utf-8") as out:
        # `stop` is looked at before the next chunk is made: a chunk made is a chunk
        # written (a model that counts the lines it made must match the file).
        while not stop.is_set():
            text = next(pending, None)
            if text is None:
                return
            cut = half_written(text) if half_written else len(text)
            out.write(text[:cut])
            out.flush()
            if cut < len(text):
                time.sleep(0.005)
                out.write(text[cut:])
                out.flush()
            time.sleep(rnd.uniform(0.0, gap))


def grow_and_kill(argv: list[str], input_file: pathlib.Path, chunks: Iterable[str], *, kills: int,
                  pause: tuple[float, float], gap: float, rnd: random.Random, logs_dir: pathlib.Path,
                  half_written: Callable[[str], int] | None = None,
                  may_fail: Callable[[str], bool] | None = None) -> tuple[int, list[pathlib.Path]]:
    """The grow-and-kill loop of the exactly-once tests: a thread appends the text
    `chunks` to `input_file` (a random pause of up to `gap` s after each) while runs of
    `argv` (a `--follow` run) follow it; each run is killed with SIGKILL after
    rnd.uniform(*pause) s and started again, at least `kills` times and until every chunk
    is written. `half_written(text)`, if given, is where to cut a chunk for a moment (a
    writer's partial line; len(text) for no cut). A run that exits on its own fails the
    test with its log, unless `may_fail(log text)` says the failure was expected (faults the
    test injects); then it is started again. Returns the number of kills and the runs'
    logs (stderr)."""
    stop = threading.Event()
    grower = threading.Thread(target=grow, args=(input_file, chunks, stop, gap, random.Random(rnd.random())),
                              kwargs={"half_written": half_written}, daemon=True)
    grower.start()
    logs: list[pathlib.Path] = []
    killed = failed = 0
    try:
        while killed < kills or grower.is_alive():
            log = logs_dir / f"run{len(logs)}.log"
            logs.append(log)
            with open(log, "w") as err:
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
            time.sleep(rnd.uniform(*pause))
            code = proc.poll()
            if code is not None and code != 0 and may_fail and may_fail(log.read_text()):
                failed += 1
                assert failed <= 2 * kills + 10, f"{failed} runs failed:\n{log.read_text()[-3000:]}"
                continue
            assert code is None, f"{argv[1]} exited {code} on its own:\n{log.read_text()[-3000:]}"
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            killed += 1
    finally:
        stop.set()
        grower.join()
    return killed, logs
