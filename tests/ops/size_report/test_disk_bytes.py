"""Both sizes of every file count (issue 41): ``bytes`` (apparent, st_size, as ``ls``)
and ``disk_bytes`` (allocated, st_blocks x 512, as ``du``), in size-report, retention and
the report, on a log dir copied from a running broker: its active segment's ``.index``
and ``.timeindex`` preallocated to segment.index.bytes (10 MiB), sparse on disk.

Segments are written by the project's encoder (tests/writer.py); the preallocation is
made as Kafka makes it (AbstractIndex: RandomAccessFile.setLength, i.e. ``os.truncate``
past the end: a hole).  Expected figures are the files' own ``os.stat`` and ``du -B1``,
never kdump's.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import KdumpRunner
from tests.support import group_records as gr
from tests.support import retention_fixture as rf
from tests.support import writer as w

NOW, DAY = rf.NOW, rf.DAY
TEN_MIB = 10 * 1024 * 1024
#: a new segment's .index and .timeindex: segment.index.bytes rounded down to whole
#: 8-byte and 12-byte entries (AbstractIndex)
ROLLED = TEN_MIB // 8 * 8 + TEN_MIB // 12 * 12


def _du(*paths: Path) -> int:
    """``du -s -B1 -c``: allocated bytes, as the operator's du says them."""
    out = subprocess.run(["du", "-s", "-B1", "-c", *map(str, paths)], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    return int(out[-1].split()[0])


def _alloc(p: Path) -> int:
    return p.lstat().st_blocks * 512


def _preallocate(part: Path) -> None:
    """The active segment's indexes as a running broker leaves them: 10 MiB, sparse."""
    active = sorted(part.glob("*.log"))[-1].name[:-4]
    for suffix in (".index", ".timeindex"):
        f = part / (active + suffix)
        if not f.exists():
            f.write_bytes(b"")
        os.truncate(f, TEN_MIB // 8 * 8 if suffix == ".index" else TEN_MIB // 12 * 12)


@pytest.fixture
def running(tmp_path: Path) -> Path:
    """One broker's log dir copied while it ran: ``t-0`` (two segments, 10 days old, the
    active one's indexes preallocated) and ``e-0`` (an empty active segment after one
    old segment, preallocated too)."""
    root = w.broker_logdir(tmp_path / "b1", 1, high_watermarks=[("t", 0, 20), ("e", 0, 10)])
    rf._partition(root / "t-0", [[rf._span(0, 10, NOW - 10 * DAY)],
                                 [rf._span(10, 10, NOW - 10 * DAY)]])
    rf._partition(root / "e-0", [[rf._span(0, 10, NOW - 10 * DAY)], []])
    _preallocate(root / "t-0")
    _preallocate(root / "e-0")
    return root


def _objs(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


def test_the_preallocated_index_is_sparse(running: Path) -> None:
    idx = running / "t-0" / f"{10:020d}.index"
    assert idx.stat().st_size == TEN_MIB
    assert _alloc(idx) < 64 * 1024  # a hole: what the test's premise needs


def test_size_report_gives_both_sizes(kdump: KdumpRunner, running: Path) -> None:
    r = kdump("size-report", str(running), "--by", "segment", "--format", "json")
    assert r.rc == 0, r.err
    rows = _objs(r.out)
    part = running / "t-0"
    for seg in (0, 10):
        files = [f for f in part.iterdir() if f.name.startswith(f"{seg:020d}.")]
        row = next(o for o in rows if o["type"] == "segment" and o["topic"] == "t"
                   and o["segment"] == f"{seg:020d}")
        assert row["bytes"] == sum(f.stat().st_size for f in files)
        assert row["disk_bytes"] == sum(_alloc(f) for f in files) == _du(*files)
    active = next(o for o in rows if o["type"] == "segment" and o["topic"] == "t"
                  and o["segment"] == f"{10:020d}")
    assert active["index_bytes"] == TEN_MIB and active["bytes"] > 2 * TEN_MIB - 16
    assert active["disk_bytes"] < TEN_MIB // 4
    total = rows[-1]
    files = [f for d in ("t-0", "e-0") for f in (running / d).iterdir()]
    assert (total["bytes"], total["disk_bytes"], total["replica_disk_bytes"]) == (
        sum(f.stat().st_size for f in files), _du(*files), _du(*files))
    text = kdump("size-report", str(running), "--format", "text").lines
    assert text[0].split()[1:3] == ["bytes", "disk_bytes"]
    assert text[-1].split()[1:3] == [str(total["bytes"]), str(total["disk_bytes"])]


def test_retention_leads_with_what_the_disk_gets_back(kdump: KdumpRunner,
                                                      running: Path) -> None:
    r = kdump("retention", str(running), "--now", str(NOW), "--format", "json",
              "--config", "t:retention.ms=86400000", "--config", "e:retention.ms=86400000")
    assert r.rc == 0, r.err
    objs = _objs(r.out)
    t = next(o for o in objs if o["type"] == "retention_partition" and o["topic"] == "t")
    tfiles = [f for f in (running / "t-0").iterdir() if f.suffix in (".log", ".index",
                                                                     ".timeindex")]
    # both segments breached: every segment goes, the active one too, which rolls a new
    # active segment whose preallocated indexes take no block
    assert (t["bytes"], t["disk_bytes"]) == (sum(f.stat().st_size for f in tfiles),
                                             _du(*tfiles))
    assert (t["deletable_bytes"], t["deletable_disk_bytes"], t["rolled_bytes"]) == (
        t["bytes"], t["disk_bytes"], ROLLED)
    segs = {o["base_offset"]: o for o in objs if o["type"] == "retention_segment"
            and o["topic"] == "t"}
    act = [f for f in tfiles if f.name.startswith(f"{10:020d}.")]
    assert (segs[10]["bytes"], segs[10]["disk_bytes"]) == (
        sum(f.stat().st_size for f in act), _du(*act))
    # the empty active segment: held, its 20 MiB apparent, nothing on disk
    e = next(o for o in objs if o["type"] == "retention_partition" and o["topic"] == "e")
    empty = [running / "e-0" / f"{10:020d}{s}" for s in (".log", ".index", ".timeindex")]
    assert e["held"] == {"empty-active-segment": sum(f.stat().st_size for f in empty)}
    assert e["held_disk"] == {"empty-active-segment": _du(*empty)}
    assert e["held"]["empty-active-segment"] == ROLLED
    # the log dir: what du says
    disk = next(o for o in objs if o["type"] == "retention_disk")
    assert disk["disk_bytes"] == _du(running)
    assert disk["bytes"] == sum(f.stat().st_size for f in running.rglob("*") if f.is_file())
    # text: the disk first, the apparent size beside
    from kdump.render.retention import both
    from kdump.render.rows import human

    text = kdump("retention", str(running), "--now", str(NOW), "--format", "text",
                 "--config", "t:retention.ms=86400000").out
    line = next(x for x in text.splitlines() if x.startswith("t-0 (broker 1)"))
    assert (f"deletable now {both(t['deletable_disk_bytes'], t['deletable_bytes'])}"
            in line)
    assert both(t["deletable_disk_bytes"], t["deletable_bytes"]) == (
        f"{human(t['deletable_disk_bytes'])} ({human(t['deletable_bytes'])} apparent)")
    assert (f"(deleting the active segment rolls a new one: its preallocated .index and "
            f".timeindex, {human(ROLLED)} apparent, take no disk block)") in line


def test_the_report_counts_what_the_disk_holds(kdump: KdumpRunner, running: Path,
                                                tmp_path: Path) -> None:
    from kdump.render.html import _size

    page = tmp_path / "report.html"
    r = kdump("report", str(running), "-o", str(page))
    assert r.rc in (0, 1), r.err
    html = page.read_text(encoding="utf-8")
    files = [f for f in running.rglob("*") if f.is_file()]
    apparent = sum(f.stat().st_size for f in files)
    allocated = sum(_alloc(f) for f in files)
    assert apparent > 4 * TEN_MIB > 100 * allocated  # 40 MiB apparent, kilobytes on disk
    assert (f'<div class="k">Bytes on disk</div><div class="v" title="{_size(apparent)} '
            f'apparent (as ls shows them)">{_size(allocated)}</div><div class="k">'
            f'{_size(apparent)} apparent</div>') in html


# ------------------------------------------------------------ one verdict, three views


@pytest.fixture
def lagging_offsets(tmp_path: Path) -> Path:
    """A compacted ``__consumer_offsets-0`` whose high watermark (5) is below its first
    segment's upper bound (10): the segment stays for the high watermark, and reaching
    it is not enough (cleanup.policy=compact: only the log start offset deletes)."""
    root = w.broker_logdir(tmp_path / "b1", 1, high_watermarks=[("__consumer_offsets", 0, 5)])
    batches = [[w.v2_batch([gr.commit("g", "t", 0, o, NOW - 100 * DAY)
                            for o in range(base, base + 10)], base_offset=base)]
               for base in (0, 10)]
    rf._partition(root / "__consumer_offsets-0", batches)
    return root


UNTIL = ("not before the high watermark and the log start offset reach 10 "
         "(cleanup.policy=compact: only the log-start-offset rule deletes (DeleteRecords, or "
         "a log start offset moved past it); the log cleaner rewrites segments, it deletes "
         "none by age)")


def test_text_json_table_and_report_say_the_same(kdump: KdumpRunner, lagging_offsets: Path,
                                                  tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import html as h

    args = ("retention", str(lagging_offsets), "--now", str(NOW))
    seg = next(o for o in _objs(kdump(*args, "--format", "json").out)
               if o["type"] == "retention_segment" and o["base_offset"] == 0)
    assert (seg["deletable"], seg["reason"], seg["deletable_at"], seg["until"]) == (
        False, "high-watermark", None, UNTIL)
    assert seg["detail"].startswith(f"the high watermark 5 is below its upper bound 10: {UNTIL}")
    text = kdump(*args, "--format", "text").lines
    assert any(x.startswith("  00000000000000000000.log ")
               and x.endswith(f": kept: high-watermark, {UNTIL}") for x in text)
    monkeypatch.setenv("COLUMNS", "600")  # the verdict on one line
    table = kdump(*args, "--format", "table").out
    assert f"high-watermark; {UNTIL}" in table
    page = tmp_path / "r.html"
    kdump("report", str(lagging_offsets), "-o", str(page))
    held = page.read_text(encoding="utf-8")
    held = held[held.index('id="retention-held"'):]
    assert f'<span class="badge warning">high-watermark</span></td><td>{h.escape(UNTIL)}</td>' \
        in held
    assert "never" not in held[:held.index("</table>")]


# ------------------------------------------------------------ the release from its evidence


def _run_of(kdump: KdumpRunner, *paths: Path) -> dict[str, Any]:
    r = kdump("retention", *map(str, paths), "--now", str(NOW), "--format", "json")
    assert r.rc == 0, r.err
    return _objs(r.out)[0]


def test_a_zookeeper_era_log_dir_is_judged_by_the_last_3x_rules(kdump: KdumpRunner,
                                                                  running: Path) -> None:
    # tests/writer.py's broker_logdir: meta.properties version=0, broker.id, no directory.id
    assert "version=0" in (running / "meta.properties").read_text()
    run = _run_of(kdump, running)
    assert (run["kafka_version"], run["kafka_version_source"]) == (
        "3.9", "meta.properties version=0 without directory.id (1 log dir) and no "
               "__cluster_metadata: a ZooKeeper-mode broker's, judged by the last 3.x rules "
               "(3.9; 4.0 removed ZooKeeper mode)")
    # the user's word outranks the evidence
    r = kdump("retention", str(running), "--now", str(NOW), "--format", "json",
              "--kafka-version", "4.0")
    assert _objs(r.out)[0]["kafka_version_source"] == "--kafka-version"


def test_a_kraft_log_dir_without_metadata_is_assumed_the_newest(kdump: KdumpRunner,
                                                                 running: Path) -> None:
    (running / "meta.properties").write_bytes(w.meta_properties({
        "version": "1", "node.id": "1", "cluster.id": "c", "directory.id": "AAAAAAAAAAAAAAAAAAAAAQ"}))
    run = _run_of(kdump, running)
    assert (run["kafka_version"], run["kafka_version_source"]) == (
        "4.4", "assumed: no metadata.version among the inputs")


def test_the_bootstrap_checkpoint_says_the_release(kdump: KdumpRunner, running: Path) -> None:
    def feature(level: int) -> bytes:
        return w.v2_batch([w.Rec(None, w.metadata_record(
            "FeatureLevelRecord", {"name": "metadata.version", "featureLevel": level}))])

    (running / "bootstrap.checkpoint").write_bytes(feature(26))
    run = _run_of(kdump, running)
    assert (run["kafka_version"], run["kafka_version_source"]) == (
        "4.1", f"metadata.version 26, 4.1-IV0 in {running / 'bootstrap.checkpoint'}")
    (running / "bootstrap.checkpoint").write_bytes(feature(21))  # 3.9-IV0
    run = _run_of(kdump, running)
    assert (run["kafka_version"], run["kafka_version_source"]) == (
        "3.9", f"metadata.version 21 in {running / 'bootstrap.checkpoint'}: a 3.x release, "
               "judged by the last 3.x rules (3.9)")


def test_one_kafka_version() -> None:
    from kdump.decoders.release import KafkaVersion, check_release
    from kdump.errors import UsageError
    from kdump.ops.retention import check_release as retention_release
    from kdump.protocol.definitions import release_key
    from kdump.protocol.messages import SchemaError

    assert KafkaVersion.parse("4.1.2") == KafkaVersion(4, 1) and str(KafkaVersion(3, 9)) == "3.9"
    assert KafkaVersion.parse("3.10") > KafkaVersion.parse("3.9")  # not string order
    assert KafkaVersion.parse("4.2").at_least("4.2") and not KafkaVersion(4, 1).at_least("4.2")
    assert release_key("3.10") == (3, 10)
    for bad in ("4", "4.x", "", "4.1.2.3"):
        with pytest.raises(SchemaError):
            KafkaVersion.parse(bad)
    assert (check_release("4.2.1"), retention_release("3.7.1")) == ("4.2", "3.7")
    with pytest.raises(SchemaError):
        check_release("3.8")  # no record layouts before 3.9
    with pytest.raises(UsageError):
        retention_release("2.8")


def test_kafka_version_options(kdump: KdumpRunner, running: Path) -> None:
    r = kdump("retention", str(running), "--kafka-version", "2.8")
    assert r.rc == 2 and ("unsupported Kafka version '2.8': kdump retention knows the rules of "
                          "Kafka 3.x and 4.x") in r.err
    r = kdump("dump", str(running), "--kafka-version", "3.8")
    assert r.rc == 2 and "unsupported Kafka version '3.8': kdump reads the record layouts" in r.err


def test_the_export_manifest_gives_both_sizes(kdump: KdumpRunner, running: Path,
                                              tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = kdump("export", str(running), "-o", str(out))
    assert r.rc in (0, 1), r.err
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["files"]
    for f in manifest["files"]:
        written = out / f["file"]
        assert (f["size"], f["disk_bytes"]) == (written.stat().st_size, _alloc(written))


# ------------------------------------------------------------ export's memory


def test_export_never_imports_pandas(tmp_path: Path) -> None:
    """pa.array asks of every Python list whether it is a pandas array-like, importing
    pandas to know (+50 MB resident): an internal topic's typed columns go through it.
    kdump export tells pyarrow once that pandas is not there; what asks for pandas itself
    still gets it."""
    import sys

    logdir = tmp_path / "in"
    pw = w.PartitionWriter(logdir / "__consumer_offsets-0")
    pw.append(w.v2_batch([gr.commit("g", "t", 0, o, NOW) for o in range(5)]))
    pw.close()
    code = (
        "import sys\n"
        "from kdump.cli import main\n"
        "try:\n"
        f"    main(['export', {str(logdir)!r}, '-o', {str(tmp_path / 'out')!r}])\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), e.code\n"
        "print('pandas' in sys.modules)\n"
        "import pyarrow as pa\n"
        "try:\n"
        "    import pandas  # noqa: F401\n"
        "except ImportError:\n"
        "    print('no pandas installed')\n"
        "else:\n"
        "    print(type(pa.table({'a': [1]}).to_pandas()).__name__)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[3])})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()[1:]  # after export's own line
    assert lines[0] == "False"
    assert lines[1] in ("DataFrame", "no pandas installed")
    manifest = json.loads((tmp_path / "out" / "_manifest.json").read_text())
    assert manifest["rows"] == 5


# ------------------------------------------------------------ a real broker's log dir

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "kafka2-logdir"


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is absent")
def test_a_real_log_dir_matches_du(kdump: KdumpRunner) -> None:
    """A Kafka 2.x broker's log dir (ZooKeeper mode): size-report's and retention's
    allocated bytes are du's; its rules are 3.9's, said why."""
    parts = [f for d in CORPUS.iterdir() if d.is_dir() and d.name.rpartition("-")[2].isdigit()
             for f in d.iterdir() if f.is_file()]  # partition directories (not .idea)
    total = _objs(kdump("size-report", str(CORPUS), "--format", "json").out)[-1]
    assert (total["bytes"], total["disk_bytes"]) == (
        sum(f.stat().st_size for f in parts), _du(*parts))
    objs = _objs(kdump("retention", str(CORPUS), "--format", "json").out)
    disk = next(o for o in objs if o["type"] == "retention_disk")
    assert disk["disk_bytes"] == _du(CORPUS)
    assert (objs[0]["kafka_version"], objs[0]["kafka_version_source"].split(" (")[0]) == (
        "3.9", "meta.properties version=0 without directory.id")
