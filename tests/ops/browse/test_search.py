"""``kdump browse``'s search, findings list, renderings, copying and re-reading (issue 47,
What 5-7), each key driven by Textual's pilot, and a run in tmux (the core search without
Textual: test_search_core.py)."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")

from textual.widgets import DataTable

from kdump.ops.browse import PartitionView, browse_tree, partition_findings
from kdump.ops.browse.search import SEARCH_CHUNK, Progress, Search
from kdump.tui.app import BrowseApp, PartitionScreen, TreeScreen
from kdump.tui.findings import FindingsScreen
from kdump.tui.record import CopyMenu, RecordView
from kdump.tui.widgets import MATCH_STYLE
from tests.support import writer as w
from tests.support.pilot import until

SEG = "00000000000000000000.log"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def status(scr: Any) -> str:
    return str(scr.query_one("#status").render())


def partition(root: Path, name: str) -> Any:
    return next(p for ld in browse_tree([str(root)]) for p in ld.partitions if p.name == name)


async def open_part(app: BrowseApp, pilot: Any, name: str) -> PartitionScreen:
    await pilot.pause()
    if not isinstance(app.screen, PartitionScreen):  # (one partition given opens itself)
        await pilot.press("slash", *name, "enter")
        await pilot.pause()
    scr = app.screen
    assert isinstance(scr, PartitionScreen)
    return scr


async def search_wait(scr: PartitionScreen, pilot: Any) -> None:
    await until(pilot, lambda: scr.search_done is not None and scr.search_done.is_set()
                and scr.running is None, "the search ends")
    await pilot.pause()


def selected(scr: PartitionScreen) -> tuple[int, int | None]:
    row = scr.current()
    rec = scr.selected_record()
    assert row is not None
    return row.position, rec.offset if rec is not None else None


def test_slash_n_N_text_regex_hex_and_wrap(shop: Path) -> None:
    node = partition(shop, "orders-0")
    v = PartitionView(node)
    rows = v.read_rows(0)[0]
    v.close()

    async def go() -> None:
        app = BrowseApp([str(shop)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            scr = await open_part(app, pilot, "orders-0")
            await pilot.press("slash", *"needle", "enter")
            await search_wait(scr, pilot)
            assert selected(scr) == (rows[0].position, 1)
            assert status(scr).startswith(
                "match for 'needle': header trace of the record at offset 1 (batch at byte 0)")
            await pilot.press("n")
            await search_wait(scr, pilot)
            assert selected(scr) == (rows[1].position, 3)
            await pilot.press("N", "n", "n")  # typed ahead of the search: each in turn
            await search_wait(scr, pilot)
            assert selected(scr) == (rows[2].position, 5)
            await pilot.press("n")
            await search_wait(scr, pilot)
            assert scr.seg == 1 and selected(scr) == (0, 9)
            await pilot.press("n")
            await search_wait(scr, pilot)
            assert scr.seg == 0 and selected(scr) == (0, 1)
            assert "search wrapped: no more matches that way, continued from the other end" \
                in status(scr)
            await pilot.press("N")
            await search_wait(scr, pilot)
            assert scr.seg == 1 and selected(scr) == (0, 9)
            await pilot.press("N")
            await search_wait(scr, pilot)
            assert selected(scr) == (rows[2].position, 5) and "wrapped" not in status(scr)
            await pilot.press("slash", *"re:^pl", "enter")
            await search_wait(scr, pilot)
            assert selected(scr) == (rows[1].position, 4)
            assert "value of the record at offset 4" in status(scr)
            await pilot.press("slash", *"hex:ff0001", "enter")
            await search_wait(scr, pilot)
            assert selected(scr) == (0, 2) and "key of the record at offset 2" in status(scr)
            await pilot.press("slash", *"absent", "enter")
            await search_wait(scr, pilot)
            assert status(scr).startswith("no match for 'absent' in this partition's keys, "
                                          "values or headers (")
            assert selected(scr) == (0, 2)
            await pilot.press("slash", *"re:(", "enter")
            await pilot.pause()
            assert status(scr) == ("not a regular expression: missing ), unterminated "
                                   "subpattern at position 0")
    run(go())


def marked(scr: PartitionScreen) -> tuple[str, str, list[str]]:
    """The records table's cell marked as a search's match: its column, its text and the
    pieces of it in the match's style."""
    recs = scr.query_one("#records", DataTable)
    for row in recs.rows:
        for col in recs.columns:
            t = recs.get_cell(row, col)
            pieces = [t.plain[s.start:s.end] for s in t.spans if str(s.style) == MATCH_STYLE]
            if pieces:
                return str(col.value), t.plain, pieces
    raise AssertionError("no cell marked")


