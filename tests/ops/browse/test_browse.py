"""``kdump browse`` (issue 43): the data from the core (kdump/ops/browse), the screens
driven by Textual's pilot on the sample and on damaged copies, screenshots compared
with committed SVGs (pytest-textual-snapshot) and one run in a real terminal (tmux)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")  # the tui extra: in the test extra, so CI always has it

from kdump.ops.browse import (
    PartitionView,
    browse_tree,
    hex_model,
    locate_single_bit,
    partition_findings,
)
from kdump.ops.browse.partition import ROW_CHUNK
from kdump.tui.app import BrowseApp, HexScreen, PartitionScreen, TreeScreen
from tests.conftest import subprocess_env
from tests.support import writer as w
from tests.support.pilot import until
from tests.support.terminal import Terminal
from tests.support.tools import require_tool

SEG = "00000000000000000000.log"
ROOT = Path(__file__).resolve().parents[3]


def positions(data: bytes) -> list[tuple[int, int]]:
    """(position, size) of each entry of a log, framed by the encoder's own walker."""
    out, pos = [], 0
    for e in w._iter_entries(data):
        out.append((pos, e.size))
        pos += e.size
    return out


@pytest.fixture
def damaged(sample_dir: Path, tmp_path: Path) -> dict[str, Any]:
    """The sample with one flipped bit in orders-0's fourth batch (crc-mismatch) and
    40 bytes of garbage over orders-1's third entry's header (bad-magic)."""
    d = tmp_path / "logdir"
    shutil.copytree(sample_dir, d)
    log0 = d / "orders-0" / SEG
    data = bytearray(log0.read_bytes())
    pos0, size0 = positions(bytes(data))[3]
    data[pos0 + size0 - 5] ^= 0x04
    log0.write_bytes(bytes(data))
    log1 = d / "orders-1" / SEG
    data = bytearray(log1.read_bytes())
    pos1, size1 = positions(bytes(data))[2]
    data[pos1:pos1 + 40] = bytes(range(100, 140))
    log1.write_bytes(bytes(data))
    return {"dir": d, "flip": (pos0, size0), "garbage": (pos1, size1)}


@pytest.fixture
def evil(tmp_path: Path) -> Path:
    """A partition whose keys, values and headers hold terminal escapes and Textual markup."""
    d = tmp_path / "evil" / "evil-0"
    d.mkdir(parents=True)
    recs = [w.Rec(key=b"\x1b[2Jwiped", value=b"[bold]markup[/] \x1b]0;title\x07",
                  headers=[("h[red]x[/]", "\u009b31m".encode())], timestamp=w.TS0),
            w.Rec(key=b"[link=http://x]k[/link]", value=b"\xe2\x80\xaeevil", timestamp=w.TS0 + 1),
            w.Rec(key=b"big", value=b"v" * 100_000, timestamp=w.TS0 + 2)]
    (d / SEG).write_bytes(w.v2_batch(recs))
    named = d.parent / "ev\x1b]0;t\x07[b]il-0"  # a directory name is data too
    named.mkdir()
    (named / SEG).write_bytes(w.v2_batch(recs[:1]))
    return d.parent


async def settle(app: BrowseApp, pilot: Any) -> None:
    await until(pilot, app.checked.is_set, "the log dirs checked")
    await pilot.pause()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def label_of(app: BrowseApp, name: str) -> str:
    screen = app.tree_screen
    for ld in app.logdirs:
        for p in ld.partitions:
            if p.name == name:
                return str(screen.leaves[id(p)].label)
    raise KeyError(name)


