"""Missing data is damage (issue 39): what a partition's files prove was written
(kdump.ops.witnesses) held against the batches on disk, in verify-crc, verify-index,
size-report and the report; a file that is not Kafka data is never "clean".

Every log dir is written by the project's encoder (tests/writer.py): a broker's appends,
its indexes, checkpoints and snapshots, then the damage a user meets (a copy torn below
the high watermark, a .log gone with its indexes left, a middle segment gone).  Offsets
come from what the writer wrote, never from kdump.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import KdumpRunner
from tests.support import writer as w

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "kafka2-logdir"
SEG = "00000000000000000000"
NOT_KAFKA = ("not Kafka data: not a name Kafka gives its files (<offset>.log, .index, "
             ".timeindex, .snapshot, a checkpoint ...) and no record batch at its start")


def run(kdump: KdumpRunner, *args: object) -> tuple[int, list[dict], list[dict]]:
    """exit code, problems, other objects of ``--format json``."""
    r = kdump(*[str(a) for a in args], "--format", "json")
    objs = [json.loads(x) for x in r.out.splitlines()]
    return (r.rc, [o for o in objs if o["type"] == "problem"],
            [o for o in objs if o["type"] != "problem"])


def broker(root: Path, *, node: int = 1, cluster: str = "kdump-test-cluster",
           hw: int | None = None, rp: int | None = None, cleaned: bool = False,
           topic: str = "t") -> Path:
    """A broker's log dir: meta.properties and the checkpoints given for ``topic``-0."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": str(node), "cluster.id": cluster}))
    for name, v in (("replication-offset-checkpoint", hw),
                    ("recovery-point-offset-checkpoint", rp)):
        if v is not None:
            (root / name).write_bytes(w.offset_checkpoint([(topic, 0, v)]))
    if cleaned:
        (root / "cleaner-offset-checkpoint").write_bytes(w.offset_checkpoint([(topic, 0, 0)]))
    return root


def partition(d: Path, n: int, *, segment_bytes: int = 1 << 30,
              index_interval_bytes: int = 4096) -> w.PartitionWriter:
    """Offsets 0..n-1 in batches of 5 records, appended as a broker appends them."""
    pw = w.PartitionWriter(d, segment_bytes=segment_bytes,
                           index_interval_bytes=index_interval_bytes)
    for o in range(0, n, 5):
        pw.append(w.v2_batch(w.numbered_records(o, 5), base_offset=o))
    pw.write_leader_epoch_checkpoint()
    pw.close()
    return pw


def batch_positions(log: Path) -> list[int]:
    return [0, *_ends(log.read_bytes())[:-1]]


def _ends(data: bytes) -> list[int]:
    out, pos = [], 0
    for e in w._iter_entries(data):
        pos += e.size
        out.append(pos)
    return out


def witness_names(p: dict) -> list[tuple[str, int]]:
    return [(x["witness"], x["end"]) for x in p["witnesses"]]


# --- a copy torn below the high watermark ------------------------------------------------


def test_a_copy_torn_below_the_high_watermark_loses_offsets(kdump: KdumpRunner,
                                                            tmp_path: Path) -> None:
    """The issue's first case: the active segment cut in the middle of the batch at
    offset 50 while the high watermark and recovery point say 100 were written:
    not a batch in flight, offsets 50-99 lost (and repair must not hand them out)."""
    ld = broker(tmp_path / "ld", hw=100, rp=100)
    partition(ld / "t-0", 100)
    log = ld / "t-0" / f"{SEG}.log"
    cut = batch_positions(log)[10] + 30  # inside the batch at offset 50
    log.write_bytes(log.read_bytes()[:cut])
    rc, probs, objs = run(kdump, "verify-crc", ld)
    assert rc == 1
    # one finding per fact (issue 46): the torn tail names the offsets it lost, with
    # the witnesses; no second data-lost for the same range
    (torn,) = probs
    assert (torn["kind"], torn["severity"], torn["position"], torn["lost_offsets"]) == (
        "truncated", "error", cut - 30, [50, 99])
    assert "; not in flight: the partition's witnesses say batches were written past it " \
           "(high watermark 100, recovery point 100, time index entry 99)" in torn["detail"]
    assert (torn["topic"], torn["partition"]) == ("t", 0)
    assert witness_names(torn) == [("high-watermark", 100), ("recovery-point", 100),
                                   ("time-index", 100)]
    assert torn["witnesses"][0]["path"] == str(ld / "replication-offset-checkpoint")
    summary = objs[-1]
    assert summary["in_flight"] == 0 and summary["clean"] is False
    r = kdump("verify-crc", "--format", "text", ld)
    assert r.err_lines[-1] == ("verify-crc: 1 file, 10 batches, 30 unreadable bytes: 1 error, "
                               "0 warnings")


