"""The native extension (kdump._speedups) against its pure-Python twins.

Every native function must give exactly what its twin gives: the same records (every
field), the same statistics, the same error messages at the same positions, on every
fixture the project can write, on damaged batches, and on arbitrary bytes.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kdump.findings import Problem
from kdump.records import scan as scan_mod
from kdump.records import v2 as v2_mod
from kdump.records.faults import HEADER_COST, max_headers
from kdump.records.file_records import LogReader
from kdump.records.native import speedups
from kdump.records.packed import unpack, wrap64
from kdump.records.record import Record
from kdump.records.scan import RecordScan, scan_v2_records_py
from kdump.records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch, decode_records_py, packed_v2_records_py
from kdump.source import FileSource
from tests.support.writer import (
    GZIP,
    LZ4,
    NONE,
    SNAPPY,
    ZSTD,
    Rec,
    big_segment,
    legacy_message,
    v2_batch,
    varint,
    varlong,
    write_sample_logdir,
)

native = pytest.mark.skipif(speedups is None, reason="kdump._speedups is not built")

#: how verify-crc's native walk gets the bytes of a local file (kdump.records.file_records):
#: it reads them itself (pread in C), with or without a thread reading ahead, or Python
#: reads them into buffers it hands to the walk
READS = {"native+ahead": (True, True), "native": (True, False), "python": (False, None),
         # back to Python every 1000 bytes (NATIVE_STEP: each run ends where a batch
         # would start past it)
         "native+ahead, short steps": (True, True)}


def _set_reads(file_records: Any, how: str, setattr: Callable[[Any, str, Any], None]) -> None:
    setattr(file_records, "NATIVE_READS", READS[how][0])
    setattr(file_records, "READ_AHEAD", READS[how][1])
    setattr(file_records, "NATIVE_STEP", 1000 if "short steps" in how else 64 << 20)


@pytest.fixture(params=list(READS))
def reads(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way of reading, in turn (the findings must not depend on it)."""
    from kdump.records import file_records

    _set_reads(file_records, request.param, monkeypatch.setattr)
    return str(request.param)

RECORD_FIELDS = tuple(Record.__slots__)
SCAN_FIELDS = tuple(RecordScan.__slots__)


def record_tuple(r: Record) -> tuple[Any, ...]:
    return tuple((name, getattr(r, name)) for name in RECORD_FIELDS)


def scan_tuple(s: RecordScan) -> tuple[Any, ...]:
    return tuple((name, getattr(s, name)) for name in SCAN_FIELDS)


HEADERS_MAX = max_headers(DEFAULT_MAX_BATCH_BYTES)


def assert_same_scan(buf: bytes, start: int, end: int, count: int,
                     headers: int = HEADERS_MAX) -> RecordScan:
    assert speedups is not None
    py = scan_v2_records_py(buf, start, end, count, headers * HEADER_COST)
    nat = speedups.scan_v2_records(buf, start, end, count, headers, RecordScan)
    assert nat is not NotImplemented
    assert type(nat) is RecordScan
    assert scan_tuple(nat) == scan_tuple(py)
    return py


def decode_args(buf: bytes, start: int, end: int, count: int, *rest: Any,
                record: int = 0, want: int | None = None,
                headers: int = HEADERS_MAX) -> tuple[Any, ...]:
    """The decoders' arguments from (buf, start, end, count, base_offset, base_timestamp,
    append_time, base_sequence, shift, compressed)."""
    return (buf, start, end, record, count, count if want is None else want, headers,
            headers, *rest)


def assert_same_packed(full: tuple[Any, ...], py: tuple[list[Record], Any, int]) -> None:
    """kdump export's packed columns (kdump.records.packed): native and twin give the
    same bytes, the same fault and stop, and the records ``decode_records_py`` decodes
    (before the fault too; offsets and timestamps as Java longs)."""
    assert speedups is not None
    buf, start, end, _record, count, _want, _left, hmax, bo, bts, append, seq = full[:12]
    args = (buf, start, end, count, hmax, bo, bts, append, seq)
    nat = speedups.packed_v2_records(*args)
    twin = packed_v2_records_py(*args)
    assert nat is not NotImplemented
    assert nat == twin
    assert all(type(part) is bytes for part in nat[0])
    records, fault, stop = py
    assert (nat[1], nat[2], nat[3]) == (len(records), fault, stop)
    assert unpack(nat[0]) == [
        [wrap64(r.offset) for r in records], [wrap64(r.timestamp) for r in records],
        [r.key for r in records], [r.value for r in records],
        [[(k.decode("utf-8", "replace"), v) for k, v in r.headers] for r in records],
        [r.sequence for r in records]]


def assert_same_decode(*args: Any, headers: int = HEADERS_MAX
                       ) -> tuple[list[Record], Any, int]:
    """Both decoders, whole and in chunks of 2 records, give the same records and
    faults; so do export's packed columns (:func:`assert_same_packed`)."""
    assert speedups is not None
    full = decode_args(*args, headers=headers)
    py = decode_records_py(*full)
    nat = speedups.decode_v2_records(*full, Record)
    assert nat is not NotImplemented
    assert nat[1:] == py[1:]
    assert_same_packed(full, py)
    assert [record_tuple(r) for r in nat[0]] == [record_tuple(r) for r in py[0]]
    for r in nat[0]:
        assert type(r) is Record
        assert type(r.key) in (bytes, type(None)) and type(r.value) in (bytes, type(None))
        assert all(type(h) is tuple for h in r.headers)
    if args[3] > 2 and py[0]:  # the second chunk of two, from where the first stopped
        chunk = decode_args(*args, headers=headers, want=2)
        first = decode_records_py(*chunk)
        if first[1] is None:
            second = decode_args(args[0], first[2], *args[2:], headers=headers, record=2,
                                 want=2)
            assert speedups.decode_v2_records(*second, Record)[1:] == \
                decode_records_py(*second)[1:]
    return py


def batch_args(b: RecordBatch) -> tuple[Any, ...]:
    """(buf, start, end, count, base_offset, base_timestamp, append_time, base_sequence,
    shift, compressed) of a batch."""
    buf, start, end = b.payload()
    compressed = b.is_compressed
    shift = 0 if compressed else b.position - b.index
    append_time = b.max_timestamp if b.attributes & 0x08 else None
    return (buf, start, end, b.records_count, b.base_offset, b.base_timestamp, append_time,
            b.base_sequence, shift, compressed)


def check_batch(b: RecordBatch) -> None:
    try:
        args = batch_args(b)
    except Exception:
        return  # decompression failures never reach the record decoders
    assert_same_decode(*args)
    assert_same_scan(args[0], args[1], args[2], max(b.records_count, 0))
    assert_same_scan(args[0], args[1], args[2], b.records_count)


def batches_of(path: Path) -> list[RecordBatch]:
    out = []
    with FileSource(str(path)) as src:
        for item in LogReader(src):
            if isinstance(item, RecordBatch):
                out.append(item)
    return out


@pytest.fixture(scope="module")
def sample_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("speedups") / "logdir"
    write_sample_logdir(root)
    return root


