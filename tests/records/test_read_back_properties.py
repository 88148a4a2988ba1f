"""Property tests: what the project's encoder (tests/writer.py) writes, kdump reads back
exactly.

Random valid batches of every magic (0, 1, 2) and every codec (none, gzip, snappy in
xerial and raw framing, lz4 with and without block checksums and with the broken
magic-0 header checksum, zstd for magic 2), random keys, values, headers, nulls,
timestamps, offset gaps and producer fields, several batches to a file.  The reader
must return every batch at its position with its header fields, every record with its
offset, timestamp, key, value, headers and sequence, every checksum valid, no problem
reported; ``verify-crc`` must find the file clean and ``dump --format json`` must carry
the same records.

Example counts come from a hypothesis profile: ``ci`` (the default, a fixed, small,
derandomized budget) or ``dev`` (``KDUMP_HYPOTHESIS_PROFILE=dev``, many more, random).
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kdump.files.logdir import KafkaFile
from kdump.findings import Problem
from kdump.ops.verify_crc import FileResult, VerifyOptions, verify_log
from kdump.records.control import parse_control
from kdump.records.file_records import LogReader
from kdump.records.legacy import LegacyBatch
from kdump.records.v2 import RecordBatch
from kdump.source import FileSource
from tests.fuzz.harness import run_kdump
from tests.support import writer as w

settings.register_profile(
    "ci", max_examples=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile(
    "dev", max_examples=1000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = settings.get_profile(os.environ.get("KDUMP_HYPOTHESIS_PROFILE", "ci"))
#: the end-to-end CLI property runs the whole command: fewer examples
CLI_PROFILE = settings(PROFILE, max_examples=max(10, PROFILE.max_examples // 3))

INT16 = st.integers(-(1 << 15), (1 << 15) - 1)
INT32 = st.integers(-(1 << 31), (1 << 31) - 1)
TIMESTAMPS = st.integers(0, 1 << 45) | st.sampled_from([0, w.DEFAULT_TIMESTAMP])
PAYLOAD = st.none() | st.binary(max_size=48) | st.sampled_from([b"", b"\x00", "é€".encode()])


# ---------------------------------------------------------------------------------------
# what was written
# ---------------------------------------------------------------------------------------
@dataclass
class Expected:
    """One record as kdump must report it."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[bytes, bytes | None]] = field(default_factory=list)
    sequence: int = -1
    attributes: int | None = None


@dataclass
class Written:
    """One entry of the file and what reading it must give."""

    data: bytes
    magic: int
    fields: dict[str, Any]
    records: list[Expected]


def _increment(seq: int, delta: int) -> int:
    return delta - ((1 << 31) - 1 - seq) - 1 if seq > (1 << 31) - 1 - delta else seq + delta


@st.composite
def v2_batches(draw: st.DrawFn, base_offset: int) -> Written:
    n = draw(st.integers(0, 6))
    gaps = draw(st.lists(st.integers(1, 3) | st.just(1), min_size=n, max_size=n))
    deltas = [sum(gaps[:i]) - gaps[0] if gaps else 0 for i in range(1, n + 1)] if n else []
    recs = []
    for i in range(n):
        headers = draw(st.lists(st.tuples(st.binary(max_size=12), PAYLOAD), max_size=3))
        recs.append(w.Rec(draw(PAYLOAD), draw(PAYLOAD), list(headers),
                          timestamp=draw(TIMESTAMPS), offset_delta=deltas[i],
                          attributes=draw(st.integers(0, 255))))
    codec = draw(st.sampled_from([w.NONE, w.GZIP, w.SNAPPY, w.LZ4, w.ZSTD]))
    producer_id = draw(st.just(-1) | st.integers(0, (1 << 63) - 1))
    base_sequence = draw(st.just(-1) | st.integers(0, (1 << 31) - 1))
    log_append_time = draw(st.none() | TIMESTAMPS)
    delete_horizon = draw(st.none() | TIMESTAMPS) if log_append_time is None else None
    kw: dict[str, Any] = dict(
        base_offset=base_offset,
        partition_leader_epoch=draw(st.just(-1) | st.integers(0, (1 << 31) - 1)),
        codec=codec,
        snappy_framing=draw(st.sampled_from(["xerial", "raw"])),
        lz4_block_checksum=draw(st.booleans()),
        log_append_time=log_append_time,
        delete_horizon_ms=delete_horizon,
        producer_id=producer_id,
        producer_epoch=draw(INT16),
        base_sequence=base_sequence,
        transactional=draw(st.booleans()),
        control=False,  # control batches: the markers below (random records are no control records)
    )
    if n == 0:
        kw["last_offset_delta"] = draw(st.integers(0, 5))
    data = w.v2_batch(recs, **kw)
    base_ts = delete_horizon if delete_horizon is not None else (
        recs[0].timestamp if recs else -1)
    lod = deltas[-1] if n else kw["last_offset_delta"]
    fields = dict(
        base_offset=base_offset, last_offset=base_offset + lod, last_offset_delta=lod,
        partition_leader_epoch=kw["partition_leader_epoch"], magic=2,
        compression=codec, producer_id=producer_id, producer_epoch=kw["producer_epoch"],
        base_sequence=base_sequence, records_count=n, is_transactional=kw["transactional"],
        is_control=kw["control"], first_timestamp=base_ts,
        timestamp_type="LogAppendTime" if log_append_time is not None else "CreateTime",
        delete_horizon_ms=delete_horizon, size=len(data),
        max_timestamp=log_append_time if log_append_time is not None else (
            max(r.timestamp for r in recs) if recs else -1),  # type: ignore[type-var]
    )
    expected = [
        Expected(base_offset + d, log_append_time if log_append_time is not None else r.timestamp,
                 r.key, r.value, [(bytes(k), v) for k, v in r.headers],  # type: ignore[arg-type]
                 _increment(base_sequence, d) if base_sequence >= 0 else -1, r.attributes)
        for r, d in zip(recs, deltas, strict=True)
    ]
    return Written(data, 2, fields, expected)


