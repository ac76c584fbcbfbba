"""Every command on S3 (issue 14): catalogs whose tables live on S3, judged by real servers
and real readers.

- A REST catalog whose tables live on S3: the second instance of Iceberg's REST test server
  (`scripts/services/iceberg-rest.sh start s3`: JdbcCatalog + Iceberg's S3FileIO on the moto
  server of scripts/services/s3.sh). `floe ingest` appends and upserts into it; PyIceberg,
  configured with the same REST URI and S3 endpoint, reads floe's tables equal to the input;
  Iceberg Java reads the upsert table equal. `floe table` and `floe read` work on it.
- A sql catalog with an `s3://bucket/prefix` warehouse: floe writes, PyIceberg's SqlCatalog
  on the same SQLite file reads.
- Exactly once: `floe ingest --upsert` into REST + S3 is SIGKILLed at random moments and
  restarted with the same state folder; the lake equals the model row for row (Iceberg Java)
  and no checkpoint is committed twice (the harness of tests/interop/ingest/).
- The REST server's vended keys (a load-table answer's `config`) are used for its tables.
- Clear errors through a command: a wrong secret, a missing bucket.

Servers: FLOE_TEST_REST_S3_URI (default http://127.0.0.1:9182) and the S3 endpoint and key
in FLOE_TEST_S3_* (else .cache/s3/credentials.env). When they do not answer the tests fail
if FLOE_TEST_REST_S3_URI is set (scripts/test.sh sets it after starting them, so CI never
skips them) and are skipped otherwise.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
import random
import subprocess
import sys
import urllib.request
import uuid

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "ingest"))

from changes import ChangeStream  # noqa: E402
from iceberg_peers import REPO_ROOT, JavaPeer, cache_lock, find_java_peer  # noqa: E402
from iceberg_rows import assert_same_rows, parse_jsonl  # noqa: E402
from ingest_runs import ITEMS_SCHEMA, grow_and_kill, ingest_argv  # noqa: E402
from lake_check import assert_no_checkpoint_twice  # noqa: E402

DEFAULT_URI = "http://127.0.0.1:9182"
BUCKET = os.environ.get("FLOE_TEST_REST_S3_BUCKET", "floe-rest")
KILLS = int(os.environ.get("FLOE_S3_INGEST_KILLS", "8"))
LINES = int(os.environ.get("FLOE_S3_INGEST_LINES", "40000"))

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "identifier-field-ids": [1],
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"},
        {"id": 3, "name": "qty", "required": False, "type": "int"},
    ],
}


# ----------------------------------------------------------------------------- servers


def _unavailable(message: str) -> None:
    if "FLOE_TEST_REST_S3_URI" in os.environ:
        pytest.fail(message)
    pytest.skip(message)


@dataclasses.dataclass(frozen=True)
class S3Server:
    endpoint: str
    key_id: str
    secret: str

    def properties(self, secret: str | None = None) -> dict[str, str]:
        """The same `s3.*` settings for floe, PyIceberg and Iceberg Java."""
        return {
            "s3.endpoint": self.endpoint,
            "s3.access-key-id": self.key_id,
            "s3.secret-access-key": secret or self.secret,
            "s3.region": "us-east-1",
            "s3.path-style-access": "true",
        }

    def boto(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id=self.key_id, aws_secret_access_key=self.secret)


@pytest.fixture(scope="session")
def s3_server() -> S3Server:
    env = dict(os.environ)
    if "FLOE_TEST_S3_ENDPOINT" not in env:
        creds = REPO_ROOT / ".cache" / "s3" / "credentials.env"
        if creds.exists():
            for line in creds.read_text().splitlines():
                if "=" in line:
                    k, v = line.split("=", 1)
                    env.setdefault(k, v)
    if "FLOE_TEST_S3_ENDPOINT" not in env:
        _unavailable("no S3 server: start it with scripts/services/s3.sh start")
    server = S3Server(env["FLOE_TEST_S3_ENDPOINT"], env["FLOE_TEST_S3_ACCESS_KEY_ID"],
                      env["FLOE_TEST_S3_SECRET_ACCESS_KEY"])
    try:
        client = server.boto()
        # moto keeps buckets in memory: a restarted S3 server lost the REST server's bucket.
        if BUCKET not in {b["Name"] for b in client.list_buckets().get("Buckets", [])}:
            try:
                client.create_bucket(Bucket=BUCKET)
            except client.exceptions.BucketAlreadyOwnedByYou:
                pass  # another test process made it meanwhile
    except Exception as e:  # noqa: BLE001 - any failure means "not there"
        _unavailable(f"the S3 server at {server.endpoint} does not answer ({e})")
    return server


@pytest.fixture(scope="session")
def rest_s3_uri(s3_server) -> str:
    uri = os.environ.get("FLOE_TEST_REST_S3_URI", DEFAULT_URI).rstrip("/")
    try:
        with urllib.request.urlopen(f"{uri}/v1/config", timeout=5) as answer:
            json.load(answer)
    except Exception as e:  # noqa: BLE001
        _unavailable(f"the Iceberg REST server on S3 does not answer at {uri} ({e}); "
                     "start it with scripts/services/iceberg-rest.sh start s3")
    return uri


# ----------------------------------------------------------------------------- Iceberg Java with S3FileIO


def _peer_s3_jars() -> str:
    """Iceberg's S3FileIO and the AWS SDK bundle of the peer's Iceberg version (pom-s3.xml with
    that version), copied once into .cache/java-peer-s3/."""
    pom = REPO_ROOT / "tests" / "interop" / "rest-server" / "pom-s3.xml"
    peer_pom = (REPO_ROOT / "tests" / "interop" / "java" / "pom.xml").read_text()
    version = peer_pom.split("<iceberg.version>", 1)[1].split("<", 1)[0]
    out = REPO_ROOT / ".cache" / "java-peer-s3"
    stamp = out / "stamp"
    want = f"{version} {hashlib.sha256(pom.read_bytes()).hexdigest()}"
    with cache_lock("java-peer"):  # Maven's repository is shared with scripts/java-peer.sh
        if not (stamp.exists() and stamp.read_text() == want):
            _fetch_peer_s3_jars(pom, version, out)
            stamp.write_text(want)
    return str(out / "lib" / "*")


def _fetch_peer_s3_jars(pom: pathlib.Path, version: str, out: pathlib.Path) -> None:
    """Resolves pom-s3.xml's jars with Maven (the shared Maven repository) into OUT/lib."""
    repo = pathlib.Path(os.environ.get("FLOE_CACHE", pathlib.Path.home() / ".cache" / "floe")) / "maven"
    build = out / "build"
    subprocess.run(["rm", "-rf", str(out)], check=True)
    build.mkdir(parents=True)
    (build / "pom.xml").write_text(pom.read_text())
    proc = subprocess.run(
        ["mvn", "-B", "-ntp", "-Dstyle.color=never", f"-Dmaven.repo.local={repo}",
         f"-Diceberg.version={version}", "dependency:copy-dependencies",
         f"-DoutputDirectory={out / 'lib'}"],
        cwd=build, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"Maven could not resolve iceberg-aws {version}:\n{proc.stdout[-3000:]}"


@pytest.fixture(scope="session")
def java_peer_s3() -> JavaPeer:
    peer = find_java_peer()
    return JavaPeer(peer.classpath + ":" + _peer_s3_jars())


# ----------------------------------------------------------------------------- lakes


@dataclasses.dataclass
class S3Lake:
    """One test's catalog with its tables on S3: kind "rest" (the REST server on S3) or "sql"
    (a local SQLite file, warehouse s3://BUCKET/<unique prefix>). The config file, state
    folders and inputs stay under the local `root`."""

    kind: str
    root: pathlib.Path
    s3: S3Server
    rest_uri: str = ""
    secret: str | None = None  # a wrong one, for the error tests
    warehouse: str = ""

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if not self.warehouse:
            self.warehouse = f"s3://{BUCKET}/sql-{uuid.uuid4().hex[:12]}"
        lines = ["catalog:", "  default:"]
        if self.kind == "rest":
            lines += ["    type: rest", f'    uri: "{self.rest_uri}"']
        else:
            lines += ["    type: sql", f'    uri: "sqlite:///{self.db}"', f'    warehouse: "{self.warehouse}"']
        lines += [f'    {k}: "{v}"' for k, v in self.s3.properties(self.secret).items()]
        self.config_file.write_text("\n".join(lines) + "\n")

    @property
    def config_file(self) -> pathlib.Path:
        return self.root / ".floe.yaml"

    @property
    def db(self) -> pathlib.Path:
        return self.root / "catalog.db"

    def py_catalog(self):
        props = self.s3.properties()
        if self.kind == "rest":
            from pyiceberg.catalog.rest import RestCatalog

            return RestCatalog("default", uri=self.rest_uri, **props)
        from pyiceberg.catalog.sql import SqlCatalog

        return SqlCatalog("default", uri=f"sqlite:///{self.db}", warehouse=self.warehouse, **props)

    def py_table(self, ident: str):
        return self.py_catalog().load_table(ident)

    def metadata(self, ident: str) -> dict:
        """The current metadata file, read from S3 as it is."""
        location = self.py_table(ident).metadata_location
        assert location.startswith(f"s3://{BUCKET}/"), location
        bucket, key = location.removeprefix("s3://").split("/", 1)
        return json.loads(self.s3.boto().get_object(Bucket=bucket, Key=key)["Body"].read())

    def java_args(self) -> list[str]:
        props = dict(self.s3.properties(), **{"io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
                                             "client.region": "us-east-1"})
        if self.kind == "rest":
            args = ["--catalog", "rest", "--warehouse", "unused", "--uri", self.rest_uri]
        else:
            args = ["--catalog", "jdbc", "--warehouse", self.warehouse, "--uri", f"jdbc:sqlite:{self.db}"]
        for k, v in props.items():
            args += [f"--prop.{k}", v]
        return args


@pytest.fixture
def rest_lake(tmp_path, rest_s3_uri, s3_server) -> S3Lake:
    return S3Lake("rest", tmp_path / "rest-s3", s3_server, rest_uri=rest_s3_uri)


@pytest.fixture
def sql_lake(tmp_path, s3_server) -> S3Lake:
    return S3Lake("sql", tmp_path / "sql-s3", s3_server)


@pytest.fixture
def namespace() -> str:
    """One level (Iceberg Java 1.10's REST client joins levels with %1F, which this server
    refuses), unique per test and run."""
    return f"s3_{uuid.uuid4().hex[:12]}"


def _floe(run_floe, lake: S3Lake, *args, ok: bool = True, timeout: float = 300):
    result = run_floe(args[0], "--catalog-config", str(lake.config_file), *args[1:], timeout=timeout)
    if ok:
        assert result.code == 0, result.describe()
    return result


def _rows(start: int, count: int, qty: int = 1) -> list[dict]:
    return [{"id": i, "name": f"n{i}", "qty": qty} for i in range(start, start + count)]


def _jsonl(path: pathlib.Path, rows: list[dict]) -> pathlib.Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _key(rows) -> list[tuple]:
    return sorted((int(r["id"]), r["name"], r["qty"]) for r in rows)


def _ingest(run_floe, lake: S3Lake, ident: str, source: pathlib.Path, state: str, *extra: str):
    schema_file = lake.root / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    if "--upsert" in extra:
        extra = (*extra, "--primary-key", "id")
    return _floe(run_floe, lake, "ingest", "--format", "json", "--table", ident, "--schema",
                 str(schema_file), "--state-dir", str(lake.root / state), *extra, str(source))


def _files_on_s3(table) -> list[str]:
    """The live files of the current snapshot (data and deletes), all on the test bucket.
    Read from the manifests: PyIceberg's scan planning refuses equality deletes."""
    snapshot = table.current_snapshot()
    assert snapshot is not None, "the table has no snapshot"
    paths = [entry.data_file.file_path for manifest in snapshot.manifests(table.io)
             for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=True)]
    assert paths, "the table has no data files"
    assert all(p.startswith(f"s3://{BUCKET}/") for p in paths), paths
    return paths


