"""``--jobs N``: the same output, byte for byte, and the same exit code as ``--jobs 1``,
on a log dir of many segments with damage in some of them."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kdump.findings import Problem
from kdump.parallel import default_jobs, ordered_map
from tests.conftest import KdumpRunner
from tests.support import writer as w


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample log dir plus 3 partitions of 5 segments each; one segment with a bad
    CRC, one cut short, one index pointing past its log."""
    root = tmp_path_factory.mktemp("jobs") / "logdir"
    w.write_sample_logdir(root)
    for p in range(3):
        pw = w.PartitionWriter(root / f"events-{p}", segment_bytes=1500, index_interval_bytes=500)
        for b in range(40):
            recs = [w.Rec(key=b"k%d" % (b * 5 + i), value=b"v" * (20 + i), timestamp=w.TS0 + b)
                    for i in range(5)]
            pw.append(w.v2_batch(recs, base_offset=b * 5, codec=(w.NONE, w.LZ4, w.ZSTD)[p]))
        pw.close()
    logs = sorted((root / "events-0").glob("*.log"))
    assert len(logs) >= 5
    data = bytearray(logs[1].read_bytes())
    data[100] ^= 0xFF
    logs[1].write_bytes(bytes(data))
    logs2 = sorted((root / "events-2").glob("*.log"))
    logs2[2].write_bytes(logs2[2].read_bytes()[:-30])
    idx = sorted((root / "events-1").glob("*.index"))[1]
    shutil.copy(sorted((root / "events-1").glob("*.index"))[0], idx)
    return root


CASES = [
    ["verify-crc", "--format", "json"],
    ["verify-crc", "--format", "text"],
    ["verify-crc", "--format", "text", "--shallow"],
    ["verify-index", "--format", "json"],
    ["verify-index", "--format", "text"],
    ["size-report", "--format", "json", "--by", "segment"],
    ["size-report", "--format", "text"],
    ["dump", "--format", "json"],
    ["dump", "--format", "json", "--print-data-log", "--payload-encoding", "hex"],
    # a schema decoder with no schemas: the registry's warning first, with any --jobs
    ["dump", "--format", "json", "--value-decoder", "avro"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(a) for a in CASES])
def test_jobs_output_identical(kdump: KdumpRunner, many: Path, args: list[str]) -> None:
    one = kdump(*args, "--jobs", "1", str(many))
    assert one.out
    for n in ("2", "3"):
        other = kdump(*args, "--jobs", n, str(many))
        assert (other.rc, other.out, other.err) == (one.rc, one.out, one.err)
    # the default (the number of cores) too
    default = kdump(*args, str(many))
    assert (default.rc, default.out) == (one.rc, one.out)
    if args[0] in ("verify-crc", "verify-index"):
        assert one.rc == 1


def test_jobs_rejects_zero(kdump: KdumpRunner, many: Path) -> None:
    r = kdump("verify-crc", "--jobs", "0", str(many))
    assert r.rc == 2 and "--jobs" in r.err


def _square(x: int) -> int:
    return x * x


def test_ordered_map_keeps_order_and_passes_others_through() -> None:
    items: list[object] = ["a", 1, 2, "b", 3, 4, 5, 6, 7, "c", 8, 9, 10, 11]
    want = [x * x if isinstance(x, int) else x for x in items]
    for jobs in (1, 2, 3):
        got = list(ordered_map(_square, items, jobs, lambda x: isinstance(x, int)))
        assert got == want
    # a single unit of work: no pool
    assert list(ordered_map(_square, ["x", 3, "y"], 4, lambda x: isinstance(x, int))) == ["x", 9, "y"]
    # work done in this process (jobs 1, or a single item) takes the streaming variant
    assert list(ordered_map(_square, ["x", 3], 4, lambda x: isinstance(x, int),
                            inline=lambda x: -x)) == ["x", -3]
    assert list(ordered_map(_square, [2, 3], 1, lambda x: True, inline=lambda x: -x)) == [-2, -3]
    assert list(ordered_map(_square, [2, 3], 2, lambda x: True, inline=lambda x: -x)) == [4, 9]
    assert default_jobs() >= 1


def _first_fast(x: int) -> int:
    import time

    time.sleep(0 if x == 0 else 0.5)
    return x


