"""Hostile input: live data, Kafka's own leftovers, filesystem trouble, and the
regressions the fuzzer found.  Every fixture comes from tests/writer.py (or from
damaging its output); every command runs in-process through ``kdump.cli.main`` with the
inputs checked unchanged afterwards (the ``kdump`` fixture of conftest.py).
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest

from tests.support import writer as w

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
    rebuilt = (out / tmp_path.name / "t-0" / "00000000000000000000.index").read_bytes()
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
    from tests.fuzz.harness import cpu_timer

    # a guard, in CPU seconds (a busy machine adds none): 2^60 steps never end, a linear
    # parse ends at once
    with cpu_timer(30):
        r = kdump("dump", tmp_path / "meta.properties", watch=[tmp_path])
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


# ---------------------------------------------------------------------------------------
# live data
# ---------------------------------------------------------------------------------------
ALL_COMMANDS = [["dump", "--deep-iteration"], ["verify-crc"], ["verify-index"], ["size-report"]]


def _partition(tmp_path: Path, name: str = "t-0", batches: int = 3) -> tuple[Path, bytes]:
    d = tmp_path / name
    d.mkdir(parents=True)
    data = b"".join(batch(3 * i) for i in range(batches))
    (d / LOG0).write_bytes(data)
    return d, data


@pytest.fixture
def appending(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Every input file opened gets more bytes appended right after kdump opened it (a
    broker appending while kdump reads), deterministically."""
    import kdump.source

    real = kdump.source.FileSource.__init__
    extra: dict[str, bytes] = {}

    def init(self, path: str) -> None:  # type: ignore[no-untyped-def]
        real(self, path)
        tail = extra.get(os.path.basename(path))
        if tail:
            with open(path, "ab") as fh:
                fh.write(tail)

    monkeypatch.setattr(kdump.source.FileSource, "__init__", init)
    return extra


def test_a_segment_appended_while_read_is_read_up_to_its_size_at_open(
        kdump, tmp_path: Path, appending: dict) -> None:
    """kdump freezes a file's size when it opens it: bytes a broker appends meanwhile
    (a whole batch, and half of the next) are neither read nor reported."""
    d, data = _partition(tmp_path)
    appending[LOG0] = batch(9) + batch(12)[:30]
    r = kdump("dump", "--deep-iteration", "--format", "json", d)
    clean(r)
    assert r.rc == 0, r.err
    objs = jsonl(r.out)
    assert [o["base_offset"] for o in objs if o["type"] == "batch"] == [0, 3, 6]
    assert not problems(r.out)
    (end,) = [o for o in objs if o["type"] == "log_end"]
    assert end["size"] == len(data) and end["trailing_bytes"] == 0


@pytest.mark.parametrize("suffix", [".log", ".index", ".timeindex", ".txnindex", ".snapshot"])
@pytest.mark.parametrize("keep", [0, 5, 17, 40, 70, 100, -1])
def test_a_file_cut_short_while_read(kdump, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     suffix: str, keep: int) -> None:
    """A file cut short right after kdump opened it (retention, a truncating recovery):
    its size at open is larger than what is left, so reads come back short.  That is
    data ('truncated', or the file named as cut short), never a crash.  (This found
    struct errors in the log walker and the index readers.)"""
    import kdump.source as ksource

    d = tmp_path / "t-0"
    pw = w.PartitionWriter(d, index_interval_bytes=50)
    for i in range(4):
        pw.append(batch(3 * i, producer_id=5, producer_epoch=0, base_sequence=3 * i))
    pw.add_txn_index_entry(5, 0, 2, 3)
    pw.write_producer_snapshot()
    pw.close()
    saved = {p.name: p.read_bytes() for p in d.iterdir()}
    real = ksource.FileSource.__init__

    def init(self, path: str) -> None:  # type: ignore[no-untyped-def]
        real(self, path)
        if path.endswith(suffix):
            os.truncate(path, keep if keep >= 0 else max(0, self.size - 1))

    monkeypatch.setattr(ksource.FileSource, "__init__", init)
    for cmd in [*ALL_COMMANDS, ["find-offset", "--print-data-log"], ["find-time"]]:
        for name, data in saved.items():
            (d / name).write_bytes(data)
        args = [d, "7"] if cmd[0].startswith("find") else [d]
        r = kdump(*cmd, "--format", "json", *args)
        clean(r)


