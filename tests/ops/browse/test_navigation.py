"""``kdump browse``, issue 47: no digit cut (columns sized from the rows in view, checked
against ``find-offset`` after jumps across a partition whose positions and offsets take
9 and 10 digits), read errors said in the interface (a vanished segment, a partition
directory that cannot be listed), a tree that tells the truth (unreadable partitions,
unplaced files, the scope of a segment given, an empty state), the navigation keys and
the exits (0 only when the user quits; an internal error: one line, exit 2)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")

from kdump.files.logdir import Listing
from kdump.ops.browse import PartitionView, browse_tree, hex_model, partition_findings
from kdump.ops.browse.hexview import LOCATE_LIMIT
from kdump.ops.find import find_offset
from kdump.ops.verify_crc import VerifyOptions, verify_crc
from kdump.tui.app import BrowseApp, PartitionScreen, TreeScreen
from kdump.tui.widgets import DetailScreen
from tests.ops.browse.test_browse import damaged, label_of, positions, settle  # noqa: F401
from tests.support import writer as w
from tests.support.pilot import until
from tests.support.segments import PartitionWriter
from tests.support.terminal import Terminal
from tests.support.tools import require_tool

SEG = "00000000000000000000.log"
ROOT = Path(__file__).resolve().parents[3]
#: the first offset of the wide partition's last stretch (10 digits)
FAR = 1_000_000_000


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log dir with one partition ``wide-0``: 300 small batches (positions of up to 5
    digits, offsets of 3), seven 15 MiB batches, then 300 batches at offsets 1,000,000,000
    and up, at positions of 9 digits, keys ``legacy-<offset>``: about 105 MiB written."""
    root = tmp_path_factory.mktemp("wide") / "ld"
    pw = PartitionWriter(root / "wide-0", segment_bytes=(1 << 31) - (1 << 25))
    off = 0
    for _ in range(300):
        pw.append(w.v2_batch([w.Rec(key=b"k%d" % o, value=b"v", timestamp=w.TS0 + o)
                              for o in (off, off + 1)], base_offset=off))
        off += 2
    for _ in range(7):
        pw.append(w.v2_batch([w.Rec(key=b"pad", value=bytes(15 << 20), timestamp=w.TS0 + off)],
                             base_offset=off))
        off += 1
    off = FAR
    for _ in range(300):
        pw.append(w.v2_batch([w.Rec(key=b"legacy-%d" % o, value=b"value-%d" % o,
                                    timestamp=w.TS0 + o) for o in (off, off + 1)],
                             base_offset=off))
        off += 2
    pw.close()
    return root


def visible_lines(table: Any) -> list[str]:
    """The lines the table draws now (header first), as a terminal would show them."""
    return [table.render_line(y).text for y in range(table.size.height)]


def status(scr: Any) -> str:
    return str(scr.query_one("#status").render())


def check_rows_in_view(scr: PartitionScreen, path: str) -> int:
    """Every batch row in view shows its position and offsets whole, and they are where
    find-offset finds the batch's first offset; the records in view show offset and key
    whole.  The number of rows checked."""
    table = scr.query_one("#batches")
    lines = visible_lines(table)
    top = int(table.scroll_y)
    checked = 0
    for k, line in enumerate(lines[1:]):
        i = top + k
        if i >= len(scr.rows):
            break
        row = scr.rows[i]
        cells = line.split()
        assert cells[:2] == [str(row.position), row.offsets], line
        res = find_offset(path, row.base_offset or 0)
        assert res.found and res.position == row.position
        checked += 1
    recs = scr.query_one("#records")
    for k, line in enumerate(visible_lines(recs)[1:]):
        if k >= len(scr.records):
            break
        r = scr.records[int(recs.scroll_y) + k]
        assert line.split()[:2] == [str(r.offset), r.key], line
    return checked


