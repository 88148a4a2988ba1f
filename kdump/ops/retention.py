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

The work lives in :mod:`kdump.ops.cleanup` (configs, segments, the rules, the cleaner);
this module runs it and gives the public names.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import fs as kfs
from ..errors import KdumpError
from ..files.logdir import KafkaFile, walk
from ..files.tiered import parse_remote_partition_dir
from ..findings import WARNING, Problem
from ..fs import Listing
from ..model import shape
from ..protocol.definitions import KafkaVersion
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES
from .cleanup.compaction import CleanerView, cleaner_view, open_transactions
from .cleanup.config import (
    HOUR_MS,
    LONG_MAX,
    MetadataConfigs,
    Resolver,
    ServerProperties,
    Setting,
    parse_override,
    read_server_properties,
    show,
)
from .cleanup.held import HeldDir, disk_row, held_dir_rows, inside_inputs, read_held_dir
from .cleanup.rules import HOLD_REASONS, RULES, LogState, Policy, Verdict, decide
from .cleanup.segments import (
    PartitionFiles,
    Segment,
    find_pin,
    list_partition,
    read_largest_timestamp,
)
from .replication.logdirs import LogDir, Replica, ReplicaSet, logdir_of, read_logdir

DAY_MS = 24 * HOUR_MS
#: the release whose rules apply when nothing says which (the newest kdump knows)
NEWEST = "4.3"
METADATA_TOPIC = "__cluster_metadata"
REMOTE_METADATA_TOPIC = "__remote_log_metadata"
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
    from ..decoders.release import check_release as check
    from ..errors import UsageError
    from ..protocol.messages import SchemaError

    try:
        return check(text, "3.0", "kdump retention knows the rules of Kafka 3.x and 4.x (3.0 "
                                  "to 4.3; later releases as 4.3)")
    except SchemaError as e:
        raise UsageError(str(e)) from None


# ----------------------------------------------------------------------------- objects


@dataclass(slots=True)
class Tally:
    """Bytes of a partition, a topic or a log dir: deletable now, soon, and held; each in
    apparent bytes (st_size, as ls shows them) and in allocated ones (``disk_*``: st_blocks
    x 512, as du counts them, what deleting gives the disk back; None: no block counts)."""

    partitions: int = 0
    segments: int = 0
    bytes: int = 0
    now: int = 0
    day: int = 0
    week: int = 0
    held: dict[str, int] = field(default_factory=dict)
    pending_delete: int = 0
    #: allocated bytes, as above (None once a file without block counts is met)
    disk: int | None = 0
    disk_now: int | None = 0
    disk_day: int | None = 0
    disk_week: int | None = 0
    held_disk: dict[str, int] = field(default_factory=dict)
    blocks_known: bool = True
    #: apparent bytes of the new active segment's preallocated indexes that deleting the
    #: active segment rolls (beside the deletable bytes: no disk block)
    rolled: int = 0

    def add(self, o: Tally) -> None:
        self.partitions += o.partitions
        self.segments += o.segments
        self.bytes += o.bytes
        self.now += o.now
        self.day += o.day
        self.week += o.week
        self.pending_delete += o.pending_delete
        self.rolled += o.rolled
        for k, v in o.held.items():
            self.held[k] = self.held.get(k, 0) + v
        self.blocks_known = self.blocks_known and o.blocks_known
        self.disk = _plus(self.disk, o.disk)
        self.disk_now = _plus(self.disk_now, o.disk_now)
        self.disk_day = _plus(self.disk_day, o.disk_day)
        self.disk_week = _plus(self.disk_week, o.disk_week)
        for k, v in o.held_disk.items():
            self.held_disk[k] = self.held_disk.get(k, 0) + v

    def fields(self) -> dict[str, Any]:
        known = self.blocks_known
        return {"segments": self.segments, "bytes": self.bytes,
                "disk_bytes": self.disk if known else None,
                "deletable_disk_bytes": self.disk_now if known else None,
                "deletable_bytes": self.now,
                "deletable_24h_disk_bytes": self.disk_day if known else None,
                "deletable_24h_bytes": self.day,
                "deletable_7d_disk_bytes": self.disk_week if known else None,
                "deletable_7d_bytes": self.week,
                "held_disk": (dict(sorted(self.held_disk.items(), key=lambda kv: (-kv[1], kv[0])))
                              if known else None),
                "held": dict(sorted(self.held.items(), key=lambda kv: (-kv[1], kv[0]))),
                "rolled_bytes": self.rolled,
                "pending_delete_bytes": self.pending_delete}


