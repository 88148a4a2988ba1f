"""verify-crc and verify-index (issue 3): each kind of fault injected at a known byte
position is reported at exactly that position with the right kind, intact batches
around it are all recovered, clean data gives exit 0 and no findings, and the real
corpus verifies clean.  Fixtures are written by tests/writer.py; positions come from the
lengths of what it wrote, not from kdump.
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import crc32c
import pytest

from tests.conftest import KdumpRunner
from tests.support import writer as w

SEG = "00000000000000000000"
CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "kafka2-logdir"


def batches(n: int, base: int = 0, **kw: object) -> list[bytes]:
    return [w.v2_batch([w.Rec(f"k{i}".encode(), f"value-{i}".encode() * 3)],
                       base_offset=base + i, **kw) for i in range(n)]  # type: ignore[arg-type]


def positions(parts: list[bytes]) -> list[int]:
    out, pos = [], 0
    for p in parts:
        out.append(pos)
        pos += len(p)
    return out


def findings(kdump: KdumpRunner, *args: object) -> tuple[int, list[dict], dict]:
    r = kdump(*[str(a) for a in args], "--format", "json")
    objs = [json.loads(x) for x in r.out.splitlines()]
    probs = [o for o in objs if o["type"] == "problem"]
    summary = [o for o in objs if o["type"] == "summary"]
    return r.rc, probs, (summary[-1] if summary else {})


def write_partition(root: Path, name: str, data: bytes, *, also_later: bool = True,
                    later_base: int | None = None) -> Path:
    """A partition whose segment 0 holds ``data``; a later segment makes it inactive.  It
    starts where the whole batches of ``data`` end (a broker rolls at the log end: no
    offset is missing between them), or at ``later_base``."""
    d = root / name
    d.mkdir(parents=True)
    (d / f"{SEG}.log").write_bytes(data)
    if also_later:
        if later_base is None:
            later_base = 1 + max((e.last_offset for e in _whole_entries(data)), default=-1)
        (d / f"{later_base:020d}.log").write_bytes(b"".join(batches(2, max(later_base, 1))))
    return d


def _whole_entries(data: bytes) -> list[object]:
    out = []
    try:
        for e in w._iter_entries(data):
            out.append(e)
    except (ValueError, struct.error):
        pass
    return [e for e in out if 0 <= e.last_offset < 1 << 40]


def with_crc(batch: bytearray) -> bytes:
    """Recompute a v2 batch's CRC-32C after editing it (a fault the CRC cannot see)."""
    struct.pack_into(">I", batch, 17, crc32c.crc32c(bytes(batch[21:])))
    return bytes(batch)


# --- verify-crc: one case per kind -----------------------------------------------------
def test_clean_data_has_no_findings(kdump: KdumpRunner, tmp_path: Path) -> None:
    d = write_partition(tmp_path, "t-0", b"".join(batches(20)))
    rc, probs, summary = findings(kdump, "verify-crc", d)
    assert rc == 0 and probs == []
    assert summary["batches"] == 22 and summary["valid_batches"] == 22 and summary["clean"]


@pytest.mark.both_modes
def test_crc_mismatch_at_its_batch(kdump: KdumpRunner, tmp_path: Path) -> None:
    parts = [bytearray(b) for b in batches(10)]
    parts[4][-5] ^= 0x01  # a flipped bit in a value, under the CRC
    pos = positions([bytes(p) for p in parts])
    d = write_partition(tmp_path, "t-0", b"".join(parts))
    rc, probs, summary = findings(kdump, "verify-crc", d)
    assert rc == 1
    assert next((p["kind"], p["position"], p["base_offset"]) for p in probs
                if p["severity"] != "info") == ("crc-mismatch", pos[4], 4)
    assert summary["valid_batches"] == 11 and summary["invalid_batches"] == 1


