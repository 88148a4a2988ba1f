"""What ``__remote_log_metadata`` says about the remote segments among the inputs.

When the inputs hold both a tiered storage (``files/tiered.py``: LocalTieredStorage's
``<topic>-<partition>-<topicId>/<offset>-<segmentId>.log`` ...) and partitions of
``__remote_log_metadata``, every remote segment gets one note with its last state
there (``RemoteLogSegmentState``: COPY_SEGMENT_STARTED, COPY_SEGMENT_FINISHED,
DELETE_SEGMENT_STARTED, DELETE_SEGMENT_FINISHED), the broker and time of that event,
the offsets, size and leader epochs the metadata declares; and a finding where the two
disagree:

* ``remote-metadata-mismatch`` (error): the metadata's start offset is not the file
  name's, or its ``segmentSizeInBytes`` is not the ``.log``'s size;
* ``remote-segment-deleted`` (warning): the files are still there after
  DELETE_SEGMENT_STARTED/FINISHED;
* ``remote-segment-unknown`` (warning): no metadata record names the segment;
* ``remote-segment-missing`` (error): the metadata says COPY_SEGMENT_FINISHED for a
  segment of a partition in the storage, and its ``.log`` is not there.

Records: storage/src/main/resources/message/RemoteLogSegmentMetadataRecord.json,
RemoteLogSegmentMetadataUpdateRecord.json, RemoteLogSegmentMetadataSnapshotRecord.json
(decoded by :mod:`kdump.decoders.remote_log_metadata`); the last event of a segment
in offset order wins, as in RemoteLogMetadataCache.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone

from .. import fs as kfs
from ..decoders.remote_log_metadata import REMOTE_LOG_METADATA_SCHEMAS, REMOTE_LOG_SEGMENT_STATES
from ..errors import KdumpError
from ..files.logdir import KafkaFile
from ..findings import ERROR, INFO, WARNING, Problem
from ..protocol.frame import decode_frame
from ..records.file_records import LogReader
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES
from ..source import FileSource

METADATA_TOPIC = "__remote_log_metadata"


@dataclass(slots=True)
class RemoteSegmentMeta:
    """One remote log segment as ``__remote_log_metadata`` tells it."""

    segment_id: str
    topic_id: str | None = None
    topic: str | None = None
    partition: int | None = None
    start_offset: int | None = None
    end_offset: int | None = None
    size: int | None = None
    leader_epochs: dict[int, int] = field(default_factory=dict)
    state: str = "?"
    broker: int | None = None
    event_ms: int | None = None
    #: where the last event was read: (file, record offset)
    source: tuple[str, int] | None = None


def is_metadata_log(f: KafkaFile) -> bool:
    return f.topic == METADATA_TOPIC and f.kind == "log" and f.leftover is None


def is_remote_log(f: KafkaFile) -> bool:
    return f.segment_id is not None and f.kind == "log" and f.leftover is None


def read_metadata(files: Iterable[KafkaFile], max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
                  ) -> dict[str, RemoteSegmentMeta]:
    """Every segment the metadata logs name, with its last state.  Damaged batches are
    skipped here (verify-crc and dump report them)."""
    segs: dict[str, RemoteSegmentMeta] = {}
    for f in files:
        try:
            with FileSource(f.path) as src:
                for batch in LogReader(src, active=f.active):
                    if isinstance(batch, Problem) or getattr(batch, "is_control", False):
                        continue
                    try:
                        for rec in batch.records(max_batch_bytes):
                            _apply(segs, rec.value, f.path, rec.offset)
                    except KdumpError:
                        continue
        except KdumpError:
            continue
    return segs


def _apply(segs: dict[str, RemoteSegmentMeta], value: bytes | None, path: str, offset: int) -> None:
    if value is None:
        return
    try:
        _schema, api_key, _version, d = decode_frame(value, REMOTE_LOG_METADATA_SCHEMAS)
    except Exception:  # undecodable: dump --remote-log-metadata-decoder says why
        return
    if api_key in (0, 1):
        sid = d["remoteLogSegmentId"]
        tip = sid["topicIdPartition"]
        m = segs.setdefault(sid["id"], RemoteSegmentMeta(sid["id"]))
        m.topic_id, m.topic, m.partition = tip["id"], tip["name"], tip["partition"]
    elif api_key == 3:
        m = segs.setdefault(d["segmentId"], RemoteSegmentMeta(d["segmentId"]))
    else:
        return
    if api_key in (0, 3):
        m.start_offset, m.end_offset = d["startOffset"], d["endOffset"]
        m.size = d["segmentSizeInBytes"]
        m.leader_epochs = {e["leaderEpoch"]: e["offset"] for e in d["segmentLeaderEpochs"]}
    m.state = REMOTE_LOG_SEGMENT_STATES.get(d["remoteLogSegmentState"], str(d["remoteLogSegmentState"]))
    m.broker, m.event_ms = d["brokerId"], d["eventTimestampMs"]
    m.source = (path, offset)


def _when(ms: int | None) -> str:
    if ms is None:
        return "?"
    try:
        return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds")
    except (OverflowError, ValueError, OSError):
        return str(ms)


def check(remote_logs: list[KafkaFile], metadata_logs: list[KafkaFile],
          max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> Iterator[Problem]:
    """The notes and findings described in the module docstring (nothing when no
    metadata log is among the inputs)."""
    if not metadata_logs:
        return
    segs = read_metadata(metadata_logs, max_batch_bytes)
    seen: set[str] = set()
    for f in remote_logs:
        assert f.segment_id is not None
        seen.add(f.segment_id)
        m = segs.get(f.segment_id)
        if m is None:
            yield Problem(f.path, None, "remote-segment-unknown",
                          f"no {METADATA_TOPIC} record names remote log segment {f.segment_id}",
                          base_offset=f.base_offset, severity=WARNING)
            continue
        epochs = "{" + ", ".join(f"{k}={v}" for k, v in sorted(m.leader_epochs.items())) + "}"
        where = f"{m.source[0]} offset {m.source[1]}" if m.source else "?"
        extra = {"segment_id": m.segment_id, "state": m.state, "broker_id": m.broker,
                 "event_timestamp": m.event_ms, "start_offset": m.start_offset,
                 "end_offset": m.end_offset, "segment_size": m.size,
                 "leader_epochs": {str(k): v for k, v in sorted(m.leader_epochs.items())},
                 "metadata_record": where}
        yield Problem(f.path, None, "remote-segment",
                      f"{METADATA_TOPIC}: {m.state} by broker {m.broker} at {_when(m.event_ms)}; "
                      f"offsets {m.start_offset}..{m.end_offset}, {m.size} bytes, leader epochs "
                      f"{epochs} (last event: {where})",
                      base_offset=f.base_offset, severity=INFO, extra=extra)
        if m.start_offset is not None and m.start_offset != f.base_offset:
            yield Problem(f.path, None, "remote-metadata-mismatch",
                          f"{METADATA_TOPIC} says the segment starts at offset {m.start_offset}, "
                          f"its file name says {f.base_offset}", base_offset=f.base_offset,
                          severity=ERROR)
        if m.size is not None:
            try:
                size = kfs.getsize(f.path)
            except OSError:
                size = None
            if size is not None and size != m.size:
                yield Problem(f.path, None, "remote-metadata-mismatch",
                              f"{METADATA_TOPIC} says the segment has {m.size} bytes, the file "
                              f"has {size}", base_offset=f.base_offset, severity=ERROR)
        if m.state in ("DELETE_SEGMENT_STARTED", "DELETE_SEGMENT_FINISHED"):
            yield Problem(f.path, None, "remote-segment-deleted",
                          f"the files are still in the remote storage after {m.state}",
                          base_offset=f.base_offset, severity=WARNING)
    partitions = {(f.topic_id, f.topic, f.partition): f for f in remote_logs}
    for m in sorted(segs.values(), key=lambda m: (m.topic or "", m.partition or 0,
                                                  m.start_offset or 0, m.segment_id)):
        if m.segment_id in seen or m.state != "COPY_SEGMENT_FINISHED":
            continue
        some = partitions.get((m.topic_id, m.topic, m.partition))
        if some is None:
            continue  # a partition the inputs do not hold
        expected = kfs.dirname(some.path) + f"/{m.start_offset}-{m.segment_id}.log"
        yield Problem(expected, None, "remote-segment-missing",
                      f"{METADATA_TOPIC} says COPY_SEGMENT_FINISHED (broker {m.broker} at "
                      f"{_when(m.event_ms)}; offsets {m.start_offset}..{m.end_offset}) but the "
                      "segment is not in the remote storage", base_offset=m.start_offset,
                      severity=ERROR)


__all__ = ["METADATA_TOPIC", "RemoteSegmentMeta", "check", "read_metadata"]
