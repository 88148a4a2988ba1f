"""Log dirs of several brokers: a broker's log dir with its checkpoints and
meta.properties, replicas of one partition, and __consumer_offsets records."""

from __future__ import annotations

import struct
from pathlib import Path

from tests.support.batches import Rec, v2_batch
from tests.support.encoding import NONE, TS0
from tests.support.files import meta_properties, offset_checkpoint
from tests.support.segments import PartitionWriter

# --------------------------------------------------------------------------------------------
# Several brokers: replicas of one partition (compare-replicas, lag, size-report)
# --------------------------------------------------------------------------------------------


def broker_logdir(
    root: Path,
    broker_id: int | None,
    *,
    high_watermarks: list[tuple[str, int, int]] | None = None,
    log_start_offsets: list[tuple[str, int, int]] | None = None,
    cleaner_offsets: list[tuple[str, int, int]] | None = None,
) -> Path:
    """A broker's log dir root: ``meta.properties`` (``broker.id``) and the offset
    checkpoints given (``replication-offset-checkpoint`` = high watermarks)."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    if broker_id is not None:
        (root / "meta.properties").write_bytes(
            meta_properties({"version": "0", "broker.id": str(broker_id),
                             "cluster.id": "kdump-test-cluster"}))
    for name, entries in (("replication-offset-checkpoint", high_watermarks),
                          ("log-start-offset-checkpoint", log_start_offsets),
                          ("cleaner-offset-checkpoint", cleaner_offsets)):
        if entries is not None:
            (root / name).write_bytes(offset_checkpoint(entries))
    return root


def numbered_records(first: int, n: int, *, tag: str = "v", ts0: int = TS0) -> list[Rec]:
    """``n`` records with keys ``k<offset>`` and values ``<tag><offset>``."""
    return [Rec(key=b"k%d" % o, value=(f"{tag}{o}").encode(), timestamp=ts0 + o)
            for o in range(first, first + n)]


def write_replica(
    directory: Path,
    batches: list[bytes],
    *,
    segment_bytes: int = 1 << 30,
    roll_before: set[int] | None = None,
    epochs: list[tuple[int, int]] | None = None,
    write_epochs: bool = True,
) -> PartitionWriter:
    """One replica: the batches appended in order, rolling by ``segment_bytes`` and
    before the batches whose index is in ``roll_before`` (brokers roll at different
    points); the leader-epoch-checkpoint as the appends made it (or ``epochs``)."""
    w = PartitionWriter(Path(directory), segment_bytes=segment_bytes)
    for k, b in enumerate(batches):
        if roll_before and k in roll_before and w.active is not None:
            w.roll()
        w.append(b)
    if write_epochs:
        w.write_leader_epoch_checkpoint(epochs)
    w.close()
    return w


def replica_batches(spans: list[tuple[int, int, int]], *, tag: str = "v",
                    codec: int = NONE) -> list[bytes]:
    """v2 batches from ``(base offset, records, partition leader epoch)`` spans."""
    return [v2_batch(numbered_records(base, n, tag=tag), base_offset=base,
                     partition_leader_epoch=epoch, codec=codec) for base, n, epoch in spans]


def replicas_pair(path: Path, target_bytes: int, *, diverge_tail: int = 10,
                  records_per_batch: int = 100, value_size: int = 60) -> None:
    """Two brokers' log dirs (``path/broker-1``, ``path/broker-2``) of one partition
    ``bench-0`` of about ``target_bytes`` each: the same batches (epoch 0) up to the last
    ``diverge_tail`` batches, which differ (broker 2: a new leader, epoch 1).  Streamed,
    one batch in memory."""
    alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789"
    pattern = alphabet * (value_size // len(alphabet) + 2)
    one = v2_batch([Rec(key=b"k0", value=pattern[:value_size], timestamp=TS0)] *
                   records_per_batch)
    n_batches = max(diverge_tail + 1, target_bytes // len(one))
    writers = []
    for broker in (1, 2):
        root = broker_logdir(path / f"broker-{broker}", broker)
        writers.append(PartitionWriter(root / "bench-0"))
    offset = 0
    for k in range(n_batches):
        tail = k >= n_batches - diverge_tail
        common = None
        for j, w in enumerate(writers):
            if common is None or tail:
                recs = []
                for i in range(records_per_batch):
                    o = offset + i
                    start = (o + (j if tail else 0)) % len(alphabet)
                    recs.append(Rec(key=b"k%d" % o, value=pattern[start : start + value_size],
                                    timestamp=TS0 + o))
                common = v2_batch(recs, base_offset=offset,
                                  partition_leader_epoch=(j if tail else 0))
            w.append(common)
        offset += records_per_batch
    for w in writers:
        w.write_leader_epoch_checkpoint()
        w.close()


def _kstr(text: str) -> bytes:
    b = text.encode()
    return struct.pack(">h", len(b)) + b


def offset_commit_key(group: str, topic: str, partition: int) -> bytes:
    """__consumer_offsets OffsetCommitKey (key version 1), FORMATS.md §12.2."""
    return struct.pack(">h", 1) + _kstr(group) + _kstr(topic) + struct.pack(">i", partition)


def offset_commit_value_v3(offset: int, ts: int, metadata: str = "", epoch: int = -1) -> bytes:
    """OffsetCommitValue version 3: offset, leaderEpoch, metadata, commitTimestamp."""
    return struct.pack(">hqi", 3, offset, epoch) + _kstr(metadata) + struct.pack(">q", ts)