# --- the core ----------------------------------------------------------------------
def test_tree_of_the_sample(sample_dir: Path) -> None:
    [ld] = browse_tree([str(sample_dir)])
    assert (ld.path, ld.broker_id) == (str(sample_dir), 1)
    assert [(t.name, [p.partition for p in t.partitions]) for t in ld.topics] == [
        ("customers", [0]), ("orders", [0, 1])]
    o0 = ld.topics[1].partitions[0]
    assert [s.base_offset for s in o0.segments] == [0, 50, 120]
    assert o0.disk_bytes == sum(os.lstat(p).st_blocks * 512 for p in
                                (sample_dir / "orders-0").iterdir())
    f = partition_findings(o0)
    assert (f.records, f.by_severity) == (162, {"error": 0, "warning": 0, "info": 0})


def test_a_sparse_preallocated_index_takes_no_disk_bytes(sample_dir: Path,
                                                         tmp_path: Path) -> None:
    """A running broker's active segment has 10 MiB .index/.timeindex files set by length
    and never written (sparse): the tree counts what the disk holds, as du does."""
    import shutil

    ld = tmp_path / "ld"
    shutil.copytree(sample_dir, ld)
    d = ld / "customers-0"
    before = browse_tree([str(ld)])[0].topics[0].partitions[0].disk_bytes
    with open(d / "00000000000000000099.index", "wb") as f:
        f.truncate(10 << 20)
    (d / "00000000000000000099.log").write_bytes(b"")
    assert (d / "00000000000000000099.index").stat().st_blocks == 0
    after = browse_tree([str(ld)])[0].topics[0].partitions[0].disk_bytes
    assert after == before


def test_findings_of_a_damaged_partition_in_offset_order(damaged: dict[str, Any]) -> None:
    [ld] = browse_tree([str(damaged["dir"])])
    o0, o1 = ld.topics[1].partitions
    f0 = partition_findings(o0)
    assert [(p.kind, p.position) for p in f0.findings] == [("crc-mismatch", damaged["flip"][0])]
    f1 = partition_findings(o1)
    # the garbage stands where a batch was: its offsets are lost too (issue 46: a gap
    # between batches of a delete-policy topic is data-lost, named by the verdict)
    assert [(p.kind, p.position, p.length) for p in f1.findings] == [
        ("bad-magic", damaged["garbage"][0], damaged["garbage"][1]), ("data-lost", None, None)]
    assert f1.by_severity["error"] == 2


def test_rows_and_hex_of_damage(damaged: dict[str, Any]) -> None:
    [ld] = browse_tree([str(damaged["dir"])])
    o0, o1 = ld.topics[1].partitions
    v = PartitionView(o0)
    rows, _ = v.read_rows(0)
    pos, size = damaged["flip"]
    bad = next(r for r in rows if r.position == pos)
    assert (bad.crc_state, bad.size) == ("BAD", size)
    m = hex_model(v, bad)
    assert [f.name for f in m.fields] == [
        "baseOffset", "batchLength", "partitionLeaderEpoch", "magic", "crc", "attributes",
        "lastOffsetDelta", "baseTimestamp", "maxTimestamp", "producerId", "producerEpoch",
        "baseSequence", "recordsCount"]
    assert (m.records_start, m.bad) == (61, size - 5)
    assert f"byte {size - 5} of the batch (file byte {pos + size - 5}), bit 2" in m.bad_why
    v.close()
    v = PartitionView(o1)
    rows, _ = v.read_rows(0)
    gpos, gsize = damaged["garbage"]
    region = next(r for r in rows if r.position == gpos)
    assert (region.crc_state, region.size) == ("bad-magic", gsize)
    m = hex_model(v, region)
    assert m.data == (damaged["dir"] / "orders-1" / SEG).read_bytes()[gpos:gpos + gsize]
    assert m.bad == 16 and m.bad_why.startswith("bad-magic: magic byte 116 is not 0, 1 or 2")
    v.close()


