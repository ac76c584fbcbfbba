"""`floe table register`: a table PyIceberg wrote becomes a table of another catalog by
its metadata file, nothing copied (Catalog::RegisterTable, docs/catalogs.md,
"Registering a table").

- REST: floe registers it on Apache Iceberg's own REST server
  (scripts/services/iceberg-rest.sh; found as test_rest_catalog.py finds it), PyIceberg's
  REST client reads it back, and floe's next append continues from its snapshots.
- SQL: floe registers it in its own SQLite catalog; PyIceberg's SqlCatalog on that file
  reads it. A Hadoop catalog refuses, as Iceberg's HadoopCatalog does."""

from __future__ import annotations

import pyarrow as pa

from test_rest_catalog import TOKEN, RestLake, _by_id, _floe, _write_jsonl  # noqa: F401
from test_rest_catalog import namespace, rest_uri  # noqa: F401 - fixtures

FIRST = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]
SECOND = [{"id": 4, "name": "d"}, {"id": 5, "name": "e"}]


def _pyiceberg_table(make_lake, ns: str):
    """A table PyIceberg wrote (two appends) in a SQL catalog of its own."""
    source = make_lake("sql")
    catalog = source.py_catalog()
    catalog.create_namespace(ns)
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
    table = catalog.create_table(f"{ns}.written_by_py", schema=schema)
    table.append(pa.Table.from_pylist(FIRST, schema=schema))
    table.append(pa.Table.from_pylist(SECOND, schema=schema))
    return catalog.load_table(f"{ns}.written_by_py")


def test_floe_registers_a_pyiceberg_table_on_the_rest_server(floe_run, make_lake, tmp_path, rest_uri, namespace):
    written = _pyiceberg_table(make_lake, namespace)
    lake = RestLake(tmp_path / "rest-lake", rest_uri, extra=f"    token: {TOKEN}\n")
    ident = f"{namespace}.registered"
    _floe(floe_run, lake, "table", "create-namespace", namespace)
    result = _floe(floe_run, lake, "table", "register", ident, "--metadata-location", written.metadata_location)
    assert f"registered table {ident}" in result.stdout and "(2 snapshots)" in result.stdout, result.describe()

    # PyIceberg's REST client reads the registered table: the same table, the same rows.
    table = lake.py_catalog().load_table(ident)
    assert str(table.metadata.table_uuid) == str(written.metadata.table_uuid)
    assert len(table.metadata.snapshots) == 2
    assert _by_id(table.scan().to_arrow().to_pylist()) == _by_id(FIRST + SECOND)

    # floe commits on top of it through the server; PyIceberg sees all three appends.
    more = [{"id": 6, "name": "f"}]
    _floe(floe_run, lake, "table", "append", ident, str(_write_jsonl(lake.root / "more.jsonl", more)))
    table = lake.py_catalog().load_table(ident)
    assert len(table.metadata.snapshots) == 3
    assert _by_id(table.scan().to_arrow().to_pylist()) == _by_id(FIRST + SECOND + more)

    # The name is taken now; a file that does not exist is the server's clear refusal.
    again = _floe(floe_run, lake, "table", "register", ident, "--metadata-location", written.metadata_location, ok=False)
    assert again.code != 0 and "already exists" in again.stderr.lower(), again.describe()
    missing = _floe(
        floe_run,
        lake,
        "table",
        "register",
        f"{namespace}.missing",
        "--metadata-location",
        str(tmp_path / "nowhere" / "00000-x.metadata.json"),
        ok=False,
    )
    assert missing.code != 0 and f"registering table {namespace}.missing" in missing.stderr, missing.describe()
    assert TOKEN not in again.stderr + missing.stderr


def test_floe_registers_a_pyiceberg_table_in_a_sql_catalog(floe_run, floe_for, make_lake, namespace):
    written = _pyiceberg_table(make_lake, namespace)
    lake = make_lake("sql")
    floe = floe_for(floe_run, lake)
    floe("create-namespace", namespace)
    ident = f"{namespace}.registered"
    result = floe("register", ident, "--metadata-location", written.metadata_location)
    assert f"registered table {ident}" in result.stdout, result.describe()
    table = lake.py_table(ident)
    assert str(table.metadata.table_uuid) == str(written.metadata.table_uuid)
    assert _by_id(table.scan().to_arrow().to_pylist()) == _by_id(FIRST + SECOND)
    assert _by_id(floe.scan(ident)) == _by_id(FIRST + SECOND)

    hadoop = make_lake("hadoop")
    refused = floe_for(floe_run, hadoop).run("register", ident, "--metadata-location", written.metadata_location)
    assert refused.code != 0, refused.describe()
    assert "cannot register tables" in refused.stderr and "sql or rest catalog" in refused.stderr, refused.describe()