@pytest.mark.parametrize("cut", [17, 40, 61, 70])
def test_a_half_written_last_batch_of_the_active_segment_is_in_flight(
        kdump, tmp_path: Path, cut: int) -> None:
    """The active segment (largest base offset of its partition) ends in a batch still
    being written: 'in-flight', severity info, exit 0; the same bytes at the end of an
    older segment are corruption ('truncated' / 'trailing-bytes')."""
    d = tmp_path / "t-0"
    d.mkdir()
    old, active = "00000000000000000000.log", "00000000000000000006.log"
    (d / old).write_bytes(batch(0) + batch(3) + batch(6)[:cut])
    (d / active).write_bytes(batch(6) + batch(9) + batch(12)[:cut])
    for cmd in (["dump"], ["verify-crc"], ["size-report"]):
        r = kdump(*cmd, "--format", "json", d, watch=[d])
        clean(r)
        by_file = {(p["file"].rsplit("/", 1)[1], p["kind"], p["severity"]) for p in problems(r.out)}
        # size-report too says the tail in flight, as verify-crc does (issue 46)
        assert (active, "in-flight", "info") in by_file, (cmd, by_file)
        assert any(f == old and k in ("truncated", "trailing-bytes") and s == "error"
                   for f, k, s in by_file), (cmd, by_file)
    (d / old).unlink()
    for cmd in (["dump"], ["verify-crc"]):
        r = kdump(*cmd, d, watch=[d])
        assert r.rc == 0, (cmd, r.out, r.err)  # in flight is no corruption


def test_preallocated_indexes_and_zero_tails(kdump, tmp_path: Path) -> None:
    """A copy of a live broker's partition (tests/writer.py's preallocate_active_index):
    the active segment's indexes padded with zero entries, its log with a zero tail
    (a preallocated file); an old segment with a zero tail (unclean shutdown)."""
    d = tmp_path / "t-0"
    pw = w.PartitionWriter(d, segment_bytes=600, index_interval_bytes=100,
                           preallocate_active_index=True, active_index_slots=64)
    for i in range(12):
        pw.append(batch(3 * i))
    pw.close()
    logs = sorted(d.glob("*.log"))
    assert len(logs) >= 2
    with open(logs[-1], "ab") as fh:
        fh.write(bytes(4096))
    with open(logs[0], "ab") as fh:
        fh.write(bytes(100))
    r = kdump("dump", "--format", "json", d, watch=[d])
    clean(r)
    kinds = {(p["file"].rsplit("/", 1)[1], p["kind"], p["severity"]) for p in problems(r.out)}
    assert (logs[-1].name, "zero-tail", "info") in kinds
    assert (logs[0].name, "zero-tail", "warning") in kinds
    assert any(k == "index-zero-slots" and s == "info" for _, k, s in kinds), kinds
    r = kdump("verify-index", "--format", "json", d, watch=[d])
    clean(r)
    zero = [p for p in problems(r.out) if p["kind"] == "index-zero-slots"]
    assert zero and all(p["severity"] == "info" for p in zero)
    r = kdump("verify-crc", d, watch=[d])
    assert r.rc == 1  # the old segment's zero tail is a warning