# ----------------------------------------------------------------------------- REST + S3


def test_ingest_append_and_upsert_on_rest_s3(floe_run, rest_lake, namespace, java_peer_s3):
    catalog = rest_lake.py_catalog()
    # Append: two runs over two inputs, then the first again (exactly once: nothing added).
    first, second = _rows(0, 300), _rows(300, 200)
    a = _jsonl(rest_lake.root / "a.jsonl", first)
    _ingest(floe_run, rest_lake, f"{namespace}.events", a, "state-append")
    _ingest(floe_run, rest_lake, f"{namespace}.events", _jsonl(rest_lake.root / "b.jsonl", second),
            "state-append-2")
    _ingest(floe_run, rest_lake, f"{namespace}.events", a, "state-append")
    events = catalog.load_table(f"{namespace}.events")
    assert events.metadata_location.startswith(f"s3://{BUCKET}/warehouse/"), events.metadata_location
    _files_on_s3(events)
    assert _key(events.scan().to_arrow().to_pylist()) == _key(first + second), \
        "PyIceberg read other rows than floe ingest appended on S3"

    # Upsert: the second input changes half of the first's keys and adds new ones.
    base = _rows(0, 200, qty=1)
    changes = _rows(100, 200, qty=2)
    _ingest(floe_run, rest_lake, f"{namespace}.upserted", _jsonl(rest_lake.root / "u1.jsonl", base),
            "state-upsert-1", "--upsert")
    _ingest(floe_run, rest_lake, f"{namespace}.upserted", _jsonl(rest_lake.root / "u2.jsonl", changes),
            "state-upsert-2", "--upsert")
    want = {r["id"]: r for r in base}
    want.update({r["id"]: r for r in changes})
    upserted = catalog.load_table(f"{namespace}.upserted")
    _files_on_s3(upserted)
    java_rows, _ = java_peer_s3.scan(rest_lake, f"{namespace}.upserted")
    assert _key(java_rows) == _key(want.values()), "Iceberg Java read other rows than floe upserted on S3"
    scanned = _floe(floe_run, rest_lake, "table", "scan", f"{namespace}.upserted")
    assert _key(parse_jsonl(scanned.stdout)) == _key(want.values())


