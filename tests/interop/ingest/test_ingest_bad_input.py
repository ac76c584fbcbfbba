"""Bad input (issue 4): a malformed event, a wrong type for a column, an unknown op, a
delete for a table never seen. Each gives an error naming file, line, offset and reason;
`--on-error fail` (the default) stops before the bad event is committed and loses nothing
already accepted; `--on-error skip` writes the bad events to the dead-letter file, counts
them, and the lake ends equal to the good events."""

from __future__ import annotations

import json
import subprocess

import pytest

from changes import ChangeStream
from ingest_runs import check_lake, ingest_argv

BAD_EVENTS = {
    "malformed": ('{"payload": {"op": "c", "after": {"id": 1', "JSON"),
    "wrong-type": (None, "qty"),  # built from a good event below
    "unknown-op": (None, "unknown op"),
    "unseen-delete": ('{"payload": {"op": "d", "before": {"id": 5}, "after": null, '
                      '"source": {"db": "nowhere", "table": "never_seen"}}}', "never_seen"),
}


def _bad_line(kind: str, good: str) -> str:
    text, _ = BAD_EVENTS[kind]
    if text is not None:
        return text
    event = json.loads(good)
    if kind == "wrong-type":
        event["payload"]["after"]["qty"] = "not a number"
        event["payload"]["op"] = "c"
        event["payload"]["before"] = None
    else:
        event["payload"]["op"] = "x"
    return json.dumps(event)


@pytest.mark.parametrize("kind", list(BAD_EVENTS))
def test_bad_event(kind, tmp_path, make_lake, java_peer, floe_ingest_ready):
    binary = floe_ingest_ready
    lake = make_lake("sql")
    stream = ChangeStream(1234, schema_changes=False)
    good = list(stream.lines(3000))
    bad_at = 2000  # 1-based line number of the bad event
    lines = good[: bad_at - 1] + [_bad_line(kind, good[bad_at - 2])] + good[bad_at - 1:]
    input_file = tmp_path / "changes.jsonl"
    input_file.write_text("".join(line + "\n" for line in lines))
    offset = sum(len(line.encode()) + 1 for line in lines[: bad_at - 1])
    state = tmp_path / "state"

    failed = subprocess.run(ingest_argv(binary, lake, input_file, state), capture_output=True, text=True,
                            timeout=300)
    assert failed.returncode != 0, "a bad event must stop the run"
    reason = BAD_EVENTS[kind][1]
    assert f"changes.jsonl:{bad_at}" in failed.stderr, failed.stderr[-3000:]
    assert f"offset {offset}" in failed.stderr, failed.stderr[-3000:]
    assert reason.lower() in failed.stderr.lower(), failed.stderr[-3000:]

    # Running again with the same arguments fails at the same event: nothing after it was
    # committed, nothing before it lost.
    again = subprocess.run(ingest_argv(binary, lake, input_file, state), capture_output=True, text=True,
                           timeout=300)
    assert again.returncode != 0 and f"changes.jsonl:{bad_at}" in again.stderr

    dead_letter = tmp_path / "dead.jsonl"
    skipped = subprocess.run(ingest_argv(binary, lake, input_file, state, "--on-error", "skip",
                                         "--dead-letter", str(dead_letter)),
                             capture_output=True, text=True, timeout=300)
    assert skipped.returncode == 0, skipped.stderr[-3000:]
    letters = [json.loads(line) for line in dead_letter.read_text().splitlines()]
    assert len(letters) == 1, letters
    assert letters[0]["line"] == bad_at and letters[0]["offset"] == offset
    assert letters[0]["file"].endswith("changes.jsonl") and letters[0]["error"]
    check_lake(lake, stream, java_peer, f"bad input {kind}, skipped")
