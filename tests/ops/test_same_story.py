"""Every command tells the same story of a partition (issue 46): one table of damage
shapes, built with the project's encoder, each run through every command that judges a
partition; each must name the same kinds, the same lost offsets and the same severities
(kdump.ops.verdict makes the one judgment), and its exit code must follow the one rule
(1 when it names an error or a warning, else 0).

A command is one small adapter (:data:`ADAPTERS`): it runs the command on a log dir and
gives back its exit code, every finding it made (kind, severity) and its story (the
findings about what the partition holds, lost or in flight: :data:`STORY_KINDS`, each as
``(kind, lost offsets, severity)``).  An adapter may say a shape is outside what it
reads (dump reads one log at a time: a partition gone whole is no log of its own).  A
shape is one function writing a log dir (:data:`SHAPES`) and the story it must give.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import KdumpRunner
from tests.support import writer as w

SEG = "00000000000000000000"
#: the findings about what a partition holds: lost, in flight, damaged
STORY_KINDS = frozenset({"data-lost", "truncated", "zero-tail", "in-flight", "trailing-bytes",
                         "crc-mismatch", "offset-gap"})

Fact = tuple[str, tuple[int, int] | None, str]


# --- the shapes --------------------------------------------------------------------------


def _broker(root: Path, checkpoints: dict[str, list[tuple[str, int, int]]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "1", "cluster.id": "kdump-test-cluster"}))
    for name, entries in checkpoints.items():
        (root / name).write_bytes(w.offset_checkpoint(entries))
    return root


def _partition(d: Path, n: int, *, roll_every: int | None = None) -> w.PartitionWriter:
    """Offsets 0..n-1 in batches of 5 records, rolled every ``roll_every`` offsets."""
    pw = w.PartitionWriter(d)
    for o in range(0, n, 5):
        if roll_every and o and o % roll_every == 0:
            pw.roll()
        pw.append(w.v2_batch(w.numbered_records(o, 5), base_offset=o))
    pw.write_leader_epoch_checkpoint()
    pw.close()
    return pw


def _positions(log: Path) -> list[int]:
    out, pos = [0], 0
    for e in w._iter_entries(log.read_bytes()):
        pos += e.size
        out.append(pos)
    return out  # each batch's start, then the end


def _hw(ld: Path, hw: int, rp: int | None = None) -> None:
    _broker(ld, {"replication-offset-checkpoint": [("t", 0, hw)],
                 **({"recovery-point-offset-checkpoint": [("t", 0, rp)]} if rp else {})})


def torn_below(ld: Path) -> None:
    """The active segment cut inside the batch at offset 50, the high watermark at 100."""
    _hw(ld, 100)
    _partition(ld / "t-0", 100)
    log = ld / "t-0" / f"{SEG}.log"
    log.write_bytes(log.read_bytes()[:_positions(log)[10] + 30])


def torn_past(ld: Path) -> None:
    """A live broker's copy: its last batch half written, every witness below it."""
    _hw(ld, 50)
    pw = w.PartitionWriter(ld / "t-0")
    for o in range(0, 60, 5):
        pw.append(w.v2_batch(w.numbered_records(o, 5), base_offset=o))
    pw.close()
    for p in (ld / "t-0").iterdir():
        if p.suffix in (".index", ".timeindex", ".snapshot"):
            p.unlink()
    log = ld / "t-0" / f"{SEG}.log"
    log.write_bytes(log.read_bytes()[:-20])


def zeroed_tail(ld: Path) -> None:
    """The active segment's last batches zeroed (a crash before the page reached the
    disk) while the high watermark says offsets 0-39 were committed."""
    _hw(ld, 40)
    _partition(ld / "t-0", 40)
    for p in (ld / "t-0").iterdir():
        if p.suffix in (".index", ".timeindex", ".snapshot"):
            p.unlink()
    log = ld / "t-0" / f"{SEG}.log"
    data = log.read_bytes()
    cut = _positions(log)[6]
    log.write_bytes(data[:cut] + bytes(len(data) - cut))


def lost_log(ld: Path) -> None:
    """The only .log gone, its indexes left naming it."""
    _hw(ld, 100, 100)
    _partition(ld / "t-0", 100)
    (ld / "t-0" / f"{SEG}.log").unlink()


