"""Rough edges of the command line (issues 16 and 18): each test fails on the main of
before the fix."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import writer as w
from conftest import KdumpRunner, subprocess_env

ROOT = Path(__file__).resolve().parent.parent

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
    from test_internal_topics import offset_key, offset_value_v3

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
    from test_internal_topics import offset_key

    assert "key: " + offset_key("g1", "orders", 0).hex() in raw
