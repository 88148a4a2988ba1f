"""Records as packed columns: what ``kdump export`` (and the ``kafka_log`` Spark data
source) write, as flat buffers rather than one object per record.

A batch's records become :data:`Packed`, twelve ``bytes`` objects in the machine's byte
order (the order Arrow's buffers take):

====  ===============  =====  ====================================================
 #    part             type   what
====  ===============  =====  ====================================================
 0    offsets          int64  each record's offset
 1    timestamps       int64  its timestamp (LogAppendTime: the batch's max timestamp)
 2    key lengths      int32  each key's length, -1 for a null key
 3    keys             bytes  the keys, one after the other
 4    value lengths    int32  -1 for a null value (a tombstone)
 5    values           bytes
 6    header counts    int32  headers per record
 7    header key lens  int32  (header keys are never null)
 8    header keys      bytes  UTF-8 text (bytes that are not UTF-8 read with U+FFFD)
 9    header val lens  int32  -1 for a null header value
 10   header values    bytes
 11   sequences        int32  each record's producer sequence (-1: none)
====  ===============  =====  ====================================================

Lengths rather than Arrow's offsets, so the parts of consecutive batches concatenate as
they are (``b"".join``); :func:`lengths_offsets` turns a column's lengths into Arrow's
offsets and validity bitmap once per row group.

A v2 batch is packed straight from its bytes by the native ``packed_v2_records``
(kdump/_speedups_packed.c), with no Record objects; its pure-Python twin
:func:`kdump.records.v2.packed_v2_records_py` decodes the records and packs them with
:func:`pack_columns`, which also packs the records of legacy batches and of paths that
need Record objects (decoders, redaction).  tests/native/test_speedups.py proves both give the
same bytes, faults included.

Offsets and timestamps are Java longs in Kafka: ``baseOffset + offsetDelta`` and
``baseTimestamp + timestampDelta`` (DefaultRecord.readFrom) wrap past 2^63 - 1, and so
do they here (:func:`wrap64`); Python's ints, as ``dump`` prints them, do not.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from itertools import accumulate, chain
from typing import Any

from .native import speedups

#: a batch's records as twelve packed parts (the table above)
Packed = tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes]

PACKED_PARTS = ("offsets", "timestamps", "key_lengths", "keys", "value_lengths", "values",
                "header_counts", "header_key_lengths", "header_keys", "header_value_lengths",
                "header_values", "sequences")
(OFFSETS, TIMESTAMPS, KEY_LENGTHS, KEYS, VALUE_LENGTHS, VALUES, HEADER_COUNTS,
 HEADER_KEY_LENGTHS, HEADER_KEYS, HEADER_VALUE_LENGTHS, HEADER_VALUES, SEQUENCES) = range(12)

_native_offsets = None if speedups is None else speedups.lengths_offsets



def wrap64(v: int) -> int:
    """A Java long's value of ``v`` (two's complement, 64 bits)."""
    return ((v + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def _int64s(values: Sequence[int]) -> bytes:
    try:
        return array("q", values).tobytes()
    except OverflowError:
        return array("q", map(wrap64, values)).tobytes()


def _lengths(values: Sequence[bytes | None]) -> bytes:
    return array("i", [-1 if v is None else len(v) for v in values]).tobytes()


def pack_columns(offsets: Sequence[int], timestamps: Sequence[int],
                 keys: Sequence[bytes | None], values: Sequence[bytes | None],
                 headers: Sequence[Sequence[tuple[bytes, bytes | None]]],
                 sequences: Sequence[int]) -> Packed:
    """Records' six columns (as :func:`kdump.ops.export.rows.record_columns` gives them:
    headers as read, keys bytes) packed."""
    hkeys = [k.decode("utf-8", "replace").encode("utf-8") for k, _ in chain.from_iterable(headers)]
    hvalues = [v for _, v in chain.from_iterable(headers)]
    return (
        _int64s(offsets), _int64s(timestamps),
        _lengths(keys), b"".join(filter(None, keys)),
        _lengths(values), b"".join(filter(None, values)),
        array("i", map(len, headers)).tobytes(),
        _lengths(hkeys), b"".join(hkeys),
        _lengths(hvalues), b"".join(filter(None, hvalues)),
        array("i", sequences).tobytes(),
    )


def lengths_offsets(lengths: bytes) -> tuple[bytes, bytes | None, int]:
    """Arrow's buffers of a variable-size column from its packed int32 ``lengths`` (-1:
    null): ``(offsets, validity bitmap or None without a null, null count)``, the
    int32 offsets from 0 (natively when the extension is built).  OverflowError when
    the column holds more than 2^31 - 1 bytes (Arrow's int32 offsets)."""
    if _native_offsets is not None:
        res = _native_offsets(lengths)
        if res is not NotImplemented:
            return res
    return lengths_offsets_py(lengths)


def lengths_offsets_py(lengths: bytes) -> tuple[bytes, bytes | None, int]:
    """The pure-Python twin of the native ``lengths_offsets``."""
    lens = array("i")
    lens.frombytes(lengths)
    offsets = array("i", [0])
    offsets.extend(accumulate(max(n, 0) for n in lens))  # OverflowError past 2^31 - 1
    nulls = sum(1 for n in lens if n < 0)
    if not nulls:
        return offsets.tobytes(), None, 0
    return offsets.tobytes(), bitmap(n >= 0 for n in lens), nulls


def bitmap(flags: Iterable[Any]) -> bytes:
    """Arrow's bitmap of ``flags`` (bit i of byte i // 8 set for a true flag i)."""
    out = bytearray()
    byte = bit = 0
    for f in flags:
        if f:
            byte |= 1 << bit
        bit += 1
        if bit == 8:
            out.append(byte)
            byte = bit = 0
    if bit:
        out.append(byte)
    return bytes(out)


def unpack(packed: Packed) -> list[list[Any]]:
    """The six columns back from packed parts (for inspection and tests):
    offsets, timestamps, keys, values, headers (``(key text, value)`` pairs), sequences."""
    def ints(part: bytes, code: str) -> list[int]:
        a = array(code)
        a.frombytes(part)
        return a.tolist()

    def split(lens: list[int], data: bytes) -> list[bytes | None]:
        out: list[bytes | None] = []
        at = 0
        for n in lens:
            if n < 0:
                out.append(None)
            else:
                out.append(data[at:at + n])
                at += n
        return out

    keys = split(ints(packed[KEY_LENGTHS], "i"), packed[KEYS])
    values = split(ints(packed[VALUE_LENGTHS], "i"), packed[VALUES])
    hkeys = split(ints(packed[HEADER_KEY_LENGTHS], "i"), packed[HEADER_KEYS])
    hvalues = split(ints(packed[HEADER_VALUE_LENGTHS], "i"), packed[HEADER_VALUES])
    headers: list[list[tuple[str, bytes | None]]] = []
    at = 0
    for n in ints(packed[HEADER_COUNTS], "i"):
        headers.append([((k or b"").decode("utf-8"), v)
                        for k, v in zip(hkeys[at:at + n], hvalues[at:at + n], strict=True)])
        at += n
    return [ints(packed[OFFSETS], "q"), ints(packed[TIMESTAMPS], "q"), keys, values, headers,
            ints(packed[SEQUENCES], "i")]


__all__ = ["PACKED_PARTS", "Packed", "bitmap", "lengths_offsets", "lengths_offsets_py",
           "pack_columns", "unpack", "wrap64"]