def test_a_legacy_message_flipped_bit(sample_dir: Path, tmp_path: Path) -> None:
    """orders-1 begins with magic 0 messages: fields named as LegacyRecord names them,
    the flipped bit found by CRC-32 (IEEE) over magic .. end."""
    d = tmp_path / "logdir"
    shutil.copytree(sample_dir, d)
    log = d / "orders-1" / SEG
    data = bytearray(log.read_bytes())
    pos, size = positions(bytes(data))[4]  # a gzip wrapper
    data[pos + size - 3] ^= 0x80
    log.write_bytes(bytes(data))
    [ld] = browse_tree([str(d)])
    v = PartitionView(ld.topics[1].partitions[1])
    row = next(r for r in v.read_rows(0)[0] if r.position == pos)
    assert (row.magic, row.codec, row.crc_state) == (0, "gzip", "BAD")
    m = hex_model(v, row)
    assert [(f.name, f.start, f.end) for f in m.fields] == [
        ("offset", 0, 8), ("size", 8, 12), ("crc", 12, 16), ("magic", 16, 17),
        ("attributes", 17, 18)]
    assert m.fields[-1].value == "0x01"
    assert m.bad == size - 3 and "bit 7, in the records area" in m.bad_why
    v.close()


def test_single_bit_located_for_both_checksums() -> None:
    from kdump.checksums import crc32, crc32c
    from kdump.ops.browse.hexview import POLY_CRC32, POLY_CRC32C

    data = bytes(range(256)) * 9
    for fn, poly in ((crc32c, POLY_CRC32C), (crc32, POLY_CRC32)):
        stored = fn(data)
        for j, k in ((0, 0), (1000, 7), (len(data) - 1, 3)):
            bad = bytearray(data)
            bad[j] ^= 1 << k
            assert locate_single_bit(bytes(bad), stored, poly) == (j, k)
        two = bytearray(data)
        two[5] ^= 1
        two[900] ^= 0x40
        assert locate_single_bit(bytes(two), stored, poly) is None
        assert locate_single_bit(data, stored, poly) is None


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One 64 MiB segment (records of 100 keys k<offset>, +1 ms each) with its indexes."""
    root = tmp_path_factory.mktemp("big")
    w.big_segment(root / "big-0", 64 << 20)
    return root


@pytest.mark.slow
def test_opening_a_large_segment_reads_kilobytes(big: Path) -> None:
    [ld] = browse_tree([str(big)])
    [p] = ld.partitions
    v = PartitionView(p)
    rows, nxt = v.read_rows(0)
    assert len(rows) == 200 and nxt == rows[-1].end
    # a page of rows reads its batches (their CRCs are checked) and no more than the
    # reader's windows past them
    assert v.bytes_read <= rows[-1].end + 3 * ROW_CHUNK
    j = v.find_offset(600_000)
    start = v.earlier_start(0, j.position or 0)
    above, _ = v.read_rows(0, start, limit=1 << 30, stop=j.position)
    after, _ = v.read_rows(0, j.position or 0)
    assert j.found and after[0].holds(600_000) and 0 < len(above) < 100
    assert (j.position or 0) > 40 << 20
    assert v.bytes_read < 4 << 20  # of a 64 MiB segment: two pages and the way back
    v.close()


@pytest.mark.slow
def test_the_interface_on_a_large_segment_stays_lazy(big: Path) -> None:
    async def go() -> None:
        app = BrowseApp([str(big)], check=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("slash", *"big", "enter")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            # lazy: a page of a 64 MiB segment read, not the segment (what is read, never
            # how long it took: the machine may be busy with other work)
            assert scr.view.bytes_read < 2 << 20
            await pilot.press("g", *"600123", "enter")
            await pilot.pause()
            row = scr.current()
            assert row is not None and row.holds(600_123)
            assert scr.records[scr.query_one("#records").cursor_row].key == "k600123"  # type: ignore[attr-defined]
            await pilot.press("pageup", "up", "up")  # a few rows above: read back, not from 0
            await pilot.pause()
            assert scr.view.bytes_read < 4 << 20
    run(go())


# --- the screens (pilot) --------------------------------------------------------------
def test_tree_counts_filter_and_enter(damaged: dict[str, Any]) -> None:
    async def go() -> None:
        app = BrowseApp([str(damaged["dir"])])
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            assert label_of(app, "orders-0").endswith("157 records  1 error")
            assert label_of(app, "orders-1").endswith("70 records  2 errors")
            assert label_of(app, "customers-0").endswith("34 records  1 info")
            topics = {t.name: str(app.tree_screen.topics[id(t)].label)
                      for t in app.logdirs[0].topics}
            assert topics["orders"].startswith("orders  2 partitions  ")
            assert topics["orders"].endswith("227 records  3 errors")
            assert topics["customers"].endswith("34 records  1 info")
            await pilot.press("slash", *"ders-1", "enter")
            await pilot.pause()
            assert isinstance(app.screen, PartitionScreen) and app.screen.node.name == "orders-1"
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TreeScreen)
            await pilot.press("q")
        assert app.return_code == 0
    run(go())


def test_offset_and_time_jumps_land_on_batch_and_record(sample_dir: Path) -> None:
    [ld] = browse_tree([str(sample_dir)])
    v = PartitionView(ld.topics[1].partitions[0])
    target = next(r for row in v.read_rows(1)[0] for r in v.records(row).records
                  if r.offset == 77)
    v.close()

    async def go() -> None:
        app = BrowseApp([str(sample_dir)], check=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("slash", *"orders-0", "enter")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            await pilot.press("g", "4", "0", "enter")
            await pilot.pause()
            row = scr.current()
            assert row is not None and row.holds(40) and scr.seg == 0
            recs = scr.query_one("#records")
            assert scr.records[recs.cursor_row].offset == 40  # type: ignore[attr-defined]
            assert "offset 40: record at offset 40" in str(scr.query_one("#status").render())
            await pilot.press("t", *str(target.timestamp), "enter")
            await pilot.pause()
            row = scr.current()
            assert row is not None and row.holds(77) and scr.seg == 1
            assert scr.records[recs.cursor_row].offset == 77  # type: ignore[attr-defined]
            assert scr.records[recs.cursor_row].key == target.key  # type: ignore[attr-defined]
            await pilot.press("g", *"99999", "enter")
            await pilot.pause()
            assert "offset 99999: above the log end (nearest below: 161)" in str(
                scr.query_one("#status").render())
    run(go())


def test_findings_next_previous_and_bytes(damaged: dict[str, Any]) -> None:
    async def go() -> None:
        app = BrowseApp([str(damaged["dir"])])
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            await pilot.press("slash", *"orders-1", "enter")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            await pilot.press("n")
            await pilot.pause()
            row = scr.current()
            assert row is not None and row.position == damaged["garbage"][0]
            status = str(scr.query_one("#status").render())
            assert status.startswith(f"finding 1/2: bad-magic (error) byte {damaged['garbage'][0]}")
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, HexScreen)
            text = app.screen.text.plain
            assert "first bad byte: 16 (file byte" in text and " !74 " in text
            await pilot.press("escape", "escape")
            await pilot.pause()
            await pilot.press("slash", *"orders-0", "enter")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            await pilot.press("N")
            await pilot.pause()
            row = scr.current()
            assert row is not None and row.position == damaged["flip"][0]
            assert "crc-mismatch (error)" in str(scr.query_one("#status").render())
            await pilot.press("x")
            await pilot.pause()
            text = app.screen.text.plain  # type: ignore[attr-defined]
            for name in ("baseOffset", "batchLength", "partitionLeaderEpoch", "magic", "crc",
                         "attributes", "recordsCount", "records area"):
                assert name in text
            size = damaged["flip"][1]
            assert f"first bad byte: {size - 5} " in text and "one flipped bit" in text
            assert text.count("!") >= 1
    run(go())


def test_a_large_terminal_shows_every_column(damaged: dict[str, Any]) -> None:
    async def go() -> None:
        app = BrowseApp([str(damaged["dir"])], check=False)
        async with app.run_test(size=(200, 60)) as pilot:
            await pilot.press("slash", *"orders-0", "enter", "n")
            await pilot.pause()
            svg = app.export_screenshot().replace("&#160;", " ")
            for column in ("position", "offsets", "crc", "recs", "size", "codec", "max time",
                           "producer", "txn/ctl", "headers"):
                assert column in svg
            assert "2023-11-14T22:13:23.040Z" in svg and "BAD" in svg
            assert "source=web, trace-id=t-00000f, retry=null" in svg
            await pilot.press("escape", "question_mark")
            await pilot.pause()
            assert "next / previous finding" in app.export_screenshot().replace("&#160;", " ")
            await pilot.press("q")
        assert app.return_code == 0
    run(go())


def test_findings_of_a_large_partition_read_in_the_background(
        damaged: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    import kdump.tui.partition as tui_partition

    monkeypatch.setattr(tui_partition, "SYNC_CHECK_BYTES", 0)

    async def go() -> None:
        app = BrowseApp([str(damaged["dir"])], check=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("slash", *"orders-0", "enter", "n")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            await until(pilot, lambda: "finding 1/1" in str(scr.query_one("#status").render()),
                        "finding 1/1")
            assert "finding 1/1: crc-mismatch (error)" in str(scr.query_one("#status").render())
            row = scr.current()
            assert row is not None and row.position == damaged["flip"][0]
            assert label_of(app, "orders-0").endswith("157 records  1 error")
    run(go())


def test_data_is_inert(evil: Path) -> None:
    async def go() -> None:
        app = BrowseApp([str(evil)], check=False)
        async with app.run_test(size=(120, 30)) as pilot:
            assert label_of(app, "ev\x1b]0;t\x07[b]il-0").startswith(
                "ev\\x1b]0;t\\x07[b]il-0  ")
            await pilot.press("slash", *"evil", "enter")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            cells = [str(c) for c in scr.query_one("#records").get_row_at(0)]  # type: ignore[attr-defined]
            assert cells[1] == "\\x1b[2Jwiped"
            assert cells[2] == "[bold]markup[/] \\x1b]0;title\\x07"
            assert cells[4] == "h[red]x[/]=\\x9b31m"
            cells = [str(c) for c in scr.query_one("#records").get_row_at(1)]  # type: ignore[attr-defined]
            assert cells[1:3] == ["[link=http://x]k[/link]", "\\u202eevil"]
            cells = [str(c) for c in scr.query_one("#records").get_row_at(2)]  # type: ignore[attr-defined]
            assert cells[2] == "v" * 200 + "…"  # a table cell is cut; Enter shows it
            svg = app.export_screenshot()
            assert "[bold]markup[/]" in svg.replace("&#160;", " ")
            assert "\x1b" not in svg
    run(go())


# --- snapshots (SVGs in tests/ops/browse/__snapshots__) -------------------------------------------
def _stable(monkeypatch: pytest.MonkeyPatch, d: Path) -> str:
    """Paths shown relative, so the screenshots do not hold the temporary directory."""
    monkeypatch.chdir(d.parent)
    return d.name


def test_snapshot_tree(snap_compare: Any, damaged: dict[str, Any],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    import kdump.ops.browse.tree as tree

    # disk bytes are st_blocks, which depend on the file system the test runs on: the
    # screenshot shows the files' lengths instead (test_tree_of_the_sample checks blocks)
    monkeypatch.setattr(tree, "_disk_bytes", lambda p: os.stat(p).st_size)
    app = BrowseApp([_stable(monkeypatch, damaged["dir"])])

    async def wait(pilot: Any) -> None:
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=wait)


def test_snapshot_partition_and_finding(snap_compare: Any, damaged: dict[str, Any],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    app = BrowseApp([_stable(monkeypatch, damaged["dir"])], check=False)
    assert snap_compare(app, terminal_size=(80, 24),
                        press=["slash", *"orders-0", "enter", "n"])


def test_snapshot_hex(snap_compare: Any, damaged: dict[str, Any],
                      monkeypatch: pytest.MonkeyPatch) -> None:
    app = BrowseApp([_stable(monkeypatch, damaged["dir"])], check=False)
    assert snap_compare(app, terminal_size=(80, 24),
                        press=["slash", *"orders-0", "enter", "n", "x"])


# --- the command line and a real terminal ------------------------------------------------
def test_without_textual_says_how_to_install(sample_dir: Path) -> None:
    code = ("import sys; sys.modules['textual'] = None\n"
            "from kdump.cli import main\nmain(['browse', sys.argv[1]])\n")
    p = subprocess.run([sys.executable, "-c", code, str(sample_dir)], capture_output=True,
                       text=True, env=subprocess_env(), timeout=60)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == "kdump: kdump browse needs Textual: pip install 'kdump[tui]'\n"


def test_without_a_terminal_exit_2(sample_dir: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "kdump", "browse", str(sample_dir)],
                       capture_output=True, text=True, env=subprocess_env(), timeout=60,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and "needs a terminal" in p.stderr


TMUX = shutil.which("tmux")


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_in_a_real_terminal(damaged: dict[str, Any], tmp_path: Path,
                            size: tuple[int, int]) -> None:
    require_tool("tmux", TMUX, ".ci/run installs Debian's tmux package")
    t = Terminal("browse", size)
    keys, pane, wait_for = t.keys, t.pane, t.wait_for
    try:
        wait_for("READY$")
        keys(f"{sys.executable} -m kdump browse {damaged['dir']}; echo EXIT=$?", "Enter")
        screen = wait_for("70 records  2 errors")
        assert "157 records  1 error" in screen and "34 records  1 info" in screen
        assert "3 partitions" in screen
        keys("/", *"orders-1", "Enter", "n")  # one burst, as a person typing fast over SSH
        screen = wait_for("finding 1/2: bad-magic (error)")
        assert "orders-1" in screen.splitlines()[0]
        keys("x")
        screen = wait_for("first bad byte: 16")
        assert "magic?" in screen and "!74" in screen
        # an Escape and the key after it in one burst read as Alt+key (as in any
        # terminal program): a pause after each Escape
        keys("Escape")
        wait_for("esc Back  g Offset")
        keys("?")
        screen = wait_for("next / previous finding")
        keys("Escape")
        end = time.monotonic() + 30
        while "next / previous finding" in pane() and time.monotonic() < end:
            time.sleep(0.2)
        keys("T")  # the partition's timeline: its replica's events, the footer whole
        screen = wait_for("(Enter on a batch's event: the batch)")
        assert "orders-1  timeline:" in screen and "epoch-start" in screen
        assert screen.rstrip().splitlines()[-1].strip() == "esc Back  q Quit  ? Keys"
        keys("Escape")
        wait_for("esc Back  g Offset")
        keys("q")
        screen = wait_for("EXIT=0\nREADY$")  # the exit code, then the prompt (two writes)
        assert screen.rstrip().endswith("READY$")  # the shell's prompt again: restored
        assert "kdump browse: log dirs" not in screen
    finally:
        t.close()


def test_a_bad_config_is_exit_2_before_the_screen(sample_dir: Path) -> None:
    """browse (and report) take --config as verify-crc does (partitions judged with the
    same cleanup policies); a bad one is the usage error verify-crc gives, exit 2, one
    line."""
    for command in ("browse", "verify-crc", "report"):
        p = subprocess.run([sys.executable, "-m", "kdump", command, str(sample_dir),
                            "--config", "t:retention.ms=1"], capture_output=True, text=True,
                           env=subprocess_env(), timeout=60, stdin=subprocess.DEVNULL)
        assert (p.returncode, p.stdout) == (2, ""), command
        assert p.stderr == ("kdump: --config t:retention.ms: only cleanup.policy is read "
                            "here\n"), command
