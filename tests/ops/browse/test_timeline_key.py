"""``kdump browse``'s ``T``: a partition's timeline (issue 48 What 3), on the three-broker
cluster of tests/support/timeline_fixture.py: the exact rows (every replica given of
the topic-partition and the metadata log's events about it, as ``kdump timeline
--topic --partition`` lists them), Enter on a batch's event opens that batch on the
replica browsed, on any other the event in full; the read is a worker, bounded (rows
past MAX_ROWS counted and said) and stopped by Escape (counted in events pulled)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")

from kdump.ops.timeline import TimelineEvent, partition_events
from kdump.tui import timeline as tl
from kdump.tui.app import BrowseApp, PartitionScreen, TimelineScreen, TreeScreen
from kdump.tui.widgets import DetailScreen
from tests.support.pilot import until
from tests.support.timeline_fixture import write_cluster

SEG = "00000000000000000000.log"
META = f"__cluster_metadata-0/{SEG}"
OFFSETS = f"__consumer_offsets-0/{SEG}"
#: orders-1's timeline, as drawn (time, clock, broker, kind, what changed, source)
ROWS = [
    " 2023-11-14T22:13:22.000Z | controller |  | partition-created | "
    f"created: replicas [1,2,3], leader 2, epoch 0 | {META}:606",
    "~2023-11-14T22:13:26.009Z | producer | 1,2,3 | log-start | "
    f"log starts at offset 0 on brokers 1, 2, 3 | orders-1/{SEG}:0",
    " 2023-11-14T22:13:26.009Z | producer | 1,2,3 | epoch-start | "
    f"epoch 0 starts at offset 0 on brokers 1, 2, 3 | orders-1/{SEG}:0",
    " 2023-11-14T22:13:55.000Z | coordinator | 1 | offsets-committed | "
    f"committed offset 4 on orders/1 | {OFFSETS}:353",
    " 2023-11-14T22:14:20.050Z | controller |  | leader-change | "
    f"leader 2 -> 3, epoch 1, isr [1,2,3] -> [1,3] | {META}:1369",
    " 2023-11-14T22:14:25.009Z | producer | 1,2,3 | epoch-start | "
    f"epoch 1 starts at offset 10 on brokers 1, 2, 3 | orders-1/{SEG}:171",
    " 2023-11-14T22:14:36.000Z | coordinator | 1 | offsets-committed | "
    f"committed offset 12 on orders/1 | {OFFSETS}:1154",
    " 2023-11-14T22:15:00.000Z | controller |  | isr-change | "
    f"isr [1,3] -> [3,1,2] | {META}:1929",
]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cluster")
    write_cluster(root)
    return root


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def rows(scr: TimelineScreen) -> list[str]:
    t = scr.query_one("#events")
    return [" | ".join(str(c) for c in t.get_row_at(i))  # type: ignore[attr-defined]
            for i in range(t.row_count)]  # type: ignore[attr-defined]


def status(scr: Any) -> str:
    return str(scr.query_one("#status").render())


async def read_all(app: BrowseApp, pilot: Any) -> TimelineScreen:
    await until(pilot, lambda: isinstance(app.screen, TimelineScreen)
                and app.screen.ended is not None, "the timeline read")
    await pilot.pause()
    assert isinstance(app.screen, TimelineScreen)
    return app.screen


def test_the_rows_are_the_partitions_timeline(cluster: Path) -> None:
    events = list(partition_events([str(cluster)], "orders", 1))
    assert [tl.event_cells(e)[3].plain for e in events] == [r.split(" | ")[3] for r in ROWS]


def test_T_in_the_tree_and_enter_on_a_batch_of_it(cluster: Path) -> None:
    async def go() -> None:
        app = BrowseApp([str(cluster)], check=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            tree = app.tree_screen.query_one("#tree")
            [b2] = [p for p in app.logdirs[1].partitions if p.name == "orders-1"]
            tree.move_cursor(app.tree_screen.leaves[id(b2)])  # type: ignore[attr-defined]
            await pilot.press("T")
            scr = await read_all(app, pilot)
            assert rows(scr) == ROWS
            assert status(scr) == "8 events  (Enter on a batch's event: the batch)"
            assert str(scr.query_one("#title").render()).startswith("orders-1  timeline: ")
            await pilot.press(*["down"] * 5)  # epoch 1 starts at offset 10
            await pilot.pause()
            b1 = cluster / "broker-1" / "orders-1" / SEG
            assert str(scr.query_one("#event").render()) == (
                f"orders/1: epoch 1 starts at offset 10 on brokers 1, 2, 3  @ {b1}:171")
            await pilot.press("i")  # in full: the replicas each
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen)
            assert [ln for ln in app.screen.text.plain.splitlines()
                    if ln.startswith("source")] == [
                f"source (broker {b}): {cluster / f'broker-{b}' / 'orders-1' / SEG} byte 171"
                for b in (1, 2, 3)]
            await pilot.press("escape", "enter")
            await pilot.pause()
            part = app.screen
            assert isinstance(part, PartitionScreen)
            assert part.node is b2  # the replica browsed, not the event's first (broker 1)
            row = part.current()
            assert row is not None and (row.position, row.offsets) == (171, "10-19")
            assert status(part) == "batch 10-19 at byte 171, 191 bytes, crc ok"
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TreeScreen)
            ld = tree.root.children[0]  # type: ignore[attr-defined]
            tree.move_cursor(ld)  # type: ignore[attr-defined]
            await pilot.press("T")  # on a log dir: said
            await pilot.pause()
            assert isinstance(app.screen, TreeScreen)
            assert status(app.screen) == "T: select a partition first (its timeline)"
    run(go())


def test_T_in_the_partition_screen_and_an_event_in_full(cluster: Path) -> None:
    async def go() -> None:
        app = BrowseApp([str(cluster / "broker-3"), str(cluster / "broker-1")], check=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.press("slash", *"orders-1", "enter")  # broker 3's (given first)
            await pilot.pause()
            part = app.screen
            assert isinstance(part, PartitionScreen) and "broker-3" in part.node.path
            await pilot.press("T")
            scr = await read_all(app, pilot)
            assert rows(scr) == [  # two replicas; the coordinator's read on broker 3's
                r.replace("| 1,2,3 |", "| 1,3 |").replace("brokers 1, 2, 3", "brokers 1, 3")
                .replace("| coordinator | 1 |", "| coordinator | 3 |") for r in ROWS]
            await pilot.press("enter")  # partition-created: the metadata log's, in full
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen)
            meta = cluster / "broker-3" / "__cluster_metadata-0" / SEG
            assert app.screen.text.plain.splitlines() == [
                "partition-created  orders/1",
                "2023-11-14T22:13:22.000Z (controller clock)",
                "created: replicas [1,2,3], leader 2, epoch 0", "offset 10",
                "related: orders/1: epoch 0 starts at offset 0 on brokers 1, 3 "
                "(2023-11-14T22:13:26.009Z, replica offset 0)",
                f"source: {meta} byte 606"]
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is scr
            await pilot.press("down", "down", "enter")  # epoch 0 starts: on broker 3's
            await pilot.pause()
            assert app.screen is part  # the partition screen under it, not a new one
            assert part.current().position == 0  # type: ignore[union-attr]
            await pilot.press("T")
            await read_all(app, pilot)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is part
    run(go())


def test_rows_past_the_bound_are_counted_and_said(cluster: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tl, "MAX_ROWS", 3)
    monkeypatch.setattr(tl, "CHUNK", 2)

    async def go() -> None:
        app = BrowseApp([str(cluster)], check=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.press("slash", *"orders-1", "enter", "T")
            scr = await read_all(app, pilot)
            assert rows(scr) == ROWS[:3]
            assert status(scr) == (
                "3 events, 5 more events not drawn (at most 3 rows: kdump timeline --topic "
                "orders --partition 1 lists them all)  (Enter on a batch's event: the batch)")
    run(go())


def test_escape_stops_the_read(cluster: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker pulls no event after Escape but the one it was waiting for."""
    gate = threading.Event()
    pulled: list[int] = []
    real = list(partition_events([str(cluster)], "orders", 1))

    def slow(paths: Sequence[str], topic: str, partition: int,
             max_batch_bytes: int) -> Iterator[TimelineEvent]:
        for i in range(1000):
            pulled.append(i)
            if i == 2:
                gate.wait(60)
            yield real[i % len(real)]

    monkeypatch.setattr(tl, "events_of", slow)

    async def go() -> None:
        app = BrowseApp([str(cluster)], check=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.press("slash", *"orders-1", "enter", "T")
            await until(pilot, lambda: len(pulled) == 3, "three events pulled")
            scr = app.screen
            assert isinstance(scr, TimelineScreen) and scr.ended is None
            assert status(scr) == "reading the timeline ... (Escape stops)"
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, PartitionScreen)
            gate.set()
            await until(pilot, lambda: not any(w.is_running for w in app.workers),
                        "the workers done")
            assert len(pulled) == 3
    run(go())


def test_every_string_of_an_event_is_inert() -> None:
    ev = TimelineEvent(1_700_000_000_000, "producer", "epoch-start", "replica",
                       "t[bold]/0", "epoch 0 starts \x1b[31m[red]x[/]", estimate=True,
                       file="/ld/t[bold]-0/00000000000000000000.log", position=7, broker=2)
    cells = tl.event_cells(ev)
    assert [c.plain for c in cells] == [
        "~2023-11-14T22:13:20.000Z", "producer", "2", "epoch-start",
        "epoch 0 starts \\x1b[31m[red]x[/]", "t[bold]-0/00000000000000000000.log:7"]
    assert all(not c.spans or all(s.style in ("yellow", "bold", "dim", "") for s in c.spans)
               for c in cells)
    assert tl.event_text(ev).plain.splitlines()[2] == "epoch 0 starts \\x1b[31m[red]x[/]"