# --- selection ------------------------------------------------------------------------
def test_pure_python_forced_by_environment() -> None:
    code = ("import kdump.records.native as n, kdump.records.scan as s, kdump.records.v2 as v;"
            "print(n.speedups, s._native_scan, v._native_decode)")
    env = dict(os.environ, KDUMP_PURE_PYTHON="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["None", "None", "None"]


@native
def test_native_selected_by_default() -> None:
    env = {k: v for k, v in os.environ.items() if k != "KDUMP_PURE_PYTHON"}
    code = "import kdump.records.scan as s; print(s._native_scan is not None)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "True"


# --- every fixture ----------------------------------------------------------------------
@native
def test_sample_logdir_every_batch(sample_logdir: Path) -> None:
    logs = sorted(sample_logdir.rglob("*.log")) + sorted(sample_logdir.rglob("*.checkpoint"))
    n = 0
    for log in logs:
        for b in batches_of(log):
            check_batch(b)
            n += 1
    assert n > 10


HEADERS = [("h1", b"v1"), ("", b""), ("nul", None), ("\u00e9t\u00e9", b"\xff\xfe")]


def rich_records(n: int) -> list[Rec]:
    out = []
    for i in range(n):
        key = None if i % 5 == 0 else b"" if i % 7 == 0 else b"key-%d" % i
        value = None if i % 6 == 0 else b"\xc3\x28bad" if i % 4 == 0 else b"value %d" % i * (i % 3)
        out.append(Rec(key=key, value=value, headers=HEADERS[: i % 5],
                       timestamp=1_700_000_000_000 + (i * 37) % 11 - 5))
    return out


@native
@pytest.mark.parametrize("codec", [NONE, GZIP, SNAPPY, LZ4, ZSTD])
@pytest.mark.parametrize("variant", ["plain", "append-time", "sequence-wrap", "huge-offsets",
                                     "delete-horizon", "gaps"])
def test_codecs_and_header_variants(codec: int, variant: str) -> None:
    recs = rich_records(40)
    kw: dict[str, Any] = {"codec": codec, "base_offset": 1000}
    if variant == "append-time":
        kw["log_append_time"] = 1_700_000_999_999
    elif variant == "sequence-wrap":
        kw.update(producer_id=7, producer_epoch=1, base_sequence=2**31 - 10)
    elif variant == "huge-offsets":
        kw["base_offset"] = 2**63 - 5  # base offset + delta overflows int64
        kw["first_timestamp"] = 2**63 - 3
    elif variant == "delete-horizon":
        kw["delete_horizon_ms"] = 1_700_000_100_000
    elif variant == "gaps":
        for i, r in enumerate(recs):
            r.offset_delta = i * 3
    data = v2_batch(recs, **kw)
    b = RecordBatch("x.log", 100, b"\0" * 7 + data, 7)
    check_batch(b)
    if variant == "huge-offsets":
        records, _ = b.decode_records()
        assert records[-1].offset > 2**63 - 1


# --- damage -----------------------------------------------------------------------------
def _records_area() -> tuple[bytes, int]:
    recs = rich_records(12)
    data = v2_batch(recs, codec=NONE)
    return data, len(recs)


@native
def test_every_single_byte_change() -> None:
    """Each byte of a records area replaced by several values: identical outcomes."""
    data, count = _records_area()
    area = bytearray(data[61:])
    for i in range(len(area)):
        for v in (0x00, 0x01, 0x7F, 0x80, 0xFF, area[i] ^ 0x40):
            mutated = bytearray(area)
            mutated[i] = v
            buf = bytes(b"\xaa" * 3 + mutated + b"\xbb" * 2)
            end = 3 + len(mutated)
            assert_same_scan(buf, 3, end, count)
            assert_same_decode(buf, 3, end, count, 50, 1_700_000_000_000, None, 5, 11, False)


@native
def test_truncations_and_wrong_counts() -> None:
    data, count = _records_area()
    area = data[61:]
    for cut in range(len(area) + 1):
        buf = area[:cut]
        for c in (count, count - 1, count + 1, 0, -1):
            assert_same_scan(buf, 0, cut, c)
            assert_same_decode(buf, 0, cut, c, 0, 0, None, -1, 0, True)


@native
def test_hostile_varints() -> None:
    """Varints longer than allowed, lengths past the end, negative counts, 64-bit edges."""
    ten = b"\xff" * 9 + b"\x01"
    eleven = b"\xff" * 10 + b"\x01"
    cases = [
        varint(6) + b"\x00" + ten,  # timestamp delta of 10 bytes, record too short
        varint(20) + b"\x00" + eleven + b"\x00" * 9,  # 11-byte varlong
        b"\xff\xff\xff\xff\xff\x01",  # length varint of 6 bytes
        b"\xff\xff\xff\xff\x0f" + b"\x00" * 10,  # length 2^32-1 -> masked, zigzag
        varint(8) + b"\x00" + varlong(-(2**63)) + b"\x00" * 4,
        varint(10) + b"\x00\x00\x00" + varint(-1) + varint(-1) + varint(-5) + b"\x00\x00\x00",
        varint(9) + b"\x00\x00\x00\x00\x00" + varint(2**31 - 1) + b"\x00\x00\x00",
        varint(9) + b"\x00\x00\x00\x00\x00" + varint(1) + varint(-3) + b"\x00\x00",
        varint(9) + b"\x00\x00\x00\x00\x00" + varint(1) + varint(40) + b"\x00\x00",
        varint(7) + b"\x00\x00\x00" + varint(100) + b"\x00\x00\x00",
    ]
    for area in cases:
        for c in (1, 2, 2**31 - 1):
            assert_same_scan(area, 0, len(area), c)
            for bo, bts in ((0, 0), (2**63 - 1, 2**63 - 1), (-(2**63), -(2**63))):
                assert_same_decode(area, 0, len(area), c, bo, bts, None, 2**31 - 1, 0, True)


@native
def test_out_of_domain_returns_notimplemented() -> None:
    assert speedups is not None
    buf = b"\x00" * 10
    assert speedups.scan_v2_records(buf, -1, 5, 1, 9, RecordScan) is NotImplemented
    assert speedups.scan_v2_records(buf, 0, 11, 1, 9, RecordScan) is NotImplemented
    assert speedups.scan_v2_records(buf, 0, 5, 2**64, 9, RecordScan) is NotImplemented
    args = (0, 10, 0, 1, 1, 9, 9, 0, 0, None, -1, 0, False, Record)
    assert speedups.decode_v2_records(bytearray(buf), *args) is NotImplemented
    assert speedups.decode_v2_records(memoryview(buf), *args) is NotImplemented
    assert speedups.decode_v2_records(buf, 0, 11, *args[2:]) is NotImplemented
    assert speedups.decode_v2_records(buf, 0, 10, 0, 1, 1, 9, 9, 2**70, *args[8:]) \
        is NotImplemented
    # the wrappers fall back to the twins there
    assert scan_mod.scan_v2_records(buf, 0, 11, 1) == scan_v2_records_py(buf, 0, 11, 1)
    assert scan_v2_records_py(bytearray(buf), 0, 10, 1) == scan_mod.scan_v2_records(
        bytearray(buf), 0, 10, 1)
    b = RecordBatch("x.log", 0, v2_batch(rich_records(3)), 0)
    b.data = bytearray(b.data)  # type: ignore[assignment]
    records, error = b.decode_records()  # bytearray: the Python decoder, bytearray slices
    assert error is None and len(records) == 3
    assert all(r.key is None or type(r.key) is bytearray for r in records)


@native
def test_scan_accepts_any_buffer() -> None:
    data, count = _records_area()
    for buf in (bytearray(data), memoryview(data)):
        py = scan_v2_records_py(data, 61, len(data), count)
        nat = scan_mod.scan_v2_records(buf, 61, len(data), count)  # type: ignore[arg-type]
        assert scan_tuple(nat) == scan_tuple(py)


@native
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(area=st.binary(max_size=200), count=st.integers(-2, 6), start=st.integers(0, 3))
def test_arbitrary_bytes(area: bytes, count: int, start: int) -> None:
    start = min(start, len(area))
    assert_same_scan(area, start, len(area), count)
    assert_same_decode(area, start, len(area), count, 10, 1000, None, 3, 7, False)


#: UTF-8 text around the characters the JSON writers escape (C1 and bidi controls) and
#: their neighbours, so both writers' escaping is compared where it matters
_tricky = st.text(alphabet=st.sampled_from(
    "a\"\\\n\x1f\x7f\x80\x9f\xa0\u061b\u061c\u061d\u200d\u200e\u200f\u2029\u202a"
    "\u202e\u202f\u2065\u2066\u2069\u206a\U0001f600"), max_size=12).map(
    lambda t: t.encode("utf-8"))
_payload = st.one_of(st.binary(max_size=20), _tricky)
_rec = st.builds(
    Rec,
    key=st.one_of(st.none(), _payload),
    value=st.one_of(st.none(), st.binary(max_size=300), _tricky),
    headers=st.lists(st.tuples(_payload, st.one_of(st.none(), _payload)), max_size=3),
    timestamp=st.one_of(st.none(), st.integers(0, 2**42)),
)


@native
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recs=st.lists(_rec, min_size=0, max_size=8), codec=st.sampled_from([NONE, LZ4, ZSTD]),
       seq=st.sampled_from([-1, 0, 2**31 - 3]), flip=st.integers(0, 10_000))
def test_generated_batches(recs: list[Rec], codec: int, seq: int, flip: int) -> None:
    data = v2_batch(recs, codec=codec, base_offset=5, producer_id=1 if seq >= 0 else -1,
                    base_sequence=seq)
    check_batch(RecordBatch("x.log", 0, data, 0))
    if codec == NONE and len(data) > 61:
        i = 61 + flip % (len(data) - 61)
        damaged = bytearray(data)
        damaged[i] ^= 0x80 | (flip & 0x7F)
        check_batch(RecordBatch("x.log", 0, bytes(damaged), 0))


# --- events and the whole pipeline --------------------------------------------------------
@native
def test_record_events_match_python(sample_logdir: Path) -> None:
    """Native events are RecordEvent(record), with what the string/string decoder gives."""
    from kdump.decoders import KeyValueDecoder
    from kdump.decoders.base import Decoded
    from kdump.ops.events import RecordEvent

    assert speedups is not None
    records = []
    for log in sorted(sample_logdir.rglob("*.log")):
        for b in batches_of(log):
            try:
                records += b.decode_records()[0]
            except Exception:
                pass
    records += v2_mod.decode_records_py(*decode_args(*batch_args(RecordBatch(
        "x.log", 0, v2_batch(rich_records(30)), 0))))[0]
    assert len(records) > 50
    kv = KeyValueDecoder("string", "string")
    expected = {
        None: [RecordEvent(r) for r in records],
        Decoded: [RecordEvent(r, kv.decode(r.key, r.value, r.offset)) for r in records],
    }
    from kdump.ops.dump import _record_events_py

    for dec, want in expected.items():
        for fn in (speedups.record_events, _record_events_py):
            got = fn(records, RecordEvent, dec)
            assert [(e.record, e.decoded, e.control) for e in got] == \
                [(e.record, e.decoded, e.control) for e in want]
            assert all(type(e) is RecordEvent for e in got)


def _events_for(batch: RecordBatch, records: list[Record]) -> list[list[Any]]:
    """Event lists as dump builds them: no decoder, string/string, other decoders."""
    from kdump.decoders import KeyValueDecoder
    from kdump.ops.events import RecordEvent

    out: list[list[Any]] = [[RecordEvent(r) for r in records]]
    for k, v in (("string", "string"), ("hex", "base64"), ("none", "json"), ("int", "long")):
        kv = KeyValueDecoder(k, v)
        out.append([RecordEvent(r, kv.decode(r.key, r.value, r.offset)) for r in records])
    return out


