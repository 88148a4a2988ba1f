"""Is a topic compacted?  The one decider every command asks (:func:`cleanup_of`).

Compaction is the only thing that removes offsets from the middle of a log
(LogCleaner.cleanSegments; never the active segment: LogCleanerManager bounds the
cleanable range by its base offset).  So a gap of offsets is the cleaner's in a
compacted topic (information) and lost data in a delete-policy one.  What says a
topic's ``cleanup.policy``, strongest first: ``--config TOPIC:cleanup.policy=...``; the
KRaft metadata's ConfigRecords among the inputs (both through
:class:`kdump.ops.topics.config.Resolver`, as a broker resolves a topic's config); a
cleaner-offset-checkpoint entry for the partition (the cleaner checkpoints only the
logs it compacted: LogCleanerManager.updateCheckpoints); the configs Kafka creates its
own topics with (GroupCoordinator, TransactionStateManager: ``compact``); Kafka's
default ``delete`` (``known`` False: a compacted override kept elsewhere is possible).
A topic not compacted now that the KRaft metadata's history
(:attr:`kdump.ops.topics.config.MetadataConfigs.policy_history`) says was compacted
before carries that compact period and when it ended (``Cleanup.history``,
``compact_until``): the gaps the cleaner left in the segments it had closed by then are
its own (:meth:`kdump.ops.verdict.witnesses.PartitionWitnesses.lost_ranges`).

:class:`CleanupPolicies` holds what a command was given (``--config``, the metadata);
:func:`log_cleanup` is the same decision for one log when a command was given none (its
own log dir's KRaft metadata read once); :func:`gap_entry_problem` says a time index
entry in a gap of offsets with it (dump and verify-index).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from ... import fs as kfs
from ...errors import KdumpError
from ...files.logdir import parse_partition_dir
from ...files.text import checkpoint_value
from ...findings import INFO, WARNING, Problem

#: Kafka's own topics created with cleanup.policy=compact (GroupCoordinator,
#: TransactionStateManager, the schema registry's `_schemas`), compacted when nothing
#: else says
COMPACTED_INTERNAL = ("__consumer_offsets", "__transaction_state", "_schemas")

@dataclass(frozen=True, slots=True)
class Cleanup:
    """A topic's cleanup policy as judged: ``compacted``; ``source``, where that came
    from (``--config``/the KRaft metadata's words, ``cleaner-offset-checkpoint``,
    ``Kafka's own topic``, ``Kafka's default``); ``known``: something beyond Kafka's
    default says it (a compacted override kept elsewhere is then still possible)."""

    compacted: bool
    source: str
    known: bool
    #: a topic not compacted now that the KRaft metadata's history says was compacted
    #: before: the words of its last compact period (``compact from ConfigRecord at offset
    #: 3 until 2026-...Z, when ConfigRecord at offset 12 set cleanup.policy=delete``);
    #: None: compacted now, or no compact period known
    history: str | None = None
    #: when that compact period ended: the time of the record that ended it (epoch ms,
    #: the active controller's clock; None: not known) and its offset
    compact_until: int | None = None
    compact_until_offset: int | None = None
    #: where a compact period may still be found, for a topic not compacted now that
    #: the history read so far says nothing of: the KRaft metadata whose whole history
    #: (the log before its newest snapshot) is not read yet, and the topic.  A gap that
    #: would be lost asks (:meth:`deepened`); a clean partition costs no replay
    deeper: tuple[Any, str] | None = field(default=None, compare=False, repr=False)

    def deepened(self) -> Cleanup | None:
        """The compact period the whole history holds (:func:`compact_period` with
        ``deeper``; replayed once per metadata log), or None."""
        if self.deeper is None:
            return None
        metadata, topic = self.deeper
        return compact_period(metadata, topic, deeper=True)


def cleanup_of(directory: str, topic: str, partition: int,
               policies: CleanupPolicies | None = None) -> Cleanup:
    """The cleanup policy of ``topic`` for the partition directory ``directory``:
    ``policies`` (``--config``, the KRaft metadata), else Kafka's own topics, else a
    cleaner-offset-checkpoint entry (LogCleanerManager checkpoints only compacted logs),
    else Kafka's default ``delete`` (not known)."""
    if policies is not None:
        try:
            s = policies.resolver.topic(topic, None)["cleanup.policy"]
            value = s.value if isinstance(s.value, list) else [str(s.value)]
            source = str(s.source)
        except (KdumpError, KeyError, ValueError):  # a bad value: Kafka's default
            value, source = ["delete"], "default"
        if "compact" in value:
            return Cleanup(True, f"cleanup.policy={','.join(value)}, {source}", True)
        metadata = policies.metadata
        ended = compact_period(metadata, topic)
        checkpointed = compacted_by_cleaner(directory, topic, partition)
        if ended is None and checkpointed:
            # the cleaner compacted a topic not compacted now: when it stopped, the
            # whole history says (the log before the newest snapshot read for it)
            ended = compact_period(metadata, topic, deeper=True)
        if ended is not None:
            # before the cleaner-offset-checkpoint: its entry outlives a switch to delete
            # (LogCleanerManager.updateCheckpoints drops a partition's entry only when its
            # log is deleted or moved: LogManager, 3.9-4.4)
            return replace(ended, source=f"cleanup.policy={','.join(value)}, {source}; "
                           f"{ended.history}")
        if checkpointed:
            return Cleanup(True, "cleaner-offset-checkpoint names it", True)
        known = metadata is not None or not source.startswith("default") \
            or _cleaner_checkpoint_beside(directory)
        deeper = (metadata, topic) if getattr(metadata, "deeper_history", None) is not None \
            else None
        return Cleanup(False, f"cleanup.policy={','.join(value)}, {source}", known,
                       deeper=deeper)
    if topic in COMPACTED_INTERNAL:
        return Cleanup(True, "cleanup.policy=compact, Kafka's own topic", True)
    if compacted_by_cleaner(directory, topic, partition):
        return Cleanup(True, "cleaner-offset-checkpoint names it", True)
    if topic == "__cluster_metadata":
        return Cleanup(False, "the KRaft metadata log (never cleaned)", True)
    if _cleaner_checkpoint_beside(directory):
        return Cleanup(False, "cleanup.policy=delete: the log dir's cleaner-offset-checkpoint "
                       "does not name it (the cleaner never compacted it)", True)
    return Cleanup(False, "cleanup.policy=delete, Kafka's default", False)