def test_table_and_read_commands_on_rest_s3(floe_run, rest_lake, namespace):
    ident = f"{namespace}.orders"
    schema_file = rest_lake.root / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    _floe(floe_run, rest_lake, "table", "create-namespace", namespace)
    _floe(floe_run, rest_lake, "table", "create", ident, "--schema", str(schema_file),
          "--partition-by", "bucket(4, id)")
    rows = _rows(0, 120)
    _floe(floe_run, rest_lake, "table", "append", ident, str(_jsonl(rest_lake.root / "o.jsonl", rows)))
    listed = _floe(floe_run, rest_lake, "table", "list", namespace)
    assert ident in listed.stdout.split()
    described = _floe(floe_run, rest_lake, "table", "describe", ident)
    assert f"s3://{BUCKET}/" in described.stdout, described.describe()
    files = _floe(floe_run, rest_lake, "table", "files", ident)
    assert f"s3://{BUCKET}/" in files.stdout, files.describe()
    read = _floe(floe_run, rest_lake, "read", ident, "--parallelism", "2")
    assert _key(parse_jsonl(read.stdout)) == _key(rows)
    py = rest_lake.py_table(ident)
    _files_on_s3(py)
    assert _key(py.scan().to_arrow().to_pylist()) == _key(rows)
    _floe(floe_run, rest_lake, "table", "drop", ident)
    assert rest_lake.py_catalog().list_tables(namespace) == []


