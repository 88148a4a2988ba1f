"""What the inputs say beside the segments, for ``kdump retention``: the dynamic configs
and metadata.version of the KRaft log among them (:func:`read_metadata`), the release
whose rules apply and why (:func:`release_of`), and the offsets copied to remote
storage (:func:`remote_offsets`)."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from typing import Any

from ... import fs as kfs
from ...decoders.release import LAST_ZOOKEEPER_RELEASE
from ...errors import KdumpError
from ...files.logdir import KafkaFile
from ...findings import Problem
from ...protocol.definitions import RELEASES
from ..compare_replicas.logdirs import LogDir
from .config import MetadataConfigs, PolicyChange

#: ConfigResource.Type.TOPIC's code in a ConfigRecord's resourceType
TOPIC_RESOURCE = 2

#: the release whose rules apply when nothing says which (the newest kdump knows)
NEWEST = RELEASES[-1]
METADATA_TOPIC = "__cluster_metadata"
REMOTE_METADATA_TOPIC = "__remote_log_metadata"


def read_metadata(files: list[KafkaFile], max_batch_bytes: int
              ) -> tuple[MetadataConfigs | None, int | None, list[Problem]]:
    """The dynamic configs of the fullest ``__cluster_metadata`` replica among the
    inputs, where each was set, each topic's ``cleanup.policy`` history
    (``MetadataConfigs.policy_history``), and its metadata.version."""
    from ...metadata import find_sources

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
        # as a broker loads it: the newest snapshot, then the log; the history of the
        # topics' cleanup.policy from there, and the whole of it (the log before that
        # snapshot, when there is one) only when a gap asks (MetadataConfigs.deeper_history)
        r, where, history = _replay(sources, max_batch_bytes, False)
        deeper = functools.partial(deeper_history, sources, max_batch_bytes, _failures(r),
                                   history) if sources.segments and sources.snapshots else None
        if best is None or (r.offset or -1) > (best[0].offset or -1):
            best = (r, where, d, history, deeper)
    if best is None:
        return None, None, problems
    r, where, d, history, deeper = best
    from ..replica_groups import log_dir_identity

    assignments: dict[tuple[str, int], list[int]] = {}
    placements: dict[tuple[str, int], dict[str, Any]] = {}
    for key, obj in r.image.objects.items():
        if key[0] == "partition" and obj is not None:  # PartitionRecord, its changes
            tp = (str(obj["topic"]), int(obj["partition"]))
            assignments[tp] = [int(b) for b in obj["replicas"]]
            placements[tp] = {k: obj.get(k) for k in (
                "replicas", "isr", "leader", "leader_epoch", "directories",
                "adding_replicas", "removing_replicas")}
    cfg = MetadataConfigs(source=f"{d} (to offset {r.offset})", assignments=assignments,
                          placements=placements,
                          cluster_id=log_dir_identity(kfs.dirname(d)).cluster_id,
                          policy_history=history, deeper_history=deeper)
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


def _replay(sources: Any, max_batch_bytes: int, earliest: bool
            ) -> tuple[Any, dict[tuple[Any, ...], str], dict[str, list[PolicyChange]]]:
    """One replay of a metadata log: the replay, where each config was last set, and each
    topic's ``cleanup.policy`` settings in order."""
    from ...metadata import Replay

    where: dict[tuple[Any, ...], str] = {}
    history: dict[str, list[PolicyChange]] = {}

    def on_event(ev: Any) -> None:
        for c in ev.changes:
            if c.key[0] == "config":
                at = ev.committed_at if ev.committed_at is not None else ev.offset
                where[c.key] = ("ConfigRecord in the snapshot" if at is None
                                else f"ConfigRecord at offset {at}")
                if c.key[1] == TOPIC_RESOURCE and c.key[3] == "cleanup.policy":
                    history.setdefault(str(c.key[2]), []).append(_policy_change(
                        c.after, at, None if at is None else ev.timestamp, ev.record_type))

    r = Replay(sources, on_event=on_event, max_batch_bytes=max_batch_bytes,
               earliest=earliest).run()
    return r, where, history


def deeper_history(sources: Any, max_batch_bytes: int, failures: int,
                   history: dict[str, list[PolicyChange]]) -> dict[str, list[PolicyChange]]:
    """Each topic's ``cleanup.policy`` history from the earliest point the metadata log's
    files allow (the log from offset 0, else the earliest snapshot it continues from),
    for a gap the newest snapshot's history does not explain.  A log damaged before the
    newest snapshot (its replay from there finds more gaps or failures than the one from
    the snapshot, ``failures``) adds nothing: ``history``, the snapshot's, stands."""
    r, _where, whole = _replay(sources, max_batch_bytes, True)
    return history if _failures(r) > failures else whole


def _failures(r: Any) -> int:
    """How damaged a replay's log read: its gaps and its failing findings."""
    return len(r.gaps) + sum(1 for p in r.problems if p.is_failure)


def _policy_change(after: dict[str, Any] | None, offset: int | None, timestamp: int | None,
                   record_type: str) -> PolicyChange:
    """A ``cleanup.policy`` change of the replay: ``after`` the config object (None: the
    key removed, Kafka's default ``delete`` applies)."""
    record = "".join(w.capitalize() for w in str(record_type).split("_"))
    value = None if after is None else after.get("value")
    if value is None:
        return PolicyChange("delete", offset, timestamp, record, removed=True)
    return PolicyChange(str(value), offset, timestamp, record)


#: the last release with ZooKeeper mode (4.0 removed it: KIP-500); a ZooKeeper-era log
#: dir is judged by its rules (one fact: the decoders' release evidence says it too)
LAST_ZOOKEEPER = LAST_ZOOKEEPER_RELEASE


def release_of(kafka_version: str | None, level: int | None, logdirs: Iterable[LogDir],
             metadata_seen: bool) -> tuple[str, str]:
    """The release whose rules apply and why, from the evidence, strongest first:
    ``--kafka-version``; the metadata.version of the KRaft log among the inputs; a log
    dir's bootstrap.checkpoint; meta.properties version 0 with no directory.id in every
    log dir (a ZooKeeper-mode broker's: 3.x at the latest); else the newest, assumed."""
    from ...decoders.release import metadata_version_in, release_of_metadata_version
    from ...protocol.messages import SchemaError

    if kafka_version:
        return kafka_version, "--kafka-version"
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


def remote_offsets(files: list[KafkaFile], max_batch_bytes: int) -> dict[tuple[str, int], int]:
    """(topic, partition) -> the highest end offset __remote_log_metadata says was copied
    (its last event COPY_SEGMENT_FINISHED)."""
    logs = [f for f in files if f.topic == REMOTE_METADATA_TOPIC and f.kind == "log"
            and f.leftover is None and f.partition_state is None]
    if not logs:
        return {}
    from ..tiered import read_metadata

    out: dict[tuple[str, int], int] = {}
    for m in read_metadata(logs, max_batch_bytes).values():
        if m.state != "COPY_SEGMENT_FINISHED" or m.topic is None or m.partition is None \
                or m.end_offset is None:
            continue
        key = (m.topic, m.partition)
        out[key] = max(out.get(key, -1), m.end_offset)
    return out


__all__ = ["LAST_ZOOKEEPER", "METADATA_TOPIC", "NEWEST", "REMOTE_METADATA_TOPIC", "read_metadata",
           "release_of", "remote_offsets"]
