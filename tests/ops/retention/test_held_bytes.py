"""``kdump retention``: the bytes no retention rule frees.  Partition directories renamed
``-delete`` (awaiting the broker's kafka-delete-logs task), ``-future`` (an
AlterReplicaLogDirs move: the bytes twice) and ``-stray`` (kept, never deleted by 3.7 to
4.3), leftover files (``.deleted``, ``.cleaned``, ``.swap``, ``.tmp``), and each log dir's
bytes added up: judged segments + leftovers + renamed-aside directories + the rest =
every file under the log dir.

Log dirs are written by tests/writer.py and tests/support/retention_fixture.py; the expected
sizes are the files' own, summed here by ``os.walk``, never by kdump.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kdump.model import type_errors
from tests.conftest import KdumpRunner
from tests.remote.test_remote import s3, s3env  # noqa: F401 (fixtures: a real S3 API on 127.0.0.1)
from tests.support import retention_fixture as rf
from tests.support import writer as w

NOW, HOUR, DAY = rf.NOW, rf.HOUR, rf.DAY
UID = "0123456789abcdef0123456789abcdef"
DELAY = 90_000  # log.segment.delete.delay.ms in server.properties
GONE = f"gone-0.{UID}-delete"
STRAY = f"old-2.{UID}-stray"
FUTURE = f"t-1.{UID}-future"


def _tree_bytes(d: Path) -> int:
    return sum((Path(p) / n).lstat().st_size for p, _, names in os.walk(d) for n in names)


def _tree_allocated(d: Path) -> int:
    """Blocks x 512 of every file and directory under ``d`` (``d`` included): du -s -B1."""
    return d.lstat().st_blocks * 512 + sum(
        (Path(p) / n).lstat().st_blocks * 512 for p, dirs, names in os.walk(d)
        for n in (*dirs, *names))


def _max_mtime_ms(d: Path) -> int:
    return max((Path(p) / n).stat().st_mtime_ns // 1_000_000
               for p, _, names in os.walk(d) for n in names)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Broker 1 with two log dirs: ``a`` (t-0 with leftovers, t-1 being moved away,
    a -delete and a -stray directory, a checkpoint's .tmp) and ``b`` (t-1's -future copy,
    and a -delete directory and nothing else).  Broker 2's log dir ``c`` holds a
    -delete directory only."""
    root = tmp_path_factory.mktemp("held")
    (root / "server.properties").write_text(f"log.segment.delete.delay.ms={DELAY}\n")
    a = w.broker_logdir(root / "a", 1, high_watermarks=[("t", 0, 30), ("t", 1, 10)])
    rf._partition(a / "t-0", [[rf._span(0, 10, NOW - 3 * DAY)],
                              [rf._span(10, 10, NOW - 2 * HOUR), rf._span(20, 10, NOW - HOUR)]],
                  snapshot=True)
    t0 = a / "t-0"
    (t0 / "00000000000000000000.log.deleted").write_bytes(b"d" * 1000)
    (t0 / "00000000000000000000.index.deleted").write_bytes(b"i" * 80)
    (t0 / "00000000000000000000.timeindex.deleted").write_bytes(b"t" * 120)
    (t0 / "00000000000000000010.log.cleaned").write_bytes(b"c" * 300)
    (t0 / "00000000000000000000.log.swap").write_bytes(b"s" * 200)
    (t0 / "partition.metadata.tmp").write_bytes(w.partition_metadata(bytes(range(16))))
    (a / "replication-offset-checkpoint.tmp").write_bytes(w.offset_checkpoint([("t", 0, 29)]))
    (t0 / "00000000000000000099.index").write_bytes(b"\0" * 8)  # an index whose .log is gone
    rf._partition(a / "t-1", [[rf._span(0, 10, NOW - HOUR)]])
    rf._partition(a / GONE, [[rf._span(0, 5, NOW - DAY)], [rf._span(5, 5, NOW - DAY)]])
    rf._partition(a / STRAY, [[rf._span(0, 7, NOW - DAY)]])
    b = w.broker_logdir(root / "b", 1)
    rf._partition(b / FUTURE, [[rf._span(0, 6, NOW - HOUR)]])
    rf._partition(b / f"t-0.{UID[::-1]}-delete", [[rf._span(0, 3, NOW - DAY)]])
    c = w.broker_logdir(root / "c", 2)
    rf._partition(c / f"x-0.{UID}-delete", [[rf._span(0, 4, NOW - DAY)]])
    return root