def _render_cases(sample_logdir: Path) -> list[tuple[RecordBatch, list[Any]]]:
    cases = []
    batches = [b for log in sorted(sample_logdir.rglob("*.log")) for b in batches_of(log)]
    for codec in (NONE, LZ4):
        for variant in ({}, {"log_append_time": 1_700_000_999_999},
                        {"base_offset": 2**63 - 5, "first_timestamp": 2**63 - 3}):
            data = v2_batch(rich_records(25), codec=codec, **variant)  # type: ignore[arg-type]
            batches.append(RecordBatch("dir/we\"ird\u00e9\n.log", 3, data, 0))
    for b in batches:
        if b.magic < 2 or b.is_control:
            continue
        try:
            records, _ = b.decode_records()
        except Exception:
            continue
        for events in _events_for(b, records):
            cases.append((b, events))
    return cases


@native
def test_text_record_lines_match_python(sample_logdir: Path) -> None:
    from kdump.decoders.base import Decoded
    from kdump.ops.events import BatchEvent, RecordEvent
    from kdump.render.text import record_lines

    assert speedups is not None
    n = 0
    for b, events in _render_cases(sample_logdir):
        for skip in (False, True):
            for contents in (False, True):
                want = "".join(line + "\n" for line in
                               record_lines(BatchEvent(b, events), skip, contents))
                got = speedups.text_record_lines(events, b.timestamp_type, skip, contents,
                                                 RecordEvent, Record, Decoded)
                assert got == want
                n += 1
    assert n > 100


@native
def test_json_record_lines_match_python(sample_logdir: Path) -> None:
    """The native record writer writes, byte for byte, what record_object (the output
    model's record, kdump.model) gives."""
    from kdump.decoders.base import Decoded
    from kdump.ops.events import RecordEvent
    from kdump.render.jsonl import json_text, record_object, record_prefix, structured_of

    assert speedups is not None
    handled = declined = 0
    for b, events in _render_cases(sample_logdir):
        for encoding, code in (("utf8", 0), ("base64", 1), ("hex", 2)):
            prefix = record_prefix(b)
            got = speedups.json_record_lines(events, prefix, json_text(b.timestamp_type), code,
                                             RecordEvent, Record, Decoded, b.crc_valid)
            if got is NotImplemented:
                # only events with structured payloads or decode errors are declined
                assert any(ev.decoded is not None and (
                    ev.decoded.key_json is not None or ev.decoded.value_json is not None
                    or ev.decoded.error) for ev in events)
                declined += 1
                continue
            want = "".join(json_text(record_object(b, ev, encoding, structured_of(ev))) + "\n"
                           for ev in events)
            assert got == want
            handled += 1
    assert handled > 50 and declined > 5


def test_pure_twins_match_the_reference(sample_logdir: Path) -> None:
    """Without the extension too: the Python fast paths give what the general code gives."""
    from kdump.decoders import KeyValueDecoder
    from kdump.decoders.base import Decoded
    from kdump.ops.dump import _record_events_py
    from kdump.ops.events import RecordEvent

    kv = KeyValueDecoder("string", "string")
    handled = 0
    for _b, events in _render_cases(sample_logdir):
        records = [ev.record for ev in events]
        assert [(e.record, e.decoded) for e in _record_events_py(records, RecordEvent, None)] \
            == [(r, None) for r in records]
        assert [e.decoded for e in _record_events_py(records, RecordEvent, Decoded)] \
            == [kv.decode(r.key, r.value, r.offset) for r in records]
        handled += 1
    assert handled > 50


@native
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recs=st.lists(_rec, min_size=1, max_size=6))
def test_renderers_on_generated_payloads(recs: list[Rec]) -> None:
    from kdump.decoders.base import Decoded
    from kdump.ops.events import BatchEvent, RecordEvent
    from kdump.render.jsonl import json_text, record_object, record_prefix, structured_of
    from kdump.render.text import record_lines

    assert speedups is not None
    b = RecordBatch("p.log", 0, v2_batch(recs), 0)
    records, _ = b.decode_records()
    for events in _events_for(b, records)[:2]:
        want = "".join(line + "\n" for line in record_lines(BatchEvent(b, events), False, True))
        assert speedups.text_record_lines(events, b.timestamp_type, False, True, RecordEvent,
                                          Record, Decoded) == want
        for encoding, code in (("utf8", 0), ("base64", 1), ("hex", 2)):
            want = "".join(json_text(record_object(b, ev, encoding, structured_of(ev))) + "\n"
                           for ev in events)
            prefix = record_prefix(b)
            assert speedups.json_record_lines(events, prefix, '"CreateTime"', code, RecordEvent,
                                              Record, Decoded, b.crc_valid) == want
            if code == 0:  # a batch whose CRC fails: every record says so
                assert speedups.json_record_lines(
                    events, prefix, '"CreateTime"', code, RecordEvent, Record, Decoded,
                    False) == want.replace(',"crc_valid":true,', ',"crc_valid":false,')


def _damaged_segments(root: Path) -> list[Path]:
    """Segments with every kind of batch verify-crc has something to say about, between
    clean ones, so the native fast path must stop and resume around each."""
    from tests.support.writer import end_txn_marker_batch

    def clean(base: int, n: int = 5, **kw: Any) -> bytes:
        return v2_batch(rich_records(n), base_offset=base, **kw)

    def flip(data: bytes, at: int) -> bytes:
        b = bytearray(data)
        b[at] ^= 0x01
        return bytes(b)

    parts = [
        clean(1000), clean(1005), clean(1010, codec=LZ4), clean(1015, codec=GZIP),
        clean(1020), flip(clean(1025), 80),  # CRC mismatch
        clean(1030), clean(1020),  # offsets go back
        clean(1040, last_offset_delta=9),  # last delta beyond the records (info)
        clean(1050, max_timestamp=1), clean(1060, records_count=7),
        end_txn_marker_batch(True, base_offset=1070, producer_id=3, producer_epoch=0,
                             coordinator_epoch=1),
        clean(1071, log_append_time=1_700_000_000_500),
        clean(1080, delete_horizon_ms=1_700_000_000_000),
        v2_batch([], base_offset=1090, last_offset_delta=0),
        clean(1091), b"\0" * 200, clean(1100), b"garbage!" * 9, clean(1110),
        clean(1120, codec=ZSTD), clean(1125), clean(1130),
    ]
    out = []
    # the same batches with the first below the segment's base offset, and a zero tail
    for name, blobs in (("t-0", parts), ("t-1", [clean(10), *parts, b"\0" * 100])):
        d = root / name
        d.mkdir(parents=True)
        log = d / "00000000000000001000.log"
        log.write_bytes(b"".join(blobs))
        out.append(log)
    # many clean batches, to cross window boundaries
    d = root / "t-2"
    d.mkdir()
    log = d / "00000000000000000000.log"
    log.write_bytes(b"".join(clean(i * 5) for i in range(300)))
    out.append(log)
    return out


@native
@pytest.mark.parametrize("chunk", [128, 1000, 5000, 8 << 20])
@pytest.mark.parametrize("deep", [True, False])
def test_verify_fast_path_reports_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            chunk: int, deep: bool, reads: str) -> None:
    from kdump.ops import verify_crc as verify_mod
    from kdump.source import Window

    logs = _damaged_segments(tmp_path)
    monkeypatch.setattr(Window.__init__, "__defaults__", (chunk,))
    paths = [str(p.parent) for p in logs]

    def run() -> list[Any]:
        return list(verify_mod.verify_crc(paths, verify_mod.VerifyOptions(deep=deep)))

    consumed = []
    from kdump.records import file_records

    native_run = file_records._native_run
    assert native_run is not None

    def counting(*args: Any) -> Any:
        res = native_run(*args)
        consumed.append(res[1])
        return res

    monkeypatch.setattr(file_records, "_native_run", counting)
    fast = run()
    monkeypatch.setattr(file_records, "_native_run", None)
    slow = run()
    assert fast == slow
    assert sum(1 for x in slow if getattr(x, "kind", None) is not None) >= 8
    if chunk >= 5000:
        assert sum(consumed) > 250  # most clean batches went the native way


def _recrc_v2(batch: bytes) -> bytes:
    """A v2 batch with its CRC-32C made right again after an edit."""
    import crc32c

    return batch[:17] + struct.pack(">I", crc32c.crc32c(batch[21:])) + batch[21:]


def _recrc_legacy(entry: bytes) -> bytes:
    """A v0/v1 entry with its CRC-32 made right again after an edit."""
    import zlib

    return entry[:12] + struct.pack(">I", zlib.crc32(entry[16:]) & 0xFFFFFFFF) + entry[16:]


