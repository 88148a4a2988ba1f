"""``kdump retention`` (issue 31): every segment judged as UnifiedLog.deleteOldSegments
would judge it, the cleaner's view of compacted logs, totals, configs with their source,
bad input, the report's section, the shared corpus.

Fixtures: tests/support/retention_fixture.py (two brokers' log dirs written with the project's
encoders, KRaft metadata with ConfigRecords, a server.properties), judged at its
``NOW``; copies of it changed one file at a time for the time-index cases."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from kdump.model import type_errors
from tests.conftest import KdumpRunner
from tests.support import retention_fixture as rf
from tests.support import writer as w

NOW, HOUR, DAY, YEAR = rf.NOW, rf.HOUR, rf.DAY, rf.YEAR
CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "kafka2-logdir"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("retention")
    facts = rf.build(root)
    return root, facts


def _objs(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


def _run(kdump: KdumpRunner, root: Path, *args: str, paths: tuple[str, ...] = ("b1", "b2"),
         fmt: str = "json") -> Any:
    return kdump("retention", *paths, "--now", str(NOW), "--server-properties",
                 "server.properties", "--format", fmt, *args, cwd=root, watch=[root])


@pytest.fixture(scope="module")
def judged(world: tuple[Path, dict[str, Any]]) -> tuple[int, list[dict[str, Any]], str]:
    from tests.conftest import run_in_process

    root, _ = world
    r = run_in_process(["retention", "b1", "b2", "--now", str(NOW), "--server-properties",
                        "server.properties", "--format", "json"], cwd=root)
    return r.rc, _objs(r.out), r.err


def _verdicts(objs: list[dict[str, Any]]) -> dict[tuple[int, str, int], tuple[Any, ...]]:
    return {(o["broker_id"], f"{o['topic']}-{o['partition']}", o["base_offset"]):
            (o["deletable"], o["reason"], o["deletable_at"])
            for o in objs if o["type"] == "retention_segment"}


def test_every_segment_is_judged_as_delete_old_segments_would(judged: Any) -> None:
    rc, objs, err = judged
    got = _verdicts(objs)
    def gone(largest: int, retention: int, rule: str = "retention.ms") -> tuple[Any, ...]:
        return (True, rule, largest + retention + 1)  # deletable since

    expected = {
        # time: 10 and 5 days old go (retention.ms 2 days); 1 day and 1 hour old stay
        (1, "timed-0", 0): gone(NOW - 10 * DAY, 2 * DAY),
        (1, "timed-0", 10): gone(NOW - 5 * DAY, 2 * DAY),
        (1, "timed-0", 20): (False, "within-retention", NOW - DAY + 2 * DAY + 1),
        (1, "timed-0", 30): (False, "within-retention", NOW - HOUR + 2 * DAY + 1),
        # size: the excess covers two segments, and 10 bytes of the third
        (1, "sized-0", 0): (True, "retention.bytes", None),
        (1, "sized-0", 10): (True, "retention.bytes", None),
        (1, "sized-0", 20): (False, "no-time-retention", None),
        (1, "sized-0", 30): (False, "no-time-retention", None),
        (1, "sized-0", 40): (False, "no-time-retention", None),
        # log start offset 25: the segments wholly below it
        (1, "truncated-0", 0): (True, "log-start-offset", None),
        (1, "truncated-0", 10): (True, "log-start-offset", None),
        (1, "truncated-0", 20): (False, "within-retention", NOW - HOUR + 2 * DAY + 1),
        (1, "truncated-0", 30): (False, "within-retention", NOW - HOUR + 2 * DAY + 1),
        # high watermark 15: only the segment wholly below it, though all are breached
        (1, "lagging-0", 0): gone(NOW - 10 * DAY, DAY), (1, "lagging-0", 10): (False, "high-watermark", None),
        (1, "lagging-0", 20): (False, "high-watermark", None),
        (1, "lagging-0", 30): (False, "high-watermark", None),
        # compact only: nothing by retention, however old
        **{(1, "compacted-0", b): (False, "compact-policy", None) for b in (0, 10, 20, 30, 40)},
        # compact,delete: time retention still applies
        (1, "txn-0", 0): gone(NOW - 40 * DAY, 30 * DAY),
        (1, "txn-0", 10): (False, "within-retention", NOW - 3 * DAY + 30 * DAY + 1),
        (1, "txn-0", 20): (False, "within-retention", NOW - 2 * DAY + 30 * DAY + 1),
        (1, "txn-0", 30): (False, "within-retention", NOW - DAY + 30 * DAY + 1),
        # a batch a year ahead: its segment and every one behind it stay a year and a day
        (1, "future-0", 0): gone(NOW - 10 * DAY, DAY),
        (1, "future-0", 10): (False, "future-timestamp", NOW + YEAR + DAY + 1),
        (1, "future-0", 20): (False, "pinned", NOW + YEAR + DAY + 1),
        (1, "future-0", 30): (False, "pinned", NOW + YEAR + DAY + 1),
        # magic 0: the files' mtimes (3 days, 1 hour) against 48 hours (server.properties)
        (1, "legacy-0", 0): gone(NOW - 3 * DAY, 2 * DAY),
        (1, "legacy-0", 10): (False, "within-retention", NOW - HOUR + 2 * DAY + 1),
        (1, "plain-0", 0): gone(NOW - 3 * DAY, 2 * DAY),
        (1, "plain-0", 10): (False, "within-retention", NOW - 2 * HOUR + 2 * DAY + 1),
        (1, "plain-0", 20): (False, "within-retention", NOW - 30 * 60_000 + 2 * DAY + 1),
        # tiered: local.retention.ms 1 day, offsets 0-19 copied
        (1, "tiered-0", 0): gone(NOW - 5 * DAY, DAY, "local.retention.ms"),
        (1, "tiered-0", 10): gone(NOW - 5 * DAY, DAY, "local.retention.ms"),
        (1, "tiered-0", 20): (False, "not-copied-to-remote", None),
        (1, "tiered-0", 30): (False, "not-copied-to-remote", None),
        (1, "__consumer_offsets-0", 0): (False, "compact-policy", None),
        (1, "__remote_log_metadata-0", 0): (False, "no-time-retention", None),
        (1, "__cluster_metadata-0", 0): (False, "kraft-metadata", None),
        # broker 2: its own high watermark, its own dynamic log.retention.ms (1 hour)
        (2, "timed-0", 0): gone(NOW - 10 * DAY, 2 * DAY), (2, "timed-0", 10): (False, "high-watermark", None),
        (2, "timed-0", 20): (False, "high-watermark", None),
        (2, "timed-0", 30): (False, "high-watermark", None),
        (2, "plain-0", 0): gone(NOW - 3 * DAY, HOUR),
        (2, "plain-0", 10): gone(NOW - 2 * HOUR, HOUR),
        (2, "plain-0", 20): (False, "within-retention", NOW - 30 * 60_000 + HOUR + 1),
    }
    assert got == expected
    # exit 1: the future-stamped batch is a problem of the data (one finding)
    assert rc == 1, err


def test_the_future_stamped_batch_is_named(judged: Any, world: Any) -> None:
    _, objs, err = judged
    _, facts = world
    segs = {(o["broker_id"], o["topic"], o["base_offset"]): o for o in objs
            if o["type"] == "retention_segment"}
    pin = {"segment": "b1/future-0/00000000000000000010.log", "reason": "largest timestamp",
           "largest_timestamp": NOW + YEAR,
           "batch": {"file": "b1/future-0/00000000000000000010.log",
                     "position": facts["future_position"], "offset": 15, "last_offset": 15,
                     "timestamp": NOW + YEAR, "timestamp_type": "CreateTime", "producer_id": 77}}
    for base in (10, 20, 30):
        assert segs[(1, "future", base)]["pinned_by"] == pin
    assert segs[(1, "future", 20)]["detail"] == \
        f"kept behind 00000000000000000010.log (largest timestamp {NOW + YEAR})"
    problems = [o for o in objs if o["type"] == "problem"]
    assert [(p["file"], p["position"], p["kind"], p["severity"], p["base_offset"])
            for p in problems] == [("b1/future-0/00000000000000000010.log",
                                    facts["future_position"], "future-timestamp", "warning", 15)]
    assert "producer id 77" in problems[0]["detail"]
    # on stderr in text, one line
    assert err == ""


def test_text_names_the_batch_and_exits_one(kdump: KdumpRunner, world: Any) -> None:
    root, facts = world
    r = _run(kdump, root, paths=("b1",), fmt="text")
    assert r.rc == 1
    lines = r.out.splitlines()
    assert lines[0] == "retention at 2025-06-15T15:06:40.000Z (--now); Kafka 4.1 rules " \
                       "(metadata.version 27, 4.1-IV1)"
    assert "  00000000000000000020.log 211 bytes, largest timestamp 2025-06-07T15:06:40.000Z " \
        "(time-index): kept: pinned, deletable from 2026-06-16T15:06:40.001Z" in lines
    held = [x for x in lines if x.startswith("    held by 00000000000000000010.log")]
    assert held == [f"    held by 00000000000000000010.log: the batch at position "
                    f"{facts['future_position']}, offset 15, timestamp "
                    "2026-06-15T15:06:40.000Z (1781536000000, CreateTime), producer id 77"] * 3
    assert r.err_lines == [
        f"b1/future-0/00000000000000000010.log: position {facts['future_position']}: "
        "future-timestamp [warning]: the segment's largest timestamp 1781536000000 is later "
        f"than now ({NOW}) (the batch at position {facts['future_position']}, offset 15, "
        "producer id 77): time retention keeps it, and every segment after it, until "
        "1781622400001 (base offset 15)"]
    # broker 2 alone: nothing in its data is wrong
    r2 = _run(kdump, root, paths=("b2",), fmt="text")
    assert (r2.rc, r2.err) == (0, "")


def test_compaction_views(judged: Any, world: Any) -> None:
    root, _ = world
    _, objs, _ = judged
    comp = {(o["broker_id"], o["topic"]): o for o in objs if o["type"] == "retention_compaction"}
    assert sorted(comp) == [(1, "__consumer_offsets"), (1, "compacted"), (1, "txn")]

    def size(part: str, base: int) -> int:
        return (root / "b1" / part / f"{base:020d}.log").stat().st_size

    c = comp[(1, "compacted")]
    clean = size("compacted-0", 0)
    dirty = sum(size("compacted-0", b) for b in (10, 20, 30))
    assert {k: c[k] for k in ("cleaner_checkpoint", "first_dirty_offset",
                              "first_uncleanable_offset", "uncleanable_because", "clean_bytes",
                              "dirty_bytes", "dirty_ratio", "cleanable", "compaction_due",
                              "last_stable_offset", "open_transactions", "tombstones",
                              "markers")} == {
        "cleaner_checkpoint": 10, "first_dirty_offset": 10, "first_uncleanable_offset": 40,
        "uncleanable_because": "the active segment 00000000000000000040.log",
        "clean_bytes": clean, "dirty_bytes": dirty,
        "dirty_ratio": round(dirty / (clean + dirty), 6), "cleanable": True,
        "compaction_due": False, "last_stable_offset": 45, "open_transactions": [],
        "tombstones": {"count": 4, "past_horizon": 2, "waiting": 1, "no_horizon": 1,
                       "next_horizon": NOW + 5 * HOUR},
        "markers": {"count": 0, "past_horizon": 0, "waiting": 0, "no_horizon": 0,
                    "next_horizon": None}}
    assert c["evidence"] == [
        "cleanable now and the cleaner checkpoint is at 10; the dirty part starts in "
        f"00000000000000000010.log (largest timestamp {NOW - 15 * DAY}): a running cleaner "
        "takes the dirtiest log first, every log.cleaner.backoff.ms (15 s) at most when idle",
        f"dirty data from {NOW - 15 * DAY} (360 h before now) waits in a cleanable log: a "
        "cleaner that cleans would have taken it; it is stuck, busy with dirtier logs "
        "(log.cleaner.threads), or the partition is marked uncleanable (log-cleaner.log says "
        "which)"]
    t = comp[(1, "txn")]
    assert (t["cleaner_checkpoint"], t["first_dirty_offset"], t["first_uncleanable_offset"],
            t["uncleanable_because"], t["clean_bytes"], t["dirty_bytes"], t["dirty_ratio"],
            t["cleanable"], t["last_stable_offset"]) == (
        None, 0, 20, "the last stable offset 22: an open transaction of producer 4242 from "
        "offset 22", 0, size("txn-0", 0) + size("txn-0", 10), 1.0, True, 22)
    assert [(x["producer_id"], x["first_offset"]) for x in t["open_transactions"]] == [(4242, 22)]
    assert t["markers"] == {"count": 1, "past_horizon": 0, "waiting": 0, "no_horizon": 1,
                            "next_horizon": None}
    assert t["evidence"][0].startswith("no cleaner-offset-checkpoint entry although the log is "
                                       "cleanable: the cleaner has never cleaned it")
    assert t["evidence"][1].startswith(f"dirty data from {NOW - 40 * DAY} (960 h before now)")
    assert len(t["evidence"]) == 2
    co = comp[(1, "__consumer_offsets")]
    assert (co["first_uncleanable_offset"], co["uncleanable_because"], co["dirty_ratio"],
            co["cleanable"], co["evidence"]) == (
        0, "the active segment 00000000000000000000.log", None, False, [])


def test_compaction_lags(kdump: KdumpRunner, world: Any) -> None:
    """min.compaction.lag.ms moves the first uncleanable offset to the first dirty
    segment too young for it; max.compaction.lag.ms makes a log due whatever its ratio."""
    root, _ = world

    def view(*args: str) -> dict[str, Any]:
        r = _run(kdump, root, *args, paths=("b1",))
        return next(o for o in _objs(r.out) if o["type"] == "retention_compaction"
                    and o["topic"] == "compacted")

    def size(base: int) -> int:
        return (root / "b1" / "compacted-0" / f"{base:020d}.log").stat().st_size

    v = view("--config", f"compacted:min.compaction.lag.ms={15 * DAY}")
    assert (v["first_uncleanable_offset"], v["uncleanable_because"], v["dirty_bytes"],
            v["cleanable"], v["compaction_due"]) == (
        20, f"min.compaction.lag.ms={15 * DAY}: 00000000000000000020.log's largest timestamp "
            f"{NOW - 14 * DAY} is within it", size(10), False, False)
    assert v["dirty_ratio"] == round(size(10) / (size(0) + size(10)), 6)
    v = view("--config", f"compacted:min.compaction.lag.ms={15 * DAY}", "--config",
             f"compacted:max.compaction.lag.ms={10 * DAY}")
    assert (v["compaction_due"], v["earliest_dirty_timestamp"], v["cleanable"]) == (
        True, NOW - 15 * DAY, True)


def test_totals_keep_brokers_apart(judged: Any, world: Any) -> None:
    root, _ = world
    _, objs, _ = judged

    def disk(part: Path) -> dict[int, int]:
        out: dict[int, int] = {}
        for p in part.iterdir():
            stem, _, suffix = p.name.partition(".")
            if stem.isdigit() and suffix in ("log", "index", "timeindex", "txnindex"):
                out[int(stem)] = out.get(int(stem), 0) + p.stat().st_size
        return out

    parts = {(o["broker_id"], o["topic"]): o for o in objs if o["type"] == "retention_partition"}
    t1 = disk(root / "b1" / "timed-0")
    p = parts[(1, "timed")]
    assert (p["bytes"], p["deletable_bytes"], p["deletable_24h_bytes"],
            p["deletable_7d_bytes"], p["held"], p["next_deletion"]) == (
        # segment 20 goes at NOW + 1 day + 1 ms: not within 24 hours
        sum(t1.values()), t1[0] + t1[10], t1[0] + t1[10], sum(t1.values()),
        {"within-retention": t1[20] + t1[30]}, NOW + DAY + 1)
    assert (p["high_watermark"], p["high_watermark_source"], p["log_end_offset"],
            p["retention_ms"]) == (35, "replication-offset-checkpoint", 35, 2 * DAY)
    p2 = parts[(2, "timed")]
    t2 = disk(root / "b2" / "timed-0")
    assert (p2["high_watermark"], p2["deletable_bytes"], p2["held"]) == (
        12, t2[0], {"high-watermark": t2[10] + t2[20] + t2[30]})
    totals = [o for o in objs if o["type"] == "retention_total"]
    logdirs = {o["broker_id"]: o for o in totals if o["scope"] == "log_dir"}
    assert sorted(logdirs) == [1, 2]
    for b in (1, 2):
        mine = [o for o in objs if o["type"] == "retention_partition" and o["broker_id"] == b]
        assert logdirs[b]["bytes"] == sum(o["bytes"] for o in mine)
        assert logdirs[b]["deletable_bytes"] == sum(o["deletable_bytes"] for o in mine)
        assert logdirs[b]["partitions"] == len(mine)
    topic_timed = [(o["broker_id"], o["bytes"]) for o in totals
                   if o["scope"] == "topic" and o["topic"] == "timed"]
    assert topic_timed == [(1, sum(t1.values())), (2, sum(t2.values()))]


def test_configs_say_where_they_come_from(judged: Any) -> None:
    _, objs, _ = judged
    cfg = {(o["broker_id"], o["topic"], o["name"]): (o["value"], o["source"])
           for o in objs if o["type"] == "retention_config"}
    assert cfg[(1, "plain", "retention.ms")] == (
        str(2 * DAY), "server.properties log.retention.hours (line 2)")
    assert cfg[(2, "plain", "retention.ms")] == (
        str(HOUR), "broker 2 config log.retention.ms (ConfigRecord at offset 24)")
    assert re.fullmatch(r"topic config retention\.ms \(ConfigRecord at offset \d+\)",
                        cfg[(1, "timed", "retention.ms")][1])
    assert cfg[(1, "__consumer_offsets", "cleanup.policy")] == (
        "compact", "assumed: Kafka creates __consumer_offsets with cleanup.policy=compact "
        "(GroupCoordinatorService.groupMetadataTopicConfigs)")
    assert cfg[(1, "txn", "cleanup.policy")][0] == "compact,delete"
    assert cfg[(1, "timed", "retention.bytes")] == ("-1", "default (LogConfig)")
    assert cfg[(1, "timed", "log.cleaner.enable")] == ("true", "default (KafkaConfig)")
    assert cfg[(1, "timed", "segment.bytes")] == (
        "1073741824", "server.properties log.segment.bytes (line 3)")
    # the KRaft metadata log shows what trims it (after snapshots), not topic retention
    assert {k[2]: v for k, v in cfg.items() if k[:2] == (1, "__cluster_metadata")} == {
        "metadata.max.retention.ms": ("604800000", "default (KafkaConfig)"),
        "metadata.max.retention.bytes": ("104857600", "default (KafkaConfig)")}
    run = objs[0]
    assert {k: run[k] for k in ("type", "now", "now_source", "kafka_version",
                                "kafka_version_source", "overrides", "log_dirs")} == {
        "type": "retention_run", "now": NOW, "now_source": "--now", "kafka_version": "4.1",
        "kafka_version_source": "metadata.version 27, 4.1-IV1", "overrides": [],
        "log_dirs": [{"log_dir": "b1", "broker_id": 1}, {"log_dir": "b2", "broker_id": 2}]}


def test_objects_match_the_model(judged: Any) -> None:
    _, objs, _ = judged
    kinds = set()
    for o in objs:
        assert type_errors(o) == [], o
        kinds.add(o["type"])
    assert kinds == {"retention_run", "retention_config", "retention_segment",
                     "retention_partition", "retention_compaction", "retention_total",
                     "retention_disk", "problem"}


def test_config_option_and_kafka_version(kdump: KdumpRunner, world: Any) -> None:
    """--config wins over the metadata; an empty cleanup.policy with remote storage is
    local retention from 4.2 and the log-start-offset rule alone before."""
    root, _ = world

    def verdicts(*args: str) -> dict[tuple[int, str, int], tuple[Any, ...]]:
        r = _run(kdump, root, *args, paths=("b1",))
        assert r.rc in (0, 1), r.err
        return _verdicts(_objs(r.out))

    v = verdicts("--config", "timed:retention.ms=1800000", "--config", "future:retention.ms=-1")
    assert [v[(1, "timed-0", b)][:2] for b in (0, 10, 20, 30)] == [(True, "retention.ms")] * 4
    assert {v[(1, "future-0", b)][1] for b in (0, 10, 20, 30)} == {"no-time-retention"}
    empty = ("--config", "tiered:cleanup.policy=")
    assert [v2[:2] for b in (0, 10, 20, 30)
            for v2 in [verdicts(*empty, "--kafka-version", "4.2")[(1, "tiered-0", b)]]] == [
        (True, "local.retention.ms"), (True, "local.retention.ms"),
        (False, "not-copied-to-remote"), (False, "not-copied-to-remote")]
    old = verdicts(*empty, "--kafka-version", "4.1")
    assert {old[(1, "tiered-0", b)][1] for b in (0, 10, 20, 30)} == {"empty-policy"}
    three = verdicts("--kafka-version", "3.6")
    assert three[(1, "timed-0", 10)] == (True, "retention.ms", NOW - 3 * DAY + 1)


def test_cleaner_disabled_stops_compacted_logs(kdump: KdumpRunner, world: Any,
                                               tmp_path: Path) -> None:
    root, _ = world
    props = tmp_path / "server.properties"
    props.write_text(rf.SERVER_PROPERTIES + "log.cleaner.enable=false\n")
    r = kdump("retention", "b1", "--now", str(NOW), "--server-properties", str(props),
              "--format", "json", cwd=root)
    objs = _objs(r.out)
    v = _verdicts(objs)
    assert {v[(1, "txn-0", b)][1] for b in (0, 10, 20, 30)} == {"cleaner-disabled"}
    assert v[(1, "timed-0", 0)][:2] == (True, "retention.ms")
    comp = {o["topic"]: o for o in objs if o["type"] == "retention_compaction"}
    assert comp["compacted"]["cleanable"] is False
    assert comp["compacted"]["evidence"][0] == \
        "log.cleaner.enable=false: no cleaner runs on this broker"


@pytest.mark.parametrize(("props", "message"), [
    ("log.retention.hours\n", "line 1: 'log.retention.hours' is not key=value"),
    ("a=1\nlog.retention.hour=5\n",
     "unknown key 'log.retention.hour' (Kafka ignores it: a typo?)"),
    ("log.segment.ms=1000\n", "unknown key 'log.segment.ms' (did you mean log.roll.ms?)"),
    ("retention.ms=1000\n", "unknown key 'retention.ms': a topic config, which a broker reads "
     "as log.retention.ms; Kafka ignores it here"),
    ("# x\nlog.retention.ms=forever\n", "line 2: log.retention.ms: 'forever' is not a number"),
    ("log.cleanup.policy=compact,truncate\n",
     "line 1: log.cleanup.policy: 'truncate' is not one of compact, delete"),
    ("key=\\uZZZZ\n", "line 1: malformed \\uxxxx escape in 'key=\\\\uZZZZ'"),
])
def test_bad_server_properties_are_one_line_exit_2(kdump: KdumpRunner, world: Any,
                                                   tmp_path: Path, props: str,
                                                   message: str) -> None:
    root, _ = world
    f = tmp_path / "server.properties"
    f.write_text(props)
    r = kdump("retention", "b1", "--server-properties", str(f), cwd=root)
    assert (r.rc, r.out) == (2, "")
    where = f"line {props.count(chr(10))}" if "unknown" in message else ""
    assert r.err == f"kdump: --server-properties {f}: " + (
        f"{where}: {message}" if where else message) + "\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--config", "timed:retention.ms=abc"],
     "--config 'timed:retention.ms=abc': retention.ms: 'abc' is not a number"),
    (["--config", "timed:retention.ms=-5"],
     "--config 'timed:retention.ms=-5': retention.ms: -5 is below -1, the least LogConfig "
     "accepts"),
    (["--config", "timed:log.retention.ms=5"],
     "--config 'timed:log.retention.ms=5': unknown topic config 'log.retention.ms' (the topic "
     "config is retention.ms)"),
    (["--config", "timed=5"],
     "--config 'timed=5': expected TOPIC:KEY=VALUE (e.g. orders:retention.ms=86400000)"),
    (["--now", "yesterday"],
     "--now 'yesterday': 'yesterday' is neither epoch milliseconds nor an ISO-8601 time "
     "(e.g. 2024-05-01T09:14:00Z)"),
    (["--server-properties", "nowhere.properties"],
     "--server-properties nowhere.properties: no such file or directory"),
])
def test_bad_options_are_one_line_exit_2(kdump: KdumpRunner, world: Any, args: list[str],
                                         message: str) -> None:
    root, _ = world
    r = kdump("retention", "b1", *args, cwd=root, watch=[root])
    assert (r.rc, r.out, r.err) == (2, "", f"kdump: {message}\n")


def test_epoch_seconds_for_now_and_an_old_kafka_are_refused(kdump: KdumpRunner,
                                                            world: Any) -> None:
    root, _ = world
    r = kdump("retention", "b1", "--now", "1750000000", cwd=root)
    assert r.rc == 2 and r.err.startswith("kdump: --now '1750000000': 1750000000 looks like "
                                          "epoch seconds (2025-06-15T15:06:40Z); --now takes")
    r = kdump("retention", "b1", "--kafka-version", "2.8", cwd=root)
    assert r.rc == 2 and "unsupported Kafka version '2.8'" in r.err


def test_a_bad_config_record_is_a_finding_and_the_next_source_applies(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    d = w.broker_logdir(tmp_path / "b1", 1, high_watermarks=[("t", 0, 10)])
    rf._partition(d / "t-0", [[rf._span(0, 10, NOW - 10 * DAY)]])
    ml = w.MetadataLogWriter(d / "__cluster_metadata-0")
    ml.append([w.metadata_record("ConfigRecord", {"resourceType": 2, "resourceName": "t",
                                                  "name": "retention.ms", "value": "soon"})])
    ml.close()
    r = kdump("retention", "b1", "--now", str(NOW), "--format", "json", cwd=tmp_path)
    objs = _objs(r.out)
    cfg = {o["name"]: o for o in objs if o["type"] == "retention_config" and o["topic"] == "t"}
    assert (cfg["retention.ms"]["value"], cfg["retention.ms"]["source"]) == (
        str(7 * DAY), "default (LogConfig)")
    probs = [o for o in objs if o["type"] == "problem"]
    assert [(p["kind"], p["severity"]) for p in probs] == [("metadata-record", "warning")]
    assert "ConfigRecord topic config retention.ms='soon' (ConfigRecord at offset 0): 'soon' " \
           "is not a number" in probs[0]["detail"]
    assert r.rc == 1


# ------------------------------------------------------------------ LogSegment.largestTimestamp


def _copy(world: Any, tmp_path: Path) -> Path:
    root, _ = world
    d = tmp_path / "b1"
    shutil.copytree(root / "b1" / "timed-0", d / "timed-0")
    shutil.copy(root / "b1" / "replication-offset-checkpoint", d)
    shutil.copy(root / "b1" / "meta.properties", d)
    return d


def _segments(kdump: KdumpRunner, d: Path, *args: str) -> dict[int, dict[str, Any]]:
    r = kdump("retention", str(d), "--now", str(NOW), "--config", "timed:retention.ms="
              + str(2 * DAY), "--format", "json", *args, watch=[d])
    assert r.rc == 0, r.err
    return {o["base_offset"]: o for o in _objs(r.out) if o["type"] == "retention_segment"}


def test_a_closed_segment_reads_its_last_time_index_entry(kdump: KdumpRunner, world: Any,
                                                          tmp_path: Path) -> None:
    d = _copy(world, tmp_path)
    # the last entry is what Kafka loads: make the batches disagree (verify-index's
    # business) and the verdict follows the index, not the batches
    tix = d / "timed-0" / "00000000000000000010.timeindex"
    data = bytearray(tix.read_bytes())
    assert len(data) == 12
    data[0:8] = (NOW - HOUR).to_bytes(8, "big")
    tix.write_bytes(bytes(data))
    s = _segments(kdump, d)
    assert (s[10]["largest_timestamp"], s[10]["timestamp_source"], s[10]["reason"]) == (
        NOW - HOUR, "time-index", "within-retention")
    assert s[20]["reason"] == "pinned"  # behind it now


def test_broken_time_indexes_fall_back_as_the_broker_would(kdump: KdumpRunner, world: Any,
                                                           tmp_path: Path) -> None:
    d = _copy(world, tmp_path)
    p = d / "timed-0"
    (p / "00000000000000000000.timeindex").unlink()
    (p / "00000000000000000010.timeindex").write_bytes(
        (p / "00000000000000000010.timeindex").read_bytes() + bytes(24))
    (p / "00000000000000000020.timeindex").write_bytes(b"\x00" * 13)
    s = _segments(kdump, d)
    assert [(s[b]["largest_timestamp"], s[b]["timestamp_source"], s[b]["timestamp_note"])
            for b in (0, 10, 20)] == [
        (NOW - 10 * DAY, "batches", "no time index (the broker rebuilds it from the batches)"),
        (NOW - 5 * DAY, "batches", "the time index has preallocated zero slots (an unclean "
                                   "stop: the broker recovers the segment)"),
        (NOW - DAY, "batches", "the time index fails TimeIndex.sanityCheck (the broker "
                               "rebuilds it)")]
    assert [s[b]["deletable"] for b in (0, 10, 20, 30)] == [True, True, False, False]


def test_an_emptied_time_index_means_the_mtime(kdump: KdumpRunner, world: Any,
                                               tmp_path: Path) -> None:
    """An empty time index on a closed segment: TimeIndex.lastEntry is (-1, base), so
    largestTimestamp is the file's mtime, whatever the batches say (said in a note)."""
    d = _copy(world, tmp_path)
    p = d / "timed-0"
    (p / "00000000000000000020.timeindex").write_bytes(b"")
    t = (NOW - 3 * DAY) / 1000
    os.utime(p / "00000000000000000020.log", (t, t))
    s = _segments(kdump, d)
    assert (s[20]["largest_timestamp"], s[20]["timestamp_source"], s[20]["deletable"]) == (
        NOW - 3 * DAY, "mtime", True)
    assert s[20]["timestamp_note"] == (
        f"empty time index: Kafka uses the file's mtime, though the batches carry "
        f"timestamps up to {NOW - DAY}")