def test_a_live_torn_tail_beyond_every_witness_stays_in_flight(kdump: KdumpRunner,
                                                               tmp_path: Path) -> None:
    """A copy of a running broker: its last batch half written, every witness (high
    watermark 50, no index entry, no snapshot) below it: information, exit 0."""
    ld = broker(tmp_path / "ld", hw=50, rp=45)
    pw = w.PartitionWriter(ld / "t-0", preallocate_active_index=True, active_index_slots=64)
    for o in range(0, 60, 5):
        pw.append(w.v2_batch(w.numbered_records(o, 5), base_offset=o))
    pw.close()
    log = ld / "t-0" / f"{SEG}.log"
    log.write_bytes(log.read_bytes()[:-20])
    rc, probs, objs = run(kdump, "verify-crc", ld)
    assert rc == 0 and [(p["kind"], p["severity"]) for p in probs] == [("in-flight", "info")]
    assert objs[-1]["clean"] is True and objs[-1]["in_flight"] == 1
    rc, probs, _ = run(kdump, "verify-index", ld)
    assert rc == 0 and not [p for p in probs if p["kind"] == "data-lost"]
    rc, probs, rows = run(kdump, "size-report", ld)
    assert rc == 0 and [r["offsets_lost"] for r in rows] == [0, 0]


# --- a .log gone, its indexes and checkpoints left ------------------------------------------


def test_a_missing_log_named_by_its_indexes_and_checkpoints(kdump: KdumpRunner,
                                                            tmp_path: Path) -> None:
    """The issue's second case: the only .log is gone (high watermark 100); verify-crc,
    verify-index and size-report all name offsets 0-99 lost, and the files naming them."""
    ld = broker(tmp_path / "ld", hw=100, rp=100)
    partition(ld / "t-0", 100, index_interval_bytes=256)
    (ld / "t-0" / f"{SEG}.log").unlink()
    rc, probs, _ = run(kdump, "verify-crc", ld)
    assert rc == 1
    [lost] = probs
    assert (lost["kind"], lost["lost_offsets"], lost["base_offset"]) == ("data-lost", [0, 99], 0)
    assert lost["detail"].endswith(
        "and no batch on disk holds them: lost on this replica; segment 0's .log is missing "
        f"({SEG}.index, {SEG}.timeindex still name it)")
    names = [n for n, _ in witness_names(lost)]
    assert names[:2] == ["high-watermark", "recovery-point"]
    assert "offset-index" in names and "time-index" in names
    rc, probs, _ = run(kdump, "verify-index", ld)
    # the checkpoints past the log end are the data-lost's witnesses, not findings of
    # their own (issue 46: one finding per fact)
    assert rc == 1 and [(p["kind"], p["severity"]) for p in probs] == [
        ("orphan-index", "warning"), ("orphan-index", "warning"), ("data-lost", "error")]
    assert probs[2]["lost_offsets"] == [0, 99]
    rc, probs, rows = run(kdump, "size-report", ld)
    assert rc == 1 and [p["kind"] for p in probs] == ["data-lost"]
    part = rows[0]
    assert (part["type"], part["records_claimed"], part["records_readable"],
            part["offsets_lost"], part["lost_ranges"]) == ("partition", 0, 0, 100, [[0, 99]])


