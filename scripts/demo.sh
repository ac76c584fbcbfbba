#!/usr/bin/env bash
# A short demonstration of what floe does today (until the ingestion pipeline
# exists): change-data-like order rows in JSON Lines become a zstd Parquet file
# with Iceberg field ids, which floe inspects and pyarrow and DuckDB read back.
#
#   scripts/demo.sh [ROWS]      # default 10000 rows; output in .cache/demo/
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
exec </dev/null

ROWS="${1:-10000}"
OUT="${ROOT}/.cache/demo"
FLOE="${ROOT}/build/floe"
PY="${ROOT}/.cache/venv/bin/python"

step() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "setup (packages, Python peers, build)"
"${ROOT}/scripts/setup.sh"

mkdir -p "${OUT}"
rm -f "${OUT}/orders.parquet"

step "generate ${ROWS} order rows (examples/generate_orders.py)"
python3 examples/generate_orders.py --rows "${ROWS}" --seed 1 >"${OUT}/orders.jsonl"
printf '%s rows, %s bytes: .cache/demo/orders.jsonl; first row:\n' \
  "$(wc -l <"${OUT}/orders.jsonl")" "$(wc -c <"${OUT}/orders.jsonl")"
head -n 1 "${OUT}/orders.jsonl"

step "write Parquet (Iceberg schema examples/orders.schema.json, zstd)"
cd "${OUT}"
show "${FLOE}" parquet write --schema "${ROOT}/examples/orders.schema.json" --codec zstd \
  orders.jsonl orders.parquet
printf '%s bytes: .cache/demo/orders.parquet\n' "$(wc -c <orders.parquet)"

step "the file's schema, as floe reads it"
show "${FLOE}" parquet schema orders.parquet

step "footer: row groups, column chunks, encodings, codecs, statistics"
printf '$ %s\n' "${FLOE} parquet meta orders.parquet"
"${FLOE}" parquet meta orders.parquet >meta.txt
head -n 60 meta.txt
if (($(wc -l <meta.txt) > 60)); then
  echo "... ($(wc -l <meta.txt) lines in all: .cache/demo/meta.txt)"
fi

step "the first rows, as JSON Lines"
show "${FLOE}" parquet cat orders.parquet --limit 5

step "pyarrow and DuckDB read it"
"${PY}" - <<'PY'
import duckdb
import pyarrow.parquet as pq

table = pq.read_table("orders.parquet")
print(f"pyarrow: {table.num_rows} rows, {table.num_columns} columns")
field_ids = {f.name: int(f.metadata[b"PARQUET:field_id"]) for f in table.schema}
print(f"pyarrow: field ids {field_ids}")
row = table.slice(0, 1).to_pylist()[0]
print(f"pyarrow: first order {row['order_id']}: {row['status']}, {row['amount']} "
      f"{row['currency']}, created {row['created_at']}")
print("DuckDB:  revenue by status")
print(duckdb.sql("""
    select status, count(*) as orders, sum(amount) as revenue,
           sum(len(items)) as items
    from read_parquet('orders.parquet') group by status order by status
"""))
PY

step "done: files in .cache/demo/"