def _plus(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


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


def _metadata(files: list[KafkaFile], max_batch_bytes: int
              ) -> tuple[MetadataConfigs | None, int | None, list[Problem]]:
    """The dynamic configs of the fullest ``__cluster_metadata`` replica among the
    inputs, where each was set, and its metadata.version."""
    from ..metadata import Replay, find_sources

    dirs = sorted({kfs.dirname(f.path) for f in files
                   if f.topic == METADATA_TOPIC and f.partition_state is None})
    best = None
    problems: list[Problem] = []
    for d in dirs:
        try:
            sources = find_sources(d)
        except KdumpError as e:
            problems.append(Problem(d, None, "unreadable-file", e.message))
            continue
        where: dict[tuple[Any, ...], str] = {}

        def on_event(ev: Any, where: dict[tuple[Any, ...], str] = where) -> None:
            for c in ev.changes:
                if c.key[0] == "config":
                    at = ev.committed_at if ev.committed_at is not None else ev.offset
                    where[c.key] = ("ConfigRecord in the snapshot" if at is None
                                    else f"ConfigRecord at offset {at}")

        r = Replay(sources, on_event=on_event, max_batch_bytes=max_batch_bytes).run()
        if best is None or (r.offset or -1) > (best[0].offset or -1):
            best = (r, where, d)
    if best is None:
        return None, None, problems
    r, where, d = best
    cfg = MetadataConfigs(source=f"{d} (to offset {r.offset})")
    for key, obj in r.image.objects.items():
        if key[0] != "config":
            continue
        rtype = obj["resource_type"]
        cfg.configs.setdefault((rtype, obj["resource_name"]), {})[obj["name"]] = (
            obj["value"], where.get(key, "ConfigRecord"))
    level = None
    feature = r.image.objects.get(("feature", "metadata.version"))
    if feature is not None:
        level = int(feature["level"])
    return cfg, level, problems + [p for p in r.problems if p.is_failure]


#: the last release with ZooKeeper mode (4.0 removed it: KIP-500); a ZooKeeper-era log
#: dir is judged by its rules
LAST_ZOOKEEPER = "3.9"


def _release(opts: RetentionOptions, level: int | None, logdirs: Iterable[LogDir],
             metadata_seen: bool) -> tuple[str, str]:
    """The release whose rules apply and why, from the evidence, strongest first:
    ``--kafka-version``; the metadata.version of the KRaft log among the inputs; a log
    dir's bootstrap.checkpoint; meta.properties version 0 with no directory.id in every
    log dir (a ZooKeeper-mode broker's: 3.x at the latest); else the newest, assumed."""
    from ..decoders.release import metadata_version_in, release_of_metadata_version
    from ..protocol.messages import SchemaError

    if opts.kafka_version:
        return opts.kafka_version, "--kafka-version"
    where = ""  # the KRaft metadata log among the inputs (retention_run.metadata names it)
    if level is None:
        for ld in sorted(logdirs, key=lambda d: d.path):
            boot = os.path.join(ld.path, "bootstrap.checkpoint") if not kfs.is_url(ld.path) \
                else f"{ld.path.rstrip('/')}/bootstrap.checkpoint"
            try:
                if not kfs.exists(boot):
                    continue
                level = metadata_version_in(boot)
            except (OSError, KdumpError, SchemaError):  # best effort: an unreadable file
                continue                                    # says nothing
            if level is not None:
                where = f" in {boot}"
                break
    if level is not None:
        known = release_of_metadata_version(level)
        if known is not None:
            return known[0], f"metadata.version {level}, {known[1]}{where}"
        if level < 22:
            return LAST_ZOOKEEPER, (f"metadata.version {level}{where}: a 3.x release, judged "
                                    f"by the last 3.x rules ({LAST_ZOOKEEPER})")
        return NEWEST, f"metadata.version {level}{where}: newer than kdump knows"
    with_meta = [d for d in logdirs if d.meta_version is not None]
    if with_meta and not metadata_seen and all(
            d.meta_version == 0 and d.directory_id is None for d in with_meta):
        # KRaft brokers write directory.id into every log dir they start on
        # (KafkaRaftServer.initializeLogDirs, 3.7-4.3); a ZooKeeper-mode broker only while
        # migrating (KafkaServer, 3.7-3.9); 4.0 has no ZooKeeper mode
        return LAST_ZOOKEEPER, (
            f"meta.properties version=0 without directory.id ({len(with_meta)} log dir"
            f"{'s' if len(with_meta) != 1 else ''}) and no __cluster_metadata: a "
            f"ZooKeeper-mode broker's, judged by the last 3.x rules ({LAST_ZOOKEEPER}; 4.0 "
            "removed ZooKeeper mode)")
    return NEWEST, "assumed: no metadata.version among the inputs"


def _remote_offsets(files: list[KafkaFile], max_batch_bytes: int) -> dict[tuple[str, int], int]:
    """(topic, partition) -> the highest end offset __remote_log_metadata says was copied
    (its last event COPY_SEGMENT_FINISHED)."""
    logs = [f for f in files if f.topic == REMOTE_METADATA_TOPIC and f.kind == "log"
            and f.leftover is None and f.partition_state is None]
    if not logs:
        return {}
    from .tiered import read_metadata

    out: dict[tuple[str, int], int] = {}
    for m in read_metadata(logs, max_batch_bytes).values():
        if m.state != "COPY_SEGMENT_FINISHED" or m.topic is None or m.partition is None \
                or m.end_offset is None:
            continue
        key = (m.topic, m.partition)
        out[key] = max(out.get(key, -1), m.end_offset)
    return out


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
    metadata, level, meta_problems = _metadata(files, opts.max_batch_bytes)
    rs = ReplicaSet(paths)
    release, release_source = _release(
        opts, level, rs.logdirs.values(),
        any(f.topic == METADATA_TOPIC and f.partition_state is None for f in files))
    resolver = Resolver(overrides=inputs.overrides, metadata=metadata, servers=inputs.servers,
                        timestamp_after_default=HOUR_MS
                        if KafkaVersion.parse(release).at_least("4.0") else LONG_MAX)
    remote = _remote_offsets(files, opts.max_batch_bytes)
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


def _files_bytes(seg: Segment, counted: set[str]) -> tuple[int, int | None]:
    """The segment's .log and index files: (apparent bytes, allocated bytes: None in an
    object store); their paths added to ``counted``."""
    stem = seg.path[: -len(".log")]
    total = seg.size
    disk: int | None = 0
    try:
        disk = kfs.getsizes(seg.path)[1]
    except OSError:
        pass
    counted.add(seg.path)
    for suffix in (".index", ".timeindex", ".txnindex"):
        try:
            size, allocated = kfs.getsizes(stem + suffix)
        except OSError:
            continue
        total += size
        disk = None if disk is None or allocated is None else disk + allocated
        counted.add(stem + suffix)
    return total, disk


def rolled_index_bytes(segment_index_bytes: int) -> int:
    """Apparent bytes of a new segment's ``.index`` and ``.timeindex``: each is created at
    segment.index.bytes rounded down to whole entries (AbstractIndex's constructor:
    ``raf.setLength(roundDownToExactMultiple(maxIndexSize, entrySize))``, 8-byte offset
    entries, 12-byte time entries; Kafka 3.9 and 4.0-4.3 alike).  setLength extends the
    file without writing it: sparse on Linux's filesystems, no block allocated until an
    entry is written, so the disk gives none of it back and takes none of it."""
    return sum(segment_index_bytes // entry * entry for entry in (8, 12))


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
        b, disk = _files_bytes(s, counted)
        pinned = _pinned_by(segs, i, v, problems, opts.max_batch_bytes)
        if pinned is not None and v.reason == "future-timestamp":
            problems.append(_future(s, v, pinned, now))
        _count(tally, b, disk, v, now)
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


def _count(tally: Tally, b: int, disk: int | None, v: Verdict, now: int) -> None:
    """One segment's bytes into its partition's tally: deletable now, within a day, a
    week, or held by its reason; apparent and allocated alike."""
    tally.segments += 1
    tally.bytes += b
    if disk is None:
        tally.blocks_known = False
        disk = 0
    tally.disk = _plus(tally.disk, disk)
    if v.deletable:
        windows = (True, True, True)
    else:
        tally.held[v.reason] = tally.held.get(v.reason, 0) + b
        tally.held_disk[v.reason] = tally.held_disk.get(v.reason, 0) + disk
        at = v.deletable_at
        windows = (False, at is not None and at <= now + DAY_MS,
                   at is not None and at <= now + 7 * DAY_MS)
    if windows[0]:
        tally.now += b
        tally.disk_now = _plus(tally.disk_now, disk)
    if windows[1]:
        tally.day += b
        tally.disk_day = _plus(tally.disk_day, disk)
    if windows[2]:
        tally.week += b
        tally.disk_week = _plus(tally.disk_week, disk)


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
