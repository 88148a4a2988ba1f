"""One exit rule, one judgement of a file (issue 41.6).

* a finding of severity error or warning makes every command exit 1, info never
  (kdump.findings.FAILING_SEVERITIES); ``dump`` of an index file and ``verify-index`` of
  its partition give the same finding (kind, severity, position, words);
* rebuilt and repaired time indexes hold no (-1, offset) entry: TimeIndex.maybeAppend
  (storage/.../log/TimeIndex.java, 4.0-4.3) appends only a timestamp above its
  lastEntry's, (RecordBatch.NO_TIMESTAMP, baseOffset) for an empty index, so a magic-1
  partition without timestamps gets an empty ``.timeindex``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kdump.findings import ERROR, FAILING_SEVERITIES, INFO, WARNING, Problem
from tests.conftest import KdumpRunner
from tests.support import writer as w

LOG0 = "00000000000000000000"


def _problems(text: str) -> list[dict[str, Any]]:
    return [o for o in (json.loads(line) for line in text.splitlines() if line.startswith("{"))
            if o["type"] == "problem"]


def _no_timestamps(root: Path, *, zeros: bool = False) -> Path:
    """A broker log dir with one magic-1 partition whose messages carry no timestamp (-1),
    with ``zeros`` 40 zero bytes after its second message (damage repair drops)."""
    b = w.broker_logdir(root / "b1", 1)
    d = b / "old-0"
    d.mkdir()
    msgs = [w.legacy_message(1, b"k%d" % i, b"v" * 50, offset=i) for i in range(4)]
    (d / f"{LOG0}.log").write_bytes(b"".join(msgs[:2]) + (bytes(40) if zeros else b"")
                                    + b"".join(msgs[2:]))
    return b


def test_the_rule_is_error_and_warning() -> None:
    assert FAILING_SEVERITIES == {ERROR, WARNING}
    assert Problem("x", None, "index-order", "d").is_failure
    assert Problem("x", None, "index-order", "d", severity=WARNING).is_failure
    assert not Problem("x", None, "index-order", "d", severity=INFO).is_failure


def test_rebuild_writes_no_time_entry_for_a_partition_without_timestamps(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    b = _no_timestamps(tmp_path)
    out = tmp_path / "out"
    r = kdump("verify-index", "--rebuild-into", out, "--index-interval-bytes", "1", b)
    assert r.rc == 1  # the segment has no index files: index-missing, a warning
    rebuilt = out / "broker-1" / "old-0"
    assert (rebuilt / f"{LOG0}.timeindex").read_bytes() == b""
    assert len((rebuilt / f"{LOG0}.index").read_bytes()) == 3 * 8  # every message but the first


def test_repair_writes_no_time_entry_for_a_partition_without_timestamps(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    b = _no_timestamps(tmp_path, zeros=True)
    r = kdump("repair", b, "--into", tmp_path / "rep")
    assert r.rc == 1, r.err  # a region was dropped
    assert (tmp_path / "rep" / "old-0" / f"{LOG0}.timeindex").read_bytes() == b""


def test_dump_and_verify_index_judge_a_minus_one_time_entry_alike(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    b = _no_timestamps(tmp_path)
    d = b / "old-0"
    (d / f"{LOG0}.index").write_bytes(b"")
    (d / f"{LOG0}.timeindex").write_bytes(w.time_index([(-1, 0)]))
    want = {"type": "problem", "file": str(d / f"{LOG0}.timeindex"), "position": 0,
            "kind": "index-order", "severity": "error",
            "detail": "entry 0: timestamp -1 is not above -1 (RecordBatch.NO_TIMESTAMP, an "
                      "empty time index's last entry): TimeIndex.maybeAppend never writes it",
            "base_offset": None, "length": None, "check": "order", "index_timestamp": -1,
            "previous_timestamp": -1}
    r = kdump("dump", "--format", "json", d / f"{LOG0}.timeindex")
    assert r.rc == 1
    assert _problems(r.out) == [want]
    r = kdump("verify-index", "--format", "json", b)
    assert r.rc == 1
    assert want in _problems(r.out)


def test_dump_and_verify_index_judge_an_orphan_index_alike(kdump: KdumpRunner,
                                                           tmp_path: Path) -> None:
    """An index without its log: a warning (LogLoader deletes it at startup), exit 1 from
    both commands."""
    b = w.broker_logdir(tmp_path / "b1", 1)
    w.write_replica(b / "orders-0", w.replica_batches([(0, 2, 0)]))
    orphan = b / "orders-0" / "00000000000000000100.index"
    orphan.write_bytes(w.offset_index([(101, 0)]))
    want = {"type": "problem", "file": str(orphan), "position": None, "kind": "orphan-index",
            "severity": "warning",
            "detail": "no .log beside it: the broker deletes this orphaned index at startup",
            "base_offset": None, "length": None}
    r = kdump("dump", "--format", "json", orphan)
    assert (r.rc, _problems(r.out)) == (1, [want])
    r = kdump("verify-index", "--format", "json", b)
    # the same finding on the file; over the partition, the orphan's segment name and
    # entry prove offsets written that no .log holds (issue 39): data-lost besides
    probs = _problems(r.out)
    assert (r.rc, probs[0]) == (1, want)
    assert [(p["kind"], p["lost_offsets"]) for p in probs[1:]] == [("data-lost", [2, 201])]


def test_dump_and_verify_index_judge_an_index_file_alike(kdump: KdumpRunner,
                                                        tmp_path: Path) -> None:
    """A rolled segment's .index never trimmed (zero slots: a warning, the active
    segment's would be info), entries out of order, one past the log's end: the same
    findings, word for word, from dump of the file and verify-index of its partition."""
    b = w.broker_logdir(tmp_path / "b1", 1)
    d = b / "orders-0"
    w.write_replica(d, w.replica_batches([(0, 2, 0), (2, 2, 0), (4, 2, 0)]), roll_before={2})
    size = (d / f"{LOG0}.log").stat().st_size
    index = d / f"{LOG0}.index"
    index.write_bytes(w.offset_index([(3, size // 2), (1, 0), (3, 10**6)], preallocated_slots=3))
    r = kdump("dump", "--format", "json", index)
    assert r.rc == 1
    mine = {(p["kind"], p["severity"], p["position"], p["detail"]) for p in _problems(r.out)
            if p["kind"] in ("index-zero-slots", "index-order", "index-position")}
    assert mine == {
        ("index-order", "error", 8, f"entry 1 (offset 1, position 0) does not ascend from the "
                                    f"previous (offset 3, position {size // 2})"),
        ("index-position", "error", 16, f"entry 2 points at byte 1000000, past the end of the "
                                        f"log ({size} bytes)"),
        ("index-zero-slots", "warning", 24, "3 zero entries after the 3 used ones (preallocated "
                                            "and never trimmed: the segment was not closed "
                                            "cleanly)")}
    r = kdump("verify-index", "--format", "json", b)
    assert r.rc == 1
    theirs = {(p["kind"], p["severity"], p["position"], p["detail"]) for p in _problems(r.out)
              if p["file"] == str(index)}
    assert mine <= theirs