def test_no_high_watermark_checkpoint_assumes_the_log_end(kdump: KdumpRunner, world: Any,
                                                          tmp_path: Path) -> None:
    d = _copy(world, tmp_path)
    (d / "replication-offset-checkpoint").unlink()
    r = kdump("retention", str(d), "--now", str(NOW), "--format", "json")
    part = next(o for o in _objs(r.out) if o["type"] == "retention_partition")
    assert (part["high_watermark"], part["high_watermark_source"]) == (
        35, "assumed the log end offset: no replication-offset-checkpoint entry (a live "
            "broker's high watermark is near it)")


# ------------------------------------------------------------------ the walk, unit by unit


def _seg(base: int, size: int, largest: int, active: bool = False) -> Any:
    from kdump.ops.retention.segment_ages import Segment

    return Segment(f"/x/{base:020d}.log", base, size, None, active, largest, "time-index")


def _decide(segs: list[Any], *, hw: int | None = None, leo: int | None = None, **policy: Any
            ) -> list[tuple[bool, str, int | None]]:
    from kdump.ops.retention.rules import LogState, Policy, decide

    segs[-1].active = True
    leo = leo if leo is not None else segs[-1].base_offset + 10
    p = Policy(**{"release": "4.1", "delete": True, "compact": False, "retention_ms": 100,
                  "retention_bytes": -1, **policy})
    st = LogState(segs, leo, leo if hw is None else hw, segs[0].base_offset, segs[0].base_offset)
    return [(v.deletable, v.reason, v.deletable_at) for v in decide(st, p, 1000)]


