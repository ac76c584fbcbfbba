#!/usr/bin/env python3
"""Where the lake lives (issue 14): `floe ingest` onto S3 against local disk, and the commit
latency of a REST catalog against a SQL (SQLite) one. One run, same machine:

1. ingest: the 2M-row, 20-column JSON Lines of ingest_bench.py (same cache, same flags:
   append, `--format json`, zstd, `--parallelism 2`, one checkpoint at the end) into
   (a) a SQL catalog with a local warehouse, (b) a SQL catalog with an s3:// warehouse on
   the local S3 server (scripts/services/s3.sh, moto), (c) Iceberg's REST catalog server
   with its tables on that S3 server (scripts/services/iceberg-rest.sh start s3). Per run:
   wall, floe's CPU seconds (the child's rusage), rows/s, floe's peak resident memory (its
   VmHWM, as ingest_bench.py reads it), the CPU seconds the S3 server and the REST server
   used meanwhile (utime + stime of their pids from /proc/<pid>/stat, before and after),
   and the ratios against (a).
2. commits: N commits of one 1-row Parquet file each, `floe table add-files
   --allow-duplicates` (no data written: the file is written once, beforehand, where the
   catalog's tables live; each commit reads its footer, writes a manifest and a manifest
   list and swaps the table's metadata — an UPDATE in SQLite, or a POST to the REST server,
   which writes the metadata file), into (a) SQL + local, (b) SQL + S3, (c) REST + local
   warehouse (scripts/services/iceberg-rest.sh start), (d) REST + S3. Every command is a new
   process, so each catalog also gets M runs of `floe table describe` on the same table
   (start, read the config, open the catalog, load the table: everything but the commit);
   "commit" is the p50 of add-files minus the p50 of describe. The catalogs take turns
   commit by commit, so a load that comes and goes touches them alike.

The services must be running (this script neither starts nor stops them); their pid files
and the S3 key are read from --services (a checkout whose .cache/ holds them; default this
one). Ports: FLOE_TEST_S3_PORT (in the key file), FLOE_TEST_REST_PORT,
FLOE_TEST_REST_S3_PORT as the service scripts read them.

    scripts/services/s3.sh start && scripts/services/iceberg-rest.sh start s3 \\
        && scripts/services/iceberg-rest.sh start
    .cache/venv/bin/python bench/s3_rest_bench.py [--rows N] [--commits N] [--describes M]

Results: bench/README.md ("S3 and REST: ingest and commit overhead (issue 14)").
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import boto3  # noqa: E402

import parquet_write_bench as rows_bench  # noqa: E402
from bench_lake import lake  # noqa: E402
from ingest_bench import rows_input, run_measured  # noqa: E402
from run_mysql_bench import cpu_seconds  # noqa: E402

NAMESPACE = "bench14_" + uuid.uuid4().hex[:8]  # REST servers keep tables across runs


class Services:
    """The running S3 and REST servers: endpoints, the S3 key, and the pids whose CPU we read."""

    def __init__(self, checkout, bucket):
        cache = Path(checkout) / ".cache"
        env = dict(line.strip().split("=", 1) for line in (cache / "s3" / "credentials.env").open()
                   if "=" in line)
        self.endpoint = env["FLOE_TEST_S3_ENDPOINT"]
        self.key_id = env["FLOE_TEST_S3_ACCESS_KEY_ID"]
        self.secret = env["FLOE_TEST_S3_SECRET_ACCESS_KEY"]
        self.bucket = bucket
        host = os.environ.get("FLOE_TEST_REST_HOST", "127.0.0.1")
        self.rest_uri = "http://%s:%s" % (host, os.environ.get("FLOE_TEST_REST_PORT", "9181"))
        self.rest_s3_uri = "http://%s:%s" % (host, os.environ.get("FLOE_TEST_REST_S3_PORT", "9182"))
        self.pid_files = {"s3": cache / "s3" / "moto.pid",
                          "rest": cache / "iceberg-rest" / "server.pid",
                          "rest_s3": cache / "iceberg-rest-s3" / "server.pid"}

    def s3_properties(self):
        return {"s3.endpoint": self.endpoint, "s3.access-key-id": self.key_id,
                "s3.secret-access-key": self.secret, "s3.region": "us-east-1",
                "s3.path-style-access": "true"}

    def boto(self):
        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id=self.key_id, aws_secret_access_key=self.secret)

    def cpu(self):
        """CPU seconds so far of each server (nan when its pid file or process is gone)."""
        out = {}
        for name, pid_file in self.pid_files.items():
            try:
                out[name] = cpu_seconds(int(pid_file.read_text().strip()))
            except (OSError, ValueError, IndexError):
                out[name] = float("nan")
        return out


class Lake:
    """One catalog and where its tables live: a folder with its .floe.yaml (and state)."""

    def __init__(self, label, kind, storage, root, config):
        self.label, self.kind, self.storage, self.root, self.config = label, kind, storage, root, config

    def floe(self, floe, *argv):
        return [floe, "table", "--catalog-config", self.config] + list(argv)


def make_lake(services, workdir, name, kind, storage):
    """sql + local is bench_lake's lake; the others get their own .floe.yaml."""
    if kind == "sql" and storage == "local":
        root, _, _, config = lake(workdir, name)
        return Lake(name, kind, storage, root, config)
    root = os.path.join(workdir, name)
    os.makedirs(root, exist_ok=True)
    config = os.path.join(root, ".floe.yaml")
    if kind == "sql":
        settings = {"type": "sql", "uri": "sqlite:///%s/catalog-%s.db" % (root, NAMESPACE),
                    "warehouse": "s3://%s/%s/%s" % (services.bucket, name, NAMESPACE)}
    else:
        settings = {"type": "rest", "uri": services.rest_s3_uri if storage == "s3" else services.rest_uri}
    if storage == "s3":
        settings.update(services.s3_properties())
    with open(config, "w") as f:
        f.write("catalog:\n  default:\n")
        f.writelines('    %s: "%s"\n' % item for item in settings.items())
    return Lake(name, kind, storage, root, config)


