#!/usr/bin/env bash
# floe's mission in one run: mirror a whole MySQL/MariaDB database into Apache
# Iceberg, exactly once, while the database keeps changing, through a kill -9.
#
#   scripts/demo.sh
#   FLOE_BIN=path/to/floe scripts/demo.sh    # another floe binary (no build)
#
# 1. scripts/setup.sh (packages, Python peers, the build: build/floe).
# 2. A local MariaDB (scripts/services/mariadb.sh, 127.0.0.1:3307); stopped at
#    the end unless it was already running.
# 3. A demo database `shop` (examples/generate_shop.py): customers, orders,
#    order_items, a few thousand rows.
# 4. A pipeline file, .cache/demo/shop.yaml (Flink CDC's keys): every table of
#    `shop` into a local SQL (SQLite) catalog and warehouse, a checkpoint and
#    commit every second, parallelism 2, `schema.change.behavior: evolve` (a
#    true mirror of every DDL). `floe run --check` shows its tables
#    and where each goes; then `floe run` starts in the background and takes
#    the initial snapshot.
# 5. While floe mirrors, the script inserts, updates and deletes rows, then
#    kills floe with SIGKILL in the middle of the changes, goes on changing the
#    database while floe is down (adds a column), starts `floe run` again with
#    the same file (it resumes from its last checkpoint), and makes the rest of
#    the changes: a new table, a column renamed, a primary-key change, a
#    delete and re-insert.
# 6. Waits until the lake has caught up, stops floe with SIGTERM: it takes a
#    final checkpoint, commits it and exits 0.
# 7. Shows the lake (tables, schema, snapshots with their checkpoint ids, rows)
#    and compares every table with MariaDB, row by row, as floe, PyIceberg and
#    Iceberg Java read it, and column by column (names, order, types, key:
#    examples/mirror_check.py --exact-schema). Exits non-zero on a mismatch.
#
# Everything it writes is under .cache/demo/ (cleared at the start, so the
# script can be run again); the database `shop` is dropped and recreated.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
exec </dev/null

OUT="${ROOT}/.cache/demo"
FLOE="${FLOE_BIN:-${ROOT}/build/floe}"
PY="${ROOT}/.cache/venv/bin/python"
DB=shop

# The local server of scripts/services/mariadb.sh (the same variables as the tests).
export FLOE_TEST_MYSQL_HOST="${FLOE_TEST_MYSQL_HOST:-127.0.0.1}"
export FLOE_TEST_MYSQL_PORT="${FLOE_TEST_MYSQL_PORT:-3307}"
export FLOE_TEST_MYSQL_USER="${FLOE_TEST_MYSQL_USER:-floe}"
export FLOE_TEST_MYSQL_PASSWORD="${FLOE_TEST_MYSQL_PASSWORD:-floe}"
# The pipeline file reads the password from the environment: ${MYSQL_PASSWORD}.
export MYSQL_PASSWORD="${FLOE_TEST_MYSQL_PASSWORD}"
MARIADB_PID_FILE="${ROOT}/.cache/mariadb/mariadb.pid"
# The demo changes the database as the server's root user (over the socket);
# floe captures as the replication user floe.
MARIADB=(mariadb --no-defaults --protocol=socket --socket="${ROOT}/.cache/mariadb/mariadb.sock"
  -uroot --default-character-set=utf8mb4)

PIPELINE="${OUT}/shop.yaml"
CATALOG_CONFIG="${OUT}/.floe.yaml"
RUN_PID=""
RUN_LOG=""
RUNS=0
MARIADB_STARTED_PID=""
START_SECONDS=${SECONDS}