def test_time_is_strictly_more_than_retention() -> None:
    # startMs - largestTimestamp > retentionMs: 900 is exactly 100 before 1000
    assert _decide([_seg(0, 10, 899), _seg(10, 10, 900), _seg(20, 10, 950)]) == [
        (True, "retention.ms", 1000),  # deletable since 899 + 100 + 1
        (False, "within-retention", 1001), (False, "within-retention", 1051)]


def test_size_takes_a_segment_while_the_excess_covers_it() -> None:
    # size 40, retention.bytes 20: diff 20 covers 10, then 10 exactly (diff - size >= 0)
    segs = [_seg(0, 10, 990), _seg(10, 10, 990), _seg(20, 10, 990), _seg(30, 10, 990)]
    assert [v[:2] for v in _decide(segs, retention_bytes=20, retention_ms=-1)] == [
        (True, "retention.bytes"), (True, "retention.bytes"), (False, "no-time-retention"),
        (False, "no-time-retention")]
    # below retention.bytes: the size rule does not run
    assert {v[1] for v in _decide(segs, retention_bytes=41, retention_ms=-1)} == \
        {"no-time-retention"}


def test_the_active_segment_with_and_without_remote_storage() -> None:
    # no remote storage: a breached active segment is deleted (after deleteSegments rolls)
    segs = [_seg(0, 10, 1), _seg(10, 10, 2)]
    assert _decide(segs) == [(True, "retention.ms", 102), (True, "retention.ms", 103)]
    # remote storage: it is rolled, and waits for its copy
    got = _decide([_seg(0, 10, 1), _seg(10, 10, 2)], remote=True, remote_copy=True,
                  highest_remote_offset=9)
    assert got == [(True, "local.retention.ms", 102), (False, "not-copied-to-remote", None)]
    # an empty last segment is never taken
    assert _decide([_seg(0, 10, 1), _seg(10, 0, 2)], leo=10) == [
        (True, "retention.ms", 102), (False, "empty-active-segment", None)]