@pytest.mark.parametrize(("damage", "kind"), [
    ("zero", "zeroed-region"),
    ("size", "bad-length"),
    ("magic", "bad-magic"),
    ("garbage", "bad-magic"),
])
@pytest.mark.both_modes
def test_unframeable_region_reported_and_every_intact_batch_recovered(
        kdump: KdumpRunner, tmp_path: Path, damage: str, kind: str) -> None:
    parts = [bytearray(b) for b in batches(12)]
    pos = positions([bytes(p) for p in parts])
    target = parts[5]
    if damage == "zero":
        target[:] = bytes(len(target))
    elif damage == "size":
        target[8:12] = struct.pack(">i", 5)
    elif damage == "magic":
        target[16] = 9
        target[17] ^= 0xFF  # and a broken CRC, so the batch cannot be read as v2 either
    else:
        target[:40] = bytes(range(100, 140))
    d = write_partition(tmp_path, "t-0", b"".join(parts))
    rc, probs, summary = findings(kdump, "verify-crc", d)
    assert rc == 1
    bad = [p for p in probs if p["severity"] != "info"]
    assert (bad[0]["kind"], bad[0]["position"]) == (kind, pos[5])
    assert bad[0]["length"] == len(parts[5])  # unreadable up to the next intact batch
    assert f"an intact batch starts at byte {pos[6]}" in bad[0]["detail"]
    assert summary["valid_batches"] == 11 + 2  # all other batches, and the later segment
    assert summary["unreadable_bytes"] == len(parts[5])


def test_only_the_magic_byte_off_is_still_read(kdump: KdumpRunner, tmp_path: Path) -> None:
    parts = [bytearray(b) for b in batches(3)]
    parts[1][16] = 7  # the magic is not under the v2 CRC
    pos = positions([bytes(p) for p in parts])
    d = write_partition(tmp_path, "t-0", b"".join(parts))
    rc, probs, summary = findings(kdump, "verify-crc", d)
    assert rc == 1 and [(p["kind"], p["position"]) for p in probs] == [("bad-magic", pos[1])]
    assert summary["batches"] == 5


def test_tails(kdump: KdumpRunner, tmp_path: Path) -> None:
    parts = batches(4)
    whole = b"".join(parts)
    cut = write_partition(tmp_path / "a", "t-0", whole[:-10])
    rc, probs, _ = findings(kdump, "verify-crc", cut)
    assert rc == 1 and [(p["kind"], p["position"]) for p in probs] == [
        ("truncated", positions(parts)[3])]
    assert "10 bytes missing" in probs[0]["detail"]
    zeros = write_partition(tmp_path / "b", "t-0", whole + bytes(5000))
    rc, probs, _ = findings(kdump, "verify-crc", zeros)
    assert rc == 1 and [(p["kind"], p["position"], p["severity"]) for p in probs] == [
        ("zero-tail", len(whole), "warning")]
    short = write_partition(tmp_path / "c", "t-0", whole + b"\x01\x02\x03")
    rc, probs, _ = findings(kdump, "verify-crc", short)
    assert [(p["kind"], p["position"]) for p in probs] == [("trailing-bytes", len(whole))]
    # the active segment (largest base offset): a half-written batch is in flight, not damage
    live = write_partition(tmp_path / "d", "t-0", whole[:-10], also_later=False)
    rc, probs, _ = findings(kdump, "verify-crc", live)
    assert rc == 0 and [(p["kind"], p["severity"]) for p in probs] == [("in-flight", "info")]


@pytest.mark.both_modes
def test_batch_consistency_faults_under_a_valid_crc(kdump: KdumpRunner, tmp_path: Path) -> None:
    recs = [w.Rec(b"k", b"v", timestamp=1_700_000_000_000 + i) for i in range(3)]
    parts = [
        w.v2_batch(recs, base_offset=0),
        w.v2_batch(recs, base_offset=3, records_count=4),  # count says 4, 3 present
        w.v2_batch(recs, base_offset=7, max_timestamp=1_700_000_000_000),  # ts above max
        w.v2_batch([w.Rec(b"k", b"v", offset_delta=d) for d in (0, 2, 1)], base_offset=10,
                   last_offset_delta=2),  # deltas not ascending
        w.v2_batch(recs, base_offset=2),  # offsets go backwards
    ]
    gz = bytearray(w.v2_batch(recs, base_offset=20, codec=w.GZIP))
    gz[61] ^= 0xFF  # break the gzip magic, then fix the CRC
    parts.append(with_crc(gz))
    pos = positions(parts)
    d = write_partition(tmp_path, "t-0", b"".join(parts))
    rc, probs, _ = findings(kdump, "verify-crc", d)
    assert rc == 1
    got = {(p["kind"], p["position"]) for p in probs if p["severity"] != "info"}
    assert got == {("record-count", pos[1]), ("timestamp-range", pos[2]),
                   ("offset-delta", pos[3]), ("offset-order", pos[4]),
                   ("decompression-error", pos[5])}
    # the fixture's offsets leave 6 and 13-19 in no batch of a closed segment, and nothing
    # beside it says the topic's cleanup policy: notes, not losses (issue 46)
    assert [(p["kind"], p["lost_offsets"]) for p in probs if "lost_offsets" in p] == [
        ("offset-gap", [6, 6]), ("offset-gap", [13, 19])]
    shallow = kdump("verify-crc", "--shallow", "--format", "json", d)
    kinds = {json.loads(x)["kind"] for x in shallow.out.splitlines() if '"problem"' in x}
    # shallow: framing, CRC and batch offsets only (and the offsets no batch holds)
    assert kinds == {"offset-order", "offset-gap"}