# --- a segment gone from the middle ------------------------------------------------------------


def _three_segments(ld: Path) -> list[int]:
    pw = partition(ld / "t-0", 150, segment_bytes=1200)
    bases = [s.base_offset for s in pw.segments]
    assert len(bases) >= 3
    for f in (ld / "t-0").glob(f"{bases[1]:020d}.*"):
        f.unlink()
    return bases


def test_a_middle_segment_missing_from_a_delete_policy_topic(kdump: KdumpRunner,
                                                             tmp_path: Path) -> None:
    """Kafka rolls a segment at the log end (UnifiedLog.roll): the next segment's name
    proves the missing one's offsets were written."""
    ld = broker(tmp_path / "ld", hw=150)
    bases = _three_segments(ld)
    rc, probs, _ = run(kdump, "verify-crc", ld)
    assert rc == 1
    [lost] = probs
    first, last = bases[1], bases[2] - 1
    assert (lost["kind"], lost["lost_offsets"]) == ("data-lost", [first, last])
    assert lost["detail"] == (
        f"offsets {first}-{last} ({last - first + 1} offsets) were written (high watermark "
        f"150, time index entry {bases[3] - 1}, segment {bases[2]}) and no batch on disk "
        "holds them: lost on this replica")
    # one witness of each kind, the nearest: the next segment's closing time-index entry
    assert witness_names(lost) == [("high-watermark", 150), ("time-index", bases[3]),
                                   ("segment-name", bases[2])]
    assert lost["witnesses"][2]["path"] == str(ld / "t-0" / f"{bases[2]:020d}.log")


def test_dump_and_retention_judge_a_torn_tail_as_verify_crc_does(kdump: KdumpRunner, tmp_path: Path) -> None:
    """The same cut batch below the high watermark: dump's and retention's finding is
    verify-crc's (truncated, an error naming the lost offsets), not a batch in flight."""
    ld = broker(tmp_path / "ld", hw=100, rp=100)
    partition(ld / "t-0", 100)
    log = ld / "t-0" / f"{SEG}.log"
    log.write_bytes(log.read_bytes()[:batch_positions(log)[10] + 30])
    rc, probs, _ = run(kdump, "dump", log)
    _, vprobs, _ = run(kdump, "verify-crc", log)
    assert rc == 1
    assert [(p["kind"], p["severity"], p["lost_offsets"], p["detail"]) for p in probs] == [
        (p["kind"], p["severity"], p["lost_offsets"], p["detail"]) for p in vprobs
        if p["kind"] == "truncated"] == [("truncated", "error", [50, 99], vprobs[0]["detail"])]
    # retention reads the same tail for the segment's largest timestamp: the same verdict
    _, rprobs, _ = run(kdump, "retention", ld)
    assert [(p["kind"], p["lost_offsets"]) for p in rprobs if p["kind"] in (
        "truncated", "in-flight")] == [("truncated", [50, 99])]


