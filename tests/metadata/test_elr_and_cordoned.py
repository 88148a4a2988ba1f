"""``kdump metadata`` over Kafka 4.x records: ClearElrRecord (4.0+) and cordoned log
directories (RegisterBrokerRecord v4 / BrokerRegistrationChangeRecord v3, 4.3), checked
against an independent replay written here; logs written by tests/writer.py with the
records of tests/support/group_records.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kdump.metadata import Replay, Target, find_sources
from kdump.metadata.image import ApplyError, MetadataImage
from kdump.metadata.output import Selector, diff_objects, image_objects
from tests.conftest import KdumpRunner
from tests.support import group_records as gr
from tests.support import writer as w

TS = 1700000000000
T1, T2, T3 = (w.uuid_of(i) for i in (61, 62, 63))
D1, D2, D3 = (w.uuid_of(i) for i in (71, 72, 73))
INC = w.uuid_of(81)

EP = [{"name": "PLAINTEXT", "host": "h", "port": 9092, "securityProtocol": 0}]


def _part(tid: str, pid: int, elr: list[int] | None, lkelr: list[int] | None,
          epoch: int = 0) -> dict[str, Any]:
    return {"partitionId": pid, "topicId": tid, "replicas": [1, 2, 3], "isr": [1],
            "removingReplicas": [], "addingReplicas": [], "leader": 1, "leaderEpoch": 4,
            "partitionEpoch": epoch, "directories": [D1, D2, D3],
            "eligibleLeaderReplicas": elr, "lastKnownElr": lkelr}


def _broker(version: int, cordoned: list[str] | None, epoch: int = 10) -> dict[str, Any]:
    v: dict[str, Any] = {"brokerId": 1, "incarnationId": INC, "brokerEpoch": epoch,
                         "endPoints": EP, "features": [], "rack": None, "fenced": False,
                         "logDirs": [D2, D1, D3]}
    if version >= 4:
        v["cordonedLogDirs"] = cordoned
    return v


#: (record name, values, version or None for the newest)
SCENARIO: list[tuple[str, dict[str, Any], int | None]] = [
    ("TopicRecord", {"name": "orders", "topicId": T1}, None),
    ("PartitionRecord", _part(T1, 0, [2, 3], [3]), None),
    ("PartitionRecord", _part(T1, 1, None, None), None),  # nothing to clear: epoch kept
    ("PartitionRecord", _part(T1, 2, None, [2]), None),
    ("TopicRecord", {"name": "pay", "topicId": T2}, None),
    ("PartitionRecord", _part(T2, 0, [3], None, epoch=7), None),
    ("ClearElrRecord", {"topicName": "orders"}, None),  # 6
    ("PartitionChangeRecord", {"partitionId": 0, "topicId": T1,
                               "eligibleLeaderReplicas": [2], "lastKnownElr": []}, None),
    ("RegisterBrokerRecord", _broker(3, None), 3),  # 8: no cordoned dirs said
    ("RegisterBrokerRecord", _broker(4, [D3, D1], epoch=11), None),  # 9: order kept
    ("BrokerRegistrationChangeRecord", {"brokerId": 1, "brokerEpoch": 11, "fenced": 1,
                                        "cordonedLogDirs": None}, None),  # 10: no change
    ("BrokerRegistrationChangeRecord", {"brokerId": 1, "brokerEpoch": 11,
                                        "cordonedLogDirs": []}, None),  # 11: none cordoned
    ("ClearElrRecord", {"topicName": ""}, None),  # 12: every topic
    ("TopicRecord", {"name": "later", "topicId": T3}, None),
    ("ClearElrRecord", {"topicName": "gone"}, None),  # 14: no such topic: a finding
]


class Model:
    """The image the obvious way, for the fields these records touch."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.parts: dict[tuple[str, int], dict[str, Any]] = {}
        self.broker: dict[str, Any] | None = None

    def apply(self, n: str, v: dict[str, Any]) -> None:
        if n == "TopicRecord":
            self.names[v["name"]] = v["topicId"]
        elif n == "PartitionRecord":
            self.parts[(v["topicId"], v["partitionId"])] = {
                "elr": v["eligibleLeaderReplicas"] or [], "last_known_elr": v["lastKnownElr"] or [],
                "partition_epoch": v["partitionEpoch"], "leader_epoch": v["leaderEpoch"]}
        elif n == "PartitionChangeRecord":
            p = self.parts[(v["topicId"], v["partitionId"])]
            p["elr"], p["last_known_elr"] = v["eligibleLeaderReplicas"], v["lastKnownElr"]
            p["partition_epoch"] += 1
        elif n == "ClearElrRecord":
            if v["topicName"] and v["topicName"] not in self.names:
                return  # refused
            ids = [self.names[v["topicName"]]] if v["topicName"] else list(self.names.values())
            for (tid, _), p in self.parts.items():
                if tid in ids and (p["elr"] or p["last_known_elr"]):
                    p.update(elr=[], last_known_elr=[], partition_epoch=p["partition_epoch"] + 1)
        elif n == "RegisterBrokerRecord":
            self.broker = {"log_dirs": sorted(v["logDirs"]), "fenced": v["fenced"],
                           "cordoned_log_dirs": v.get("cordonedLogDirs")}
        elif n == "BrokerRegistrationChangeRecord":
            assert self.broker is not None
            if v.get("fenced") == 1:
                self.broker["fenced"] = True
            if v.get("cordonedLogDirs") is not None:
                self.broker["cordoned_log_dirs"] = v["cordonedLogDirs"]

    def check(self, objs: list[dict[str, Any]]) -> None:
        parts = {(o["topic_id"], o["partition"]): o for o in objs if o["type"] == "partition"}
        assert sorted(parts) == sorted(self.parts)
        for k, want in self.parts.items():
            assert {f: parts[k][f] for f in want} == want, k
        brokers = [o for o in objs if o["type"] == "broker"]
        if self.broker is None:
            assert brokers == []
        else:
            (b,) = brokers
            assert {f: b[f] for f in self.broker} == self.broker


