"""Release-aware decoding in every command (issue #23, item 2): ``--kafka-version`` on
dump --summary, lag, find-offset/find-time, compare-replicas, report and the Spark data
source, all through :class:`kdump.decoders.Releases`; the layout note in table
output and, once per file and layout, on stderr in text output.

The records are Kafka 4.0's ShareSnapshotValue (tests/support/kafka4_specs.py, encoded by
tests/support/message_writer.py): read with 4.1's layout they do not fit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kdump.decoders import Releases
from kdump.decoders.release import NO_EVIDENCE, Evidence, layout_of_note, log_dir_of
from tests.decoders.test_kafka4_records import _feature_level, _share_snapshot
from tests.support import kafka4_fixtures as kf
from tests.support import writer as w

SEG = "__share_group_state-0/00000000000000000000.log"
FITS = ("read as ShareSnapshotValue (Kafka 4.0), the layout that fits (ShareSnapshotValue "
        "(Kafka 4.1+): non-nullable field stateBatches was serialized as null)")
MISFIT = ("Error at offset {o}, skipping. Could not read record with version 0 from value's "
          "buffer due to: non-nullable field stateBatches was serialized as null (read as "
          "ShareSnapshotValue (Kafka 4.1+)).")


def _share_dir(root: Path, records: int = 2, base: int = 0, level: int | None = None) -> Path:
    """A log dir whose ``__share_group_state-0`` holds ``records`` 4.0 snapshots."""
    if level is not None:
        ml = w.MetadataLogWriter(root / "__cluster_metadata-0")
        ml.append([_feature_level(level)])
        ml.close()
    pw = w.PartitionWriter(root / "__share_group_state-0")
    for i in range(records):
        key, value, _ = _share_snapshot("4.0", snapshotEpoch=i + 1)
        pw.append(w.v2_batch([w.Rec(key, value)], base_offset=base + i))
    pw.close()
    return root


def _objects(text: str, kind: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("{"):
            obj = json.loads(line)
            if obj.get("type") == kind:
                out.append(obj)
    return out


# ------------------------------------------------------------------------ the one path


def test_releases_reads_each_log_dir_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _share_dir(tmp_path / "a", level=27)
    _share_dir(tmp_path / "b")
    import kdump.decoders.release as rel

    calls: list[str | None] = []
    real = rel.evidence_for_logdir
    monkeypatch.setattr(rel, "evidence_for_logdir", lambda d: calls.append(d) or real(d))
    r = Releases()
    a = str(tmp_path / "a")
    ev = r.evidence(a, "share-group-state")
    assert ev == Evidence("4.1", True, "metadata.version 27 (4.1-IV1) in "
                          f"{tmp_path / 'a' / '__cluster_metadata-0' / '00000000000000000000.log'}")
    assert r.evidence(a, "offsets") is ev
    assert r.evidence(str(tmp_path / "b"), "offsets") == NO_EVIDENCE
    # cluster-metadata and data topics: only a named release counts
    assert r.evidence(a, "cluster-metadata") == NO_EVIDENCE
    assert calls == [a, str(tmp_path / "b")]
    # one decoder per (name, evidence)
    assert r.decoder("share-group-state", a) is r.decoder("share-group-state", a)
    assert r.decoder("share-group-state", a).evidence == ev
    named = Releases("4.0")
    assert named.evidence(a, "cluster-metadata") == Evidence("4.0", False, "--kafka-version 4.0")
    assert named.decoder("offsets", None).evidence == Evidence("4.0", False,
                                                               "--kafka-version 4.0")
    assert calls == [a, str(tmp_path / "b")]  # a named release reads no log dir


def test_log_dir_of() -> None:
    assert log_dir_of("/d/ld/t-0/00000000000000000000.log", True) == "/d/ld"
    assert log_dir_of("/d/ld/t-0", False) == "/d/ld"
    assert log_dir_of("/d/ld/bootstrap.checkpoint", False) == "/d/ld"
    assert log_dir_of("t-0", False) == "."


def test_layout_of_note() -> None:
    assert layout_of_note(FITS) == "ShareSnapshotValue (Kafka 4.0)"
    assert layout_of_note("read as ShareSnapshotValue (Kafka 4.1+), by --kafka-version 4.2") == \
        "ShareSnapshotValue (Kafka 4.1+)"
    assert layout_of_note("X version 3 is unstable") == "X version 3 is unstable"


# ------------------------------------------------------------------------ dump, text and table


def test_text_dump_says_the_layout_once_per_file_on_stderr(kdump: Any, tmp_path: Path) -> None:
    _share_dir(tmp_path)
    r = kdump("dump", "--print-data-log", "__share_group_state-0", cwd=tmp_path)
    assert r.rc == 0, r.err
    assert r.err.splitlines() == [
        f"{SEG}: note: record layout: {FITS} (offset 0, the first record read so in this file)"]
    assert "layout" not in r.out  # stdout: DumpLogSegments' lines only
    assert sum(1 for line in r.out.splitlines() if ' payload: {"type":"0","data":' in line) == 2
    r = kdump("dump", "--print-data-log", "--kafka-version", "4.0", "__share_group_state-0",
              cwd=tmp_path)
    assert r.err.splitlines() == [
        f"{SEG}: note: record layout: read as ShareSnapshotValue (Kafka 4.0), by --kafka-version "
        "4.0 (offset 0, the first record read so in this file)"]
    # JSON: the layout on each record, no note object
    r = kdump("dump", "--print-data-log", "--format", "json", "__share_group_state-0",
              cwd=tmp_path)
    assert _objects(r.out, "note") == []
    assert [x["decoded"]["layout"] for x in _objects(r.out, "record")] == [FITS, FITS]


def test_a_single_layout_says_nothing(kdump: Any, sample_dir: Path) -> None:
    r = kdump("dump", "--print-data-log", str(sample_dir), watch=[sample_dir])
    assert "note: record layout" not in r.err


def test_table_dump_shows_layout_and_errors(kdump: Any, tmp_path: Path) -> None:
    _share_dir(tmp_path, records=1)
    r = kdump("dump", "--print-data-log", "--format", "table", "__share_group_state-0",
              cwd=tmp_path)
    assert r.rc == 0, r.err
    # the table wraps its cells: compared without the borders and white space
    squeezed = "".join(r.out.replace("│", "").split())
    assert "·layout:ShareSnapshotValue(Kafka4.0)" in squeezed
    assert "recordlayout" not in squeezed and r.err == ""  # said on each row only
    r = kdump("dump", "--print-data-log", "--format", "table", "--kafka-version", "4.1",
              "__share_group_state-0", cwd=tmp_path)
    squeezed = "".join(r.out.replace("│", "").split())
    # DumpLogSegments' error text is the row's key: not said twice
    assert "".join(MISFIT.format(o=0).split()) in squeezed and "·error:" not in squeezed


# ------------------------------------------------------------------------ the other commands


def test_summary_and_lag_take_the_kafka_version(kdump: Any, tmp_path: Path) -> None:
    _share_dir(tmp_path, records=1)
    for version, shares, ignored in (("4.0", 1, 0), ("4.1", 0, 1), (None, 1, 0)):
        args = ["--kafka-version", version] if version else []
        r = kdump("dump", "--summary", "--format", "json", *args, "__share_group_state-0",
                  cwd=tmp_path)
        (total,) = _objects(r.out, "offsets_summary")
        assert (total["share_partitions"], total["ignored_records"]) == (shares, ignored)
        r = kdump("lag", ".", "--format", "json", *args, cwd=tmp_path)
        assert r.rc == 0, r.err
        assert [(x["group"], x["partition"], x["committed_offset"])
                for x in _objects(r.out, "lag")] == [("g", 3, 100)] * shares
    r = kdump("lag", ".", "--kafka-version", "3.8", cwd=tmp_path)
    assert r.rc == 2 and "unsupported Kafka version '3.8'" in r.err


def test_summary_reads_the_log_dirs_metadata_version(kdump: Any, tmp_path: Path) -> None:
    _share_dir(tmp_path, records=1, level=27)  # 4.1: the 4.0 record does not fit
    r = kdump("dump", "--summary", "--format", "json", "__share_group_state-0", cwd=tmp_path)
    (total,) = _objects(r.out, "offsets_summary")
    assert (total["share_partitions"], total["ignored_records"]) == (0, 1)


def test_find_takes_the_kafka_version(kdump: Any, tmp_path: Path) -> None:
    _share_dir(tmp_path)
    r = kdump("find-offset", "__share_group_state-0", "1", "--print-data-log",
              "--kafka-version", "4.1", cwd=tmp_path)
    assert r.rc == 0, r.err
    assert r.out.splitlines()[-1].endswith(" key: " + MISFIT.format(o=1))
    r = kdump("find-time", "__share_group_state-0", "1700000000000", "--print-data-log",
              "--format", "json", "--kafka-version", "4.0", cwd=tmp_path)
    (found,) = _objects(r.out, "found")
    assert found["decoded"]["layout"] == \
        "read as ShareSnapshotValue (Kafka 4.0), by --kafka-version 4.0"
    r = kdump("find-offset", "__share_group_state-0", "0", "--print-data-log", "--format",
              "json", cwd=tmp_path)
    (found,) = _objects(r.out, "found")
    assert found["decoded"]["layout"] == FITS
    # text: the record line stays DumpLogSegments'; the layout is said on stderr
    r = kdump("find-offset", "__share_group_state-0", "0", "--print-data-log", cwd=tmp_path)
    assert r.err.splitlines() == [f"{SEG}: note: record layout: {FITS}"]
    assert r.out.splitlines()[-1].endswith(
        ' payload: {"type":"0","data":{"snapshotEpoch":1,"stateEpoch":2,"leaderEpoch":3,'
        '"startOffset":100,"stateBatches":[{"firstOffset":100,"lastOffset":109,'
        '"deliveryState":2,"deliveryCount":1}]}}')
    # table: layout and error rows
    r = kdump("find-offset", "__share_group_state-0", "0", "--print-data-log", "--format",
              "table", cwd=tmp_path)
    assert [line.split("│")[2].strip() for line in r.out.splitlines()
            if line.startswith("│ layout ")] == ["ShareSnapshotValue (Kafka 4.0)"]
    r = kdump("find-offset", "__share_group_state-0", "0", "--print-data-log", "--format",
              "table", "--kafka-version", "4.1", cwd=tmp_path)
    squeezed = "".join(r.out.replace("│", "").split())
    # DumpLogSegments' error text is the record's key: not said twice
    assert "key" + "".join(MISFIT.format(o=0).split()) in squeezed
    assert not [line for line in r.out.splitlines() if line.startswith("│ error ")]


def test_compare_replicas_decodes_internal_topics_with_the_evidence(kdump: Any,
                                                                   tmp_path: Path) -> None:
    _share_dir(tmp_path / "b1", records=1)
    _share_dir(tmp_path / "b2", records=2)
    r = kdump("compare-replicas", "b1", "b2", "--print-data-log", "--format", "json",
              "--kafka-version", "4.0", cwd=tmp_path)
    (rec,) = _objects(r.out, "record")
    assert (rec["replica"], rec["offset"]) == ("b2/__share_group_state-0", 1)
    assert rec["decoded"]["layout"] == "read as ShareSnapshotValue (Kafka 4.0), by --kafka-version 4.0"
    assert rec["decoded"]["value"]["data"]["snapshotEpoch"] == 2
    r = kdump("compare-replicas", "b1", "b2", "--print-data-log", "--kafka-version", "4.1",
              cwd=tmp_path)
    assert r.out.splitlines()[-1].endswith(" key: " + MISFIT.format(o=1))
    r = kdump("compare-replicas", "b1", "b2", "--print-data-log", cwd=tmp_path)
    assert r.err.splitlines()[0] == (
        f"b2/__share_group_state-0: note: record layout: {FITS} (offset 1)")
    assert r.out.splitlines()[-1].endswith(
        ' payload: {"type":"0","data":{"snapshotEpoch":2,"stateEpoch":2,"leaderEpoch":3,'
        '"startOffset":100,"stateBatches":[{"firstOffset":100,"lastOffset":109,'
        '"deliveryState":2,"deliveryCount":1}]}}')


def test_report_takes_the_kafka_version(kdump: Any, tmp_path: Path) -> None:
    _share_dir(tmp_path, records=1)
    rows = {}
    for version in ("4.0", "4.1"):
        r = kdump("report", ".", "--format", "json", "--kafka-version", version, cwd=tmp_path)
        assert r.rc in (0, 1), r.err
        rows[version] = [(x["group"], x["committed_offset"]) for x in _objects(r.out, "lag")]
    assert rows == {"4.0": [("g", 100)], "4.1": []}


def test_spark_data_source_kafka_version(tmp_path: Path) -> None:
    from kdump.spark.segments import make_decoder, parse_options

    _share_dir(tmp_path / "named")
    _share_dir(tmp_path / "floor", level=26)
    opts = parse_options({"path": str(tmp_path), "decoder": "auto", "kafka_version": "4.0.2"})
    assert opts.kafka_version == "4.0"
    seg = str(tmp_path / "named" / SEG)
    dec = make_decoder("auto", "__share_group_state", opts, seg)
    assert dec.evidence == Evidence("4.0", False, "--kafka-version 4.0")  # type: ignore[attr-defined]
    opts = parse_options({"path": str(tmp_path), "decoder": "auto"})
    assert opts.kafka_version is None
    dec = make_decoder("auto", "__share_group_state", opts, str(tmp_path / "floor" / SEG))
    assert dec.evidence.release == "4.1" and dec.evidence.floor  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"kafka_log: kafka_version: unsupported Kafka version "
                                         r"'3\.8'"):
        parse_options({"path": str(tmp_path), "kafka_version": "3.8"})


# ------------------------------------------------------------------------ lag: streams, share


def _groups_without_commits(root: Path) -> None:
    """A streams group whose tasks read source topics, a repartition topic and a regex's
    topics, one offset committed; a share group assigned two partitions, one with
    share-partition state."""
    def c(t: int, key: dict[str, Any], value: dict[str, Any]) -> w.Rec:
        return kf._coord("4.3", "group", t, key, value)

    def tasks(subtopology: str, partitions: list[int]) -> dict[str, Any]:
        return {"subtopologyId": subtopology, "partitions": partitions}

    def assignment(active: list[dict[str, Any]]) -> dict[str, Any]:
        return {"memberEpoch": 2, "previousMemberEpoch": 1, "state": 0, "activeTasks": active,
                "standbyTasks": [tasks("0", [2])], "warmupTasks": [],
                "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [],
                "warmupTasksPendingRevocation": []}

    def sub(sid: str, topics: list[str], regex: list[str], repartition: list[str]
            ) -> dict[str, Any]:
        return {"subtopologyId": sid, "sourceTopics": topics, "sourceTopicRegex": regex,
                "stateChangelogTopics": [], "repartitionSinkTopics": [],
                "repartitionSourceTopics": [{"name": n, "partitions": 2, "replicationFactor": -1,
                                             "topicConfigs": []} for n in repartition],
                "copartitionGroups": []}

    kf._partition(root / "__consumer_offsets-0", [[
        c(17, {"groupId": "st"}, {"epoch": 2, "metadataHash": 7}),
        c(23, {"groupId": "st"}, {"epoch": 1, "subtopologies": [
            sub("0", ["orders"], [], ["st-rep"]), sub("1", [], ["pay.*"], [])]}),
        c(22, {"groupId": "st", "memberId": "m1"}, assignment([tasks("0", [0, 1])])),
        c(22, {"groupId": "st", "memberId": "m2"},
          assignment([tasks("1", [0]), tasks("9", [0])])),  # no subtopology 9: left out
        c(1, {"group": "st", "topic": "orders", "partition": 0},
          {"offset": 2, "leaderEpoch": 0, "metadata": "", "commitTimestamp": kf.TS}),
        c(11, {"groupId": "sh"}, {"epoch": 3, "metadataHash": 11}),
        c(15, {"groupId": "sh"}, {"initializingTopics": [], "deletingTopics": [],
                                  "initializedTopics": [{"topicId": kf.T1, "topicName": "orders",
                                                         "partitions": [0]}]}),
        c(14, {"groupId": "sh", "memberId": "m9"},
          {"memberEpoch": 3, "previousMemberEpoch": 2, "state": 0,
           "assignedPartitions": [{"topicId": kf.T1, "partitions": [0, 1]}]}),
    ]])
    kf._partition(root / "__share_group_state-0", [[kf._coord(
        "4.3", "share", 0, {"groupId": "sh", "topicId": kf.T1, "partition": 0},
        {"snapshotEpoch": 0, "stateEpoch": 1, "leaderEpoch": 0, "startOffset": 1,
         "createTimestamp": kf.TS, "writeTimestamp": kf.TS, "stateBatches": []})]])
    for topic in ("orders-0", "orders-1", "payments-0", "paycheck-0", "other-0"):
        kf._partition(root / topic, [[w.Rec(b"k", b"v")] * 3])


def test_streams_regexes_are_matched_whole_and_never_backtrack_badly() -> None:
    from kdump.ops.lag import streams_task_partitions
    from kdump.ops.offsets_digest import GroupState

    g = GroupState("st", "streams")
    g.topology = {"epoch": 1, "subtopologies": [{
        "subtopology_id": "0", "source_topics": [], "repartition_source_topics": [],
        "source_topic_regex": ["pay.*", "(a|aa)+b", "(a+)+b", "x" * 257, "[unclosed"]}]}
    g.assignments = {"m1": [{"subtopology_id": "0", "partitions": [1]}]}
    topics = ["payments", "repay", "a" * 200 + "c", "aab"]
    assert list(streams_task_partitions(g, topics)) == [("m1", "payments", 1)]


def test_lag_of_streams_tasks_and_share_assignments(kdump: Any, tmp_path: Path) -> None:
    _groups_without_commits(tmp_path)
    r = kdump("lag", ".", "--format", "json", cwd=tmp_path)
    assert r.rc == 0, r.err
    rows = [(x["group"], x["group_type"], x["topic"], x["partition"], x["committed_offset"],
             x["lag"], x["assigned_to"]) for x in _objects(r.out, "lag")]
    assert rows == [
        ("sh", "share", "orders", 0, 1, 2, ["m9"]),
        ("st", "streams", "orders", 0, 2, 1, ["m1"]),
        # assigned, nothing committed (nor share-partition state): lag unknown
        ("sh", "share", "orders", 1, None, None, ["m9"]),
        ("st", "streams", "orders", 1, None, None, ["m1"]),
        ("st", "streams", "paycheck", 0, None, None, ["m2"]),
        ("st", "streams", "payments", 0, None, None, ["m2"]),
        ("st", "streams", "st-rep", 0, None, None, ["m1"]),
        ("st", "streams", "st-rep", 1, None, None, ["m1"]),
    ]
    (share1,) = [x for x in _objects(r.out, "lag") if x["group"] == "sh" and x["partition"] == 1]
    assert (share1["log_end_offset"], share1["commit_timestamp"], share1["committed_offset_from"]) \
        == (3, -1, "")
    groups = [(x["group"], x["group_type"], x["partitions"], x["total_lag"])
              for x in _objects(r.out, "group_lag")]
    assert groups == [("sh", "share", 2, 2), ("st", "streams", 6, 1)]
    t = kdump("lag", ".", "--group", "st", "--topic", "st-rep", cwd=tmp_path)
    assert [line.split()[:6] for line in t.out.splitlines()[1:3]] == [
        ["st", "streams", "st-rep", "0", "-", "-"], ["st", "streams", "st-rep", "1", "-", "-"]]


# ------------------------------------------------------------------------ share state batches


@pytest.mark.parametrize(("so_far", "new", "start", "expected"), [
    # pruned at the start offset
    ([(100, 130, 0, 1)], [], 120, [(120, 130, 0, 1)]),
    ([(100, 110, 0, 1)], [(90, 99, 2, 1)], 100, [(100, 110, 0, 1)]),
    # same delivery count and state: overlapping or contiguous batches are joined
    ([(100, 110, 0, 1)], [(105, 115, 0, 1)], -1, [(100, 115, 0, 1)]),
    ([(100, 110, 0, 1)], [(111, 115, 0, 1)], -1, [(100, 115, 0, 1)]),
    ([(100, 110, 0, 1)], [(111, 115, 2, 1)], -1, [(100, 110, 0, 1), (111, 115, 2, 1)]),
    # the higher delivery count wins where they overlap, then the higher state
    ([(100, 110, 0, 1)], [(100, 105, 2, 2)], -1, [(100, 105, 2, 2), (106, 110, 0, 1)]),
    ([(100, 110, 0, 3)], [(100, 105, 0, 1)], -1, [(100, 110, 0, 3)]),
    ([(100, 120, 0, 1)], [(105, 110, 2, 1)], -1,
     [(100, 104, 0, 1), (105, 110, 2, 1), (111, 120, 0, 1)]),
    ([(100, 120, 2, 1)], [(105, 110, 0, 1)], -1, [(100, 120, 2, 1)]),
    ([(100, 110, 0, 1)], [(105, 115, 2, 2)], -1, [(100, 104, 0, 1), (105, 115, 2, 2)]),
    ([(100, 110, 0, 2)], [(105, 115, 2, 1)], -1, [(100, 110, 0, 2), (111, 115, 2, 1)]),
    ([(100, 110, 0, 1), (120, 130, 0, 1)], [(105, 125, 4, 1)], -1,
     [(100, 104, 0, 1), (105, 125, 4, 1), (126, 130, 0, 1)]),
])
def test_combine_state_batches(so_far: list[Any], new: list[Any], start: int,
                               expected: list[Any]) -> None:
    from kdump.ops.share_state import combine_state_batches

    assert combine_state_batches(so_far, new, start) == expected


def test_summary_merges_updates_onto_the_snapshot(kdump: Any, tmp_path: Path) -> None:
    key = {"groupId": "sh", "topicId": kf.T1, "partition": 0}

    def batch(first: int, last: int, state: int, count: int) -> dict[str, int]:
        return {"firstOffset": first, "lastOffset": last, "deliveryState": state,
                "deliveryCount": count}

    kf._partition(tmp_path / "__share_group_state-0", [[
        kf._coord("4.3", "share", 0, key, {
            "snapshotEpoch": 1, "stateEpoch": 1, "leaderEpoch": 0, "startOffset": 100,
            "createTimestamp": kf.TS, "writeTimestamp": kf.TS,
            "stateBatches": [batch(100, 119, 0, 1)]}),
        kf._coord("4.3", "share", 1, key, {
            "snapshotEpoch": 1, "leaderEpoch": -1, "startOffset": 105,
            "stateBatches": [batch(105, 109, 2, 1)]}),
        kf._coord("4.3", "share", 1, key, {
            "snapshotEpoch": 1, "leaderEpoch": 0, "startOffset": -1,
            "stateBatches": [batch(115, 124, 0, 2)]}),
    ]])
    r = kdump("dump", "--summary", "--format", "json", "__share_group_state-0", cwd=tmp_path)
    assert r.rc == 0, r.err
    (s,) = _objects(r.out, "share_partition")
    assert (s["start_offset"], s["updates_since_snapshot"]) == (105, 2)
    assert s["state_batches"] == [
        {"first_offset": 105, "last_offset": 109, "delivery_state": 2, "delivery_count": 1},
        {"first_offset": 110, "last_offset": 114, "delivery_state": 0, "delivery_count": 1},
        {"first_offset": 115, "last_offset": 124, "delivery_state": 0, "delivery_count": 2}]


def test_combined_state_is_the_highest_delivery_info_per_offset() -> None:
    """Whatever the batches, the combined state does not overlap, is sorted, and gives
    every offset at or above the start offset the highest (delivery count, state) of the
    batches holding it."""
    import itertools
    import random

    from kdump.ops.share_state import combine_state_batches

    rng = random.Random(23)
    for _ in range(300):
        def some() -> list[tuple[int, int, int, int]]:
            out = []
            for _ in range(rng.randint(0, 6)):
                first = rng.randint(0, 40)
                out.append((first, first + rng.randint(0, 12), rng.choice([0, 2, 4]),
                            rng.randint(1, 3)))
            return out

        so_far, new = some(), some()
        start = rng.choice([-1, rng.randint(0, 30)])
        got = combine_state_batches(so_far, new, start)
        assert all(a[1] < b[0] for a, b in itertools.pairwise(got))
        want: dict[int, tuple[int, int]] = {}
        for first, last, state, count in so_far + new:
            for o in range(max(first, start), last + 1):
                want[o] = max(want.get(o, (0, -1)), (count, state))
        have = {o: (count, state) for first, last, state, count in got
                for o in range(first, last + 1)}
        assert have == want


@pytest.mark.parametrize("args", [
    ["dump", "--summary", "."], ["lag", "."], ["find-offset", ".", "0"],
    ["find-time", ".", "0"], ["compare-replicas", "."], ["report", ".", "--format", "json"],
    ["spark", "export", ".", "--output", "out"],
])
def test_every_command_checks_the_kafka_version(kdump: Any, tmp_path: Path,
                                                args: list[str]) -> None:
    r = kdump(*args, "--kafka-version", "3.8", cwd=tmp_path)
    assert r.rc == 2
    assert "Invalid value for '--kafka-version': unsupported Kafka version '3.8': kdump reads " \
           "the record layouts of Kafka 3.9, 4.0, 4.1, 4.2, 4.3, 4.4" in r.err