def test_a_torn_tail_of_a_compacted_single_segment_loses_only_what_it_cut(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """A compacted partition whose one (active) segment is cut inside the batch at
    offset 50 below the high watermark: offsets 50-99 lost, not 0-99 (the cleaner never
    touches the active segment; seen on a real ZooKeeper-era __consumer_offsets copy)."""
    ld = broker(tmp_path / "ld", hw=100, rp=100)
    partition(ld / "t-0", 100)
    log = ld / "t-0" / f"{SEG}.log"
    log.write_bytes(log.read_bytes()[:batch_positions(log)[10] + 30])
    rc, probs, _ = run(kdump, "verify-crc", ld, "--config", "t:cleanup.policy=compact")
    assert rc == 1
    # one finding per fact (issue 46): the cut names its loss, no data-lost again
    assert [(p["kind"], p["lost_offsets"]) for p in probs] == [("truncated", [50, 99])]


def test_a_gap_between_segments_of_a_compacted_topic_is_information(kdump: KdumpRunner,
                                                                    tmp_path: Path) -> None:
    """The log cleaner removes records of closed segments: the same gap in a compacted
    topic (its cleaner-offset-checkpoint entry says the cleaner works on it) is an
    offset-gap note, exit 0."""
    ld = broker(tmp_path / "ld", hw=150, cleaned=True)
    bases = _three_segments(ld)
    rc, probs, objs = run(kdump, "verify-crc", ld)
    assert rc == 0 and objs[-1]["clean"] is True
    [gap] = probs
    assert (gap["kind"], gap["severity"], gap["lost_offsets"]) == (
        "offset-gap", "info", [bases[1], bases[2] - 1])
    assert gap["detail"].endswith("cleanup.policy=compact: the log cleaner removes records")


# --- the witnesses themselves --------------------------------------------------------------------


def test_witnesses_api(tmp_path: Path) -> None:
    """partition_witnesses: each witness and what it proves; highest_written; lost
    ranges; a replica of the same cluster and another node is a witness (a range only
    it holds is explained as lag), another cluster's and the same node's are not."""
    from kdump.ops.witnesses import Witness, partition_witnesses

    ld = broker(tmp_path / "b1", node=1, hw=100, rp=90)
    pw = partition(ld / "t-0", 100, index_interval_bytes=256)
    pw.write_producer_snapshot(100)
    broker(tmp_path / "b2", node=2)
    partition(tmp_path / "b2" / "t-0", 120)
    broker(tmp_path / "b3", node=3, cluster="other")
    partition(tmp_path / "b3" / "t-0", 200)
    broker(tmp_path / "b4", node=1)
    got = partition_witnesses(str(ld / "t-0"), replicas=[str(tmp_path / b)
                                                         for b in ("b2", "b3", "b4")])
    assert got is not None
    end, top = got.highest_written()
    assert end == 120 and top == (Witness("replica", str(tmp_path / "b2" / "t-0"), 120,
                                          broker_id=2),)
    own_end, own = got.highest_written(include_replicas=False)
    assert own_end == 100 and {x.name for x in own} >= {"high-watermark", "producer-snapshot"}
    assert [(p, why.split(" ")[0]) for p, why in got.skipped_replicas] == [
        (str(tmp_path / "b3"), "cluster.id"), (str(tmp_path / "b4"), "the")]
    assert got.lost_ranges([(0, 99)]) == []
    [tail] = got.lost_ranges([(0, 59)])
    assert (tail.first, tail.last, tail.explained, tail.tail) == (60, 99, None, True)
    assert tail.witnesses[0] == Witness("high-watermark",
                                        str(ld / "replication-offset-checkpoint"), 100)
    assert [w.name for w in tail.witnesses] == [
        "high-watermark", "recovery-point", "offset-index", "time-index", "producer-snapshot"]
    mine, theirs = got.lost_ranges([(0, 59)], include_replicas=True)[-2:]
    assert (mine.first, mine.last, mine.explained) == (60, 99, None)
    assert (theirs.first, theirs.last) == (100, 119) and "replica" in str(theirs.explained) \
        and [w.broker_id for w in theirs.witnesses] == [2]


def test_preallocated_index_zeros_are_no_witness(tmp_path: Path) -> None:
    """An active segment's 10 MiB preallocated index: entries of 0/0 after the last real
    one prove nothing."""
    from kdump.ops.witnesses import partition_witnesses

    ld = broker(tmp_path / "ld")
    pw = w.PartitionWriter(ld / "t-0", index_interval_bytes=256, preallocate_active_index=True)
    for o in range(0, 40, 5):
        pw.append(w.v2_batch(w.numbered_records(o, 5), base_offset=o))
    pw.close()
    assert (ld / "t-0" / f"{SEG}.index").stat().st_size == 10 * 1024 * 1024
    got = partition_witnesses(str(ld / "t-0"))
    assert got is not None
    end, top = got.highest_written()
    assert end <= 40 and all(x.name in ("offset-index", "time-index") for x in top)
    assert got.lost_ranges([(0, 39)]) == []


# --- not Kafka data is never clean ---------------------------------------------------------------


@pytest.mark.parametrize("command", ["verify-crc", "dump", "verify-index", "size-report"])
def test_a_text_file_is_not_kafka_data(kdump: KdumpRunner, tmp_path: Path, command: str) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("0 files, 0 batches: clean\n")
    r = kdump(command, "--format", "text", "notes.txt", cwd=tmp_path)
    assert r.rc == 2
    line = f"notes.txt: unreadable-file: {NOT_KAFKA}"
    if command in ("verify-crc", "verify-index"):  # findings on stdout, the verdict on stderr
        assert r.lines == [line]
        assert r.err_lines == [f"{command}: 0 files, 0 batches: 1 error, 0 warnings"]
    else:
        assert r.err_lines == [line]
        assert "clean" not in r.out


@pytest.mark.parametrize("args", [("report", "-o", "r.html"), ("export", "-o", "out"),
                                  ("schemas",)], ids=lambda a: a[0])
def test_a_text_file_writes_nothing(kdump: KdumpRunner, tmp_path: Path,
                                    args: tuple[str, ...]) -> None:
    """The commands that write refuse it before writing: one line, exit 2, nothing made
    (a page or a dataset of a text file would pass for a report of nothing wrong)."""
    pytest.importorskip("pyarrow")
    (tmp_path / "notes.txt").write_text("0 files, 0 batches: clean\n")
    r = kdump(args[0], "notes.txt", *args[1:], cwd=tmp_path)
    assert (r.rc, r.out, r.err_lines) == (2, "", [f"kdump: notes.txt: {NOT_KAFKA}"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_renamed_segment_given_by_name_is_read_as_one(kdump: KdumpRunner,
                                                       tmp_path: Path) -> None:
    data = b"".join(w.v2_batch(w.numbered_records(o, 5), base_offset=o) for o in range(0, 20, 5))
    (tmp_path / "copy.bin").write_bytes(data)
    r = kdump("verify-crc", "--format", "text", "copy.bin", cwd=tmp_path)
    assert r.rc == 0 and r.err_lines == ["verify-crc: 1 file, 4 batches: clean"]
    r = kdump("dump", "--format", "text", "copy.bin", cwd=tmp_path)
    assert r.rc == 0 and r.lines[0] == "Dumping copy.bin" and len(r.lines) == 5


@pytest.mark.parametrize("command", ["verify-crc", "verify-index", "size-report"])
def test_a_segment_named_file_without_a_batch_is_an_error(kdump: KdumpRunner, tmp_path: Path,
                                                          command: str) -> None:
    d = tmp_path / "t-0"
    d.mkdir()
    (d / f"{SEG}.log").write_bytes(b"hello")
    rc, probs, _ = run(kdump, command, d / f"{SEG}.log")
    assert rc == 1
    assert [(p["kind"], p["severity"], p["position"], p["detail"]) for p in probs
            if p["kind"] == "no-batch"] == [
        ("no-batch", "error", 0, "not one record batch can be framed in its 5 bytes: no "
         "Kafka data (a file named like a segment, or a segment damaged throughout)")]
    # zeros are a preallocated segment never written: not this
    (d / f"{SEG}.log").write_bytes(bytes(4096))
    rc, probs, _ = run(kdump, command, d / f"{SEG}.log")
    assert "no-batch" not in [p["kind"] for p in probs]
    # verify-index: no .index beside it (a warning of its own)
    assert rc == (1 if command == "verify-index" else 0)


# --- claimed, readable, lost -------------------------------------------------------------------


def test_size_report_claimed_readable_lost(kdump: KdumpRunner, tmp_path: Path) -> None:
    """A batch whose CRC fails: its 5 records claimed, not readable; offsets 90-99 torn
    off below the high watermark: lost."""
    ld = broker(tmp_path / "ld", hw=100)
    partition(ld / "t-0", 100)
    log = ld / "t-0" / f"{SEG}.log"
    pos = batch_positions(log)
    raw = bytearray(log.read_bytes()[:pos[18]])  # offsets 90-99 gone
    raw[pos[3] + 70] ^= 0xFF  # a record byte of the batch at offset 15
    log.write_bytes(bytes(raw))
    rc, probs, rows = run(kdump, "size-report", ld)
    # the CRC failure is a finding of size-report's own now (issue 46 item 5)
    assert rc == 1 and [p["kind"] for p in probs] == ["crc-mismatch", "data-lost"]
    part, total = rows
    # records: those read (the batch whose CRC fails counted apart: invalid_records)
    assert (part["records"], part["invalid_records"], part["records_claimed"],
            part["records_readable"], part["offsets_lost"], part["lost_ranges"]) == (
        85, 5, 90, 85, 10, [[90, 99]])
    assert (total["records_claimed"], total["records_readable"], total["offsets_lost"]) == (
        90, 85, 10)
    r = kdump("size-report", "--format", "text", ld)
    head, row, tot = r.lines
    assert head.endswith(" records_claimed records_readable offsets_lost")
    assert row.startswith("t-0 ") and row.endswith(" 90 85 10")
    assert tot.startswith("TOTAL ") and tot.endswith(" 90 85 10")
    # a clean partition keeps the usual columns
    r = kdump("size-report", "--format", "text", CORPUS if CORPUS.is_dir() else tmp_path / "x")
    if CORPUS.is_dir():
        assert not r.lines[0].endswith("offsets_lost")


def test_report_glance_and_partition_row(kdump: KdumpRunner, tmp_path: Path) -> None:
    ld = broker(tmp_path / "ld", hw=100, rp=100)
    partition(ld / "t-0", 100)
    log = ld / "t-0" / f"{SEG}.log"
    log.write_bytes(log.read_bytes()[:batch_positions(log)[10] + 30])
    out = tmp_path / "out"
    out.mkdir()
    rc, probs, objs = run(kdump, "report", ld)
    assert rc == 1
    # verify-crc and verify-index say the same loss: one finding, the torn tail naming
    # the offsets it lost (issue 46: not a second data-lost for the same range)
    assert [(p["kind"], p["lost_offsets"]) for p in probs if "lost_offsets" in p] == [
        ("truncated", [50, 99])]
    [row] = [o for o in objs if o["type"] == "partition"]
    assert (row["records_claimed"], row["records_readable"], row["offsets_lost"]) == (50, 50, 50)
    r = kdump("report", "--output", out / "r.html", ld)
    page = (out / "r.html").read_text()
    assert "1 truncated finding: 50 offsets lost" in page
    assert "Lost offsets" in page and r.rc == 1


# --- a real broker's log dir -------------------------------------------------------------------


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is absent")
def test_a_real_log_dir_raises_no_false_alarm(kdump: KdumpRunner, tmp_path: Path) -> None:
    """kafka2-logdir (a real 2.x broker, clean shutdown): every witness agrees with its
    batches; compacted __consumer_offsets, trimmed indexes, snapshots, checkpoints."""
    rc, probs, objs = run(kdump, "verify-crc", CORPUS)
    assert rc == 0 and probs == [] and objs[-1]["clean"] is True
    rc, probs, _ = run(kdump, "verify-index", CORPUS)
    assert rc == 0 and not [p for p in probs if p["kind"] in ("data-lost", "no-batch")]
    rc, probs, rows = run(kdump, "size-report", CORPUS)
    assert rc == 0 and probs == []
    assert {r["offsets_lost"] for r in rows} == {0}
    assert all(r["records_claimed"] == r["records_readable"] == r["records"] for r in rows)
    # the same copy with first_topic-2 torn below its high watermark (18): named
    copy = tmp_path / "k2"
    shutil.copytree(CORPUS, copy)
    for p in copy.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    log = copy / "first_topic-2" / f"{SEG}.log"
    log.write_bytes(log.read_bytes()[:500])
    # one finding for the tail (issue 46: not a tail finding plus a data-lost for the same
    # range): the 15 bytes left after offset 5's batch end LogSegment.recover's read
    # (FileLogInputStream.nextBatch: fewer than 17 bytes), so Kafka's log ends at 6 and
    # the high watermark, 18, is clamped down to it (UnifiedLog.updateHighWatermark):
    # 6-17 were committed and this replica no longer holds them
    rc, probs, _ = run(kdump, "verify-crc", copy)
    assert rc == 1 and [(p["kind"], p["severity"], p.get("lost_offsets")) for p in probs] == [
        ("trailing-bytes", "error", [6, 17])]
    assert probs[0]["witnesses"][0]["witness"] == "high-watermark"


# --- the topic's cleanup.policy: --config, KRaft metadata, Kafka's default -----------------


def test_cleanup_policy_from_config_and_kraft_metadata(kdump: KdumpRunner,
                                                       tmp_path: Path) -> None:
    """The same gap: lost in a delete-policy topic (Kafka's default), information when
    --config or a ConfigRecord of the log dir's __cluster_metadata says compact."""
    ld = broker(tmp_path / "ld", hw=150)
    bases = _three_segments(ld)
    gap = [bases[1], bases[2] - 1]
    for args, kind, rc in (((), "data-lost", 1),
                           (("--config", "t:cleanup.policy=compact"), "offset-gap", 0),
                           (("--config", "t:cleanup.policy=delete"), "data-lost", 1),
                           (("--config", "t:cleanup.policy=compact,delete"), "offset-gap", 0)):
        for command in ("verify-crc", "verify-index", "size-report"):
            got, probs, _ = run(kdump, command, ld, *args)
            assert (got, [(p["kind"], p["lost_offsets"]) for p in probs
                          if "lost_offsets" in p]) == (rc, [(kind, gap)]), (command, args)
    r = kdump("verify-crc", ld, "--config", "t:retention.ms=5")
    assert r.rc == 2 and r.err_lines == [
        "kdump: --config t:retention.ms: only cleanup.policy is read here"]
    ml = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    ml.append([w.metadata_record("TopicRecord", {"name": "t", "topicId": w.uuid_of(7)}),
               w.metadata_record("ConfigRecord", {"resourceType": 2, "resourceName": "t",
                                                  "name": "cleanup.policy",
                                                  "value": "compact"})])
    ml.close()
    got, probs, _ = run(kdump, "verify-crc", ld)
    assert got == 0 and [(p["kind"], p["lost_offsets"]) for p in probs] == [("offset-gap", gap)]


def test_v0_v1_wrappers_starting_segments_are_no_gap(kdump: KdumpRunner, tmp_path: Path) -> None:
    """A v0/v1 compressed wrapper carries its last inner message's offset: a segment that
    starts with one holds its offsets from its base, not from the wrapper's."""
    ld = broker(tmp_path / "ld", hw=30)
    lw = w.PartitionWriter(ld / "t-0", segment_bytes=400)
    off = 0
    for i in range(20):
        if i % 4 == 3:
            msgs = [w.Rec(key=b"k%d" % (off + j), value=b"v", timestamp=w.TS0 + j)
                    for j in range(3)]
            lw.append(w.legacy_compressed(1, msgs, last_offset=off + 2, codec=w.GZIP))
            off += 3
        else:
            lw.append(w.legacy_message(1, b"k%d" % off, b"v", offset=off, timestamp=w.TS0))
            off += 1
    lw.close()
    assert off == 30 and len(lw.segments) > 2
    for command in ("verify-crc", "verify-index", "size-report"):
        rc, probs, _ = run(kdump, command, ld)
        assert (rc, [p for p in probs if p["severity"] != "info"]) == (0, []), command