def test_the_match_is_marked_in_its_cell(shop: Path) -> None:
    async def go() -> None:
        app = BrowseApp([str(shop)], check=False)
        async with app.run_test(size=(120, 30)) as pilot:
            scr = await open_part(app, pilot, "orders-0")
            await pilot.press("slash", *"needle", "enter")
            await search_wait(scr, pilot)
            assert marked(scr) == ("headers", "trace=needle-h", ["needle"])
            await pilot.press("n")
            await search_wait(scr, pilot)
            assert marked(scr) == ("value", "a needle in a gzip", ["needle"])
            await pilot.press("n", "n")  # "NEEDLE upper": lower case typed folds ASCII
            await search_wait(scr, pilot)
            assert scr.seg == 1 and marked(scr) == ("value", "NEEDLE upper", ["NEEDLE"])
            await pilot.press("slash", *"re:^pl", "enter")
            await search_wait(scr, pilot)
            assert marked(scr) == ("value", "plain", ["pl"])
            await pilot.press("slash", *"hex:ff0001", "enter")  # a key shown in hex
            await search_wait(scr, pilot)
            assert marked(scr) == ("key", "0xff0001", ["ff0001"])
            await pilot.press("slash", *"hex:00 01 62", "enter")  # whole bytes of the hex
            await search_wait(scr, pilot)
            assert marked(scr) == ("value", "0x000162696e617279fe", ["000162"])
            # a pattern over bytes the cell shows as hex: the whole cell
            await pilot.press("slash", *r"re:\xff\x00", "enter")
            await search_wait(scr, pilot)
            assert marked(scr) == ("key", "0xff0001", ["0xff0001"])
            await pilot.press("slash", *"trace", "enter")  # a header's name
            await search_wait(scr, pilot)
            assert marked(scr) == ("headers", "trace=needle-h", ["trace"])
    run(go())


