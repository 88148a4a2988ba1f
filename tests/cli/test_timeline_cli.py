"""``kdump timeline`` on the command line: exact text lines, JSON Lines of the declared
types, the table, --tz, --summary, the exit rule and usage errors, on the three-broker
cluster of tests/support/timeline_fixture.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kdump.model import type_errors
from tests.conftest import KdumpRunner
from tests.support import writer as w
from tests.support.timeline_fixture import write_cluster

BROKERS = ["broker-1", "broker-2", "broker-3"]
META = "broker-1/__cluster_metadata-0/00000000000000000000.log"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("cli-timeline") / "c"
    write_cluster(d)
    return d


def test_text_lines_around_a_time(kdump: KdumpRunner, root: Path) -> None:
    r = kdump("timeline", *BROKERS, "--around", "2023-11-14T22:14:20.080Z", "--window", "40ms",
              "--format", "text", cwd=root)
    assert r.rc == 0
    assert r.out.splitlines() == [
        " 2023-11-14T22:14:20.050Z  controller  leader-change        orders/1                   "
        f"leader 2 -> 3, epoch 1, isr [1,2,3] -> [1,3]  @ {META}:1369",
        "                           related: broker 2: in controlled shutdown "
        "(2023-11-14T22:14:20.000Z, metadata offset 15)",
        "                           related: broker 2: fenced (2023-11-14T22:14:20.080Z, "
        "metadata offset 20)",
        "                           related: orders/1: epoch 1 starts at offset 10 on brokers "
        "1, 2, 3 (2023-11-14T22:14:25.009Z, replica offset 10)",
        " 2023-11-14T22:14:20.050Z  controller  isr-change           orders/0                   "
        f"isr [1,2,3] -> [1,3]  @ {META}:1369",
        "                           related: broker 2: in controlled shutdown "
        "(2023-11-14T22:14:20.000Z, metadata offset 15)",
        "                           related: broker 2: fenced (2023-11-14T22:14:20.080Z, "
        "metadata offset 20)",
        " 2023-11-14T22:14:20.050Z  controller  isr-change           __consumer_offsets/0       "
        f"isr [1,2,3] -> [1,3]  @ {META}:1369",
        "                           related: broker 2: in controlled shutdown "
        "(2023-11-14T22:14:20.000Z, metadata offset 15)",
        "                           related: broker 2: fenced (2023-11-14T22:14:20.080Z, "
        "metadata offset 20)",
        " 2023-11-14T22:14:20.050Z  controller  isr-change           __transaction_state/0      "
        f"isr [1,2,3] -> [1,3]  @ {META}:1369",
        "                           related: broker 2: in controlled shutdown "
        "(2023-11-14T22:14:20.000Z, metadata offset 15)",
        "                           related: broker 2: fenced (2023-11-14T22:14:20.080Z, "
        "metadata offset 20)",
        " 2023-11-14T22:14:20.080Z  controller  broker-fenced        broker 2                   "
        f"fenced  @ {META}:1604",
        "                           related: orders/1: leader 2 -> 3, epoch 1, isr [1,2,3] -> "
        "[1,3] (2023-11-14T22:14:20.050Z, metadata offset 16)",
        "                           related: orders/0: isr [1,2,3] -> [1,3] "
        "(2023-11-14T22:14:20.050Z, metadata offset 17)",
        "                           related: __consumer_offsets/0: isr [1,2,3] -> [1,3] "
        "(2023-11-14T22:14:20.050Z, metadata offset 18)",
        "                           related: __transaction_state/0: isr [1,2,3] -> [1,3] "
        "(2023-11-14T22:14:20.050Z, metadata offset 19)",
    ]
    assert r.err == ("timeline: 5 events shown of 62 from 1 metadata log, 2 coordinator "
                     "partitions, 3 log dirs, 2023-11-14T22:14:20.050Z to "
                     "2023-11-14T22:14:20.080Z\n")


def test_tz_and_estimates(kdump: KdumpRunner, root: Path) -> None:
    r = kdump("timeline", *BROKERS, "--kind", "segment-roll", "--tz", "Europe/Paris",
              "--format", "text", cwd=root)
    assert r.out == (
        "~2023-11-14T23:15:10.004+0100  producer    segment-roll         orders/0                "
        "   segment 00000000000000000020.log rolled on broker 1 at offset 20 (at about its "
        "first batch's time; the previous segment's last batch: 2023-11-14T22:13:30.009Z)  "
        "@ broker-1/orders-0/00000000000000000020.log:0\n")


def test_json_lines_have_the_declared_types(kdump: KdumpRunner, root: Path) -> None:
    r = kdump("timeline", *BROKERS, "--format", "json", cwd=root)
    assert r.rc == 0
    objs = [json.loads(x) for x in r.out.splitlines()]
    assert [type_errors(o) for o in objs if type_errors(o)] == []
    assert objs[-1]["type"] == "timeline_end" and objs[-1]["events"] == len(objs) - 1
    kinds = {o["kind"] for o in objs[:-1]}
    assert {"quorum-leader", "broker-registered", "broker-fenced", "broker-shutdown",
            "leader-change", "isr-change", "epoch-start", "segment-roll", "log-start",
            "producer-epoch", "txn-begin", "txn-abort", "txn-commit", "txn-open", "txn-state",
            "group-rebalance", "offsets-committed", "clean-shutdown",
            "unclean-shutdown"} <= kinds
    summary = kdump("timeline", *BROKERS, "--summary", "--kind", "txn-abort", "--format",
                    "json", cwd=root)
    assert json.loads(summary.out.splitlines()[0]) == {
        "type": "timeline_count", "minute": 1700000100000, "kind": "txn-abort", "count": 1}


def test_table(kdump: KdumpRunner, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = kdump("timeline", *BROKERS, "--kind", "txn-abort", "--format", "table", cwd=root)
    assert r.rc == 0
    assert "txn-abort" in r.out and "coordinator epoch 5" in r.out
    # drawn at the end, so bounded: the rows past the bound (10 broker events, 3 drawn)
    # are counted, not kept
    import kdump.render.timeline as rt

    monkeypatch.setattr(rt, "TABLE_ROWS", 3)
    r = kdump("timeline", *BROKERS, "--kind", "broker", "--format", "table", cwd=root)
    assert r.err.splitlines()[0] == ("timeline: 7 more rows not drawn (a table holds 3): "
                                     "--format text or json writes them all")


def test_damage_exits_1_whatever_the_filters(kdump: KdumpRunner, tmp_path: Path) -> None:
    b = w.broker_logdir(tmp_path / "b", 1)
    w.write_replica(b / "orders-0", w.replica_batches([(0, 5, 0), (5, 5, 0)]))
    seg = b / "orders-0" / "00000000000000000000.log"
    data = bytearray(seg.read_bytes())
    data[12 + int.from_bytes(data[8:12], "big") + 16] = 7  # the second batch's magic
    seg.write_bytes(bytes(data))
    r = kdump("timeline", str(b), "--format", "text")
    assert r.rc == 1
    assert [x.split()[2] for x in r.out.splitlines()] == [
        "no-metadata-log", "log-start", "epoch-start", "finding", "unclean-shutdown"]
    assert "bad-magic" not in r.err  # said once, as the event
    hidden = kdump("timeline", str(b), "--kind", "epoch", "--format", "text")
    assert hidden.rc == 1 and "bad-magic" in hidden.err


@pytest.mark.parametrize(("args", "message"), [
    (["--around", "2023-11-14T22:14:20Z", "--from", "0"], "--around replaces --from and --to"),
    (["--tz", "Mars/Olympus"], "is not a time zone"),
    (["--window", "ten"], "is not a duration"),
    (["--from", "yesterday"], "neither epoch milliseconds nor an ISO-8601 time"),
])
def test_usage_errors_exit_2(kdump: KdumpRunner, root: Path, args: list[str],
                             message: str) -> None:
    r = kdump("timeline", *BROKERS, *args, cwd=root)
    assert r.rc == 2 and message in r.err, r.err


def test_the_collector_thresholds_are_restored(kdump: KdumpRunner, root: Path) -> None:
    """The run collects the youngest generation less often (kdump.cli.timeline
    fewer_collections) and puts the thresholds back, whatever they were."""
    import gc

    from kdump.cli.timeline import fewer_collections

    old = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with fewer_collections():
            assert gc.get_threshold() == (50_000, 20, 100)
        assert gc.get_threshold() == (700, 10, 10)
        r = kdump("timeline", *BROKERS, "--format", "json", cwd=root)
        assert r.rc == 0 and gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*old)