def test_a_pool_stopped_mid_run_prints_nothing_from_its_threads(monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """The consumer gone (Ctrl-C, a signal, ``| head``) while futures wait: the workers are
    stopped and nothing is printed.  CPython 3.11's pool thread, seeing its workers gone,
    sets an exception on every future it holds (``terminate_broken``) and dies with
    InvalidStateError on one the caller had cancelled: a traceback on the user's terminal
    before "kdump: terminated (SIGTERM)" (seen once, a parallel export signalled mid-run on
    a loaded machine, where the thread saw the workers gone before ``shutdown`` woke it).
    That order is made certain here: ``shutdown`` waits for it, and the pool's thread
    lags behind the submissions, so that some futures still wait."""
    import concurrent.futures.process as cfp
    import threading
    import time
    from concurrent.futures import ProcessPoolExecutor

    real = ProcessPoolExecutor.shutdown

    def late(self: ProcessPoolExecutor, wait: bool = True, *, cancel_futures: bool = False
             ) -> None:
        deadline = time.monotonic() + 60
        while not getattr(self, "_broken", True) and time.monotonic() < deadline:
            time.sleep(0.01)
        real(self, wait, cancel_futures=cancel_futures)

    monkeypatch.setattr(ProcessPoolExecutor, "shutdown", late)
    # futures still waiting for a worker when the consumer goes (a loaded machine's pool
    # thread lags behind the submissions): it hands out work while fewer than two run
    manager = cfp._ExecutorManagerThread
    hand_out = manager.add_call_item_to_queue

    def two_at_a_time(self: Any) -> None:
        if sum(w.future.running() for w in self.pending_work_items.values()) < 2:
            hand_out(self)

    monkeypatch.setattr(manager, "add_call_item_to_queue", two_at_a_time)
    died: list[str] = []
    monkeypatch.setattr(threading, "excepthook",
                        lambda a: died.append(f"{a.thread}: {a.exc_type.__name__}"))
    work = ordered_map(_first_fast, range(40), 2, lambda x: True)
    assert next(work) == 0
    pending = list(work.gi_frame.f_locals["pending"])  # type: ignore[union-attr]
    assert {f.running() for _, f in pending} == {True, False}  # running, and waiting
    work.close()
    assert died == []


def test_spilled_findings_come_back_in_order_and_leave_no_file(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    """A worker's findings past SPILL_AFTER go to a private temporary file, not memory."""
    import kdump.parallel as par

    monkeypatch.setattr(par, "SPILL_AFTER", 3)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    s = par.Spilled(iter(range(10)))
    assert s.count == 10 and len(s.head) == 3
    assert len(list(tmp_path.iterdir())) == 1
    assert list(s) == list(range(10))
    assert list(tmp_path.iterdir()) == []


# --- dump --format json --jobs N: the operation renders in workers, render only writes ------
def test_parallel_dump_gives_back_each_file_rendered_in_order(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    """kdump.ops.dump.parallel with the JSON renderer of a serial dump: the same text as
    dump() rendered here, given back in chunks (multi-byte characters cut across them),
    problems as objects in their place, and no spool file left."""
    import tempfile

    from kdump.ops.dump import DumpOptions, dump
    from kdump.ops.dump import parallel as dp
    from kdump.render.jsonl import JsonRenderer
    from kdump.render.spool import SpoolRenderer, file_renderer

    root = tmp_path / "logdir"
    for p in range(3):
        pw = w.PartitionWriter(root / f"t-{p}", segment_bytes=800)
        for b in range(12):
            value = f"caf\u00e9 \u20ac {b}".encode()
            pw.append(w.v2_batch([w.Rec(b"k\xc3\xa9%d" % b, value),
                                  w.Rec(b"raw", b"\xff\xfe\xe2\x82")], base_offset=2 * b))
        pw.close()
    log = sorted((root / "t-1").glob("*.log"))[1]
    data = bytearray(log.read_bytes())
    data[70] ^= 0xFF  # a damaged batch: a problem in the middle of a file's text
    log.write_bytes(bytes(data))
    spool = tmp_path / "tmp"
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    monkeypatch.setattr(dp, "CHUNK", 5)

    serial = io.StringIO()
    one = JsonRenderer(serial)
    problems = []
    for ev in dump([str(root)], DumpOptions(print_data_log=True)):
        one.emit(ev)
        if isinstance(ev, Problem):
            problems.append(ev)
    items = list(dp.dump_parallel([str(root)], DumpOptions(print_data_log=True), 2,
                                  file_renderer()))
    parallel = io.StringIO()
    two = SpoolRenderer(parallel)
    for item in items:
        two.emit(item)
    assert parallel.getvalue() == serial.getvalue()
    assert '"value":"caf\u00e9 \u20ac 3"' in serial.getvalue()
    assert '"value":"//7igg==","value_encoding":"base64"' in serial.getvalue()
    texts = [i.text for i in items if isinstance(i, dp.Rendered)]
    assert len(texts) > 100 and max(map(len, texts)) <= 5
    assert [p for p in items if isinstance(p, Problem)] == problems
    assert "crc-mismatch" in {p.kind for p in problems}
    assert list(spool.iterdir()) == []


# --- size-report --jobs: large segments read as ranges by several workers ------------------
def _size_rows(paths: list[Path], jobs: int, by: str = "segment") -> list[object]:
    from kdump.ops.size_report import SizeOptions, size_report

    return [x.to_json() if hasattr(x, "to_json") else x
            for x in size_report([str(p) for p in paths], SizeOptions(by=by), jobs=jobs)]


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two partitions of segments of ~40 KB with an index entry every 2 KB."""
    root = tmp_path_factory.mktemp("ranges") / "logdir"
    for p in range(2):
        pw = w.PartitionWriter(root / f"big-{p}", segment_bytes=40_000, index_interval_bytes=2000)
        for b in range(120):
            recs = [w.Rec(key=b"k%d" % (b * 4 + i), value=b"value-%d-" % b * (10 + i),
                          timestamp=w.TS0 + b * 10 + i) for i in range(4)]
            pw.append(w.v2_batch(recs, base_offset=b * 4, codec=(w.NONE, w.ZSTD)[p],
                                 producer_id=1000 + b % 3))
        pw.close()
    return root


def _verify_out(paths: list[Path], jobs: int, **opts: Any) -> list[object]:
    from kdump.ops.verify_crc import VerifyOptions, verify_crc

    return list(verify_crc([str(p) for p in paths], VerifyOptions(**opts), jobs=jobs))


def _spy_results(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The (row, problems, range, in step) results size_report receives from its workers."""
    import kdump.ops.size_report as sr

    seen: list[tuple[Any, ...]] = []
    real = sr.ordered_map

    def spy(*args: Any, **kw: Any) -> Iterator[Any]:
        for out in real(*args, **kw):
            if isinstance(out, tuple):
                seen.append(out)
            yield out

    monkeypatch.setattr(sr, "ordered_map", spy)
    return seen


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_size_report_ranges_equal_whole_files(monkeypatch: pytest.MonkeyPatch, large: Path,
                                              tmp_path: Path) -> None:
    """Segments cut into ranges (here every 5 KB) give the rows of whole-file reads, clean or
    damaged: a flipped byte, a zeroed stretch and a cut-short tail inside ranges."""
    import kdump.files.splits as splits

    monkeypatch.setattr(splits, "SPLIT_BYTES", 5000)
    seen = _spy_results(monkeypatch)
    clean = _size_rows([large], 1)
    assert _size_rows([large], 2) == clean
    assert sum(1 for _row, _p, rng, in_step in seen if rng is not None and rng.start > 0
               and in_step) > 10
    for by in ("partition", "topic"):
        assert _size_rows([large], 2, by) == _size_rows([large], 1, by)
    damaged = _copy(large, tmp_path / "damaged")
    logs = sorted((damaged / "big-0").glob("*.log")) + sorted((damaged / "big-1").glob("*.log"))
    a = bytearray(logs[0].read_bytes())
    a[7000] ^= 0x55
    a[15000:17500] = bytes(2500)
    logs[0].write_bytes(bytes(a))
    b = bytearray(logs[-2].read_bytes())
    b[12345] ^= 0xFF
    logs[-2].write_bytes(bytes(b))
    logs[1].write_bytes(logs[1].read_bytes()[:-100])
    whole = _size_rows([damaged], 1)
    assert whole != clean
    assert _size_rows([damaged], 2) == whole
    assert _size_rows([damaged], 3) == whole
    # verify-crc reads the same ranges, and says what a whole-file read says
    for opts in ({}, {"deep": False}, {"resync": False}):
        assert _verify_out([large], 2, **opts) == _verify_out([large], 1, **opts)
        want = _verify_out([damaged], 1, **opts)
        assert any(isinstance(x, Problem) for x in want)
        assert _verify_out([damaged], 2, **opts) == want
        assert _verify_out([damaged], 3, **opts) == want


def test_size_report_range_out_of_step_is_read_again(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    """An index entry at an intact batch nested inside another (a record whose value is a
    whole batch): the range before it runs past the boundary, so the rest of the segment
    is read again from that range, and the rows are those of a whole-file read."""
    import kdump.files.splits as splits

    monkeypatch.setattr(splits, "SPLIT_BYTES", 1000)
    part = tmp_path / "logdir" / "nest-0"
    part.mkdir(parents=True)
    inner = w.v2_batch([w.Rec(key=b"in", value=b"x" * 40, timestamp=w.TS0)], base_offset=1)
    batches = [w.v2_batch([w.Rec(key=b"a", value=b"y" * 900, timestamp=w.TS0)], base_offset=0),
               w.v2_batch([w.Rec(key=b"n", value=inner * 12, timestamp=w.TS0)], base_offset=1)]
    batches += [w.v2_batch([w.Rec(key=b"t%d" % o, value=b"z" * 300, timestamp=w.TS0 + o)],
                           base_offset=o) for o in range(2, 12)]
    data = b"".join(batches)
    (part / "00000000000000000000.log").write_bytes(data)
    # the nested batch's position, past the 1000-byte boundary, named by the index
    nested = len(batches[0]) + data[len(batches[0]):].index(inner, 100)
    assert nested > 1000
    positions, pos = [], 0
    for i, bt in enumerate(batches):
        positions.append((i, pos))
        pos += len(bt)
    entries = [(1, nested)] + [(o, p) for o, p in positions if p > nested + len(inner) * 12]
    (part / "00000000000000000000.index").write_bytes(w.offset_index(entries))
    seen = _spy_results(monkeypatch)
    whole = _size_rows([part.parent], 1)
    assert _size_rows([part.parent], 2) == whole
    assert _verify_out([part.parent], 2) == _verify_out([part.parent], 1)
    assert next((rng.start, in_step) for _row, _p, rng, in_step in seen if rng is not None) \
        == (0, False)


def test_verify_crc_range_with_offsets_below_the_ranges_before(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A batch past a range boundary whose offsets go back below an earlier range's: its
    worker could not know, so that range is checked again with the offsets before it,
    and the findings are those of a whole-file read (offset-order, previous offset)."""
    import kdump.files.splits as splits
    from kdump.files.logdir import classify

    monkeypatch.setattr(splits, "SPLIT_BYTES", 3000)

    def write(root: Path, back: int | None) -> Path:
        pw = w.PartitionWriter(root / "back-0", segment_bytes=1 << 20, index_interval_bytes=500)
        for b in range(40):
            base = b * 3 if b != back else 10  # batch ``back`` goes back to offset 10
            recs = [w.Rec(key=b"k", value=b"v" * 100, timestamp=w.TS0 + b)] * 3
            pw.append(w.v2_batch(recs, base_offset=base), first_offset=base)
        pw.close()
        return root / "back-0" / "00000000000000000000.log"

    # every batch has the same size: find the batch that starts the second range, then
    # write the log again with that batch's offsets going back
    log = write(tmp_path / "plain", None)
    size = len(w.v2_batch([w.Rec(key=b"k", value=b"v" * 100, timestamp=w.TS0)] * 3))
    points = splits.split_points(classify(str(log)), log.stat().st_size, 3000)
    assert len(points) > 3 and all(p % size == 0 for p in points)
    write(tmp_path / "logdir", points[2] // size)
    want = _verify_out([tmp_path / "logdir"], 1)
    order = [x for x in want if isinstance(x, Problem) and x.kind == "offset-order"]
    assert [x.position for x in order] == [points[2]]
    assert _verify_out([tmp_path / "logdir"], 2) == want
