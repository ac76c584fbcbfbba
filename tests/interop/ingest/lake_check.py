"""Reading a table the way the Iceberg spec says, from PyIceberg's view of its metadata.

PyIceberg 0.12 refuses tables with equality delete files, so `merge_on_read` applies the
spec's delete rules itself, on the files PyIceberg lists (manifest entries with their data
sequence numbers, read by PyIceberg) and their contents (read by pyarrow):
- a position delete applies to the data file it names if that file's data sequence number
  is <= the delete's;
- an equality delete applies to a data file whose data sequence number is < the delete's,
  in the same partition (or in any partition when the delete's spec is unpartitioned).
This is a second, independent reader next to Iceberg Java (which supports both natively).

`committed_checkpoints` lists floe.checkpoint-id per pipeline from every snapshot summary.
"""

from __future__ import annotations

import collections
import sys
import pathlib
from typing import Any

import pyarrow.parquet as pq

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "iceberg"))

from iceberg_peers import local_path  # noqa: E402
from iceberg_rows import from_python  # noqa: E402


def _partition_key(data_file) -> tuple:
    return tuple(data_file.partition) if data_file.partition is not None else ()


def _live_entries(table):
    snapshot = table.current_snapshot()
    if snapshot is None:
        return []
    entries = []
    for manifest in snapshot.manifests(table.io):
        for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=True):
            entries.append((manifest.partition_spec_id, entry))
    return entries


def merge_on_read(table) -> list[dict]:
    """Every live row of `table`'s current snapshot, as floe JSON rows of its schema."""
    from pyiceberg.manifest import DataFileContent

    schema = table.schema()
    specs = table.specs()
    data, pos_deletes, eq_deletes = [], [], []
    for spec_id, entry in _live_entries(table):
        content = entry.data_file.content
        if content == DataFileContent.DATA:
            data.append((spec_id, entry))
        elif content == DataFileContent.POSITION_DELETES:
            pos_deletes.append(entry)
        else:
            eq_deletes.append((spec_id, entry))

    positions: dict[str, list[tuple[int, int]]] = collections.defaultdict(list)
    for entry in pos_deletes:
        t = pq.read_table(local_path(entry.data_file.file_path))
        for path, pos in zip(t.column("file_path").to_pylist(), t.column("pos").to_pylist()):
            positions[path].append((pos, entry.sequence_number))

    # Equality deletes: (spec unpartitioned?, partition, seq, field names, set of key tuples)
    eq_sets = []
    for spec_id, entry in eq_deletes:
        ids = list(entry.data_file.equality_ids)
        names = [schema.find_field(i).name for i in ids]
        t = pq.read_table(local_path(entry.data_file.file_path))
        keys = set(zip(*[t.column(n).to_pylist() for n in names])) if t.num_rows else set()
        global_delete = specs[spec_id].is_unpartitioned()
        eq_sets.append((global_delete, spec_id, _partition_key(entry.data_file), entry.sequence_number,
                        names, keys))

    rows: list[dict] = []
    for spec_id, entry in data:
        path = entry.data_file.file_path
        seq = entry.sequence_number
        deleted_positions = {p for p, dseq in positions.get(path, []) if seq <= dseq}
        applicable = [
            (names, keys) for global_delete, dspec, dpart, dseq, names, keys in eq_sets
            if seq < dseq and (global_delete or (dspec == spec_id and dpart == _partition_key(entry.data_file)))
        ]
        t = pq.read_table(local_path(path))
        columns = {name: t.column(name).to_pylist() if name in t.column_names else [None] * t.num_rows
                   for name in _names_by_id(t, schema)}
        for i in range(t.num_rows):
            if i in deleted_positions:
                continue
            if any(tuple(columns[n][i] for n in names) in keys for names, keys in applicable):
                continue
            rows.append({f.name: _to_floe(columns[f.name][i], f) for f in schema.fields})
    return rows


def _names_by_id(arrow_table, schema) -> list[str]:
    """The table schema's field names; files written before a rename or an added column
    are read by field id, missing columns as null."""
    by_id = {}
    for field in arrow_table.schema:
        meta = field.metadata or {}
        fid = meta.get(b"PARQUET:field_id")
        if fid is not None:
            by_id[int(fid)] = field.name
    names = []
    for f in schema.fields:
        names.append(f.name)
        if f.field_id in by_id and by_id[f.field_id] != f.name:
            raise AssertionError(f"renamed column {by_id[f.field_id]} -> {f.name} not expected here")
    return names


def _to_floe(value: Any, field) -> Any:
    return from_python(value, str(field.field_type)) if value is not None else None


def committed_checkpoints(metadata: dict) -> dict[str, list[int]]:
    """pipeline id -> the floe.checkpoint-id of every snapshot, in snapshot order."""
    out: dict[str, list[int]] = collections.defaultdict(list)
    for snapshot in sorted(metadata.get("snapshots", []), key=lambda s: s["sequence-number"]):
        summary = snapshot.get("summary", {})
        if "floe.checkpoint-id" in summary:
            out[summary.get("floe.pipeline-id", "")].append(int(summary["floe.checkpoint-id"]))
    return out


def assert_no_checkpoint_twice(metadata: dict, what: str) -> int:
    """Fails when a pipeline committed one checkpoint id in two snapshots, or out of order.
    Returns the number of floe commits."""
    total = 0
    for pipeline, ids in committed_checkpoints(metadata).items():
        duplicates = [i for i, n in collections.Counter(ids).items() if n > 1]
        assert not duplicates, f"{what}: pipeline {pipeline} committed checkpoints {duplicates} twice"
        assert ids == sorted(ids), f"{what}: pipeline {pipeline} committed out of order: {ids}"
        total += len(ids)
    return total