@st.composite
def legacy_messages(draw: st.DrawFn, offset: int) -> Written:
    magic = draw(st.sampled_from([0, 1]))
    key, value = draw(PAYLOAD), draw(PAYLOAD)
    ts = draw(TIMESTAMPS) if magic == 1 else -1
    lat = magic == 1 and draw(st.booleans())
    data = w.legacy_message(magic, key, value, offset=offset, timestamp=ts, log_append_time=lat)
    fields = dict(base_offset=offset, last_offset=offset, magic=magic, compression=0,
                  max_timestamp=ts, size=len(data),
                  timestamp_type=("NoTimestampType" if magic == 0 else
                                  "LogAppendTime" if lat else "CreateTime"))
    return Written(data, magic, fields, [Expected(offset, ts, key, value)])


@st.composite
def legacy_wrappers(draw: st.DrawFn, first_offset: int) -> Written:
    magic = draw(st.sampled_from([0, 1]))
    codec = draw(st.sampled_from([w.GZIP, w.SNAPPY, w.LZ4]))
    n = draw(st.integers(1, 5))
    msgs = [w.Rec(draw(PAYLOAD), draw(PAYLOAD),
                  timestamp=draw(st.none() | TIMESTAMPS) if magic == 1 else None)
            for _ in range(n)]
    last_offset = first_offset + n - 1
    wrapper_ts = draw(st.none() | TIMESTAMPS) if magic == 1 else None
    lat = magic == 1 and draw(st.booleans())
    data = w.legacy_compressed(
        magic, msgs, last_offset=last_offset, codec=codec, wrapper_timestamp=wrapper_ts,
        log_append_time=lat, snappy_framing=draw(st.sampled_from(["xerial", "raw"])),
        lz4_broken_hc=None if magic == 1 else draw(st.booleans()))
    inner_ts = [m.timestamp if m.timestamp is not None else
                (wrapper_ts if wrapper_ts is not None else -1) for m in msgs]
    outer_ts = wrapper_ts if wrapper_ts is not None else max(inner_ts)
    if magic == 0:
        inner_ts, outer_ts = [-1] * n, -1
    elif lat:
        inner_ts = [outer_ts] * n
    fields = dict(base_offset=first_offset, last_offset=last_offset, magic=magic,
                  compression=codec, max_timestamp=outer_ts, size=len(data))
    expected = [Expected(first_offset + i, inner_ts[i], m.key, m.value)
                for i, m in enumerate(msgs)]
    return Written(data, magic, fields, expected)


@st.composite
def end_txn_markers(draw: st.DrawFn, offset: int) -> Written:
    commit = draw(st.booleans())
    epoch = draw(INT32)
    data = w.end_txn_marker_batch(commit, base_offset=offset, producer_id=draw(st.integers(0, 1 << 40)),
                                  producer_epoch=draw(st.integers(0, 32767)),
                                  coordinator_epoch=epoch, timestamp=draw(TIMESTAMPS))
    fields = dict(base_offset=offset, last_offset=offset, magic=2, is_control=True,
                  is_transactional=True, size=len(data), marker=(commit, epoch))
    return Written(data, 2, fields, [])


@st.composite
def log_files(draw: st.DrawFn) -> list[Written]:
    out: list[Written] = []
    offset = draw(st.integers(0, 1 << 40) | st.just(0))
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["v2", "v2", "v2", "legacy", "wrapper", "marker"]))
        if kind == "v2":
            b = draw(v2_batches(offset))
        elif kind == "legacy":
            b = draw(legacy_messages(offset))
        elif kind == "wrapper":
            b = draw(legacy_wrappers(offset))
        else:
            b = draw(end_txn_markers(offset))
        out.append(b)
        offset = b.fields["last_offset"] + draw(st.integers(1, 4))
    return out


# ---------------------------------------------------------------------------------------
# reading it back
# ---------------------------------------------------------------------------------------
def _write(entries: list[Written], d: str) -> str:
    path = os.path.join(d, "00000000000000000000.log")
    with open(path, "wb") as fh:
        for e in entries:
            fh.write(e.data)
    return path