def test_below_segment_base(kdump: KdumpRunner, tmp_path: Path) -> None:
    d = tmp_path / "t-0"
    d.mkdir()
    (d / "00000000000000000050.log").write_bytes(b"".join(batches(2, base=40)))
    rc, probs, _ = findings(kdump, "verify-crc", d)
    assert rc == 1 and [(p["kind"], p["position"]) for p in probs] == [("below-segment-base", 0)]


@pytest.mark.both_modes
def test_legacy_inner_message_crc(kdump: KdumpRunner, tmp_path: Path) -> None:
    inner = (w.legacy_message(1, b"a", b"1", offset=0, timestamp=5)
             + w.legacy_message(1, b"b", b"2", offset=1, timestamp=5, crc=12345))
    wrapper = w.legacy_message(1, None, w.compress(w.GZIP, inner), offset=1, timestamp=5,
                               codec=w.GZIP)
    d = write_partition(tmp_path, "t-0", wrapper)
    rc, probs, _ = findings(kdump, "verify-crc", d)
    assert rc == 1 and [(p["kind"], p["position"]) for p in probs] == [("inner-crc-mismatch", 0)]
    assert "offset 1" in probs[0]["detail"]


@pytest.mark.both_modes
def test_text_and_table_renderings(kdump: KdumpRunner, tmp_path: Path) -> None:
    parts = [bytearray(b) for b in batches(3)]
    parts[1][-5] ^= 1
    d = write_partition(tmp_path, "t-0", b"".join(parts))
    r = kdump("verify-crc", d)
    p1 = len(parts[0])
    assert r.rc == 1
    assert r.lines == [f"{d}/{SEG}.log: position {p1}: crc-mismatch: stored CRC-32C "
                       f"{struct.unpack('>I', bytes(parts[1][17:21]))[0]} does not match the "
                       f"computed {crc32c.crc32c(bytes(parts[1][21:]))} (base offset 1)"]
    assert r.err_lines == ["verify-crc: 2 files, 5 batches, 1 invalid: 1 error, 0 warnings"]
    t = kdump("verify-crc", "--format", "table", d)
    assert "crc-mismatch" in t.out and "verify-crc summary" in t.out


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside the checkout")
@pytest.mark.parametrize("command", ["verify-crc", "verify-index"])
def test_real_corpus_verifies_clean(kdump: KdumpRunner, command: str) -> None:
    rc, probs, summary = findings(kdump, command, CORPUS)
    assert rc == 0, probs
    assert [p for p in probs if p["severity"] != "info"] == []
    assert summary["clean"] and summary["batches"] == 503


# --- verify-index ----------------------------------------------------------------------
@pytest.fixture
def sample_copy(sample_dir: Path, tmp_path: Path) -> Path:
    d = tmp_path / "logdir"
    shutil.copytree(sample_dir, d)
    return d


def test_sample_indexes_verify_clean(kdump: KdumpRunner, sample_copy: Path) -> None:
    rc, probs, summary = findings(kdump, "verify-index", sample_copy)
    assert rc == 0 and summary["clean"]
    assert {p["kind"] for p in probs} <= {"index-differs"}


def _edit(path: Path, at: int, data: bytes) -> None:
    b = bytearray(path.read_bytes())
    b[at:at + len(data)] = data
    path.write_bytes(bytes(b))