def compact_period(metadata: Any, topic: str, deeper: bool = False) -> Cleanup | None:
    """A topic the KRaft metadata's history (``metadata``, a
    :class:`kdump.ops.topics.config.MetadataConfigs`; None: none read) says was compacted
    and is not now: its last compact period, as a :class:`Cleanup` (source to be
    filled); ``deeper``: in the whole history.  After the switch the log cleaner takes
    the log no more (LogCleanerManager.grabFilthiestCompactedLog picks only logs whose
    config is compact, 3.9-4.4), so the gaps it left are in the segments it had cleaned
    by then."""
    ended = metadata.compaction_ended(topic, deeper) if metadata is not None else None
    if ended is None:
        return None
    began, end = ended
    setting = ("removed cleanup.policy (Kafka's default delete)" if end.removed
               else f"set cleanup.policy={end.value}")
    words = f"compact from {began.where} until {end.when}, when {end.where} {setting}"
    at = end.timestamp if end.timestamp is not None and end.timestamp >= 0 else None
    return Cleanup(False, "", True, words, at, end.offset)


def _cleaner_checkpoint_beside(directory: str) -> bool:
    """The partition's log dir holds a cleaner-offset-checkpoint: the log cleaner (on by
    default) creates it at start-up (CheckpointFile creates a missing file) and keeps an
    entry for every log it has cleaned while that log lives (LogCleanerManager
    .updateCheckpoints), so one that does not name a partition says the cleaner never
    compacted it."""
    if kfs.is_url(directory):
        return False
    return os.path.isfile(os.path.join(kfs.dirname(kfs.abspath(directory)),
                                       "cleaner-offset-checkpoint"))


