"""verify-index's leader-epoch check after the log start offset moved (retention deleted
the first segments, or DeleteRecords moved it inside a segment): the checkpoint is
compared as the broker loads it (LogLoader truncates the epoch cache from the start at
the log start offset; UnifiedLog.maybeIncrementLogStartOffset does the same through
LeaderEpochFileCache.truncateFromStartAsyncFlush), so what Kafka accepts raises no
finding and a real mismatch still does.  Log dirs are written by tests/writer.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kdump.ops.verify_index.state_files import truncate_from_start
from tests.conftest import KdumpRunner
from tests.remote.test_remote import s3, s3env  # noqa: F401 (fixtures: a real S3 API on 127.0.0.1)
from tests.support import writer as w

TOPIC = "t"
#: (base offset, records, leader epoch): epoch 0 at 0, epoch 1 at 10, epoch 2 at 30
SPANS = [(0, 10, 0), (10, 10, 1), (20, 10, 1), (30, 10, 2)]


def _logdir(root: Path, *, roll_before: set[int] | None = None,
            epochs: list[tuple[int, int]], log_start: int | None,
            drop_segments: tuple[int, ...] = ()) -> Path:
    """A broker's log dir with partition t-0 of SPANS, its leader-epoch-checkpoint
    ``epochs``, log-start-offset-checkpoint ``log_start`` (None: no file) and the
    segments of ``drop_segments`` (base offsets) deleted as retention deletes them."""
    w.broker_logdir(root, 1, log_start_offsets=None if log_start is None
                    else [(TOPIC, 0, log_start)])
    part = root / f"{TOPIC}-0"
    w.write_replica(part, w.replica_batches(SPANS), roll_before=roll_before, epochs=epochs)
    for base in drop_segments:
        for suffix in (".log", ".index", ".timeindex"):
            (part / f"{base:020d}{suffix}").unlink()
    return root


def _epoch_findings(kdump: KdumpRunner, root: Path | str) -> tuple[int, list[str]]:
    r = kdump("verify-index", str(root), "--format", "json")
    objs = [json.loads(x) for x in r.out.splitlines()]
    probs = [o for o in objs if o["type"] == "problem"]
    assert all(o["kind"] == "leader-epoch" and o["severity"] == "warning"
               and o["file"].endswith("/t-0/leader-epoch-checkpoint") for o in probs), probs
    return r.rc, [o["detail"] for o in probs]


def test_truncate_from_start_is_kafkas() -> None:
    # LeaderEpochFileCache.truncateFromStart: entries at or below the offset go, the last
    # of them comes back starting at the offset; an entry at the offset stays
    entries = [(0, 0), (1, 10), (2, 30)]
    assert truncate_from_start(entries, 25) == [(1, 25), (2, 30)]
    assert truncate_from_start(entries, 30) == [(2, 30)]
    assert truncate_from_start(entries, 0) == entries
    assert truncate_from_start(entries, 99) == [(2, 99)]
    assert truncate_from_start([], 5) == []
    assert truncate_from_start([(3, 7)], 5) == [(3, 7)]


def test_delete_records_inside_a_segment(kdump: KdumpRunner, tmp_path: Path) -> None:
    # DeleteRecords to offset 25 (inside the batch 20-29): the segment stays, the
    # checkpoint was truncated from the start, log-start-offset-checkpoint says 25
    root = _logdir(tmp_path / "b1", epochs=[(1, 25), (2, 30)], log_start=25)
    assert _epoch_findings(kdump, root) == (0, [])
    # the truncation not flushed yet (a hard stop): LogLoader truncates it at load
    root = _logdir(tmp_path / "b2", epochs=[(0, 0), (1, 10), (2, 30)], log_start=25)
    assert _epoch_findings(kdump, root) == (0, [])


def test_truncated_checkpoint_ahead_of_log_start_offset_checkpoint(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    # the epoch cache is flushed at once, the log start offsets every
    # log.flush.start.offset.checkpoint.interval.ms: a copy may hold the truncated
    # checkpoint under an older log start offset, or none
    for name, log_start in (("older", 0), ("none", None)):
        root = _logdir(tmp_path / name, epochs=[(1, 25), (2, 30)], log_start=log_start)
        assert _epoch_findings(kdump, root) == (0, []), name


def test_first_segments_deleted_log_start_above_first_kept_offset(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    # segments at 0, 10 and 30; DeleteRecords to 15 deleted segment 0 (wholly below it)
    root = _logdir(tmp_path / "b1", roll_before={1, 3}, epochs=[(1, 15), (2, 30)],
                   log_start=15, drop_segments=(0,))
    assert _epoch_findings(kdump, root) == (0, [])
    # the checkpoint not yet truncated (the flush is asynchronous): entries below the
    # first kept batch are what the broker truncates when it loads the log
    root = _logdir(tmp_path / "b2", roll_before={1, 3}, epochs=[(0, 0), (1, 10), (2, 30)],
                   log_start=15, drop_segments=(0,))
    assert _epoch_findings(kdump, root) == (0, [])
    # retention deleted segments 0 and 10 with the log start offset checkpoint behind
    root = _logdir(tmp_path / "b3", roll_before={1, 3}, epochs=[(0, 0), (1, 10), (2, 30)],
                   log_start=0, drop_segments=(0, 10))
    assert _epoch_findings(kdump, root) == (0, [])


def test_real_mismatches_after_delete_records_still_found(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    # epoch 2's first batch is at 30, not 31
    root = _logdir(tmp_path / "b1", epochs=[(1, 25), (2, 31)], log_start=25)
    rc, details = _epoch_findings(kdump, root)
    assert rc == 1 and details == [
        "epoch 2 starts at offset 31 in the checkpoint, but its first batch in the log is at "
        "offset 30"]
    # the entry at the log start offset names the wrong epoch (0, the batches there say 1)
    root = _logdir(tmp_path / "b2", epochs=[(0, 25), (2, 30)], log_start=25)
    rc, details = _epoch_findings(kdump, root)
    assert rc == 1 and details == [
        "batches carry leader epoch 1 from offset 25, but the checkpoint has no entry for it",
        "checkpoint says epoch 0 starts at offset 25, but no batch in the log carries that "
        "epoch"]
    # the first entry above the log start offset for an epoch that does not hold there
    root = _logdir(tmp_path / "b3", epochs=[(2, 25)], log_start=None)
    rc, details = _epoch_findings(kdump, root)
    assert rc == 1 and details == [
        "batches carry leader epoch 0 from offset 0, but the checkpoint has no entry for it",
        "batches carry leader epoch 1 from offset 10, but the checkpoint has no entry for it",
        "epoch 2 starts at offset 25 in the checkpoint, but its first batch in the log is at "
        "offset 30"]


def test_log_start_offset_read_from_object_storage(kdump: KdumpRunner, tmp_path: Path,
                                                   s3env: Any) -> None:  # noqa: F811
    """The log dir on a real S3 API: its log-start-offset-checkpoint is read there too."""
    root = _logdir(tmp_path / "b1", epochs=[(1, 25), (2, 31)], log_start=25)
    url = s3env.upload(root, "epochs/b1")
    rc, details = _epoch_findings(kdump, url)
    assert rc == 1 and details == [
        "epoch 2 starts at offset 31 in the checkpoint, but its first batch in the log is at "
        "offset 30"]
    root = _logdir(tmp_path / "b2", epochs=[(0, 25), (2, 30)], log_start=25)
    url = s3env.upload(root, "epochs/b2")
    assert _epoch_findings(kdump, url)[1][0] == (
        "batches carry leader epoch 1 from offset 25, but the checkpoint has no entry for it")
