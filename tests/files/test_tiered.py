"""Tiered storage: LocalTieredStorage's layout read as partitions and segments, and what
``__remote_log_metadata`` says about each remote segment (verify-index)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kdump.files.logdir import classify, walk
from tests.conftest import KdumpRunner
from tests.decoders.test_decoders import REMOTE, frame, sw
from tests.support import writer as w

TOPIC_ID = bytes(range(1, 17))
SEG_IDS = [bytes([0xA0 + i] * 16) for i in range(6)]


def _meta_value(name: str, values: dict[str, Any]) -> bytes:
    s = REMOTE[name]
    assert s.api_key is not None
    return frame(s.api_key, 0, sw.encode(s, values, 0))


def _segment_record(seg: dict[str, Any], state: int, size: int | None = None) -> bytes:
    return _meta_value("RemoteLogSegmentMetadataRecord", {
        "remoteLogSegmentId": {"topicIdPartition": {"name": "events", "id": seg["topic_id"],
                                                    "partition": 0}, "id": seg["segment_id"]},
        "startOffset": seg["start"], "endOffset": seg["end"], "brokerId": 1,
        "maxTimestampMs": w.TS0, "eventTimestampMs": w.TS0 + 5,
        "segmentLeaderEpochs": [{"leaderEpoch": 0, "offset": seg["start"]}],
        "segmentSizeInBytes": seg["size"] if size is None else size,
        "customMetadata": None, "remoteLogSegmentState": state})


def _update_record(seg: dict[str, Any], state: int) -> bytes:
    return _meta_value("RemoteLogSegmentMetadataUpdateRecord", {
        "remoteLogSegmentId": {"topicIdPartition": {"name": "events", "id": seg["topic_id"],
                                                    "partition": 0}, "id": seg["segment_id"]},
        "brokerId": 2, "eventTimestampMs": w.TS0 + 9, "customMetadata": None,
        "remoteLogSegmentState": state})


@pytest.fixture(scope="module")
def tiered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """``root/logdir``: a broker's log dir with events-0 and __remote_log_metadata-0;
    ``root/tiered``: LocalTieredStorage with events-0's closed segments."""
    root = tmp_path_factory.mktemp("tiered")
    logdir = root / "logdir"
    pw = w.PartitionWriter(logdir / "events-0", segment_bytes=1200)
    for b in range(30):
        recs = [w.Rec(key=b"k%d" % (b * 4 + i), value=b"v" * 30, timestamp=w.TS0 + b) for i in range(4)]
        pw.append(w.v2_batch(recs, base_offset=b * 4))
    pw.close()
    segs = w.tiered_storage_copy(logdir / "events-0", root / "tiered", "events", 0, TOPIC_ID, SEG_IDS)
    assert len(segs) >= 4
    # metadata: seg 0 copied; seg 1 copied then deleted (files left behind); seg 2 size
    # wrong; seg 3 absent from the metadata; a 5th segment COPY_SEGMENT_FINISHED whose
    # files are not in the storage
    ghost = {"start": 10_000, "end": 10_099, "size": 5000, "topic_id": segs[0]["topic_id"],
             "segment_id": w.uuid_str(SEG_IDS[5])}
    values = [_segment_record(segs[0], 0), _update_record(segs[0], 1),
              _segment_record(segs[1], 1), _update_record(segs[1], 3),
              _segment_record(segs[2], 1, size=segs[2]["size"] + 1),
              _segment_record(ghost, 1)]
    mw = w.PartitionWriter(logdir / "__remote_log_metadata-0")
    for i, v in enumerate(values):
        mw.append(w.v2_batch([w.Rec(key=None, value=v, timestamp=w.TS0 + i)], base_offset=i))
    mw.close()
    return root, segs


def test_layout_is_partitions_and_segments(tiered: tuple[Path, list[dict[str, Any]]]) -> None:
    root, segs = tiered
    files = [f for f in walk([str(root / "tiered")]) if not hasattr(f, "severity")]
    logs = [f for f in files if f.kind == "log"]
    assert [(f.base_offset, f.segment_id, f.topic, f.partition, f.topic_id, f.active) for f in logs] == \
        [(s["start"], s["segment_id"], "events", 0, s["topic_id"], False) for s in segs]
    kinds = [f.kind for f in files if f.base_offset == segs[0]["start"]]
    assert kinds == ["log", "offset-index", "time-index", "producer-snapshot",
                     "leader-epoch-checkpoint"]
    f = classify(str(segs[1]["dir"] / f"{segs[1]['stem']}.timeindex"))
    assert (f.kind, f.base_offset, f.segment_id) == ("time-index", segs[1]["start"], segs[1]["segment_id"])
    assert "tiered (remote log segment id" in f.description


def test_remote_segments_verify_like_local(kdump: KdumpRunner,
                                           tiered: tuple[Path, list[dict[str, Any]]]) -> None:
    root, segs = tiered
    r = kdump("verify-crc", "--format", "json", str(root / "tiered"))
    assert r.rc == 0, r.out
    summary = json.loads(r.lines[-1])
    assert summary["files"] == len(segs) and summary["invalid_batches"] == 0
    d = kdump("dump", "--format", "json", str(segs[0]["dir"] / f"{segs[0]['stem']}.log"))
    assert d.rc == 0
    first = json.loads(d.lines[0])
    assert first["type"] == "file" and first["base_offset"] == segs[0]["start"]
    assert first["active"] is False


def test_metadata_says_what_it_knows(kdump: KdumpRunner,
                                     tiered: tuple[Path, list[dict[str, Any]]]) -> None:
    root, segs = tiered
    r = kdump("verify-index", "--format", "json", str(root / "logdir"), str(root / "tiered"))
    found = [json.loads(x) for x in r.lines if '"type":"problem"' in x]
    remote = [(p["kind"], p["severity"], Path(p["file"]).name) for p in found
              if p["kind"].startswith("remote-")]
    name = [f"{s['stem']}.log" for s in segs]
    ghost = f"10000-{w.uuid_str(SEG_IDS[5])}.log"
    assert remote == [
        ("remote-segment", "info", name[0]),
        ("remote-segment", "info", name[1]),
        ("remote-segment-deleted", "warning", name[1]),
        ("remote-segment", "info", name[2]),
        ("remote-metadata-mismatch", "error", name[2]),
        *[("remote-segment-unknown", "warning", n) for n in name[3:]],
        ("remote-segment-missing", "error", ghost),
    ]
    note = next(p for p in found if p["kind"] == "remote-segment")
    assert note["detail"].startswith(
        "__remote_log_metadata: COPY_SEGMENT_FINISHED by broker 2 at 2023-11-14T22:13:20.009+00:00; "
        f"offsets {segs[0]['start']}..{segs[0]['end']}, {segs[0]['size']} bytes, leader epochs "
        f"{{0={segs[0]['start']}}} (last event: ")
    assert (note["state"], note["segment_id"], note["broker_id"], note["segment_size"]) == \
        ("COPY_SEGMENT_FINISHED", segs[0]["segment_id"], 2, segs[0]["size"])
    assert r.rc == 1
    # without the metadata among the inputs: no remote notes at all
    r2 = kdump("verify-index", "--format", "json", str(root / "tiered"))
    assert "remote-" not in r2.out
