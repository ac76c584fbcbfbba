"""S3FileIO against the reference readers, on the test S3 server.

floe writes a Parquet file (`floe parquet write`), S3FileIO uploads it to the
moto server of scripts/services/s3.sh (in 1 MiB writes, so in 5 MiB multipart
parts), and pyarrow's S3FileSystem and PyIceberg's FileIO, configured with the
same `s3.*` property names floe takes, read it back. The reverse: pyarrow
writes to S3 and S3FileIO reads it. Both go through `build/floe_s3_tool`
(src/floe/io/s3/tools/s3_tool.cc), a copy command on FileIO.

Reads FLOE_TEST_S3_ENDPOINT, FLOE_TEST_S3_ACCESS_KEY_ID and
FLOE_TEST_S3_SECRET_ACCESS_KEY (scripts/test.sh exports them after
`scripts/services/s3.sh start`); skipped when FLOE_TEST_S3_ENDPOINT is unset.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import subprocess
import uuid

import pytest

from conftest import floe_binary

# The AWS SDK under pyarrow would otherwise probe the EC2 metadata service.
os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pafs = pytest.importorskip("pyarrow.fs")

ENDPOINT = os.environ.get("FLOE_TEST_S3_ENDPOINT")
pytestmark = pytest.mark.skipif(ENDPOINT is None, reason="FLOE_TEST_S3_ENDPOINT is not set")

PART_SIZE = 5 << 20


def s3_tool() -> pathlib.Path:
    tool = pathlib.Path(os.environ.get("FLOE_S3_TOOL", floe_binary().parent / "floe_s3_tool"))
    if not tool.exists():
        pytest.skip(f"{tool} not built")
    return tool


def properties(secret: str | None = None) -> dict[str, str]:
    return {
        "s3.endpoint": ENDPOINT,
        "s3.access-key-id": os.environ["FLOE_TEST_S3_ACCESS_KEY_ID"],
        "s3.secret-access-key": secret or os.environ["FLOE_TEST_S3_SECRET_ACCESS_KEY"],
        "s3.region": "us-east-1",
        "s3.path-style-access": "true",
    }


def run_tool(*args: str, secret: str | None = None) -> subprocess.CompletedProcess:
    props = properties(secret) | {"s3.multipart.size": str(PART_SIZE)}
    flags = [x for k, v in props.items() for x in ("-p", f"{k}={v}")]
    return subprocess.run([str(s3_tool()), *flags, *args], capture_output=True, text=True,
                          timeout=120, check=False)


def arrow_s3() -> "pafs.S3FileSystem":
    host = ENDPOINT.split("://", 1)[1]
    return pafs.S3FileSystem(
        access_key=os.environ["FLOE_TEST_S3_ACCESS_KEY_ID"],
        secret_key=os.environ["FLOE_TEST_S3_SECRET_ACCESS_KEY"],
        endpoint_override=host, scheme="http", region="us-east-1")


@pytest.fixture()
def bucket() -> str:
    name = f"floe-interop-{uuid.uuid4().hex[:12]}"
    done = run_tool("mb", name)
    assert done.returncode == 0, done.stderr
    return name


def write_floe_parquet(tmp_path: pathlib.Path, rows: int) -> tuple[pathlib.Path, list[dict]]:
    schema = {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"},
        {"id": 3, "name": "score", "required": False, "type": "double"}]}
    rng = random.Random(14)
    data = [{"id": i, "name": "".join(rng.choice("abcdefghij") for _ in range(rng.randint(0, 40))),
             "score": rng.random()} for i in range(rows)]
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in data))
    out = tmp_path / "floe.parquet"
    done = subprocess.run([str(floe_binary()), "parquet", "write", "--schema",
                           str(tmp_path / "schema.json"), "--codec", "uncompressed",
                           "--no-dictionary", str(tmp_path / "rows.jsonl"), str(out)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return out, data


def test_readers_read_what_s3fileio_wrote(tmp_path: pathlib.Path, bucket: str) -> None:
    if not floe_binary().exists():
        pytest.skip(f"{floe_binary()} not built")
    local, rows = write_floe_parquet(tmp_path, 300_000)
    assert local.stat().st_size > 2 * PART_SIZE  # a multipart upload of 3+ parts
    uri = f"s3://{bucket}/db/t/data/00000-floe.parquet"
    done = run_tool("cp", str(local), uri)
    assert done.returncode == 0, done.stderr

    # pyarrow's S3 file system: the same bytes, the same rows.
    fs = arrow_s3()
    key = uri.removeprefix("s3://")
    assert fs.get_file_info(key).size == local.stat().st_size
    table = pq.read_table(key, filesystem=fs)
    assert table.num_rows == len(rows)
    assert table.column("id").to_pylist() == [r["id"] for r in rows]
    assert table.column("name").to_pylist() == [r["name"] for r in rows]
    with fs.open_input_stream(key) as f:
        assert f.read() == local.read_bytes()

    # PyIceberg's FileIO, configured with the property names floe takes.
    from pyiceberg.io.pyarrow import PyArrowFileIO
    io = PyArrowFileIO(properties=properties())
    with io.new_input(uri).open() as f:
        table = pq.read_table(f)
    assert table.num_rows == len(rows)
    assert table.column("score").to_pylist() == [r["score"] for r in rows]

    listed = run_tool("ls", f"s3://{bucket}/db/t/data")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split("\t")[0] == uri


def test_s3fileio_reads_what_pyarrow_wrote(tmp_path: pathlib.Path, bucket: str) -> None:
    fs = arrow_s3()
    table = pa.table({"x": list(range(50_000)), "y": [f"v{i}" for i in range(50_000)]})
    key = f"{bucket}/from-arrow/part-0.parquet"
    pq.write_table(table, key, filesystem=fs, row_group_size=7_000)
    local = tmp_path / "back.parquet"
    done = run_tool("cp", f"s3://{key}", str(local))
    assert done.returncode == 0, done.stderr
    with fs.open_input_stream(key) as f:
        assert local.read_bytes() == f.read()
    assert pq.read_table(local).equals(table)


def test_wrong_secret_is_a_clear_error_without_the_secret(tmp_path: pathlib.Path,
                                                          bucket: str) -> None:
    src = tmp_path / "x.bin"
    src.write_bytes(b"x" * 10)
    wrong = "Wr0ngSecretWr0ngSecretWr0ngSecret"
    done = run_tool("cp", str(src), f"s3://{bucket}/x.bin", secret=wrong)
    assert done.returncode == 1
    assert "SignatureDoesNotMatch" in done.stderr, done.stderr
    assert f"s3://{bucket}/x.bin" in done.stderr, done.stderr
    assert wrong not in done.stderr and wrong not in done.stdout
    missing = run_tool("cp", f"s3://{bucket}-nope/x.bin", str(tmp_path / "y"))
    assert missing.returncode == 1
    assert f"bucket '{bucket}-nope' does not exist" in missing.stderr, missing.stderr