def ratio(value, base):
    return "%.2fx" % (value / base) if base else "-"


def ingest(args, services, lakes, data, schema_path):
    print("\n### 1. `floe ingest` of %d rows (append, zstd, --parallelism %d)\n"
          % (args.rows, args.parallelism))
    print("| run | catalog | tables on | wall | rows/s | floe CPU | peak RSS | S3 server CPU | "
          "REST server CPU | wall / (a) | floe CPU / (a) | rows in the table |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    base = None
    for letter, lk in zip("abc", lakes):
        before = services.cpu()
        wall, cpu, peak, _ = run_measured(
            [args.floe, "ingest", data, "--format", "json", "--table", NAMESPACE + ".rows",
             "--schema", schema_path, "--catalog-config", lk.config, "--parallelism",
             str(args.parallelism), "--state-dir", os.path.join(lk.root, "state-" + NAMESPACE)])
        after = services.cpu()
        base = base or (wall, cpu)
        rest = "rest_s3" if lk.storage == "s3" else "rest"
        rest_cpu = after[rest] - before[rest] if lk.kind == "rest" else 0.0
        print("| (%s) | %s | %s | %.2f s | %.0f | %.2f s | %.1f MiB | %.2f s | %.2f s | %s | %s | %d |"
              % (letter, lk.kind, lk.storage, wall, args.rows / wall, cpu, peak,
                 after["s3"] - before["s3"], rest_cpu, ratio(wall, base[0]), ratio(cpu, base[1]),
                 table_records(args.floe, lk, NAMESPACE + ".rows")), flush=True)


def table_records(floe, lk, table):
    """The table's record count as its current snapshot states it (`floe table snapshots`)."""
    out = subprocess.run(lk.floe(floe, "snapshots", table), capture_output=True, check=True)
    return int(out.stdout.decode().splitlines()[-1].split()[6])


def timed(argv):
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(argv), proc.stderr.decode(errors="replace")[-3000:]))
    return elapsed * 1000


def one_row_file(args, services, lk, local_file):
    """Where the lake's data lives: the local file itself, or a copy of it on S3."""
    if lk.storage == "local":
        return local_file
    key = "%s/%s/one-row.parquet" % (lk.label, NAMESPACE)
    services.boto().upload_file(local_file, services.bucket, key)
    return "s3://%s/%s" % (services.bucket, key)


