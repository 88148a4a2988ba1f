"""The bytes of one batch (or damaged region) for ``kdump browse``'s hex view: each
header field's span and name (from :mod:`kdump.layouts`, Kafka's names), the records
area after the header, and the first bad byte where the framing or the checksum fails.

Where a checksum fails, a single flipped bit is located exactly when it explains the
mismatch: CRC-32C and CRC-32 are linear, so the difference between the stored and the
computed checksum (the syndrome) of a one-bit error depends only on the bit's distance
from the end of the checked bytes, and for any batch shorter than 2^31 bits no two
distances give the same syndrome.  When no single bit explains it, the damage is
somewhere in the checked bytes and the view says so (the stored checksum is marked).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ... import layouts as L
from ...checksums import crc32, crc32c
from .partition import BatchRow, PartitionView

#: bytes of a batch the view holds (a batch may be up to --max-batch-bytes)
HEX_LIMIT = 64 << 10
#: reflected polynomials: CRC-32C (Castagnoli, v2 batches) and CRC-32 (IEEE, v0/v1)
POLY_CRC32C = 0x82F63B78
POLY_CRC32 = 0xEDB88320
#: longest checked span searched for a single flipped bit (a byte per step)
LOCATE_LIMIT = 1 << 20

#: the v2 header, field by field: (name, offset, size); DefaultRecordBatch.java
V2_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("baseOffset", L.V2_BASE_OFFSET_OFFSET, 8),
    ("batchLength", L.V2_LENGTH_OFFSET, 4),
    ("partitionLeaderEpoch", L.V2_PARTITION_LEADER_EPOCH_OFFSET, 4),
    ("magic", L.V2_MAGIC_OFFSET, 1),
    ("crc", L.V2_CRC_OFFSET, 4),
    ("attributes", L.V2_ATTRIBUTES_OFFSET, 2),
    ("lastOffsetDelta", L.V2_LAST_OFFSET_DELTA_OFFSET, 4),
    ("baseTimestamp", L.V2_BASE_TIMESTAMP_OFFSET, 8),
    ("maxTimestamp", L.V2_MAX_TIMESTAMP_OFFSET, 8),
    ("producerId", L.V2_PRODUCER_ID_OFFSET, 8),
    ("producerEpoch", L.V2_PRODUCER_EPOCH_OFFSET, 2),
    ("baseSequence", L.V2_BASE_SEQUENCE_OFFSET, 4),
    ("recordsCount", L.V2_RECORDS_COUNT_OFFSET, 4),
)
#: a v0/v1 entry: Records.java (offset, size: the log overhead) and LegacyRecord.java (crc,
#: magic, attributes, timestamp); in 4.3 both under common/record/internal/
LEGACY_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("offset", L.OFFSET_OFFSET, 8),
    ("size", L.SIZE_OFFSET, 4),
    ("crc", L.LEGACY_CRC_OFFSET, 4),
    ("magic", L.MAGIC_OFFSET, 1),
    ("attributes", L.LEGACY_ATTRIBUTES_OFFSET, 1),
)


@dataclass(slots=True)
class HexField:
    """A header field: bytes ``[start, end)`` of the view, its Kafka name and value."""

    start: int
    end: int
    name: str
    value: str


@dataclass(slots=True)
class HexModel:
    title: str
    #: the file's byte position of ``data[0]``
    position: int
    data: bytes
    fields: list[HexField] = field(default_factory=list)
    #: where the records area starts in ``data`` (None: a damaged region)
    records_start: int | None = None
    #: the first bad byte (index into ``data``) and why
    bad: int | None = None
    bad_why: str = ""
    #: the batch or region is longer than what the view holds
    truncated: bool = False
    total: int = 0

    def field_at(self, i: int) -> HexField | None:
        for f in self.fields:
            if f.start <= i < f.end:
                return f
        return None


def _x_inverse(v: int, poly: int) -> int:
    """``v`` divided by x modulo the (reflected) polynomial: one LFSR step undone."""
    if v & 0x80000000:
        return (((v ^ poly) << 1) | 1) & 0xFFFFFFFF
    return (v << 1) & 0xFFFFFFFF


def locate_single_bit(data: bytes | memoryview, stored: int, poly: int = POLY_CRC32C
                      ) -> tuple[int, int] | None:
    """(byte index, bit) of the one flipped bit in ``data`` that turns its checksum into
    ``stored``, or None when no single bit does (or ``data`` is too long to search)."""
    n = len(data)
    if n == 0 or n > LOCATE_LIMIT:
        return None
    fn = crc32c if poly == POLY_CRC32C else crc32
    syndrome = fn(data) ^ stored
    if syndrome == 0:
        return None
    # the syndrome of bit 7 of the last byte (fed last, LSB first): independent of data
    zeros = bytes(n)
    v = fn(zeros[:-1] + b"\x80") ^ fn(zeros)
    # bit k of a byte is fed (7 - k) steps before bit 7: its syndrome is v's, stepped
    # forward (7 - k) times; so compare v with the syndrome stepped back as many times
    targets: dict[int, int] = {}
    t = syndrome
    for k in range(7, -1, -1):
        targets[t] = k
        t = _x_inverse(t, poly)
    table = _table(poly)
    for j in range(n - 1, -1, -1):
        bit = targets.get(v)
        if bit is not None:
            return j, bit
        v = (v >> 8) ^ table[v & 0xFF]  # eight LFSR steps: one byte earlier
    return None


_TABLES: dict[int, list[int]] = {}


def _table(poly: int) -> list[int]:
    t = _TABLES.get(poly)
    if t is None:
        t = []
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ (poly if c & 1 else 0)
            t.append(c)
        _TABLES[poly] = t
    return t


def _field_value(name: str, raw: bytes) -> str:
    n = int.from_bytes(raw, "big", signed=name not in ("crc",))
    if name == "attributes":
        return f"0x{n & ((1 << 8 * len(raw)) - 1):0{2 * len(raw)}x}"
    if name == "crc":
        return f"{n} (0x{n:08x})"
    return str(n)


def hex_model(view: PartitionView, row: BatchRow) -> HexModel:
    """The bytes of ``row`` (at most HEX_LIMIT of them), fields named, bad byte marked."""
    src = view.source(row.segment)
    length = row.size if row.size > 0 else min(L.RECORD_BATCH_OVERHEAD, src.size - row.position)
    data = src.pread(row.position, min(length, HEX_LIMIT))
    name = f"{view.segments[row.segment].path} @ byte {row.position}"
    m = HexModel(name, row.position, data, truncated=length > len(data), total=length)
    if row.problem is not None:
        p = row.problem
        m.title = f"{p.kind} at byte {row.position}: {length} bytes ({name})"
        if len(data) >= L.HEADER_SIZE_UP_TO_MAGIC:
            for fname, off, size in (("offset?", 0, 8), ("size?", 8, 4), ("magic?", 16, 1)):
                m.fields.append(HexField(off, off + size, fname,
                                         _field_value(fname, data[off:off + size])))
        m.bad, m.bad_why = _region_bad(p.kind, data), f"{p.kind}: {p.detail}"
        return m
    magic = data[L.MAGIC_OFFSET] if len(data) > L.MAGIC_OFFSET else None
    fields = V2_FIELDS if magic == 2 or row.magic == 2 else LEGACY_FIELDS
    for fname, off, size in fields:
        if off + size <= len(data):
            m.fields.append(HexField(off, off + size, fname, _field_value(fname, data[off:off + size])))
    if fields is LEGACY_FIELDS and magic == 1 and len(data) >= L.LEGACY_V1_TIMESTAMP_OFFSET + 8:
        off = L.LEGACY_V1_TIMESTAMP_OFFSET
        m.fields.append(HexField(off, off + 8, "timestamp", _field_value("timestamp", data[off:off + 8])))
    m.records_start = m.fields[-1].end if m.fields else 0
    if row.note is not None:  # a bad magic byte the reader read past
        m.bad, m.bad_why = L.MAGIC_OFFSET, row.note
    elif row.crc_ok is False:
        crc_at = L.V2_CRC_OFFSET if fields is V2_FIELDS else L.LEGACY_CRC_OFFSET
        start = L.V2_ATTRIBUTES_OFFSET if fields is V2_FIELDS else L.MAGIC_OFFSET
        poly = POLY_CRC32C if fields is V2_FIELDS else POLY_CRC32
        checked = data[start:] if not m.truncated else (
            src.pread(row.position + start, length - start)
            if length - start <= LOCATE_LIMIT else b"")
        hit = locate_single_bit(checked, row.stored_crc or 0, poly) if checked else None
        said = (f"stored crc {row.stored_crc} does not match the computed {row.computed_crc}")
        if hit is not None:
            j, k = hit
            m.bad = start + j
            f = m.field_at(m.bad)
            where = f"in {f.name}" if f is not None else "in the records area"
            if m.bad >= len(data):
                where += " (past the bytes shown)"
            m.bad_why = (f"{said}: one flipped bit explains it exactly: byte {m.bad} of the "
                         f"batch (file byte {row.position + m.bad}), bit {k}, {where}")
        elif length - start > LOCATE_LIMIT:
            m.bad = crc_at
            m.bad_why = (f"{said}: a single flipped bit was not looked for: locating one "
                         f"stops at {LOCATE_LIMIT >> 20} MiB of checked bytes and this batch "
                         f"checks {length - start}; the damage is somewhere in bytes "
                         f"{start}..{length - 1} of the batch (the checked bytes)")
        else:
            m.bad = crc_at
            m.bad_why = (f"{said}: no single flipped bit explains it; the damage is somewhere "
                         f"in bytes {start}..{length - 1} of the batch (the checked bytes)")
    return m


def _region_bad(kind: str, data: bytes) -> int:
    """The first byte that cannot start a batch, by the reader's reason."""
    if kind == "bad-magic" and len(data) > L.MAGIC_OFFSET:
        return L.MAGIC_OFFSET
    if kind == "bad-length" and len(data) >= L.LOG_OVERHEAD:
        return L.SIZE_OFFSET
    return 0