def _mixed_segment() -> bytes:
    """v0/v1 messages, control batches and compressed batches, intact and damaged in
    every way verify-crc reports (and some it passes over), between clean batches: the
    native walk must consume exactly the batches Python has nothing to say about."""
    from tests.support.writer import (
        CONTROL_KRAFT_VERSION,
        TS0,
        end_txn_marker_batch,
        kraft_control_batch,
        kraft_version_value,
        legacy_compressed,
        legacy_message,
    )

    def clean(base: int, n: int = 5, **kw: Any) -> bytes:
        return v2_batch(rich_records(n), base_offset=base, **kw)

    def control(base: int, key: bytes, value: bytes | None) -> bytes:
        return v2_batch([Rec(key=key, value=value, timestamp=TS0)], base_offset=base,
                        control=True, transactional=True, producer_id=9, producer_epoch=0,
                        first_timestamp=TS0)

    long_key = bytearray(legacy_message(1, b"kk", b"v", offset=5, timestamp=TS0))
    long_key[26:30] = struct.pack(">i", 50)  # a key length past the message, CRC right
    short_value = bytearray(legacy_message(0, b"k", b"value", offset=6))
    short_value[23:27] = struct.pack(">i", 2)  # bytes left after the value
    bad_lz4 = bytearray(clean(60, codec=LZ4))
    bad_lz4[70] ^= 0xFF  # the compressed payload, CRC right: a decompression error
    parts = [
        legacy_message(0, b"k", b"v", offset=0),
        legacy_message(1, b"k", b"v", offset=1, timestamp=TS0),
        legacy_message(1, None, None, offset=2, timestamp=TS0),
        legacy_message(0, b"", b"", offset=3),
        legacy_message(1, b"k", b"v", offset=4, timestamp=TS0, crc=12345),  # CRC
        _recrc_legacy(bytes(long_key)),
        _recrc_legacy(bytes(short_value)),
        legacy_compressed(1, [Rec(key=b"a", value=b"b", timestamp=TS0)] * 3, last_offset=9,
                          codec=GZIP),
        legacy_message(1, b"k", b"v", offset=10, timestamp=TS0, log_append_time=True),
        legacy_message(1, b"k", b"v", offset=8, timestamp=TS0),  # offsets go back
        legacy_message(0, b"k", b"v" * 300, offset=11, codec=SNAPPY),  # not a wrapper
        clean(20), clean(25, codec=ZSTD), clean(30, codec=SNAPPY), clean(35, codec=GZIP),
        end_txn_marker_batch(True, base_offset=40, producer_id=9, producer_epoch=0,
                             coordinator_epoch=3),
        end_txn_marker_batch(False, base_offset=41, producer_id=9, producer_epoch=0,
                             coordinator_epoch=3),
        control(42, struct.pack(">hh", -1, 1), struct.pack(">hi", 0, 1)),  # key version
        control(43, struct.pack(">hh", 0, 0), b"\0\0"),  # value too short
        control(44, struct.pack(">h", 0), struct.pack(">hi", 0, 1)),  # key too short
        control(45, struct.pack(">hh", 0, 1), struct.pack(">hi", -2, 1)),  # value version
        control(46, struct.pack(">hh", 0, 1), None),
        control(47, struct.pack(">hh", 0, 99), b"x"),  # an unknown type: nothing to say
        kraft_control_batch([(CONTROL_KRAFT_VERSION, kraft_version_value(1))], base_offset=48),
        clean(50), bytes(bad_lz4), _recrc_v2(clean(70, codec=ZSTD, records_count=7)),
        clean(80, codec=LZ4, last_offset_delta=7),  # compaction: info
        clean(90, n=40), clean(130, codec=GZIP, n=40),  # over a small --max-batch-bytes
        clean(170), legacy_message(1, b"k", b"v", offset=180, timestamp=TS0), clean(181),
    ]
    return b"".join(parts)


def _with_and_without(monkeypatch: pytest.MonkeyPatch, module: Any, name: str,
                      run: Callable[[], list[Any]]) -> tuple[list[Any], list[Any], int]:
    """``run()``'s output with the native walk ``module.name`` and without it (None),
    and the batches the native walk consumed."""
    native_run = getattr(module, name)
    assert native_run is not None
    consumed = [0]

    def counting(*args: Any) -> Any:
        res = native_run(*args)
        consumed[0] += res[1]
        return res

    monkeypatch.setattr(module, name, counting)
    fast = run()
    monkeypatch.setattr(module, name, None)
    slow = run()
    monkeypatch.setattr(module, name, native_run)
    return fast, slow, consumed[0]


def _fast_and_slow(monkeypatch: pytest.MonkeyPatch, paths: list[str], **opts: Any
                   ) -> tuple[list[Any], list[Any], int]:
    """verify-crc's output with the native walk and without it, and the batches the
    native walk consumed."""
    from kdump.ops import verify_crc as verify_mod
    from kdump.records import file_records

    return _with_and_without(monkeypatch, file_records, "_native_run", lambda: list(
        verify_mod.verify_crc(paths, verify_mod.VerifyOptions(**opts))))


@native
@pytest.mark.parametrize("fast_chunk", [4096, 1 << 20])
@pytest.mark.parametrize("max_batch_bytes", [DEFAULT_MAX_BATCH_BYTES, 2500])
@pytest.mark.parametrize("deep", [True, False])
def test_verify_native_walk_legacy_control_compressed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast_chunk: int,
        max_batch_bytes: int, deep: bool, reads: str) -> None:
    """v0/v1 messages, control and compressed batches: the native walk consumes the
    ones verify-crc has nothing to say about and stops at every other one, so the
    findings, counts and summary are the pure-Python path's, exactly."""
    from kdump.records import file_records

    monkeypatch.setattr(file_records, "FAST_CHUNK", fast_chunk)
    d = tmp_path / "m-0"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(_mixed_segment())
    fast, slow, consumed = _fast_and_slow(monkeypatch, [str(d)], deep=deep,
                                          max_batch_bytes=max_batch_bytes)
    assert fast == slow
    kinds = sorted({p.kind for p in slow if hasattr(p, "kind")})
    want = {"crc-mismatch", "offset-order"} | ({"invalid-record", "decompression-error",
                                                 "invalid-control", "record-count"}
                                                if deep else set())
    assert want <= set(kinds), kinds
    # the segment's offsets leave gaps: a delete-policy topic's walk stops at each (its
    # verdict names them lost, issue 46); compacted, the walk passes over them
    assert "data-lost" in kinds
    from kdump.ops.verdict import CleanupPolicies

    compacted = CleanupPolicies([("m", "cleanup.policy", "compact")])
    fast, slow, consumed = _fast_and_slow(monkeypatch, [str(d)], deep=deep,
                                          max_batch_bytes=max_batch_bytes, policies=compacted)
    assert fast == slow
    assert consumed >= 15  # v0/v1, v2 of every codec, COMMIT/ABORT markers


@native
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), min_size=1,
                max_size=6), st.booleans(), st.sampled_from(list(READS)),
       st.sampled_from([97, 4096, 1 << 20]))
def test_verify_native_walk_on_fuzzed_segments(tmp_path_factory: pytest.TempPathFactory,
                                               edits: list[tuple[int, int]], deep: bool,
                                               reads: str, fast_chunk: int) -> None:
    """Bytes changed anywhere in a mixed segment (v0/v1, control, every codec): the
    same findings, counts and summary with the native walk and without it, whoever
    reads the file and in whatever stretches."""
    from kdump.ops import verify_crc as verify_mod
    from kdump.records import file_records

    seg = bytearray(_mixed_segment())
    for at, value in edits:
        seg[at % len(seg)] = value
    d = tmp_path_factory.mktemp("fuzz") / "f-0"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(bytes(seg))
    native_run = file_records._native_run

    def run() -> list[Any]:
        return list(verify_mod.verify_crc([str(d)], verify_mod.VerifyOptions(deep=deep)))

    saved = (file_records.NATIVE_READS, file_records.READ_AHEAD, file_records.FAST_CHUNK,
             file_records.NATIVE_STEP)
    try:
        _set_reads(file_records, reads, setattr)
        file_records.FAST_CHUNK = fast_chunk
        fast = run()
        file_records._native_run = None
        slow = run()
    finally:
        file_records._native_run = native_run
        (file_records.NATIVE_READS, file_records.READ_AHEAD, file_records.FAST_CHUNK,
         file_records.NATIVE_STEP) = saved
    assert fast == slow


@native
def test_verify_native_walk_of_a_file_cut_short_while_read(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            reads: str) -> None:
    """A log cut short after it was opened (a broker's retention, a live segment): the
    native walk's reads come back short, never SIGBUS; the findings are Python's."""
    from kdump.ops import verify_crc as verify_mod
    from kdump.records import file_records
    from kdump.source import FileSource

    monkeypatch.setattr(file_records, "FAST_CHUNK", 4096)
    d = tmp_path / "c-0"
    d.mkdir()
    log = d / "00000000000000000000.log"
    log.write_bytes(b"".join(v2_batch(rich_records(5), base_offset=i * 5) for i in range(200)))
    size = log.stat().st_size
    opened = FileSource.__init__

    def shrink_after_open(self: FileSource, path: str) -> None:
        opened(self, path)
        os.truncate(path, size // 3)  # the size at open stays the reader's end

    monkeypatch.setattr(FileSource, "__init__", shrink_after_open)
    whole = log.read_bytes()
    native_run = file_records._native_run
    outs = []
    for walk in (native_run, None):
        log.write_bytes(whole)
        monkeypatch.setattr(file_records, "_native_run", walk)
        outs.append(list(verify_mod.verify_crc([str(d)], verify_mod.VerifyOptions())))
    assert outs[0] == outs[1]
    problems = [p for p in outs[0] if hasattr(p, "kind")]
    # the active segment's last batch, cut: in flight
    assert [p.kind for p in problems] == ["in-flight"], problems
    assert 0 < outs[0][-1].batches < 100


@native
@pytest.mark.parametrize("ahead", [True, False])
def test_verify_native_reads_of_a_file_cut_short_during_the_walk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ahead: bool) -> None:
    """The native walk reads the file itself (issue 49): a log truncated while the walk
    is in it (here: when it hands a compressed batch to Python) gives short reads, never
    SIGBUS; the walk stops where its bytes end and Python reports the cut batch."""
    from kdump.ops import verify_crc as verify_mod
    from kdump.records import file_records

    monkeypatch.setattr(file_records, "FAST_CHUNK", 4096)
    monkeypatch.setattr(file_records, "NATIVE_READS", True)
    monkeypatch.setattr(file_records, "READ_AHEAD", ahead)
    d = tmp_path / "t-0"
    d.mkdir()
    log = d / "00000000000000000000.log"
    batches = [v2_batch(rich_records(5), base_offset=i * 5, codec=GZIP if i == 20 else NONE)
               for i in range(200)]
    log.write_bytes(b"".join(batches))
    cut = sum(len(b) for b in batches[:120]) + 30  # inside batch 120
    real = file_records.walk_decompress
    calls = []

    def truncating(codec: int, data: bytes, limit: int) -> bytes | None:
        if not calls:
            os.truncate(log, cut)
        calls.append(codec)
        return real(codec, data, limit)

    monkeypatch.setattr(file_records, "walk_decompress", truncating)
    out = list(verify_mod.verify_crc([str(d)], verify_mod.VerifyOptions()))
    assert calls == [GZIP]
    problems = [p for p in out if hasattr(p, "kind")]
    # the active segment's last batch, cut: in flight, where the file now ends (the cut
    # lies 100 batches past batch 20, beyond what was read before it: two 4096-byte
    # stretches)
    assert [(p.kind, p.position) for p in problems] == [
        ("in-flight", sum(len(b) for b in batches[:120]))], problems
    assert out[-1].batches == 120


