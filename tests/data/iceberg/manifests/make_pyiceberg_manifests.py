"""Writes the golden manifests of this folder with PyIceberg.

    .cache/venv/bin/python tests/data/iceberg/manifests/make_pyiceberg_manifests.py

For each table (pyiceberg_v2: format v2 with appends and a copy-on-write
delete, so manifests hold ADDED, EXISTING and DELETED entries; pyiceberg_v1:
format v1 with two appends) the folder gets the final metadata JSON, the
manifest lists and manifests (not the data files), and expected.json: every
manifest-list entry and manifest entry as PyIceberg reads them, with
inheritance applied. Partition values are written the way the floe test
prints them: numbers and booleans as JSON, dates as days, timestamps as
microseconds, decimals as the unscaled integer in a string, strings and bytes
as hex. The paths inside the files are those of the generating run
(/tmp/floe-golden-manifests/...); floe's test maps them to this folder by file name.
"""

import datetime
import decimal
import json
import pathlib
import shutil
import uuid

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform, TruncateTransform
from pyiceberg.types import DateType, DecimalType, LongType, NestedField, StringType, TimestampType

HERE = pathlib.Path(__file__).resolve().parent
WORK = pathlib.Path("/tmp/floe-golden-manifests")

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "region", StringType(), required=False),
    NestedField(3, "ts", TimestampType(), required=False),
    NestedField(4, "amount", DecimalType(9, 2), required=False),
    NestedField(5, "d", DateType(), required=False),
)

SPEC = PartitionSpec(
    PartitionField(2, 1000, IdentityTransform(), "region"),
    PartitionField(3, 1001, DayTransform(), "ts_day"),
    PartitionField(1, 1002, BucketTransform(4), "id_bucket"),
    PartitionField(4, 1003, TruncateTransform(100), "amount_trunc"),
    spec_id=0,
)

ARROW = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("region", pa.string()),
        pa.field("ts", pa.timestamp("us")),
        pa.field("amount", pa.decimal128(9, 2)),
        pa.field("d", pa.date32()),
    ]
)


def batch(rows):
    cols = list(zip(*rows))
    return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, ARROW)], schema=ARROW)


BATCH1 = batch(
    [
        (1, "eu", datetime.datetime(2024, 1, 1, 10), decimal.Decimal("12.34"), datetime.date(2024, 1, 1)),
        (2, "us", datetime.datetime(2024, 1, 2, 11), decimal.Decimal("250.00"), datetime.date(2024, 1, 2)),
        (3, None, None, None, None),
    ]
)
BATCH2 = batch(
    [
        (4, "eu", datetime.datetime(2024, 2, 29, 23, 59), decimal.Decimal("-5.50"), datetime.date(2024, 2, 29)),
        (5, "apac", datetime.datetime(1969, 12, 31, 23), decimal.Decimal("999.99"), datetime.date(1969, 12, 31)),
    ]
)


def value_json(v):
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, int | float):
        return v
    if isinstance(v, datetime.datetime):
        epoch = datetime.datetime(1970, 1, 1, tzinfo=v.tzinfo)
        return (v - epoch) // datetime.timedelta(microseconds=1)
    if isinstance(v, datetime.date):
        return (v - datetime.date(1970, 1, 1)).days
    if isinstance(v, decimal.Decimal):
        return str(int(v.scaleb(-v.as_tuple().exponent)))
    if isinstance(v, str):
        return v.encode().hex()
    if isinstance(v, uuid.UUID):
        return v.bytes.hex()
    if isinstance(v, bytes):
        return v.hex()
    raise TypeError(type(v))


def int_map(m):
    return {str(k): v for k, v in (m or {}).items()}


def hex_map(m):
    return {str(k): bytes(v).hex() for k, v in (m or {}).items()}


def describe(table):
    io = table.io
    spec_fields = {s.spec_id: s.fields for s in table.metadata.partition_specs}
    snapshots = {}
    for snap in table.metadata.snapshots:
        manifests = []
        for m in snap.manifests(io):
            entries = []
            for e in m.fetch_manifest_entry(io, discard_deleted=False):
                f = e.data_file
                names = [pf.name for pf in spec_fields[m.partition_spec_id]]
                entries.append(
                    {
                        "status": int(e.status),
                        "snapshot_id": e.snapshot_id,
                        "sequence_number": e.sequence_number,
                        "file_sequence_number": e.file_sequence_number,
                        "content": int(f.content),
                        "file_path": f.file_path,
                        "file_format": str(f.file_format.value).lower(),
                        "partition": {n: value_json(f.partition[i]) for i, n in enumerate(names)},
                        "record_count": f.record_count,
                        "file_size_in_bytes": f.file_size_in_bytes,
                        "value_counts": int_map(f.value_counts),
                        "null_value_counts": int_map(f.null_value_counts),
                        "lower_bounds": hex_map(f.lower_bounds),
                        "upper_bounds": hex_map(f.upper_bounds),
                    }
                )
            manifests.append(
                {
                    "manifest_path": m.manifest_path,
                    "manifest_length": m.manifest_length,
                    "partition_spec_id": m.partition_spec_id,
                    "content": int(m.content),
                    "sequence_number": m.sequence_number,
                    "min_sequence_number": m.min_sequence_number,
                    "added_snapshot_id": m.added_snapshot_id,
                    "added_files_count": m.added_files_count,
                    "existing_files_count": m.existing_files_count,
                    "deleted_files_count": m.deleted_files_count,
                    "added_rows_count": m.added_rows_count,
                    "existing_rows_count": m.existing_rows_count,
                    "deleted_rows_count": m.deleted_rows_count,
                    "partitions": [
                        {
                            "contains_null": p.contains_null,
                            "contains_nan": p.contains_nan,
                            "lower_bound": p.lower_bound.hex() if p.lower_bound is not None else None,
                            "upper_bound": p.upper_bound.hex() if p.upper_bound is not None else None,
                        }
                        for p in (m.partitions or [])
                    ],
                    "entries": entries,
                }
            )
        snapshots[str(snap.snapshot_id)] = {"manifests": manifests}
    return snapshots


def export(table, name):
    out = HERE / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    metadata_file = pathlib.Path(table.metadata_location.removeprefix("file://"))
    shutil.copy(metadata_file, out / metadata_file.name)
    for snap in table.metadata.snapshots:
        shutil.copy(snap.manifest_list.removeprefix("file://"), out)
        for m in snap.manifests(table.io):
            shutil.copy(m.manifest_path.removeprefix("file://"), out)
    expected = {"metadata": metadata_file.name, "snapshots": describe(table)}
    (out / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    (WORK / "warehouse").mkdir(parents=True)
    catalog = SqlCatalog(
        "golden", uri=f"sqlite:///{WORK}/catalog.db", warehouse=f"file://{WORK}/warehouse"
    )
    catalog.create_namespace("ns")

    v2 = catalog.create_table("ns.v2", schema=SCHEMA, partition_spec=SPEC, properties={"format-version": "2"})
    v2.append(BATCH1)
    v2.append(BATCH2)
    v2.delete("region == 'us'")  # copy-on-write: DELETED entries and rewritten manifests
    export(catalog.load_table("ns.v2"), "pyiceberg_v2")

    v1 = catalog.create_table("ns.v1", schema=SCHEMA, partition_spec=SPEC, properties={"format-version": "1"})
    v1.append(BATCH1)
    v1.append(BATCH2)
    export(catalog.load_table("ns.v1"), "pyiceberg_v1")
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