def compacted_by_cleaner(partition_dir: str, topic: str, partition: int) -> bool:
    """Does the log dir's cleaner-offset-checkpoint hold the partition?  The log cleaner
    checkpoints only the logs it cleans, compacted ones (LogCleanerManager.updateCheckpoints,
    called from LogCleaner.cleanLog)."""
    return checkpoint_value(partition_dir, "cleaner-offset-checkpoint", topic, partition) \
        is not None


class CleanupPolicies:
    """Is a topic compacted?  Its ``cleanup.policy`` as a broker resolves it
    (:class:`kdump.ops.topics.config.Resolver`: ``--config``, the KRaft metadata's
    ConfigRecords, the configs Kafka creates its own topics with, Kafka's default
    ``delete``), or a cleaner-offset-checkpoint entry for the partition (the cleaner has
    compacted it).  ``metadata``: the dynamic configs of a ``__cluster_metadata``
    replica among the inputs (None: none read)."""

    def __init__(self, overrides: Iterable[tuple[str, str, str]] = (),
                 metadata: Any = None) -> None:
        from ..topics.config import Resolver

        self.resolver = Resolver(overrides=overrides, metadata=metadata)
        self.metadata = metadata

    @classmethod
    def for_inputs(cls, paths: list[str], overrides: Iterable[str] = (),
                   max_batch_bytes: int | None = None) -> CleanupPolicies | None:
        """From ``--config TOPIC:cleanup.policy=VALUE`` (``overrides``, checked as a
        broker checks the value: a UsageError naming a bad one) and the topic configs of
        a ``__cluster_metadata`` replica among the inputs (a log dir given, or one of
        the log dirs in a folder given); None when there is neither."""
        parsed = check_overrides(overrides)
        dirs = _metadata_dirs(paths)
        metadata = None
        if dirs:
            from ...files.logdir import KafkaFile
            from ...records.v2 import DEFAULT_MAX_BATCH_BYTES
            from ..topics.evidence import METADATA_TOPIC, read_metadata

            metadata, _level, _problems = read_metadata(
                [KafkaFile(os.path.join(d, "00000000000000000000.log"), "log",
                           topic=METADATA_TOPIC, partition=0) for d in dirs],
                max_batch_bytes or DEFAULT_MAX_BATCH_BYTES)
        if not parsed and metadata is None:
            return None
        return cls(parsed, metadata)

    def compacted(self, partition_dir: str, topic: str, partition: int) -> bool:
        """:func:`cleanup_of` under these policies: is the partition compacted?"""
        return cleanup_of(partition_dir, topic, partition, self).compacted


def check_overrides(overrides: Iterable[str]) -> list[tuple[str, str, str]]:
    """``--config TOPIC:cleanup.policy=VALUE`` parsed and checked as a broker checks the
    value (topic, key, value); a UsageError names a bad one."""
    from ...errors import UsageError
    from ..topics.config import parse_override

    parsed = [parse_override(o) for o in overrides]
    for topic, key, _value in parsed:
        if key != "cleanup.policy":
            raise UsageError(f"--config {topic}:{key}: only cleanup.policy is read here")
    return parsed


def _metadata_dirs(paths: list[str]) -> list[str]:
    """The ``__cluster_metadata-0`` directories of the local inputs: one given, or in a
    log dir given, or in the log dirs of a folder given."""
    out: list[str] = []
    for p in paths:
        if "://" in p or not os.path.isdir(p):
            continue
        name = os.path.basename(os.path.normpath(p))
        cands = [p] if name == "__cluster_metadata-0" else [os.path.join(p, "__cluster_metadata-0")]
        if name != "__cluster_metadata-0":
            try:
                cands += [os.path.join(p, n, "__cluster_metadata-0") for n in kfs.listdir(p)]
            except OSError:
                pass
        out += [c for c in cands if os.path.isdir(c) and c not in out]
    return out