def p(values, q):
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def commits(args, services, lakes, data, schema_path):
    print("\n### 2. Commit latency: %d commits of a 1-row file (`floe table add-files`), "
          "%d `floe table describe` each\n" % (args.commits, args.describes))
    rows = os.path.join(args.workdir, "s3_rest_one_row.jsonl")
    local_file = os.path.join(args.workdir, "s3_rest_one_row.parquet")
    with open(data) as f, open(rows, "w") as out:
        out.write(f.readline())
    timed([args.floe, "parquet", "write", "--schema", schema_path, rows, local_file])
    table = NAMESPACE + ".commits"
    files = {}
    for lk in lakes:
        subprocess.run(lk.floe(args.floe, "create-namespace", NAMESPACE), capture_output=True)
        timed(lk.floe(args.floe, "create", table, "--schema", schema_path))
        files[lk.label] = one_row_file(args, services, lk, local_file)
    cpu_before = services.cpu()
    added = {lk.label: [] for lk in lakes}
    described = {lk.label: [] for lk in lakes}
    for i in range(max(args.commits, args.describes)):
        for lk in lakes:  # turns, so a passing load touches every catalog alike
            if i < args.commits:
                added[lk.label].append(timed(lk.floe(args.floe, "add-files", "--allow-duplicates",
                                                     table, files[lk.label])))
            if i < args.describes:
                described[lk.label].append(timed(lk.floe(args.floe, "describe", table)))
    cpu = {name: seconds - cpu_before[name] for name, seconds in services.cpu().items()}
    print("servers' CPU over all these commands: S3 %.1f s, REST (local) %.1f s, REST (S3) %.1f s\n"
          % (cpu["s3"], cpu["rest"], cpu["rest_s3"]))
    print("| catalog | tables on | add-files p50 | p99 | describe p50 | p99 | commit (p50 - p50) | "
          "commit / SQL local | rows in the table |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    base = None
    for lk in lakes:
        a, d = added[lk.label], described[lk.label]
        commit = statistics.median(a) - statistics.median(d)
        base = base or commit
        print("| %s | %s | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %s | %d |"
              % (lk.kind, lk.storage, statistics.median(a), p(a, 99), statistics.median(d),
                 p(d, 99), commit, ratio(commit, base), table_records(args.floe, lk, table)),
              flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--parallelism", type=int, default=2)
    ap.add_argument("--commits", type=int, default=200)
    ap.add_argument("--describes", type=int, default=50)
    ap.add_argument("--floe", default=os.path.join(ROOT, "build", "floe"))
    ap.add_argument("--workdir", default=os.path.join(ROOT, ".cache", "bench"))
    ap.add_argument("--services", default=ROOT,
                    help="the checkout whose .cache/ holds the services' pid files and S3 key")
    ap.add_argument("--bucket", default=os.environ.get("FLOE_TEST_REST_S3_BUCKET", "floe-rest"))
    ap.add_argument("--skip-ingest", action="store_true")
    ap.add_argument("--skip-commits", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    services = Services(args.services, args.bucket)

    data, schema_path = rows_input(args.workdir, args.rows)

    print("machine: %d cpus, load average %.2f %.2f %.2f at the start; input %d rows x %d columns, "
          "%.1f MiB JSON Lines; namespace %s"
          % ((os.cpu_count(),) + os.getloadavg() + (args.rows, len(rows_bench.COLUMNS),
                                                     os.path.getsize(data) / 2**20, NAMESPACE)))
    sql_local = make_lake(services, args.workdir, "s3-rest-sql-local", "sql", "local")
    sql_s3 = make_lake(services, args.workdir, "s3-rest-sql-s3", "sql", "s3")
    rest_local = make_lake(services, args.workdir, "s3-rest-rest-local", "rest", "local")
    rest_s3 = make_lake(services, args.workdir, "s3-rest-rest-s3", "rest", "s3")
    if not args.skip_ingest:
        ingest(args, services, [sql_local, sql_s3, rest_s3], data, schema_path)
        print("\nload average after the ingests: %.2f %.2f %.2f" % os.getloadavg())
    if not args.skip_commits:
        commits(args, services, [sql_local, sql_s3, rest_local, rest_s3], data, schema_path)
        print("\nload average after the commits: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