def _records() -> list[bytes]:
    out = []
    for name, values, version in SCENARIO:
        if name in gr.METADATA:
            out.append(gr.metadata_record(name, values, version=version))
        else:
            out.append(w.metadata_record(name, values, version=version))
    return out


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    lw = w.MetadataLogWriter(tmp_path / "__cluster_metadata-0")
    for i, rec in enumerate(_records()):
        lw.append([rec], timestamp=TS + i)
    lw.close()
    return tmp_path


def _replay(path: Path, target: Target | None = None, **kw: Any) -> Replay:
    return Replay(find_sources(str(path)), target or Target(), **kw).run()


def test_every_offset_matches_the_independent_replay(logdir: Path) -> None:
    m = Model()
    for upto, (name, values, _v) in enumerate(SCENARIO):
        m.apply(name, values)
        r = _replay(logdir, Target(offset=upto))
        failures = [p for p in r.problems if p.is_failure]
        if upto == 14:
            assert [p.detail for p in failures] == [
                "CLEAR_ELR_RECORD at offset 14 cannot be applied: Unable to clear elr for "
                "topic with name gone: no such topic found."]
        else:
            assert not failures, (upto, failures)
        m.check(image_objects(r.image))


def test_history_says_what_clear_elr_and_cordoning_changed(logdir: Path) -> None:
    events: list[dict[str, Any]] = []
    sel = Selector.parse("")
    _replay(logdir, earliest=True, on_event=lambda ev: events.extend(sel.entries(ev)))
    got = [(e["offset"], e["record"], e["label"], e["text"]) for e in events
           if e["record"] in ("CLEAR_ELR_RECORD", "BROKER_REGISTRATION_CHANGE_RECORD")
           or (e["record"] == "REGISTER_BROKER_RECORD" and e["action"] == "changed")]
    assert got == [
        (6, "CLEAR_ELR_RECORD", "orders/0",
         "partition_epoch 0 -> 1, elr [2,3] -> [], last_known_elr [3] -> []"),
        (6, "CLEAR_ELR_RECORD", "orders/2", "partition_epoch 0 -> 1, last_known_elr [2] -> []"),
        (9, "REGISTER_BROKER_RECORD", "broker 1",
         f"epoch 10 -> 11, cordoned_log_dirs null -> [{D3}, {D1}]"),
        (10, "BROKER_REGISTRATION_CHANGE_RECORD", "broker 1", "fenced"),
        (11, "BROKER_REGISTRATION_CHANGE_RECORD", "broker 1",
         f"cordoned_log_dirs [{D3}, {D1}] -> []"),
        (12, "CLEAR_ELR_RECORD", "orders/0", "partition_epoch 2 -> 3, elr [2] -> []"),
        (12, "CLEAR_ELR_RECORD", "pay/0", "partition_epoch 7 -> 8, elr [3] -> []"),
    ]