@lru_cache(maxsize=16)
def _log_dir_policies(log_dir: str, max_batch_bytes: int) -> CleanupPolicies:
    """The policies of the KRaft metadata in ``log_dir`` itself (none read: Kafka's
    defaults), read once per log dir; a metadata log that cannot be read explains
    nothing (never an error here)."""
    metadata = None
    meta_dir = f"{log_dir.rstrip('/') or '/'}/__cluster_metadata-0"
    try:
        present = kfs.isdir(meta_dir)
    except OSError:
        present = False
    if present:
        from ...files.logdir import walk
        from ..topics.evidence import read_metadata  # the replay retention reads configs with

        files = [f for f in walk([meta_dir]) if not isinstance(f, Problem)]
        try:
            metadata = read_metadata(files, max_batch_bytes)[0]
        except (KdumpError, OSError):
            metadata = None
    return CleanupPolicies((), metadata)


def log_dir_policies(log_path: str, max_batch_bytes: int | None = None) -> CleanupPolicies:
    """The policies of the KRaft metadata in the log dir of the log ``log_path`` (its
    partition directory's parent), read once per log dir: for a command that reads one
    log at a time and is given no ``--config`` (dump)."""
    from ...records.v2 import DEFAULT_MAX_BATCH_BYTES

    # absolute: the cache outlives a change of working directory (a library caller's,
    # the tests'), and "." is not one log dir for all of them
    directory = kfs.abspath(kfs.dirname(log_path).rstrip("/") or ".")
    return _log_dir_policies(kfs.dirname(directory) or directory,
                             max_batch_bytes or DEFAULT_MAX_BATCH_BYTES)


def log_cleanup(log_path: str, topic: str, policies: CleanupPolicies | None = None,
                max_batch_bytes: int | None = None) -> Cleanup:
    """:func:`cleanup_of` for the partition holding ``log_path``; without ``policies``
    (a command given no ``--config`` and no metadata) :func:`log_dir_policies`."""
    directory = kfs.dirname(log_path).rstrip("/") or "."
    part = parse_partition_dir(os.path.basename(directory))
    partition = part.partition if part is not None else -1
    if policies is None:
        policies = log_dir_policies(log_path, max_batch_bytes)
    return cleanup_of(directory, topic, partition, policies)


def gap_entry_problem(path: str, where: int, slot: int, offset: int, first: int, last: int,
                      log_path: str, topic: str | None, max_batch_bytes: int,
                      policies: CleanupPolicies | None = None) -> Problem:
    """A time index entry whose ``offset`` lies in the gap of offsets before the batch
    ``first``-``last``: compaction's only in a compacted topic (INFO), otherwise an offset
    the log lost (an error, as any entry naming an offset in no batch; a warning when
    nothing but Kafka's default says the policy).  dump and verify-index both say it with
    these words, judged by :func:`log_cleanup`."""
    c = (log_cleanup(log_path, topic, policies, max_batch_bytes) if topic
         else Cleanup(False, "cleanup.policy unknown: no topic", False))
    extra = {"check": "compacted-away" if c.compacted else "offset-not-found",
             "index_offset": offset, "log_offset": last}
    if c.compacted:
        return Problem(path, where, "index-mismatch",
                       f"entry {slot}: offset {offset} was removed by compaction ({c.source}); "
                       f"lookups scan forward to the next batch (offsets {first}-{last})",
                       severity=INFO, extra=extra)
    missing = (f"entry {slot}: offset {offset} is in no batch: offsets before the batch "
               f"{first}-{last} are missing from the log; ")
    if c.known:
        return Problem(path, where, "index-mismatch",
                       missing + f"not compaction's doing ({c.source}): lost (the log's own "
                       "findings say where it is damaged)", extra=extra)
    # nothing here says the policy: the topic may be compacted by an override kept
    # elsewhere; neither compaction nor loss is proven
    return Problem(path, where, "index-mismatch",
                   missing + f"compaction removes offsets only in a compacted topic, and "
                   f"nothing here says this one is ({c.source}; no KRaft metadata in this log "
                   "dir): lost unless the topic is compacted", severity=WARNING, extra=extra)


__all__ = ["COMPACTED_INTERNAL", "Cleanup", "CleanupPolicies", "check_overrides", "cleanup_of",
           "compacted_by_cleaner", "gap_entry_problem", "log_cleanup", "log_dir_policies"]
