"""Hostile command lines and inputs: floe must answer each with a clear error
and the documented exit code (docs/errors.md: 1 failure, 2 usage error),
never abort or crash (a negative return code is a signal), and never leave a
partial file under a final name.

Names that are not valid UTF-8 are passed as Python strings with
surrogate-escaped bytes ("ns\\udcff" is the byte 0xFF), which subprocess turns
back into those bytes.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import floe_binary

SMALL_SCHEMA = {
    "type": "struct",
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"},
    ],
}

AVRO_SCHEMA = {
    "type": "record",
    "name": "row",
    "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": "string"}],
}


def check_clean_exit(run, code: int) -> None:
    """The run ended by itself with `code` (a signal gives a negative code)."""
    assert run.code >= 0, f"floe died on a signal\n{run.describe()}"
    assert run.code == code, run.describe()
    if code != 0:
        assert run.stderr.startswith("error: "), run.describe()


def nested_lists_schema(levels: int) -> str:
    opening = "".join(
        f'{{"type":"list","element-id":{i + 2},"element-required":false,"element":'
        for i in range(levels))
    return ('{"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":'
            + opening + '"int"' + "}" * levels + "}]}")


@pytest.fixture
def catalog(tmp_path: pathlib.Path) -> pathlib.Path:
    """A Hadoop catalog in tmp_path; returns its config file."""
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    config = tmp_path / "floe.yaml"
    config.write_text(f"catalog:\n  default:\n    type: hadoop\n    warehouse: {warehouse}\n")
    return config


def table(run_floe, config, *args):
    return run_floe("table", "--catalog-config", config, *args)


@pytest.fixture
def small_table(run_floe, catalog, tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SMALL_SCHEMA))
    check_clean_exit(table(run_floe, catalog, "create-namespace", "ns"), 0)
    check_clean_exit(table(run_floe, catalog, "create", "ns.t", "--schema", schema), 0)
    return catalog


# ---------------------------------------------------------------- D4, C5: nesting


def test_table_create_refuses_a_schema_deeper_than_floe_reads_back(run_floe, catalog, tmp_path):
    """D4: a 5,000-deep schema was created and then unreadable; now refused up front."""
    check_clean_exit(table(run_floe, catalog, "create-namespace", "ns"), 0)
    deep = tmp_path / "deep.json"
    deep.write_text(nested_lists_schema(5000))
    run = table(run_floe, catalog, "create", "ns.deep", "--schema", deep)
    check_clean_exit(run, 1)
    assert "nested deeper than" in run.stderr and "types may nest 100 levels" in run.stderr
    assert not (catalog.parent / "warehouse" / "ns" / "deep").exists()
    check_clean_exit(table(run_floe, catalog, "describe", "ns.deep"), 1)

    over = tmp_path / "over.json"
    over.write_text(nested_lists_schema(101))
    run = table(run_floe, catalog, "create", "ns.over", "--schema", over)
    check_clean_exit(run, 1)
    assert "deeper than the limit of 100 levels" in run.stderr

    # The deepest schema floe accepts is written and read back.
    limit = tmp_path / "limit.json"
    limit.write_text(nested_lists_schema(100))
    check_clean_exit(table(run_floe, catalog, "create", "ns.limit", "--schema", limit), 0)
    described = table(run_floe, catalog, "describe", "ns.limit", "--json")
    check_clean_exit(described, 0)
    assert json.loads(described.stdout)["format-version"] >= 1


def test_schema_file_nested_50000_levels_is_an_error_not_a_crash(run_floe, tmp_path):
    """C5: a --schema nested 50,000 levels overflowed the stack."""
    deep = tmp_path / "deep.json"
    deep.write_text(nested_lists_schema(50_000))
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"a": null}\n')
    out = tmp_path / "out.parquet"
    run = run_floe("parquet", "write", "--schema", deep, rows, out)
    check_clean_exit(run, 1)
    assert "deep.json: JSON nested deeper than 310 levels" in run.stderr
    assert not out.exists()


def test_where_with_20000_parentheses_is_an_error_not_a_crash(run_floe, small_table):
    """C4: --where with 20,000 nested parentheses overflowed the stack."""
    where = "(" * 20_000 + "id = 1" + ")" * 20_000
    for command in ("scan", "delete"):
        run = table(run_floe, small_table, command, "ns.t", "--where", where)
        check_clean_exit(run, 1)
        assert "parentheses and NOT nest deeper than 100 levels" in run.stderr, run.describe()
        assert len(run.stderr) < 1000, "the filter is not echoed whole"
    run = table(run_floe, small_table, "scan", "ns.t", "--where", "NOT " * 5000 + "id = 1")
    check_clean_exit(run, 1)


# ---------------------------------------------------------------- D5: atomic avro write


def test_avro_write_failure_keeps_the_existing_output(run_floe, tmp_path):
    """D5: a bad line replaced an existing output with a header-only file."""
    schema = tmp_path / "s.avsc"
    schema.write_text(json.dumps(AVRO_SCHEMA))
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": 1, "name": "a"}\n{"id": 2, "name": "b"}\n')
    out = tmp_path / "out.avro"
    check_clean_exit(run_floe("avro", "write", "--schema", schema, good, out), 0)
    before = out.read_bytes()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 3, "name": "c"}\n{"id": "x"}\n')
    run = run_floe("avro", "write", "--schema", schema, bad, out)
    check_clean_exit(run, 1)
    assert "bad.jsonl line 2" in run.stderr
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["s.avsc", "good.jsonl", "bad.jsonl", "out.avro"]), "no temporary left behind"
    cat = run_floe("avro", "cat", out)
    check_clean_exit(cat, 0)
    assert [json.loads(line)["id"] for line in cat.stdout.splitlines()] == [1, 2]


def test_avro_write_killed_leaves_nothing_under_the_final_name(tmp_path):
    """D5: SIGKILL left a half-written file under the final name."""
    schema = tmp_path / "s.avsc"
    schema.write_text(json.dumps(AVRO_SCHEMA))
    out = tmp_path / "out.avro"
    proc = subprocess.Popen(
        [str(floe_binary()), "avro", "write", "--schema", str(schema), "--block-size", "64",
         "-", str(out)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    line = b'{"id": 1, "name": "' + b"x" * 200 + b'"}\n'
    proc.stdin.write(line * 2000)
    proc.stdin.flush()
    deadline = time.monotonic() + 30
    temporaries: list[pathlib.Path] = []
    while time.monotonic() < deadline and not temporaries:
        temporaries = [p for p in tmp_path.iterdir() if p.name.startswith(".out.avro.floe-tmp-")
                       and p.stat().st_size > 0]
        time.sleep(0.05)
    assert temporaries, "floe avro write did not start writing"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdin.close()
    assert not out.exists(), "a killed write left a file under the final name"


# ---------------------------------------------------------------- C1-C3: invalid UTF-8


def test_parquet_schema_prints_a_column_name_that_is_not_utf8(run_floe, tmp_path):
    """C1: a Parquet column name that is not UTF-8 aborted `floe parquet schema`."""
    path = tmp_path / "names.parquet"
    pq.write_table(pa.table({"colzz": [1, 2]}), path, store_schema=False)
    data = path.read_bytes()
    assert data.count(b"colzz") == 2  # the schema element and the column chunk path
    path.write_bytes(data.replace(b"colzz", b"col\xff\xfe"))
    run = run_floe("parquet", "schema", path, "--iceberg")
    check_clean_exit(run, 0)
    name = json.loads(run.stdout)["fields"][0]["name"]
    assert name.encode("utf-8", "surrogateescape") == b"col\xff\xfe", "escaped losslessly"
    tree = run_floe("parquet", "schema", path)
    check_clean_exit(tree, 0)
    assert "col\\xff\\xfe" in tree.stdout


@pytest.mark.parametrize("args, offset", [
    (["create-namespace", "bad\udcff"], 3),
    (["create", "ns.t\udce9", "--schema", "SCHEMA"], 4),
    (["create", "ns.t2", "--schema", "SCHEMA", "--property", "k\udcff=v"], 1),
    (["set-property", "ns.t", "k=v\udcff"], 3),
    (["evolve", "ns.t", "--add", "c\udcff long"], 1),
    (["rename", "ns.t", "ns.u\udcff"], 4),
])
def test_names_that_are_not_utf8_are_refused_up_front(run_floe, small_table, tmp_path, args,
                                                      offset):
    """C2: such names were written into metadata and then aborted every JSON writer."""
    schema = tmp_path / "s.json"
    args = [str(schema) if a == "SCHEMA" else a for a in args]
    run = table(run_floe, small_table, *args)
    check_clean_exit(run, 2)
    assert f"is not valid UTF-8 (byte 0x" in run.stderr and f"at offset {offset})" in run.stderr
    namespaces = table(run_floe, small_table, "namespaces", "--json")
    check_clean_exit(namespaces, 0)
    assert json.loads(namespaces.stdout) == ["ns"]


def test_listing_a_namespace_that_is_not_utf8_does_not_abort(run_floe, catalog):
    """C2: a namespace made by another tool made `namespaces --json` abort on every run."""
    os.mkdir(os.fsencode(catalog.parent / "warehouse") + b"/bad\xff")
    run = table(run_floe, catalog, "namespaces", "--json")
    check_clean_exit(run, 0)
    names = json.loads(run.stdout)
    assert [n.encode("utf-8", "surrogateescape") for n in names] == [b"bad\xff"]


def test_ingest_refuses_an_input_name_that_is_not_utf8(run_floe, catalog, tmp_path):
    """C3: an input file name that is not UTF-8 aborted ingest at every checkpoint."""
    name = os.fsencode(tmp_path) + b"/caf\xe9.jsonl"
    with open(name, "wb") as f:
        f.write(b'{"id": 1, "name": "a"}\n')
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SMALL_SCHEMA))
    run = run_floe("ingest", os.fsdecode(name), "--format", "json", "--table", "ns.t",
                   "--schema", schema, "--catalog-config", catalog,
                   "--state-dir", tmp_path / "state")
    check_clean_exit(run, 2)
    assert "is not valid UTF-8 (byte 0xE9 at offset" in run.stderr
    assert not (tmp_path / "state").exists()


# ---------------------------------------------------------------- S5: logs


def test_text_log_escapes_control_characters(run_floe, catalog, tmp_path):
    """S5: a name with a newline forged a second log line."""
    missing = str(tmp_path / "x") + "\nFORGED error: fake line"
    run = run_floe("ingest", missing, "--format", "json", "--table", "ns.t",
                   "--catalog-config", catalog, "--state-dir", tmp_path / "state",
                   "--log-format", "text")
    assert run.code == 1, run.describe()
    assert "\\nFORGED" in run.stderr
    assert not any(line.startswith("FORGED") for line in run.stderr.splitlines()), run.stderr


# ---------------------------------------------------------------- C8, W4, W5, W7, U1: usage


@pytest.mark.parametrize("args, message", [
    (["ingest", "in.jsonl", "--table", "a.b", "--parallelism", "100000"],
     "--parallelism: 100000 is out of range (1 to 256)"),
    (["ingest", "in.jsonl", "--table", "a.b", "--commit-parallelism", "0"],
     "--commit-parallelism: 0 is out of range (1 to 256)"),
    (["ingest", "in.jsonl", "--table", "a.b", "--max-continuous-empty-commits", "-1"],
     "out of range (1 to 1000000)"),
    (["ingest", "in.jsonl", "--table", "a.b", "--progress", "bogus"],
     "--progress: 'bogus' is not one of auto, always, never"),
    (["ingest", "in.jsonl", "--table", "a.b", "--log-format", "xml"],
     "--log-format: 'xml' is not one of text, json"),
    (["ingest", "in.jsonl", "--table", "a.b", "--memory-budget", "1.5XiB"],
     "--memory-budget: '1.5XiB' is not a size such as"),
    (["ingest", "in.jsonl", "--table", "a.b", "--memory-budget", "2TiB"],
     "out of range (1048576 to 1099511627776 bytes)"),
    (["ingest", "in.jsonl", "--table", "a.b", "--checkpoint-interval", "0s"],
     "--checkpoint-interval: 0s is out of range"),
    (["parquet", "cat", "f.parquet", "--limit", "-1"], "--limit: -1 is out of range (0 to"),
    (["parquet", "write", "--schema", "s.json", "--row-group-size", "0", "i", "o"],
     "--row-group-size: 0 is out of range"),
    (["avro", "cat", "f.avro", "--limit", "-5"], "--limit: -5 is out of range (0 to"),
    (["avro", "write", "--schema", "s.avsc", "--block-size", "99999999999", "i", "o"],
     "--block-size: 99999999999 is out of range"),
    (["avro", "write", "--schema", "s.avsc", "--codec", "bzip3", "i", "o"],
     "--codec: 'bzip3' is not one of null, deflate, snappy, zstandard"),
    (["avro", "write", "--schema", "s.avsc", "--meta", "novalue", "i", "o"],
     "--meta: 'novalue' is not key=value"),
    (["ingest", "in.jsonl", "--table", "a.b", "--format", "csv"],
     "--format: 'csv' is not one of debezium-json, debezium, canal-json, canal, json"),
    (["table", "expire", "ns.t", "--retain-last", "-1"],
     "--retain-last: -1 is out of range (1 to 1000000)"),
    (["table", "expire", "ns.t", "--older-than", "soon"], "--older-than: 'soon' is not a duration"),
    (["table", "scan", "ns.t", "--limit", "-2"], "--limit: -2 is out of range (0 to"),
    (["table", "evolve", "ns.t"], "nothing to change"),
    (["table", "set-property", "ns.t", "novalue"], "'novalue' is not key=value"),
    (["bogus"], "unknown command 'floe bogus' (expected one of: parquet, avro"),
    (["table", "bogus"], "unknown command 'floe table bogus'"),
    (["ingest", "in.jsonl", "--bogus"], "--bogus"),
])
def test_usage_errors_exit_2_with_a_message_naming_the_problem(run_floe, tmp_path, args, message):
    """C8 (100000 threads spawned, then abort), W4, W5, W7, U1."""
    started = time.monotonic()
    run = run_floe(*args)
    check_clean_exit(run, 2)
    assert message in run.stderr, run.describe()
    assert time.monotonic() - started < 10


def test_memory_budget_accepts_a_fraction(run_floe, catalog, tmp_path):
    """U1: --memory-budget 1.5GiB got a message saying it was below 1MiB."""
    rows = tmp_path / "in.jsonl"
    rows.write_text('{"id": 1, "name": "a"}\n')
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SMALL_SCHEMA))
    run = run_floe("ingest", rows, "--format", "json", "--table", "ns.t", "--schema", schema,
                   "--catalog-config", catalog, "--state-dir", tmp_path / "state",
                   "--memory-budget", "1.5GiB")
    check_clean_exit(run, 0)


# ---------------------------------------------------------------- U6: long names


def test_a_100kb_name_is_not_echoed_whole(run_floe, small_table):
    """U6: a 100 KB name was printed whole in the error."""
    name = "ns." + "n" * 100_000
    run = table(run_floe, small_table, "describe", name)
    check_clean_exit(run, 1)
    assert len(run.stderr) < 2000, run.stderr[:3000]
    assert "bytes]" in run.stderr


def test_a_100kb_input_name_is_not_echoed_whole_by_ingest(run_floe, catalog, tmp_path):
    """U6: the same for ingest, whose error is also logged."""
    missing = str(tmp_path / ("n" * 100_000))
    run = run_floe("ingest", missing, "--format", "json", "--table", "ns.t",
                   "--catalog-config", catalog, "--state-dir", tmp_path / "state")
    assert run.code == 1, run.stderr[-3000:]
    assert "\nerror: " in run.stderr, run.stderr[-3000:]
    assert len(run.stderr) < 3000, run.stderr[:4000]
    assert "bytes]" in run.stderr


@pytest.mark.parametrize("args", [
    ["--progress", "n" * 100_000],
    ["--table", "n" * 100_000 + "\udcff"],
])
def test_a_100kb_option_value_is_not_echoed_whole(run_floe, args):
    """U6: usage errors cut the value they name too."""
    run = run_floe("ingest", "in.jsonl", *args)
    check_clean_exit(run, 2)
    assert len(run.stderr) < 2000, run.stderr[:3000]
