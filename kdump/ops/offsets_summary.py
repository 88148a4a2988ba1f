"""``kdump dump --offsets-decoder --summary``: the last committed offset per group, topic
and partition, and every group's state, after replaying ``__consumer_offsets``
(tombstones applied); each share group's share-partition states after replaying
``__share_group_state`` (:mod:`kdump.ops.share_state`), when its partitions are among
the inputs.

Transactional offset commits only take effect at their producer's COMMIT marker and
never after an ABORT (GroupMetadataManager keeps them pending until the marker), so
records of transactional batches are held per producer until its marker arrives.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import layouts as L
from ..decoders import Releases, internal_decoder
from ..decoders.release import log_dir_of
from ..errors import KdumpError, UsageError
from ..files.logdir import KafkaFile, walk
from ..files.text import read_partition_metadata
from ..findings import INFO, Problem
from ..model import shape
from ..records.control import parse_control
from ..records.file_records import LogReader
from ..records.v2 import RecordBatch
from ..source import FileSource
from .compare_replicas import log_end_offset, logdir_of
from .offsets_digest import OffsetsDigest
from .share_state import ShareStateDigest

OFFSETS_TOPIC = "__consumer_offsets"
SHARE_STATE_TOPIC = "__share_group_state"


@dataclass(slots=True)
class DigestRow:
    """One output object: a committed offset, or a group's metadata."""

    kind: str  # "committed_offset", "group" or "share_partition"
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return shape(self.kind, {**self.data})


@dataclass(slots=True)
class DigestTotals:
    records: int
    partitions: int
    offsets: int
    groups: int
    share_partitions: int
    aborted_records: int
    pending_records: int
    ignored_records: int
    #: replicas not replayed: another broker's copy of the partition ends later
    skipped_replicas: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return shape("offsets_summary", {"records": self.records, "partitions": self.partitions,
                "committed_offsets": self.offsets, "groups": self.groups,
                "share_partitions": self.share_partitions,
                "aborted_records": self.aborted_records, "pending_records": self.pending_records,
                "ignored_records": self.ignored_records,
                "skipped_replicas": self.skipped_replicas})


@dataclass(slots=True)
class ReplayState:
    """What one replay of ``__consumer_offsets`` logs accumulates."""

    digest: OffsetsDigest | ShareStateDigest
    pending: dict[int, list[tuple[Any, Any, int]]]
    aborted: int = 0

    @classmethod
    def new(cls) -> ReplayState:
        return cls(OffsetsDigest(), {})

    @classmethod
    def share(cls) -> ReplayState:
        """For ``__share_group_state``."""
        return cls(ShareStateDigest(), {})

    @property
    def pending_records(self) -> int:
        return sum(len(h) for h in self.pending.values())


def replay_log(path: str, active: bool, state: ReplayState, *, decoder: Any = None,
               max_batch_bytes: int = 256 << 20) -> Iterator[Problem]:
    """Feed one ``__consumer_offsets`` (or, with a :meth:`ReplayState.share` state and
    its decoder, ``__share_group_state``) segment into ``state`` (segments in offset
    order, one partition at a time): transactional commits are held per producer until
    its COMMIT marker and dropped at its ABORT."""
    if decoder is None:
        decoder = internal_decoder("offsets")
    digest, pending = state.digest, state.pending
    try:
        src = FileSource(path)
    except KdumpError as e:
        yield Problem(path, None, "unreadable-file", e.message)
        return
    with src:
        for item in LogReader(src, active=active, max_batch_bytes=max_batch_bytes):
            if isinstance(item, Problem):
                if item.severity != INFO:
                    yield item
                continue
            b = item
            try:
                records = list(b.records(max_batch_bytes))
            except KdumpError as e:
                yield Problem(path, b.position, "invalid-record", e.message)
                continue
            if isinstance(b, RecordBatch) and b.is_control:
                for rec in records:
                    ctl = parse_control(rec)
                    held = pending.pop(b.producer_id, [])
                    if ctl.type_id == L.CONTROL_COMMIT:
                        for key, value, off in held:
                            digest.add(key, value, log_offset=off)
                    elif ctl.type_id == L.CONTROL_ABORT:
                        state.aborted += len(held)
                continue
            txn = isinstance(b, RecordBatch) and b.is_transactional
            for rec in records:
                d = decoder.decode(rec.key, rec.value, rec.offset)
                if txn:
                    pending.setdefault(b.producer_id, []).append(
                        (d.key_json, d.value_json, rec.offset))
                else:
                    digest.add(d.key_json, d.value_json, log_offset=rec.offset)


def _replica_groups(by_partition: dict[tuple[str | None, int | None], list[str]]
                    ) -> list[tuple[tuple[str | None, int | None], list[str]]]:
    """The partition directories by replica group (:mod:`kdump.ops.replica_groups`: one
    cluster, topic, partition and topic id where known: two clusters'
    ``__consumer_offsets-7`` are two partitions, each replayed); loose logs (no partition
    directory) by name as found."""
    from .replica_groups import Identity, group_replicas, log_dir_identity, topic_id_of

    named = [(t, p, d) for (t, p), ds in by_partition.items() if t is not None and p is not None
             for d in ds]
    clusters: dict[str, str | None] = {}
    for _t, _p, d in named:
        ld = logdir_of(d)
        if ld not in clusters:
            clusters[ld] = log_dir_identity(ld).cluster_id
    groups, _notes = group_replicas(named, lambda m: Identity(
        str(m[0]), int(m[1]) if m[1] is not None else 0, clusters[logdir_of(m[2])],
        None, logdir_of(m[2])), lambda m: topic_id_of(m[2]))
    out: list[tuple[tuple[str | None, int | None], list[str]]] = [
        ((g.key.topic, g.key.partition), [d for _t, _p, d in g.members]) for g in groups]
    return out + [(k, ds) for k, ds in by_partition.items() if k[0] is None or k[1] is None]


