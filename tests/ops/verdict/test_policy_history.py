"""A topic whose cleanup.policy changed is judged by its config history (issue 46): the
KRaft metadata's settings in order (``MetadataConfigs.policy_history``), the compact
period :func:`cleanup_of` says ended, and the gaps the cleaner left before it ended."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdump.files.logdir import KafkaFile
from kdump.ops.topics.config import PolicyChange
from kdump.ops.topics.evidence import METADATA_TOPIC, read_metadata
from kdump.ops.verdict import CleanupPolicies, cleanup_of, judge_partition
from tests.support import writer as w

#: when t's policy went from compact to delete (the controllers' clock)
CHANGED = w.TS0 + 1_000
#: 2023-11-14T22:13:21.000Z, as the words say it
CHANGED_TEXT = "2023-11-14T22:13:21.000Z"
HISTORY = (f"compact from ConfigRecord at offset 0 until {CHANGED_TEXT}, when ConfigRecord "
           "at offset 1 set cleanup.policy=delete")


def _config(value: str | None, topic: str = "t") -> bytes:
    return w.metadata_record("ConfigRecord", {
        "resourceType": 2, "resourceName": topic, "name": "cleanup.policy", "value": value})


def _history(ld: Path, *values: str | None) -> None:
    """t's cleanup.policy set to each of ``values`` in turn (None: the key removed), one
    ConfigRecord a batch, an offset and a second apart from :data:`CHANGED` - 1 s."""
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    for i, v in enumerate(values):
        lw.append([_config(v)], timestamp=CHANGED - 1_000 + 1_000 * i)
    lw.close()


def _read(ld: Path) -> dict[str, list[PolicyChange]]:
    cfg, _level, problems = read_metadata(
        [KafkaFile(str(ld / "__cluster_metadata-0" / "00000000000000000000.log"), "log",
                   topic=METADATA_TOPIC, partition=0)], 1 << 20)
    assert cfg is not None and problems == []
    return cfg.policy_history


def test_the_history_of_each_topic_s_policy_in_order(tmp_path: Path) -> None:
    """Each setting with its record's offset and time; a removed key (a null ConfigRecord,
    or the RemoveTopicRecord that drops a topic's configs) is Kafka's default delete."""
    ld = tmp_path / "ld"
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    tid = w.uuid_of(1)
    lw.append([w.metadata_record("TopicRecord", {"name": "u", "topicId": tid}),
               _config("compact", "u")], timestamp=w.TS0)
    lw.append([_config("compact,delete")], timestamp=w.TS0 + 1)
    lw.append([_config(None)], timestamp=w.TS0 + 2)
    lw.append([w.metadata_record("RemoveTopicRecord", {"topicId": tid})], timestamp=w.TS0 + 3)
    lw.close()
    assert _read(ld) == {
        "u": [PolicyChange("compact", 1, w.TS0),
              PolicyChange("delete", 4, w.TS0 + 3, "RemoveTopicRecord", removed=True)],
        "t": [PolicyChange("compact,delete", 2, w.TS0 + 1),
              PolicyChange("delete", 3, w.TS0 + 2, removed=True)]}


def test_the_history_reaches_back_past_a_snapshot_when_asked(tmp_path: Path) -> None:
    """The image is replayed as a broker loads it (the newest snapshot, then the log), and
    the policy history read with it begins with the snapshot's value (no offset, no time);
    the whole history, the log before the snapshot included, is replayed only when asked
    (``compaction_ended(..., deeper=True)``: a gap the first does not explain)."""
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    _history(whole, "compact", "delete")  # offsets 0 and 1
    w.metadata_snapshot(whole / "__cluster_metadata-0" /
                        "00000000000000000002-0000000001.checkpoint", [_config("delete")])
    cfg, _level, _problems = read_metadata(
        [KafkaFile(str(whole / "__cluster_metadata-0" / "00000000000000000000.log"), "log",
                   topic=METADATA_TOPIC, partition=0)], 1 << 20)
    assert cfg is not None and cfg.deeper_history is not None
    assert cfg.policy_history["t"] == [PolicyChange("delete", None, None)]
    assert cfg.compaction_ended("t") is None
    assert cfg.compaction_ended("t", deeper=True) == (PolicyChange("compact", 0, CHANGED - 1_000),
                                                      PolicyChange("delete", 1, CHANGED))
    # a log that starts at its snapshot: the history begins with the snapshot's value
    meta = cut / "__cluster_metadata-0"
    meta.mkdir(parents=True)
    w.metadata_snapshot(meta / "00000000000000000001-0000000001.checkpoint",
                        [_config("compact")])
    lw = w.MetadataLogWriter(meta)
    lw.skip(1)
    lw.append([_config("delete")], timestamp=CHANGED)
    lw.close()
    cfg, _level, _problems = read_metadata(
        [KafkaFile(str(meta / "00000000000000000001.log"), "log", topic=METADATA_TOPIC,
                   partition=0)], 1 << 20)
    assert cfg is not None
    assert cfg.policy_history["t"] == [PolicyChange("compact", None, None),
                                       PolicyChange("delete", 1, CHANGED)]
    assert cfg.compaction_ended("t") == (PolicyChange("compact", None, None),
                                         PolicyChange("delete", 1, CHANGED))


def test_the_log_before_the_snapshot_is_replayed_only_for_a_gap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """verify-crc over a log dir whose newest snapshot postdates the switch to delete: a
    clean partition costs no replay of the log before the snapshot; a gap in a segment
    closed before the switch asks for it, once, and is the cleaner's."""
    from kdump.ops import verify_crc as verify_mod
    from kdump.ops.topics import evidence

    calls: list[int] = []
    real = evidence.deeper_history

    def counting(*args: object) -> object:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(evidence, "deeper_history", counting)

    def kinds(ld: Path) -> list[tuple[str, list[int] | None]]:
        w.metadata_snapshot(ld / "__cluster_metadata-0" /
                            "00000000000000000002-0000000001.checkpoint", [_config("delete")])
        out = list(verify_mod.verify_crc([str(ld)], verify_mod.VerifyOptions(
            policies=CleanupPolicies.for_inputs([str(ld)]))))
        return [(str(p.kind), (p.extra or {}).get("lost_offsets")) for p in out
                if hasattr(p, "kind") and p.kind in ("offset-gap", "data-lost")]

    clean = _partition(tmp_path / "clean", 1)  # no batch at offset 1: nothing cut
    assert kinds(clean.parent) == [] and calls == []
    gap = _partition(tmp_path / "gap", 25)
    assert kinds(gap.parent) == [("offset-gap", [25, 29])] and calls == [1]


