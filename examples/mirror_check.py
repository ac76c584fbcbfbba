#!/usr/bin/env python3
"""Compares every table of a MySQL/MariaDB database with its Iceberg mirror, row by row,
as read by up to three Iceberg readers: `floe table scan`, PyIceberg and (when its jar is
built) Iceberg Java (the test peer of tests/interop/java). Used by scripts/demo.sh.

    .cache/venv/bin/python examples/mirror_check.py --database shop \\
        --mariadb "mariadb --no-defaults --protocol=socket --socket=S -uroot" \\
        --floe build/floe --sqlite LAKE/catalog.db --warehouse LAKE/warehouse \\
        [--java-classpath .cache/java-peer/classpath.txt]

The lake must be a SQL (SQLite) catalog named `default` holding table `<db>.<table>` for
every source table (floe ingest --route "{db}.{table}"). Rows are matched by the column
`id` and compared value by value, as text in floe's JSON conventions (docs/json-rows.md):
MariaDB formats its own values (DECIMAL as text, DATETIME as ISO text with six fraction
digits, TIMESTAMP in UTC with "+00:00"); the lake's values are formatted the same way.

With --exact-schema, each Iceberg table's current schema (read with PyIceberg) must also
equal the source table's: the same column names in the same order, each column of the Iceberg
type floe's mapping gives its MySQL type (docs/mysql-type-mapping.md), and the identifier
fields equal to the primary key, in key order (when the source has one). Nullability is not
compared (a column added later can only be optional in Iceberg); differing nullability is
printed as a note.

Prints one line per table and reader, then "mirror matches source" (exit 0) or the
differences (exit 1). A reader that cannot read a table at all (PyIceberg 0.12 refuses
tables with equality delete files) is reported as such and is not a mismatch, as long as
another reader checked the table.
"""

import argparse
import base64
import datetime
import decimal
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

# How MariaDB formats each column type so that it reads like floe's JSON row conventions.
ISO_DATETIME = "'%Y-%m-%dT%H:%i:%s.%f'"


def source_expression(column: str, data_type: str) -> str:
    c = f"`{column}`"
    if data_type == "datetime":
        return f"DATE_FORMAT({c}, {ISO_DATETIME})"
    if data_type == "timestamp":  # read in UTC (the session's time_zone is set below)
        return f"CONCAT(DATE_FORMAT({c}, {ISO_DATETIME}), '+00:00')"
    if data_type == "date":
        return f"DATE_FORMAT({c}, '%Y-%m-%d')"
    if data_type in ("binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob"):
        return f"TO_BASE64({c})"
    # Integers, DECIMAL, ENUM, SET, CHAR, VARCHAR, TEXT, JSON: their text.
    return f"CAST({c} AS CHAR)"