def test_offset_index_faults(kdump: KdumpRunner, sample_copy: Path) -> None:
    idx = sample_copy / "orders-0" / f"{SEG}.index"
    rel, pos = struct.unpack(">ii", idx.read_bytes()[:8])
    _edit(idx, 0, struct.pack(">i", rel - 1))  # wrong offset for a real batch start
    rc, probs, _ = findings(kdump, "verify-index", sample_copy / "orders-0")
    mism = [p for p in probs if p["kind"] == "index-mismatch"]
    assert rc == 1 and (mism[0]["position"], mism[0]["index_offset"], mism[0]["log_offset"]) == (
        0, rel - 1, rel)
    _edit(idx, 0, struct.pack(">ii", rel, pos + 3))  # inside a batch
    rc, probs, _ = findings(kdump, "verify-index", sample_copy / "orders-0")
    assert any(p["kind"] == "index-mismatch" and "where no batch starts" in p["detail"]
               for p in probs)
    _edit(idx, 0, struct.pack(">ii", rel, 10**8))  # past the end of the log
    rc, probs, _ = findings(kdump, "verify-index", sample_copy / "orders-0")
    assert any(p["kind"] == "index-position" and p["position"] == 0 for p in probs)
    idx.write_bytes(idx.read_bytes() + b"\x00\x01\x02")  # not a multiple of 8
    rc, probs, _ = findings(kdump, "verify-index", "--sanity-only", sample_copy / "orders-0")
    assert any(p["kind"] == "index-size" for p in probs) and rc == 1


def test_preallocated_zero_slots(kdump: KdumpRunner, sample_copy: Path) -> None:
    part = sample_copy / "orders-0"
    old = part / f"{SEG}.index"  # not the active segment: never trimmed -> warning
    old.write_bytes(old.read_bytes() + bytes(8 * 100))
    active = part / "00000000000000000120.index"  # the active segment's: normal -> info
    active.write_bytes(active.read_bytes() + bytes(8 * 100))
    rc, probs, _ = findings(kdump, "verify-index", part)
    assert rc == 1  # the warning
    zs = {Path(p["file"]).name: p["severity"] for p in probs if p["kind"] == "index-zero-slots"}
    assert zs == {f"{SEG}.index": "warning", "00000000000000000120.index": "info"}


def test_time_index_wrong_timestamp(kdump: KdumpRunner, sample_copy: Path) -> None:
    tidx = sample_copy / "orders-0" / f"{SEG}.timeindex"
    ts, _ = struct.unpack(">qi", tidx.read_bytes()[:12])
    _edit(tidx, 0, struct.pack(">q", ts - 1))
    rc, probs, _ = findings(kdump, "verify-index", sample_copy / "orders-0")
    hit = [p for p in probs if p["kind"] == "index-mismatch" and p.get("check") == "timestamp"]
    assert rc == 1 and hit[0]["index_timestamp"] == ts - 1 and hit[0]["log_timestamp"] == ts


def test_txn_index_against_markers(kdump: KdumpRunner, sample_copy: Path) -> None:
    txn = sample_copy / "orders-0" / "00000000000000000120.txnindex"
    entries = txn.read_bytes()
    txn.write_bytes(entries[:34])  # drop the second aborted transaction
    rc, probs, _ = findings(kdump, "verify-index", sample_copy / "orders-0")
    assert rc == 1 and any(p["kind"] == "txn-index" and "missing" in p["detail"] for p in probs)
    v, pid, first, last, lso = struct.unpack(">hqqqq", entries[:34])
    txn.write_bytes(struct.pack(">hqqqq", v, pid, first, last, lso + 1) + entries[34:])
    rc, probs, _ = findings(kdump, "verify-index", sample_copy / "orders-0")
    assert any(p["kind"] == "txn-index" and "last stable offset" in p["detail"] for p in probs)


def test_producer_snapshot_against_the_log(kdump: KdumpRunner, sample_copy: Path) -> None:
    snap = sample_copy / "orders-0" / "00000000000000000162.snapshot"
    data = bytearray(snap.read_bytes())
    data[-5] ^= 0x01  # inside the last entry: CRC now wrong
    snap.write_bytes(bytes(data))
    rc, probs, _ = findings(kdump, "verify-index", sample_copy / "orders-0")
    assert rc == 1 and any(p["kind"] == "snapshot-crc" for p in probs)
    # a consistent snapshot (CRC right) whose producer disagrees with the log
    entry = w.ProducerEntry(producer_id=2000, epoch=0, last_sequence=99, last_offset=113,
                            offset_delta=5, timestamp=1, coordinator_epoch=-1,
                            current_txn_first_offset=-1)
    snap.write_bytes(w.producer_snapshot([entry]))
    rc, probs, _ = findings(kdump, "verify-index", sample_copy / "orders-0")
    hit = [p for p in probs if p["kind"] == "snapshot-mismatch"]
    assert rc == 1 and "last sequence 99, the log says 17" in hit[0]["detail"]


