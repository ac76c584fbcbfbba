#!/usr/bin/env python3
"""Writes SQL that creates a small shop database in MySQL/MariaDB: the demo source
of scripts/demo.sh. Standard library only; deterministic for a given seed.

    python3 examples/generate_shop.py --customers 1000 --orders 3000 | mariadb ...

The database (dropped first if it exists, so re-running starts over):

    shop.customers    id INT, email, name (UTF-8), city, signed_up DATE, created_at DATETIME(6)
    shop.orders       id BIGINT, customer_id, status ENUM, total DECIMAL(12,2), currency,
                      ordered_at DATETIME, updated_at TIMESTAMP(6) NULL, details JSON, note TEXT
    shop.order_items  id BIGINT, order_id, sku, quantity SMALLINT, unit_price DECIMAL(10,2)

Every table's primary key is a column named `id` (floe ingest --primary-key id).
"""

import argparse
import datetime
import json
import random
import sys

STATUSES = ["created", "paid", "shipped", "delivered", "cancelled"]
CURRENCIES = ["EUR", "USD", "JPY", "CHF"]
CITIES = ["Paris", "東京", "São Paulo", "Zürich", "Kraków", "New York", None]
FIRST = ["Ana", "Björn", "Chloé", "Dmitri", "Élise", "Farah", "Giulia", "Hiro", "Inès", "José",
         "Kateřina", "Liam", "Mei", "Nuno", "Olga", "Priya", "Søren", "Tomás", "Uma", "Zoë"]
LAST = ["Silva", "Müller", "Dubois", "Nakamura", "Kowalski", "O'Brien", "García", "Novák",
        "Andersson", "Rossi", "Chen", "Smith"]
CHANNELS = ["web", "app", "store", "phone"]

SCHEMA = """\
DROP DATABASE IF EXISTS shop;
CREATE DATABASE shop CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
USE shop;

CREATE TABLE customers (
  id         INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  email      VARCHAR(120) NOT NULL UNIQUE,
  name       VARCHAR(100) NOT NULL,
  city       VARCHAR(60) NULL,
  signed_up  DATE NOT NULL,
  created_at DATETIME(6) NOT NULL
);

CREATE TABLE orders (
  id          BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  customer_id INT NOT NULL,
  status      ENUM('created','paid','shipped','delivered','cancelled') NOT NULL,
  total       DECIMAL(12,2) NOT NULL,
  currency    CHAR(3) NOT NULL,
  ordered_at  DATETIME NOT NULL,
  updated_at  TIMESTAMP(6) NULL DEFAULT NULL,
  details     JSON NULL,
  note        TEXT NULL,
  KEY (customer_id)
);

CREATE TABLE order_items (
  id         BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  order_id   BIGINT NOT NULL,
  sku        VARCHAR(16) NOT NULL,
  quantity   SMALLINT NOT NULL,
  unit_price DECIMAL(10,2) NOT NULL,
  KEY (order_id)
);
"""


def sql_string(value):
    """A SQL literal: NULL, or a quoted string with ' and \\ escaped."""
    if value is None:
        return "NULL"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "''") + "'"


def insert(out, table, columns, rows, batch=500):
    """Multi-row INSERT statements of at most `batch` rows each."""
    for start in range(0, len(rows), batch):
        values = ",\n".join("(" + ",".join(row) + ")" for row in rows[start:start + batch])
        out.write(f"INSERT INTO {table} ({','.join(columns)}) VALUES\n{values};\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--customers", type=int, default=1000)
    parser.add_argument("--orders", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout
    out.write(SCHEMA)
    start = datetime.datetime(2024, 1, 1)

    customers = []
    for cid in range(1, args.customers + 1):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        created = start + datetime.timedelta(microseconds=rng.randrange(180 * 86400 * 10**6))
        customers.append([
            str(cid),
            sql_string(f"{first.lower()}.{last.lower().replace(chr(39), '')}.{cid}@example.com"),
            sql_string(f"{first} {last}"),
            sql_string(rng.choice(CITIES)),
            sql_string(created.date().isoformat()),
            sql_string(created.isoformat(sep=" ", timespec="microseconds")),
        ])
    out.write("BEGIN;\n")
    insert(out, "customers", ["id", "email", "name", "city", "signed_up", "created_at"], customers)

    orders, items = [], []
    for oid in range(1, args.orders + 1):
        ordered = start + datetime.timedelta(seconds=rng.randrange(300 * 86400))
        status = rng.choice(STATUSES)
        total = 0
        for _ in range(rng.randint(1, 4)):
            cents, quantity = rng.randint(99, 99_999), rng.randint(1, 5)
            total += cents * quantity
            items.append([str(oid), sql_string(f"SKU-{rng.randint(1, 5000):05d}"), str(quantity),
                          f"{cents // 100}.{cents % 100:02d}"])
        updated = None
        if status != "created":
            updated = ordered + datetime.timedelta(microseconds=rng.randrange(20 * 86400 * 10**6))
        details = {"channel": rng.choice(CHANNELS), "gift": rng.random() < 0.1,
                   "coupon": f"SAVE{rng.randint(5, 30)}" if rng.random() < 0.2 else None}
        orders.append([
            str(oid), str(rng.randint(1, args.customers)), sql_string(status),
            f"{total // 100}.{total % 100:02d}", sql_string(rng.choice(CURRENCIES)),
            sql_string(ordered.isoformat(sep=" ")),
            sql_string(updated and updated.isoformat(sep=" ", timespec="microseconds")),
            sql_string(json.dumps(details, separators=(",", ":"))),
            sql_string("leave at the door, it's \"fragile\"" if rng.random() < 0.05 else None),
        ])
    insert(out, "orders", ["id", "customer_id", "status", "total", "currency", "ordered_at",
                           "updated_at", "details", "note"], orders)
    insert(out, "order_items", ["order_id", "sku", "quantity", "unit_price"], items)
    out.write("COMMIT;\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
