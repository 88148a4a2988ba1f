"""Rough edges of the command line (issues 16 and 18): each test fails on the main of
before the fix."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import KdumpRunner, subprocess_env
from tests.support import writer as w

ROOT = Path(__file__).resolve().parents[2]

#: runs kdump's entry point in a child whose import of click (one of the heavy imports
#: that follow the handler) delivers a SIGINT to itself: a Ctrl-C in the first
#: milliseconds, made deterministic
_SIGINT_DURING_IMPORTS = """
import os, signal, sys
class Hook:
    def find_spec(self, name, path=None, target=None):
        if name == "click":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, Hook())
sys.argv = ["kdump", "dump", sys.argv[1]]
from kdump.cli import main
main()
"""


def test_sigint_while_starting_prints_no_traceback(sample_dir: Path) -> None:
    r = subprocess.run([sys.executable, "-c", _SIGINT_DURING_IMPORTS, str(sample_dir)],
                       capture_output=True, text=True, env=subprocess_env(), cwd=ROOT,
                       timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (130, "", "kdump: interrupted\n")


def test_importing_the_cli_leaves_sigint_alone() -> None:
    """A program (or pytest) importing kdump.cli keeps Python's KeyboardInterrupt."""
    code = ("import signal, kdump.cli; "
            "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=subprocess_env(), cwd=ROOT, timeout=60)
    assert r.stdout == "True\n", r.stderr


# --- size-report ---------------------------------------------------------------------
def test_shallow_size_report_says_unknown_not_zero(kdump: KdumpRunner, sample_dir: Path) -> None:
    r = kdump("size-report", sample_dir / "orders-0", "--shallow")
    assert r.rc == 0
    head, row = r.out.splitlines()[:2]
    cols = dict(zip(head.split(), row.split(), strict=True))
    assert [cols[k] for k in ("key_bytes", "value_bytes", "header_bytes", "overhead_bytes",
                              "ratio")] == ["-"] * 5
    r = kdump("size-report", sample_dir / "orders-0", "--shallow", "--format", "json")
    total = json.loads(r.out.splitlines()[-1])
    assert [total[k] for k in ("key_bytes", "value_bytes", "header_bytes", "payload_bytes",
                               "overhead_bytes", "compression_ratio")] == [None] * 6
    deep = json.loads(kdump("size-report", sample_dir / "orders-0", "--format",
                            "json").out.splitlines()[-1])
    assert deep["key_bytes"] == 1320 and deep["compression_ratio"] is not None


def test_by_segment_lists_only_segments(kdump: KdumpRunner, sample_dir: Path) -> None:
    r = kdump("size-report", sample_dir / "orders-0", "--by", "segment", "--format", "json")
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert [d["segment"] for d in rows[:-1]] == [
        "00000000000000000000", "00000000000000000050", "00000000000000000120", None]
    other = rows[-2]
    # leader-epoch-checkpoint, partition.metadata and the snapshot at the log end
    assert other["segments"] == 0 and other["bytes"] == sum(
        (sample_dir / "orders-0" / n).stat().st_size
        for n in ("leader-epoch-checkpoint", "partition.metadata",
                  "00000000000000000162.snapshot"))
    text = kdump("size-report", sample_dir / "orders-0", "--by", "segment").out
    assert "leader-epoch-checkpoint" not in text and "orders-0/(other) " in text


def test_a_batch_too_large_to_count_makes_the_totals_inexact(kdump: KdumpRunner,
                                                            tmp_path: Path) -> None:
    part = tmp_path / "bomb-0"
    pw = w.PartitionWriter(part)
    pw.append(w.v2_batch([w.Rec(b"k", bytes(3 << 20))], codec=w.ZSTD))
    pw.close()
    r = kdump("size-report", part, "--max-batch-bytes", "1M", "--format", "json")
    assert r.rc == 1
    total = json.loads(r.out.splitlines()[-1])
    assert total["records_exact"] is False and total["records"] == 0
    problem = json.loads(r.out.splitlines()[0])
    assert problem["kind"] == "batch-too-large" and "records are not counted" in problem["detail"]


# --- find-offset / find-time options --------------------------------------------------
def test_negative_offset_is_a_clear_usage_error(kdump: KdumpRunner, sample_dir: Path) -> None:
    for args in (("-5",), ("-5", "--format", "json")):
        r = kdump("find-offset", sample_dir / "orders-0", *args)
        assert r.rc == 2 and "No such option" not in r.err
        assert "-5: offsets are never negative" in r.err


def test_epoch_seconds_are_refused_with_a_hint(kdump: KdumpRunner, sample_dir: Path) -> None:
    r = kdump("find-time", sample_dir / "orders-0", "1700000025")
    assert (r.rc, r.out) == (2, "")
    assert r.err == ("kdump: 1700000025 looks like epoch seconds (2023-11-14T22:13:45Z); "
                     "find-time takes epoch milliseconds: use 1700000025000 or "
                     "2023-11-14T22:13:45Z (as milliseconds it would be 1970-01-20T16:13:20Z; "
                     "give that ISO time to mean it)\n")
    assert kdump("find-time", sample_dir / "orders-0", "1700000025000").rc == 0


def _offsets_partition(root: Path) -> Path:
    from tests.decoders.test_internal_topics import offset_key, offset_value_v3

    part = root / "__consumer_offsets-3"
    pw = w.PartitionWriter(part)
    pw.append(w.v2_batch([w.Rec(offset_key("g1", "orders", 0), offset_value_v3(42, 1000))]))
    pw.close()
    return part


def test_find_decodes_internal_topics_like_dump(kdump: KdumpRunner, tmp_path: Path) -> None:
    part = _offsets_partition(tmp_path)
    dumped = next(x for x in kdump("dump", part, "--print-data-log").out.splitlines()
              if x.startswith("| offset: 0 "))
    found = kdump("find-offset", part, "0", "--print-data-log").out.splitlines()[-1]
    assert found == dumped and "\x00" not in found and '"group":"g1"' in found
    j = json.loads(kdump("find-time", part, "0", "--print-data-log",
                         "--format", "json").out)
    d = next(json.loads(x) for x in kdump("dump", part, "--print-data-log", "--format", "json")
         .out.splitlines() if '"type":"record"' in x)
    assert (j["key"], j["value"]) == (d["key"], d["value"])
    raw = kdump("find-offset", part, "0", "--print-data-log", "--decoder", "hex").out
    from tests.decoders.test_internal_topics import offset_key

    assert "key: " + offset_key("g1", "orders", 0).hex() in raw


# --- spark: checked before the JVM starts --------------------------------------------
def test_spark_missing_input_fails_before_spark_starts(
        kdump: KdumpRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kdump.spark.session as session

    def boom(*a: object, **k: object) -> None:
        raise AssertionError("Spark was started")

    monkeypatch.setattr(session, "start", boom)
    for cmd in (("verify-crc",), ("size-report",), ("export", "-o", str(tmp_path / "o"))):
        r = kdump("spark", *cmd, tmp_path / "nonexistent")
        assert (r.rc, r.err) == (2, f"kdump: {tmp_path / 'nonexistent'}: no such file or "
                                    "directory\n")


def test_spark_unknown_master_host_is_named(kdump: KdumpRunner, sample_dir: Path) -> None:
    pytest.importorskip("pyspark")
    r = kdump("spark", "verify-crc", sample_dir, "--master", "spark://nohost.invalid:7077")
    assert r.rc == 2 and r.err.startswith("kdump: cannot reach the Spark master "
                                          "spark://nohost.invalid:7077: UnknownHostException: "
                                          "nohost.invalid (")
    assert len(r.err.splitlines()) == 1


def test_spark_options_match_the_local_ones(kdump: KdumpRunner, sample_dir: Path) -> None:
    r = kdump("spark", "size-report", sample_dir, "--top", "-1")
    assert r.rc == 2 and "-1 is not in the range x>=0" in r.err
    from kdump.cli.options import DECODER_CHOICES
    from kdump.spark.segments import DECODER_NAMES

    assert sorted(DECODER_CHOICES) == sorted(DECODER_NAMES)
    choices = "[" + "|".join(DECODER_CHOICES) + "]"
    for cmd in (("dump",), ("find-offset",), ("find-time",), ("spark", "export")):
        assert choices in "".join(kdump(*cmd, "--help").out.split()), cmd
    r = kdump("spark", "export", sample_dir, "-o", "x", "--decoder", "bogus")
    assert r.rc == 2 and "'bogus' is not one of 'auto'" in r.err


def test_kdump_format_bogus_is_an_error(kdump: KdumpRunner, sample_dir: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KDUMP_FORMAT", "bogus")
    r = kdump("size-report", sample_dir)
    assert (r.rc, r.out) == (2, "")
    assert r.err == ("kdump: KDUMP_FORMAT='bogus' is not one of text, json, table (unset it, "
                     "or give --format)\n")
    assert kdump("size-report", sample_dir, "--format", "text").rc == 0


# --- progress ------------------------------------------------------------------------
def test_progress_bar_moves_with_the_work_on_a_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kdump.cli import progress
    from kdump.render.jsonl import JsonRenderer
    from kdump.source import FileSource
    from tests.support.tty import Tty, drawn, shown_percents

    big = tmp_path / "big.log"
    with open(big, "wb") as fh:  # sparse: costs nothing
        fh.truncate(progress.MIN_BYTES * 2)
    for name in ("KDUMP_PROGRESS", "KDUMP_NO_PROGRESS"):
        monkeypatch.delenv(name, raising=False)
    err, out = Tty(), Tty()  # stdout a terminal too: shown anyway (used to be hidden)
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(progress, "QUIET", 0.0)

    class Renderer:
        def __init__(self) -> None:
            self.out = sys.stdout

    monkeypatch.setattr(progress, "TICK", 0.01)
    r = Renderer()
    with progress.ProgressBar([str(big)], "verify-crc", r), FileSource(str(big)) as src:
        assert r.out is not out  # output erases the bar first
        for i in range(4):
            src.pread(i * progress.MIN_BYTES // 2, progress.MIN_BYTES // 2)
            src.pread(0, 4096)  # re-reading does not move the bar
            drawn(err, "verify-crc", 25 * (i + 1))
    assert r.out is out
    percents = shown_percents(err, "verify-crc")
    assert percents == sorted(percents) and set(percents) <= {0, 25, 50, 75, 100}
    assert err.getvalue().endswith("\r\x1b[K")  # erased at the end

    assert not progress.ProgressBar([str(big)], "x", JsonRenderer(out)).wanted()
    monkeypatch.setenv("KDUMP_PROGRESS", "1")
    assert progress.ProgressBar([str(big)], "x", JsonRenderer(out)).wanted()
    monkeypatch.delenv("KDUMP_PROGRESS")
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe
    assert not progress.ProgressBar([str(big)], "x", Renderer()).wanted()


def test_bar_line() -> None:
    from kdump.cli.progress import bar_line

    assert bar_line("dump", 50_000_000, 200_000_000, 10.0, width=8) == \
        "dump ━━──────  25% 50.0 MB/200.0 MB 0:00:30 left"


# --- install and sample data ---------------------------------------------------------
def test_man_pages_are_installed_data_files() -> None:
    import tomllib

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = conf["tool"]["setuptools"]["data-files"]["share/man/man1"]
    pages = {p.name for p in (ROOT / "man").glob("*.1")}
    assert "kdump.1" in pages
    assert pages == {p.name for g in globs for p in ROOT.glob(g)}


def test_writer_big_writes_a_partition_directory(tmp_path: Path) -> None:
    out = tmp_path / "data"
    r = subprocess.run([sys.executable, str(ROOT / "tests" / "writer.py"), "big", str(out),
                        "64K", "lz4", "clicks"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in out.iterdir()] == ["clicks-0"]
    assert sorted(p.name for p in (out / "clicks-0").iterdir()) == [
        "00000000000000000000.index", "00000000000000000000.log",
        "00000000000000000000.timeindex"]
    assert (out / "clicks-0" / "00000000000000000000.log").stat().st_size >= 64 << 10


def test_summary_on_other_partitions_says_why_and_what_to_add(kdump: KdumpRunner,
                                                               sample_dir: Path) -> None:
    r = kdump("dump", "--summary", sample_dir / "orders-0")
    assert (r.rc, r.out) == (2, "")
    assert r.err == ("kdump: --summary replays __consumer_offsets and __share_group_state "
                     "partitions, and none was given (orders-0 is not): point it at "
                     "__consumer_offsets-N directories (or their log dir), or add "
                     "--offsets-decoder to read these partitions as consumer-offsets data\n")
    told = kdump("dump", "--summary", "--offsets-decoder", sample_dir / "orders-0")
    assert "--summary replays" not in told.err and "offsets summary:" in told.err + told.out


def test_an_unreadable_log_named_directly_is_an_unreadable_file_finding(
        kdump: KdumpRunner, sample_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same one line, named directly or found in its directory, for every command
    (permission denied simulated: the tests may run as root)."""
    import kdump.source as source
    from kdump.errors import InputError

    real = source._open_readonly
    log = str(sample_dir / "customers-0" / "00000000000000000000.log")

    def denied(path: str) -> int:
        if path == log:
            raise InputError("permission denied", path=path)
        return real(path)

    monkeypatch.setattr(source, "_open_readonly", denied)
    line = f"{log}: unreadable-file: permission denied"
    for cmd in (("dump",), ("size-report",), ("find-offset", "0"), ("find-time", "0")):
        for target in (log, str(sample_dir / "customers-0")):
            args = [cmd[0], target, *cmd[1:]]
            r = kdump(*args)
            assert r.rc == 2, args
            assert r.err.splitlines()[0] == line, (args, r.err)
            assert "Usage:" not in r.err
