"""A partition's topic id, for a partition directory ``kdump repair`` recreates.

A partition directory gone while its log dir's checkpoints still name it is recreated
as an empty log at its old end (:mod:`.partition`), and only with its
``partition.metadata``: a KRaft broker treats a log with no topic id as a stray
replica (``LogManager.isStrayKraftReplica``, Kafka 4.1: "Missing topic ID ... we can
treat this as a stray log"), renames it ``-stray`` (``LogManager.handleStrayLogs``) and
creates the partition afresh at offset 0 (``LogManager.getOrCreateLog``), handing the
lost offsets out a second time.  The topic id is taken, first found, from:

* the KRaft metadata among the inputs (a ``__cluster_metadata-0`` replica of a log dir
  given): the image's topic of that name (``TopicRecord``);
* another partition directory of the topic in a log dir of the same cluster (the input
  log dirs, the ``--replica`` log dirs): its ``partition.metadata`` (a topic id is the
  topic's, every partition's the same: ``PartitionMetadataFile``).

A ZooKeeper-era log dir (:func:`zookeeper_era`) needs none: its broker takes the topic id
from the controller, so the directory is recreated without one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ... import layouts as L
from ...errors import KdumpError
from ...files.logdir import parse_partition_dir
from ...files.text import read_partition_metadata
from ...model import shape
from ...source import FileSource
from ..replica_groups import log_dir_identity
from .kafka_model import kafka_recovery
from .logdir import CHECKPOINTS, LogDirContext
from .plan import PartitionInput

METADATA_DIR = "__cluster_metadata-0"


@dataclass(slots=True)
class TopicIds:
    """Topic ids by name, read once per run from the log dirs given."""

    #: log dirs whose partition directories may name a topic id
    log_dirs: list[str]
    max_batch_bytes: int
    _metadata: dict[str, str] | None = None
    _where: str = ""
    _read: bool = False
    _cache: dict[tuple[str, str | None], tuple[str, str] | None] = field(default_factory=dict)
    #: called with a file before it is read (the run hashes it: it is evidence used)
    on_read: Callable[[str], None] | None = None

    def _image(self) -> dict[str, str]:
        """The topic ids of the fullest ``__cluster_metadata-0`` among the log dirs."""
        if self._read:
            return self._metadata or {}
        self._read = True
        from ...metadata.replay import Replay, find_sources

        best: tuple[int, dict[str, str], str] | None = None
        for ld in self.log_dirs:
            d = os.path.join(ld, METADATA_DIR)
            if not os.path.isdir(d):
                continue
            try:
                r = Replay(find_sources(d), max_batch_bytes=self.max_batch_bytes).run()
            except KdumpError:
                continue
            end = r.offset if r.offset is not None else -1
            if best is None or end > best[0]:
                best = (end, dict(r.image.topic_ids), d)
        if best is not None:
            self._metadata, self._where = best[1], best[2]
        return self._metadata or {}

    def find(self, topic: str, log_dir: str) -> tuple[str, str] | None:
        """``topic``'s id and where it was read (in words), for a partition of the log dir
        ``log_dir``; None when nothing given says it."""
        cluster = log_dir_identity(log_dir).cluster_id
        key = (topic, cluster)
        if key in self._cache:
            return self._cache[key]
        found: tuple[str, str] | None = None
        tid = self._image().get(topic)
        if tid is not None:
            found = (tid, f"the KRaft metadata ({self._where}): TopicRecord {topic}")
        else:
            for ld in [log_dir, *(x for x in self.log_dirs if x != log_dir)]:
                if ld != log_dir and (cluster is None or log_dir_identity(ld).cluster_id != cluster):
                    continue  # another cluster's topic of that name is another topic
                found = _from_partition_metadata(ld, topic, self.on_read)
                if found is not None:
                    break
        self._cache[key] = found
        return found


def zookeeper_era(log_dir: str) -> bool:
    """A ZooKeeper-mode broker's log dir: meta.properties version 0, naming ``broker.id``
    with no ``node.id`` nor ``directory.id`` (a 3.7+ broker writes one: KIP-858), and no
    KRaft metadata (``__cluster_metadata-0``, ``bootstrap.checkpoint``) beside it.  Such
    a broker accepts a log with no topic id and takes the id from the controller's
    LeaderAndIsrRequest (ReplicaManager.becomeLeaderOrFollower: hasConsistentTopicId;
    UnifiedLog.assignTopicId, 3.9); brokers before 2.8 wrote no partition.metadata at
    all."""
    from ...files.text import read_properties

    if os.path.exists(os.path.join(log_dir, METADATA_DIR)) or \
            os.path.exists(os.path.join(log_dir, "bootstrap.checkpoint")):
        return False
    try:
        with FileSource(os.path.join(log_dir, "meta.properties")) as src:
            props = read_properties(src)
    except KdumpError:
        return False
    return props.get("version") == "0" and "broker.id" in props and \
        "node.id" not in props and "directory.id" not in props


def _from_partition_metadata(log_dir: str, topic: str,
                             on_read: Callable[[str], None] | None = None
                             ) -> tuple[str, str] | None:
    try:
        names = sorted(os.listdir(log_dir))
    except OSError:
        return None
    for name in names:
        part = parse_partition_dir(name)
        if part is None or part.topic != topic or part.state is not None:
            continue
        path = os.path.join(log_dir, name, "partition.metadata")
        if not os.path.isfile(path):
            continue
        if on_read is not None:
            on_read(path)
        try:
            with FileSource(path) as src:
                tid = read_partition_metadata(src).get("topic_id")
        except KdumpError:
            continue
        if tid:
            return str(tid), f"{path}"
    return None


def partition_metadata_bytes(topic_id: str) -> bytes:
    """``partition.metadata`` as Kafka writes it: ``version: 0``, a line feed,
    ``topic_id: <id>`` and no line feed after it (PartitionMetadata.encode, 4.1)."""
    return f"version: 0\ntopic_id: {topic_id}".encode()


def not_recreated(pin: PartitionInput, ctx: LogDirContext | None,
                  interval_option: int | None) -> dict[str, Any]:
    """The ``repair_partition`` of a gone partition directory whose topic id nothing
    given says: not recreated (a KRaft broker takes a log with no topic id for a stray
    and starts the partition again at offset 0: LogManager.isStrayKraftReplica,
    getOrCreateLog), its lost range named, its checkpoint entries kept as they were (the
    copy's log dir says what the input's said: verify-crc and verify-index on it name the
    same loss)."""
    m = pin.missing
    assert m is not None and m.lost is not None
    topic, partition = pin.name.topic, pin.name.partition
    checkpoints: dict[str, list[int | None]] = {}
    if ctx is not None:
        for kind, name in CHECKPOINTS:
            v = ctx.value(kind, topic, partition)
            if v is not None:
                checkpoints[name] = [v, v]
    first, last = m.lost.first, m.lost.last
    gone = (f"the KRaft metadata assigns {topic}-{partition} to this broker, with no directory "
            "here" if pin.absent is not None else f"the partition directory {topic}-{partition} "
            "is gone while the log dir's checkpoints name it")
    note = (f"{gone}: offsets {first}-{last} were written "
            f"({m.lost.witnesses_text}) and are lost. Not recreated: "
            "its topic id is unknown (no KRaft metadata among the inputs names the topic, "
            "and no partition.metadata of it in a log dir of the cluster: give the log dir "
            "holding __cluster_metadata-0, or another broker's log dir with --replica). "
            "Without partition.metadata a KRaft broker takes the log for a stray "
            "(LogManager.isStrayKraftReplica) and, like a broker given no directory, "
            "creates the partition again at offset 0 (LogManager.getOrCreateLog), handing "
            "these offsets out a second time; the copy's checkpoints keep its entries as "
            "they were, so the loss stays on record")
    kafka = kafka_recovery([], clean_shutdown=False, recovery_point=0, log_start=0,
                           assumed="the partition directory is gone")
    return shape("repair_partition", {
        "log_dir": pin.log_dir, "topic": topic, "partition": partition,
        "input": pin.path, "output": None, "segments": 0, "batches": 0,
        "records": 0, "bytes": 0, "first_offset": None, "log_end_offset": m.highest_written,
        "input_log_end_offset": None, "regions_dropped": 0, "bytes_dropped": 0,
        "data_lost": True, "lost_offsets": [[first, last]], "reserved_offsets": None,
        "witnesses": [f"{w.label} ({w.path})" for w in m.lost.witnesses],
        "filled_offsets": [], "index_interval_bytes": interval_option or
        L.DEFAULT_INDEX_INTERVAL_BYTES, "index_interval_from": "nothing written",
        "leader_epochs": [], "producer_snapshots": {"kept": [], "left_out": []},
        "checkpoints": checkpoints, "kafka": kafka.to_json(), "saved_batches": 0,
        "saved_records": 0, "saved_bytes": 0, "notes": [note]})


__all__ = ["TopicIds", "not_recreated", "partition_metadata_bytes", "zookeeper_era"]