def lost_middle(ld: Path) -> None:
    """The middle of three segments gone with its indexes."""
    _hw(ld, 60)
    _partition(ld / "t-0", 60, roll_every=20)
    for p in (ld / "t-0").glob("00000000000000000020.*"):
        p.unlink()


def lost_middle_log(ld: Path) -> None:
    """The middle segment's .log gone, its indexes left."""
    _hw(ld, 60)
    _partition(ld / "t-0", 60, roll_every=20)
    (ld / "t-0" / "00000000000000000020.log").unlink()


def lost_directory(ld: Path) -> None:
    """A partition directory gone while the log dir's checkpoints still name it."""
    _broker(ld, {"replication-offset-checkpoint": [("t", 0, 20), ("u", 0, 36)],
                 "recovery-point-offset-checkpoint": [("t", 0, 20), ("u", 0, 36)],
                 "log-start-offset-checkpoint": [("u", 0, 4)]})
    _partition(ld / "t-0", 20)


def emptied_directory(ld: Path) -> None:
    """Every file of a partition gone, its directory left."""
    _hw(ld, 30, 30)
    _partition(ld / "t-0", 30)
    for p in (ld / "t-0").iterdir():
        p.unlink()


def cut_batch(ld: Path) -> None:
    """The batch at offset 25 cut out of the middle of a delete-policy topic's segment,
    every other batch intact, the high watermark past it."""
    _hw(ld, 50)
    _partition(ld / "t-0", 50)
    for p in (ld / "t-0").iterdir():
        if p.suffix in (".index", ".timeindex"):
            p.unlink()  # no stale index entry left to hint at it
    log = ld / "t-0" / f"{SEG}.log"
    data, pos = log.read_bytes(), _positions(log)
    log.write_bytes(data[:pos[5]] + data[pos[6]:])


def cut_batch_compacted_by_metadata(ld: Path) -> None:
    """:func:`cut_batch` in a topic the log dir's KRaft metadata makes compacted (a
    ConfigRecord cleanup.policy=compact): the gap is the cleaner's."""
    cut_batch(ld)
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    lw.append([w.metadata_record("ConfigRecord", {
        "resourceType": 2, "resourceName": "t", "name": "cleanup.policy",
        "value": "compact"})], timestamp=1_700_000_000_000)
    lw.close()


#: when the topic t's cleanup.policy went from compact to delete (the controllers' clock):
#: past every record of the first segment (offsets 0-49, stamped TS0 + offset), before
#: every record of the second (stamped an hour later)
POLICY_CHANGED_AT = w.TS0 + 1_000


def _policy_history(ld: Path) -> None:
    """The log dir's KRaft metadata: t created compact, then set to delete at
    :data:`POLICY_CHANGED_AT` (ConfigRecords at offsets 0 and 1)."""
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    for offset, (value, at) in enumerate((("compact", w.TS0 - 1_000),
                                          ("delete", POLICY_CHANGED_AT))):
        assert lw.append([w.metadata_record("ConfigRecord", {
            "resourceType": 2, "resourceName": "t", "name": "cleanup.policy",
            "value": value})], timestamp=at) == offset
    lw.close()


def _policy_changed(ld: Path, cut_at: int) -> None:
    """t: offsets 0-49 in a segment closed before its policy went from compact to delete,
    50-99 in a closed segment and 100-149 in the active one, both written an hour after
    the change; the batch at ``cut_at`` left out of its segment, whose indexes are as the
    cleaner writes them (no entry in the gap)."""
    _hw(ld, 150)
    pw = w.PartitionWriter(ld / "t-0")
    for o in range(0, 150, 5):
        if o in (50, 100):
            pw.roll()
        if o == cut_at:
            continue
        ts0 = w.TS0 if o < 50 else w.TS0 + 3_600_000
        pw.append(w.v2_batch(w.numbered_records(o, 5, ts0=ts0), base_offset=o))
    pw.write_leader_epoch_checkpoint()
    pw.close()
    _policy_history(ld)


def policy_changed_cleaned(ld: Path) -> None:
    """A gap (offsets 25-29) in a segment closed before t's policy went from compact to
    delete: the cleaner's."""
    _policy_changed(ld, 25)