# --- no digit cut ------------------------------------------------------------------------
def test_widths_after_jumps_across_a_large_partition(wide: Path) -> None:
    """Before: after ``g``, the tables kept the first page's widths (110133459 shown as
    11013345, 1000000100-1000000101 as 1000000)."""
    path = str(wide / "wide-0")

    async def go() -> None:
        app = BrowseApp([str(wide)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)  # one partition given: opened
            assert check_rows_in_view(scr, path) >= 5
            for keys in (["g", *str(FAR + 100), "enter"], ["home"], ["G"],
                         ["g", *"417", "enter"], ["end"], ["g", "g"],
                         ["g", *str(FAR + 598), "enter"]):
                await pilot.press(*keys)
                assert check_rows_in_view(scr, path) >= 1, keys  # drawn before idle too
                await pilot.pause()
                assert check_rows_in_view(scr, path) >= 1, keys
            assert scr.current() is not None and scr.current().holds(FAR + 598)  # type: ignore[union-attr]
            assert scr.records[scr.query_one("#records").cursor_row].key == \
                f"legacy-{FAR + 598}"  # type: ignore[attr-defined]
    run(go())


def test_last_batch_and_past_the_end(wide: Path) -> None:
    path = str(wide / "wide-0")
    [ld] = browse_tree([str(wide)])
    v = PartitionView(ld.partitions[0])
    last = v.last_position(0)
    end = os.path.getsize(os.path.join(path, SEG))
    assert last == end - 141  # the last batch: 2 records of 141 bytes together
    assert v.bytes_read < 1 << 20  # from the offset index entry near the end
    v.close()

    async def go() -> None:
        app = BrowseApp([str(wide)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            await pilot.press("end")
            await pilot.pause()
            assert scr.current().position == last  # type: ignore[union-attr]
            title = str(scr.query_one("#batches").border_title)
            assert title.startswith("» batches: batch ~") and title.endswith(", 100%")
            await pilot.press("home")
            await pilot.pause()
            assert scr.current().position == 0  # type: ignore[union-attr]
            assert str(scr.query_one("#batches").border_title) == \
                "» batches: batch 1 of ~1,304,544, 0%"  # estimated from 81-byte batches
            await pilot.press("g", *str(FAR * 5), "enter")
            await pilot.pause()
            assert scr.current().position == last  # type: ignore[union-attr]
            assert status(scr) == (f"offset {FAR * 5}: above the log end (nearest below: "
                                   f"{FAR + 599}); the last batch selected")
    run(go())


# --- read errors -------------------------------------------------------------------------
def test_a_vanished_segment_is_a_message_not_a_traceback(sample_dir: Path,
                                                          tmp_path: Path) -> None:
    d = tmp_path / "ld"
    shutil.copytree(sample_dir, d)
    gone = d / "orders-0" / "00000000000000000050.log"

    async def go() -> None:
        app = BrowseApp([str(d)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("slash", *"orders-0", "enter")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            gone.unlink()  # retention deleted it on a live broker
            await pilot.press("shift+tab")  # the segments pane
            await pilot.pause()
            assert str(scr.query_one("#segments").border_title) == "» segments (3)"
            await pilot.press("down", "enter")
            await pilot.pause()
            assert scr.seg == 1 and len(scr.rows) == 1
            row = scr.rows[0]
            assert row.problem is not None and row.problem.kind == "unreadable-file"
            assert row.problem.path == str(gone)
            seg0 = (d / "orders-0" / SEG).stat().st_size
            total = seg0 + sum(s.size for s in scr.view.segments[1:])
            assert str(scr.query_one("#batches").border_title) == \
                f"» batches: byte {seg0:,} of the partition's {total:,}"
            await pilot.press("x")  # its bytes: said, not raised
            await pilot.pause()
            assert isinstance(app.screen, PartitionScreen)
            assert status(scr).startswith("the batch's bytes cannot be read: ")
            await pilot.press("enter")  # the finding in full
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen)
            assert f"file {gone}" in app.screen.text.plain
            assert "unreadable-file (error)" in app.screen.text.plain
            await pilot.press("escape", "n")  # its findings: read again, said
            await pilot.pause()
            assert status(scr).startswith("finding 1/6: orphan-index (warning) in "
                                          "00000000000000000050.index: no .log beside it")
            await pilot.press("q")
        assert app.return_code == 0 and app.failure is None
    run(go())


@pytest.mark.parametrize("how", ["chmod", "listing"])
def test_an_unlistable_partition_is_a_row_with_its_finding(
        damaged: dict[str, Any], monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        how: str) -> None:
    """chmod 000 where it binds; it does not stop root (as the tests usually run): there
    the directory's listing fails through the walker's own error path instead
    (Listing.listdir raising EACCES, as the system call would)."""
    locked = str(damaged["dir"] / "orders-1")
    if how == "chmod":
        if os.geteuid() == 0:
            pytest.skip("root lists a chmod 000 directory: the 'listing' case stands for it")
        os.chmod(locked, 0)
        request_cleanup = locked
    else:
        request_cleanup = None
        listdir = Listing.listdir

        def deny(self: Listing, path: str) -> list[str]:
            if os.path.normpath(path) == locked:
                raise PermissionError(13, "Permission denied", path)
            return listdir(self, path)

        monkeypatch.setattr(Listing, "listdir", deny)
    try:
        _unlistable(damaged, locked)
    finally:
        if request_cleanup is not None:
            os.chmod(request_cleanup, 0o755)


def _unlistable(damaged: dict[str, Any], locked: str) -> None:  # noqa: F811
    crc = [p for p in verify_crc([str(damaged["dir"])], VerifyOptions(), jobs=1)
           if getattr(p, "path", None) == locked]
    assert [(p.kind, p.detail) for p in crc] == [("unreadable-file",  # type: ignore[union-attr]
                                                  "permission denied (directory)")]

    async def go() -> None:
        app = BrowseApp([str(damaged["dir"])])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            assert label_of(app, "orders-1") == \
                "orders-1  unreadable-file: permission denied (directory)"
            assert str(app.tree_screen.query_one("#status").render()) == "3 partitions"
            assert str(app.tree_screen.topics[id(app.logdirs[0].topics[1])].label).endswith(
                "157 records  2 errors")  # its finding counted with orders-0's
            await pilot.press("e")  # errors or warnings only: it stays
            await pilot.pause()
            assert [p.name for p in app.tree_screen.matches] == ["orders-0", "orders-1"]
            tree = app.tree_screen.query_one("#tree")
            tree.select_node(app.tree_screen.leaves[id(app.logdirs[0].partitions[2])])  # type: ignore[attr-defined]
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen)
            assert app.screen.text.plain == (
                f"unreadable-file (error)\nfile {locked}\npermission denied (directory)")
    run(go())


def test_an_internal_error_ends_with_one_line(sample_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self: PartitionScreen) -> None:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(PartitionScreen, "action_hex", boom)

    async def go() -> None:
        app = BrowseApp([str(sample_dir)], check=False)
        with pytest.raises(RuntimeError):  # the pilot hands the error on to the test
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.press("slash", *"orders-0", "enter", "x")
                await pilot.pause()
        assert app.return_code == 1
        assert app.failure == "kdump: browse stopped on an internal error: RuntimeError: boom"
    run(go())


# --- the tree tells the truth ----------------------------------------------------------------
def test_a_segment_given_counts_its_own_bytes_and_records(sample_dir: Path) -> None:
    seg = sample_dir / "orders-0" / "00000000000000000050.log"
    [ld] = browse_tree([str(seg)])
    [p] = ld.partitions
    assert p.given == [str(seg)]
    assert p.disk_bytes == os.lstat(seg).st_blocks * 512
    f = partition_findings(p)
    # offsets 50-119 (the partition holds 162 records, 36 batches)
    assert (f.records, f.batches) == (70, len(positions(seg.read_bytes())))

    async def go() -> None:
        app = BrowseApp([str(seg)])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            scr = app.screen
            assert isinstance(scr, PartitionScreen)  # one partition: opened at once
            assert str(scr.query_one("#segments").border_title) == "segments (1 given)"
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TreeScreen)
            assert label_of(app, "orders-0").endswith("(1 file given)  70 records  clean")
    run(go())


@pytest.mark.parametrize("what", ["empty", "other", "file"])
def test_an_empty_state_says_what_was_found(tmp_path: Path, what: str) -> None:
    d = tmp_path / "d"
    d.mkdir()
    if what == "other":
        (d / "notes.txt").write_text("hello\n")
        (d / "photos").mkdir()
    target = d
    if what == "file":
        target = d / "notes.txt"
        target.write_text("hello\n")
    expected = {
        "empty": f"{d}: an empty directory",
        "other": f"{d}: a directory of 2 entries (notes.txt, photos), none a partition "
                 "directory (<topic>-<partition>) or a segment",
        "file": f"{target}: a file of 6 bytes that is not Kafka data (not named as Kafka "
                "names its files, no record batch at its start)",
    }[what]

    async def go() -> None:
        app = BrowseApp([str(target)])
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(app, pilot)
            empty = str(app.tree_screen.query_one("#empty").render())
            assert empty.startswith("Nothing to show: no Kafka partition was found.\n"
                                    + expected + "\n")
            assert str(app.tree_screen.query_one("#status").render()) == "0 partitions"
    run(go())


def test_no_check_says_so_and_one_is_singular(tmp_path: Path) -> None:
    d = tmp_path / "ld"
    for name, n in (("one-0", 1), ("two-0", 2)):
        pw = PartitionWriter(d / name)
        pw.append(w.v2_batch([w.Rec(key=b"k", value=b"v", timestamp=w.TS0) for _ in range(n)]))
        pw.close()
    (d / ".stray").mkdir()  # what the walk passes over: a row of the log dir

    async def go(check: bool) -> None:
        app = BrowseApp([str(d)], check=check)
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(app, pilot)
            if check:
                assert label_of(app, "one-0").endswith("  1 record  clean")
                assert label_of(app, "two-0").endswith("  2 records  clean")
                assert str(app.tree_screen.topics[id(app.logdirs[0].topics[0])].label) \
                    .startswith("one  1 partition  ")
            else:
                assert label_of(app, "one-0").endswith(
                    "  not read (--no-check; n reads a partition)")
            assert str(app.tree_screen.query_one("#status").render()) == "2 partitions"
            tree = app.tree_screen.query_one("#tree")
            [ldn] = tree.root.children  # type: ignore[attr-defined]
            assert str(ldn.label) == f"broker ?  2 partitions  1 unplaced file  {d}"
            stray = ldn.children[-1]
            assert str(stray.label) == ".stray  unknown-file (info): not a partition " \
                "directory; skipped"
            tree.select_node(stray)  # type: ignore[attr-defined]
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen)
            assert app.screen.text.plain == (f"unknown-file (info)\nfile {d / '.stray'}\n"
                                             "not a partition directory; skipped")
    run(go(True))
    run(go(False))


# --- navigation --------------------------------------------------------------------------
def test_keys_of_the_partition(sample_dir: Path) -> None:
    data = [(sample_dir / "orders-0" / f"{b:020d}.log").read_bytes() for b in (0, 50, 120)]
    ends = [positions(x) for x in data]

    async def go() -> None:
        app = BrowseApp([str(sample_dir)])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            tree = app.tree_screen.query_one("#tree")
            assert tree.cursor_line == 0 and tree.cursor_node.data is app.logdirs[0]  # type: ignore[attr-defined]
            await pilot.press("j", "j", "j", "k")  # log dir, customers, customers-0, orders
            await pilot.pause()
            assert tree.cursor_node.data is app.logdirs[0].topics[0].partitions[0]  # type: ignore[attr-defined]
            await pilot.press("slash", *"orders-0", "enter")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            batches = scr.query_one("#batches")
            assert str(batches.border_title) == "» batches: batch 1 of 36, 3%"
            assert str(scr.query_one("#records").border_title) == "records of batch 0-4 (5)"
            await pilot.press("j", "j", "k")
            await pilot.pause()
            assert scr.current().position == ends[0][1][0]  # type: ignore[union-attr]
            await pilot.press("G")
            await pilot.pause()
            assert (scr.seg, scr.current().position) == (2, ends[2][-1][0])  # type: ignore[union-attr]
            assert str(batches.border_title) == "» batches: batch 36 of 36, 100%"
            await pilot.press("home")
            await pilot.pause()
            assert (scr.seg, scr.current().position) == (0, 0)  # type: ignore[union-attr]
            await pilot.press("end")
            await pilot.pause()
            assert (scr.seg, scr.current().position) == (2, ends[2][-1][0])  # type: ignore[union-attr]
            await pilot.press("g", "g")
            await pilot.pause()
            assert (scr.seg, scr.current().position) == (0, 0)  # type: ignore[union-attr]
            # on from the last batch of a segment into the next, and back
            for _ in range(len(ends[0])):
                if batches.cursor_row == len(scr.rows) - 1:
                    break
                await pilot.press("pagedown")
                await pilot.pause()
            assert scr.seg == 0 and scr.current().position == ends[0][-1][0]  # type: ignore[union-attr]
            await pilot.press("pagedown")
            await pilot.pause()
            assert (scr.seg, scr.current().position) == (1, 0)  # type: ignore[union-attr]
            await pilot.press("up")
            await pilot.pause()
            assert (scr.seg, scr.current().position) == (0, ends[0][-1][0])  # type: ignore[union-attr]
            await pilot.press("pagedown")
            await pilot.pause()
            assert (scr.seg, scr.current().position) == (1, 0)  # type: ignore[union-attr]
            await pilot.press("pageup")
            await pilot.pause()
            assert (scr.seg, scr.current().position) == (0, ends[0][-1][0])  # type: ignore[union-attr]
            # Enter after a jump: the batch and the record jumped to, whole
            await pilot.press("g", *"40", "enter", "enter")
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen)
            text = app.screen.text.plain
            assert text.startswith("batch 40-44 at byte ")
            assert "selected record\noffset 40   " in text
            await pilot.press("escape")
            await pilot.pause()
            # resizing keeps the selection (and the record)
            before = (scr.seg, scr.current(), scr.query_one("#records").cursor_row)  # type: ignore[attr-defined]
            await pilot.resize_terminal(60, 16)
            await pilot.pause()
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert (scr.seg, scr.current(), scr.query_one("#records").cursor_row) == before  # type: ignore[attr-defined]
            # the focused pane is marked and titled
            await pilot.press("tab")
            await pilot.pause()
            assert str(scr.query_one("#records").border_title).startswith("» records of batch 40-44")
            assert str(batches.border_title).startswith("batches: ")
            await pilot.press("ctrl+c")
        assert app.return_code == 0
    run(go())


