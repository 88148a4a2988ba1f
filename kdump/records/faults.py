"""Record faults: what can be wrong inside a v2 batch's records area, as codes.

Both record walkers (the Python one in :mod:`kdump.records.walk` and the C one in
``kdump/_speedups_walk.c``) stop at the first fault and report it as a tuple
``(code, record, at, a, b)``: the fault's code, the index of the record it is in,
the byte where that record starts (or where reading stopped, for the count faults) in
the walked buffer, and up to two numbers.  This module turns such a tuple into words,
once, for every command: ``dump`` and ``verify-crc`` name a fault with the same kind,
byte and words.  The C side reads the codes from ``kdump/_layouts.h``, generated from
this table (``python -m kdump.records.cheader``).

Checks and their order follow clients/src/main/java/org/apache/kafka/common/record/
DefaultRecord.java (readFrom, readHeaders) and DefaultRecordBatch.java (the records
count against the records present).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from ..errors import CorruptDataError
from ..limits import DEFAULT_MAX_BATCH_BYTES, HEADER_COST, OBJECT_COST, max_objects

#: DEFAULT_MAX_BATCH_BYTES, OBJECT_COST, HEADER_COST and max_objects live in
#: :mod:`kdump.limits` (the message reader needs them too) and are re-exported here

#: a fault as the walkers return it: (code, record index, byte, a, b)
FaultTuple = tuple[int, int, int, int, int]


class Fault(IntEnum):
    """Every record-level fault; the value is the code both walkers use."""

    COUNT_SHORT = 1  # fewer records than recordsCount
    BYTES_REMAIN = 2  # bytes after recordsCount records
    LENGTH_INVALID = 3  # record length below the smallest record
    LENGTH_PAST_END = 4  # record length past the end of the records area
    VARINT_PAST_END = 5  # a varint of the record runs past its data
    VARINT_TOO_LONG = 6  # a varint longer than Kafka allows
    KEY_PAST_END = 7
    VALUE_PAST_END = 8
    HEADER_COUNT_NEGATIVE = 9
    HEADER_KEY_NEGATIVE = 10
    HEADER_KEY_PAST_END = 11
    HEADER_VALUE_PAST_END = 12
    BODY_SIZE = 13  # fields do not fill the declared length exactly
    TOO_MANY_HEADERS = 14  # the batch's headers exceed what --max-batch-bytes allows
    COUNT_NEGATIVE = 15  # recordsCount below 0


#: the one message table: code -> (finding kind, words); ``{a}``, ``{b}`` are the
#: fault's numbers, ``{count}`` the batch's recordsCount, ``{record}`` its index
MESSAGES: Final[dict[Fault, tuple[str, str]]] = {
    Fault.COUNT_SHORT: ("record-count", "batch declares {count} records but its data ends "
                        "after {record}"),
    Fault.BYTES_REMAIN: ("record-count", "{a} bytes remain after the {count} records the "
                         "batch declares"),
    Fault.COUNT_NEGATIVE: ("record-count", "negative records count {count}"),
    Fault.LENGTH_INVALID: ("invalid-record", "invalid record length {a}"),
    Fault.LENGTH_PAST_END: ("invalid-record", "record length {a} runs past the end of the "
                            "records ({b} bytes left)"),
    Fault.VARINT_PAST_END: ("invalid-record", "varint runs past the end of the record"),
    Fault.VARINT_TOO_LONG: ("invalid-record", "varint is longer than {a} bytes"),
    Fault.KEY_PAST_END: ("invalid-record", "key length {a} runs past the record"),
    Fault.VALUE_PAST_END: ("invalid-record", "value length {a} runs past the record"),
    Fault.HEADER_COUNT_NEGATIVE: ("invalid-record", "invalid number of record headers {a}"),
    Fault.HEADER_KEY_NEGATIVE: ("invalid-record", "invalid header key length {a}"),
    Fault.HEADER_KEY_PAST_END: ("invalid-record", "header key length {a} runs past the "
                                "record"),
    Fault.HEADER_VALUE_PAST_END: ("invalid-record", "header value length {a} runs past the "
                                  "record"),
    Fault.BODY_SIZE: ("invalid-record", "record body declares {a} bytes but its fields "
                      "take {b}"),
    Fault.TOO_MANY_HEADERS: ("record-too-large", "the batch's records hold more than {b} "
                             "headers, the most --max-batch-bytes {max_batch_bytes} allows "
                             "({cost} bytes each); raise --max-batch-bytes to read them"),
}


class RecordFault(CorruptDataError):
    """A record-level fault, located: ``kind`` is the finding kind of its code."""

    def __init__(self, message: str, fault: Fault, record: int, *, path: str | None = None,
                 position: int | None = None, base_offset: int | None = None) -> None:
        super().__init__(message, path=path, position=position, base_offset=base_offset)
        self.fault = fault
        self.record = record

    @property
    def kind(self) -> str:
        return MESSAGES[self.fault][0]


max_headers = max_objects


def describe(fault: FaultTuple, count: int, max_batch_bytes: int) -> str:
    """The words of a fault, without its place."""
    code, record, _, a, b = fault
    return MESSAGES[Fault(code)][1].format(a=a, b=b, count=count, record=record,
                                           max_batch_bytes=max_batch_bytes, cost=HEADER_COST)


def located(fault: FaultTuple, *, count: int, max_batch_bytes: int, start: int, shift: int,
            compressed: bool, path: str | None, position: int | None,
            base_offset: int | None) -> RecordFault:
    """The fault as an error: ``record N (byte P): words``.  ``P`` is absolute in the
    file (``at + shift``) for a stored records area, and ``at - start`` (``decompressed
    byte``) inside a decompressed one."""
    code, record, at, _, _ = fault
    where = (f"record {record} (decompressed byte {at - start})" if compressed
             else f"record {record} (byte {at + shift})")
    return RecordFault(f"{where}: {describe(fault, count, max_batch_bytes)}", Fault(code),
                       record, path=path, position=position, base_offset=base_offset)


__all__ = [
    "DEFAULT_MAX_BATCH_BYTES",
    "HEADER_COST",
    "MESSAGES",
    "OBJECT_COST",
    "Fault",
    "FaultTuple",
    "RecordFault",
    "describe",
    "located",
    "max_headers",
    "max_objects",
]