def policy_changed_after(ld: Path) -> None:
    """A gap (offsets 75-79) in a segment holding records written after t's policy went
    from compact to delete: never cleaned while compact, lost."""
    _policy_changed(ld, 75)


def flipped_byte(ld: Path) -> None:
    """One bit flipped inside the batch at offset 10: its CRC fails, nothing is lost."""
    _hw(ld, 30)
    _partition(ld / "t-0", 30)
    log = ld / "t-0" / f"{SEG}.log"
    data, pos = bytearray(log.read_bytes()), _positions(log)
    data[pos[3] - 5] ^= 0x04
    log.write_bytes(bytes(data))


@dataclass(frozen=True)
class Shape:
    build: Callable[[Path], None]
    story: frozenset[Fact]
    #: the exit code every command gives (the one rule: an error or a warning is 1)
    rc: int
    #: the partition directory's name (browse opens it)
    partition: str = "t-0"
    #: ``--config`` arguments, given to every command that takes them (a command that
    #: takes none is not asked: it cannot know)
    config: tuple[str, ...] = ()


SHAPES: dict[str, Shape] = {
    "torn below the witnesses": Shape(torn_below, frozenset({
        ("truncated", (50, 99), "error")}), 1),
    "torn past every witness": Shape(torn_past, frozenset({
        ("in-flight", None, "info")}), 0),
    "zeroed tail": Shape(zeroed_tail, frozenset({("zero-tail", (30, 39), "error")}), 1),
    "lost .log": Shape(lost_log, frozenset({("data-lost", (0, 99), "error")}), 1),
    "lost middle segment": Shape(lost_middle, frozenset({
        ("data-lost", (20, 39), "error")}), 1),
    "lost middle .log, indexes left": Shape(lost_middle_log, frozenset({
        ("data-lost", (20, 39), "error")}), 1),
    "lost partition directory": Shape(lost_directory, frozenset({
        ("data-lost", (4, 35), "error")}), 1, "u-0"),
    "emptied partition directory": Shape(emptied_directory, frozenset({
        ("data-lost", (0, 29), "error")}), 1),
    "batch cut from the middle": Shape(cut_batch, frozenset({
        ("data-lost", (25, 29), "error")}), 1),
    # the same cut in a compacted topic, known only from --config or the KRaft metadata:
    # the cleaner's gap, no loss in any command (browse judges with the same evidence)
    "batch cut, compacted per --config": Shape(cut_batch, frozenset(), 0,
                                               config=("--config", "t:cleanup.policy=compact")),
    "batch cut, compacted per the KRaft metadata": Shape(cut_batch_compacted_by_metadata,
                                                         frozenset(), 0),
    "flipped byte": Shape(flipped_byte, frozenset({("crc-mismatch", None, "error")}), 1),
    # compact, then delete (the KRaft metadata's ConfigRecords): a gap in a segment closed
    # before the change is the cleaner's (information); one in a segment holding records
    # written after it is lost
    "policy changed compact->delete, gap cleaned before": Shape(
        policy_changed_cleaned, frozenset({("offset-gap", (25, 29), "info")}), 0),
    "policy changed compact->delete, gap written after": Shape(
        policy_changed_after, frozenset({("data-lost", (75, 79), "error")}), 1),
}


# --- the commands ----------------------------------------------------------------------


@dataclass
class Told:
    """What one command said of a shape: its exit code, every finding's severity, and
    its story."""

    rc: int
    severities: list[str]
    story: frozenset[Fact]


def _fact(p: dict[str, Any]) -> Fact:
    lost = p.get("lost_offsets")
    return (p["kind"], tuple(lost) if lost else None, p["severity"])  # type: ignore[return-value]


def _told(rc: int, problems: list[dict[str, Any]]) -> Told:
    return Told(rc, [p["severity"] for p in problems],
                frozenset(_fact(p) for p in problems if p["kind"] in STORY_KINDS))


def _json(kdump: KdumpRunner, *args: object) -> tuple[int, list[dict[str, Any]]]:
    r = kdump(*[str(a) for a in args], "--format", "json")
    return r.rc, [json.loads(x) for x in r.out.splitlines() if x.startswith("{")]


def _problems(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objs if o["type"] == "problem"]