@native
@pytest.mark.parametrize("fault", ["none", "records", "crc", "gap", "short"])
@pytest.mark.parametrize("at", [3, 150, 299])
def test_verify_native_reads_split_over_two_threads(tmp_path: Path, fault: str, at: int
                                                   ) -> None:
    """With ``deep`` and a thread reading ahead, the native reads split the walk (issue
    49: verify_split in kdump/_speedups_reads.c): one thread reads and checks framing,
    offsets and CRCs, the caller's walks the records of what it passed.  Whatever the
    first fault and wherever it lies (a record fault under a right CRC, which only the
    records' walk sees, while the other thread is stretches ahead; a CRC; a gap; the
    file's end), the walk consumes exactly what the one-thread walk over the same bytes
    in memory consumes, across stretches carried over (4096 bytes), batches larger
    than a stretch and compressed batches (decompressed by Python, with the GIL)."""
    from kdump.records.file_records import walk_decompress

    assert speedups is not None
    batches = []
    for i in range(300):
        large = i % 37 == 5  # larger than a 4096-byte stretch
        n = 200 if large else 5
        b = v2_batch(rich_records(n), base_offset=i * 1000, last_offset_delta=n - 1,
                     codec=NONE if large else [NONE, NONE, NONE, GZIP, LZ4, ZSTD][i % 6])
        if i == at and fault == "records":
            b = _recrc_v2(v2_batch(rich_records(n), base_offset=i * 1000, records_count=n + 2))
        elif i == at and fault == "crc":
            b = b[:-1] + bytes([b[-1] ^ 1])
        batches.append(b)
    seg = b"".join(batches)  # offsets 0, 1000, ...: gaps, where the walk stops with ``gaps``
    if fault == "short":
        seg = seg[:sum(len(b) for b in batches[:at]) + 30]
    log = tmp_path / "00000000000000000000.log"
    log.write_bytes(seg)
    gaps = fault == "gap"
    big = max(len(b) for b in batches)
    assert big > 4096
    want = speedups.verify_run(seg, 0, len(seg), None, 0, True, 1 << 20, 1 << 20,
                               walk_decompress, gaps)
    fd = os.open(log, os.O_RDONLY)
    try:
        got = {ahead: speedups.verify_run(fd, 0, len(seg), None, 0, True, 1 << 20, 1 << 20,
                                          walk_decompress, None, 4096, ahead, gaps)
               for ahead in (True, False)}
    finally:
        os.close(fd)
    assert got[True] == got[False] == want
    stops = {"none": 300, "records": at, "crc": at, "gap": 1, "short": at}[fault]
    assert want[1] == stops, want


@native
@pytest.mark.parametrize("ahead", [True, False])
def test_verify_native_reads_stop_at_a_read_error(tmp_path: Path, ahead: bool) -> None:
    """A read that fails (EIO from a failing disk; here ESPIPE, a pipe's descriptor) ends
    the native walk where its bytes end, as a short read does: no exception, nothing
    consumed past them; Python's own read of that batch then reports the error."""
    from kdump.records.file_records import walk_decompress

    assert speedups is not None
    seg = b"".join(v2_batch(rich_records(5), base_offset=i * 5) for i in range(50))
    r, w = os.pipe()
    try:
        os.write(w, seg[:1000])
        assert speedups.verify_run(r, 0, len(seg), None, 0, True, 1 << 20, 1 << 20,
                                   walk_decompress, None, 4096, ahead) == (0, 0, 0, None)
    finally:
        os.close(r)
        os.close(w)
    log = tmp_path / "00000000000000000000.log"
    log.write_bytes(seg)
    fd = os.open(log, os.O_RDONLY)
    try:  # the same file readable: every batch consumed
        got = speedups.verify_run(fd, 0, len(seg), None, 0, True, 1 << 20, 1 << 20,
                                  walk_decompress, None, 4096, ahead)
    finally:
        os.close(fd)
    assert got[:3] == (len(seg), 50, 250)