def canonical(value):
    """A lake value (from JSON or from PyArrow) as the text MariaDB's expression gives."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, datetime.datetime):
        return value.isoformat(timespec="microseconds")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return str(value)


def expected_iceberg_type(column: dict) -> str | None:
    """The Iceberg type (as PyIceberg prints it) that floe's type mapping gives a MySQL column
    (docs/mysql-type-mapping.md), from its information_schema.COLUMNS row; None for a type the
    mapping does not list."""
    data_type = column["DATA_TYPE"].lower()
    column_type = column["COLUMN_TYPE"].lower()
    unsigned = " unsigned" in column_type or " zerofill" in column_type
    precision, scale = column["NUMERIC_PRECISION"], column["NUMERIC_SCALE"]
    if data_type in ("tinyint", "smallint", "mediumint", "year"):  # also TINYINT(1), BOOL
        return "int"
    if data_type == "int":
        return "long" if unsigned else "int"
    if data_type == "bigint":
        return "decimal(20, 0)" if unsigned else "long"
    if data_type == "decimal":  # DECIMAL, NUMERIC, DEC, FIXED
        p = 10 if precision is None else int(precision)
        s = 0 if scale is None else int(scale)
        return f"decimal({p}, {s})" if p <= 38 else "string"
    if data_type == "float":  # FLOAT, FLOAT(p <= 24), FLOAT(M,D)
        return "float"
    if data_type in ("double", "real"):  # DOUBLE [PRECISION], REAL, FLOAT(25..53)
        return "double"
    if data_type == "bit":
        return "boolean" if (1 if precision is None else int(precision)) == 1 else "binary"
    if data_type == "date":
        return "date"
    if data_type == "datetime":
        return "timestamp"
    if data_type == "timestamp":
        return "timestamptz"
    if data_type == "time":  # a signed duration: microseconds
        return "long"
    if data_type in ("char", "varchar", "tinytext", "text", "mediumtext", "longtext"):
        # MariaDB's JSON is LONGTEXT; text CHARACTER SET binary holds bytes
        return "binary" if column.get("CHARACTER_SET_NAME") == "binary" else "string"
    if data_type in ("enum", "set", "json", "uuid", "inet4", "inet6"):
        return "string"
    if data_type in ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob",
                     "geometry", "point", "linestring", "polygon", "multipoint",
                     "multilinestring", "multipolygon", "geometrycollection",
                     "geomcollection", "vector"):
        return "binary"
    return None


def schema_problems(source: list[dict], primary_key: list[str], schema) -> tuple[list, list]:
    """How an Iceberg schema (PyIceberg's) differs from the source table's columns
    (information_schema.COLUMNS rows in ordinal order) and primary key: (problems, notes)."""
    problems, notes = [], []
    fields = schema.fields
    lake_names = [f.name for f in fields]
    source_names = [c["COLUMN_NAME"] for c in source]
    lake_by_name = {f.name: f for f in fields}
    for name in lake_names:
        if name not in source_names:
            problems.append(f"schema: the lake has column {name!r} that MariaDB lacks")
    for name in source_names:
        if name not in lake_by_name:
            problems.append(f"schema: MariaDB has column {name!r} that the lake lacks")
    lake_common = [n for n in lake_names if n in source_names]
    source_common = [n for n in source_names if n in lake_by_name]
    if lake_common != source_common:
        problems.append(f"schema: column order differs: the lake has ({', '.join(lake_names)}), "
                        f"MariaDB ({', '.join(source_names)})")
    required_nullable, optional_not_null = [], []
    for column in source:
        name, position = column["COLUMN_NAME"], column["ORDINAL_POSITION"]
        field = lake_by_name.get(name)
        if field is None:
            continue
        expected = expected_iceberg_type(column)
        actual = str(field.field_type)
        if expected is None:
            notes.append(f"column {position} {name!r}: MariaDB type {column['COLUMN_TYPE']!r} "
                         f"is not in the type mapping; not checked (the lake has {actual})")
        elif actual != expected:
            problems.append(f"schema: column {position} is {name!r} {actual} in the lake, "
                            f"{name!r} {column['COLUMN_TYPE']} in MariaDB (floe maps it to "
                            f"{expected})")
        nullable = column["IS_NULLABLE"] == "YES"
        if field.required and nullable:
            required_nullable.append(name)
        elif not field.required and not nullable and name not in primary_key:
            optional_not_null.append(name)
    if required_nullable:
        notes.append(f"required in the lake but nullable in MariaDB: {', '.join(required_nullable)}")
    if optional_not_null:
        notes.append(f"optional in the lake but NOT NULL in MariaDB: {', '.join(optional_not_null)}")
    identifier = identifier_names(schema)
    if primary_key and identifier != primary_key:
        problems.append(f"identifier fields ({', '.join(identifier) or 'none'}) but primary key "
                        f"({', '.join(primary_key)})")
    elif not primary_key and identifier:
        notes.append(f"MariaDB has no primary key, the lake has identifier fields "
                     f"({', '.join(identifier)})")
    return problems, notes


def identifier_names(schema) -> list[str]:
    """The names of a PyIceberg schema's identifier fields, in the order the schema lists them."""
    return [schema.find_column_name(i) or f"#{i}" for i in schema.identifier_field_ids]


class Mariadb:
    def __init__(self, command: str, database: str):
        self.argv = shlex.split(command)
        self.database = database

    def query(self, sql: str) -> list[str]:
        """Output lines of a query: no column names, no escaping (--raw)."""
        res = subprocess.run(
            self.argv + ["--batch", "--raw", "--skip-column-names",
                         "--default-character-set=utf8mb4", "-e", sql],
            capture_output=True, text=True, check=False)
        if res.returncode != 0:
            sys.exit(f"mariadb failed: {res.stderr.strip()}\nquery: {sql}")
        return [line for line in res.stdout.split("\n") if line]

    def tables(self) -> list[str]:
        return self.query(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' "
            f"AND TABLE_SCHEMA = '{self.database}' ORDER BY TABLE_NAME")

    def columns(self, table: str) -> list[tuple[str, str]]:
        lines = self.query(
            "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS "
            f"WHERE TABLE_SCHEMA = '{self.database}' AND TABLE_NAME = '{table}' "
            "ORDER BY ORDINAL_POSITION")
        return [tuple(line.split("\t")) for line in lines]

    def column_types(self, table: str) -> list[dict]:
        """information_schema.COLUMNS rows (the fields the type mapping needs), in column order."""
        fields = ("COLUMN_NAME", "ORDINAL_POSITION", "DATA_TYPE", "COLUMN_TYPE",
                  "NUMERIC_PRECISION", "NUMERIC_SCALE", "IS_NULLABLE", "CHARACTER_SET_NAME")
        pairs = ", ".join(f"'{f}', {f}" for f in fields)
        lines = self.query(
            f"SELECT JSON_OBJECT({pairs}) FROM information_schema.COLUMNS "
            f"WHERE TABLE_SCHEMA = '{self.database}' AND TABLE_NAME = '{table}' "
            "ORDER BY ORDINAL_POSITION")
        return [json.loads(line) for line in lines]

    def primary_key(self, table: str) -> list[str]:
        return self.query(
            "SELECT COLUMN_NAME FROM information_schema.STATISTICS "
            f"WHERE TABLE_SCHEMA = '{self.database}' AND TABLE_NAME = '{table}' "
            "AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX")

    def rows(self, table: str, columns: list[tuple[str, str]]) -> dict:
        exprs = ", ".join(source_expression(name, kind) for name, kind in columns)
        lines = self.query(f"SET time_zone = '+00:00'; "
                           f"SELECT JSON_ARRAY({exprs}) FROM `{self.database}`.`{table}`")
        key = key_index([name for name, _ in columns])
        rows = {}
        for line in lines:
            values = tuple(json.loads(line))
            rows[values[key]] = values
        return rows


def key_index(names: list[str]) -> int:
    """Rows are matched by the column `id` (wherever a DDL put it), else by the first column."""
    return names.index("id") if "id" in names else 0


def to_rows(records, names: list[str]):
    """Lake records (dicts) as {id: tuple of canonical values in the source's column order},
    and the columns only the source or only the lake has."""
    rows, seen = {}, set()
    key = key_index(names)
    for record in records:
        values = tuple(canonical(record.get(name)) for name in names)
        rows[values[key]] = values
        seen.update(record)
    if not records:
        return rows, [], []
    return rows, [n for n in names if n not in seen], sorted(seen - set(names))


def compare(source: dict, lake: dict, names: list[str], limit: int = 5) -> list[str]:
    """Differences, worst first, at most `limit` examples of each kind."""
    problems = []
    missing = sorted(set(source) - set(lake), key=lambda k: (len(k), k))
    extra = sorted(set(lake) - set(source), key=lambda k: (len(k), k))
    changed = sorted((k for k in set(source) & set(lake) if source[k] != lake[k]),
                     key=lambda k: (len(k), k))
    if missing:
        problems.append(f"{len(missing)} rows missing in the lake, ids {', '.join(missing[:limit])}")
    if extra:
        problems.append(f"{len(extra)} rows in the lake that the source lacks, "
                        f"ids {', '.join(extra[:limit])}")
    for key in changed[:limit]:
        diffs = [f"{n}: source {s!r}, lake {l!r}"
                 for n, s, l in zip(names, source[key], lake[key]) if s != l]
        problems.append(f"id {key}: " + "; ".join(diffs))
    if len(changed) > limit:
        problems.append(f"... {len(changed)} rows differ in all")
    return problems


def read_floe(floe: str, config: str, ident: str):
    res = subprocess.run([floe, "table", "--catalog-config", config, "scan", ident],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip() or f"exit {res.returncode}")
    return [json.loads(line) for line in res.stdout.splitlines() if line]


def read_pyiceberg(catalog, ident: str):
    return catalog.load_table(ident).scan().to_arrow().to_pylist()


def read_java(classpath_file: str, sqlite: str, warehouse: str, idents: list[str]) -> dict:
    """All tables in one JVM (IcebergPeer's `script`): {ident: records or an exception}."""
    with open(classpath_file, encoding="utf-8") as f:
        classpath = f.read().strip()
    steps = [{"cmd": "scan", "args": {"table": ident}} for ident in idents]
    argv = ["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx1g", "-cp", classpath,
            "dev.floe.interop.IcebergPeer", "script", "--catalog", "jdbc",
            "--warehouse", "file://" + warehouse, "--uri", "jdbc:sqlite:" + sqlite]
    res = subprocess.run(argv, input=json.dumps(steps), capture_output=True, text=True,
                         check=False)
    if res.returncode != 0:
        error = RuntimeError("Iceberg Java failed: " + res.stderr.strip().splitlines()[0]
                             if res.stderr.strip() else f"exit {res.returncode}")
        return {ident: error for ident in idents}
    outputs = json.loads(res.stdout)
    return {ident: [json.loads(line) for line in out.splitlines() if line]
            for ident, out in zip(idents, outputs)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True)
    parser.add_argument("--mariadb", required=True, help="the client command line to run")
    parser.add_argument("--floe", required=True, help="the floe binary")
    parser.add_argument("--catalog-config", required=True, help="floe's catalog YAML")
    parser.add_argument("--sqlite", required=True, help="the SQL catalog's SQLite file")
    parser.add_argument("--warehouse", required=True, help="the warehouse folder")
    parser.add_argument("--java-classpath", help="the Iceberg Java peer's classpath.txt")
    parser.add_argument("--exact-schema", action="store_true",
                        help="also check each Iceberg table's schema: column names, order and "
                             "types (floe's type mapping) and identifier fields (primary key)")
    args = parser.parse_args()

    db = Mariadb(args.mariadb, args.database)
    tables = db.tables()
    idents = [f"{args.database}.{t}" for t in tables]

    from pyiceberg.catalog.sql import SqlCatalog

    catalog = SqlCatalog("default", uri=f"sqlite:///{os.path.abspath(args.sqlite)}",
                         warehouse="file://" + os.path.abspath(args.warehouse))
    lake_tables = {".".join(ident) for ident in catalog.list_tables(args.database)}

    java = None
    if args.java_classpath and os.path.exists(args.java_classpath) and shutil.which("java"):
        java = read_java(args.java_classpath, os.path.abspath(args.sqlite),
                         os.path.abspath(args.warehouse), [i for i in idents if i in lake_tables])

    ok = True
    for table, ident in zip(tables, idents):
        columns = db.columns(table)
        names = [name for name, _ in columns]
        source = db.rows(table, columns)
        print(f"{ident}: {len(source)} rows in MariaDB, columns {', '.join(names)}")
        if ident not in lake_tables:
            print(f"  MISMATCH: {ident} is not in the lake")
            ok = False
            continue
        readers = [("floe table scan", lambda: read_floe(args.floe, args.catalog_config, ident)),
                   ("PyIceberg", lambda: read_pyiceberg(catalog, ident))]
        if java is not None:
            readers.append(("Iceberg Java", lambda: java[ident]))
        checked = 0
        for reader, read in readers:
            try:
                records = read()
                if isinstance(records, Exception):
                    raise records
            except (ValueError, NotImplementedError) as e:
                if "equality delete" not in str(e):
                    raise
                print(f"  {reader:16} cannot read this table: {e}")
                continue
            except RuntimeError as e:
                print(f"  {reader:16} FAILED: {e}")
                ok = False
                continue
            lake, source_only, lake_only = to_rows(records, names)
            problems = compare(source, lake, names)
            if source_only:
                problems.insert(0, f"columns the lake lacks: {', '.join(source_only)}")
            if lake_only:
                problems.insert(0, f"columns in the lake only: {', '.join(lake_only)}")
            checked += 1
            if problems:
                ok = False
                print(f"  {reader:16} {len(lake)} rows: MISMATCH")
                for problem in problems:
                    print(f"      {problem}")
            else:
                print(f"  {reader:16} {len(lake)} rows: equal")
        if checked == 0:
            print("  MISMATCH: no reader could read the table")
            ok = False
        if args.exact_schema:
            schema = catalog.load_table(ident).schema()
            problems, notes = schema_problems(db.column_types(table), db.primary_key(table),
                                              schema)
            if problems:
                ok = False
                print(f"  {'exact schema':16} MISMATCH")
                for problem in problems:
                    print(f"      {problem}")
            else:
                ids = identifier_names(schema)
                print(f"  {'exact schema':16} equal ({len(schema.fields)} columns"
                      + (f", identifier fields {', '.join(ids)})" if ids else ")"))
            for note in notes:
                print(f"      note: {note}")

    for ident in sorted(lake_tables - set(idents)):
        print(f"{ident}: in the lake but not in MariaDB")
        ok = False
    print()
    print("mirror matches source" if ok else "MIRROR DIFFERS FROM SOURCE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