def verify_crc(kdump: KdumpRunner, ld: Path, shape: Shape) -> Told | None:
    rc, objs = _json(kdump, "verify-crc", ld, *shape.config)
    return _told(rc, _problems(objs))


def verify_index(kdump: KdumpRunner, ld: Path, shape: Shape) -> Told | None:
    rc, objs = _json(kdump, "verify-index", ld, *shape.config)
    return _told(rc, _problems(objs))


def size_report(kdump: KdumpRunner, ld: Path, shape: Shape) -> Told | None:
    rc, objs = _json(kdump, "size-report", ld, *shape.config)
    told = _told(rc, _problems(objs))
    # its partition row counts the same loss: every range the story names lost
    lost = sorted(r for _k, r, sev in shape.story if r is not None and sev == "error")
    rows = [o for o in objs if o["type"] == "partition" and o["topic"] == "t"]
    if rows:
        assert [list(r) for r in lost if shape.partition == "t-0"] == \
            [x for row in rows for x in row["lost_ranges"]]
    [total] = [o for o in objs if o["type"] == "total"]
    assert total["offsets_lost"] == sum(b - a + 1 for a, b in lost)
    return told


def report(kdump: KdumpRunner, ld: Path, shape: Shape) -> Told | None:
    rc, objs = _json(kdump, "report", ld, *shape.config)
    probs = _problems(objs)
    # verify-crc's and verify-index's findings of one fact are one (finding_key): the
    # story is told once whichever check said it
    return _told(rc, probs)


def dump(kdump: KdumpRunner, ld: Path, shape: Shape) -> Told | None:
    if shape.config:
        return None  # no --config
    if shape.build in (lost_log, lost_middle, lost_middle_log, emptied_directory):
        return None  # dump reads one log at a time: these are no bytes of a log
    # a log dir given: the partitions its checkpoints name with no directory too
    rc, objs = _json(kdump, "dump", ld if shape.build is lost_directory
                     else ld / shape.partition)
    return _told(rc, _problems(objs))


def browse(kdump: KdumpRunner, ld: Path, shape: Shape) -> Told | None:
    """browse's data (kdump.ops.browse): the partition's findings panel, and each batch
    row's label (a tail row says what the panel says)."""
    from kdump.ops.browse import Evidence, PartitionView, browse_tree, partition_findings

    if shape.build is emptied_directory:
        return None  # no file: no partition in the tree (the log dir's verdict says it)
    # a partition directory gone: the tree's row of its own with the log dir's verdict
    # kdump browse LD --config ...: judged with the evidence verify-crc is given
    [tree] = browse_tree([str(ld)], Evidence([str(ld)], shape.config[1::2]))
    [node] = [p for t in tree.topics for p in t.partitions if p.name == shape.partition]
    found = partition_findings(node)
    probs = [{"kind": str(p.kind), "severity": str(p.severity),
              "lost_offsets": (p.extra or {}).get("lost_offsets")} for p in found.findings]
    view = PartitionView(node)
    try:
        for seg in range(len(view.segments)):
            rows, _ = view.read_rows(seg)
            for row in rows:
                if row.problem is not None and str(row.problem.kind) in STORY_KINDS:
                    fact = _fact({"kind": str(row.problem.kind),
                                  "severity": str(row.problem.severity),
                                  "lost_offsets": (row.problem.extra or {}).get(
                                      "lost_offsets")})
                    assert fact in shape.story, (fact, shape.story)
    finally:
        view.close()
    fails = any(s in ("error", "warning") for s in found.by_severity if found.by_severity[s])
    return _told(1 if fails else 0, probs)


#: the region reasons of a repair that name the end of a log (their missing offsets are
#: the tail's lost range)
_REPAIR_TAILS = frozenset({"truncated", "zero-tail", "in-flight", "trailing-bytes"})