def test_tree_filter_and_sort(damaged: dict[str, Any]) -> None:  # noqa: F811
    async def go() -> None:
        app = BrowseApp([str(damaged["dir"])])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            screen = app.tree_screen

            def names() -> list[str]:
                return [p.name for p in screen.matches]

            assert names() == ["customers-0", "orders-0", "orders-1"]
            await pilot.press("e")
            await pilot.pause()
            assert names() == ["orders-0", "orders-1"]  # customers-0: 1 info only
            assert str(screen.query_one("#status").render()) == \
                "2 of 3 partitions shown (errors or warnings only (e: all))"
            await pilot.press("e", "s")  # all again; sorted by size
            await pilot.pause()
            assert names() == ["orders-0", "orders-1", "customers-0"]
            assert str(screen.query_one("#status").render()) == "3 partitions (sorted by size)"
            await pilot.press("s")  # by findings: most errors first (orders-1: 2, its garbage's
            await pilot.pause()     # offsets data-lost too; orders-0: 1), then infos
            assert names() == ["orders-1", "orders-0", "customers-0"]
            await pilot.press("s")  # by name again
            await pilot.pause()
            assert names() == ["customers-0", "orders-0", "orders-1"]
    run(go())


def test_a_long_finding_is_readable_whole(damaged: dict[str, Any]) -> None:  # noqa: F811
    async def go() -> None:
        app = BrowseApp([str(damaged["dir"])], check=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("slash", *"orders-1", "enter", "n", "enter")
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen)
            text = app.screen.text.plain
            scr = app.screen_stack[-2]
            assert isinstance(scr, PartitionScreen)
            row = scr.current()
            assert row is not None and row.problem is not None
            assert text.startswith(f"byte {row.position}: bad-magic (error): "
                                   f"{row.problem.detail}\nfile {row.problem.path}\n")
    run(go())


