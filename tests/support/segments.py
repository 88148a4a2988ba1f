"""Segments and their indexes: ``PartitionWriter`` appends batches to a partition
directory as a broker would (rolling segments, indexing every ``index.interval.bytes``,
producer snapshots and the leader-epoch checkpoint)."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from tests.support.encoding import (
    _INT32_MAX,
    ATTR_CONTROL,
    ATTR_TIMESTAMP_TYPE,
    ATTR_TRANSACTIONAL,
    CONTROL_ABORT,
    CONTROL_COMMIT,
    DEFAULT_MAX_INDEX_BYTES,
    INDEX_ENTRY_SIZE,
    LOG_OVERHEAD,
    TIME_INDEX_ENTRY_SIZE,
    V2_HEADER_SIZE,
    _read_varint,
)
from tests.support.files import (
    ProducerEntry,
    leader_epoch_checkpoint,
    partition_metadata,
    producer_snapshot,
    txn_index,
)

# --------------------------------------------------------------------------------------------
# Segment / partition writer
# --------------------------------------------------------------------------------------------


@dataclass
class _EntryInfo:
    """What the writer needs to know about one log entry (batch or legacy message)."""

    magic: int
    first_offset: int | None  # None: legacy compressed (first offset unknown without decompressing)
    last_offset: int
    max_timestamp: int
    size: int
    partition_leader_epoch: int = -1
    attributes: int = 0
    producer_id: int = -1
    producer_epoch: int = -1
    base_sequence: int = -1
    last_offset_delta: int = 0
    records_count: int = 0
    first_timestamp: int = -1
    records: bytes = b""


def _iter_entries(data: bytes) -> Iterator[_EntryInfo]:
    pos = 0
    while pos < len(data):
        if len(data) - pos < 17:
            raise ValueError("trailing bytes are not a complete log entry")
        offset, size = struct.unpack_from(">qi", data, pos)
        magic = data[pos + 16]
        total = LOG_OVERHEAD + size
        if pos + total > len(data):
            raise ValueError("truncated log entry")
        if magic == 2:
            (ple,) = struct.unpack_from(">i", data, pos + 12)
            attrs, lod, first_ts, max_ts, pid, pepoch, bseq, count = struct.unpack_from(
                ">hiqqqhii", data, pos + 21
            )
            yield _EntryInfo(
                magic=2,
                first_offset=offset,
                last_offset=offset + lod,
                max_timestamp=max_ts,
                size=total,
                partition_leader_epoch=ple,
                attributes=attrs,
                producer_id=pid,
                producer_epoch=pepoch,
                base_sequence=bseq,
                last_offset_delta=lod,
                records_count=count,
                first_timestamp=first_ts,
                records=data[pos + V2_HEADER_SIZE : pos + total],
            )
        elif magic in (0, 1):
            attrs = data[pos + 17]
            ts = struct.unpack_from(">q", data, pos + 18)[0] if magic == 1 else -1
            yield _EntryInfo(
                magic=magic,
                first_offset=offset if attrs & 0x07 == 0 else None,
                last_offset=offset,
                max_timestamp=ts,
                size=total,
                attributes=attrs,
            )
        else:
            raise ValueError(f"unknown magic {magic}")
        pos += total


def _increment_sequence(seq: int, delta: int) -> int:
    if seq > _INT32_MAX - delta:
        return delta - (_INT32_MAX - seq) - 1
    return seq + delta


class _Segment:
    def __init__(self, directory: Path, base_offset: int) -> None:
        self.base_offset = base_offset
        prefix = f"{base_offset:020d}"
        self.log_path = directory / f"{prefix}.log"
        self.index_path = directory / f"{prefix}.index"
        self.timeindex_path = directory / f"{prefix}.timeindex"
        self.txnindex_path = directory / f"{prefix}.txnindex"
        self.log: BinaryIO | None = open(self.log_path, "wb")
        self.index: BinaryIO | None = open(self.index_path, "wb")
        self.timeindex: BinaryIO | None = open(self.timeindex_path, "wb")
        self.size = 0
        self.bytes_since_last_index_entry = 0
        self.offset_entries = 0
        self.time_entries = 0
        self.max_timestamp_so_far = -1
        self.offset_of_max_timestamp = base_offset
        self.last_time_entry_ts = -1
        self.has_txnindex = False

    def relative(self, offset: int) -> int:
        return offset - self.base_offset

    def time_index_maybe_append(self, timestamp: int, offset: int) -> None:
        if timestamp > self.last_time_entry_ts:
            assert self.timeindex is not None
            self.timeindex.write(struct.pack(">qi", timestamp, self.relative(offset)))
            self.time_entries += 1
            self.last_time_entry_ts = timestamp

    def close(self, *, final_time_entry: bool, pad_offset_slots: int, pad_time_slots: int) -> None:
        if final_time_entry:
            self.time_index_maybe_append(self.max_timestamp_so_far, self.offset_of_max_timestamp)
        assert self.log is not None and self.index is not None and self.timeindex is not None
        if pad_offset_slots > self.offset_entries:
            self.index.write(bytes(INDEX_ENTRY_SIZE * (pad_offset_slots - self.offset_entries)))
        if pad_time_slots > self.time_entries:
            pad = pad_time_slots - self.time_entries
            self.timeindex.write(bytes(TIME_INDEX_ENTRY_SIZE * pad))
        for fh in (self.log, self.index, self.timeindex):
            fh.close()
        self.log = self.index = self.timeindex = None

    def paths(self) -> list[Path]:
        out = [self.log_path, self.index_path, self.timeindex_path]
        if self.has_txnindex:
            out.append(self.txnindex_path)
        return out


class PartitionWriter:
    """Writes a partition directory following the broker's append rules (LogSegment.append).

    * Index: before each append, if the bytes appended since the last index entry exceed
      ``index_interval_bytes``, an offset-index entry (append's last offset - base, append's start
      position) and a time-index attempt (maxTimestampSoFar, offset of it) are made; the counter
      then restarts and the append's size is added. Time-index entries only when strictly greater.
    * Roll: when the active segment is non-empty and size + append size > ``segment_bytes`` (or an
      index is full, or the offset doesn't fit the segment); new base = the append's first offset
      (legacy compressed wrappers: the log end offset, as on the leader). On roll / close a final
      time-index attempt is made and the indexes are trimmed.
    * ``preallocate_active_index``: simulate a copy taken from a live/crashed broker: the active
      segment's indexes are padded with zero slots to ``active_index_slots`` (default
      ``max_index_bytes // entry size``) and no final time-index entry is added on close.
    * Producer state (v2 batches with producerId >= 0), aborted transactions (written to the
      ``.txnindex`` of the segment holding the ABORT marker, with Kafka's LSO rule) and leader
      epochs (v2 batches only) are tracked automatically, see ``write_producer_snapshot`` and
      ``write_leader_epoch_checkpoint``.
    """

    def __init__(
        self,
        directory: Path,
        *,
        segment_bytes: int = 1 << 30,
        index_interval_bytes: int = 4096,
        preallocate_active_index: bool = False,
        active_index_slots: int | None = None,
        max_index_bytes: int = DEFAULT_MAX_INDEX_BYTES,
        snapshot_on_roll: bool = False,
        track_transactions: bool = True,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.segment_bytes = segment_bytes
        self.index_interval_bytes = index_interval_bytes
        self.preallocate_active_index = preallocate_active_index
        self.active_index_slots = active_index_slots
        self.max_offset_entries = max_index_bytes // INDEX_ENTRY_SIZE
        self.max_time_entries = max_index_bytes // TIME_INDEX_ENTRY_SIZE
        self.snapshot_on_roll = snapshot_on_roll
        self.track_transactions = track_transactions
        self.segments: list[_Segment] = []
        self.log_end_offset = 0
        self.producers: dict[int, ProducerEntry] = {}
        self.ongoing_txns: dict[int, int] = {}  # producerId -> first offset
        self.leader_epochs: list[tuple[int, int]] = []
        self.aborted_txns: list[tuple[int, int, int, int]] = []
        self._extra_files: list[Path] = []
        self._closed = False

    # -- segments -------------------------------------------------------------------------

    @property
    def active(self) -> _Segment | None:
        if self.segments and self.segments[-1].log is not None:
            return self.segments[-1]
        return None

    def _new_segment(self, base_offset: int) -> _Segment:
        if self.segments and base_offset <= self.segments[-1].base_offset:
            raise ValueError(
                f"new segment base {base_offset} <= previous {self.segments[-1].base_offset}"
            )
        seg = _Segment(self.directory, base_offset)
        self.segments.append(seg)
        if self.snapshot_on_roll and len(self.segments) > 1:
            self.write_producer_snapshot(base_offset)
        return seg

    def _deactivate(self, seg: _Segment) -> None:
        seg.close(final_time_entry=True, pad_offset_slots=0, pad_time_slots=0)

    def roll(self) -> None:
        """Roll now: the new (empty) active segment starts at the log end offset."""
        if self._closed:
            raise RuntimeError("writer is closed")
        active = self.active
        if active is not None:
            if active.size == 0 and active.base_offset == self.log_end_offset:
                return
            self._deactivate(active)
        self._new_segment(self.log_end_offset)

    def _should_roll(self, seg: _Segment, size: int, last_offset: int) -> bool:
        if seg.size == 0:
            return False
        rel = last_offset - seg.base_offset
        return (
            seg.size > self.segment_bytes - size
            or seg.offset_entries >= self.max_offset_entries
            or seg.time_entries >= self.max_time_entries - 1
            or not 0 <= rel <= _INT32_MAX
        )

    # -- appends --------------------------------------------------------------------------

    def append(self, batch: bytes, *, first_offset: int | None = None) -> None:
        """Append one batch / legacy entry (or several concatenated ones) as one broker append."""
        if self._closed:
            raise RuntimeError("writer is closed")
        infos = list(_iter_entries(batch))
        if not infos:
            return
        if first_offset is None:
            first_offset = infos[0].first_offset
            if first_offset is None:  # legacy compressed: the leader uses the log end offset
                first_offset = min(self.log_end_offset, infos[0].last_offset)
        last_offset = max(i.last_offset for i in infos)
        max_ts, offset_of_max_ts = -1, -1
        for info in infos:
            if info.max_timestamp > max_ts:
                max_ts, offset_of_max_ts = info.max_timestamp, info.last_offset

        seg = self.active
        if seg is None:
            seg = self._new_segment(first_offset)
        elif self._should_roll(seg, len(batch), last_offset):
            self._deactivate(seg)
            seg = self._new_segment(first_offset)
        if last_offset < seg.base_offset:
            raise ValueError(f"offset {last_offset} below segment base {seg.base_offset}")

        position = seg.size
        assert seg.log is not None and seg.index is not None
        seg.log.write(batch)
        seg.size += len(batch)
        if max_ts > seg.max_timestamp_so_far:
            seg.max_timestamp_so_far, seg.offset_of_max_timestamp = max_ts, offset_of_max_ts
        if seg.bytes_since_last_index_entry > self.index_interval_bytes:
            seg.index.write(struct.pack(">ii", seg.relative(last_offset), position))
            seg.offset_entries += 1
            seg.time_index_maybe_append(seg.max_timestamp_so_far, seg.offset_of_max_timestamp)
            seg.bytes_since_last_index_entry = 0
        seg.bytes_since_last_index_entry += len(batch)
        self.log_end_offset = max(self.log_end_offset, last_offset + 1)

        for info in infos:
            if info.magic >= 2:
                self._track_epoch(info)
                if info.producer_id >= 0:
                    self._track_producer(info, seg)
            else:
                # UnifiedLog clears the epoch cache on a (downgrade) append with magic < 2
                self.leader_epochs.clear()

    def _track_epoch(self, info: _EntryInfo) -> None:
        """LeaderEpochFileCache.assign(batch epoch, batch base offset)."""
        epoch, start = info.partition_leader_epoch, info.first_offset
        assert start is not None
        if epoch < 0:
            return  # the broker would have stamped its own epoch; nothing to learn here
        if self.leader_epochs:
            last_epoch, last_start = self.leader_epochs[-1]
            if epoch == last_epoch and start >= last_start:
                return
        while self.leader_epochs and (
            self.leader_epochs[-1][0] >= epoch or self.leader_epochs[-1][1] >= start
        ):
            self.leader_epochs.pop()
        self.leader_epochs.append((epoch, start))

    def _track_producer(self, info: _EntryInfo, seg: _Segment) -> None:
        assert info.first_offset is not None
        pid = info.producer_id
        entry = self.producers.get(pid) or ProducerEntry(pid)
        self.producers[pid] = entry
        if info.attributes & ATTR_CONTROL:
            if info.records_count == 0 or info.attributes & 0x07:
                return  # cleaned-out control batch (or one we cannot read without decompressing)
            ctype, coord_epoch, ts = _parse_marker(info)
            if entry.epoch != info.producer_epoch:  # epoch bump drops batch metadata
                entry.last_sequence, entry.last_offset, entry.offset_delta = -1, -1, 0
            entry.epoch = info.producer_epoch
            if entry.current_txn_first_offset >= 0 and ctype in (CONTROL_ABORT, CONTROL_COMMIT):
                first = entry.current_txn_first_offset
                if ctype == CONTROL_ABORT and self.track_transactions:
                    others = [o for p, o in self.ongoing_txns.items() if p != pid]
                    lso = min(others) if others else info.first_offset + 1
                    self.add_txn_index_entry(pid, first, info.first_offset, lso, segment=seg)
                self.ongoing_txns.pop(pid, None)
            entry.coordinator_epoch = coord_epoch
            entry.current_txn_first_offset = -1
            entry.timestamp = ts
        else:
            entry.epoch = info.producer_epoch
            entry.last_sequence = (
                -1
                if info.base_sequence < 0
                else _increment_sequence(info.base_sequence, info.last_offset_delta)
            )
            entry.last_offset = info.last_offset
            entry.offset_delta = info.last_offset - info.first_offset
            entry.timestamp = info.max_timestamp
            if info.attributes & ATTR_TRANSACTIONAL and entry.current_txn_first_offset < 0:
                entry.current_txn_first_offset = info.first_offset
                self.ongoing_txns[pid] = info.first_offset

    # -- extra files ----------------------------------------------------------------------

    def add_txn_index_entry(
        self,
        producer_id: int,
        first_offset: int,
        last_offset: int,
        last_stable_offset: int,
        *,
        segment: _Segment | None = None,
        version: int = 0,
    ) -> Path:
        """Append an aborted-txn entry to the ``.txnindex`` of the segment holding last_offset."""
        if segment is None:
            candidates = [s for s in self.segments if s.base_offset <= last_offset]
            if not candidates:
                raise ValueError("no segment holds that offset")
            segment = candidates[-1]
        with open(segment.txnindex_path, "ab") as fh:
            fh.write(
                txn_index([(producer_id, first_offset, last_offset, last_stable_offset)], version)
            )
        segment.has_txnindex = True
        self.aborted_txns.append((producer_id, first_offset, last_offset, last_stable_offset))
        return segment.txnindex_path

    def _write_extra(self, name: str, data: bytes) -> Path:
        path = self.directory / name
        path.write_bytes(data)
        if path not in self._extra_files:
            self._extra_files.append(path)
        return path

    def write_producer_snapshot(
        self, offset: int | None = None, entries: list[ProducerEntry] | None = None
    ) -> Path:
        """``<offset>.snapshot`` (default: log end offset, tracked producers by id)."""
        if offset is None:
            offset = self.log_end_offset
        if entries is None:
            entries = [self.producers[p] for p in sorted(self.producers)]
        return self._write_extra(f"{offset:020d}.snapshot", producer_snapshot(entries))

    def write_leader_epoch_checkpoint(self, entries: list[tuple[int, int]] | None = None) -> Path:
        if entries is None:
            entries = self.leader_epochs
        return self._write_extra("leader-epoch-checkpoint", leader_epoch_checkpoint(entries))

    def write_partition_metadata(self, topic_id: bytes) -> Path:
        return self._write_extra("partition.metadata", partition_metadata(topic_id))

    def close(self) -> list[Path]:
        """Close the active segment (clean shutdown unless preallocated); list all files written."""
        if not self._closed:
            active = self.active
            if active is not None:
                if self.preallocate_active_index:
                    slots = self.active_index_slots
                    active.close(
                        final_time_entry=False,
                        pad_offset_slots=self.max_offset_entries if slots is None else slots,
                        pad_time_slots=self.max_time_entries if slots is None else slots,
                    )
                else:
                    self._deactivate(active)
            self._closed = True
        out: list[Path] = []
        for seg in self.segments:
            out.extend(seg.paths())
        out.extend(self._extra_files)
        return sorted(out)


def _parse_marker(info: _EntryInfo) -> tuple[int, int, int]:
    """(control type, coordinator epoch or -1, record timestamp) of a control batch's 1st record."""
    buf = info.records
    _, pos = _read_varint(buf, 0)  # length
    pos += 1  # attributes
    ts_delta, pos = _read_varint(buf, pos)
    _, pos = _read_varint(buf, pos)  # offset delta
    klen, pos = _read_varint(buf, pos)
    key = buf[pos : pos + max(klen, 0)]
    pos += max(klen, 0)
    vlen, pos = _read_varint(buf, pos)
    value = buf[pos : pos + max(vlen, 0)]
    ctype = struct.unpack(">h", key[2:4])[0] if len(key) >= 4 else -1
    coord = struct.unpack(">i", value[2:6])[0] if len(value) >= 6 else -1
    if info.attributes & ATTR_TIMESTAMP_TYPE:
        ts = info.max_timestamp
    else:
        ts = info.first_timestamp + ts_delta
    return ctype, coord, ts