def repair(kdump: KdumpRunner, ld: Path, shape: Shape) -> Told | None:
    """kdump repair's manifest: each region it drops is a fact (a tail with the offsets
    it misses, other damage with none), each range it names lost that no region names is
    ``data-lost``; and its copy, through verify-crc and verify-index, names exactly the
    ranges its manifest names lost (``lost_offsets``)."""
    if shape.config:
        return None  # no --config
    topic, _, part = shape.partition.rpartition("-")
    out = ld.parent / "repaired"
    rc, objs = _json(kdump, "repair", ld, "--into", out)
    mine = [o for o in objs if (o.get("topic"), o.get("partition")) == (topic, int(part))]
    facts: list[dict[str, Any]] = []
    named: list[tuple[int, int]] = []
    for d in (o for o in mine if o["type"] == "repair_dropped"):
        missing = d["missing_offsets"]
        if missing and missing[1] is not None:
            named.append((missing[0], missing[1]))
        facts.append({"kind": d["reason"], "severity": d["severity"],
                      "lost_offsets": missing if d["reason"] in _REPAIR_TAILS else None})
    [p] = [o for o in mine if o["type"] == "repair_partition"]
    for a, b in p["lost_offsets"]:
        if not any(x <= a and b <= y for x, y in named):
            facts.append({"kind": "data-lost", "severity": "error", "lost_offsets": [a, b]})
    assert p["data_lost"] is bool(p["lost_offsets"])
    for command in ("verify-crc", "verify-index"):
        _rc, copy = _json(kdump, command, out)
        said = sorted(list(q["lost_offsets"]) for q in _problems(copy)
                      if q["kind"] == "data-lost" and q["severity"] == "error")
        assert said == p["lost_offsets"], (command, said, p["lost_offsets"])
        # the gaps Kafka's own work explains: the copy (the same evidence beside it) shows
        # them as the input does, and the manifest's notes name them, never as lost
        gaps = [q for q in _problems(copy) if q["kind"] == "offset-gap"
                and q.get("lost_offsets") and Path(q["file"]).name == shape.partition]
        for q in gaps:
            a, b = q["lost_offsets"]
            assert any(n.startswith(f"offsets {a}-{b} are in no batch of the input and not "
                                    "lost: ") for n in p["notes"]), (q, p["notes"])
        if command == "verify-crc":
            facts += gaps
    return _told(rc, facts)


def retention(kdump: KdumpRunner, ld: Path, shape: Shape) -> Told | None:
    """retention reads each segment's batches for its largest timestamp: the tails it
    meets are told as verify-crc tells them (what the partition lost elsewhere is not
    retention's to say)."""
    if shape.config:
        return None  # no --config
    if shape.build not in (torn_below, torn_past, zeroed_tail):
        return None
    rc, objs = _json(kdump, "retention", ld)
    return _told(rc, _problems(objs))


#: a command of the table: (kdump, log dir, shape) -> what it told (None: not its shape)
ADAPTERS: dict[str, Callable[[KdumpRunner, Path, Shape], Told | None]] = {
    "verify-crc": verify_crc, "verify-index": verify_index, "size-report": size_report,
    "report": report, "dump": dump, "browse": browse, "repair": repair,
    "retention": retention,
}


@pytest.mark.parametrize("command", list(ADAPTERS))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_command_tells_the_same_story(kdump: KdumpRunner, tmp_path: Path,
                                            shape: str, command: str) -> None:
    s = SHAPES[shape]
    ld = tmp_path / "ld"
    s.build(ld)
    told = ADAPTERS[command](kdump, ld, s)
    if told is None:
        return
    assert told.story == s.story, (command, shape)
    # the one exit rule: 1 when any finding is an error or a warning, else 0
    assert told.rc == (1 if {"error", "warning"} & set(told.severities) else 0)
    # every shape's story is its exit code's: no command calls these clean
    if s.rc:
        assert told.rc == 1


def test_the_sample_and_a_healthy_partition_tell_no_loss(kdump: KdumpRunner,
                                                         tmp_path: Path) -> None:
    """No false alarm: the sample log dirs (transactions, compaction, legacy messages,
    KRaft metadata) and an intact partition give no loss in any command."""
    from tests.support.samples import write_sample_logdir

    sample = tmp_path / "sample"
    write_sample_logdir(sample)
    for command in ("verify-crc", "verify-index", "size-report"):
        _rc, objs = _json(kdump, command, sample)
        assert not [p for p in _problems(objs) if p["kind"] == "data-lost"], command
    shutil.rmtree(sample)