@pytest.mark.parametrize(("values", "compacted", "history"), [
    (("compact", "delete"), False, HISTORY),
    # the key removed: Kafka's default delete
    (("compact", None), False, f"compact from ConfigRecord at offset 0 until {CHANGED_TEXT}, "
                               "when ConfigRecord at offset 1 removed cleanup.policy (Kafka's "
                               "default delete)"),
    (("delete", "compact"), True, None),  # the cleaner compacts every closed segment now
    (("delete",), False, None),
    (("compact", "delete", "compact,delete", "delete"), False,
     "compact from ConfigRecord at offset 2 until 2023-11-14T22:13:23.000Z, when ConfigRecord "
     "at offset 3 set cleanup.policy=delete"),
])
def test_cleanup_of_says_when_compaction_ended(tmp_path: Path, values: tuple[str | None, ...],
                                               compacted: bool, history: str | None) -> None:
    ld = tmp_path / "ld"
    _history(ld, *values)
    (ld / "t-0").mkdir()
    policies = CleanupPolicies.for_inputs([str(ld)])
    c = cleanup_of(str(ld / "t-0"), "t", 0, policies)
    assert (c.compacted, c.history) == (compacted, history)
    if history is not None:
        end = len(values) - 1
        assert (c.compact_until, c.compact_until_offset) == (CHANGED - 1_000 + 1_000 * end, end)
        assert c.source.endswith(f"; {history}") and c.known


def _batches(first: int, end: int, cut: int, active_after: bool) -> list[bytes]:
    return [w.v2_batch(w.numbered_records(o, 5, ts0=w.TS0 + 3_600_000 if (
        50 <= o < 100 or (o >= 100 and active_after)) else w.TS0), base_offset=o)
        for o in range(first, end, 5) if o != cut]


