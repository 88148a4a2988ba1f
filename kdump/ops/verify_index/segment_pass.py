"""One shallow pass over a segment's batches: each offset entry points at a batch whose
last offset is the entry's offset, each time entry names a batch's last offset and its
max timestamp (what DumpLogSegments checks); the indexes Kafka would rebuild
(LogSegment.recover) computed and compared (and written with ``--rebuild-into``); the
producer, transaction and leader-epoch state fed for the partition-level checks.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

from ... import layouts as L
from ...errors import KdumpError
from ...findings import INFO, WARNING, Problem
from ...records.control import parse_control
from ...records.file_records import LogReader
from ...records.v2 import RecordBatch
from ...source import FileSource
from ..batch_findings import NoBatch, crc_problem
from ..rebuild import RecoverIndexes
from ..verdict import TAIL_PROBLEMS, gap_entry_problem, judge_tail
from ..verdict.tail import judge_closed_tail
from ..verify_crc import Summary
from .index_files import index_order
from .options import IndexEntries, PartitionPass, ProducerState, Segment, VerifyIndexOptions
from .state_files import check_snapshot


def check_segment(
    seg: Segment, active: bool, opts: VerifyIndexOptions, pp: PartitionPass, summary: Summary,
) -> Iterator[Problem]:
    """One shallow pass over a segment's batches checks both indexes, rebuilds them, and
    feeds the partition-level producer, transaction and epoch state."""
    assert seg.log is not None
    base = seg.base
    offset_entries = seg.offset_entries  # loaded by index_sanity
    time_entries = seg.time_entries
    empty = IndexEntries(array("i"), array("i"))
    # offset entries merged with the batches by position, time entries by offset (both
    # ascend in a sane segment); entries matching no batch are kept by slot
    o_rel, o_pos = (offset_entries or empty).first, (offset_entries or empty).second
    o_order = index_order(o_pos)
    oj = 0
    unmatched = array("i")
    t_ts, t_rel = (time_entries or empty).first, (time_entries or empty).second
    t_order = index_order(t_rel)
    tj = 0
    index_path = seg.index.path if seg.index else seg.log.path
    time_path = seg.time_index.path if seg.time_index else seg.log.path
    inside = 0  # entries naming a record inside a batch (older brokers)
    #: a follower-style offset entry waiting for the batch that ends at its offset:
    #: (slot, offset, position, last offset of the batch there, next entry's position)
    pending: tuple[int, int, int, int, int] | None = None
    prev_last: int | None = None  # the previous batch's last offset (gaps: compaction)
    # LogSegment.recover, to rebuild
    recovered = RecoverIndexes(seg.base, opts.index_interval_bytes)
    rebuilding = True
    try:
        src = FileSource(seg.log.path)
    except KdumpError as err:
        yield Problem(seg.log.path, None, "unreadable-file", err.message)
        return
    with src:
        summary.files += 1
        summary.bytes += src.size
        reader = LogReader(src, active=active, resync=not opts.strict,
                           max_batch_bytes=opts.max_batch_bytes)
        nothing, framed = NoBatch(seg.log.path), 0
        for item in reader:
            if isinstance(item, Problem):
                rebuilding = False  # recover() truncates at the first invalid batch
                if item.kind in TAIL_PROBLEMS and item.path == seg.log.path:
                    # the tail as the partition's witnesses judge it (verify-crc's words)
                    item = judge_closed_tail(judge_tail(item, seg.log, prev_last), seg.log,
                                             prev_last)
                    pp.tails.append((item, active))
                    nothing.see(item)
                    yield item  # the tail as verify-crc says it, in flight included
                    continue
                nothing.see(item)
                if item.severity != INFO:
                    yield item  # damage counted in the summary is never "clean"
                continue
            b = item
            framed += 1
            if pending is not None:  # a follower-style entry: does this batch end it?
                p_slot, p_offset, p_pos, p_there, p_limit = pending
                if b.position < p_limit and b.last_offset == p_offset:
                    pending = None  # the append's last batch: a lookup finds its offset
                elif b.position >= p_limit or b.last_offset > p_offset:
                    yield _entry_mismatch(index_path, p_slot, p_offset, p_pos, p_there)
                    pending = None
            summary.batches += 1
            valid = b.crc_valid
            if valid:
                summary.valid_batches += 1
            else:
                summary.invalid_batches += 1
                rebuilding = False
                yield crc_problem(b)  # "1 invalid: clean" would contradict itself
            while oj < len(o_order) and o_pos[o_order[oj]] <= b.position:
                slot = o_order[oj]
                oj += 1
                if o_pos[slot] < b.position:
                    unmatched.append(slot)  # no batch starts there
                    continue
                offset = base + o_rel[slot]
                if offset > b.last_offset:
                    # LogSegment.append indexes an append of several batches (a follower's
                    # fetch, a leader's multi-batch produce) once: the append's FIRST
                    # position with its LAST offset.  Valid when a batch of the same append
                    # (before the next entry's position) ends at the offset.
                    limit = o_pos[o_order[oj]] if oj < len(o_order) else 1 << 62
                    pending = (slot, offset, b.position, b.last_offset, limit)
                elif offset != b.last_offset:
                    yield _entry_mismatch(index_path, slot, offset, b.position, b.last_offset)
            base_offset = b.first_offset
            while tj < len(t_order) and base + t_rel[t_order[tj]] <= b.last_offset:
                slot = t_order[tj]
                tj += 1
                offset, timestamp = base + t_rel[slot], t_ts[slot]
                where = slot * L.TIME_INDEX_ENTRY_SIZE
                if offset < base_offset:
                    if (prev_last if prev_last is not None else base - 1) < offset:
                        # in a gap of offsets.  In a compacted topic the log cleaner removed
                        # it: LogCleaner (core/src/main/scala/kafka/log/LogCleaner.scala,
                        # cleanInto) appends the cleaned segment's time entries from what
                        # filterTo reports, and a lookup (LogSegment.findOffsetByTimestamp)
                        # starts at the offset index's position for it and scans forward:
                        # the next batch is found, as here.  Otherwise the offsets are lost
                        # (cleanup.policy, kdump.ops.verdict.cleanup)
                        yield gap_entry_problem(time_path, where, slot, offset, b.first_offset,
                                                b.last_offset, seg.log.path, seg.log.topic,
                                                opts.max_batch_bytes, opts.policies)
                        continue
                    yield Problem(time_path, where, "index-mismatch",
                                  f"entry {slot}: offset {offset} is in no batch",
                                  extra={"check": "offset-not-found", "index_offset": offset,
                                         "log_offset": b.last_offset})
                    continue
                if offset != b.last_offset:
                    inside += 1
                if timestamp != b.max_timestamp:
                    yield Problem(
                        time_path, where, "index-mismatch",
                        f"entry {slot}: timestamp {timestamp} for offset {offset}, but that "
                        f"batch's max timestamp is {b.max_timestamp}",
                        extra={"check": "timestamp", "index_timestamp": timestamp,
                               "log_timestamp": b.max_timestamp})
            if rebuilding:
                recovered.add(b.last_offset, b.max_timestamp, b.size)
            if pp.find_gaps and (isinstance(b, RecordBatch) or not b.is_compressed):
                after = prev_last if prev_last is not None else base - 1
                if b.first_offset > after + 1:
                    pp.gaps.append((after + 1, b.first_offset - 1))
            prev_last = b.last_offset
            first = b.first_offset
            while pp.snapshots and (pp.snapshots[0].base_offset or 0) <= first:
                yield from check_snapshot(pp.snapshots.popleft(), pp)
            feed_batch(pp, b)
        if pending is not None:
            yield _entry_mismatch(index_path, *pending[:4])
        if (p := nothing.problem(src.size, framed, lambda: src.pread(0, 8),
                                 seg.base)) is not None:
            yield p
        unmatched.extend(o_order[oj:])
        for slot in sorted(unmatched):
            if o_pos[slot] >= src.size:
                continue  # reported once, as index-position (past the end of the log)
            offset = base + o_rel[slot]
            yield Problem(
                index_path, slot * L.OFFSET_INDEX_ENTRY_SIZE, "index-mismatch",
                f"entry {slot} (offset {offset}) points at byte {o_pos[slot]}, where no "
                "batch starts", extra={"index_offset": offset, "log_offset": -1})
        for slot in t_order[tj:]:
            offset = base + t_rel[slot]
            yield Problem(time_path, slot * L.TIME_INDEX_ENTRY_SIZE, "index-mismatch",
                          f"entry {slot}: offset {offset} is beyond the last batch",
                          extra={"check": "offset-not-found", "index_offset": offset,
                                 "log_offset": -1})
        if inside:
            yield Problem(time_path, None, "index-mismatch",
                          f"{inside} entries name a record inside a batch rather than the batch's "
                          "last offset, as brokers before Kafka 3.8 (KAFKA-16310) wrote them; "
                          "their timestamps match", severity=INFO, extra={"check": "older-broker"})
    rebuilt_offsets, rebuilt_times = recovered.finish()
    yield from _compare_rebuilt(seg, offset_entries, time_entries, rebuilt_offsets, rebuilt_times,
                                active, opts)


def _entry_mismatch(path: str, slot: int, offset: int, position: int, there: int) -> Problem:
    """An offset entry a lookup would follow to the wrong place."""
    return Problem(
        path, slot * L.OFFSET_INDEX_ENTRY_SIZE, "index-mismatch",
        f"entry {slot} says offset {offset} is at byte {position}, but the batch there ends "
        f"at offset {there}" + (
            "" if offset < there else " and no batch of that append (before the next entry) "
            f"ends at {offset}"),
        extra={"index_offset": offset, "log_offset": there})


def _fitting_entries(entries: list[tuple[int, int]], base: int, what: str) -> int:
    """How many leading entries fit an index file: relative offsets and positions are
    int32 there (AbstractIndex.relativeOffset, OffsetIndex.append)."""
    for k, (a, b) in enumerate(entries):
        rel, position = (a - base, b) if what == "offset" else (b - base, 0)
        if not (-L.INT32_MAX - 1 <= rel <= L.INT32_MAX and 0 <= position <= L.INT32_MAX):
            return k
    return len(entries)


def _compare_rebuilt(
    seg: Segment, offset_entries: IndexEntries | None, time_entries: IndexEntries | None,
    rebuilt_offsets: list[tuple[int, int]], rebuilt_times: list[tuple[int, int]], active: bool,
    opts: VerifyIndexOptions,
) -> Iterator[Problem]:
    from ..rebuild import write_rebuilt

    base = seg.base
    pairs = (
        (seg.index, offset_entries, rebuilt_offsets, "offset", L.INDEX_SUFFIX),
        (seg.time_index, time_entries, rebuilt_times, "time", L.TIME_INDEX_SUFFIX),
    )
    for f, loaded, rebuilt, what, suffix in pairs:
        if opts.rebuild_into:
            assert seg.log is not None
            fits = _fitting_entries(rebuilt, seg.base, what)
            if fits < len(rebuilt):
                bad = rebuilt[fits]
                offset = bad[0] if what == "offset" else bad[1]
                yield Problem(
                    seg.log.path, None, "index-differs",
                    f"offset {offset} lies {offset - seg.base} from the segment's base offset "
                    f"{seg.base}: no 4-byte relative {what}-index entry holds it (Kafka splits "
                    "such a segment, LogSegmentOffsetOverflowException); the rebuilt "
                    f"{suffix} stops after {fits} entries", severity=WARNING)
            write_rebuilt(opts.rebuild_into, seg.log.path, seg.base, suffix, rebuilt[:fits])
        if f is None or loaded is None:
            continue
        a, b = loaded.first, loaded.second
        on_disk = len(loaded)
        common = min(on_disk, len(rebuilt))
        if what == "offset":
            first = next((i for i in range(common) if (base + a[i], b[i]) != rebuilt[i]), common)
        else:
            first = next((i for i in range(common) if (a[i], base + b[i]) != rebuilt[i]), common)
        if first == common and on_disk == len(rebuilt):
            continue  # the same entries
        if not opts.rebuild_into:
            # density differs with a topic's own index.interval.bytes and with appends of
            # several batches (one entry each): healthy data, reported only on request
            continue
        yield Problem(
            f.path, first * (L.OFFSET_INDEX_ENTRY_SIZE if what == "offset" else
                             L.TIME_INDEX_ENTRY_SIZE), "index-differs",
            f"{on_disk} {what}-index entries on disk, {len(rebuilt)} when rebuilt from the "
            f"log with index.interval.bytes={opts.index_interval_bytes}; first difference at "
            f"entry {first} (a topic with another index.interval.bytes, or appends of several "
            "batches at once, index differently)",
            severity=INFO, extra={"entries_on_disk": on_disk, "entries_rebuilt": len(rebuilt),
                                  "first_difference": first})


def feed_batch(pp: PartitionPass, b: Any) -> None:
    """Producer, transaction and leader-epoch state, batch by batch."""
    if pp.first_offset is None:
        pp.first_offset = b.base_offset
    pp.next_offset = b.last_offset + 1
    if not isinstance(b, RecordBatch):
        return
    if b.partition_leader_epoch >= 0 and (not pp.epochs or b.partition_leader_epoch > pp.epochs[-1][0]):
        pp.epochs.append((b.partition_leader_epoch, b.base_offset))
    pid = b.producer_id
    if pid < 0:
        return
    prod = pp.producers.setdefault(pid, ProducerState())
    if b.is_control:
        ctl_type = None
        try:
            for rec in b.records():
                ctl = parse_control(rec)
                ctl_type = ctl.type_id
                if ctl.coordinator_epoch is not None:
                    prod.coordinator_epoch = ctl.coordinator_epoch
                break
        except KdumpError:
            return
        if b.producer_epoch > prod.epoch:
            prod.epoch = b.producer_epoch
        if ctl_type in (0, 1) and b.is_transactional:
            first = pp.ongoing.pop(pid, None)
            if ctl_type == 0:
                others = [o for p, o in pp.ongoing.items() if p != pid]
                lso = min(others) if others else b.base_offset + 1
                pp.aborted.setdefault(b.base_offset, []).append(
                    (pid, -1 if first is None else first, b.base_offset, lso))
        return
    prod.epoch = b.producer_epoch
    prod.last_sequence = b.last_sequence
    prod.last_offset = b.last_offset
    prod.has_data = True
    if b.is_transactional and pid not in pp.ongoing:
        pp.ongoing[pid] = b.base_offset