def test_the_remote_roll_is_said() -> None:
    from kdump.ops.retention.rules import LogState, Policy, decide

    segs = [_seg(0, 10, 1, active=True)]
    st = LogState(segs, 10, 10, 0, 0)
    v = decide(st, Policy("4.1", True, False, 100, -1, True, True, -1), 1000)
    assert v[0].reason == "not-copied-to-remote"
    assert v[0].detail.endswith("retention.ms is breached by the active segment: the broker "
                                "rolls it (deletableSegments) and deletes it once copied to "
                                "remote storage")


def test_an_old_segment_behind_a_young_one_is_pinned_by_it() -> None:
    assert _decide([_seg(0, 10, 500), _seg(10, 10, 1), _seg(20, 10, 2000)],
                   retention_ms=600) == [
        (False, "within-retention", 1101), (False, "pinned", 1101),
        (False, "future-timestamp", 2601)]


# ------------------------------------------------------------------ configs


def test_config_precedence() -> None:
    from kdump.files.text import PropertyLine
    from kdump.ops.topics.config import MetadataConfigs, Resolver, ServerProperties

    def props(**kv: str) -> ServerProperties:
        s = ServerProperties("server.properties")
        for i, (k, v) in enumerate(kv.items(), start=1):
            key = k.replace("_", ".")
            s.values[key] = PropertyLine(key, v, i, 0)
        return s

    md = MetadataConfigs(source="m")
    md.configs[("TOPIC", "t")] = {"retention.ms": ("10", "at 1")}
    md.configs[("BROKER", "1")] = {"log.retention.ms": ("20", "at 2")}
    md.configs[("BROKER", "")] = {"log.retention.ms": ("30", "at 3"),
                                  "log.retention.bytes": ("40", "at 4")}
    server = props(log_retention_hours="2", log_retention_minutes="3", log_retention_bytes="-7")
    r = Resolver(overrides=[("t", "retention.ms", "5")], metadata=md, servers=[server])

    def ms(topic: str, broker: int | None) -> tuple[Any, str]:
        s = r.topic(topic, broker)["retention.ms"]
        return s.value, s.source

    assert ms("t", 1) == (5, "--config")
    assert Resolver(metadata=md).topic("t", 1)["retention.ms"].value == 10
    assert ms("u", 1) == (20, "broker 1 config log.retention.ms (at 2)")
    assert ms("u", 2) == (30, "cluster default config log.retention.ms (at 3)")
    # a dynamic log.retention.ms removes the static synonyms: bytes come from the cluster
    # default too; without dynamic configs, minutes beat hours
    assert r.topic("u", 2)["retention.bytes"].value == 40
    bare = Resolver(servers=[server])
    assert (bare.topic("u", 1)["retention.ms"].value,
            bare.topic("u", 1)["retention.ms"].source) == (
        3 * 60_000, "server.properties log.retention.minutes (line 2)")
    neg = Resolver(servers=[props(log_retention_hours="-3")])
    assert neg.topic("u", 1)["retention.ms"].value == -1
    assert Resolver().topic("u", None)["retention.ms"].source == "default (LogConfig)"