def _partition(ld: Path, cut: int, *, active_after: bool = True) -> Path:
    """t: offsets 0-49 (segment 0, stamped before :data:`CHANGED`), 50-99 (segment 50),
    100-149 (the active segment 100), batches of 5; segments 50 and 100 stamped an hour
    after the change (``active_after`` False: the active one before it); the segment
    holding ``cut`` written again without that batch, under its base offset, as the
    cleaner writes a segment (Cleaner.cleanSegments: its indexes name no offset in the
    gap); high watermark 150."""
    ld.mkdir(parents=True, exist_ok=True)
    (ld / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "1", "cluster.id": "c"}))
    (ld / "replication-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, 150)]))
    pw = w.PartitionWriter(ld / "t-0")
    for o, batch in zip(range(0, 150, 5), _batches(0, 150, -1, active_after), strict=True):
        if o in (50, 100):
            pw.roll()
        pw.append(batch)
    pw.close()
    base = cut // 50 * 50
    cleaned = w.PartitionWriter(ld / "cleaned")
    for batch in _batches(base, base + 50, cut, active_after):
        cleaned.append(batch)
    cleaned.close()
    for f in (ld / "cleaned").iterdir():
        f.replace(ld / "t-0" / f.name)
    (ld / "cleaned").rmdir()
    _history(ld, "compact", "delete")
    return ld / "t-0"


def _judged(d: Path, cut: int) -> list[tuple[str, str, list[int], str]]:
    v = judge_partition(d, [(0, cut - 1), (cut + 5, 149)],
                        policies=CleanupPolicies.for_inputs([str(d.parent)]))
    assert v is not None
    return [(str(p.kind), str(p.severity), p.extra["lost_offsets"],
             p.detail.split(": ", 1)[1]) for p in v.findings()]


WRITTEN = "high watermark 150, time index entry 49, segment 50, batch at offset {}"


def test_a_gap_in_a_segment_closed_before_the_change_is_the_cleaner_s(tmp_path: Path) -> None:
    d = _partition(tmp_path / "ld", 25)
    assert _judged(d, 25) == [(
        "offset-gap", "info", [25, 29],
        f"the topic was compacted until its policy changed ({HISTORY}): the log cleaner's, "
        "in segments closed before the change (largest timestamp 2023-11-14T22:13:20.049Z in "
        "segment 0; the producers' or brokers' clock against the controllers')")]
    # between two segments: the end of segment 0 cut (the cleaner keeps its base offset)
    d = _partition(tmp_path / "ld2", 45)
    [(kind, severity, lost, _words)] = _judged(d, 45)
    assert (kind, severity, lost) == ("offset-gap", "info", [45, 49])


def test_without_a_timestamp_the_history_alone_explains_it(tmp_path: Path) -> None:
    d = _partition(tmp_path / "ld", 25)
    (d / "00000000000000000000.timeindex").unlink()
    [(kind, severity, lost, words)] = _judged(d, 25)
    assert (kind, severity, lost) == ("offset-gap", "info", [25, 29])
    assert words.endswith("the log cleaner's, judged on the policy history alone (no largest "
                          "timestamp read for segment 0)")


def test_a_gap_in_a_segment_written_after_the_change_is_lost(tmp_path: Path) -> None:
    d = _partition(tmp_path / "ld", 75)
    [(kind, severity, lost, words)] = _judged(d, 75)
    assert (kind, severity, lost) == ("data-lost", "error", [75, 79])
    assert words.endswith(
        f"; the topic was compacted until its policy changed ({HISTORY}), but segment 50 "
        "holds records written after that (its largest timestamp 2023-11-14T23:13:20.099Z, "
        "its time index's last entry): the cleaner never cleaned it")


def test_the_active_segment_is_never_the_cleaner_s(tmp_path: Path) -> None:
    """A gap in the active segment is lost even when its records all predate the change:
    the cleaner never goes at or past the active segment's base
    (LogCleanerManager.cleanableOffsets)."""
    d = _partition(tmp_path / "ld", 125, active_after=False)
    [(kind, severity, lost, words)] = _judged(d, 125)
    assert (kind, severity, lost) == ("data-lost", "error", [125, 129])
    assert "compacted" not in words


def test_the_history_outweighs_a_cleaner_checkpoint_entry(tmp_path: Path) -> None:
    """The cleaner-offset-checkpoint keeps a log's entry after its policy leaves compact
    (LogCleanerManager.updateCheckpoints drops it only when the log is deleted or moved):
    the history says when compaction ended, and a gap written after it is lost."""
    d = _partition(tmp_path / "ld", 75)
    (d.parent / "cleaner-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, 50)]))
    c = cleanup_of(str(d), "t", 0, CleanupPolicies.for_inputs([str(d.parent)]))
    assert (c.compacted, c.history) == (False, HISTORY)
    assert [(kind, lost) for kind, _sev, lost, _words in _judged(d, 75)] == [
        ("data-lost", [75, 79])]


def test_a_damaged_log_before_the_newest_snapshot_leaves_the_image_whole(tmp_path: Path
                                                                        ) -> None:
    """Offsets missing from the log before the newest snapshot: the image is read from
    that snapshot on, as a broker loads it (no metadata-gap), and the history begins with
    the snapshot's value."""
    meta = tmp_path / "ld" / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(meta)
    lw.append([_config("compact")], timestamp=w.TS0)
    lw.skip(2)  # offsets 1-2 gone
    lw.roll()
    lw.append([_config("delete")], timestamp=CHANGED)
    lw.close()
    w.metadata_snapshot(meta / "00000000000000000003-0000000001.checkpoint",
                        [_config("compact")])
    assert _read(tmp_path / "ld") == {"t": [PolicyChange("compact", None, None),
                                            PolicyChange("delete", 3, CHANGED)]}
