"""A time index entry in a gap of a log's offsets is explained by compaction only in a
compacted topic (issue 41.7): ``cleanup.policy`` from the log dir's KRaft metadata,
Kafka's own topics' creation configs, else Kafka's default (``delete``); in a delete
topic the offsets are missing, an error, and nothing says compaction; with no metadata to
say which, a warning that claims neither.  dump and
verify-index say it with the same words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import KdumpRunner
from tests.support import writer as w

TS = 1_700_000_000_000
LOG0 = "00000000000000000000"


def _partition(d: Path, *, zeroed: bool) -> None:
    """Batches at offsets 0-1, 2-3, 4-5 with a time entry at each one's last offset; the
    middle batch zeroed in place (``zeroed``) or gone as the cleaner leaves it."""
    d.mkdir(parents=True)
    bs = [w.v2_batch([w.Rec(b"k", b"v" * 40, timestamp=TS + o) for o in (base, base + 1)],
                     base_offset=base, first_timestamp=TS + base) for base in (0, 2, 4)]
    middle = bytes(len(bs[1])) if zeroed else b""
    (d / f"{LOG0}.log").write_bytes(bs[0] + middle + bs[2])
    (d / f"{LOG0}.index").write_bytes(b"")
    (d / f"{LOG0}.timeindex").write_bytes(w.time_index([(TS + 1, 1), (TS + 3, 3), (TS + 5, 5)]))


def _gap_findings(text: str) -> list[dict[str, Any]]:
    objs = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    return [o for o in objs if o["type"] == "problem" and o["kind"] == "index-mismatch"]


def _both(kdump: KdumpRunner, b: Path, topic: str) -> tuple[list[dict[str, Any]], int]:
    """verify-index's gap findings for ``topic`` (they must equal dump's), and its rc."""
    tindex = b / f"{topic}-0" / f"{LOG0}.timeindex"
    r = kdump("verify-index", "--format", "json", b)
    mine = [p for p in _gap_findings(r.out) if p["file"] == str(tindex)]
    d = kdump("dump", "--format", "json", tindex)
    assert _gap_findings(d.out) == mine
    return mine, r.rc


def _metadata(b: Path, compacted: str = "ledger") -> None:
    """A KRaft metadata log in the log dir: ``compacted`` made compact by a ConfigRecord,
    every other topic left at Kafka's default (delete)."""
    ml = w.MetadataLogWriter(b / "__cluster_metadata-0")
    ml.append([w.metadata_record("ConfigRecord", {"resourceType": 2, "resourceName": compacted,
                                                  "name": "cleanup.policy",
                                                  "value": "compact"})])
    ml.close()


def test_a_zeroed_page_of_a_delete_topic_is_not_compaction(kdump: KdumpRunner,
                                                           tmp_path: Path) -> None:
    b = w.broker_logdir(tmp_path / "b1", 1)
    _partition(b / "orders-0", zeroed=True)
    _metadata(b)
    r = kdump("verify-index", "--format", "json", b)
    assert r.rc == 1
    gap = [p for p in _gap_findings(r.out) if "orders-0" in p["file"]]
    assert [(p["position"], p["severity"], p["check"], p["detail"]) for p in gap] == [
        (12, "error", "offset-not-found",
         "entry 1: offset 3 is in no batch: offsets before the batch 4-5 are missing from "
         "the log; not compaction's doing (cleanup.policy=delete, default (LogConfig)): lost "
         "(the log's own findings say where it is damaged)")]
    assert "removed by compaction" not in r.out


def test_without_metadata_the_policy_is_not_known(kdump: KdumpRunner, tmp_path: Path) -> None:
    """No KRaft metadata beside the log dir (it may live in another log dir): Kafka's
    default is no proof either way; neither compaction nor loss is claimed."""
    b = w.broker_logdir(tmp_path / "b1", 1)
    _partition(b / "orders-0", zeroed=True)
    r = kdump("verify-index", "--format", "json", b)
    assert r.rc == 1  # the zeroed region
    assert [(p["severity"], p["check"], p["detail"]) for p in _gap_findings(r.out)] == [
        ("warning", "offset-not-found",
         "entry 1: offset 3 is in no batch: offsets before the batch 4-5 are missing from "
         "the log; compaction removes offsets only in a compacted topic, and nothing here "
         "says this one is (cleanup.policy=delete, default (LogConfig); no KRaft metadata "
         "in this log dir): lost unless the topic is compacted")]


def test_a_gap_in_a_compacted_topic_is_compaction(kdump: KdumpRunner, tmp_path: Path) -> None:
    """_schemas: the schema registry creates it compacted."""
    b = w.broker_logdir(tmp_path / "b1", 1)
    _partition(b / "_schemas-0", zeroed=False)
    mine, _rc = _both(kdump, b, "_schemas")
    assert [(p["severity"], p["check"], p["detail"]) for p in mine] == [
        ("info", "compacted-away",
         "entry 1: offset 3 was removed by compaction (cleanup.policy=compact, assumed: Kafka "
         "creates _schemas with cleanup.policy=compact (the schema registry creates its topic "
         "compacted)); lookups scan forward to the next batch (offsets 4-5)")]


def test_the_policy_comes_from_the_kraft_metadata(kdump: KdumpRunner, tmp_path: Path) -> None:
    """A user topic made compact by a ConfigRecord: compaction; the same gap in a topic
    the metadata leaves at delete: an error."""
    b = w.broker_logdir(tmp_path / "b1", 1)
    _partition(b / "ledger-0", zeroed=False)
    _partition(b / "events-0", zeroed=False)
    _metadata(b)
    ledger, _ = _both(kdump, b, "ledger")
    assert [(p["severity"], p["check"]) for p in ledger] == [("info", "compacted-away")]
    assert "(cleanup.policy=compact, topic config cleanup.policy (ConfigRecord at offset 0))" \
        in ledger[0]["detail"]
    events, rc = _both(kdump, b, "events")
    assert [(p["severity"], p["check"]) for p in events] == [("error", "offset-not-found")]
    assert "not compaction's doing (cleanup.policy=delete, default (LogConfig))" \
        in events[0]["detail"]
    assert rc == 1