def offsets_summary(paths: Iterable[str], *, all_topics: bool = False,
                    max_batch_bytes: int = 256 << 20, kafka_version: str | None = None
                    ) -> Iterator[DigestRow | DigestTotals | Problem]:
    """Replay every ``__consumer_offsets`` and ``__share_group_state`` log under
    ``paths`` (every log as ``__consumer_offsets`` when ``all_topics``: the user said
    the data is offsets data).  Records are read with the layouts of ``kafka_version``,
    else of each log dir's metadata.version (:class:`~kdump.decoders.Releases`)."""
    releases = Releases(kafka_version)
    state = ReplayState.new()
    share = ReplayState.share()
    digest = state.digest
    assert isinstance(digest, OffsetsDigest)
    partitions: set[str] = set()
    not_offsets: set[str] = set()
    #: partition.metadata files of other topics: they name share-partitions' topics
    topic_id_files: dict[str, str] = {}
    # several brokers' log dirs hold several replicas of a partition: each partition is
    # replayed once, from its replica with the highest log end offset
    dirs: dict[str, list[KafkaFile]] = {}
    by_partition: dict[tuple[str | None, int | None], list[str]] = {}
    for f in walk(paths):
        if isinstance(f, Problem):
            if f.severity != INFO:
                yield f
            continue
        if f.kind == "partition-metadata" and f.topic is not None:
            topic_id_files.setdefault(f.topic, f.path)
            continue
        if f.kind != "log" or f.leftover is not None:
            continue
        if not all_topics and f.topic not in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
            if len(not_offsets) < 4:
                not_offsets.add(f"{f.topic}-{f.partition}" if f.topic else f.path)
            continue
        pdir = os.path.dirname(f.path)
        if pdir not in dirs:
            dirs[pdir] = []
            by_partition.setdefault((f.topic, f.partition), []).append(pdir)
        dirs[pdir].append(f)
    skipped: list[str] = []
    for (topic, _partition), pdirs in _replica_groups(by_partition):
        chosen = pdirs[0]
        if len(pdirs) > 1 and topic is not None:
            best = None
            for d in pdirs:
                leo, _ = log_end_offset(d, max_batch_bytes)
                if leo is not None and (best is None or leo > best):
                    best, chosen = leo, d
            skipped.extend(d for d in pdirs if d != chosen)
        partitions.add(chosen)  # one replica group: one partition
        is_share = topic == SHARE_STATE_TOPIC and not all_topics
        for f in dirs[chosen] if topic is not None else [x for d in pdirs for x in dirs[d]]:
            decoder = releases.decoder("share-group-state" if is_share else "offsets",
                                       log_dir_of(f.path, f.topic is not None))
            yield from replay_log(f.path, f.active, share if is_share else state,
                                  decoder=decoder, max_batch_bytes=max_batch_bytes)
    if not partitions and not_offsets:
        names = ", ".join(sorted(not_offsets)[:3]) + (", ..." if len(not_offsets) > 3 else "")
        raise UsageError(
            f"--summary replays __consumer_offsets and __share_group_state partitions, and "
            f"none was given ({names} {'is' if len(not_offsets) == 1 else 'are'} not): point "
            "it at __consumer_offsets-N directories (or their log dir), or add "
            "--offsets-decoder to read these partitions as consumer-offsets data")
    pending_left = state.pending_records + share.pending_records
    aborted = state.aborted + share.aborted
    for o in digest.offsets():
        yield DigestRow("committed_offset", {
            "group": o.group, "topic": o.topic, "partition": o.partition, "offset": o.offset,
            "metadata": o.metadata, "commit_timestamp": o.commit_timestamp,
            "leader_epoch": o.leader_epoch, "expire_timestamp": o.expire_timestamp,
            "log_offset": o.log_offset})
    sdigest = share.digest
    assert isinstance(sdigest, ShareStateDigest)
    states = sdigest.states()
    # topic ids to name: the share-partitions' and those of the members' assignments
    wanted = {s.topic_id for s in states} | {
        str(x["topic_id"]) for g in digest.modern_groups() if g.group_type != "streams"
        for a in g.assignments.values() for x in a if x.get("topic_id")}
    tnames = topic_names(digest, topic_id_files, wanted)
    digest.topic_names.update(tnames)
    groups = digest.group_rows()
    for row in groups:
        yield DigestRow("group", row)
    for s in states:
        yield DigestRow("share_partition", sdigest.to_row(s, tnames.get(s.topic_id)))
    yield DigestTotals(digest.records + sdigest.records, len(partitions),
                       len(digest.offsets()), len(groups), len(states), aborted, pending_left,
                       digest.ignored + sdigest.ignored, skipped)


def topic_names(digest: OffsetsDigest, metadata_files: dict[str, str],
                wanted: set[str]) -> dict[str, str]:
    """Topic id -> name for ``wanted`` ids: from the share-group records of
    ``__consumer_offsets``, else from the ``partition.metadata`` files given (topic ->
    path; read only while an id is still unnamed; unreadable ones are skipped: the
    name is then null)."""
    names = {t: digest.topic_names[t] for t in wanted if t in digest.topic_names}
    for topic, path in sorted(metadata_files.items()):
        if len(names) == len(wanted):
            break
        try:
            with FileSource(path) as src:
                tid = read_partition_metadata(src).get("topic_id")
        except KdumpError:
            continue
        if isinstance(tid, str) and tid in wanted and tid not in names:
            names[tid] = topic
    return names