@native
def test_verify_of_many_ranges_holds_no_buffer_after_each(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker of ``verify-crc --jobs`` verifies range after range: when one is done its
    reader has let go of its window and unmapped its read buffers (a reference cycle
    kept them until the cyclic collector ran: ~100 MB in a worker over a 512 MB
    segment's 4 MiB ranges)."""
    import gc

    from kdump.files.logdir import walk
    from kdump.files.splits import SegmentRange, segment_ranges
    from kdump.ops import verify_crc as verify_mod
    from kdump.records import file_records
    from kdump.source import ReadBuffer

    monkeypatch.setattr(file_records, "FAST_CHUNK", 4096)
    monkeypatch.setattr(file_records, "NATIVE_READS", False)  # Python's buffers, these
    d = tmp_path / "r-0"
    big_segment(d, 400_000, records_per_batch=10)
    ranges = [r for r in segment_ranges(walk([str(d)]), lambda f: True, split_bytes=16384)
              if isinstance(r, SegmentRange)]
    assert len(ranges) > 4
    made: list[ReadBuffer] = []
    created = ReadBuffer.__init__

    def remember(self: ReadBuffer, *args: Any, **kw: Any) -> None:
        created(self, *args, **kw)
        made.append(self)

    monkeypatch.setattr(ReadBuffer, "__init__", remember)
    readers: list[LogReader] = []
    made_reader = LogReader.__init__

    def remember_reader(self: LogReader, *args: Any, **kw: Any) -> None:
        made_reader(self, *args, **kw)
        readers.append(self)

    monkeypatch.setattr(LogReader, "__init__", remember_reader)
    gc.disable()
    try:
        batches = 0
        for r in ranges:
            problems, result, _, _ = verify_mod.verify_one(verify_mod.VerifyOptions(), r)
            assert list(problems) == []
            batches += result.batches
        assert made and all(b.data.closed for b in made)
        assert readers and all(len(r.window.data) == 0 for r in readers)
    finally:
        gc.enable()
    whole = verify_mod.verify_crc([str(d)], verify_mod.VerifyOptions())
    assert batches == next(x for x in whole if isinstance(x, verify_mod.Summary)).batches


@native
def test_crc32_matches_zlib() -> None:
    import random
    import zlib

    assert speedups is not None
    rng = random.Random(11)
    data = bytes(rng.getrandbits(8) for _ in range(20_000))
    for start in (0, 1, 5, 8):
        for n in (0, 1, 7, 8, 9, 63, 64, 65, 4096, 19_000):
            chunk = data[start : start + n]
            assert speedups.crc32(data, start, start + n) == zlib.crc32(chunk)
            assert speedups.crc32(chunk) == zlib.crc32(chunk)


@native
def test_crc32c_matches_the_crc32c_package() -> None:
    import random

    import crc32c

    assert speedups is not None
    rng = random.Random(7)
    data = bytes(rng.getrandbits(8) for _ in range(70_000))
    for start in (0, 1, 3, 7, 8, 13):
        for n in (0, 1, 7, 8, 9, 255, 767, 768, 769, 4096, 6143, 6144, 6145, 7700, 12_289,
                  24_575, 24_576, 24_577, 60_000):
            chunk = data[start : start + n]
            assert speedups.crc32c(chunk) == crc32c.crc32c(chunk)
            assert speedups.crc32c(data, start, start + n) == crc32c.crc32c(chunk)
    # around the carry-less fold's steps (256 bytes, from 512: issue 49), every length
    for start in (0, 5, 64):
        for n in [*range(480, 1100), 2047, 2048, 2049, 65_535, 65_536, 65_537]:
            chunk = data[start : start + n]
            assert speedups.crc32c(data, start, start + n) == crc32c.crc32c(chunk), (start, n)
    assert speedups.crc32c(b"abc", 2, 99) == crc32c.crc32c(b"c")
    assert speedups.crc32c(b"abc", 3, 1) == 0


def _run(args: list[str], pure: bool) -> tuple[int, str, str]:
    env = dict(os.environ)
    env.pop("KDUMP_PURE_PYTHON", None)
    if pure:
        env["KDUMP_PURE_PYTHON"] = "1"
    p = subprocess.run([sys.executable, "-m", "kdump", *args], env=env, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


@native
@pytest.mark.parametrize("args", [
    ["dump", "--print-data-log"],
    ["dump", "--format", "json", "--print-data-log"],
    ["dump", "--deep-iteration", "--format", "json"],
    ["dump", "--print-data-log", "--skip-record-metadata"],
    ["dump", "--deep-iteration"],
    ["dump", "--value-decoder", "hex", "--format", "json"],
    ["dump", "--value-decoder", "hex"],
    ["dump", "--format", "json", "--print-data-log", "--payload-encoding", "hex"],
    ["dump", "--format", "json", "--print-data-log", "--payload-encoding", "base64"],
    ["dump", "--format", "table", "--print-data-log"],
    ["verify-crc", "--format", "json"],
    ["verify-crc", "--format", "json", "--shallow"],
    ["size-report", "--format", "json", "--by", "segment"],
])
def test_cli_output_identical(sample_logdir: Path, tmp_path: Path, args: list[str]) -> None:
    """Whole commands over the sample log dir plus a damaged segment: same bytes out."""
    part = tmp_path / "bench-0"
    big_segment(part, 40_000, records_per_batch=20, value_size=30)
    log = part / "00000000000000000000.log"
    data = bytearray(log.read_bytes())
    data[2000] ^= 0x55  # a record byte: CRC mismatch and, likely, an unparsable record
    data[9000:9040] = b"\0" * 40  # framing damage
    log.write_bytes(bytes(data))
    paths = [str(sample_logdir), str(part)]
    assert _run(args + paths, pure=False) == _run(args + paths, pure=True)


def test_struct_sanity() -> None:
    # the pure twins are what the native code is held to: keep them importable
    assert struct.calcsize(">qiibIhiqqqhii") == 61


def test_json_without_the_extension_is_the_same(sample_logdir: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the native writer every record goes through record_object: the same
    bytes (there is no second Python definition of a record's JSON)."""
    import io

    import kdump.render.jsonl as jl
    from kdump.ops.dump import DumpOptions, dump

    def render() -> str:
        out = io.StringIO()
        r = jl.JsonRenderer(out, payload_encoding="utf8")
        for item in dump([str(sample_logdir)], DumpOptions(deep_iteration=True,
                                                           print_data_log=True)):
            r.emit(item)
        return out.getvalue()

    native = render()
    monkeypatch.setattr(jl, "_native_json", None)
    assert render() == native
    assert native.count('"type":"record"') > 100


@native
def test_pools_count_plain_logs_at_a_discount(tmp_path: Path) -> None:
    """Without --jobs, verify-crc and size-report weigh a log of uncompressed batches at
    1/16 of its size when their native walk reads it (one process reads those at
    ~1 GB/s), and a compressed one (or one that does not start with a batch) at its
    size; v0/v1 logs only for verify-crc (size-report's walk is v2's)."""
    from kdump import parallel
    from kdump.files.logdir import walk
    from kdump.ops import size_report as size_mod
    from kdump.ops import verify_crc as verify_mod

    plain, lz4, junk, legacy = (tmp_path / n for n in ("p-0", "l-0", "j-0", "v-0"))
    big_segment(plain, 200_000)
    big_segment(lz4, 200_000, codec=LZ4)
    junk.mkdir()
    (junk / "00000000000000000000.log").write_bytes(b"\xff" * 5000)
    legacy.mkdir()
    (legacy / "00000000000000000000.log").write_bytes(
        b"".join(legacy_message(1, b"k", b"v" * 200, offset=i) for i in range(400)))
    for mod, legacy_discounted, discount in (
            (verify_mod, True, parallel.VERIFY_PLAIN_LOG_DISCOUNT),
            (size_mod, False, parallel.PLAIN_LOG_DISCOUNT)):
        sizes = {}
        for item in walk([str(plain), str(lz4), str(junk), str(legacy)]):
            if getattr(item, "kind", None) == "log":
                sizes[Path(item.path).parent.name] = (mod._log_bytes(item),  # type: ignore[attr-defined]
                                                      Path(item.path).stat().st_size)
        assert sizes["p-0"][0] == sizes["p-0"][1] // discount == \
            sizes["p-0"][1] // (64 if mod is verify_mod else 16)
        assert sizes["l-0"][0] == sizes["l-0"][1] and sizes["j-0"] == (5000, 5000)
        v, whole = sizes["v-0"]
        assert v == (whole // discount if legacy_discounted else whole), mod


@native
@pytest.mark.parametrize("args", [["verify-crc", "--format", "json"],
                                  ["verify-crc", "--format", "json", "--shallow"],
                                  ["verify-crc", "--format", "json", "--max-batch-bytes", "2500"],
                                  ["verify-crc"]])
def test_cli_verify_mixed_segment_identical_without_the_extension(tmp_path: Path,
                                                                  args: list[str]) -> None:
    """v0/v1, control and compressed batches, damaged and intact: the command's output
    and exit code are the same bytes with KDUMP_PURE_PYTHON=1."""
    d = tmp_path / "m-0"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(_mixed_segment())
    native_out, pure_out = _run([*args, str(d)], pure=False), _run([*args, str(d)], pure=True)
    assert native_out == pure_out
    assert native_out[0] == 1 and "crc-mismatch" in native_out[1] + native_out[2]


# --- dump's per-batch bookkeeping (issue 33 part 2) -----------------------------------------
_I64 = st.integers(-(2**63), 2**63 - 1)


def _offset_records(offsets: list[int]) -> list[Record]:
    return [Record(o, 0, None, None, []) for o in offsets]


@native
def test_record_offsets_examples() -> None:
    """The gaps dump reports: each step that is not +1, the first against the last
    offset before the batch (none after -1, the start of a file)."""
    from kdump.ops.dump import record_offsets_py

    assert speedups is not None
    cases = [
        ([], 7, (7, [])),
        ([0, 1, 2], -1, (2, [])),
        ([5, 6, 8], 3, (8, [(3, 5), (6, 8)])),
        ([4, 4, 3], 3, (3, [(4, 4), (4, 3)])),
        ([2**63 - 1, 0], 2**63 - 2, (0, [(2**63 - 1, 0)])),
        ([-1, 0, -5], 10, (-5, [(10, -1), (0, -5)])),  # after -1 nothing is checked
        ([2**63 - 1], 2**63 - 1, (2**63 - 1, [(2**63 - 1, 2**63 - 1)])),
    ]
    for offsets, last, want in cases:
        recs = _offset_records(offsets)
        assert speedups.record_offsets(recs, last) == want
        assert record_offsets_py(recs, last) == want


@native
@settings(max_examples=400, deadline=None)
@given(offsets=st.lists(st.one_of(_I64, st.integers(-2, 40)), max_size=12),
       last=st.one_of(_I64, st.sampled_from([-1, 0, 2**63 - 1, -(2**63)])))
def test_record_offsets_match_python(offsets: list[int], last: int) -> None:
    from kdump.ops.dump import record_offsets_py

    assert speedups is not None
    recs = _offset_records(offsets)
    assert speedups.record_offsets(recs, last) == record_offsets_py(recs, last)


@native
def test_record_offsets_out_of_domain() -> None:
    """An offset or last offset outside int64, or not a list: the twin's work."""
    from kdump.ops.dump import record_offsets

    assert speedups is not None
    big = _offset_records([2**64])
    assert speedups.record_offsets(big, 1) is NotImplemented
    assert speedups.record_offsets(_offset_records([1]), 2**64) is NotImplemented
    assert speedups.record_offsets(tuple(_offset_records([1])), 0) is NotImplemented
    assert record_offsets(big, 1) == (2**64, [(1, 2**64)])


_KEYS = [None, b"", b"abcd", b"\x00\x00\x00\x01", b"\x00" * 8, b"abcdefgh", b"ab\tc",
         b"ab\x0bc", b"abc\x7f", "é€".encode()[:4], "éé".encode(), "a\u00a0b".encode(),
         "\u2028ab".encode()[:4], "ab\u0085".encode(), "日本".encode()[:4], "\U0001F600".encode(),
         "\U000E0001".encode(), b"\xed\xa0\x80a", b"\xff\xfe\xfd\xfc", b"abc", b"abcdefghi",
         b"\r\n\r\n", "ááá".encode()[:4] + b"", b"1234", b"12345678"]


@native
def test_number_key_indices_examples() -> None:
    """The records dump's auto decoding shows with a number key: keys of 4 or 8 bytes
    that are not text (control characters, invalid UTF-8, unprintable characters)."""
    from kdump.decoders import AutoKeyValueDecoder
    from kdump.decoders.simple import number_key_indices_py

    assert speedups is not None
    recs = [Record(i, 0, k, b"v", []) for i, k in enumerate(_KEYS)]
    want = [i for i, r in enumerate(recs) if AutoKeyValueDecoder.framed(r.key, r.value)]
    assert speedups.number_key_indices(recs) == want == number_key_indices_py(recs)
    assert [_KEYS[i] for i in want] == [
        b"\x00\x00\x00\x01", b"\x00" * 8, b"ab\x0bc", b"abc\x7f", "é€".encode()[:4],
        "a\u00a0b".encode(), "\u2028ab".encode()[:4], "ab\u0085".encode(),
        "日本".encode()[:4], "\U000E0001".encode(), b"\xed\xa0\x80a", b"\xff\xfe\xfd\xfc"]
    assert AutoKeyValueDecoder().framed_indices(recs) == want


@native
@settings(max_examples=500, deadline=None)
@given(keys=st.lists(st.one_of(
    st.none(), st.binary(min_size=3, max_size=9),
    st.text(min_size=1, max_size=8).map(lambda t: t.encode("utf-8", "surrogatepass")[:8]),
    st.sampled_from(_KEYS)), max_size=10))
def test_number_key_indices_match_python(keys: list[bytes | None]) -> None:
    from kdump.decoders.simple import number_key_indices_py

    assert speedups is not None
    recs = [Record(i, 0, k, None, []) for i, k in enumerate(keys)]
    assert speedups.number_key_indices(recs) == number_key_indices_py(recs)


@native
def test_number_key_indices_out_of_domain() -> None:
    from kdump.decoders.simple import number_key_indices

    assert speedups is not None
    recs = [Record(0, 0, bytearray(b"\x00\x00\x00\x01"), None, [])]
    assert speedups.number_key_indices(recs) is NotImplemented
    assert number_key_indices(recs) == [0]
    assert speedups.number_key_indices(tuple(recs)) is NotImplemented


# --- size-report's native walk (size_run) ---------------------------------------------------
def _size_out(paths: list[str], **opts: Any) -> list[Any]:
    """size-report's output, rows as the JSON text they are written as (field order and
    the order of codecs included)."""
    import json

    from kdump.ops.size_report import SizeOptions, size_report

    return [json.dumps(x.to_json(), sort_keys=False) if hasattr(x, "to_json") else x
            for x in size_report(paths, SizeOptions(**opts), jobs=1)]


def _size_fast_and_slow(monkeypatch: pytest.MonkeyPatch, paths: list[str], **opts: Any
                        ) -> tuple[list[Any], list[Any], int]:
    """size-report's output with the native walk and without it, and the batches the
    native walk accounted."""
    from kdump.ops.size_report import size_run

    return _with_and_without(monkeypatch, size_run, "_native_size_run",
                             lambda: _size_out(paths, **opts))


@native
@pytest.mark.parametrize("fast_chunk", [4096, 1 << 20])
@pytest.mark.parametrize("max_batch_bytes", [DEFAULT_MAX_BATCH_BYTES, 2500])
@pytest.mark.parametrize("by", ["segment", "topic"])
@pytest.mark.parametrize("deep", [True, False])
def test_size_report_native_walk_reports_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast_chunk: int,
        max_batch_bytes: int, by: str, deep: bool) -> None:
    """Damaged, legacy, control, transactional and compressed batches of every codec:
    the native walk accounts the intact v2 ones and stops at every other, so every row
    (codec order, producer ids, timestamps) and finding is the pure-Python path's."""
    from kdump.records import file_records

    monkeypatch.setattr(file_records, "FAST_CHUNK", fast_chunk)
    logs = _damaged_segments(tmp_path / "d")
    m = tmp_path / "m-0"
    m.mkdir()
    (m / "00000000000000000000.log").write_bytes(_mixed_segment())
    paths = [str(p.parent) for p in logs] + [str(m)]
    fast, slow, consumed = _size_fast_and_slow(monkeypatch, paths, by=by, deep=deep,
                                               max_batch_bytes=max_batch_bytes)
    assert fast == slow
    assert any(isinstance(x, str) and '"codecs"' in x for x in slow)
    assert sum(1 for x in slow if not isinstance(x, str)) >= 3  # findings
    assert consumed >= (250 if max_batch_bytes > 2500 else 50)


@native
def test_size_report_native_walk_of_ranges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """--jobs reads a segment as byte ranges: the native walk stops at a range's end
    (``limit``), and each range's row and in-step answer are the Python path's."""
    from kdump.files.logdir import KafkaFile
    from kdump.ops import size_report as sr
    from kdump.ops.size_report import size_run
    from kdump.records import file_records

    monkeypatch.setattr(file_records, "FAST_CHUNK", 4096)
    log = _damaged_segments(tmp_path)[0]
    f = KafkaFile(str(log), "log", topic="t", partition=0, base_offset=1000)
    size = log.stat().st_size
    native_run = size_run._native_size_run
    for (start, stop), deep in [((0, size // 3), True), ((0, size // 2), True), ((0, None), True),
                                ((0, 1), True), ((0, 2 * size), True), ((0, size // 3), False),
                                ((0, None), False)]:
        got = []
        for walk in (native_run, None):
            monkeypatch.setattr(size_run, "_native_size_run", walk)
            row = sr.SizeRow("segment")
            out: list[Problem] = []
            in_step = sr._yield_into(out, sr._read_log(f, row, sr.SizeOptions(deep=deep), start,
                                                       stop))
            got.append((row, out, in_step))
        assert got[0] == got[1], (start, stop)
        assert list(got[0][0].codecs) == list(got[1][0].codecs)


def _size_run_cases() -> list[bytes]:
    segs = [_mixed_segment()]
    parts = [v2_batch(rich_records(4), base_offset=i * 4, codec=c, producer_id=i % 3 - 1,
                      transactional=i % 4 == 0)
             for i, c in enumerate([NONE, LZ4, GZIP, NONE, ZSTD, SNAPPY, NONE])]
    segs.append(b"".join(parts))
    segs.append(b"".join(parts) + b"\0" * 40)
    return segs


@native
def test_size_run_matches_python_twin() -> None:
    """size_run against size_run_py from every byte position (most are no batch), with
    every stop and end that cut or do not cut the last batch, with and without the
    next-header check: the same run, totals and producer ids."""
    from kdump.ops.size_report.size_run import SCAN_HEADERS, size_run_py
    from kdump.records.file_records import walk_decompress

    assert speedups is not None
    runs = 0
    for seg in _size_run_cases():
        n = len(seg)
        for start in range(0, n, 7):
            for stop, end in ((n, n), (n - 5, n), (n, n + 100), (n - 40, n - 40), (start, n)):
                for check, deep in ((True, True), (False, True), (True, False)):
                    ids_c: set[int] = set()
                    ids_p: set[int] = set()
                    args = (start, stop, end, check, SCAN_HEADERS, DEFAULT_MAX_BATCH_BYTES,
                            walk_decompress)
                    got = speedups.size_run(seg, *args, ids_c, deep)
                    assert got == size_run_py(seg, *args, ids_p, deep), (start, stop, end, check)
                    assert ids_c == ids_p
                    runs += got[1] > 0
    assert runs > 20  # runs of one batch and more, not only declined starts


@native
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), min_size=1,
                      max_size=6),
       which=st.integers(0, 2), check=st.booleans(), limit=st.sampled_from([2500, 1 << 20]),
       deep=st.booleans())
def test_size_run_on_fuzzed_segments(edits: list[tuple[int, int]], which: int, check: bool,
                                     limit: int, deep: bool) -> None:
    from kdump.ops.size_report.size_run import SCAN_HEADERS, size_run_py
    from kdump.records.file_records import walk_decompress

    assert speedups is not None
    seg = bytearray(_size_run_cases()[which])
    for at, value in edits:
        seg[at % len(seg)] = value
    data = bytes(seg)
    ids_c: set[int] = set()
    ids_p: set[int] = set()
    args = (0, len(data), len(data), check, SCAN_HEADERS, limit, walk_decompress)
    assert speedups.size_run(data, *args, ids_c, deep) == size_run_py(data, *args, ids_p, deep)
    assert ids_c == ids_p


@native
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), min_size=1,
                max_size=6), st.booleans())
def test_size_report_native_walk_on_fuzzed_segments(
        tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[int, int]],
        deep: bool) -> None:
    """Bytes changed anywhere in a mixed segment: the same size-report rows and findings
    with the native walk and without it."""
    from kdump.ops.size_report import size_run

    seg = bytearray(_mixed_segment())
    for at, value in edits:
        seg[at % len(seg)] = value
    d = tmp_path_factory.mktemp("sfuzz") / "f-0"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(bytes(seg))
    native_run = size_run._native_size_run
    try:
        fast = _size_out([str(d)], by="segment", deep=deep)
        size_run._native_size_run = None
        slow = _size_out([str(d)], by="segment", deep=deep)
    finally:
        size_run._native_size_run = native_run
    assert fast == slow


# --- dump's batch line and record prefix (batch_json) ---------------------------------------
def _python_batch_lines(b: RecordBatch) -> tuple[str, str]:
    from kdump.render import jsonl

    return jsonl.json_text(jsonl.batch_object(b)) + "\n", jsonl.record_prefix(b)


_ODD_PATHS = ["/d/t-0/00000000000000000000.log", "/d/a\"b\\c-12/0.log",
              "/d/t\u00e9\u202e-3/0.log", "/d/\udcff\udc80x-1/0.log", "/d/notapartition/0.log",
              "/d/\u65e5\u672c-2147483647/0.log", "rel.log"]


@native
def test_batch_json_matches_python(sample_logdir: Path, tmp_path: Path) -> None:
    """Every v2 batch of the sample log dir and of the damaged segments, under file
    names that need escapes: the native batch line and record prefix are the Python
    writer's, byte for byte."""
    from kdump.render import jsonl

    assert speedups is not None and jsonl.native_batch_matches_model()
    logs = sorted(sample_logdir.rglob("*.log")) + _damaged_segments(tmp_path)
    n = 0
    for log in logs:
        for b in batches_of(log):
            for path in (str(log), *_ODD_PATHS):
                b.path = path
                assert jsonl.batch_lines(b) == _python_batch_lines(b), path
                n += 1
    assert n > 100


@native
@settings(max_examples=400, deadline=None)
@given(header=st.binary(min_size=61, max_size=61), position=st.integers(0, 2**40),
       path=st.sampled_from(_ODD_PATHS))
def test_batch_json_on_arbitrary_headers(header: bytes, position: int, path: str) -> None:
    """Any 61 header bytes (signed fields, unknown codecs, sequences that wrap, delete
    horizons, offsets near int64's end): the same text, or NotImplemented and Python's."""
    from kdump.render import jsonl

    b = RecordBatch(path, position, header, 0)
    assert jsonl.batch_lines(b) == _python_batch_lines(b)
    bh, rh = jsonl._heads(path)
    got = speedups.batch_json(header, 0, position, b.crc_valid, bh, rh)  # type: ignore[union-attr]
    if b.magic >= 2 and -(2**63) <= b.last_offset < 2**63:
        assert got == _python_batch_lines(b)  # the native writer's own text
    else:
        assert got is NotImplemented


@native
def test_batch_json_out_of_domain() -> None:
    """A last offset past int64 is left to Python (json.dumps writes the big int)."""
    from kdump.render import jsonl

    assert speedups is not None
    header = bytearray(v2_batch(rich_records(2))[:61])
    header[0:8] = struct.pack(">q", 2**63 - 1)
    header[23:27] = struct.pack(">i", 5)
    b = RecordBatch("/d/t-0/0.log", 0, bytes(header), 0)
    assert speedups.batch_json(b.data, 0, 0, False, "{", "{") is NotImplemented
    line, _ = jsonl.batch_lines(b)
    assert f'"last_offset":{2**63 + 4},' in line
    assert speedups.batch_json(b"short", 0, 0, False, "{", "{") is NotImplemented


@native
def test_text_batch_line_matches_python(sample_logdir: Path, tmp_path: Path) -> None:
    """DumpLogSegments' batch line, natively, for every v2 batch of the fixtures."""
    from kdump.render import text

    assert speedups is not None
    n = 0
    for log in sorted(sample_logdir.rglob("*.log")) + _damaged_segments(tmp_path):
        for b in batches_of(log):
            assert text.batch_text(b) == text.batch_line(b) + "\n"
            n += 1
    assert n > 30


@native
@settings(max_examples=400, deadline=None)
@given(header=st.binary(min_size=61, max_size=61), position=st.integers(0, 2**40))
def test_text_batch_line_on_arbitrary_headers(header: bytes, position: int) -> None:
    from kdump.render import text

    assert speedups is not None
    b = RecordBatch("/d/t-0/0.log", position, header, 0)
    assert text.batch_text(b) == text.batch_line(b) + "\n"
    got = speedups.text_batch_line(header, 0, position, b.crc_valid)
    assert got is NotImplemented or got == text.batch_line(b) + "\n"
    if b.magic >= 2 and -(2**63) <= b.last_offset < 2**63:
        assert got is not NotImplemented


def _json_dump_text(paths: list[str], texts: bool) -> str:
    import io

    from kdump.ops.dump import DumpOptions, dump
    from kdump.render import jsonl

    out = io.StringIO()
    r = jsonl.JsonRenderer(out)
    opts = DumpOptions(print_data_log=True, texts=texts)
    for item in dump(paths, opts):
        r.emit(item)
    return out.getvalue()


def test_json_dump_needs_no_decoder_texts(sample_logdir: Path, tmp_path: Path) -> None:
    """--format json builds no string-decoder texts (DumpOptions.texts false): the same
    JSON Lines as with them, over internal topics, control batches, damaged segments
    and number keys the auto decoder reads (whose decoded objects stay)."""
    d = tmp_path / "keys-0"
    d.mkdir()
    recs = [Rec(k, b"v") for k in (b"\x00\x00\x00\x07", b"abcd", None, b"\x00" * 8, b"k")]
    (d / "00000000000000000000.log").write_bytes(v2_batch(recs))
    paths = [str(sample_logdir), str(d)] + [str(p.parent) for p in
                                             _damaged_segments(tmp_path / "dmg")]
    with_texts = _json_dump_text(paths, True)
    assert _json_dump_text(paths, False) == with_texts
    assert '"key_note"' in with_texts and '"control":{' in with_texts


# --- the header walk's runs (header_run: kdump timeline) -----------------------------------
def _header_run_segment() -> bytes:
    """Runs of alike batches, small (windows read) and over 4 KiB (headers read alone),
    broken by every change a run stops at: producer, producer epoch, leader epoch, a gap,
    the clock, transactional and control batches, a legacy message."""
    from tests.support.batches import end_txn_marker_batch

    parts: list[bytes] = []
    off = 0

    def add(n: int, value: bytes = b"v", **kw: Any) -> None:
        nonlocal off
        for _ in range(n):
            recs = [Rec(key=b"k", value=value, timestamp=1_000 + off + i) for i in range(3)]
            parts.append(v2_batch(recs, base_offset=off, **kw))
            off += 3

    add(5)
    add(4, b"x" * 2000, producer_id=7, producer_epoch=1)
    add(3, producer_id=7, producer_epoch=2)
    add(3, partition_leader_epoch=4, producer_id=7, producer_epoch=2)
    add(3, partition_leader_epoch=4, producer_id=8, producer_epoch=0, codec=GZIP)
    off += 10  # a gap
    add(3, partition_leader_epoch=4, producer_id=8, producer_epoch=0)
    add(3, partition_leader_epoch=4, log_append_time=5_000)
    add(4, partition_leader_epoch=5, producer_id=9, producer_epoch=0, transactional=True)
    parts.append(end_txn_marker_batch(True, base_offset=off, producer_id=9, producer_epoch=0,
                                      coordinator_epoch=1, timestamp=9_000,
                                      partition_leader_epoch=5))
    off += 1
    add(2, partition_leader_epoch=5)
    parts.append(legacy_message(1, b"k", b"v", offset=off, timestamp=9_500))
    off += 1
    add(3, b"y" * 5000, partition_leader_epoch=5)
    return b"".join(parts)


def _header_run_both(path: str, pos: int, buf: bytes, buf_at: int, last_size: int,
                     prev_last: int, head: tuple[int, int, int, int], until: int
                     ) -> tuple[Any, Any]:
    from kdump.ops.compare_replicas.header_run import header_run, header_run_py

    out = []
    for native_walk in (True, False):
        with FileSource(path) as src:
            fn = header_run if native_walk else header_run_py
            r = fn(src, buf, buf_at, pos, last_size, prev_last, *head, until,
                   DEFAULT_MAX_BATCH_BYTES)
            out.append((r, src.bytes_read))
    return out[0], out[1]


@native
def test_header_run_matches_python_twin(tmp_path: Path) -> None:
    """header_run against header_run_py from every batch of a segment (and positions in
    no batch), with the window held or not, after a small or a large batch, with each
    batch's own producer, epochs and attributes and others', bounded or not: the same
    run, the same window, the same bytes read."""
    from kdump.ops.compare_replicas import NO_LIMIT, HeaderWalk

    seg = _header_run_segment()
    d = tmp_path / "t-0"
    d.mkdir()
    path = str(d / "00000000000000000000.log")
    Path(path).write_bytes(seg)
    heads = [h for h in HeaderWalk(str(d)) if not isinstance(h, Problem)]
    assert len(heads) == 35
    runs = longest = 0
    for k, h in enumerate(heads):
        pos = h.position + h.size
        for other in (h, heads[(k + 3) % len(heads)]):
            head = (other.attributes, other.epoch, other.producer_id, other.producer_epoch)
            for buf, buf_at in ((b"", 0), (seg[h.position:h.position + 9000], h.position)):
                for last_size in (h.size, 100, 5000):
                    for until in (NO_LIMIT, h.last + 7):
                        c, p = _header_run_both(path, pos, buf, buf_at, last_size, h.last,
                                                head, until)
                        assert c == p, (k, buf_at, last_size, until)
                        runs += c[0][4] > 0
                        longest = max(longest, c[0][4])
    for pos in range(0, len(seg), 97):  # most are no batch
        c, p = _header_run_both(path, pos, b"", 0, 100, -1, (0, 0, -1, -1), NO_LIMIT)
        assert c == p, pos
    assert runs > 40 and longest >= 4


@native
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), min_size=1,
                      max_size=6), start=st.integers(0, 60))
def test_header_run_on_fuzzed_segments(tmp_path_factory: pytest.TempPathFactory,
                                       edits: list[tuple[int, int]], start: int) -> None:
    from kdump.ops.compare_replicas import NO_LIMIT, HeaderWalk

    seg = bytearray(_header_run_segment())
    d = tmp_path_factory.mktemp("t") / "t-0"
    d.mkdir()
    path = str(d / "00000000000000000000.log")
    Path(path).write_bytes(bytes(seg))
    heads = [h for h in HeaderWalk(str(d)) if not isinstance(h, Problem)]
    h = heads[start % len(heads)]
    for at, value in edits:
        seg[at % len(seg)] = value
    Path(path).write_bytes(bytes(seg))
    head = (h.attributes, h.epoch, h.producer_id, h.producer_epoch)
    c, p = _header_run_both(path, h.position + h.size, b"", 0, h.size, h.last, head, NO_LIMIT)
    assert c == p
