"""Real broker data: ../shared/corpus/kafka2-logdir (a Kafka 2.x log dir nobody on this
project wrote).  Counts come from the corpus README; skipped when the corpus is absent.
The corpus is read in place, never copied, and must be unchanged afterwards.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
LOGDIR = CORPUS / "kafka2-logdir"

pytestmark = pytest.mark.skipif(not LOGDIR.is_dir(), reason="../shared/corpus is absent")

#: corpus README: "Counts read with an independent reader" (batches, records)
README_COUNTS = {
    "__consumer_offsets-12": (162, 470),
    "__consumer_offsets-18": (277, 499),
    "__consumer_offsets-32": (18, 50),
    "__consumer_offsets-17": (3, 3),
    "__consumer_offsets-33": (3, 3),
    "first_topic-0": (10, 11),
    "first_topic-1": (12, 12),
    "first_topic-2": (16, 18),
    "new_topic-0": (2, 2),
}


@pytest.fixture(scope="module")
def corpus_json() -> tuple[int, list[dict], str]:
    from tests.conftest import run_in_process, tree_state

    before = tree_state([LOGDIR])
    r = run_in_process(["dump", "--deep-iteration", "--format", "json", "kafka2-logdir"],
                       cwd=CORPUS)
    assert tree_state([LOGDIR]) == before
    return r.rc, [json.loads(line) for line in r.out.splitlines()], r.err


def test_counts_match_the_readme(corpus_json) -> None:  # type: ignore[no-untyped-def]
    _, objs, _ = corpus_json
    batches: Counter[str] = Counter()
    records: Counter[str] = Counter()
    for o in objs:
        if o["type"] in ("batch", "record"):
            part = Path(o["file"]).parent.name
            (batches if o["type"] == "batch" else records)[part] += 1
    assert {p: (batches[p], records[p]) for p in batches} == README_COUNTS


def test_every_batch_is_valid_magic_2_uncompressed(corpus_json) -> None:  # type: ignore[no-untyped-def]
    _, objs, _ = corpus_json
    batches = [o for o in objs if o["type"] == "batch"]
    assert len(batches) == sum(b for b, _ in README_COUNTS.values())
    assert all(b["crc_valid"] for b in batches)
    assert {(b["magic"], b["compression"]) for b in batches} == {(2, "none")}
    ends = [o for o in objs if o["type"] == "log_end"]
    assert all(e["trailing_bytes"] == 0 and e["unreadable_bytes"] == 0 for e in ends)


def test_exit_0_over_the_whole_log_dir(corpus_json) -> None:  # type: ignore[no-untyped-def]
    rc, objs, err = corpus_json
    assert rc == 0
    assert err == ""
    failures = [o for o in objs if o["type"] == "problem" and o["severity"] != "info"]
    assert failures == []
    kinds = {o["kind"] for o in objs if o["type"] == "file"}
    assert {"log", "offset-index", "time-index", "producer-snapshot", "leader-epoch-checkpoint",
            "meta-properties", "recovery-point-offset-checkpoint",
            "replication-offset-checkpoint", "log-start-offset-checkpoint",
            "cleaner-offset-checkpoint"} <= kinds


@pytest.mark.parametrize("fmt", ["text", "json", "table"])
def test_exit_0_in_every_format(kdump, fmt: str) -> None:  # type: ignore[no-untyped-def]
    r = kdump("dump", "--format", fmt, "kafka2-logdir", cwd=CORPUS, watch=[LOGDIR])
    assert r.rc == 0


def test_consumer_offsets_decode_without_error(kdump) -> None:  # type: ignore[no-untyped-def]
    r = kdump("dump", "--print-data-log", "--format", "json", "kafka2-logdir", cwd=CORPUS,
              watch=[LOGDIR])
    assert r.rc == 0
    recs = [json.loads(line) for line in r.out.splitlines()]
    recs = [o for o in recs if o["type"] == "record" and "__consumer_offsets" in o["file"]]
    assert len(recs) == sum(n for p, (_, n) in README_COUNTS.items()
                            if p.startswith("__consumer_offsets"))
    assert not [o for o in recs if "decode_error" in o]
    # README: keys are versions 1 (offset commit) and 2 (group metadata)
    assert {o["decoded"]["key"]["type"] for o in recs} == {"1", "2"}
    # the raw key stays beside its decoded form
    assert all(o["key_encoding"] in ("utf8", "base64") and isinstance(o["key"], str)
               for o in recs)
    assert all(o["topic"] == "__consumer_offsets" and not o["is_control"] for o in recs)
    tombstones = [o for o in recs if o["value"] is None]
    assert all(o["decoded"]["key"]["type"] == "2" and "value" not in o["decoded"]
               for o in tombstones)


def test_consumer_offsets_text_is_decoded(kdump) -> None:  # type: ignore[no-untyped-def]
    r = kdump("dump", "--offsets-decoder", "kafka2-logdir/__consumer_offsets-12", cwd=CORPUS,
              watch=[LOGDIR])
    assert r.rc == 0
    recs = [line for line in r.lines if line.startswith("| ")]
    assert len(recs) == 470
    assert not [line for line in recs if "skipping" in line]
    assert recs[0].startswith("| offset: 0 CreateTime: 1587580798823 keySize: 25 valueSize: 310 "
                              'sequence: -1 headerKeys: [] key: {"type":"2","data":'
                              '{"group":"my-second-application"}} payload: {"version":"3",')


def test_lag_on_the_corpus(kdump) -> None:  # type: ignore[no-untyped-def]
    """Three groups on first_topic, all caught up; the 45 empty __consumer_offsets
    partitions are one line on stderr, not 45."""
    r = kdump("lag", "--format", "text", LOGDIR)
    assert r.rc == 0
    assert r.out.splitlines()[0].split() == ["GROUP", "TYPE", "TOPIC", "PARTITION",
                                             "COMMITTED-OFFSET", "LOG-END-OFFSET",
                                             "HIGH-WATERMARK", "LAG"]
    assert sorted({line.split()[0] for line in r.out.splitlines()[1:10]}) == [
        "my-first-application", "my-firstd-application", "my-second-application"]
    # a Kafka 2.x broker's groups are classic groups (GroupMetadata records)
    assert {line.split()[1] for line in r.out.splitlines()[1:10]} == {"classic"}
    err = r.err.splitlines()
    assert len(err) == 6
    assert err[-1] == ("committed offsets: 45 empty __consumer_offsets partitions "
                       "(no commits to replay)")


def test_compare_replicas_of_one_broker_is_a_usage_error(kdump) -> None:  # type: ignore[no-untyped-def]
    r = kdump("compare-replicas", "--format", "text", LOGDIR)
    assert r.rc == 2
    assert r.err.splitlines()[-1] == (
        "compare-replicas: the inputs hold one broker's log dir only: give two or more brokers' "
        "log dirs (or partition directories) to compare")


def test_timeline_of_a_zookeeper_era_log_dir() -> None:
    """kdump timeline on the Kafka 2 log dir: no metadata log (said once, first), each
    data partition's start, the groups' rebalances and commits, an offset reset the
    files show (commits going back to 0, twice), the clean last stop; in time order."""
    from tests.conftest import run_in_process, tree_state

    before = tree_state([LOGDIR])
    r = run_in_process(["timeline", "kafka2-logdir", "--format", "json"], cwd=CORPUS)
    assert tree_state([LOGDIR]) == before
    assert r.rc == 0, r.err
    objs = [json.loads(x) for x in r.out.splitlines()]
    events = [o for o in objs if o["type"] == "timeline_event"]
    assert events[0]["kind"] == "no-metadata-log" and events[0]["time"] is None
    assert events[-1]["kind"] == "clean-shutdown"
    times = [e["time"] for e in events[1:]]
    assert times == sorted(times)
    kinds = Counter(e["kind"] for e in events)
    assert kinds["group-rebalance"] == 30 and kinds["group-deleted"] == 2
    assert kinds["log-start"] == kinds["epoch-start"] == 9  # the partitions with batches
    # two resets of my-first-application to offset 0, each after commits at 11, 12, 18
    resets = [e["text"] for e in events if "went back" in e["text"]]
    assert resets == [
        f"committed offset 0 on first_topic/{p}{since}; went back from {o} to 0 (an offset "
        "reset or rewind)" for since in ("", " (3 commits since 2020-04-22T19:19:36.229Z)")
        for p, o in ((0, 11), (1, 12), (2, 18))]
    assert objs[-1]["type"] == "timeline_end" and objs[-1]["late"] == 0