step() { printf '\n== %s\n' "$*"; }
# loud TEXT...: a line that stands out.
loud() {
  printf '\n'
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n'
  printf '!!! %s\n' "$@"
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n'
}
# quote ARGS...: the arguments as one shell command line, for display: quoted
# where needed, paths relative to the repository.
quote() {
  local arg out=()
  for arg in "$@"; do
    arg="${arg//"${ROOT}/"/}"
    if [[ "${arg}" =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then
      out+=("${arg}")
    else
      out+=("'${arg//\'/\'\\\'\'}'")
    fi
  done
  printf '%s' "${out[*]}"
}
# sql: runs SQL from standard input in the demo database.
sql() { "${MARIADB[@]}" "${DB}"; }
# floe_table ARGS...: `floe table` against the demo lake; show_table also
# prints the command line first.
floe_table() { "${FLOE}" table --catalog-config "${CATALOG_CONFIG}" "$@"; }
show_table() {
  printf '$ %s\n' "$(quote "${FLOE}" table --catalog-config "${CATALOG_CONFIG}" "$@")"
  floe_table "$@"
}

# On any exit: end floe run if it still runs, and stop MariaDB if this script
# started it (by its pid, through the service script's pid file).
cleanup() {
  local rc=$?
  if [[ -n "${RUN_PID}" ]] && kill -0 "${RUN_PID}" 2>/dev/null; then
    kill -TERM "${RUN_PID}" 2>/dev/null || true
    wait "${RUN_PID}" 2>/dev/null || true
  fi
  if [[ -n "${MARIADB_STARTED_PID}" ]]; then
    if [[ -f "${MARIADB_PID_FILE}" && "$(cat "${MARIADB_PID_FILE}")" == "${MARIADB_STARTED_PID}" ]]; then
      echo
      echo "stopping the MariaDB this demo started (pid ${MARIADB_STARTED_PID})"
      "${ROOT}/scripts/services/mariadb.sh" stop >/dev/null
    fi
  fi
  exit "${rc}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------
# floe run, and waiting for the lake

# start_run: `floe run` on the pipeline file, in the background; its log
# (stderr) and its summary (stdout) in .cache/demo/runN.{log,out}.
start_run() {
  RUNS=$((RUNS + 1))
  RUN_LOG="${OUT}/run${RUNS}.log"
  printf '$ %s &\n' "$(quote "${FLOE}" run "${PIPELINE}")"
  "${FLOE}" run "${PIPELINE}" >"${OUT}/run${RUNS}.out" 2>"${RUN_LOG}" &
  RUN_PID=$!
  echo "floe run pid ${RUN_PID}; its log in .cache/demo/run${RUNS}.log"
}

# source_count TABLE / lake_count TABLE: live rows in MariaDB / in the Iceberg
# table (0 while the table does not exist yet).
source_count() { "${MARIADB[@]}" -N -B -e "SELECT COUNT(*) FROM \`${DB}\`.\`$1\`"; }
lake_count() { { floe_table scan "${DB}.$1" 2>/dev/null || true; } | wc -l; }
source_tables() {
  "${MARIADB[@]}" -N -B -e "SELECT TABLE_NAME FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = '${DB}' AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME"
}
# counts: " table lake/MariaDB" for every source table.
counts() {
  local table
  for table in $(source_tables); do
    printf ' %s %d/%d' "${table}" "$(lake_count "${table}")" "$(source_count "${table}")"
  done
}

# mirror_alive: fails with the log when floe run has stopped.
mirror_alive() {
  if ! kill -0 "${RUN_PID}" 2>/dev/null; then
    echo "floe run stopped unexpectedly; the end of ${RUN_LOG#"${ROOT}/"}:" >&2
    tail -n 20 "${RUN_LOG}" >&2 || true
    return 1
  fi
}

# wait_for_lake TIMEOUT_SECONDS: polls until every source table has as many
# rows in the lake as in MariaDB. The changes below end with an insert into a
# table that only ever gets inserts (reviews), so equal counts there mean that
# floe has read the last change, and so every change before it; everything it
# read is committed at its final checkpoint when it stops (SIGTERM).
wait_for_lake() {
  local timeout="$1" started=${SECONDS} tables table status done_ source lake
  tables="$(source_tables)"
  while true; do
    mirror_alive
    status="" done_=1
    for table in ${tables}; do
      source="$(source_count "${table}")"
      lake="$(lake_count "${table}")"
      status+=" ${table} ${lake}/${source}"
      ((lake == source)) || done_=0
    done
    if ((done_)); then
      printf 'caught up after %d s (lake/MariaDB rows):%s\n' $((SECONDS - started)) "${status}"
      return 0
    fi
    if ((SECONDS - started >= timeout)); then
      printf 'the lake did not catch up within %d s (lake/MariaDB rows):%s\n' \
        "${timeout}" "${status}" >&2
      return 1
    fi
    sleep 1
  done
}

# ---------------------------------------------------------------------------
# The steps

setup() {
  step "1. setup (packages, Python peers, build)"
  if [[ -n "${FLOE_BIN:-}" ]]; then
    echo "(FLOE_BIN is set: using $(quote "${FLOE}"), build/ is not built)"
    FLOE_SETUP_SKIP_BUILD=1 "${ROOT}/scripts/setup.sh"
  else
    "${ROOT}/scripts/setup.sh"
  fi
}

start_mariadb() {
  step "2. start the local MariaDB (scripts/services/mariadb.sh start)"
  if [[ -f "${MARIADB_PID_FILE}" ]] && kill -0 "$(cat "${MARIADB_PID_FILE}")" 2>/dev/null; then
    echo "(already running before the demo: it is left running afterwards)"
    "${ROOT}/scripts/services/mariadb.sh" start
  else
    "${ROOT}/scripts/services/mariadb.sh" start
    MARIADB_STARTED_PID="$(cat "${MARIADB_PID_FILE}")"
  fi
}

create_database() {
  step "3. create the demo database '${DB}' (examples/generate_shop.py)"
  python3 examples/generate_shop.py --customers 1000 --orders 3000 --seed 1 | "${MARIADB[@]}"
  sql <<'SQL'
SELECT 'customers' AS `table`, COUNT(*) AS `rows` FROM customers
UNION ALL SELECT 'orders', COUNT(*) FROM orders
UNION ALL SELECT 'order_items', COUNT(*) FROM order_items;
SQL
}

write_pipeline() {
  step "4. the pipeline file, and floe run --check"
  rm -rf "${OUT}"
  mkdir -p "${OUT}"
  # Flink CDC's keys (docs/pipeline.md). Relative paths are taken from the
  # file's folder: the lake is .cache/demo/catalog.db and .cache/demo/warehouse,
  # the checkpoints are in .cache/demo/state.
  cat >"${PIPELINE}" <<YAML
source:
  type: mysql
  name: local MariaDB
  hostname: ${FLOE_TEST_MYSQL_HOST}
  port: ${FLOE_TEST_MYSQL_PORT}
  username: ${FLOE_TEST_MYSQL_USER}
  password: \${MYSQL_PASSWORD}          # from the environment; never printed
  tables: ${DB}.\\.*                    # every table of ${DB}, also those created later
  server-id: 4242                     # the replica id floe connects with
  scan.startup.mode: initial          # snapshot every table, then follow the binlog

sink:
  type: iceberg
  catalog:                            # a SQL catalog: one SQLite file
    type: sql
    uri: sqlite:///catalog.db
    warehouse: warehouse

pipeline:
  name: shop-mirror
  parallelism: 2
  schema.change.behavior: evolve      # a true mirror: renames, drops and column order follow the source
  checkpoint.interval: 1s
  state.dir: state
YAML
  # The same catalog for floe table, PyIceberg and Iceberg Java (docs/catalogs.md).
  cat >"${CATALOG_CONFIG}" <<YAML
catalog:
  default:
    type: sql
    uri: sqlite:///${OUT}/catalog.db
    warehouse: file://${OUT}/warehouse
YAML
  echo "\$ cat .cache/demo/shop.yaml"
  sed 's/^/  /' "${PIPELINE}"
  echo
  printf '$ MYSQL_PASSWORD=... %s\n' "$(quote "${FLOE}" run --check "${PIPELINE}")"
  "${FLOE}" run --check "${PIPELINE}" 2>&1 | sed -e "s|${ROOT}/||g" -e 's/^/  /'
}

start_mirror() {
  step "5. start the mirror: floe run, in the background"
  start_run
  echo "waiting for the initial snapshot to reach the lake ..."
  wait_for_lake 90
}

# The changes, in small transactions with pauses between them, so that they
# spread over several checkpoints (one per second). floe is killed after the
# third group and started again after the fourth.
change_database() {
  step "6. change the database while the mirror runs; kill -9 floe in the middle"

  echo "- 50 new customers, 200 new orders with 2 items each, their totals (inserts, then updates)"
  sql <<'SQL'
INSERT INTO customers (email, name, city, signed_up, created_at)
  SELECT CONCAT('new', seq, '@example.com'), CONCAT('New Customer ', seq), 'Lisboa',
         CURDATE(), NOW(6)
  FROM seq_1_to_50;
INSERT INTO orders (customer_id, status, total, currency, ordered_at, details)
  SELECT 1000 + 1 + seq % 50, 'created', 0, 'EUR', NOW(),
         JSON_OBJECT('channel', 'app', 'gift', seq % 9 = 0)
  FROM seq_1_to_200;
INSERT INTO order_items (order_id, sku, quantity, unit_price)
  SELECT o.id, CONCAT('SKU-', LPAD(o.id % 5000, 5, '0')), s.seq, 4.99 * s.seq
  FROM orders o JOIN seq_1_to_2 s WHERE o.total = 0;
UPDATE orders o SET total = (SELECT SUM(quantity * unit_price) FROM order_items WHERE order_id = o.id)
  WHERE total = 0;
SQL
  sleep 1.5

  echo "- ship paid orders, move customers (updates)"
  sql <<'SQL'
UPDATE orders SET status = 'shipped', updated_at = NOW(6) WHERE status = 'paid' AND id % 3 = 0;
UPDATE customers SET city = 'Berlin' WHERE city IS NULL AND id % 5 = 0;
UPDATE orders SET note = 'call first\nthen ring twice' WHERE id = 41;
SQL
  sleep 1.5

  echo "- purge half of the cancelled orders and their items (deletes)"
  sql <<'SQL'
DELETE oi FROM order_items oi JOIN orders o ON o.id = oi.order_id
  WHERE o.status = 'cancelled' AND o.id % 2 = 0;
DELETE FROM orders WHERE status = 'cancelled' AND id % 2 = 0;
SQL
  # Before the next checkpoint has committed these deletes, most likely.
  sleep 0.4

  loud "kill -9 ${RUN_PID}: floe run dies in the middle of the changes (SIGKILL, no" \
    "chance to checkpoint, commit or clean up)"
  kill -KILL "${RUN_PID}"
  wait "${RUN_PID}" 2>/dev/null || true
  RUN_PID=""
  echo "the lake as floe left it (lake/MariaDB rows):$(counts)"
  echo
  echo "while floe is down, the database keeps changing:"
  echo "- ALTER TABLE customers ADD COLUMN loyalty (then set it for customers with delivered orders)"
  sql <<'SQL'
ALTER TABLE customers ADD COLUMN loyalty ENUM('bronze', 'silver', 'gold') NULL AFTER city;
UPDATE customers SET loyalty = ELT(1 + id % 3, 'bronze', 'silver', 'gold')
  WHERE id IN (SELECT customer_id FROM orders WHERE status = 'delivered');
SQL

  loud "restart: floe run with the same pipeline file; it resumes from its last" \
    "complete checkpoint (state in .cache/demo/state)"
  start_run
  local waited=0
  until grep -q "resuming the capture" "${RUN_LOG}" || ((waited >= 100)); do
    mirror_alive
    sleep 0.1
    waited=$((waited + 1))
  done
  grep "resuming the capture" "${RUN_LOG}" | sed 's/^/  log: /' || true
  sleep 1.5

  echo "- CREATE TABLE reviews, created after the mirror started (it picks it up)"
  sql <<'SQL'
CREATE TABLE reviews (
  id         INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  order_id   BIGINT NOT NULL,
  rating     TINYINT NOT NULL,
  body       TEXT NULL,
  created_at DATETIME(6) NOT NULL
);
INSERT INTO reviews (order_id, rating, body, created_at)
  SELECT id, 1 + id % 5, CONCAT('Review of order ', id, IF(id % 7 = 0, ' — très bien 👍', '')), NOW(6)
  FROM orders WHERE status = 'delivered' ORDER BY id LIMIT 300;
SQL
  sleep 1.5

  echo "- ALTER TABLE reviews RENAME COLUMN body TO review_text (an Iceberg rename: the column keeps its history)"
  sql <<'SQL'
ALTER TABLE reviews RENAME COLUMN body TO review_text;
SQL
  sleep 1

  echo "- change a primary key (customer 7 becomes 100007), delete customer 10 and insert it again"
  sql <<'SQL'
BEGIN;
UPDATE customers SET id = 100007 WHERE id = 7;
UPDATE orders SET customer_id = 100007 WHERE customer_id = 7;
COMMIT;
DELETE FROM customers WHERE id = 10;
INSERT INTO customers (id, email, name, city, signed_up, created_at)
  VALUES (10, 'back.again@example.com', 'Back Again', 'Zürich', CURDATE(), NOW(6));
SQL
  sleep 1

  echo "- the last change: one more review (an insert into an insert-only table)"
  sql <<'SQL'
INSERT INTO reviews (order_id, rating, review_text, created_at) VALUES (41, 5, 'the last change', NOW(6));
SQL
}

stop_mirror() {
  step "7. wait until the lake has caught up, then stop floe run (SIGTERM)"
  wait_for_lake 120
  # At SIGTERM floe run stops reading, takes a final checkpoint, commits it
  # and exits 0.
  printf '$ kill -TERM %s\n' "${RUN_PID}"
  kill -TERM "${RUN_PID}"
  local rc=0
  wait "${RUN_PID}" || rc=$?
  RUN_PID=""
  if ((rc != 0)); then
    echo "floe run failed (exit ${rc}); the end of ${RUN_LOG#"${ROOT}/"}:" >&2
    tail -n 20 "${RUN_LOG}" >&2
    exit 1
  fi
  echo "floe run exited with status 0; its summary:"
  sed -e "s|${ROOT}/||g" -e 's/^/  /' "${OUT}/run${RUNS}.out"
}

show_lake() {
  step "8. the lake"
  show_table list "${DB}"
  echo
  show_table describe "${DB}.customers"
  echo
  show_table snapshots "${DB}.orders"
  echo
  echo "snapshot summaries of ${DB}.orders: which checkpoint of the pipeline each commit"
  echo "holds (one commit per checkpoint, none twice, the kill -9 notwithstanding), and"
  echo "the binlog position it ends at:"
  floe_table snapshots --json "${DB}.orders" >"${OUT}/orders-snapshots.json"
  "${PY}" - "${OUT}/orders-snapshots.json" <<'PY'
import json
import sys

snapshots = json.load(open(sys.argv[1]))
print(f"  {'snapshot':<20} {'operation':<10} {'checkpoint':>10} "
      f"{'+rows':>6} {'+eq-deletes':>11} {'+pos-deletes':>12}  binlog position")
seen = set()
for snap in snapshots:
    s = snap["summary"]
    checkpoint = s.get("floe.checkpoint-id", "-")
    print(f"  {snap['snapshot-id']:<20} {s['operation']:<10} {checkpoint:>10}"
          f" {s.get('added-records', '0'):>6}"
          f" {s.get('added-equality-deletes', '0'):>11} {s.get('added-position-deletes', '0'):>12}"
          f"  {s.get('floe.source-position', '-')}")
    if checkpoint != "-":
        if checkpoint in seen:
            sys.exit(f"checkpoint {checkpoint} was committed twice")
        seen.add(checkpoint)
PY
  echo
  show_table scan "${DB}.customers" --where "id = 7 OR id = 10 OR id = 100007"
  show_table scan "${DB}.orders" --where "id = 41"
  show_table scan "${DB}.reviews" --limit 3
}

compare() {
  step "9. compare every table with MariaDB (examples/mirror_check.py)"
  echo "readers: floe table scan; PyIceberg 0.12 (it refuses tables with equality delete"
  echo "files, which updates and deletes of rows from earlier checkpoints produce);"
  echo "Iceberg Java 1.10 (the test peer, when scripts/setup.sh built it)"
  echo
  "${PY}" examples/mirror_check.py --database "${DB}" --mariadb "$(printf '%q ' "${MARIADB[@]}")" \
    --floe "${FLOE}" --catalog-config "${CATALOG_CONFIG}" --sqlite "${OUT}/catalog.db" \
    --warehouse "${OUT}/warehouse" --java-classpath "${ROOT}/.cache/java-peer/classpath.txt" \
    --exact-schema
}

setup
start_mariadb
create_database
write_pipeline
start_mirror
change_database
stop_mirror
show_lake
compare
step "done in $((SECONDS - START_SECONDS)) s: files in .cache/demo/"
