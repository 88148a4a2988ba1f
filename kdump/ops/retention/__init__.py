"""``kdump retention``: why the disk is not freed.  Per partition replica and segment,
what UnifiedLog.deleteOldSegments deletes at the next retention check and by which
rule, why every other segment stays and from when it goes (or why never); for compacted
logs, what the log cleaner sees (dirty ratio, first uncleanable offset, open
transactions, tombstones and markers); totals per partition, topic and log dir.

Configs come from ``--config``, the KRaft metadata among the inputs (ConfigRecords),
``--server-properties`` and Kafka's defaults (:mod:`.cleanup.config`); the high
watermark, log start offset and cleaner checkpoint from the log dir's checkpoints; the
highest offset in remote storage from ``__remote_log_metadata`` when it is among the
inputs.  Several log dirs are several brokers: every row names its log dir and broker
id, and totals never add replicas across log dirs.

This module runs the work of the modules below and gives their public names.

Its modules:

* :mod:`kdump.ops.topics.config` - the topic configs retention and the cleaner read, resolved in Kafka's
  order (``--config``, topic ConfigRecords, the broker's and the cluster's dynamic
  ConfigRecords, ``server.properties``, Kafka's defaults), each value with its source;
* :mod:`.segment_ages` - a partition replica's segments: sizes, offsets, each segment's
  largest timestamp as LogSegment.largestTimestamp gives it (the time index's last
  entry, the batches, or the file's mtime) and the batch holding it;
* :mod:`.rules` - UnifiedLog.deleteOldSegments over those segments: which are deletable
  now and by which rule, why each other one is kept and when it goes;
* :mod:`.compaction` - LogCleanerManager's view of a compacted log: dirty ratio, first
  uncleanable offset, open transactions, tombstones and markers;
* :mod:`.held` - what holds a log dir's bytes outside the judged segments: partition
  directories renamed ``-delete``/``-future``/``-stray``, leftover files (``.deleted``,
  ``.cleaned``, ``.swap``, ``.tmp``), and every file under the log dir put in one place
  so its bytes add up;
* :mod:`.tally` - each segment's bytes, apparent (as ls) and allocated (as du: what
  deleting gives the disk back), added up per partition, topic and log dir, and the
  preallocated indexes a deletion of the active segment rolls;
* :mod:`kdump.ops.topics.evidence` - what the inputs say beside the segments: the KRaft log's configs and
  metadata.version, the release whose rules apply and why (a ZooKeeper-era log dir: the
  3.9 rules), and the highest offset ``__remote_log_metadata`` says was copied, for
  local retention.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ...files.logdir import walk
from ...files.tiered import parse_remote_partition_dir
from ...findings import WARNING, Problem
from ...fs import Listing
from ...model import shape
from ...protocol.definitions import KafkaVersion
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES
from ..compare_replicas.logdirs import LogDir, Replica, ReplicaSet, logdir_of, read_logdir
from ..topics.config import (
    HOUR_MS,
    LONG_MAX,
    Resolver,
    ServerProperties,
    Setting,
    parse_override,
    read_server_properties,
    show,
)
from ..topics.evidence import (
    METADATA_TOPIC,
    REMOTE_METADATA_TOPIC,
    read_metadata,
    release_of,
    remote_offsets,
)
from .compaction import CleanerView, cleaner_view, open_transactions
from .held import HeldDir, disk_row, held_dir_rows, inside_inputs, read_held_dir
from .rules import HOLD_REASONS, RULES, LogState, Policy, Verdict, decide
from .segment_ages import PartitionFiles, Segment, find_pin, list_partition, read_largest_timestamp
from .tally import Tally, count, files_bytes, rolled_index_bytes

#: the configs each partition's rows show (the rest are resolved, not shown)
SHOWN = ("cleanup.policy", "retention.ms", "retention.bytes", "segment.bytes", "segment.ms",
         "delete.retention.ms", "min.compaction.lag.ms", "max.compaction.lag.ms",
         "min.cleanable.dirty.ratio", "file.delete.delay.ms", "message.timestamp.type",
         "remote.storage.enable", "local.retention.ms", "local.retention.bytes",
         "log.cleaner.enable", "log.retention.check.interval.ms",
         "remote.log.storage.system.enable")
#: what the KRaft metadata log's line shows: the settings that trim it (after snapshots,
#: KafkaMetadataLog.cleanSnapshots), not the topic retention it does not follow
METADATA_SHOWN = ("metadata.max.retention.ms", "metadata.max.retention.bytes")


@dataclass(slots=True)
class RetentionOptions:
    #: the time the verdicts are for (epoch ms); None: the clock
    now: int | None = None
    server_properties: tuple[str, ...] = ()
    #: ``--config TOPIC:KEY=VALUE``, as given
    overrides: tuple[str, ...] = ()
    #: ``--kafka-version X.Y``: whose rules (None: the metadata.version, else the newest)
    kafka_version: str | None = None
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    #: what ``now`` is, said in the output (default: --now)
    now_source: str = "--now"


@dataclass(slots=True)
class Inputs:
    """The options read and checked before anything is written (a bad one is a
    UsageError, exit 2, with no half output)."""

    servers: list[ServerProperties]
    overrides: list[tuple[str, str, str]]


def check_options(opts: RetentionOptions) -> Inputs:
    """Read ``--server-properties`` and parse ``--config``: UsageError naming what is
    wrong."""
    return Inputs([read_server_properties(p) for p in opts.server_properties],
                  [parse_override(o) for o in opts.overrides])


def check_release(text: str) -> str:
    """``--kafka-version``: 3.x or 4.x (``X.Y`` or ``X.Y.Z``, read by
    :class:`~kdump.decoders.release.KafkaVersion`); UsageError otherwise."""
    from ...decoders.release import check_release as check
    from ...errors import UsageError
    from ...protocol.messages import SchemaError

    try:
        return check(text, "3.0", "kdump retention knows the rules of Kafka 3.x and 4.x (3.0 "
                                  "to 4.3; later releases as 4.3)")
    except SchemaError as e:
        raise UsageError(str(e)) from None


# ----------------------------------------------------------------------------- objects


@dataclass(slots=True)
class SegmentVerdict:
    replica: Replica
    segment: Segment
    next_offset: int
    bytes: int
    #: allocated bytes of the segment's files (None: no block counts)
    disk_bytes: int | None
    verdict: Verdict
    pinned_by: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        s, v = self.segment, self.verdict
        return shape("retention_segment", {
            "log_dir": self.replica.log_dir, "broker_id": self.replica.broker_id,
            "topic": self.replica.topic, "partition": self.replica.partition, "file": s.path,
            "base_offset": s.base_offset, "next_offset": self.next_offset, "size": s.size,
            "bytes": self.bytes, "disk_bytes": self.disk_bytes, "active": s.active,
            "largest_timestamp": s.largest_timestamp if s.largest_timestamp is not None else -1,
            "timestamp_source": s.timestamp_source, "timestamp_note": s.timestamp_note,
            "deletable": v.deletable, "rule": v.rule, "reason": v.reason,
            "deletable_at": v.deletable_at, "until": v.until, "detail": v.detail,
            "pinned_by": self.pinned_by})


@dataclass(slots=True)
class PartitionVerdict:
    replica: Replica
    configs: dict[str, Setting]
    policy: Policy
    state: LogState
    hw_source: str
    tally: Tally
    next_deletion: int | None
    #: every leftover file of the partition (.deleted, .cleaned, .swap, .tmp), by kind
    leftover_bytes: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        r, p, st = self.replica, self.policy, self.state
        return shape("retention_partition", {
            "log_dir": r.log_dir, "broker_id": r.broker_id, "topic": r.topic,
            "partition": r.partition,
            "cleanup_policy": show(self.configs["cleanup.policy"].value),
            "retention_ms": p.retention_ms, "retention_bytes": p.retention_bytes,
            "remote_storage": p.remote,
            "highest_remote_offset": p.highest_remote_offset if p.remote else None,
            "log_start_offset": st.log_start_offset, "log_end_offset": st.log_end_offset,
            "high_watermark": st.high_watermark, "high_watermark_source": self.hw_source,
            **self.tally.fields(), "next_deletion": self.next_deletion,
            "leftover_bytes": dict(sorted(self.leftover_bytes.items()))})


@dataclass(slots=True)
class CompactionVerdict:
    replica: Replica
    view: CleanerView
    configs: dict[str, Setting]

    def to_json(self) -> dict[str, Any]:
        r, v, c = self.replica, self.view, self.configs
        return shape("retention_compaction", {
            "log_dir": r.log_dir, "broker_id": r.broker_id, "topic": r.topic,
            "partition": r.partition, "cleaner_checkpoint": v.checkpoint,
            "first_dirty_offset": v.first_dirty_offset,
            "first_uncleanable_offset": v.first_uncleanable_offset,
            "uncleanable_because": v.uncleanable_because, "clean_bytes": v.clean_bytes,
            "dirty_bytes": v.cleanable_bytes,
            "dirty_ratio": None if v.dirty_ratio is None else round(v.dirty_ratio, 6),
            "min_cleanable_dirty_ratio": v.min_cleanable_ratio,
            "min_compaction_lag_ms": c["min.compaction.lag.ms"].value,
            "max_compaction_lag_ms": c["max.compaction.lag.ms"].value,
            "compaction_due": v.compaction_due,
            "earliest_dirty_timestamp": v.earliest_dirty_timestamp, "cleanable": v.cleanable,
            "last_stable_offset": v.last_stable_offset,
            "open_transactions": [{"producer_id": t.producer_id, "first_offset": t.first_offset,
                                   "source": t.source} for t in v.open_transactions],
            "delete_retention_ms": c["delete.retention.ms"].value,
            "tombstones": v.tombstones.to_json(), "markers": v.markers.to_json(),
            "evidence": v.evidence, "notes": v.notes})


@dataclass(slots=True)
class TotalRow:
    scope: str
    log_dir: str
    broker_id: int | None
    topic: str | None
    tally: Tally

    def to_json(self) -> dict[str, Any]:
        return shape("retention_total", {"scope": self.scope, "log_dir": self.log_dir,
                                         "broker_id": self.broker_id, "topic": self.topic,
                                         "partitions": self.tally.partitions,
                                         **self.tally.fields()})


# ----------------------------------------------------------------------------- the run


def _now(opts: RetentionOptions) -> tuple[int, str]:
    if opts.now is not None:
        return opts.now, opts.now_source
    return int(time.time() * 1000), "the clock"


def retention(paths: Iterable[str], opts: RetentionOptions,
              inputs: Inputs | None = None) -> Iterator[Any]:
    """The objects of ``kdump retention`` (see the module docstring)."""
    paths = list(paths)
    if inputs is None:
        inputs = check_options(opts)
    now, now_source = _now(opts)
    files = [item for item in walk(paths) if not isinstance(item, Problem)]
    metadata, level, meta_problems = read_metadata(files, opts.max_batch_bytes)
    rs = ReplicaSet(paths)
    release, release_source = release_of(
        opts.kafka_version, level, rs.logdirs.values(),
        any(f.topic == METADATA_TOPIC and f.partition_state is None for f in files))
    resolver = Resolver(overrides=inputs.overrides, metadata=metadata, servers=inputs.servers,
                        timestamp_after_default=HOUR_MS
                        if KafkaVersion.parse(release).at_least("4.0") else LONG_MAX)
    remote = remote_offsets(files, opts.max_batch_bytes)
    notes = []
    if metadata is None:
        notes.append("no KRaft metadata (__cluster_metadata) among the inputs: topic configs "
                     "are --config, Kafka's own topics' creation configs, server.properties "
                     "and Kafka's defaults (a topic override set with kafka-configs is not "
                     "known: give it with --config)")
    if not inputs.servers:
        notes.append("no --server-properties: the brokers' static configs are Kafka's "
                     "defaults unless dynamic ConfigRecords say otherwise")
    listing = Listing()  # a log dir in an object store is listed once
    held: dict[str, list[HeldDir]] = {}
    for pdir in sorted(set(rs.skipped)):
        h = read_held_dir(pdir, listing)
        if h is not None:
            held.setdefault(logdir_of(pdir), []).append(h)
    for ld_path in held:
        if ld_path not in rs.logdirs:  # a log dir holding only renamed-aside directories
            rs.logdirs[ld_path] = read_logdir(ld_path)
    logdirs = sorted(rs.logdirs.values(), key=lambda d: d.path)
    yield shape("retention_run", {
        "now": now, "now_source": now_source, "kafka_version": release,
        "kafka_version_source": release_source,
        "metadata": metadata.source if metadata is not None else None,
        "server_properties": [{"file": s.path, "broker_id": s.broker_id}
                              for s in inputs.servers],
        "overrides": list(opts.overrides),
        "log_dirs": [{"log_dir": d.path, "broker_id": d.broker_id} for d in logdirs],
        "notes": notes})
    yield from meta_problems
    yield from rs.problems  # the walk's (the same walk as above) and the log dirs' own
    for ld in logdirs:
        counted: set[str] = set()  # the judged segments' files
        yield from _logdir(ld, rs, resolver, remote, release, now, opts, listing, counted)
        yield from held_dir_rows(ld, held.get(ld.path, []), rs, resolver, now)
        if inside_inputs(ld.path, paths):
            yield disk_row(ld, listing, counted)
    yield from resolver.problems


def _logdir(ld: LogDir, rs: ReplicaSet, resolver: Resolver,
            remote: dict[tuple[str, int], int], release: str, now: int,
            opts: RetentionOptions, listing: Listing, counted: set[str]) -> Iterator[Any]:
    replicas = sorted((r for reps in rs.replicas.values() for r in reps
                       if r.logdir is ld
                       and parse_remote_partition_dir(os.path.basename(r.path)) is None),
                      key=lambda r: (r.topic, r.partition))
    total = Tally()
    topic_tally: Tally | None = None
    shown: set[tuple[str, int | None]] = set()
    for k, r in enumerate(replicas):
        configs = resolver.topic(r.topic, ld.broker_id)
        if (r.topic, ld.broker_id) not in shown:
            shown.add((r.topic, ld.broker_id))
            for name in (METADATA_SHOWN if r.topic == METADATA_TOPIC else SHOWN):
                st = configs[name]
                yield shape("retention_config", {"broker_id": ld.broker_id, "topic": r.topic,
                                                 "name": name, "value": show(st.value),
                                                 "source": st.source})
        if topic_tally is None:
            topic_tally = Tally()
        tally = Tally()
        yield from _partition(r, configs, remote, release, now, opts, tally, listing,
                              counted)
        topic_tally.add(tally)
        if k + 1 == len(replicas) or replicas[k + 1].topic != r.topic:
            yield TotalRow("topic", ld.path, ld.broker_id, r.topic, topic_tally)
            total.add(topic_tally)
            topic_tally = None
    if replicas:
        yield TotalRow("log_dir", ld.path, ld.broker_id, None, total)


def _partition(r: Replica, configs: dict[str, Setting], remote: dict[tuple[str, int], int],
               release: str, now: int, opts: RetentionOptions, tally: Tally,
               listing: Listing, counted: set[str]) -> Iterator[Any]:
    problems: list[Problem] = []
    try:
        pf = list_partition(r.path, listing)
    except OSError as e:
        yield Problem(r.path, None, "unreadable-file", (e.strerror or str(e)).lower())
        return
    segs = pf.segments
    if not segs:
        return
    for s in segs:
        read_largest_timestamp(s, problems, opts.max_batch_bytes)
    active = segs[-1]
    leo = active.last_offset + 1 if active.last_offset is not None else active.base_offset
    hw_cp = r.high_watermark
    if hw_cp is None:
        hw, hw_source = leo, ("assumed the log end offset: no replication-offset-checkpoint "
                              "entry (a live broker's high watermark is near it)")
    else:
        # Log.updateHighWatermark keeps it within [log start offset, log end offset]
        hw = min(hw_cp, leo)
        hw_source = "replication-offset-checkpoint" + (
            f" ({hw_cp}, past the log end offset: the log end offset)" if hw_cp > leo else "")
    lso_cp = r.logdir.log_start_offsets.get((r.topic, r.partition))
    policy_list = configs["cleanup.policy"].value
    system = bool(configs["remote.log.storage.system.enable"].value)
    internal = r.topic in ("__consumer_offsets", "__transaction_state", "__share_group_state",
                           REMOTE_METADATA_TOPIC, METADATA_TOPIC)
    rem_topic = bool(configs["remote.storage.enable"].value)
    if rem_topic and not system and configs["remote.log.storage.system.enable"].source \
            .startswith("default"):
        # a topic can only enable remote storage on a broker that has it on
        system = True
    is_remote = system and rem_topic and "compact" not in policy_list and not internal
    remote_copy = is_remote and not configs["remote.log.copy.disable"].value
    ret_ms = configs["retention.ms"].value
    ret_bytes = configs["retention.bytes"].value
    if remote_copy:
        local_ms, local_bytes = configs["local.retention.ms"].value, \
            configs["local.retention.bytes"].value
        ret_ms = ret_ms if local_ms == -2 else local_ms
        ret_bytes = ret_bytes if local_bytes == -2 else local_bytes
    log_start = max(lso_cp or 0, segs[0].base_offset) if not is_remote else (
        lso_cp if lso_cp is not None else segs[0].base_offset)
    state = LogState(segs, leo, hw, log_start, max(log_start, segs[0].base_offset))
    policy = Policy(release, "delete" in policy_list, "compact" in policy_list, ret_ms,
                    ret_bytes, is_remote, remote_copy,
                    remote.get((r.topic, r.partition), -1),
                    bool(configs["log.cleaner.enable"].value),
                    kraft_metadata=r.topic == METADATA_TOPIC)
    verdicts = decide(state, policy, now)
    next_deletion: int | None = None
    rows: list[SegmentVerdict] = []
    for i, (s, v) in enumerate(zip(segs, verdicts, strict=True)):
        b, disk = files_bytes(s, counted)
        pinned = _pinned_by(segs, i, v, problems, opts.max_batch_bytes)
        if pinned is not None and v.reason == "future-timestamp":
            problems.append(_future(s, v, pinned, now))
        count(tally, b, disk, v, now)
        if s.active and (v.deletable or v.deletable_at is not None):
            # deleting the active segment rolls a new one first (deleteSegments: every
            # segment goes), its .index and .timeindex preallocated: apparent bytes that
            # hold no block (the disk gets back all of the deleted ones' blocks)
            tally.rolled = rolled_index_bytes(int(configs["segment.index.bytes"].value))
        if v.deletable_at is not None and not v.deletable and (
                next_deletion is None or v.deletable_at < next_deletion):
            next_deletion = v.deletable_at
        rows.append(SegmentVerdict(r, s, state.upper(i), b, disk, v, pinned))
    tally.partitions = 1
    tally.pending_delete = sum(lo.size for lo in pf.leftovers if lo.kind == "deleted")
    yield PartitionVerdict(r, configs, policy, state, hw_source, tally, next_deletion,
                           pf.leftover_bytes)
    yield from rows
    if policy.compact:
        yield _compaction(r, configs, segs, pf, state, now, problems, opts)
    yield from problems


def _future(s: Segment, v: Verdict, pinned: dict[str, Any], now: int) -> Problem:
    """The finding for a segment stamped later than now (it holds the walk)."""
    batch = pinned.get("batch")
    where = (f" (the batch at position {batch['position']}, offset {batch['offset']}, "
             f"producer id {batch['producer_id']})" if batch else "")
    return Problem(s.path, batch["position"] if batch else None, "future-timestamp",
                   f"the segment's largest timestamp {s.largest_timestamp} is later than now "
                   f"({now}){where}: time retention keeps it, and every segment after it, "
                   f"until {v.deletable_at}", base_offset=batch["offset"] if batch else None,
                   severity=WARNING)


def _pinned_by(segs: list[Segment], i: int, v: Verdict, problems: list[Problem],
               max_batch_bytes: int) -> dict[str, Any] | None:
    if v.reason == "future-timestamp":
        j = i
    elif v.reason == "pinned" and v.pinned_by is not None:
        j = v.pinned_by
    else:
        return None
    seg = segs[j]
    pin = find_pin(seg, problems, max_batch_bytes) if seg.timestamp_source != "mtime" else None
    return {"segment": seg.path, "reason": "largest timestamp" if seg.timestamp_source != "mtime"
            else "file mtime", "largest_timestamp": seg.largest_timestamp,
            "batch": pin.to_json() if pin is not None else None}


def _compaction(r: Replica, configs: dict[str, Setting], segs: list[Segment],
                pf: PartitionFiles, state: LogState, now: int, problems: list[Problem],
                opts: RetentionOptions) -> CompactionVerdict:
    txns = open_transactions(segs, pf.snapshots, state.log_end_offset, problems,
                             opts.max_batch_bytes)
    view = cleaner_view(
        segs, checkpoint=r.logdir.cleaner_offsets.get((r.topic, r.partition)),
        log_start_offset=state.log_start_offset, log_end_offset=state.log_end_offset,
        high_watermark=state.high_watermark, open_txns=txns,
        min_ratio=configs["min.cleanable.dirty.ratio"].value,
        min_lag_ms=configs["min.compaction.lag.ms"].value,
        max_lag_ms=configs["max.compaction.lag.ms"].value, now=now,
        leftovers=pf.leftovers, problems=problems, max_batch_bytes=opts.max_batch_bytes)
    if not configs["log.cleaner.enable"].value:
        view.evidence.insert(0, "log.cleaner.enable=false: no cleaner runs on this broker")
        view.cleanable = False
    return CompactionVerdict(r, view, configs)


def retention_section(paths: Iterable[str], max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                      now: int | None = None) -> Iterator[Any]:
    """``kdump report``'s retention section: the same objects, at the report's time,
    with Kafka's defaults where the inputs hold no config (problems the other checks
    report are left to them, except the future timestamps)."""
    opts = RetentionOptions(now=now, max_batch_bytes=max_batch_bytes,
                            now_source="the report's start")
    for item in retention(paths, opts):
        if isinstance(item, Problem) and item.kind != "future-timestamp":
            continue
        yield item


__all__ = ["HOLD_REASONS", "RULES", "CompactionVerdict", "Inputs", "PartitionVerdict",
           "RetentionOptions", "SegmentVerdict", "TotalRow", "check_options", "check_release",
           "retention", "retention_section"]