def test_locating_a_flipped_bit_says_it_stopped_at_its_limit(tmp_path: Path) -> None:
    d = tmp_path / "ld" / "huge-0"
    d.mkdir(parents=True)
    data = bytearray(w.v2_batch([w.Rec(key=b"k", value=bytes(LOCATE_LIMIT + 100),
                                       timestamp=w.TS0)]))
    data[-10] ^= 1
    (d / SEG).write_bytes(bytes(data))
    [ld] = browse_tree([str(tmp_path / "ld")])
    v = PartitionView(ld.partitions[0])
    [row] = v.read_rows(0)[0]
    assert row.crc_state == "BAD"
    m = hex_model(v, row)
    checked = len(data) - 21
    assert m.bad_why.endswith(
        f": a single flipped bit was not looked for: locating one stops at 1 MiB of "
        f"checked bytes and this batch checks {checked}; the damage is somewhere in bytes "
        f"21..{len(data) - 1} of the batch (the checked bytes)")
    assert "no single flipped bit explains it" not in m.bad_why
    v.close()


# --- a real terminal ---------------------------------------------------------------------
TMUX = shutil.which("tmux")


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_keys_in_a_real_terminal(wide: Path, size: tuple[int, int]) -> None:
    require_tool("tmux", TMUX, ".ci/run installs Debian's tmux package")
    t = Terminal("nav", size)
    try:
        t.wait_for("READY$")
        t.keys(f"{sys.executable} -m kdump browse {wide}; echo EXIT=$?", "Enter")
        t.wait_for("batches: batch 1 of")
        t.keys("g", *str(FAR + 100), "Enter")
        screen = t.wait_for(f"offset {FAR + 100}: record at offset {FAR + 100}")
        row = next(line for line in screen.splitlines() if f"{FAR + 100}-{FAR + 101}" in line)
        res = find_offset(str(wide / "wide-0"), FAR + 100)
        assert row.split()[:2] == [str(res.position), f"{FAR + 100}-{FAR + 101}"]
        t.keys("End")
        t.wait_for("the partition's last batch")
        t.keys("g", "g")
        t.wait_for("the partition's first batch")
        t.keys("C-c")  # quits like q
        screen = t.wait_for("EXIT=0\nREADY$")  # the exit code, then the prompt (two writes)
        assert screen.rstrip().endswith("READY$")
        assert "batches:" not in screen  # the terminal restored
    finally:
        t.close()