def test_leader_epoch_checkpoint(kdump: KdumpRunner, sample_copy: Path) -> None:
    cp = sample_copy / "orders-0" / "leader-epoch-checkpoint"
    lines = cp.read_text().splitlines()
    epoch, start = lines[-1].split()
    lines[-1] = f"{epoch} {int(start) + 1}"
    cp.write_text("\n".join(lines) + "\n")
    rc, probs, _ = findings(kdump, "verify-index", sample_copy / "orders-0")
    assert rc == 1 and any(p["kind"] == "leader-epoch" and f"epoch {epoch}" in p["detail"]
                           for p in probs)


def test_leader_epoch_moved_up_with_the_log_start_offset(kdump: KdumpRunner,
                                                         tmp_path: Path) -> None:
    """Kafka Streams purges its repartition topics (DeleteRecords): the log start offset
    moves up inside the first segment, and UnifiedLog moves the first leader-epoch entry
    up to it (LeaderEpochFileCache.truncateFromStartAsyncFlush) while the segment keeps
    the batches below until retention deletes it.  Seen on a real Confluent 7.6 log dir;
    normal, so no finding.  Nor when log-start-offset-checkpoint lags the epoch file
    (29: it is written every log.flush.start.offset.checkpoint.interval.ms, the epoch
    file at once) or is ahead of it (31: the broker cuts the entry to 31 when it loads
    the log, LogLoader.load), nor with none (a lost log-start-offset-checkpoint: Kafka
    cannot tell it apart).  An epoch the batches do not carry stays a finding."""
    ld = tmp_path / "ld"
    part = ld / "app-repartition-0"
    w.write_replica(part, [w.v2_batch(w.numbered_records(o, 5), base_offset=o)
                           for o in range(0, 50, 5)], epochs=[(0, 30)])
    (ld / "log-start-offset-checkpoint").write_bytes(
        w.offset_checkpoint([("app-repartition", 0, 30)]))

    def epoch_findings() -> list[str]:
        _, probs, _ = findings(kdump, "verify-index", ld)
        return [p["detail"] for p in probs if p["kind"] == "leader-epoch"]

    assert epoch_findings() == []
    for start in (29, 31):
        (ld / "log-start-offset-checkpoint").write_bytes(
            w.offset_checkpoint([("app-repartition", 0, start)]))
        assert epoch_findings() == []
    (ld / "log-start-offset-checkpoint").unlink()
    assert epoch_findings() == []  # a checkpoint cut ahead of a lost log start: alike
    # an epoch no batch carries where the checkpoint puts it stays a finding
    w.write_replica(part, [w.v2_batch(w.numbered_records(o, 5), base_offset=o)
                           for o in range(0, 50, 5)], epochs=[(0, 0), (3, 30)])
    assert epoch_findings() == ["checkpoint says epoch 3 starts at offset 30, but no batch in "
                                "the log carries that epoch"]


def test_log_dir_checkpoints(kdump: KdumpRunner, sample_copy: Path) -> None:
    cp = sample_copy / "replication-offset-checkpoint"
    cp.write_bytes(w.offset_checkpoint([("orders", 0, 10**6), ("gone", 3, 5),
                                        ("orders", 1, 71), ("customers", 0, 43)]))
    rc, probs, _ = findings(kdump, "verify-index", sample_copy)
    assert rc == 1
    # one finding per fact (issue 46): a high watermark past the log end is the witness
    # of the partition's data-lost; a partition named with no directory lost its offsets
    lost = {(p["file"], tuple(p["lost_offsets"])) for p in probs if p["kind"] == "data-lost"}
    assert lost == {(str(sample_copy / "orders-0"), (162, 999999)),
                    (str(sample_copy / "gone-3"), (0, 4))}
    assert not [p for p in probs if p["kind"] == "checkpoint" and p["severity"] != "info"]


def test_rebuild_into_gives_kafkas_indexes(kdump: KdumpRunner, sample_copy: Path,
                                           tmp_path: Path) -> None:
    out = tmp_path / "rebuilt"
    r = kdump("verify-index", "--rebuild-into", out, sample_copy / "orders-0")
    assert r.rc == 0
    for name in ("00000000000000000000.index", "00000000000000000000.timeindex",
                 "00000000000000000050.index", "00000000000000000120.txnindex"):
        assert (out / "broker-1" / "orders-0" / name).read_bytes() == \
            (sample_copy / "orders-0" / name).read_bytes(), name
    inside = kdump("verify-index", "--rebuild-into", sample_copy / "orders-0" / "x",
                   sample_copy / "orders-0")
    assert inside.rc == 2 and "never written next to the data" in inside.err