# ---------------------------------------------------------------------------------------
# Kafka's leftovers and odd names: each named for what it is
# ---------------------------------------------------------------------------------------
def test_leftovers_are_named_for_what_they_are(kdump, tmp_path: Path) -> None:
    root = tmp_path / "logdir"
    d = root / "t-0"
    d.mkdir(parents=True)
    (d / LOG0).write_bytes(batch(0))
    (d / "00000000000000000003.log").write_bytes(b"")  # an empty (new, active) segment
    (d / "00000000000000000000.log.deleted").write_bytes(batch(0))
    (d / "00000000000000000000.index.deleted").write_bytes(w.offset_index([(0, 0)]))
    (d / "00000000000000000000.log.cleaned").write_bytes(batch(0)[:30])
    (d / "00000000000000000000.log.swap").write_bytes(batch(0))
    (d / "00000000000000000000.timeindex.swap").write_bytes(w.time_index([(TS, 0)]))
    (d / "00000000000000000007.snapshot.deleted").write_bytes(w.producer_snapshot([]))
    (d / "leader-epoch-checkpoint.tmp").write_bytes(w.leader_epoch_checkpoint([(0, 0)]))
    (d / "notes.txt").write_bytes(b"hello")
    (d / "abc.log").write_bytes(batch(0))
    (d / "99999999999999999999999.log").write_bytes(batch(0))
    (d / "00000000000000000000.log~").write_bytes(b"x")
    (root / "t-1.0123456789abcdef0123456789abcdef-delete").mkdir()
    (root / "t-1.0123456789abcdef0123456789abcdef-delete" / LOG0).write_bytes(batch(0))
    (root / "t-2.0123456789abcdef0123456789abcdef-future").mkdir()
    (root / "t-2.0123456789abcdef0123456789abcdef-future" / LOG0).write_bytes(batch(0))
    (root / "t-3").mkdir()  # a partition directory with no segment
    (root / "t-3" / "partition.metadata").write_bytes(w.partition_metadata(bytes(16)))
    (root / "not-a-partition").mkdir()
    (root / "__cluster_metadata-0").mkdir()
    (root / "__cluster_metadata-0" / "00000000000000000000-0000000001.checkpoint.part"
     ).write_bytes(b"")
    (root / "__cluster_metadata-0" / "00000000000000000000-0000000001-ab12.checkpoint.part"
     ).write_bytes(b"")
    for cmd in [*ALL_COMMANDS, ["find-offset"], ["find-time"]]:
        target = [d, "0"] if cmd[0].startswith("find") else [root]
        r = kdump(*cmd, "--format", "json", *target, watch=[root])
        clean(r)
        assert r.rc in (0, 1), (cmd, r.out[-2000:], r.err)
    r = kdump("dump", "--format", "json", root, watch=[root])
    files = {o["file"].split("logdir/", 1)[1]: o for o in jsonl(r.out) if o["type"] == "file"}

    def what(name: str) -> tuple:
        f = files[name]
        return f["kind"], f["leftover"], f["partition_state"]

    assert what("t-0/00000000000000000000.log.deleted") == ("log", "deleted", None)
    assert what("t-0/00000000000000000000.index.deleted") == ("offset-index", "deleted", None)
    assert what("t-0/00000000000000000000.log.cleaned") == ("log", "cleaned", None)
    assert what("t-0/00000000000000000000.log.swap") == ("log", "swap", None)
    assert what("t-0/00000000000000000000.timeindex.swap") == ("time-index", "swap", None)
    assert what("t-0/00000000000000000007.snapshot.deleted") == ("producer-snapshot", "deleted",
                                                                  None)
    assert what("t-0/leader-epoch-checkpoint.tmp") == ("leader-epoch-checkpoint", "tmp", None)
    assert what("t-0/notes.txt")[0] == "unknown"
    assert what("t-0/abc.log") == ("log", None, None)
    assert files["t-0/abc.log"]["base_offset"] is None
    assert files["t-0/99999999999999999999999.log"]["base_offset"] == 99999999999999999999999
    assert what("t-1.0123456789abcdef0123456789abcdef-delete/" + LOG0) == ("log", None, "delete")
    assert what("t-2.0123456789abcdef0123456789abcdef-future/" + LOG0) == ("log", None, "future")
    assert what("__cluster_metadata-0/00000000000000000000-0000000001.checkpoint.part") == (
        "kraft-snapshot", "part", None)
    # the largest base offset makes the active segment, whatever else the name says
    assert files["t-0/99999999999999999999999.log"]["active"] is True
    assert files["t-0/00000000000000000003.log"]["active"] is False
    for name, f in files.items():
        assert f["description"], name
    # the partition directory with no segment, and the directory that is no partition
    r = kdump("dump", "--format", "json", root / "t-3", root / "not-a-partition", watch=[root])
    clean(r)
    # issue 15: a directory with nothing Kafka-like is "no Kafka data under PATH", exit 2;
    # the (empty) partition directory is Kafka's and says nothing
    nothing = [json.loads(x)["detail"] for x in r.out.splitlines()
               if json.loads(x).get("kind") == "unreadable-file"]
    assert r.rc == 2 and nothing == [f"no Kafka data under {root / 'not-a-partition'}"]


