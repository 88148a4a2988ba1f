"""The files beside a log: offset, time and transaction indexes, producer snapshots,
checkpoint files, partition.metadata and meta.properties."""

from __future__ import annotations

import struct
from dataclasses import dataclass

import crc32c

from tests.support.encoding import _U32, INDEX_ENTRY_SIZE, TIME_INDEX_ENTRY_SIZE, uuid_str

# --------------------------------------------------------------------------------------------
# Index, txn index, producer snapshot, text files
# --------------------------------------------------------------------------------------------


def offset_index(entries: list[tuple[int, int]], *, preallocated_slots: int = 0) -> bytes:
    """``.index``: (relative offset int32, position int32) entries plus zero slots."""
    body = b"".join(struct.pack(">ii", rel, pos) for rel, pos in entries)
    return body + bytes(INDEX_ENTRY_SIZE * preallocated_slots)


def time_index(entries: list[tuple[int, int]], *, preallocated_slots: int = 0) -> bytes:
    """``.timeindex``: (timestamp int64, relative offset int32) entries plus zero slots."""
    body = b"".join(struct.pack(">qi", ts, rel) for ts, rel in entries)
    return body + bytes(TIME_INDEX_ENTRY_SIZE * preallocated_slots)


def txn_index(entries: list[tuple[int, int, int, int]], version: int = 0) -> bytes:
    """``.txnindex``: 34-byte entries (version, producerId, firstOffset, lastOffset, LSO)."""
    return b"".join(struct.pack(">hqqqq", version, *e) for e in entries)


@dataclass
class ProducerEntry:
    """One producer entry of a ``.snapshot`` file (46 bytes)."""

    producer_id: int
    epoch: int = -1
    last_sequence: int = -1
    last_offset: int = -1
    offset_delta: int = 0
    timestamp: int = -1
    coordinator_epoch: int = -1
    current_txn_first_offset: int = -1

    def encode(self) -> bytes:
        return struct.pack(
            ">qhiqiqiq",
            self.producer_id,
            self.epoch,
            self.last_sequence,
            self.last_offset,
            self.offset_delta,
            self.timestamp,
            self.coordinator_epoch,
            self.current_txn_first_offset,
        )


def producer_snapshot(
    entries: list[ProducerEntry], *, version: int = 1, crc: int | None = None
) -> bytes:
    """Producer-state snapshot: int16 version, uint32 CRC-32C of bytes 6.., int32 N, entries."""
    body = struct.pack(">i", len(entries)) + b"".join(e.encode() for e in entries)
    if crc is None:
        crc = crc32c.crc32c(body)
    return struct.pack(">hI", version, crc & _U32) + body


def _checkpoint(lines: list[str], version: int) -> bytes:
    return "".join(f"{line}\n" for line in [str(version), str(len(lines)), *lines]).encode("utf-8")


def offset_checkpoint(entries: list[tuple[str, int, int]], version: int = 0) -> bytes:
    """Offset checkpoint text file: version, count, ``topic partition offset`` lines."""
    return _checkpoint([f"{t} {p} {o}" for t, p, o in entries], version)


def leader_epoch_checkpoint(entries: list[tuple[int, int]], version: int = 0) -> bytes:
    """``leader-epoch-checkpoint``: version, count, ``epoch startOffset`` lines."""
    return _checkpoint([f"{e} {o}" for e, o in entries], version)


def partition_metadata(topic_id: bytes) -> bytes:
    """``partition.metadata`` (no trailing newline)."""
    return f"version: 0\ntopic_id: {uuid_str(topic_id)}".encode()


def _java_props_escape(s: str, escape_space: bool) -> str:
    out = []
    for i, ch in enumerate(s):
        if ch == " ":
            out.append("\\ " if i == 0 or escape_space else " ")
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\t\n\r\f":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}[ch])
        elif ch in "=:#!":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def meta_properties(props: dict[str, str], *, date: str = "Tue Nov 14 22:13:20 UTC 2023") -> bytes:
    """``meta.properties`` as ``Properties.store(writer, "")`` writes it (in dict order)."""
    lines = ["#", f"#{date}"]
    lines += [
        f"{_java_props_escape(k, True)}={_java_props_escape(v, False)}" for k, v in props.items()
    ]
    return "".join(f"{line}\n" for line in lines).encode("utf-8")
