"""Hostile input: live data, Kafka's own leftovers, filesystem trouble, and the
regressions the fuzzer found.  Every fixture comes from tests/writer.py (or from
damaging its output); every command runs in-process through ``kdump.cli.main`` with the
inputs checked unchanged afterwards (the ``kdump`` fixture of conftest.py).
"""

from __future__ import annotations

import json
import os
import struct
import time
from pathlib import Path

import pytest

try:
    from tests import writer as w
except ImportError:  # pragma: no cover
    import writer as w  # type: ignore[no-redef, unused-ignore]

TS = w.DEFAULT_TIMESTAMP
LOG0 = "00000000000000000000.log"


def batch(base: int, n: int = 3, **kw: object) -> bytes:
    recs = [w.Rec(f"k{base + i}".encode(), f"v{base + i}".encode(), timestamp=TS + base + i)
            for i in range(n)]
    return w.v2_batch(recs, base_offset=base, **kw)  # type: ignore[arg-type]


def jsonl(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def problems(out: str) -> list[dict]:
    return [o for o in jsonl(out) if o.get("type") == "problem"]


def clean(r: object) -> None:
    err = r.err  # type: ignore[attr-defined]
    assert "Traceback" not in err and "internal error" not in err, err
    assert r.rc in (0, 1, 2)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------
# regressions found by the mutation fuzzer (tests/fuzz)
# ---------------------------------------------------------------------------------------
def test_rebuild_with_an_offset_too_far_from_the_segment_base(kdump, tmp_path: Path) -> None:
    """Fuzz case long1:10606: a batch whose offset lies more than 2^31 past its segment's
    base made ``verify-index --rebuild-into`` die packing the relative offset (struct
    error, 'internal error').  Kafka splits such a segment; kdump says so and writes the
    entries that fit."""
    d = tmp_path / "t-0"
    d.mkdir()
    (d / LOG0).write_bytes(batch(0) + batch(10) + batch(1 << 40) + batch((1 << 40) + 5))
    out = tmp_path / "rebuilt"
    r = kdump("verify-index", "--rebuild-into", out, "--index-interval-bytes", "1",
              "--format", "json", d, watch=[d])
    clean(r)
    assert r.rc == 1
    p = [x for x in problems(r.out) if "LogSegmentOffsetOverflowException" in x["detail"]]
    assert p and p[0]["severity"] == "warning"
    rebuilt = (out / "t-0" / "00000000000000000000.index").read_bytes()
    assert [struct.unpack_from(">ii", rebuilt, i)[0] for i in range(0, len(rebuilt), 8)] == [12]


def test_a_fifo_is_refused_not_waited_on(kdump, tmp_path: Path) -> None:
    """Fuzz case ci:412: a FIFO with no writer in place of a segment hung every command
    (a blocking open)."""
    d = tmp_path / "t-0"
    d.mkdir()
    (d / LOG0).write_bytes(batch(0))
    os.mkfifo(d / "00000000000000000003.log")
    for cmd in (["dump"], ["verify-crc"], ["verify-index"], ["size-report"]):
        r = kdump(*cmd, d, watch=[d])
        clean(r)
        assert r.rc == 2, (cmd, r.out, r.err)
        assert "not a regular file (a FIFO)" in r.out + r.err
    r = kdump("find-offset", d / "00000000000000000003.log", "3")
    clean(r)
    assert r.rc == 2


# ---------------------------------------------------------------------------------------
# memory: records are decoded a chunk at a time
# ---------------------------------------------------------------------------------------
def _many(n: int, count: int | None = None, codec: int = w.NONE, tail: bytes = b"",
          cut: int = 0, bad_at: int | None = None) -> bytes:
    """A batch of ``n`` tiny records, its records count, trailing bytes, cut end or
    one broken record changed (length and CRC fixed)."""
    import crc32c

    recs = [w.Rec(None, b"%d" % i, timestamp=TS) for i in range(n)]
    raw = b"".join(w.encode_record_v2(r, TS, i) for i, r in enumerate(recs))
    if bad_at is not None:
        one = w.encode_record_v2(recs[bad_at], TS, bad_at)
        at = sum(len(w.encode_record_v2(recs[i], TS, i)) for i in range(bad_at))
        raw = raw[:at] + b"\x7f" + raw[at + 1:]  # a record length of -64
        assert one
    raw = raw[: len(raw) - cut] + tail
    area = w.compress(codec, raw)
    b = bytearray(w.v2_batch(recs[:1], codec=codec)[:61] + area)
    struct.pack_into(">i", b, 8, len(b) - 12)
    struct.pack_into(">i", b, 57, n if count is None else count)
    struct.pack_into(">I", b, 17, crc32c.crc32c(bytes(b[21:])))
    return bytes(b)


@pytest.mark.parametrize("variant", [
    dict(n=10000), dict(n=4096), dict(n=4097), dict(n=8192), dict(n=10000, count=9000),
    dict(n=10000, count=20000), dict(n=8192, count=8193), dict(n=10000, tail=b"\x00\x01"),
    dict(n=10000, cut=3), dict(n=10000, bad_at=4096), dict(n=10000, bad_at=5000),
    dict(n=10000, bad_at=9999), dict(n=10000, codec=w.ZSTD, bad_at=8000),
    dict(n=10000, count=4097, codec=w.GZIP)])
def test_chunked_records_match_the_whole_batch_decoding(tmp_path: Path, variant: dict) -> None:
    """A batch of more than RECORD_CHUNK records is decoded in chunks by records():
    the same records and the same error as decoding it whole (decode_records)."""
    from kdump.errors import CorruptDataError
    from kdump.records.v2 import RECORD_CHUNK, RecordBatch

    data = _many(**variant)
    b = RecordBatch("x.log", 0, data, 0)
    assert b.records_count > RECORD_CHUNK or variant["n"] <= RECORD_CHUNK
    whole, error = b.decode_records()
    got = []
    raised = None
    try:
        for r in b.records():
            got.append(r)
    except CorruptDataError as e:
        raised = str(e)
    assert [(r.offset, r.value, r.position, r.size) for r in got] == \
        [(r.offset, r.value, r.position, r.size) for r in whole]
    assert raised == (None if error is None else str(error))


# ---------------------------------------------------------------------------------------
# a batch stored larger than --max-batch-bytes
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["v2", "v2-compressed", "v0", "v1"])
@pytest.mark.parametrize("damaged", [False, True])
def test_a_batch_larger_than_the_limit_is_framed_not_read(kdump, tmp_path: Path, kind: str,
                                                          damaged: bool) -> None:
    """Header shown, CRC computed in chunks (a flipped byte in the middle is found),
    records reported as batch-too-large, the next batch read."""
    value = bytes(range(256)) * 2048  # 512 KiB
    if kind == "v2":
        big = w.v2_batch([w.Rec(b"k", value)], base_offset=0)
    elif kind == "v2-compressed":
        big = w.v2_batch([w.Rec(b"k", value)], base_offset=0, codec=w.GZIP, compress_level=0)
    else:
        big = w.legacy_message(int(kind[1]), b"k", value, offset=0, timestamp=TS)
    if damaged:
        b = bytearray(big)
        b[len(b) // 2] ^= 0xFF
        big = bytes(b)
    d = tmp_path / "t-0"
    d.mkdir()
    (d / LOG0).write_bytes(big + batch(1))
    r = kdump("dump", "--print-data-log", "--max-batch-bytes", "64K", "--format", "json", d,
              watch=[d])
    clean(r)
    assert r.rc == 1
    objs = jsonl(r.out)
    batches = [o for o in objs if o["type"] == "batch"]
    assert (batches[0]["position"], batches[0]["size"], batches[0]["crc_valid"]) == \
        (0, len(big), not damaged)
    assert [o["offset"] for o in objs if o["type"] == "record"] == [1, 2, 3]
    kinds = [p["kind"] for p in problems(r.out)]
    assert "batch-too-large" in kinds
    assert ("crc-mismatch" in kinds) == damaged
    r = kdump("verify-crc", "--max-batch-bytes", "64K", "--format", "json", d, watch=[d])
    clean(r)
    kinds = [p["kind"] for p in problems(r.out)]
    assert "batch-too-large" in kinds and ("crc-mismatch" in kinds) == damaged
    # with a limit above its size, the same batch is read as usual
    r = kdump("verify-crc", "--max-batch-bytes", "4M", "--format", "json", d, watch=[d])
    assert [p["kind"] for p in problems(r.out)] == (["crc-mismatch"] if damaged else []) or \
        damaged


# ---------------------------------------------------------------------------------------
# small text files
# ---------------------------------------------------------------------------------------
def test_a_line_of_backslashes_in_meta_properties_is_read_at_once(kdump, tmp_path: Path) -> None:
    """The properties line pattern let a backslash be an escape or a plain character,
    so a line of n backslashes with no separator backtracked through 2^n splits: 40
    took 50 s, 60 would take days.  The pattern is unambiguous now."""
    (tmp_path / "meta.properties").write_bytes(b"\\" * 60 + b"x\nnode.id=1\n")
    t0 = time.monotonic()
    r = kdump("dump", tmp_path / "meta.properties", watch=[tmp_path])
    assert time.monotonic() - t0 < 5
    clean(r)
    assert r.rc == 0 and "node.id=1" in r.out


@pytest.mark.parametrize("text", [b"[" * 100_000, b'{"leaderId":' + b"1" * 5000 + b"}"],
                         ids=["nested", "huge-number"])
def test_quorum_state_json_kafka_cannot_have_written(kdump, tmp_path: Path, text: bytes) -> None:
    """json.loads raised RecursionError (deep nesting) and ValueError (an integer past
    4300 digits) that escaped as 'internal error'."""
    d = tmp_path / "__cluster_metadata-0"
    d.mkdir()
    (d / "quorum-state").write_bytes(text)
    r = kdump("dump", "--format", "json", d / "quorum-state", watch=[d])
    clean(r)
    assert r.rc == 1
    assert [p["kind"] for p in problems(r.out)] == ["bad-file"]


def test_a_checkpoint_line_is_quoted_short(kdump, tmp_path: Path) -> None:
    """An offending line was quoted whole in the finding (a 64 MiB line, 64 MiB of
    message)."""
    (tmp_path / "recovery-point-offset-checkpoint").write_bytes(
        b"0\n1\n" + b"x" * 1_000_000 + b"\n")
    r = kdump("dump", "--format", "json", tmp_path / "recovery-point-offset-checkpoint",
              watch=[tmp_path])
    clean(r)
    (p,) = problems(r.out)
    assert p["position"] == 4 and len(p["detail"]) < 200, p["detail"][:300]


def test_checkpoint_errors_still_come_before_any_entry(kdump, tmp_path: Path) -> None:
    """Checkpoints are read a line at a time now; a bad line still means no entry is
    shown, and a UTF-8 error is found first wherever it is."""
    f = tmp_path / "recovery-point-offset-checkpoint"
    f.write_bytes(b"0\n3\nt 0 1\nt 1 2\nt 2 x\n")
    r = kdump("dump", "--format", "json", f, watch=[tmp_path])
    assert [o["type"] for o in jsonl(r.out)] == ["file", "problem"]
    assert problems(r.out)[0]["detail"].startswith("line 5: expected a partition and an offset")
    f.write_bytes(b"x\n3\nt 0 1\nt 1 \xff\n")
    r = kdump("dump", "--format", "json", f, watch=[tmp_path])
    assert problems(r.out)[0]["detail"] == "not UTF-8 text: invalid start byte"
    assert problems(r.out)[0]["position"] == 14