# ----------------------------------------------------------------------------- sql catalog on S3


def test_sql_catalog_with_s3_warehouse(floe_run, sql_lake, java_peer_s3):
    ns = "shop"
    ident = f"{ns}.items"
    schema_file = sql_lake.root / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    _floe(floe_run, sql_lake, "table", "create-namespace", ns)
    _floe(floe_run, sql_lake, "table", "create", ident, "--schema", str(schema_file))
    first = _rows(0, 50)
    _floe(floe_run, sql_lake, "table", "append", ident, str(_jsonl(sql_lake.root / "a.jsonl", first)))
    changes = _rows(25, 50, qty=7)
    _ingest(floe_run, sql_lake, ident, _jsonl(sql_lake.root / "u.jsonl", changes), "state", "--upsert")
    want = {r["id"]: r for r in first}
    want.update({r["id"]: r for r in changes})

    table = sql_lake.py_table(ident)
    assert table.metadata_location.startswith(sql_lake.warehouse + "/shop.db/items/metadata/"), \
        table.metadata_location
    _files_on_s3(table)
    java_rows, _ = java_peer_s3.scan(sql_lake, ident)
    assert _key(java_rows) == _key(want.values()), "Iceberg Java read other rows than floe wrote on S3"
    read = _floe(floe_run, sql_lake, "read", ident)
    assert _key(parse_jsonl(read.stdout)) == _key(want.values())
    # Nothing went to a local folder named after the URI.
    assert not (sql_lake.root / "s3:").exists() and not pathlib.Path("s3:").exists()

    # PyIceberg writes on S3 through the same catalog; floe reads it.
    import pyarrow as pa

    catalog = sql_lake.py_catalog()
    arrow = pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["a", "b"]})
    catalog.create_table(f"{ns}.from_py", schema=arrow.schema).append(arrow)
    scanned = _floe(floe_run, sql_lake, "table", "scan", f"{ns}.from_py")
    assert sorted((r["id"], r["name"]) for r in parse_jsonl(scanned.stdout)) == [(1, "a"), (2, "b")]


