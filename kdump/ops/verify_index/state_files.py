"""A partition's state files against its batches: ``.txnindex`` rebuilt from the
transaction markers (ProducerStateManager.lastStableOffset gives each entry's LSO),
producer ``.snapshot`` files (each producer's epoch, last sequence and last offset against
its last batch before the snapshot offset), ``leader-epoch-checkpoint`` (LogSegment.recover
assigns an epoch at the first batch that raises it; compared from the log start offset
on, as the broker loads it).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from ... import layouts as L
from ...errors import KdumpError
from ...files.logdir import KafkaFile
from ...files.snapshot import ProducerSnapshot, read_producer_snapshot
from ...files.text import checkpoint_value, read_checkpoint
from ...files.txnindex import AbortedTxn, read_txn_index
from ...findings import ERROR, WARNING, Problem
from ...source import FileSource
from .options import PartitionPass, Segment, VerifyIndexOptions


def check_txn_index(
    seg: Segment, end: int | None, pp: PartitionPass, opts: VerifyIndexOptions
) -> Iterator[Problem]:
    """Compare a segment's .txnindex with the aborted transactions whose ABORT marker
    lies in ``[seg.base, end)``."""
    expected = sorted(
        (t for marker, ts in pp.aborted.items() for t in ts
         if marker >= seg.base and (end is None or marker < end)),
        key=lambda t: t[2],
    )
    if opts.rebuild_into and seg.log is not None and (expected or seg.txn_index is not None):
        from ..rebuild import write_rebuilt_txn

        write_rebuilt_txn(opts.rebuild_into, seg.log.path, seg.base, expected)
    # the entries whose marker the log has, by marker offset (the last one of each wins);
    # the others are reported in a second pass over the file, so memory follows the log,
    # not a (possibly huge, hostile) .txnindex
    markers = {t[2] for t in expected}
    have: dict[int, AbortedTxn] = {}
    if seg.txn_index is not None:
        try:
            with FileSource(seg.txn_index.path) as src:
                for txn in read_txn_index(src):
                    if txn.last_offset in markers:
                        have[txn.last_offset] = txn
        except KdumpError:
            return
    path = seg.txn_index.path if seg.txn_index is not None else (seg.log.path if seg.log else "")
    for pid, first, last, lso in expected:
        t = have.get(last)
        if t is None:
            yield Problem(path, None, "txn-index",
                          f"aborted transaction of producer {pid} (ABORT marker at offset {last}) "
                          "is missing from the transaction index")
            continue
        diffs = []
        if t.producer_id != pid:
            diffs.append(f"producer {t.producer_id}, the marker's is {pid}")
        if first >= 0 and t.first_offset != first:
            diffs.append(f"first offset {t.first_offset}, the log says {first}")
        if t.last_stable_offset != lso:
            diffs.append(f"last stable offset {t.last_stable_offset}, the log says {lso}")
        if diffs:
            yield Problem(path, t.position, "txn-index",
                          f"entry {t.slot} (marker at offset {last}): " + "; ".join(diffs),
                          severity=WARNING if t.producer_id == pid else ERROR)
    if seg.txn_index is None:
        return
    try:
        with FileSource(seg.txn_index.path) as src:
            for txn in read_txn_index(src):
                if txn.last_offset not in markers:
                    yield Problem(path, txn.position, "txn-index",
                                  f"entry {txn.slot}: no ABORT marker of producer "
                                  f"{txn.producer_id} at offset {txn.last_offset} in this segment")
    except KdumpError:
        return


def check_snapshot(f: KafkaFile, pp: PartitionPass) -> Iterator[Problem]:
    try:
        with FileSource(f.path) as src:
            snap = read_producer_snapshot(src)
    except KdumpError as err:
        yield Problem(f.path, err.position, "snapshot-corrupt", err.message)
        return
    if not snap.crc_valid:
        yield Problem(f.path, 2, "snapshot-crc",
                      f"stored CRC-32C {snap.crc} does not match the computed {snap.computed_crc}")
        return
    yield from _compare_snapshot(snap, pp)


def snapshot_sanity(f: KafkaFile) -> Iterator[Problem]:
    try:
        with FileSource(f.path) as src:
            snap = read_producer_snapshot(src)
    except KdumpError as err:
        yield Problem(f.path, err.position, "snapshot-corrupt", err.message)
        return
    if not snap.crc_valid:
        yield Problem(f.path, 2, "snapshot-crc",
                      f"stored CRC-32C {snap.crc} does not match the computed {snap.computed_crc}")


def _compare_snapshot(snap: ProducerSnapshot, pp: PartitionPass) -> Iterator[Problem]:
    for k, e in enumerate(snap.entries):
        where = L.SNAPSHOT_HEADER_SIZE + k * L.SNAPSHOT_ENTRY_SIZE
        prod = pp.producers.get(e.producer_id)
        if prod is None or not prod.has_data:
            if e.has_batch_metadata and pp.first_offset is not None and \
                    e.last_offset >= pp.first_offset:
                yield Problem(snap.path, where, "snapshot-mismatch",
                              f"producer {e.producer_id} has last offset {e.last_offset}, but no "
                              "batch of it is in the log before the snapshot", severity=WARNING)
            continue
        if not e.has_batch_metadata:
            continue
        diffs = []
        if e.last_offset != prod.last_offset:
            diffs.append(f"last offset {e.last_offset}, the log says {prod.last_offset}")
        if e.last_sequence != prod.last_sequence:
            diffs.append(f"last sequence {e.last_sequence}, the log says {prod.last_sequence}")
        if e.producer_epoch < prod.epoch:
            diffs.append(f"epoch {e.producer_epoch}, the log says {prod.epoch}")
        if diffs:
            yield Problem(snap.path, where, "snapshot-mismatch",
                          f"producer {e.producer_id}: " + "; ".join(diffs), severity=WARNING)


def truncate_from_start(entries: list[tuple[int, int]], start: int) -> list[tuple[int, int]]:
    """``(epoch, start offset)`` entries as LeaderEpochFileCache.truncateFromStart leaves
    them (Kafka 3.9-4.3, storage/.../epoch/LeaderEpochFileCache.java): the entries that
    start at or below ``start`` are removed and the last of them is put back starting at
    ``start`` (so an entry at ``start`` stays)."""
    below = [e for e in entries if e[1] <= start]
    rest = [e for e in entries if e[1] > start]
    return ([(below[-1][0], start)] if below else []) + rest


def _epoch_at(entries: list[tuple[int, int]], offset: int) -> int | None:
    """The epoch the entries give ``offset`` (LeaderEpochFileCache.epochForOffset)."""
    found = None
    for epoch, start in entries:
        if start > offset:
            break
        found = epoch
    return found


def log_start_offset(partition_dir: str, topic: str, partition: int) -> int | None:
    """The partition's entry in its log dir's ``log-start-offset-checkpoint`` (None when
    the file or the entry is missing or unreadable: verify-index's checkpoint pass
    reports a bad file)."""
    return checkpoint_value(partition_dir, "log-start-offset-checkpoint", topic, partition)


def check_leader_epochs(f: KafkaFile, pp: PartitionPass, log_start: int | None = None
                         ) -> Iterator[Problem]:
    """The checkpoint against the epochs the batches carry, as the broker would load it.

    LogLoader.load (4.x; LogLoader.scala in 3.9) truncates the cache from the end at the
    recovered log end and from the start at the log start offset of
    ``log-start-offset-checkpoint`` (truncateFromStartAsyncFlush), and
    UnifiedLog.maybeIncrementLogStartOffset does the same when DeleteRecords or retention
    moves the log start offset: the entries below it go and the one in force there is
    moved up to start at it.  So both sides are compared from the log start offset on
    (the checkpoint's, or the first batch's when segments were deleted under a lagging
    checkpoint), never the batches below it that Kafka no longer serves.
    """
    try:
        with FileSource(f.path) as src:
            cp = read_checkpoint(src, "leader-epoch-checkpoint")
    except KdumpError as err:
        yield Problem(f.path, err.position, "checkpoint", err.message)
        return
    entries = [(e.fields["epoch"], e.fields["start_offset"]) for e in cp.entries]
    for (e1, s1), (e2, s2) in pairwise(entries):
        if e2 <= e1 or s2 < s1:
            yield Problem(f.path, None, "leader-epoch",
                          f"entries (epoch {e1}, start {s1}) and (epoch {e2}, start {s2}) do not "
                          "ascend")
    log_epochs = pp.epochs
    if pp.first_offset is not None:
        start = max(pp.first_offset, log_start if log_start is not None else -1)
        if entries and start < entries[0][1] <= (pp.next_offset or 0) and \
                _epoch_at(log_epochs, entries[0][1]) == entries[0][0]:
            # the checkpoint was truncated from the start at a log start offset that
            # log-start-offset-checkpoint does not say yet: the epoch cache is flushed
            # by the scheduler at once (truncateFromStartAsyncFlush), the log start
            # offsets only every log.flush.start.offset.checkpoint.interval.ms
            # (LogManager.checkpointLogStartOffsets); the broker loads the entry as it is
            start = entries[0][1]
        entries = truncate_from_start(entries, start)
        log_epochs = truncate_from_start(log_epochs, start)
    have = dict(entries)
    newest = max(have) if have else -1
    for epoch, first in log_epochs:
        got = have.get(epoch)
        if got is None:
            yield Problem(f.path, None, "leader-epoch",
                          f"batches carry leader epoch {epoch} from offset {first}, but the "
                          "checkpoint has no entry for it" + (
                              "; a newer epoch than the checkpoint's newest: normal in a copy "
                              "of a live broker's log dir (LeaderEpochFileCache writes the "
                              "checkpoint after the batches are appended)"
                              if epoch > newest else ""), severity=WARNING)
        elif got != first:
            yield Problem(f.path, None, "leader-epoch",
                          f"epoch {epoch} starts at offset {got} in the checkpoint, but its first "
                          f"batch in the log is at offset {first}", severity=WARNING)
    in_log = {e for e, _ in log_epochs}
    for epoch, first in entries:
        if epoch not in in_log and pp.next_offset is not None and first < pp.next_offset and \
                (pp.first_offset is None or first >= pp.first_offset):
            yield Problem(f.path, None, "leader-epoch",
                          f"checkpoint says epoch {epoch} starts at offset {first}, but no batch "
                          "in the log carries that epoch", severity=WARNING)