def test_server_properties_per_broker() -> None:
    from kdump.ops.topics.config import Resolver, ServerProperties

    a, b, c = ServerProperties("a", broker_id=1), ServerProperties("b", broker_id=2), \
        ServerProperties("c")
    r = Resolver(servers=[a, b, c])
    assert (r.server_for(1), r.server_for(2), r.server_for(3), r.server_for(None)) == (a, b, c, c)
    assert Resolver(servers=[a]).server_for(7) is a


# ------------------------------------------------------------------ the report, real data


def test_report_has_a_retention_section(kdump: KdumpRunner, world: Any) -> None:
    root, _ = world
    r = kdump("report", "b1", "b2", "--format", "json", cwd=root, watch=[root])
    objs = _objs(r.out)
    names = [o["name"] for o in objs if o["type"] == "section"]
    # the timeline section (kdump timeline's, merged after retention) comes last
    assert names[-2:] == ["retention", "timeline"]
    i = next(k for k, o in enumerate(objs) if o["type"] == "section" and o["name"] == "retention")
    j = next(k for k, o in enumerate(objs) if o["type"] == "section" and o["name"] == "timeline")
    section = objs[i + 1:j]
    assert section[0]["type"] == "retention_run"
    assert section[0]["now_source"] == "the report's start"
    assert {o["type"] for o in section} >= {"retention_segment", "retention_partition",
                                             "retention_total", "retention_compaction"}
    assert all(o["type"].startswith("retention_") for o in section), section


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not here")
def test_shared_corpus_verdicts_make_sense(kdump: KdumpRunner) -> None:
    """A real Kafka 2.x broker's log dir: __consumer_offsets is compacted (creation
    config), its empty partitions keep their one empty segment, first_topic's lone active
    segments are from 2020 and go (a new empty segment first), timestamps read from the
    batches of active segments."""
    r = kdump("retention", str(CORPUS), "--now", "2024-01-01T00:00:00Z", "--format", "json",
              watch=[CORPUS])
    assert r.rc == 0, r.err
    objs = _objs(r.out)
    segs = [o for o in objs if o["type"] == "retention_segment"]
    assert len(segs) == 54
    for o in segs:
        if o["topic"] == "__consumer_offsets":
            assert (o["deletable"], o["reason"]) in ((False, "compact-policy"),
                                                     (False, "empty-active-segment")), o
        else:
            assert (o["deletable"], o["rule"]) == (True, "retention.ms"), o
            assert o["timestamp_source"] == "batches" and o["active"] is True
            assert 1_500_000_000_000 < o["largest_timestamp"] < 1_704_067_200_000
    empty = [o for o in segs if o["size"] == 0]
    assert all(o["reason"] in ("compact-policy", "empty-active-segment") for o in empty)


