#!/usr/bin/env python3
"""Writes change-data-like order rows as JSON Lines (floe's JSON row conventions)
matching examples/orders.schema.json. Standard library only; deterministic.

    python3 examples/generate_orders.py --rows 10000 --seed 1 > orders.jsonl
"""

import argparse
import datetime
import json
import random
import sys
import uuid

STATUSES = ["created", "paid", "shipped", "delivered", "cancelled"]
CURRENCIES = ["EUR", "USD", "JPY", "CNY"]
CITIES = ["Paris", "東京", "São Paulo", "Zürich", "北京", "New York"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    position = 4
    out = sys.stdout
    for order_id in range(1, args.rows + 1):
        created = start + datetime.timedelta(microseconds=rng.randrange(366 * 86400 * 10**6))
        status = rng.choice(STATUSES)
        items = []
        total = 0
        for _ in range(rng.randint(1, 4)):
            cents = rng.randint(99, 99_999)
            quantity = rng.randint(1, 5)
            total += cents * quantity
            items.append({"sku": f"SKU-{rng.randint(1, 5000):05d}", "quantity": quantity,
                          "unit_price": f"{cents // 100}.{cents % 100:02d}"})
        updated = None
        if status != "created":
            updated = created + datetime.timedelta(seconds=rng.randint(1, 30 * 86400))
        shipped = status in ("shipped", "delivered")
        position += rng.randint(200, 900)
        row = {
            "order_id": order_id,
            "customer_id": rng.randint(1, 50_000),
            "status": status,
            "amount": f"{total // 100}.{total % 100:02d}",
            "currency": rng.choice(CURRENCIES),
            "discount": rng.choice([None, None, 0.05, 0.1, 0.25]),
            "created_at": created.strftime("%Y-%m-%dT%H:%M:%S.%f+00:00"),
            "updated_at": updated.strftime("%Y-%m-%dT%H:%M:%S.%f+00:00") if updated else None,
            "ship_date": (created.date() + datetime.timedelta(days=rng.randint(1, 9))).isoformat()
            if shipped else None,
            "tracking_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)) if shipped else None,
            "items": items,
            "attributes": [{"key": "city", "value": rng.choice(CITIES)},
                           {"key": "gift", "value": rng.choice(["yes", "no", None])}]
            if rng.random() < 0.7 else None,
            "source": {"op": "c" if status == "created" else "u",
                       "binlog_file": f"mariadb-bin.{1 + position // 10**6:06d}",
                       "binlog_pos": position},
        }
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