@pytest.mark.parametrize(("assigned", "said"), [
    ({"u": [1, 2]}, None),  # assigned here: lost
    ({"u": [2, 3]}, "assigns it to brokers 2, 3, not this one (1): the replica was moved "
                    "away"),
    ({}, "holds no topic u: it was deleted"),
])
def test_a_gone_directory_the_kraft_metadata_explains(
        kdump: KdumpRunner, tmp_path: Path, assigned: dict[str, list[int]],
        said: str | None) -> None:
    """A partition directory gone while the checkpoints name it: data-lost, unless the
    log dir's KRaft metadata says the topic was deleted or the replica moved to other
    brokers (information, exit 0) -- in every command."""
    ld = tmp_path / "ld"
    lost_directory(ld)
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    records = []
    for n, (topic, replicas) in enumerate({"t": [1], **assigned}.items()):
        tid = w.uuid_of(n + 1)
        records.append(w.metadata_record("TopicRecord", {"name": topic, "topicId": tid}))
        records.append(w.metadata_record("PartitionRecord", {
            "partitionId": 0, "topicId": tid, "replicas": replicas, "isr": replicas,
            "leader": replicas[0], "leaderEpoch": 0, "partitionEpoch": 0}))
    lw.append(records)
    lw.close()
    for command in ("verify-crc", "verify-index", "size-report"):
        rc, objs = _json(kdump, command, ld)
        gone = [p for p in _problems(objs) if p["file"] == str(ld / "u-0")]
        if said is None:
            assert rc == 1 and [_fact(p) for p in gone] == [("data-lost", (4, 35), "error")]
        else:
            assert [(p["kind"], p["severity"]) for p in gone] == [("checkpoint", "info")]
            assert said in gone[0]["detail"], command
            assert rc == 0, command
    # browse: the tree's row of its own, judged again with the metadata (kdump/tui/app.py
    # drops the rows it explains)
    from kdump.ops.browse import browse_tree, missing_partitions
    from kdump.ops.verdict import CleanupPolicies

    [tree] = browse_tree([str(ld)])
    rows = [p.unreadable for p in tree.partitions if p.path == str(ld / "u-0")]
    assert [(str(p.kind), p.extra["lost_offsets"]) for p in rows if p and p.extra] == \
        [("data-lost", [4, 35])]  # the checkpoints alone
    policies = CleanupPolicies.for_inputs([str(ld)])
    kept = [p.path for p in missing_partitions([str(ld)], policies)]
    assert kept == ([str(ld / "u-0")] if said is None else [])


def assigning_logdir(ld: Path, *, cluster: str = "kdump-test-cluster") -> dict[str, str]:
    """Broker 1's log dir (directory.id ``here``) holding t-0 only, and KRaft metadata
    assigning it more: a pinned in-sync replica (a-0), a pinned out-of-sync one (b-0),
    one pinned to no log dir (c-0: MIGRATING, metadata before KIP-858), one pinned to
    another log dir of the broker (d-0), one being moved away (e-0), and a pinned in-sync
    one the checkpoints name with nothing written (f-0: created here, gone)."""
    here, other, elsewhere = w.uuid_of(101), w.uuid_of(102), w.uuid_of(103)
    ld.mkdir(parents=True)
    (ld / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "1", "cluster.id": cluster, "directory.id": here}))
    (ld / "replication-offset-checkpoint").write_bytes(w.offset_checkpoint(
        [("t", 0, 20), ("f", 0, 0)]))
    _partition(ld / "t-0", 20)
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    records = []
    placed: dict[str, tuple[list[int], list[int], list[str] | None, list[int]]] = {
        "t": ([1], [1], [here], []),
        "a": ([1, 2], [1, 2], [here, other], []),
        "b": ([2, 1], [2], [other, here], []),
        "c": ([1, 2], [1, 2], None, []),
        "d": ([1, 2], [1, 2], [elsewhere, other], []),
        "e": ([1, 2], [1, 2], [here, other], [1]),
        "f": ([1], [1], [here], []),
    }
    for n, (topic, (replicas, isr, dirs, removing)) in enumerate(placed.items()):
        tid = w.uuid_of(n + 1)
        records.append(w.metadata_record("TopicRecord", {"name": topic, "topicId": tid}))
        records.append(w.metadata_record("PartitionRecord", {
            "partitionId": 0, "topicId": tid, "replicas": replicas, "isr": isr,
            "removingReplicas": removing, "leader": isr[0], "leaderEpoch": 3,
            "partitionEpoch": 0, **({"directories": dirs} if dirs else {})}))
    lw.append(records)
    lw.close()
    return {"here": here}