def _check_batch(item: RecordBatch | LegacyBatch, want: Written, position: int) -> None:
    assert item.position == position
    assert item.magic == want.magic
    assert item.crc_valid, f"CRC of the batch at {position} does not verify"
    f = want.fields
    for name in ("base_offset", "last_offset", "size", "compression", "max_timestamp",
                 "timestamp_type", "partition_leader_epoch", "producer_id", "producer_epoch",
                 "base_sequence", "is_transactional", "is_control", "first_timestamp",
                 "delete_horizon_ms", "last_offset_delta", "records_count"):
        if name in f:
            assert getattr(item, name) == f[name], (name, getattr(item, name), f[name])
    records = list(item.records())
    if "marker" in f:
        assert len(records) == 1
        ctl = parse_control(records[0])
        assert ctl.error is None and ctl.is_end_txn_marker
        assert (ctl.type_name == "COMMIT", ctl.coordinator_epoch) == f["marker"]
        return
    assert len(records) == len(want.records)
    for got, exp in zip(records, want.records, strict=True):
        assert got.offset == exp.offset
        assert got.timestamp == exp.timestamp
        assert got.key == exp.key
        assert got.value == exp.value
        assert [(bytes(k), None if v is None else bytes(v)) for k, v in got.headers] == exp.headers
        if want.magic == 2:
            assert got.sequence == exp.sequence
            assert got.attributes == exp.attributes
        else:
            assert got.crc_valid


def read_back(path: str, entries: list[Written], chunk: int | None = None) -> None:
    with FileSource(path) as src:
        reader = LogReader(src) if chunk is None else LogReader(src, chunk=chunk)
        items = list(reader)
        problems = [i for i in items if isinstance(i, Problem)]
        assert not problems, problems
        assert len(items) == len(entries)
        pos = 0
        for item, want in zip(items, entries, strict=True):
            assert isinstance(item, RecordBatch | LegacyBatch)
            _check_batch(item, want, pos)
            pos += len(want.data)
        assert reader.valid_end == src.size == pos
        assert reader.unreadable_bytes == 0


@PROFILE
@given(log_files())
def test_reader_returns_what_the_writer_wrote(entries: list[Written]) -> None:
    with tempfile.TemporaryDirectory() as d:
        read_back(_write(entries, d), entries)


@PROFILE
@given(log_files(), st.sampled_from([17, 61, 64, 100, 4096]))
def test_window_size_does_not_matter(entries: list[Written], chunk: int) -> None:
    """The same file read through a tiny window (every batch crosses a refill)."""
    with tempfile.TemporaryDirectory() as d:
        read_back(_write(entries, d), entries, chunk=chunk)


@PROFILE
@given(log_files())
def test_verify_crc_finds_nothing_wrong_in_valid_data(entries: list[Written]) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = _write(entries, d)
        f = KafkaFile(path, "log", 0, active=True)
        result = FileResult(path)
        problems = [p for p in verify_log(f, VerifyOptions(), result) if p.is_failure]
        # a file of random batches may put a legacy message after a v2 batch, and offsets
        # only ascend: nothing is wrong
        assert not problems, problems
        assert result.invalid_batches == 0
        assert result.batches == len(entries)
        assert result.records == sum(max(len(e.records), 1 if "marker" in e.fields else 0)
                                     for e in entries)


def _payload(value: Any, encoding: str) -> bytes | None:
    if value is None:
        return None
    if encoding == "base64":
        return base64.b64decode(value)
    if encoding == "hex":
        return bytes.fromhex(value)
    assert encoding == "utf8", encoding
    return str(value).encode()


@CLI_PROFILE
@given(log_files(), st.sampled_from(["base64", "hex", "utf8"]))
def test_dump_json_carries_every_record(entries: list[Written], encoding: str) -> None:
    """``kdump dump --format json --deep-iteration`` end to end, in-process."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(_write(entries, d))
        r = run_kdump(["dump", "--deep-iteration", "--format", "json", "--payload-encoding",
                       encoding, str(path)])
        assert r.rc == 0, r.err
        objs = [json.loads(line) for line in r.out.splitlines()]
        batches = [o for o in objs if o["type"] == "batch"]
        records = [o for o in objs if o["type"] == "record"]
        assert [b["base_offset"] for b in batches] == [e.fields["base_offset"] for e in entries]
        assert all(b["crc_valid"] for b in batches)
        want = [x for e in entries for x in e.records]
        got = [o for o in records if o.get("control") is None]
        assert len(got) == len(want)
        for o, exp in zip(got, want, strict=True):
            assert (o["offset"], o["timestamp"]) == (exp.offset, exp.timestamp)
            assert _payload(o["key"], o["key_encoding"]) == exp.key
            assert _payload(o["value"], o["value_encoding"]) == exp.value
            assert [(_payload(h["key"], h["key_encoding"]), _payload(h["value"], h["value_encoding"]))
                    for h in o["headers"]] == exp.headers
