"""``kdump dump --offsets-decoder --summary``: the last committed offset per group, topic
and partition, after replaying ``__consumer_offsets`` (tombstones applied).

Transactional offset commits only take effect at their producer's COMMIT marker and
never after an ABORT (GroupMetadataManager keeps them pending until the marker), so
records of transactional batches are held per producer until its marker arrives.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .. import layouts as L
from ..decoders import internal_decoder
from ..errors import KdumpError
from ..files.logdir import walk
from ..findings import INFO, Problem
from ..records.control import parse_control
from ..records.file_records import LogReader
from ..records.v2 import RecordBatch
from ..source import FileSource
from .offsets_digest import OffsetsDigest


@dataclass(slots=True)
class DigestRow:
    """One output object: a committed offset, or a group's metadata."""

    kind: str  # "committed_offset" or "group"
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, **self.data}


@dataclass(slots=True)
class DigestTotals:
    records: int
    partitions: int
    offsets: int
    groups: int
    aborted_records: int
    pending_records: int
    ignored_records: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "offsets_summary", "records": self.records, "partitions": self.partitions,
                "committed_offsets": self.offsets, "groups": self.groups,
                "aborted_records": self.aborted_records, "pending_records": self.pending_records,
                "ignored_records": self.ignored_records}


def offsets_summary(paths: Iterable[str], *, all_topics: bool = False,
                    max_batch_bytes: int = 256 << 20) -> Iterator[DigestRow | DigestTotals | Problem]:
    """Replay every ``__consumer_offsets`` log under ``paths`` (every log when
    ``all_topics``: the user said the data is offsets data)."""
    decoder = internal_decoder("offsets")
    digest = OffsetsDigest()
    pending: dict[int, list[tuple[Any, Any, int]]] = {}
    partitions: set[str] = set()
    aborted = pending_left = 0
    for f in walk(paths):
        if isinstance(f, Problem):
            if f.severity != INFO:
                yield f
            continue
        if f.kind != "log" or f.leftover is not None:
            continue
        if not all_topics and f.topic != "__consumer_offsets":
            continue
        partitions.add(f"{f.topic}-{f.partition}")
        try:
            src = FileSource(f.path)
        except KdumpError as e:
            yield Problem(f.path, None, "unreadable-file", e.message)
            continue
        with src:
            for item in LogReader(src, active=f.active, max_batch_bytes=max_batch_bytes):
                if isinstance(item, Problem):
                    if item.severity != INFO:
                        yield item
                    continue
                b = item
                try:
                    records = list(b.records(max_batch_bytes))
                except KdumpError as e:
                    yield Problem(f.path, b.position, "invalid-record", e.message)
                    continue
                if isinstance(b, RecordBatch) and b.is_control:
                    for rec in records:
                        ctl = parse_control(rec)
                        held = pending.pop(b.producer_id, [])
                        if ctl.type_id == L.CONTROL_COMMIT:
                            for key, value, off in held:
                                digest.add(key, value, log_offset=off)
                        elif ctl.type_id == L.CONTROL_ABORT:
                            aborted += len(held)
                    continue
                txn = isinstance(b, RecordBatch) and b.is_transactional
                for rec in records:
                    d = decoder.decode(rec.key, rec.value, rec.offset)
                    if txn:
                        pending.setdefault(b.producer_id, []).append(
                            (d.key_json, d.value_json, rec.offset))
                    else:
                        digest.add(d.key_json, d.value_json, log_offset=rec.offset)
    for held in pending.values():
        pending_left += len(held)
    for o in digest.offsets():
        yield DigestRow("committed_offset", {
            "group": o.group, "topic": o.topic, "partition": o.partition, "offset": o.offset,
            "metadata": o.metadata, "commit_timestamp": o.commit_timestamp,
            "leader_epoch": o.leader_epoch, "expire_timestamp": o.expire_timestamp,
            "log_offset": o.log_offset})
    for g in digest.groups():
        yield DigestRow("group", {
            "group": g.group, "protocol_type": g.protocol_type, "generation": g.generation,
            "protocol": g.protocol, "leader": g.leader, "members": g.members,
            "current_state_timestamp": g.current_state_timestamp, "log_offset": g.log_offset})
    yield DigestTotals(digest.records, len(partitions), len(digest.offsets()),
                       len(digest.groups()), aborted, pending_left, digest.ignored)