def _objs(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


def _run(kdump: KdumpRunner, root: Path, *args: str, paths: tuple[str, ...] = ("a", "b", "c"),
         fmt: str = "json") -> Any:
    return kdump("retention", *paths, "--now", str(NOW), "--server-properties",
                 "server.properties", "--format", fmt, *args, cwd=root, watch=[root])


def test_renamed_aside_directories(kdump: KdumpRunner, world: Path) -> None:
    r = _run(kdump, world)
    objs = _objs(r.out)
    assert all(type_errors(o) == [] for o in objs)
    held = {o["directory"]: o for o in objs if o["type"] == "retention_held_dir"}
    assert sorted(held) == sorted([f"a/{GONE}", f"a/{STRAY}", f"b/{FUTURE}",
                                   f"b/t-0.{UID[::-1]}-delete", f"c/x-0.{UID}-delete"])
    gone = held[f"a/{GONE}"]
    assert {k: gone[k] for k in ("log_dir", "broker_id", "topic", "partition", "state",
                                 "held_by", "files", "bytes", "segments",
                                 "file_delete_delay_ms", "current_replica")} == {
        "log_dir": "a", "broker_id": 1, "topic": "gone", "partition": 0, "state": "delete",
        "held_by": "awaiting-deletion", "files": len(list((world / "a" / GONE).iterdir())),
        "bytes": _tree_bytes(world / "a" / GONE), "segments": 2,
        "file_delete_delay_ms": DELAY, "current_replica": None}
    # LogManager.deleteLogs: file.delete.delay.ms after the rename, which followed the
    # last write; the broker's default (server.properties), not a topic's
    assert gone["last_modified"] == _max_mtime_ms(world / "a" / GONE)
    assert gone["earliest_deletion"] == gone["last_modified"] + DELAY
    assert gone["detail"].endswith(
        f"file.delete.delay.ms={DELAY} [server.properties log.segment.delete.delay.ms "
        "(line 1)]")  # written now, so not yet due at the fixture's NOW (2025)
    stray = held[f"a/{STRAY}"]
    assert (stray["held_by"], stray["earliest_deletion"], stray["file_delete_delay_ms"],
            stray["bytes"]) == ("stray-replica", None, None, _tree_bytes(world / "a" / STRAY))
    assert "no Kafka release up to 4.3 deletes it" in stray["detail"]
    fut = held[f"b/{FUTURE}"]
    assert (fut["held_by"], fut["current_replica"], fut["broker_id"]) == (
        "future-replica", "a/t-1", 1)
    assert fut["detail"].endswith("; the current replica: a/t-1")
    # a log dir holding nothing but a -delete directory is read (its broker id) and listed
    only = held[f"c/x-0.{UID}-delete"]
    assert (only["log_dir"], only["broker_id"]) == ("c", 2)
    assert {"log_dir": "c", "broker_id": 2} in objs[0]["log_dirs"]


def test_a_topic_override_does_not_change_the_delete_delay(kdump: KdumpRunner,
                                                            world: Path) -> None:
    r = _run(kdump, world, "--config", "gone:file.delete.delay.ms=5")
    gone = next(o for o in _objs(r.out) if o.get("directory") == f"a/{GONE}")
    assert gone["file_delete_delay_ms"] == DELAY


def test_an_overdue_delete_directory_is_said(kdump: KdumpRunner, world: Path) -> None:
    later = str(_max_mtime_ms(world / "a" / GONE) + DAY)
    r = kdump("retention", "a", "--now", later, "--server-properties", "server.properties",
              "--format", "json", cwd=world, watch=[world])
    gone = next(o for o in _objs(r.out) if o.get("directory") == f"a/{GONE}")
    assert gone["detail"].endswith(
        "its earliest deletion has passed: a broker running since then would have deleted "
        "it (look for kafka-delete-logs errors in its server.log), or the broker has not run "
        "since")


def test_leftover_files_of_a_partition(kdump: KdumpRunner, world: Path) -> None:
    objs = _objs(_run(kdump, world).out)
    part = next(o for o in objs if o["type"] == "retention_partition"
                and (o["log_dir"], o["topic"], o["partition"]) == ("a", "t", 0))
    assert part["leftover_bytes"] == {"cleaned": 300, "deleted": 1200, "swap": 200,
                                      "tmp": len(w.partition_metadata(bytes(range(16))))}
    assert part["pending_delete_bytes"] == 1000  # the .log.deleted, as before


def test_each_log_dir_adds_up(kdump: KdumpRunner, world: Path) -> None:
    objs = _objs(_run(kdump, world).out)
    disks = {o["log_dir"]: o for o in objs if o["type"] == "retention_disk"}
    totals = {o["log_dir"]: o for o in objs
              if o["type"] == "retention_total" and o["scope"] == "log_dir"}
    assert sorted(disks) == ["a", "b", "c"]
    for ld, d in disks.items():
        assert d["bytes"] == _tree_bytes(world / ld), ld
        # allocated: what du says, the directories' own blocks included
        du = subprocess.run(["du", "-s", "-B1", str(world / ld)], capture_output=True,
                            text=True, check=True).stdout.split()[0]
        assert d["disk_bytes"] == int(du) == _tree_allocated(world / ld), ld
        assert d["files"] == sum(len(n) for _, _, n in os.walk(world / ld)), ld
        assert (d["segment_bytes"] + sum(d["leftover_bytes"].values())
                + sum(d["held_dir_bytes"].values()) + d["other_bytes"]) == d["bytes"], ld
        assert (d["segment_disk_bytes"] + sum(d["leftover_disk_bytes"].values())
                + sum(d["held_dir_disk_bytes"].values()) + d["other_disk_bytes"]
                ) == d["disk_bytes"], ld
        assert d["other_bytes"] == sum(d["other"].values()), ld
        assert d["other_disk_bytes"] == sum(d["other_disk"].values()), ld
        assert d["segment_bytes"] == (totals[ld]["bytes"] if ld in totals else 0), ld
        assert d["segment_disk_bytes"] == (totals[ld]["disk_bytes"] if ld in totals else 0), ld
    a = disks["a"]
    t0 = world / "a" / "t-0"
    assert a["leftover_bytes"] == {
        "cleaned": 300, "deleted": 1200, "swap": 200,
        "tmp": (t0 / "partition.metadata.tmp").stat().st_size
        + (world / "a" / "replication-offset-checkpoint.tmp").stat().st_size}
    assert a["held_dir_bytes"] == {"awaiting-deletion": _tree_bytes(world / "a" / GONE),
                                   "stray-replica": _tree_bytes(world / "a" / STRAY)}
    root_files = sum(f.stat().st_size for f in (world / "a").iterdir()
                     if f.is_file() and not f.name.endswith(".tmp"))
    snapshots = sum(f.stat().st_size for p in ("t-0", "t-1")
                    for f in (world / "a" / p).glob("*.snapshot"))
    cps = sum((world / "a" / p / n).stat().st_size for p in ("t-0", "t-1")
              for n in ("leader-epoch-checkpoint",))
    assert a["other"] == {k: v for k, v in {
        "log-dir-files": root_files, "producer-snapshots": snapshots,
        "partition-checkpoints": cps, "indexes-without-segment": 8}.items() if v}
    assert disks["b"]["held_dir_bytes"] == {
        "awaiting-deletion": _tree_bytes(world / "b" / f"t-0.{UID[::-1]}-delete"),
        "future-replica": _tree_bytes(world / "b" / FUTURE)}
    assert disks["c"]["segment_bytes"] == 0 and disks["c"]["held_dir_bytes"] == {
        "awaiting-deletion": _tree_bytes(world / "c" / f"x-0.{UID}-delete")}


def test_no_disk_row_for_a_log_dir_given_only_in_part(kdump: KdumpRunner, world: Path) -> None:
    """A partition given alone: the log dir's other partitions were not asked for."""
    objs = _objs(_run(kdump, world, paths=("a/t-0",)).out)
    assert [o for o in objs if o["type"] in ("retention_disk", "retention_held_dir")] == []
    assert any(o["type"] == "retention_partition" for o in objs)


def test_text_and_table(kdump: KdumpRunner, world: Path) -> None:
    objs = _objs(_run(kdump, world).out)
    d = next(o for o in objs if o["type"] == "retention_disk" and o["log_dir"] == "c")
    gone = next(o for o in objs if o.get("directory") == f"c/x-0.{UID}-delete")
    text = _run(kdump, world, fmt="text").out.splitlines()
    from kdump.render.common import iso_ms
    from kdump.render.retention import both
    from kdump.render.rows import human

    i = text.index(f"held dir x-0.{UID}-delete (broker 2): "
                   f"{both(gone['disk_bytes'], gone['bytes'])} in "
                   f"{gone['files']} files, awaiting-deletion; deleted by the broker no "
                   f"earlier than {iso_ms(gone['earliest_deletion'])}")
    assert text[i + 1] == "    " + gone["detail"]
    assert text[i + 2] == (f"on disk c (broker 2): {human(d['disk_bytes'])} "
                           f"({human(d['bytes'])} apparent) in {d['files']} "
                           f"files = segments judged 0 B + awaiting-deletion dirs "
                           f"{human(d['held_dir_disk_bytes']['awaiting-deletion'])} + other "
                           f"{human(d['other_disk_bytes'])} (other: directories "
                           f"{human(d['other_disk']['directories'])}, log-dir-files "
                           f"{human(d['other_disk']['log-dir-files'])})")
    assert text[i + 3:i + 5] == ["    log-dir-files: the log dir's own files: offset "
                                 "checkpoints, meta.properties, .lock",
                                 "    directories: the directories' own blocks (du counts "
                                 "them; ls shows no size)"]
    a = next(k for k, x in enumerate(text) if x.startswith("on disk a (broker 1): "))
    assert text[a + 1:a + 6] == [
        "    cleaned files: the log cleaner's output being written: deleted at the next start "
        "(LogLoader)",
        "    deleted files: a segment's files renamed for deletion (LocalLog.deleteSegmentFiles):"
        " gone file.delete.delay.ms after the rename, or at the next start (LogLoader; a KRaft "
        "snapshot's: KafkaMetadataLog.recoverSnapshots)",
        "    swap files: cleaned output about to replace its segments: renamed into place at the "
        "next start (LogLoader), the segments it replaces deleted",
        "    tmp files: a checkpoint written before its atomic rename: overwritten by the next "
        "write of that file, never deleted by Kafka",
        "    log-dir-files: the log dir's own files: offset checkpoints, meta.properties, .lock"]
    assert f"held dir {STRAY} (broker 1): " in "\n".join(text)
    assert any(x.startswith(f"held dir {STRAY} ") and x.endswith("stray-replica; never "
                                                                 "deleted by the broker")
               for x in text)
    assert any(x.startswith(f"held dir {FUTURE} ") and x.endswith(
        "future-replica; the current replica a/t-1 holds the same bytes") for x in text)
    t0 = next(x for x in text if x.startswith("t-0 (broker 1)"))
    assert t0.endswith("; .deleted files 1000 B; cleaned files 300 B; deleted files 1.2 KiB; "
                       "swap files 200 B; tmp files "
                       f"{human(len(w.partition_metadata(bytes(range(16)))))}")
    table = _run(kdump, world, fmt="table").out
    flat = " ".join(table.split())
    assert f"held dir x-0.{UID}-delete (broker 2):" in flat
    assert f"on disk c (broker 2): {human(d['disk_bytes'])}" in flat


def test_report_section_shows_them(kdump: KdumpRunner, world: Path, tmp_path: Path) -> None:
    r = kdump("report", "a", "b", "c", "--format", "json", cwd=world, watch=[world])
    objs = _objs(r.out)
    i = next(k for k, o in enumerate(objs) if o.get("name") == "retention")
    kinds = [o["type"] for o in objs[i + 1:]]
    assert kinds.count("retention_held_dir") == 5 and kinds.count("retention_disk") == 3
    out = tmp_path / "r.html"
    r = kdump("report", "a", "b", "c", "-o", str(out), cwd=world, watch=[world])
    assert r.rc in (0, 1), r.err
    page = out.read_text()
    section = page[page.index('id="retention"'):].replace("<wbr>", "")  # paths wrap at separators
    assert "Where the bytes are" in section and "Partition directories renamed aside" in section
    assert f"a/{STRAY}" in section and 'id="retention-held-dirs"' in section
    assert 'id="retention-disk"' in section
    # the chart counts the renamed-aside directories by what holds them
    assert "stray-replica" in section and "awaiting-deletion" in section
    from kdump.render.html import _size

    glance = page[page.index("At a glance"):page.index('<section id="custody">')]
    # what the disk holds: the files' blocks
    stray = sum((Path(p) / n).lstat().st_blocks * 512
                for p, _, names in os.walk(world / "a" / STRAY) for n in names)
    assert (f"{_size(stray)} in -stray partition directories, which no Kafka release "
            "deletes") in glance
    assert "held back from deletion" not in glance  # no segment held by a notable reason


def test_names_from_the_data_never_drive_the_terminal(tmp_path: Path) -> None:
    from tests.render.test_terminal_safety import FORBIDDEN, run_in_pty

    d = w.broker_logdir(tmp_path / "b1", 1)
    rf._partition(d / f"[bold]x\x1b]0;title\x07\u202e-0.{UID}-stray", [[rf._span(0, 3, NOW)]])
    for fmt in ("text", "table"):
        out = run_in_pty(["retention", "--format", fmt, "--now", str(NOW), "b1"], tmp_path)
        for bad in FORBIDDEN:
            assert bad not in out, (fmt, bad, out)
        assert "[bold]x\\x1b]0;title\\x07\\u202e" in out.decode("utf-8", "replace"), out


def test_a_log_dir_in_object_storage_says_the_same(kdump: KdumpRunner, world: Path,
                                                    s3env: Any) -> None:  # noqa: F811
    """The same log dir on a real S3 API (tests/support/s3server.py): the same rows, but for the
    files' times (the store's LastModified is the upload's) and their allocated bytes (a
    store keeps no block counts: null, and a note says so)."""
    url = s3env.upload(world / "a", "held/broker-1/a")
    times = ("last_modified", "earliest_deletion", "detail", "notes")

    def rows(path: str) -> list[dict[str, Any]]:
        r = kdump("retention", path, "--now", str(NOW), "--format", "json", cwd=world)
        return [{k: v for k, v in o.items() if k not in times and "disk" not in k}
                for o in _objs(r.out.replace(url, "a"))
                if o["type"] in ("retention_held_dir", "retention_disk",
                                 "retention_partition")]

    local = rows("a")
    assert [o["type"] for o in local].count("retention_held_dir") == 2
    assert rows(url) == local
    remote = _objs(kdump("retention", url, "--now", str(NOW), "--format", "json",
                         cwd=world).out)
    for o in remote:
        for k in o:
            if "disk" in k:
                assert o[k] is None, (o["type"], k)
    disk = next(o for o in remote if o["type"] == "retention_disk")
    assert disk["notes"][-1] == ("an object store keeps no block counts: disk_bytes is "
                                 "unknown (null); bytes is the objects' size")
    # the store's times are the upload's: none said, and no request per file for them
    r = kdump("retention", url, "--now", str(NOW), "--format", "json", cwd=world)
    gone = next(o for o in _objs(r.out) if o.get("directory", "").endswith(GONE))
    assert (gone["last_modified"], gone["earliest_deletion"]) == (None, None)
    assert gone["detail"].endswith(
        "; no file time known (an object store keeps the upload's time, not the broker's): "
        "no earliest deletion said")


def test_a_cut_topic_name_is_said(kdump: KdumpRunner, tmp_path: Path) -> None:
    """LocalLog.logDirNameWithSuffixCappedLength cuts the topic so the name fits 255."""
    d = w.broker_logdir(tmp_path / "b1", 1)
    name = "t" * (255 - len(f"-0.{UID}-delete")) + f"-0.{UID}-delete"
    assert len(name) == 255
    rf._partition(d / name, [[rf._span(0, 3, NOW)]])
    short = f"short-0.{UID}-delete"
    rf._partition(d / short, [[rf._span(0, 3, NOW)]])
    r = kdump("retention", "b1", "--now", str(NOW), "--format", "json", cwd=tmp_path)
    held = {o["directory"]: o for o in _objs(r.out) if o["type"] == "retention_held_dir"}
    assert held[f"b1/{name}"]["detail"].endswith(
        "; the directory's name is 255 characters long: the topic name in it may be cut short "
        "(LocalLog.logDirNameWithSuffixCappedLength)")
    assert "cut short" not in held[f"b1/{short}"]["detail"]


def test_report_section_in_a_real_browser(world: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's retention section in Chromium, JavaScript on and off: the chart's bars
    for what lies outside the judged segments, a row per renamed-aside directory, a row
    per log dir whose columns add up; no console error, no request."""
    browser = pytest.importorskip("tests.support.browser")
    browser.require_chromium()
    import io

    from kdump.ops import report as report_op
    from kdump.render.html import HtmlReportRenderer

    monkeypatch.setattr(report_op.time, "time", lambda: NOW / 1000)
    out = tmp_path / "r.html"
    r = HtmlReportRenderer(io.StringIO(), io.StringIO(), output=str(out))
    for item in report_op.report([str(world / ld) for ld in ("a", "b", "c")],
                                 report_op.ReportOptions()):
        r.emit(item)
    r.close()
    for js in (True, False):
        with browser.Browser(javascript=js) as b:
            page = b.open(out.as_uri())
            assert page.console_errors == []
            assert page.requests == [out.as_uri()]
            section = page.dom[page.dom.index('<section id="retention">'):]
            for bar in ("awaiting-deletion", "future-replica", "stray-replica",
                        "leftover files"):
                assert f">{bar}<" in section, bar
            held = page.evaluate(
                "Array.from(document.querySelectorAll('#retention-held-dirs tbody tr'), "
                "r => r.cells[0].textContent.split('/').pop() + ' ' + r.cells[4].textContent)")
            assert sorted(held) == sorted([
                f"{GONE} awaiting-deletion", f"{STRAY} stray-replica",
                f"{FUTURE} future-replica", f"t-0.{UID[::-1]}-delete awaiting-deletion",
                f"x-0.{UID}-delete awaiting-deletion"])
            disks = page.evaluate(
                "Array.from(document.querySelectorAll('#retention-disk tbody tr'), "
                "r => Array.from(r.cells).slice(2, 9).map(c => Number(c.dataset.v)))")
            # on disk (du) = segments + leftover files + -delete + -future + -stray + other
            assert sorted(d[0] for d in disks) == sorted(_tree_allocated(world / ld)
                                                         for ld in ("a", "b", "c"))
            assert all(d[0] == sum(d[1:]) for d in disks), disks