# ----------------------------------------------------------------------------- exactly once


def test_ingest_exactly_once_under_sigkill_on_rest_s3(floe_bin, tmp_path, rest_lake, java_peer_s3):
    """The upsert mode of tests/interop/ingest/test_ingest_exactly_once.py on REST + S3: the
    change stream (three tables, updates, deletes, schema changes) grows in a file while `floe ingest --follow` runs; runs are killed at random moments (at
    least KILLS times, and until the stream is complete) and restarted with the same state
    folder; a last run finishes. The tables' namespaces are unique per run (the server keeps
    its catalog across tests)."""
    binary = pathlib.Path(floe_bin)
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    stream = ChangeStream(seed)
    prefix = f"k{uuid.uuid4().hex[:8]}"
    for table in stream.tables:
        table.db = f"{prefix}_{table.db}"
    # The items table is made beforehand, partitioned by its key column (updates that change
    # the region move rows between partitions); the others are created by floe ingest.
    items = next(t for t in stream.tables if t.name == "items")
    schema_file = tmp_path / "items-schema.json"
    schema_file.write_text(json.dumps(ITEMS_SCHEMA))
    table_cmd = [str(binary), "table", "--catalog-config", str(rest_lake.config_file)]
    for args in (["create-namespace", items.db],
                 ["create", items.ident, "--schema", str(schema_file), "--partition-by", "region, bucket(4, id)"]):
        done = subprocess.run(table_cmd + args, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    # The stream grows while the runs follow it, so kills land mid-stream however fast
    # the machine is (a file there from the start was once ingested whole before the
    # first kill).
    input_file = tmp_path / "changes.jsonl"
    input_file.touch()
    state = tmp_path / "state"
    rnd = random.Random(seed)
    lines = list(stream.lines(LINES))

    def chunks():
        written = 0
        while written < len(lines):
            chunk = lines[written:written + rnd.randint(100, 600)]
            yield "".join(line + "\n" for line in chunk)
            written += len(chunk)

    killed, logs = grow_and_kill(ingest_argv(binary, rest_lake, input_file, state, "--upsert", "--follow"),
                                 input_file, chunks(), kills=KILLS, pause=(0.8, 3.0), gap=0.05, rnd=rnd,
                                 logs_dir=tmp_path)
    final = subprocess.run(ingest_argv(binary, rest_lake, input_file, state, "--upsert"),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, final.stderr[-4000:]
    resumed = sum("from checkpoint" in log.read_text() for log in logs)
    for ident, expected in stream.expected().items():
        table = rest_lake.py_table(ident)
        _files_on_s3(table)
        schema = json.loads(table.schema().model_dump_json(by_alias=True))
        java_rows, _ = java_peer_s3.scan(rest_lake, ident)
        assert_same_rows(java_rows, expected, schema, f"seed {seed}, {KILLS} kills: {ident} (Iceberg Java)")
        commits = assert_no_checkpoint_twice(rest_lake.metadata(ident), f"seed {seed}: {ident}")
        print(f"{ident}: {len(expected)} rows, {commits} commits")
        assert commits >= 3, f"{ident}: only {commits} commits; the kills did not land between commits"
    print(f"{killed} runs killed, {resumed} resumed from a checkpoint")
    assert resumed >= killed // 2, f"only {resumed} of {killed} runs resumed from a checkpoint"
    assert resumed >= 2, f"only {resumed} runs resumed from a checkpoint"


# ----------------------------------------------------------------------------- errors


def test_wrong_secret_is_a_clear_error(floe_run, tmp_path, s3_server):
    lake = S3Lake("sql", tmp_path / "wrong", s3_server, secret="not-the-secret")
    schema_file = lake.root / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    _floe(floe_run, lake, "table", "create-namespace", "ns")
    failed = _floe(floe_run, lake, "table", "create", "ns.t", "--schema", str(schema_file), ok=False)
    assert failed.code == 1, failed.describe()
    assert "error: " in failed.stderr and lake.warehouse in failed.stderr, failed.describe()
    assert "SignatureDoesNotMatch" in failed.stderr or "403" in failed.stderr, failed.describe()
    assert "not-the-secret" not in failed.stderr + failed.stdout
    # Nothing was created: the catalog has no row for a table without metadata.
    listed = _floe(floe_run, lake, "table", "list", "ns")
    assert "ns.t" not in listed.stdout.split()


def test_rest_servers_vended_keys_are_used_for_its_tables(floe_run, tmp_path, rest_s3_uri, s3_server):
    """The server hands out its S3 key in each load-table answer's `config`
    (include-credentials): floe uses it for that table's files, over its own settings, as
    PyIceberg does. floe's own secret here is wrong: without the table's config every write
    would be refused. (The table is made with `floe table create`: `floe ingest`, creating a
    table, first checks its default location with floe's own key.)"""
    lake = S3Lake("rest", tmp_path / "vended", s3_server, rest_uri=rest_s3_uri, secret="not-the-secret")
    ns = f"s3_{uuid.uuid4().hex[:12]}"
    schema_file = lake.root / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    _floe(floe_run, lake, "table", "create-namespace", ns)
    _floe(floe_run, lake, "table", "create", f"{ns}.t", "--schema", str(schema_file))
    first, second = _rows(0, 40), _rows(40, 30)
    _floe(floe_run, lake, "table", "append", f"{ns}.t", str(_jsonl(lake.root / "a.jsonl", first)))
    _ingest(floe_run, lake, f"{ns}.t", _jsonl(lake.root / "rows.jsonl", second), "state")
    read = _floe(floe_run, lake, "read", f"{ns}.t")
    assert _key(parse_jsonl(read.stdout)) == _key(first + second)
    table = S3Lake("rest", tmp_path / "vended-py", s3_server, rest_uri=rest_s3_uri).py_table(f"{ns}.t")
    _files_on_s3(table)
    assert _key(table.scan().to_arrow().to_pylist()) == _key(first + second)
    assert "not-the-secret" not in read.stderr


def test_missing_bucket_is_a_clear_error(floe_run, tmp_path, s3_server):
    bucket = f"floe-missing-{uuid.uuid4().hex[:8]}"
    lake = S3Lake("sql", tmp_path / "nobucket", s3_server, warehouse=f"s3://{bucket}/wh")
    schema_file = lake.root / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    _floe(floe_run, lake, "table", "create-namespace", "ns")
    failed = _floe(floe_run, lake, "table", "create", "ns.t", "--schema", str(schema_file), ok=False)
    assert failed.code == 1, failed.describe()
    assert bucket in failed.stderr, failed.describe()
    assert "NoSuchBucket" in failed.stderr or "does not exist" in failed.stderr, failed.describe()
    # floe ingest into the same catalog stops with the same error, and the state holds nothing.
    source = _jsonl(lake.root / "rows.jsonl", _rows(0, 5))
    failed = _floe(floe_run, lake, "ingest", "--format", "json", "--table", "ns.t", "--schema",
                   str(schema_file), "--state-dir", str(lake.root / "state"), str(source), ok=False)
    assert failed.code != 0 and bucket in failed.stderr, failed.describe()