@pytest.mark.slow
def test_an_internal_error_in_a_real_terminal_exit_2_one_line(sample_dir: Path,
                                                               tmp_path: Path) -> None:
    require_tool("tmux", TMUX, ".ci/run installs Debian's tmux package")
    code = ("import sys; from kdump.tui.partition import PartitionScreen\n"
            "def boom(self): raise RuntimeError('boom')\n"
            "PartitionScreen.action_hex = boom\n"
            "from kdump.cli import main; main(['browse', sys.argv[1]])\n")
    script = tmp_path / "boom.py"
    script.write_text(code)
    t = Terminal("nav-error", (80, 24))
    try:
        t.wait_for("READY$")
        t.keys(f"{sys.executable} {script} {sample_dir / 'orders-0'} 2>/dev/stdout; "
               "echo EXIT=$?", "Enter")
        t.wait_for("batches: batch 1 of")
        t.keys("x")
        screen = t.wait_for("EXIT=2\nREADY$")
        out = screen[screen.index("2>/dev/stdout; echo EXIT=$?"):].splitlines()[1:]
        out = [line for line in out if line.strip()]
        assert out == ["kdump: browse stopped on an internal error: RuntimeError: boom",
                       "EXIT=2", "READY$"]
    finally:
        t.close()


def test_a_long_status_is_cut_with_a_hint_and_enter_shows_it(
        damaged: dict[str, Any]) -> None:  # noqa: F811
    async def go() -> None:
        app = BrowseApp([str(damaged["dir"])], check=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("slash", *"orders-0", "enter", "n")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            whole = scr.said.plain
            assert whole.startswith("finding 1/1: crc-mismatch (error) offset 15, byte ")
            shown = str(scr.query_one("#status").render())
            assert shown.endswith(" … (Enter: in full)") and len(shown.splitlines()) == 2
            assert len(whole) > len(shown)
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen)
            assert "\n\n" + whole + "\n\nselected record\noffset 15 " in app.screen.text.plain
    run(go())