#: (partition, severity, what its detail says) of each replica assigned and absent
_ABSENT = [
    ("a-0", "warning", "replicas [1, 2], ISR [1, 2], leader 1, leader epoch 3, log dir "
                       "{here}, this one) and there is neither a directory nor a checkpoint "
                       "entry here"),
    ("b-0", "info", "an out-of-sync replica"),
    ("c-0", "info", "log dir MIGRATING) and there is neither a directory nor a checkpoint "
                    "entry here (a broker creates a replica's log when it applies the "
                    "assignment and checkpoints it within seconds: it was never created "
                    "here, or went with its entries): the metadata does not pin the replica "
                    "to this log dir"),
    ("f-0", "warning", "the checkpoints name it with nothing written (its log was created "
                       "here and is gone): an in-sync replica with no log"),
]


def _absent_story(kdump: KdumpRunner, command: str, ld: Path, *others: Path
                  ) -> tuple[int, list[dict[str, Any]]]:
    """``command`` on the log dir ``ld`` (``others`` given beside it), its objects.  For
    repair (``others`` as inputs too, copied beside it): its repair_absent objects as the
    problems they name, after checking that verify-crc on the copy tells the same story
    of every replica assigned here and absent as the manifest (a replica with offsets
    proved written on it recreated over them, the others given no directory)."""
    if command != "repair":
        return _json(kdump, command, ld, *others)
    out = ld.parent / "repaired"
    rc, objs = _json(kdump, "repair", ld, *others, "--into", out)
    copy = out / "broker-1" if others else out
    absent = [a for a in objs if a["type"] == "repair_absent" and Path(a["log_dir"]) == ld]
    told = [{"file": a["input"], "kind": a["kind"], "severity": a["severity"],
             "detail": a["detail"], **({"lost_offsets": a["lost_offsets"][0]}
                                       if a["lost_offsets"] else {})} for a in absent]
    for a in absent:
        made = copy / Path(a["input"]).name
        assert (a["output"] is not None, made.is_dir()) == (a["kind"] == "data-lost",) * 2
        assert a["data_lost"] is bool(a["lost_offsets"]) and a["filled"] is False
    [end] = [o for o in objs if o["type"] == "repair_end"]
    assert end["absent_replicas"] == len([o for o in objs if o["type"] == "repair_absent"])
    _rc, again = _json(kdump, "verify-crc", out)
    said = [(Path(p["file"]).name, p["kind"], p["severity"], p.get("lost_offsets"))
            for p in _problems(again) if Path(p["file"]).parent == copy
            and p["kind"] in ("data-lost", "assigned-absent")]
    assert said == [(Path(p["file"]).name, p["kind"], p["severity"], p.get("lost_offsets"))
                    for p in told]
    return rc, [{"type": "problem", **p} for p in told]


@pytest.mark.parametrize("command", ["verify-crc", "verify-index", "size-report", "report",
                                     "dump", "repair"])
def test_a_replica_assigned_here_and_absent(kdump: KdumpRunner, tmp_path: Path,
                                            command: str) -> None:
    """A partition the KRaft metadata assigns to this broker with no directory here is
    said by every command, from the log dir's verdict: a warning when the metadata pins
    it to this log dir and counts it in sync, information otherwise, never offsets lost
    (nothing proves a record was written to it); one pinned to another log dir or being
    moved away is not this log dir's."""
    ld = tmp_path / "ld"
    ids = assigning_logdir(ld)
    rc, objs = _absent_story(kdump, command, ld)
    absent = [p for p in _problems(objs) if p["kind"] == "assigned-absent"]
    assert [(Path(p["file"]).name, p["severity"]) for p in absent] == \
        [(name, sev) for name, sev, _said in _ABSENT]
    for p, (_name, _sev, said) in zip(absent, _ABSENT, strict=True):
        assert said.format(**ids) in p["detail"]
        assert "lost_offsets" not in p
    assert rc == 1  # the warnings
    assert not [p for p in _problems(objs) if p["kind"] == "data-lost"]