def test_diff_shows_cordoned_dirs_and_cleared_elr(logdir: Path) -> None:
    a, b = _replay(logdir, Target(offset=8)), _replay(logdir, Target(offset=11))
    assert [(x["label"], x["text"]) for x in diff_objects(a.image, b.image)] == [
        ("broker 1", "epoch 10 -> 11, fenced, cordoned_log_dirs null -> []")]
    c = _replay(logdir, Target(offset=12))
    assert [(x["label"], x["text"]) for x in diff_objects(b.image, c.image)] == [
        ("orders/0", "partition_epoch 2 -> 3, elr [2] -> []"),
        ("pay/0", "partition_epoch 7 -> 8, elr [3] -> []"),
    ]


def test_cli_json_and_text_carry_cordoned_dirs(kdump: KdumpRunner, logdir: Path) -> None:
    r = kdump("metadata", "--format", "json", "--at-offset", "9", ".", cwd=logdir)
    assert r.rc == 0, r.err
    import json

    (b,) = [o for o in map(json.loads, r.out.splitlines()) if o["type"] == "broker"]
    assert b["cordoned_log_dirs"] == [D3, D1] and b["log_dirs"] == sorted([D1, D2, D3])
    t = kdump("metadata", "--at-offset", "9", ".", cwd=logdir)
    assert f"/brokers/1/cordoned_log_dirs [{D3},{D1}]" in t.out.splitlines()
    t = kdump("metadata", "--at-offset", "8", ".", cwd=logdir)
    assert "/brokers/1/cordoned_log_dirs null" in t.out.splitlines()


def test_apply_rules_without_a_log() -> None:
    """The image's rules on messages as the decoder gives them (every field present)."""
    img = MetadataImage()
    img.apply("TOPIC_RECORD", {"name": "t", "topicId": T1})
    with pytest.raises(ApplyError, match="no such topic found"):
        img.apply("CLEAR_ELR_RECORD", {"topicName": "nope"})
    assert img.apply("CLEAR_ELR_RECORD", {"topicName": ""}) == []  # nothing to clear


def test_table_has_a_column_of_cordoned_dirs(kdump: KdumpRunner, logdir: Path) -> None:
    def cell(offset: str) -> list[str]:
        t = kdump("metadata", "--format", "table", "--at-offset", offset, ".", cwd=logdir)
        assert t.rc == 0, t.err
        # 100 columns: each broker is a block of "field | value" rows
        return [line.split("│")[2].strip() for line in t.out.splitlines()
                if line.startswith("│ cordoned dirs ")]

    assert cell("9") == [f"[{D3},{D1}]"]
    assert cell("8") == ["-"]  # no cordoned dirs said (a 4.2 registration)