def test_escape_stops_a_search_and_a_big_one_reads_bounded(
        big24: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kdump.tui.search as tui_search

    gate = threading.Event()
    waiting = threading.Event()
    walk = Search.walk

    def slow_walk(self: Search, *a: Any, **k: Any) -> Any:
        for item in walk(self, *a, **k):
            yield item  # the progress line drawn (call_from_thread waits for it), then:
            if isinstance(item, Progress) and self.query.typed == "zzz" and not gate.is_set():
                waiting.set()
                gate.wait(60)

    monkeypatch.setattr(Search, "walk", slow_walk)
    monkeypatch.setattr(tui_search, "PROGRESS_EVERY", 0.0)

    async def go() -> None:
        app = BrowseApp([str(big24)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            scr = await open_part(app, pilot, "big")
            before = selected(scr)
            await pilot.press("slash", *"zzz", "enter")
            await until(pilot, waiting.is_set, "the search reads")
            assert scr.running is not None
            await pilot.pause()
            assert status(scr) == ("searching for 'zzz': 1.0 MiB of 24.0 MiB read (4%), at "
                                   "offset 14000 in segment 0 "
                                   "(Escape stops)")
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, PartitionScreen)  # Escape stopped, not back
            assert status(scr) == "search for 'zzz' stopped after 1.0 MiB of 24.0 MiB"
            gate.set()
            await until(pilot, lambda: scr.search_done is not None and scr.search_done.is_set())
            await pilot.pause()
            assert selected(scr) == before and scr.running is None
            assert "stopped" in status(scr)
            # a search across the segment: at scan speed, bytes read bounded by the match
            await pilot.press("slash", *"k200123", "enter")
            await until(pilot, lambda: scr.search_done is not None and scr.search_done.is_set()
                        and scr.running is None)
            await pilot.pause()
            row, off = selected(scr)
            assert off == 200123 and scr.last_search is not None
            assert scr.last_search.bytes_read <= row + 2 * SEARCH_CHUNK
            assert scr.view.bytes_read < 4 << 20  # the first page, the rows around the match
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TreeScreen)
    run(go())


def test_f_lists_sorts_and_jumps(shop_damaged: dict[str, Any]) -> None:
    async def go() -> None:
        app = BrowseApp([str(shop_damaged["dir"])], check=False)
        async with app.run_test(size=(120, 36)) as pilot:
            scr = await open_part(app, pilot, "orders-1")
            await pilot.press("f")
            await pilot.pause()
            fs = app.screen
            assert isinstance(fs, FindingsScreen)
            await until(pilot, lambda: fs.loaded, "findings read")
            await pilot.pause()
            want = partition_findings(partition(shop_damaged["dir"], "orders-1")).findings
            kinds = [(str(f.problem.kind), f.severity, f.problem.position)
                     for f in fs.findings]
            assert kinds == [(str(p.kind), str(p.severity), p.position) for p in want]
            bad = kinds.index(("bad-magic", "error", shop_damaged["garbage"]))
            await pilot.press(*["down"] * bad)
            await pilot.pause()
            whole = str(fs.query_one("#fwhole").render())
            assert whole.startswith("bad-magic (error)  orders-1\nfile ")
            assert f"\nbyte {shop_damaged['garbage']}, " in whole
            assert whole.endswith("\n" + fs.findings[bad].problem.detail)
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is scr
            row = scr.current()
            assert row is not None and row.position == shop_damaged["garbage"] and row.is_region
            assert status(scr).startswith(f"finding {bad + 1}/{len(want)}: bad-magic (error)")
            await pilot.press("escape")
            await pilot.pause()
            # from the tree: the log dir's findings, by severity, Enter opens the partition
            await pilot.press("f")
            await pilot.pause()
            fs = app.screen
            assert isinstance(fs, FindingsScreen)
            await until(pilot, lambda: fs.loaded, "findings read")
            await pilot.press("s")
            await pilot.pause()
            sev = [f.severity for f in fs.findings]
            assert sev == sorted(sev, key=["error", "warning", "info"].index)
            table = fs.query_one("#ftable")
            widths = [c.width for c in table.ordered_columns]  # type: ignore[attr-defined]
            for i in range(len(fs.findings)):  # every cell whole in its column
                cells = table.get_row_at(i)  # type: ignore[attr-defined]
                assert all(c.cell_len <= wd for c, wd in zip(cells, widths, strict=True))
            names = {f.node.name for f in fs.findings if f.node is not None}
            assert names == {"orders-0", "orders-1"}
            labels = [str(leaf.label) for leaf in app.tree_screen.leaves.values()]
            [label] = labels  # the tree's label counted too (its disk bytes: st_blocks)
            assert label.startswith("orders-1  ")
            assert "  2 records  " in label and "…" not in label and " error" in label
            crc = next(i for i, f in enumerate(fs.findings) if f.problem.kind == "crc-mismatch")
            await pilot.press(*["down"] * crc, "enter")
            await pilot.pause()
            await pilot.pause()
            top = app.screen
            assert isinstance(top, PartitionScreen) and top.node.name == "orders-0"
            row = top.current()
            assert row is not None and row.position == 0 and row.crc_state == "BAD"
            assert "crc-mismatch (error)" in status(top)
            await pilot.press("escape", "f")
            await pilot.pause()
            fs = app.screen
            assert isinstance(fs, FindingsScreen)
            await until(pilot, lambda: fs.loaded)
            await pilot.press("p")
            await pilot.pause()
            assert [f.node.name for f in fs.findings if f.node is not None] == sorted(
                f.node.name for f in fs.findings if f.node is not None)
    run(go())


def test_record_view_cycles_renderings_and_shows_binary_as_hex(shop: Path) -> None:
    async def go() -> None:
        app = BrowseApp([str(shop)], check=False)
        async with app.run_test(size=(100, 40)) as pilot:
            scr = await open_part(app, pilot, "orders-0")
            cells = [str(c) for c in scr.query_one("#records").get_row_at(2)]  # type: ignore[attr-defined]
            assert cells[1:3] == ["0xff0001", "0x000162696e617279fe"]
            assert "\ufffd" not in "".join(cells)
            await pilot.press("tab", "enter")
            await pilot.pause()
            rv = app.screen
            assert isinstance(rv, RecordView) and rv.rec.offset == 0
            seen = []
            for _ in range(5):
                body = str(rv.query_one("#record").render())
                seen.append((rv.mode, body))
                await pilot.press("v")
                await pilot.pause()
            assert [m for m, _ in seen] == ["auto", "text", "json", "hex", "base64"]
            assert rv.mode == "auto"
            assert 'value (25 bytes), auto:\n{"item": "apple", "n": 1}' in seen[0][1]
            assert 'value (25 bytes), json:\n{\n  "item": "apple",\n  "n": 1\n}' in seen[2][1]
            assert "key (5 bytes), hex:\n00000000  61 6c 70 68 61" in seen[3][1]
            assert "key (5 bytes), base64:\nYWxwaGE=" in seen[4][1]
            assert "key (5 bytes), json:\nnot JSON: Expecting value" in seen[2][1]
            await pilot.press("escape", "down", "down", "enter")
            await pilot.pause()
            rv = app.screen
            assert isinstance(rv, RecordView) and rv.rec.offset == 2
            body = str(rv.query_one("#record").render())
            assert "key (3 bytes), auto:\n0xff0001" in body and "\ufffd" not in body
            await pilot.press("v")
            await pilot.pause()
            body = str(rv.query_one("#record").render())
            assert "key (3 bytes), text:\n\\xff\\x00\\x01" in body
    run(go())


def test_y_copies_with_osc52_or_says_why_not(shop: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TERM_PROGRAM", raising=False)

    async def go() -> None:
        app = BrowseApp([str(shop)], check=False)
        async with app.run_test(size=(120, 30)) as pilot:
            scr = await open_part(app, pilot, "orders-0")
            await pilot.press("tab", "down", "y")
            await pilot.pause()
            assert isinstance(app.screen, CopyMenu)
            await pilot.press("o")
            await pilot.pause()
            assert app.clipboard == "1"
            assert status(scr).startswith("copied the offset (1 characters) to the clipboard "
                                          "(OSC 52; ")
            await pilot.press("y", "v")
            await pilot.pause()
            assert app.clipboard == '{"item": "Banana", "n": 2}'
            await pilot.press("y", "p")
            await pilot.pause()
            assert app.clipboard == "0"
            await pilot.press("y", "escape")
            await pilot.pause()
            assert app.clipboard == "0" and app.screen is scr
            monkeypatch.setenv("TERM_PROGRAM", "Apple_Terminal")
            await pilot.press("y", "k")
            await pilot.pause()
            assert app.clipboard == "0"
            assert status(scr) == ("cannot copy the key here (macOS Terminal does not take "
                                   "OSC 52); it is: beta")
            monkeypatch.delenv("TERM_PROGRAM")
            await pilot.press("enter", "y", "k")  # in the record view too
            await pilot.pause()
            assert app.clipboard == "beta"
            assert "copied the key (4 characters)" in str(
                app.screen.query_one("#recstatus").render())
    run(go())


def test_r_picks_up_a_new_segment_and_new_findings(shop: Path) -> None:
    async def go() -> None:
        app = BrowseApp([str(shop)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            scr = await open_part(app, pilot, "orders-0")
            assert len(scr.view.segments) == 2
            new = w.v2_batch([w.Rec(key=b"new", value=b"needle new", timestamp=w.TS0 + 20)],
                             base_offset=20)
            (shop / "orders-0" / "00000000000000000020.log").write_bytes(new[:-3])  # torn
            await pilot.press("r")
            await until(pilot, lambda: scr.reread_done is not None and scr.reread_done.is_set())
            await pilot.pause()
            assert [s.base_offset for s in scr.view.segments] == [0, 9, 20]
            assert scr.query_one("#segments").row_count == 3  # type: ignore[attr-defined]
            assert scr.node.checked is not None
            assert status(scr).startswith("re-read orders-0: 3 segments (1 new), ")
            want = partition_findings(partition(shop, "orders-0"))
            assert status(scr).endswith(
                f"; 7 records, {len(want.findings)} findings (f lists them)")
            assert [str(p.kind) for p in scr.node.checked.findings
                    if p.path.endswith("20.log")] == [str(p.kind) for p in want.findings
                                                      if p.path.endswith("20.log")] != []
            # and the search sees it
            await pilot.press("slash", *"needle new", "enter")
            await search_wait(scr, pilot)
            assert "no match" in status(scr)  # torn: its record cannot be read
            (shop / "orders-0" / "00000000000000000020.log").write_bytes(new)
            await pilot.press("r")
            await until(pilot, lambda: scr.reread_done is not None and scr.reread_done.is_set())
            await pilot.pause()
            want = partition_findings(partition(shop, "orders-0"))
            assert status(scr).endswith(
                f"; 8 records, {len(want.findings)} findings (f lists them)")
            assert not [p for p in want.findings if p.path.endswith("20.log")
                        and p.position is not None]
            await pilot.press("slash", *"needle new", "enter")
            await search_wait(scr, pilot)
            assert scr.seg == 2 and selected(scr) == (0, 20)
            # retention deletes a segment: gone from the list, the search does not miss it
            (shop / "orders-0" / "00000000000000000009.log").unlink()
            await pilot.press("r")
            await until(pilot, lambda: scr.reread_done is not None and scr.reread_done.is_set())
            await pilot.pause()
            assert [s.base_offset for s in scr.view.segments] == [0, 20]
            assert status(scr).startswith("re-read orders-0: 2 segments (0 new, 1 gone), ")
            assert scr.seg == 1 and selected(scr) == (0, 20)  # where it was
            await pilot.press("slash", *"needle third", "enter")
            await search_wait(scr, pilot)
            assert scr.seg == 0 and selected(scr)[1] == 5 and "wrapped" in status(scr)
            # a segment whose base offset and size are longer than any before: not cut
            big = w.v2_batch([w.Rec(key=b"far", value=b"v" * 20_000, timestamp=w.TS0 + 30)],
                             base_offset=12_345_678_901)
            (shop / "orders-0" / "00000000012345678901.log").write_bytes(big)
            await pilot.press("r")
            await until(pilot, lambda: scr.reread_done is not None and scr.reread_done.is_set())
            await pilot.pause()
            segs = scr.query_one("#segments")
            cells = segs.get_row_at(2)  # type: ignore[attr-defined]
            assert [str(c) for c in cells] == ["12345678901", "00000000012345678901.log",
                                               str(len(big)), "active"]
            widths = [c.width for c in segs.ordered_columns]  # type: ignore[attr-defined]
            assert all(c.cell_len <= wd for c, wd in zip(cells, widths, strict=True))
            # from the tree: a new partition
            await pilot.press("escape")
            await pilot.pause()
            shutil.copytree(shop / "orders-0", shop / "orders-7")
            await pilot.press("r")
            await pilot.pause()
            assert sorted(p.name for ld in app.logdirs for p in ld.partitions) == [
                "orders-0", "orders-7"]
    run(go())


def test_found_and_shown_data_stays_inert(tmp_path: Path) -> None:
    d = tmp_path / "evil" / "evil-0"
    d.mkdir(parents=True)
    value = json.dumps({"k": "[bold]markup[/] \x1b]0;title\x07"}).encode() + b""
    (d / SEG).write_bytes(w.v2_batch([
        w.Rec(key=b"\x1b[2Jwiped[red]", value=value, timestamp=w.TS0),
        w.Rec(key=b"[link=http://x]k[/link]", value=b"\x1b[31m\xe2\x80\xaeevil\n[b]x",
              headers=[("h[i]", b"\x9b2J")], timestamp=w.TS0 + 1)]))

    named = d.parent / "ev\x1b]0;t\x07[b]il-0"  # a directory name is data too
    named.mkdir()
    (named / SEG).write_bytes(b"\x00" * 30 + b"[red]x\x1b[2J" * 4)

    async def go() -> None:
        app = BrowseApp([str(d.parent)], check=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("f")
            await pilot.pause()
            fs = app.screen
            assert isinstance(fs, FindingsScreen)
            await until(pilot, lambda: fs.loaded)
            await pilot.pause()
            names = {str(fs.query_one("#ftable").get_row_at(i)[3])  # type: ignore[attr-defined]
                     for i in range(len(fs.findings))}
            assert "ev\\x1b]0;t\\x07[b]il-0" in names
            svg = app.export_screenshot()
            assert "\x1b" not in svg and "\x07" not in svg
            await pilot.press("escape")
            await pilot.pause()
            scr = await open_part(app, pilot, "evil-0")
            await pilot.press("slash", *"[/link]", "enter")
            await search_wait(scr, pilot)
            assert selected(scr) == (0, 1)
            assert "match for '[/link]': key" in status(scr)
            await pilot.press("enter")
            await pilot.pause()
            rv = app.screen
            assert isinstance(rv, RecordView)
            for _ in range(5):
                body = str(rv.query_one("#record").render())
                svg = app.export_screenshot()
                assert "\x1b" not in body and "\x9b" not in body and "\u202e" not in body
                assert "\x1b" not in svg and "\u202e" not in svg
                await pilot.press("v")
                await pilot.pause()
            body = str(rv.query_one("#record").render())
            assert "key (23 bytes), auto:\n[link=http://x]k[/link]" in body
            assert "\\x1b[31m\\u202eevil\n[b]x" in body  # the line break kept, inert
            await pilot.press("escape", "up", "enter")
            await pilot.pause()
            rv = app.screen
            assert isinstance(rv, RecordView)
            await pilot.press("v", "v")
            await pilot.pause()
            body = str(rv.query_one("#record").render())
            assert '"k": "[bold]markup[/] \\u001b]0;title\\u0007"' in body
    run(go())


TMUX = shutil.which("tmux")


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_search_and_findings_in_a_real_terminal(shop_damaged: dict[str, Any],
                                                size: tuple[int, int]) -> None:
    """/ n N f v in tmux, keys sent in bursts as a person typing over SSH."""
    import sys
    import time

    from tests.support.terminal import Terminal
    from tests.support.tools import require_tool

    require_tool("tmux", TMUX, ".ci/run installs Debian's tmux package")
    t = Terminal("search", size)
    keys, wait_for = t.keys, t.wait_for
    try:
        wait_for("READY$")
        keys(f"{sys.executable} -m kdump browse --no-check {shop_damaged['dir']}; echo EXIT=$?",
             "Enter")
        wait_for("orders-1")
        keys("/", *"orders-0", "Enter", "/", *"needle", "Enter")
        wait_for("match for 'needle': header trace of the record at offset 1")
        keys("n")
        wait_for("value of the record at offset 3")
        keys("N", "N")  # back to 1, then past the start: from the end, offset 9
        screen = wait_for("value of the record at offset 9")
        assert "NEEDLE upper" in screen
        keys("f")
        screen = wait_for("findings, by position")
        assert "crc-mismatch" in screen
        keys("Escape")
        wait_for("NEEDLE upper")
        keys("Enter")  # the records pane has the focus after a match
        wait_for("rendering:")
        keys("v", "v")
        screen = wait_for("json:")
        keys("Escape")
        time.sleep(0.5)
        keys("Escape")
        wait_for("log dirs, topics, partitions")
        keys("q")
        screen = wait_for("EXIT=0\nREADY$")  # the exit code, then the prompt (two writes)
        assert screen.rstrip().endswith("READY$")
    finally:
        t.close()


def test_a_large_value_is_rendered_in_part_and_too_large_to_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TERM_PROGRAM", raising=False)
    from kdump.tui.record import VIEW_BYTES

    d = tmp_path / "ld" / "large-0"
    d.mkdir(parents=True)
    (d / SEG).write_bytes(w.v2_batch([w.Rec(key=b"k", value=b"\x01" * 200_000,
                                            timestamp=w.TS0)]))

    async def go() -> None:
        app = BrowseApp([str(d.parent)], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            scr = await open_part(app, pilot, "large")
            await pilot.press("tab", "enter", "v", "v", "v")
            await pilot.pause()
            rv = app.screen
            assert isinstance(rv, RecordView) and rv.mode == "hex"
            body = str(rv.query_one("#record").render())
            assert "\n00007ff0  01 01 01" in body
            assert body.endswith(f"… (the first {VIEW_BYTES} of 200000 bytes: kdump dump "
                                 "shows them all)")
            await pilot.press("y", "v")
            await pilot.pause()
            assert app.clipboard == ""
            assert str(rv.query_one("#recstatus").render()).startswith(
                "cannot copy the value here (")
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is scr
    run(go())


def test_closing_the_findings_list_stops_its_reading(
        shop_damaged: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    import kdump.tui.search as tui_search

    gate = threading.Event()
    read: list[str] = []
    real = tui_search.partition_findings

    def slow(node: Any, **k: Any) -> Any:
        read.append(node.name)
        gate.wait(60)
        return real(node, **k)

    monkeypatch.setattr(tui_search, "partition_findings", slow)

    async def go() -> None:
        app = BrowseApp([str(shop_damaged["dir"])], check=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("f")
            await pilot.pause()
            fs = app.screen
            assert isinstance(fs, FindingsScreen)
            await until(pilot, lambda: read == ["orders-0"])
            await pilot.pause()
            assert str(fs.query_one("#fwhole").render()) == (
                "reading orders-0 (1 of 2 partitions) for its findings (verify-crc, "
                "verify-index) …")
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TreeScreen)
            gate.set()
            await pilot.pause(0.3)
            assert read == ["orders-0"]  # the second partition is not read
            await pilot.press("q")
        assert app.return_code == 0
    run(go())


def test_json_of_a_consumer_offsets_record_and_a_search_in_its_bytes(tmp_path: Path) -> None:
    from tests.support.group_records import commit

    d = tmp_path / "ld" / "__consumer_offsets-0"
    d.mkdir(parents=True)
    rec = commit("payments-app", "orders", 3, 1234, w.TS0)
    rec.timestamp = w.TS0
    (d / SEG).write_bytes(w.v2_batch([rec]))

    async def go() -> None:
        app = BrowseApp([str(d.parent)], check=False)
        async with app.run_test(size=(100, 40)) as pilot:
            scr = await open_part(app, pilot, "__consumer_offsets-0")
            await pilot.press("slash", *"payments-app", "enter")  # in the binary key's bytes
            await search_wait(scr, pilot)
            assert selected(scr) == (0, 0) and "key of the record at offset 0" in status(scr)
            await pilot.press("enter", "v", "v")
            await pilot.pause()
            rv = app.screen
            assert isinstance(rv, RecordView) and rv.mode == "json"
            body = str(rv.query_one("#record").render())
            assert "json (dump's decoding: the bytes are not JSON):\n{\n" in body
            assert '"group": "payments-app"' in body and '"offset": 1234' in body
            await pilot.press("y", "k")
            await pilot.pause()
            assert app.clipboard.startswith("{\n") and app.clipboard.endswith("}")
    run(go())




def test_r_in_the_tree_counts_a_new_partition(shop: Path) -> None:
    async def go() -> None:
        shutil.copytree(shop / "orders-0", shop / "orders-1")  # two: the tree shows
        app = BrowseApp([str(shop)])
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, app.checked.is_set, "the first round")
            assert isinstance(app.screen, TreeScreen)
            shutil.copytree(shop / "orders-0", shop / "orders-3")
            await pilot.press("r")
            await pilot.pause()
            await until(pilot, app.checked.is_set, "the second round")
            await pilot.pause()
            labels = {p.name: str(app.tree_screen.leaves[id(p)].label)
                      for ld in app.logdirs for p in ld.partitions}
            assert sorted(labels) == ["orders-0", "orders-1", "orders-3"]
            assert labels["orders-3"].endswith(labels["orders-0"].split("  ", 2)[2])
            assert "  7 records  " in labels["orders-3"]
    run(go())