def test_metadata_of_another_cluster_says_nothing_of_a_log_dir(kdump: KdumpRunner,
                                                             tmp_path: Path) -> None:
    """Log dirs of two clusters given together: the KRaft metadata read in one judges
    none of the other's partitions (node 1 of cluster B is not node 1 of cluster A)."""
    assigning_logdir(tmp_path / "a")
    other = tmp_path / "b"
    other.mkdir()
    (other / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "1", "cluster.id": "another-cluster"}))
    _partition(other / "t-0", 20)
    rc, objs = _json(kdump, "verify-crc", tmp_path / "a", other)
    absent = sorted(Path(p["file"]).parent.name + "/" + Path(p["file"]).name
                    for p in _problems(objs) if p["kind"] == "assigned-absent")
    assert absent == ["a/a-0", "a/b-0", "a/c-0", "a/f-0"]
    assert rc == 1


@pytest.mark.parametrize("command", ["verify-crc", "verify-index", "size-report", "report",
                                     "dump", "repair"])
def test_offsets_another_replica_holds_in_the_epoch_this_broker_led(
        kdump: KdumpRunner, tmp_path: Path, command: str) -> None:
    """a-0 is gone from broker 1, the leader of its epoch 3 by the KRaft metadata, and
    broker 2 (the same cluster) holds offsets 10-19 in epoch 3: a leader appends first,
    so they were written on broker 1 and are lost there (data-lost, an error); the
    other replicas assigned and absent stay as they were."""
    ld = tmp_path / "ld"
    assigning_logdir(ld)
    b2 = tmp_path / "b2"
    b2.mkdir()
    (b2 / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "2", "cluster.id": "kdump-test-cluster"}))
    w.write_replica(b2 / "a-0", w.replica_batches([(0, 10, 0), (10, 10, 3)]))
    rc, objs = _absent_story(kdump, command, ld, b2)
    mine = [p for p in _problems(objs) if Path(p["file"]).parent == ld
            and p["kind"] in ("data-lost", "assigned-absent")]
    assert [(Path(p["file"]).name, p["kind"], p["severity"], p.get("lost_offsets"))
            for p in mine] == [
        ("a-0", "data-lost", "error", [10, 19]),
        ("b-0", "assigned-absent", "info", None), ("c-0", "assigned-absent", "info", None),
        ("f-0", "assigned-absent", "warning", None)]
    assert mine[0]["detail"] == (
        f"offsets 10-19 (10 offsets) were written on this replica and the partition directory "
        f"a-0 is gone from the log dir: the KRaft metadata ({ld / '__cluster_metadata-0'} (to "
        f"offset 13)) makes this broker (1) the leader of epoch 3, and {b2 / 'a-0'} (broker 2) "
        "holds these offsets in that epoch (a leader appends first, its followers copy its "
        "batches): lost on this replica")
    assert rc == 1
    if command == "size-report":
        [total] = [o for o in objs if o["type"] == "total"]
        assert total["offsets_lost"] == 10
    if command == "verify-crc":  # browse: the log dir's findings (f), the same facts
        from kdump.ops.browse import Evidence, add_absent, browse_tree, log_dir_verdicts

        paths = [str(ld), str(b2)]
        tree = browse_tree(paths)
        add_absent(tree, log_dir_verdicts(paths, Evidence(paths).policies()))
        [node] = [t for t in tree if t.path == str(ld)]
        assert [(Path(p.path).name, str(p.kind), str(p.severity)) for p in node.problems] == [
            (Path(p["file"]).name, p["kind"], p["severity"]) for p in mine]


@pytest.mark.parametrize(("build", "lost"), [(policy_changed_cleaned, []),
                                             (policy_changed_after, [75])])
def test_timeline_judges_gaps_by_the_policy_history(kdump: KdumpRunner, tmp_path: Path,
                                                    build: Callable[[Path], None],
                                                    lost: list[int]) -> None:
    """kdump timeline's data-lost events are the verdict's: none for a gap the cleaner
    left before the topic's policy changed from compact, one for a gap in a segment
    written after the change."""
    ld = tmp_path / "ld"
    build(ld)
    rc, objs = _json(kdump, "timeline", ld)
    assert [o["offset"] for o in objs if o.get("kind") == "data-lost"] == lost
    assert rc == (1 if lost else 0)
