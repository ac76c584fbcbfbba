#!/usr/bin/env python3
"""A stand-in for `floe table ...`, made of the Iceberg Java peer, to check the harness.

    FLOE_BIN=tests/interop/iceberg/fake_floe.py .cache/venv/bin/python -m pytest tests/interop/iceberg

implements the subset of issue 3's CLI that the tests use (create-namespace, create, append,
delete --where, evolve, expire, scan [--where] [--columns] [--snapshot]) by translating each
call into an IcebergPeer command, so the floe-facing tests can be run end to end before floe
has its `table` command: a test that fails with this stand-in is a harness bug, not floe's.
It is never used by default. Needs the Java peer (scripts/java-peer.sh).
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
CLASSPATH = HERE.parents[2] / ".cache" / "java-peer" / "classpath.txt"

_TOKEN = re.compile(r"\s*(?:(-?\d+(?:\.\d+)?)|('(?:[^']|'')*')|(<=|>=|!=|<>|=|<|>|\(|\)|,)|(\w+))")


def parse_where(text: str) -> list:
    """SQL-like filter text -> the peer's JSON filter."""
    tokens = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise SystemExit(f"fake floe: cannot parse filter at {text[pos:]!r}")
        pos = m.end()
        num, s, op, word = m.groups()
        if num is not None:
            tokens.append(("lit", float(num) if "." in num else int(num), num))
        elif s is not None:
            tokens.append(("lit", s[1:-1].replace("''", "'"), s))
        elif op is not None:
            tokens.append(("op", "!=" if op == "<>" else op, op))
        else:
            up = word.upper()
            if up in ("AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE"):
                tokens.append(("kw", up, word))
            else:
                tokens.append(("name", word, word))
    i = 0

    def peek(k=0):
        return tokens[i + k] if i + k < len(tokens) else ("end", None, None)

    def take():
        nonlocal i
        i += 1
        return tokens[i - 1]

    def lit_value(tok):
        if tok[0] == "kw" and tok[1] in ("TRUE", "FALSE"):
            return tok[1] == "TRUE"
        if tok[0] == "lit" and isinstance(tok[1], float):
            return tok[2]  # decimal text keeps its scale
        return tok[1]

    def expr():
        left = term()
        while peek()[:2] == ("kw", "OR"):
            take()
            left = ["or", left, term()]
        return left

    def term():
        left = factor()
        while peek()[:2] == ("kw", "AND"):
            take()
            left = ["and", left, factor()]
        return left

    def factor():
        tok = take()
        if tok[:2] == ("kw", "NOT"):
            return ["not", factor()]
        if tok[:2] == ("op", "("):
            e = expr()
            take()
            return e
        if tok[:2] == ("kw", "TRUE"):
            return ["true"]
        col = tok[1]
        nxt = take()
        if nxt[:2] == ("kw", "IS"):
            if peek()[:2] == ("kw", "NOT"):
                take()
                take()
                return ["not_null", col]
            take()
            return ["is_null", col]
        if nxt[:2] == ("kw", "IN"):
            take()
            values = []
            while True:
                values.append(lit_value(take()))
                if take()[1] == ")":
                    break
            return ["in", col, values]
        return [nxt[1], col, lit_value(take())]

    return expr()


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[1] != "table":
        print("fake floe: only `table` is implemented", file=sys.stderr)
        return 2
    args = argv[2:]
    config = pathlib.Path(".floe.yaml")
    if args and args[0] == "--help":
        print("fake floe table (the Java peer in disguise)")
        return 0
    if args[:1] == ["--catalog-config"]:
        config = pathlib.Path(args[1])
        args = args[2:]
    # The tests' catalog files are flat `key: "value"` lines under catalog.default.
    cat = dict(re.findall(r'^\s+(type|uri|warehouse):\s*"?([^"\n]*)"?\s*$', config.read_text(), re.M))
    if cat["type"] == "sql":
        peer = ["--catalog", "jdbc", "--warehouse", cat["warehouse"], "--uri", "jdbc:sqlite:" + cat["uri"][len("sqlite:///") :]]
    else:
        peer = ["--catalog", "hadoop", "--warehouse", cat["warehouse"]]
    java = ["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", CLASSPATH.read_text().strip(), "dev.floe.interop.IcebergPeer"]

    def run(command, *extra, stdin=""):
        proc = subprocess.run(java + [command] + peer + list(extra), input=stdin.encode(), capture_output=True)
        sys.stdout.write(proc.stdout.decode())
        sys.stderr.write(proc.stderr.decode())
        return proc.returncode

    sub, rest = args[0], args[1:]
    if sub == "create-namespace":
        return 0  # the peer creates namespaces with their first table
    if sub == "create":
        table, schema, partition = rest[0], None, []
        for k in range(1, len(rest), 2):
            if rest[k] == "--schema":
                schema = json.loads(pathlib.Path(rest[k + 1]).read_text())
            elif rest[k] == "--partition-by":
                sys.path.insert(0, str(HERE))
                from iceberg_peers import split_partition_by

                partition = split_partition_by(rest[k + 1])
        return run("create", "--table", table, stdin=json.dumps({"schema": schema, "partition": partition}))
    if sub == "append":
        return run("append", "--table", rest[0], stdin="".join(pathlib.Path(p).read_text() for p in rest[1:]))
    if sub == "delete":
        where = parse_where(rest[rest.index("--where") + 1])
        return run("row-delta", "--table", rest[0], stdin=json.dumps({"position_delete_filter": where}))
    if sub == "evolve":
        ops = []
        for k in range(1, len(rest), 2):
            opt, val = rest[k], rest[k + 1]
            if opt == "--add":
                name, typ = val.split(" ", 1)
                ops.append({"op": "add", "name": name, "type": typ})
            elif opt == "--rename":
                a, b = val.split("=", 1)
                ops.append({"op": "rename", "name": a, "to": b})
            elif opt == "--drop":
                ops.append({"op": "drop", "name": val})
            elif opt == "--widen":
                name, typ = val.split(" ", 1)
                ops.append({"op": "widen", "name": name, "type": typ})
            elif opt == "--optional":
                ops.append({"op": "optional", "name": val})
        return run("evolve-schema", "--table", rest[0], stdin=json.dumps(ops))
    if sub == "expire":
        keep = rest[rest.index("--retain-last") + 1] if "--retain-last" in rest else "1"
        return run("expire", "--table", rest[0], "--older-than-ms", str(int(time.time() * 1000) + 1), "--retain-last", keep)
    if sub == "scan":
        extra = ["--table", rest[0]]
        k = 1
        while k < len(rest):
            if rest[k] == "--where":
                extra += ["--filter", json.dumps(parse_where(rest[k + 1]))]
            elif rest[k] in ("--columns", "--snapshot"):
                extra += [rest[k], rest[k + 1]]
            k += 2
        return run("scan", *extra)
    print(f"fake floe: {sub} is not implemented", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