# ------------------------------------------------------------------ the report's page, terminals


def test_report_retention_section_in_a_real_browser(world: Any, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The report judged at the fixture's NOW (the report's start): the section's chart
    of bytes by reason, the future-stamped batch named among the held segments, every
    log dir; in Chromium with JavaScript on and off, no console error and no request."""
    browser = pytest.importorskip("tests.support.browser")
    browser.require_chromium()
    import io

    from kdump.ops import report as report_op
    from kdump.render.html import HtmlReportRenderer

    root, facts = world
    monkeypatch.setattr(report_op.time, "time", lambda: NOW / 1000)
    out = tmp_path / "r.html"
    r = HtmlReportRenderer(io.StringIO(), io.StringIO(), output=str(out))
    for item in report_op.report([str(root / "b1"), str(root / "b2")],
                                 report_op.ReportOptions()):
        r.emit(item)
    r.close()
    for js in (True, False):
        with browser.Browser(javascript=js) as b:
            page = b.open(out.as_uri())
            assert page.console_errors == []
            assert page.requests == [out.as_uri()]
            dom = page.dom
            section = dom[dom.index('<section id="retention">'):]
            assert '<h2>8 · Retention</h2>' in section
            assert 'id="chart-retention"' in section and "<svg" in section
            for reason in ("deletable now", "compact-policy", "high-watermark",
                           "future-timestamp", "pinned", "not-copied-to-remote"):
                assert f">{reason}<" in section, reason
            assert (f"batch at position {facts['future_position']}, offset 15, "
                    "2026-06-15 15:06:40.000Z, producer 77") in section
            held = page.evaluate(
                "Array.from(document.querySelectorAll('#retention-held tbody tr'), "
                "r => r.cells[0].textContent + '@' + r.cells[1].textContent + ':' "
                "+ r.cells[2].textContent + ' ' + r.cells[4].textContent)")
            assert held == [
                "future-0@1:10 future-timestamp", "future-0@1:20 pinned",
                "future-0@1:30 pinned", "lagging-0@1:10 high-watermark",
                "lagging-0@1:20 high-watermark", "lagging-0@1:30 high-watermark",
                "tiered-0@1:20 not-copied-to-remote", "tiered-0@1:30 not-copied-to-remote",
                "timed-0@2:10 high-watermark", "timed-0@2:20 high-watermark",
                "timed-0@2:30 high-watermark"]
            glance = dom[dom.index("At a glance"):dom.index('<section id="custody">')]
            assert "kept past" not in glance and "held back from deletion" in glance


def test_names_from_the_data_never_drive_the_terminal(tmp_path: Path) -> None:
    """A topic directory named with escape sequences and rich markup: inert in the text
    and in the table, on a real terminal."""
    from tests.render.test_terminal_safety import FORBIDDEN, run_in_pty

    d = w.broker_logdir(tmp_path / "b1", 1)
    rf._partition(d / "[bold]x\x1b]0;title\x07\u202e-0", [[rf._span(0, 3, NOW - DAY)]])
    for fmt in ("text", "table"):
        out = run_in_pty(["retention", "--format", fmt, "--now", str(NOW), "b1"], tmp_path)
        for bad in FORBIDDEN:
            assert bad not in out, (fmt, bad, out)
        assert "[bold]x\\x1b]0;title\\x07\\u202e" in out.decode("utf-8", "replace"), out


def test_a_missing_path_is_one_finding_exit_2(kdump: KdumpRunner, tmp_path: Path) -> None:
    r = kdump("retention", "nowhere", "--now", str(NOW), cwd=tmp_path)
    assert (r.rc, r.err_lines) == (2, ["nowhere: unreadable-file: no such file or directory"])


def test_the_table_fits_100_columns_side_by_side(world: Any) -> None:
    """Every segment of both brokers in one table a log dir, columns side by side (not the
    name/value blocks of a table too wide), each line within 100 columns."""
    from tests.render.test_table_fit import visible_lines
    from tests.render.test_terminal_safety import run_in_pty

    root, _ = world
    out = run_in_pty(["retention", "--format", "table", "--now", str(NOW), "--server-properties",
                      "server.properties", "b1", "b2"], root, 100)
    lines = visible_lines(out)
    # table lines and kdump's own wrapped lines fit; a finding on stderr stays one line
    assert all(len(x.rstrip()) <= 100 for x in lines if "future-timestamp [warning]" not in x)
    headers = [x for x in lines if "partition" in x and "verdict" in x]
    assert len(headers) == 2, out
    assert any("future-0" in x and "future-timestamp; from" in x for x in lines)
    assert "total log dir: " in "\n".join(lines)