# ---------------------------------------------------------------------------------------
# filesystem trouble: a message per path, and the walk carries on
# ---------------------------------------------------------------------------------------
def _two_partitions(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "logdir"
    a, _ = _partition(root, "a-0")
    b, _ = _partition(root, "b-0")
    return root, a, b


def _carries_on(r: object, bad: str, cmd: list[str]) -> None:
    """Exit 2, the trouble named, and partition b-0 read all the same (``--format json``
    output: its batches dumped, counted or sized)."""
    out = r.out + r.err  # type: ignore[attr-defined]
    clean(r)
    assert r.rc == 2, (r.rc, out[-3000:])  # type: ignore[attr-defined]
    assert bad in out, out[-3000:]
    objs = jsonl(r.out)  # type: ignore[attr-defined]
    if cmd[0] == "dump":
        assert any(o["type"] == "batch" and "/b-0/" in o["file"] for o in objs)
    elif cmd[0] == "size-report":
        assert any(o.get("topic") == "b" and o["batches"] == 3 for o in objs), objs
    else:
        (summary,) = [o for o in objs if o["type"] == "summary"]
        assert summary["batches"] >= 3, summary


@pytest.mark.parametrize("cmd", ALL_COMMANDS)
def test_permission_denied_is_a_message_and_the_walk_goes_on(kdump, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             cmd: list[str]) -> None:
    """chmod 000 (as root the read succeeds: then the same refusal is simulated)."""
    root, a, _ = _two_partitions(tmp_path)
    (a / LOG0).chmod(0)
    try:
        readable = os.access(a / LOG0, os.R_OK)
        if readable:  # running as root
            real = os.open

            def deny(path, flags, *args, **kw):  # type: ignore[no-untyped-def]
                if str(path).endswith("a-0/" + LOG0):
                    raise PermissionError(13, "Permission denied", str(path))
                return real(path, flags, *args, **kw)

            monkeypatch.setattr(os, "open", deny)
        r = kdump(*cmd, "--format", "json", root, watch=[root])
        _carries_on(r, "permission denied", cmd)
    finally:
        (a / LOG0).chmod(0o644)


@pytest.mark.parametrize("cmd", ALL_COMMANDS)
def test_an_io_error_mid_file_is_a_message_and_the_walk_goes_on(kdump, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                cmd: list[str]) -> None:
    """EIO from pread in the middle of a segment (a failing disk)."""
    import errno

    root, _a, _ = _two_partitions(tmp_path)
    real = os.pread
    bad_fds: set[int] = set()
    real_open, real_close = os.open, os.close

    def opener(path, flags, *args, **kw):  # type: ignore[no-untyped-def]
        fd = real_open(path, flags, *args, **kw)
        if str(path).endswith("a-0/" + LOG0):
            bad_fds.add(fd)
        return fd

    def close(fd: int) -> None:
        bad_fds.discard(fd)
        real_close(fd)

    def pread(fd: int, n: int, pos: int) -> bytes:
        if fd in bad_fds and pos + n > 100:
            raise OSError(errno.EIO, "Input/output error")
        return real(fd, n, pos)

    real_preadv = os.preadv

    def preadv(fd: int, buffers: list[memoryview], pos: int) -> int:
        # verify-crc's native walk reads into a reused buffer (issue 33)
        if fd in bad_fds and pos + sum(len(b) for b in buffers) > 100:
            raise OSError(errno.EIO, "Input/output error")
        return real_preadv(fd, buffers, pos)

    monkeypatch.setattr(os, "open", opener)
    monkeypatch.setattr(os, "close", close)
    monkeypatch.setattr(os, "pread", pread)
    monkeypatch.setattr(os, "preadv", preadv)
    # the error is made in Python's os.pread: verify-crc's native walk, which reads a
    # local file itself, would not meet it; its own read errors end its walk where
    # Python's reads take over (tests/native/test_speedups.py
    # test_verify_native_reads_stop_at_a_read_error)
    from kdump.records import file_records

    monkeypatch.setattr(file_records, "NATIVE_READS", False)
    r = kdump(*cmd, "--format", "json", root, watch=[root])
    _carries_on(r, "input/output error", cmd)


@pytest.mark.parametrize("cmd", ALL_COMMANDS)
def test_a_file_that_vanishes_mid_walk(kdump, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       cmd: list[str]) -> None:
    """The walk lists a-0's files, then a-0's log disappears before it is opened
    (retention deleting a segment)."""
    import kdump.source as ksource

    root, _a, _ = _two_partitions(tmp_path)
    real = ksource.FileSource.__init__

    def init(self, path: str) -> None:  # type: ignore[no-untyped-def]
        if path.endswith("a-0/" + LOG0) and os.path.exists(path):
            os.unlink(path)
        real(self, path)

    monkeypatch.setattr(ksource.FileSource, "__init__", init)
    r = kdump(*cmd, "--format", "json", root)
    _carries_on(r, "no such file or directory", cmd)


def test_a_directory_that_vanishes_mid_walk(kdump, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from kdump.fs import Listing

    root, a, _ = _two_partitions(tmp_path)
    real = Listing.listdir

    def listdir(self: Listing, path: str) -> list[str]:
        if path.endswith("a-0"):
            shutil.rmtree(path)
        return real(self, path)

    # the walker's directory listings go through kdump.fs.Listing (local and remote)
    monkeypatch.setattr(Listing, "listdir", listdir)
    for cmd in ALL_COMMANDS:
        if not a.exists():
            _partition(root, "a-0")
        r = kdump(*cmd, "--format", "json", root)
        _carries_on(r, "vanished", cmd)


def test_symlink_loops(kdump, tmp_path: Path) -> None:
    root, a, _ = _two_partitions(tmp_path)
    (a / "loop").symlink_to(a)  # a directory that contains itself
    (root / "up").symlink_to("..")  # a log dir that contains its parent
    os.symlink("00000000000000000009.log", a / "00000000000000000008.log")
    os.symlink("00000000000000000008.log", a / "00000000000000000009.log")  # a file loop
    for cmd in ALL_COMMANDS:
        r = kdump(*cmd, "--format", "json", root, watch=[root])
        _carries_on(r, "too many levels of symbolic links", cmd)


def test_a_directory_where_a_file_is_expected(kdump, tmp_path: Path) -> None:
    root, a, _ = _two_partitions(tmp_path)
    (a / "00000000000000000000.index").mkdir()
    (a / "leader-epoch-checkpoint").mkdir()
    for cmd in ALL_COMMANDS:
        r = kdump(*cmd, "--format", "json", root, watch=[root])
        _carries_on(r, "is a directory, not a file", cmd)
        assert "00000000000000000000.index" in r.out
    r = kdump("dump", a / "00000000000000000000.index", watch=[root])
    assert r.rc == 2 and "is a directory" in r.out + r.err


# ---------------------------------------------------------------------------------------
# never a write
# ---------------------------------------------------------------------------------------
def test_inputs_are_only_ever_opened_read_only(kdump, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Every open of a path under the inputs, by any subcommand, is O_RDONLY without
    O_CREAT/O_TRUNC/O_APPEND (and files, sizes and mtimes are unchanged: the kdump
    fixture checks that after every run)."""
    import builtins

    root = tmp_path / "logdir"
    w.write_sample_logdir(root)
    seen: list[tuple[str, int]] = []
    real_open, real_builtin_open = os.open, builtins.open
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def checked(path, flags, *args, **kw):  # type: ignore[no-untyped-def]
        if str(path).startswith(str(root)):
            seen.append((str(path), flags))
        return real_open(path, flags, *args, **kw)

    def checked_builtin(path, mode="r", *args, **kw):  # type: ignore[no-untyped-def]
        if isinstance(path, str | os.PathLike) and str(path).startswith(str(root)):
            assert set(str(mode)) <= set("rbt"), (path, mode)
        return real_builtin_open(path, mode, *args, **kw)

    monkeypatch.setattr(os, "open", checked)
    monkeypatch.setattr(builtins, "open", checked_builtin)
    part = root / "orders-0"
    for args in (["dump", "--deep-iteration", root], ["dump", "--print-data-log", root],
                 ["verify-crc", root], ["verify-index", root],
                 ["verify-index", "--rebuild-into", tmp_path / "rebuilt", root],
                 ["size-report", root], ["find-offset", "--print-data-log", part, "50"],
                 ["find-time", part, "1700000000000"]):
        r = kdump(*args, watch=[root])
        clean(r)
    assert seen, "no input was opened"
    assert all(flags & writing == 0 for _, flags in seen), [p for p, f in seen if f & writing]


# ---------------------------------------------------------------------------------------
# hostile arguments
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["find-time", "{d}", "9" * 5000],  # past int()'s 4300 digits: was 'internal error'
    ["find-time", "{d}", "\u00b2"],  # a digit to str.isdigit, not to int(): was 'internal error'
    ["find-time", "{d}", "not a time"],
    ["find-offset", "{d}", "9" * 5000],
    ["size-report", "--top", "-5", "{d}"],  # was taken: 'all rows but the last five'
    ["verify-index", "--index-interval-bytes", "-5", "{d}"],
    ["dump", "--max-bytes", "-1", "{d}"],
    ["dump", "--max-batch-bytes", "1Q", "{d}"],
])
def test_hostile_arguments_are_usage_errors(kdump, tmp_path: Path, args: list[str]) -> None:
    d, _ = _partition(tmp_path)
    r = kdump(*[a.replace("{d}", str(d)) for a in args], watch=[d])
    clean(r)
    assert r.rc == 2, (r.out, r.err)
    assert r.err.strip()


def test_holes_of_a_sparse_log_are_skipped_not_read(kdump, tmp_path: Path) -> None:
    """A 20 GiB sparse .log (two runs of batches, holes between and after): the holes are
    reported as zero regions from SEEK_DATA/SEEK_HOLE, never read (it took minutes)."""
    from kdump.source import ReadCounter

    part = tmp_path / "t-0"
    part.mkdir()
    first = b"".join(w.v2_batch([w.Rec(b"k", b"v" * 100)], base_offset=i) for i in range(10))
    later = b"".join(w.v2_batch([w.Rec(b"k", b"v" * 100)], base_offset=100 + i)
                     for i in range(10))
    gib = 1 << 30
    with open(part / "00000000000000000000.log", "wb") as fh:
        fh.write(first)
        fh.seek(10 * gib)
        fh.write(later)
        fh.truncate(20 * gib)
    (part / "00000000000000000110.log").write_bytes(b"")
    if os.stat(part / "00000000000000000000.log").st_blocks * 512 > 64 << 20:
        pytest.skip("this file system does not keep holes")
    before = ReadCounter.total
    st = os.stat(part / "00000000000000000000.log")
    # watch=[]: the fixture would hash the 20 GiB (holes and all) to prove it unchanged
    r = kdump("verify-crc", "--format", "text", part, cwd=tmp_path, watch=[])
    assert ReadCounter.total - before < 64 << 20
    after = os.stat(part / "00000000000000000000.log")
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    hole = 10 * gib - len(first)
    assert r.out.splitlines() == [
        f"{part}/00000000000000000000.log: position {len(first)}: zeroed-region: {hole} zero "
        f"bytes; {hole} bytes unreadable; an intact batch starts at byte {10 * gib}",
        f"{part}/00000000000000000000.log: position {10 * gib + len(later)}: zero-tail "
        f"[warning]: {10 * gib - len(later)} zero bytes from here to the end of the file "
        "(preallocated file or unclean shutdown)",
        # the offsets the hole stands for (issue 46): a note, as nothing beside this
        # partition directory says whether its topic is compacted
        f"{part}: offset-gap [info]: offsets 10-99 (90 offsets) are in no batch on disk, "
        "though written (segment 110, batch at offset 100): nothing here says the topic's "
        "cleanup.policy (no cleaner-offset-checkpoint beside it, no --config, no KRaft "
        "metadata): the log cleaner of a compacted topic leaves such gaps (--config "
        "TOPIC:cleanup.policy=delete says they are lost) (base offset 10)",
    ]
    assert r.rc == 1


@pytest.mark.parametrize("args", [["verify-crc"], ["verify-index"], ["dump"], ["size-report"],
                                  ["lag"], ["find-offset", "{part}", "0"]])
def test_walking_the_evidence_leaves_directory_atimes_alone(kdump, tmp_path: Path,
                                                            args: list[str]) -> None:
    """Directories are read with O_NOATIME, as files are: an old access time stays."""
    root = tmp_path / "logdir"
    w.write_sample_logdir(root)
    dirs = [root, *sorted(p for p in root.iterdir() if p.is_dir())]
    old = 1_000_000_000
    for d in dirs:
        os.utime(d, ns=(old * 10**9, os.stat(d).st_mtime_ns))
    argv = [a.replace("{part}", str(root / "orders-0")) for a in args]
    if "{part}" not in " ".join(args):
        argv.append(str(root))
    kdump(*argv, cwd=tmp_path, watch=[])
    assert [os.stat(d).st_atime_ns for d in dirs] == [old * 10**9] * len(dirs)


def test_a_symlink_out_of_the_tree_is_not_followed(kdump, tmp_path: Path) -> None:
    """A symlink to / inside a log dir made dump walk the host (8,062 files): a symlinked
    directory leading outside the trees given is named and not followed; one leading
    inside them is walked once."""
    root = tmp_path / "logdir"
    w.write_sample_logdir(root)
    (root / "rootlink").symlink_to("/")
    (root / "orders-9").symlink_to(root / "orders-0")
    r = kdump("dump", "--format", "json", root, cwd=tmp_path, watch=[])
    objs = [json.loads(x) for x in r.out.splitlines()]
    files = [o["file"] for o in objs if o["type"] == "file"]
    assert not any("rootlink/" in f or "orders-9" in f for f in files)
    assert [o["detail"] for o in objs if o["type"] == "problem" and o["file"].endswith("rootlink")
            ] == ["a symlink to a directory outside the tree given (/); not followed"]
    plain = kdump("dump", "--format", "json", tmp_path / "logdir" / "orders-0", cwd=tmp_path)
    assert r.rc == plain.rc == 0


def test_time_index_into_a_zero_tail_is_one_pass(kdump, tmp_path: Path) -> None:
    """Time-index entries naming offsets past a log's last batch, before a long zero tail:
    the tail was re-read for every entry (0.7 s an entry on 200 MB); the shared forward
    pass answers them all.  Counted in bytes read, not seconds."""
    from kdump.source import ReadCounter

    part = tmp_path / "t-0"
    part.mkdir()
    batches = b"".join(w.v2_batch([w.Rec(b"k", b"v")], base_offset=i) for i in range(10))
    tail = 8 << 20
    (part / "00000000000000000000.log").write_bytes(batches + b"\0" * tail)
    (part / "00000000000000000000.timeindex").write_bytes(
        w.time_index([(w.DEFAULT_TIMESTAMP + i, 20 + i) for i in range(100)]))
    (part / "00000000000000000099.log").write_bytes(b"")
    before = ReadCounter.total
    r = kdump("dump", part / "00000000000000000000.timeindex", cwd=tmp_path)
    assert ReadCounter.total - before < 4 * tail  # was 100 entries x the tail
    assert r.err.count("found log offset: -1") == 100