def test_sanity_only_does_not_read_logs(kdump: KdumpRunner, sample_copy: Path) -> None:
    log = sample_copy / "orders-0" / f"{SEG}.log"
    log.write_bytes(bytes(log.stat().st_size))  # logs zeroed: sanity checks don't care
    rc, probs, summary = findings(kdump, "verify-index", "--sanity-only", sample_copy)
    assert rc == 0 and summary["batches"] == 0
    rc, probs, _ = findings(kdump, "verify-index", sample_copy)
    assert rc == 1 and any(p["kind"] == "zeroed-region" or p["kind"] == "zero-tail"
                           or p["kind"].startswith("index") for p in probs)


def test_a_closed_segment_cut_short_names_the_offsets_lost(kdump: KdumpRunner, tmp_path: Path
                                                           ) -> None:
    """Everything from the cut batch to the next segment's base offset is gone: say so."""
    data = b"".join(batches(5, 0))  # offsets 0..4, one record a batch
    d = write_partition(tmp_path, "t-0", data[:-20], later_base=100000)
    rc, probs, summary = findings(kdump, "verify-crc", d)
    assert rc == 1 and summary["in_flight"] == 0
    # one finding per fact (issue 46): the bytes cut short name the offsets they lost,
    # with the witness naming them; no second data-lost for the same range
    [p] = probs
    assert (p["kind"], p["severity"], p["lost_offsets"]) == ("truncated", "error", [4, 99999])
    assert p["detail"].endswith("; offsets 4-99999 lost (the next segment starts at 100000)")
    assert p["witnesses"] == [{"witness": "segment-name", "end": 100000,
                               "path": str(d / "00000000000000100000.log")}]
    r = kdump("verify-crc", "--format", "text", d)
    assert r.err_lines[-1].endswith(": 1 error, 0 warnings")


def test_an_incomplete_active_segment_is_not_plain_clean(kdump: KdumpRunner, tmp_path: Path
                                                         ) -> None:
    data = b"".join(batches(5, 0))
    d = write_partition(tmp_path, "t-0", data[:-20], also_later=False)
    rc, probs, summary = findings(kdump, "verify-crc", d)
    assert rc == 0 and [p["kind"] for p in probs] == ["in-flight"]
    assert summary["clean"] is True and summary["in_flight"] == 1
    r = kdump("verify-crc", "--format", "text", d)
    assert r.err_lines == ["verify-crc: 1 file, 4 batches, 71 unreadable bytes: clean, "
                           "1 batch in flight"]


@pytest.mark.parametrize(("marks", "rc", "severity", "tail"), [
    ({}, 0, "info", " (active segment: preallocation or an unfinished write)"),
    ({"replication-offset-checkpoint": 20}, 0, "info",
     " (active segment: preallocation or an unfinished write)"),
    ({"replication-offset-checkpoint": 25}, 1, "error",
     ", where the log dir's checkpoints say batches were written (high watermark 25): "
     "offsets 20-24 lost on this replica"),
    ({"replication-offset-checkpoint": 21, "recovery-point-offset-checkpoint": 30}, 1, "error",
     ", where the log dir's checkpoints say batches were written (high watermark 21, "
     "recovery point 30): offsets 20-29 lost on this replica"),
])
def test_zeros_ending_the_active_segment_where_batches_were_written_are_lost(
        kdump: KdumpRunner, tmp_path: Path, marks: dict[str, int], rc: int, severity: str,
        tail: str) -> None:
    """Zeros after the last batch of an active segment are preallocation or writes never
    made, unless the log dir's high watermark or recovery point says offsets past that
    batch were written: those batches are lost on this replica (an error), as kdump
    repair judges the same zeros (a real 4.2 log dir's zeroed partition)."""
    ld = tmp_path / "ld"
    part = ld / "t-0"
    part.mkdir(parents=True)
    data = b"".join(w.v2_batch(w.numbered_records(o, 5), base_offset=o) for o in range(0, 20, 5))
    (part / f"{SEG}.log").write_bytes(data + bytes(4096))
    for name, offset in marks.items():
        (ld / name).write_bytes(w.offset_checkpoint([("t", 0, offset)]))
    code, probs, _ = findings(kdump, "verify-crc", ld)
    assert code == rc
    # one finding per fact (issue 46): the zeros name the offsets lost, no data-lost again
    assert [(p["kind"], p["position"], p["severity"], p["detail"]) for p in probs] == [
        ("zero-tail", len(data), severity, "4096 zero bytes from here to the end of the file"
         + tail)]
    if rc:
        assert probs[0]["lost_offsets"] == [20, max(marks.values()) - 1]