def test_before_the_start_selects_the_first_batch_and_the_tree_keeps_its_row(
        tmp_path: Path) -> None:
    d = tmp_path / "ld"
    for name in ("late-0", *(f"other-{k}" for k in range(30))):
        pw = PartitionWriter(d / name)
        if name == "late-0":
            # the log starts at offset 100 (its older segments deleted)
            pw.append(w.v2_batch([w.Rec(key=b"k", value=b"v", timestamp=w.TS0)],
                                 base_offset=100))
        else:
            pw.append(w.v2_batch([w.Rec(key=b"k", value=b"v", timestamp=w.TS0)]))
        pw.close()

    async def go() -> None:
        app = BrowseApp([str(d)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            tree = app.tree_screen.query_one("#tree")
            last = app.tree_screen.leaves[id(app.logdirs[0].topics[-1].partitions[-1])]
            tree.move_cursor(last)  # type: ignore[attr-defined]
            await pilot.pause()
            await pilot.resize_terminal(60, 12)
            await pilot.pause()
            await pilot.pause()
            assert tree.cursor_node is last  # type: ignore[attr-defined]
            assert tree.scroll_y <= tree.cursor_line < tree.scroll_y + tree.size.height  # type: ignore[attr-defined]
            await pilot.resize_terminal(100, 30)
            await pilot.press("slash", *"late", "enter")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            await pilot.press("g", "5", "enter")
            await pilot.pause()
            assert scr.current() is not None and scr.current().base_offset == 100  # type: ignore[union-attr]
            assert status(scr) == ("offset 5: below the log start (nearest above: 100); "
                                   "the first batch selected")
    run(go())


# --- snapshots (SVGs in tests/ops/browse/__snapshots__/test_navigation) ----------------------
def test_snapshot_tree_with_an_unreadable_partition(
        snap_compare: Any, damaged: dict[str, Any],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    import kdump.ops.browse.tree as tree

    monkeypatch.setattr(tree, "_disk_bytes", lambda p: os.stat(p).st_size)
    (damaged["dir"] / ".stray").mkdir()
    monkeypatch.chdir(damaged["dir"].parent)
    locked = os.path.join(damaged["dir"].name, "orders-1")
    listdir = Listing.listdir

    def deny(self: Listing, path: str) -> list[str]:
        if os.path.normpath(path) == locked:
            raise PermissionError(13, "Permission denied", path)
        return listdir(self, path)

    monkeypatch.setattr(Listing, "listdir", deny)
    app = BrowseApp([damaged["dir"].name])

    async def wait(pilot: Any) -> None:
        await settle(app, pilot)
        await pilot.press("s")  # by size

    assert snap_compare(app, terminal_size=(80, 24), run_before=wait)


def test_snapshot_empty_state(snap_compare: Any, tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "nothing"
    d.mkdir()
    (d / "notes.txt").write_text("hello\n")
    monkeypatch.chdir(tmp_path)
    app = BrowseApp(["nothing"])

    async def wait(pilot: Any) -> None:
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=wait)


def test_position_label() -> None:
    from kdump.ops.browse import BatchRow, position_label

    rows = [BatchRow(1, 1000 * k, 1000) for k in range(10)]
    # the second of three 10,000-byte segments, read from a later window: estimated
    assert position_label([10_000] * 3, 1, rows, 4, 2000, False, None) == \
        "batch ~15 of ~30, 50%"
    # the batches counted (verify-crc): the total exact, the number still estimated
    assert position_label([10_000] * 3, 1, rows, 4, 2000, False, 33) == \
        "batch ~16 of 33, 50%"
    # read from the partition's start: exact; counted back from the end: exact
    assert position_label([10_000] * 3, 0, rows, 4, 0, False, None) == \
        "batch 5 of ~30, 16%"
    assert position_label([10_000] * 3, 2, rows, 9, 0, True, 33) == "batch 33 of 33, 100%"
    # a row of no bytes only (a segment that cannot be read): the byte, no count
    assert position_label([10_000] * 3, 1, [BatchRow(1, 0, 0)], 0, 0, True, None) == \
        "byte 10,000 of the partition's 30,000"


def test_a_partition_gone_while_checkpoints_name_it_is_a_row(tmp_path: Path) -> None:
    """The log dir's verdict (kdump.ops.verdict LogDirVerdict): a partition its
    checkpoints name with no directory is a row of its own, with verify-crc's data-lost
    finding, counted in its log dir and topic."""
    from tests.support.logdirs import broker_logdir

    ld = broker_logdir(tmp_path / "ld", 1, high_watermarks=[("orders", 0, 3), ("gone", 0, 10)])
    (ld / "orders-0").mkdir()
    (ld / "orders-0" / SEG).write_bytes(w.v2_batch(
        [w.Rec(key=b"k", value=b"v", timestamp=w.TS0)] * 3, base_offset=0))
    crc = [p for p in verify_crc([str(ld)], VerifyOptions(), jobs=1)
           if getattr(p, "kind", None) == "data-lost"]
    assert [p.path for p in crc] == [str(ld / "gone-0")]  # type: ignore[union-attr]

    async def go() -> None:
        app = BrowseApp([str(ld)])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            assert label_of(app, "gone-0") == (
                f"gone-0  data-lost: {crc[0].detail}")  # type: ignore[union-attr]
            scr = app.tree_screen
            [ldn] = app.logdirs
            assert str(scr.query_one("#tree").root.children[0].label).startswith(  # type: ignore[attr-defined]
                "broker 1  2 partitions  ")
            assert str(scr.topics[id(ldn.topics[0])].label) == \
                "gone  1 partition  0 B  0 records  1 error"
            await pilot.press("s", "s")  # by findings: its error first
            await pilot.pause()
            assert [p.name for p in scr.matches] == ["gone-0", "orders-0"]
            scr.query_one("#tree").select_node(scr.leaves[id(ldn.partitions[0])])  # type: ignore[attr-defined]
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen)
            assert app.screen.text.plain == (
                f"data-lost (error)\nfile {ld / 'gone-0'}\nbase offset 0\n"
                f"{crc[0].detail}")  # type: ignore[union-attr]
    run(go())


def test_end_on_a_segment_with_no_index_near_its_end_reads_in_the_background(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End/G on a segment it must read whole (no offset index): a worker on a view of
    its own, a progress line, Escape stops it (counted in steps of the read, each
    SCAN_ROWS rows); G again reads to the last batch."""
    from kdump.ops.browse import LastScan
    from kdump.ops.browse import partition as bp
    from kdump.tui import partition as tp
    from kdump.tui.widgets import human
    from tests.support.samples import big_segment

    big_segment(tmp_path / "ld" / "big-0", 2 << 20)
    (tmp_path / "ld" / "big-0" / "00000000000000000000.index").unlink()
    monkeypatch.setattr(tp, "SYNC_SCAN_BYTES", 256 << 10)
    monkeypatch.setattr(bp, "SCAN_ROWS", 20)
    [ld] = browse_tree([str(tmp_path / "ld")])
    view = PartitionView(ld.partitions[0])
    whole = LastScan(view, 0)
    while not whole.step():
        pass
    last, steps = whole.last, whole.steps
    assert whole.start == 0 and steps == 14 and last == view.last_position(0)
    two = LastScan(view, 0)
    two.step()
    two.step()
    view.close()
    expected = (f"reading segment 0 to its last batch (no offset index entry near its end): "
                f"{human(two.at)} of {human(two.size)} ({100 * two.at // two.size}%) "
                "(Escape stops)")

    gate = threading.Event()
    calls: list[int] = []
    step = LastScan.step

    def counted(self: LastScan) -> bool:
        calls.append(1)
        if len(calls) == 3:
            gate.wait(60)
        return step(self)

    monkeypatch.setattr(LastScan, "step", counted)

    async def go() -> None:
        app = BrowseApp([str(tmp_path / "ld")], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, PartitionScreen)
            read_before = scr.view.bytes_read
            await pilot.press("end")
            await until(pilot, lambda: len(calls) == 3, "three steps")
            await pilot.pause()
            assert status(scr) == expected
            # the screen's reader: the one chunk that tells where the read starts, not
            # the segment (the worker reads on a view of its own)
            assert scr.view.bytes_read - read_before == 64 << 10
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is scr  # Escape stopped the read, did not leave
            assert status(scr) == "the read to the last batch stopped (End or G: again)"
            gate.set()
            await until(pilot, lambda: not any(wk.is_running for wk in app.workers),
                        "the workers done")
            assert len(calls) == 3  # no step after the stop
            assert scr.current().position == 0  # type: ignore[union-attr]
            await pilot.press("G")
            await until(pilot, lambda: scr.scanner is None, "the read to the last batch done")
            await pilot.pause()
            assert len(calls) == 3 + steps
            assert scr.current().position == last  # type: ignore[union-attr]
            assert status(scr) == "the partition's last batch"
    run(go())


async def _judged(app: BrowseApp, pilot: Any) -> None:
    """Wait for the app's log dirs to be judged again with the metadata (``judged``)."""
    await until(pilot, app.judged.is_set, "judged with the metadata")
    await pilot.pause()


def test_a_gone_partition_the_metadata_explains_leaves_the_tree(tmp_path: Path) -> None:
    """With the KRaft metadata among the inputs the rows are judged again as verify-crc
    judges them: a deleted topic's partition (the metadata holds no such topic) is
    Kafka's own work and leaves the tree; orders-1, assigned to broker 1 and gone from
    its log dir, stays data-lost."""
    import shutil

    from kdump.cli.options import cleanup_policies
    from tests.support.files import offset_checkpoint
    from tests.support.timeline_fixture import write_cluster

    write_cluster(tmp_path)
    b1 = tmp_path / "broker-1"
    (b1 / "replication-offset-checkpoint").write_bytes(
        offset_checkpoint([("orders", 1, 20), ("deleted", 0, 10)]))
    shutil.rmtree(b1 / "orders-1")
    opts = VerifyOptions(policies=cleanup_policies([str(tmp_path)], (), 16 << 20))
    crc = {(p.path, str(p.kind)) for p in verify_crc([str(tmp_path)], opts, jobs=1)
           if getattr(p, "kind", None) in ("data-lost", "checkpoint")}
    assert crc == {(str(b1 / "orders-1"), "data-lost"), (str(b1 / "deleted-0"), "checkpoint")}
    [first, *_] = browse_tree([str(tmp_path)])
    assert [p.name for p in first.partitions if p.unreadable is not None] == \
        ["deleted-0", "orders-1"]  # the checkpoints alone: both lost

    async def go() -> None:
        app = BrowseApp([str(tmp_path)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await _judged(app, pilot)
            ld = app.logdirs[0]
            assert [(p.name, p.unreadable.kind if p.unreadable else None)
                    for p in ld.partitions] == [
                ("__cluster_metadata-0", None), ("__consumer_offsets-0", None),
                ("__transaction_state-0", None), ("orders-0", None),
                ("orders-1", "data-lost")]
            assert label_of(app, "orders-0")  # the tree rebuilt from them
            assert id(ld.partitions[4]) in app.tree_screen.leaves
    run(go())


def test_replicas_assigned_here_and_absent_are_the_log_dirs_findings(tmp_path: Path) -> None:
    """The replicas the KRaft metadata assigns to the log dir's broker with no directory
    here are the log dir's findings in browse (``f`` on it), as verify-crc says them:
    the same partitions, kinds and severities."""
    from tests.ops.test_same_story import assigning_logdir

    ld = tmp_path / "ld"
    assigning_logdir(ld)
    crc = [(p.path, str(p.kind), str(p.severity)) for p in verify_crc([str(ld)], VerifyOptions(
        policies=cleanup_policies_of([str(ld)])), jobs=1)
        if getattr(p, "kind", None) == "assigned-absent"]
    assert [(os.path.basename(a), b, c) for a, b, c in crc] == [
        ("a-0", "assigned-absent", "warning"), ("b-0", "assigned-absent", "info"),
        ("c-0", "assigned-absent", "info"), ("f-0", "assigned-absent", "warning")]

    async def go() -> None:
        app = BrowseApp([str(ld)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await _judged(app, pilot)
            [node] = app.logdirs
            assert [(p.path, str(p.kind), str(p.severity)) for p in node.problems] == crc
    run(go())


def cleanup_policies_of(paths: list[str]) -> Any:
    from kdump.cli.options import cleanup_policies

    return cleanup_policies(paths, (), 16 << 20)
