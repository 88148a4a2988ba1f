"""``kdump metadata``: images checked against an independent dict-based replay written
here, over metadata logs and snapshots written by tests/writer.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kdump.metadata import Replay, Target, find_sources
from kdump.metadata.output import Selector, diff_objects, image_objects
from tests.support import writer as w

TS = 1700000000000
A, B, C, PAY, GHOST = (w.uuid_of(i) for i in (1, 2, 3, 4, 5))
D1, D2, D3, D4 = (w.uuid_of(i) for i in (11, 12, 13, 14))
ACL1, ACL2 = w.uuid_of(21), w.uuid_of(22)
MIGRATING, UNASSIGNED = "AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAQ"


def ep(port: int) -> list[dict[str, Any]]:
    return [{"name": "PLAINTEXT", "host": "h", "port": port, "securityProtocol": 0}]


# Each batch: (timestamp, [(record name, values)]) or (timestamp, "control", [...]).
def scenario() -> list[tuple[int, list[tuple[str, dict[str, Any]]]]]:
    b: list[tuple[int, list[tuple[str, dict[str, Any]]]]] = []
    t = TS

    def batch(*recs: tuple[str, dict[str, Any]]) -> None:
        nonlocal t
        b.append((t, list(recs)))
        t += 1000

    batch(("FeatureLevelRecord", {"name": "metadata.version", "featureLevel": 21}),
          ("FeatureLevelRecord", {"name": "kraft.version", "featureLevel": 1}),
          ("RegisterControllerRecord", {"controllerId": 1, "incarnationId": C,
                                        "zkMigrationReady": False, "endPoints": ep(9093)}))
    batch(*[("RegisterBrokerRecord", {"brokerId": i, "incarnationId": w.uuid_of(30 + i),
                                      "brokerEpoch": 10 * i, "endPoints": ep(9090 + i),
                                      "rack": f"r{i}", "fenced": True,
                                      "logDirs": [w.uuid_of(40 + i)]}) for i in (1, 2, 3, 4)])
    batch(*[("UnfenceBrokerRecord", {"id": i, "epoch": 10 * i}) for i in (1, 2, 3, 4)])
    batch(("TopicRecord", {"name": "orders", "topicId": A}),
          ("PartitionRecord", {"partitionId": 0, "topicId": A, "replicas": [1, 2, 3],
                               "isr": [1, 2, 3], "leader": 1, "leaderEpoch": 0,
                               "partitionEpoch": 0, "directories": [D1, D2, D3]}),
          ("PartitionRecord", {"partitionId": 1, "topicId": A, "replicas": [2, 3, 1],
                               "isr": [2, 3, 1], "leader": 2, "leaderEpoch": 0,
                               "partitionEpoch": 0, "directories": [D2, D3, D1]}),
          ("ConfigRecord", {"resourceType": 2, "resourceName": "orders",
                            "name": "cleanup.policy", "value": "compact"}),
          ("ConfigRecord", {"resourceType": 4, "resourceName": "1",
                            "name": "ssl.keystore.password", "value": "hunter2"}),
          ("ConfigRecord", {"resourceType": 4, "resourceName": "",
                            "name": "log.retention.ms", "value": "1000"}))
    batch(("ClientQuotaRecord", {"entity": [{"entityType": "user", "entityName": "alice"}],
                                 "key": "producer_byte_rate", "value": 1024.0}),
          ("ClientQuotaRecord", {"entity": [{"entityType": "client-id", "entityName": None}],
                                 "key": "request_percentage", "value": 50.0}),
          ("AccessControlEntryRecord", {"id": ACL1, "resourceType": 2, "resourceName": "orders",
                                        "patternType": 3, "principal": "User:alice",
                                        "host": "*", "operation": 3, "permissionType": 3}),
          ("AccessControlEntryRecord", {"id": ACL2, "resourceType": 3, "resourceName": "g",
                                        "patternType": 4, "principal": "User:bob",
                                        "host": "*", "operation": 2, "permissionType": 2}),
          ("ProducerIdsRecord", {"brokerId": 1, "brokerEpoch": 10, "nextProducerId": 1000}),
          ("UserScramCredentialRecord", {"name": "alice", "mechanism": 1, "salt": b"SALT",
                                         "storedKey": b"STORED", "serverKey": b"SERVER",
                                         "iterations": 4096}),
          ("DelegationTokenRecord", {"owner": "User:alice", "requester": "User:alice",
                                     "renewers": ["User:bob"], "issueTimestamp": 1,
                                     "maxTimestamp": 3, "expirationTimestamp": 2,
                                     "tokenId": "tok1"}),
          ("ZkMigrationStateRecord", {"zkMigrationState": 0}),
          ("NoOpRecord", {}))
    # ISR shrink (leader unchanged), then a leader change
    batch(("PartitionChangeRecord", {"partitionId": 0, "topicId": A, "isr": [1, 3]}),
          ("PartitionChangeRecord", {"partitionId": 0, "topicId": A, "leader": 3}))
    # fencing and controlled shutdown
    batch(("BrokerRegistrationChangeRecord", {"brokerId": 2, "brokerEpoch": 20, "fenced": 1}),
          ("BrokerRegistrationChangeRecord", {"brokerId": 3, "brokerEpoch": 30,
                                              "inControlledShutdown": 1}),
          ("FenceBrokerRecord", {"id": 4, "epoch": 40}))
    # a committed transaction
    batch(("BeginTransactionRecord", {"name": "create payments"}),
          ("TopicRecord", {"name": "payments", "topicId": PAY}),
          ("PartitionRecord", {"partitionId": 0, "topicId": PAY, "replicas": [1, 3],
                               "isr": [1, 3], "leader": 1, "leaderEpoch": 0,
                               "partitionEpoch": 0}))
    batch(("EndTransactionRecord", {}))
    # an aborted one
    batch(("BeginTransactionRecord", {}),
          ("TopicRecord", {"name": "ghost", "topicId": GHOST}),
          ("PartitionRecord", {"partitionId": 0, "topicId": GHOST, "replicas": [1],
                               "isr": [1], "leader": 1, "leaderEpoch": 0, "partitionEpoch": 0}),
          ("AbortTransactionRecord", {"reason": "test"}))
    # reassignment of orders-1 onto broker 4: adding, then done
    batch(("PartitionChangeRecord", {"partitionId": 1, "topicId": A, "replicas": [2, 3, 1, 4],
                                     "addingReplicas": [4], "removingReplicas": [2]}),
          ("PartitionChangeRecord", {"partitionId": 1, "topicId": A, "replicas": [3, 1, 4],
                                     "isr": [3, 1, 4], "leader": 3, "addingReplicas": [],
                                     "removingReplicas": []}))
    # ELR, no leader, unclean recovery
    batch(("PartitionChangeRecord", {"partitionId": 0, "topicId": PAY, "isr": [],
                                     "leader": -1, "eligibleLeaderReplicas": [3],
                                     "lastKnownElr": [1]}),
          ("PartitionChangeRecord", {"partitionId": 0, "topicId": PAY, "isr": [3], "leader": 3,
                                     "leaderRecoveryState": 1, "eligibleLeaderReplicas": [],
                                     "lastKnownElr": []}),
          ("PartitionChangeRecord", {"partitionId": 0, "topicId": PAY, "leaderRecoveryState": 0,
                                     "directories": [D4, D3]}))
    # delete orders (its configs go with it) and create it again under a new id
    batch(("RemoveTopicRecord", {"topicId": A}))
    batch(("TopicRecord", {"name": "orders", "topicId": B}),
          ("PartitionRecord", {"partitionId": 0, "topicId": B, "replicas": [4, 1],
                               "isr": [4, 1], "leader": 4, "leaderEpoch": 0,
                               "partitionEpoch": 0, "directories": [D4, D1]}),
          ("ConfigRecord", {"resourceType": 2, "resourceName": "orders",
                            "name": "retention.ms", "value": "60000"}))
    # removals of every kind
    batch(("ConfigRecord", {"resourceType": 4, "resourceName": "", "name": "log.retention.ms",
                            "value": None}),
          ("ClientQuotaRecord", {"entity": [{"entityType": "client-id", "entityName": None}],
                                 "key": "request_percentage", "remove": True}),
          ("RemoveAccessControlEntryRecord", {"id": ACL2}),
          ("RemoveUserScramCredentialRecord", {"name": "alice", "mechanism": 1}),
          ("UserScramCredentialRecord", {"name": "bob", "mechanism": 2, "salt": b"S",
                                         "storedKey": b"K", "serverKey": b"V",
                                         "iterations": 8192}),
          ("RemoveDelegationTokenRecord", {"tokenId": "tok1"}),
          ("UnregisterBrokerRecord", {"brokerId": 4, "brokerEpoch": 40}),
          ("FeatureLevelRecord", {"name": "kraft.version", "featureLevel": 0}),
          ("ProducerIdsRecord", {"brokerId": 2, "brokerEpoch": 20, "nextProducerId": 2000}))
    # a broker comes back: new registration, unfenced; directories change
    batch(("RegisterBrokerRecord", {"brokerId": 2, "incarnationId": w.uuid_of(52),
                                    "brokerEpoch": 25, "endPoints": ep(9092), "rack": "r2",
                                    "fenced": True, "logDirs": [w.uuid_of(42)]}),
          ("BrokerRegistrationChangeRecord", {"brokerId": 2, "brokerEpoch": 25, "fenced": -1,
                                              "logDirs": [w.uuid_of(43), w.uuid_of(42)]}))
    return b


# ============================================================================ independent replay


SEC = {0: "PLAINTEXT"}


class Model:
    """The image, the obvious way: straight from the values written, record by record."""

    def __init__(self) -> None:
        self.features: dict[str, int] = {}
        self.brokers: dict[int, dict[str, Any]] = {}
        self.controllers: dict[int, dict[str, Any]] = {}
        self.topics: dict[str, str] = {}  # id -> name
        self.parts: dict[tuple[str, int], dict[str, Any]] = {}
        self.configs: dict[tuple[int, str, str], str] = {}
        self.quotas: dict[tuple[Any, str], float] = {}
        self.acls: dict[str, dict[str, Any]] = {}
        self.pids: dict[str, Any] | None = None
        self.scram: dict[tuple[str, int], int] = {}
        self.scram_versions: dict[tuple[str, int], int] = {}
        self.tokens: dict[str, dict[str, Any]] = {}
        self.secret_versions: dict[tuple[int, str, str], int] = {}

    def apply(self, n: str, v: dict[str, Any]) -> None:
        if n == "FeatureLevelRecord":
            if v["featureLevel"] == 0 and v["name"] != "metadata.version":
                self.features.pop(v["name"], None)
            else:
                self.features[v["name"]] = v["featureLevel"]
        elif n == "RegisterControllerRecord":
            self.controllers[v["controllerId"]] = v
        elif n == "RegisterBrokerRecord":
            self.brokers[v["brokerId"]] = {**v, "inControlledShutdown": False}
        elif n == "UnregisterBrokerRecord":
            del self.brokers[v["brokerId"]]
        elif n == "UnfenceBrokerRecord":
            self.brokers[v["id"]]["fenced"] = False
        elif n == "FenceBrokerRecord":
            self.brokers[v["id"]]["fenced"] = True
        elif n == "BrokerRegistrationChangeRecord":
            br = self.brokers[v["brokerId"]]
            if v.get("fenced") == 1:
                br["fenced"] = True
            if v.get("fenced") == -1:
                br["fenced"] = False
            if v.get("inControlledShutdown") == 1:
                br["inControlledShutdown"] = True
            if v.get("logDirs"):
                br["logDirs"] = v["logDirs"]
        elif n == "TopicRecord":
            self.topics[v["topicId"]] = v["name"]
        elif n == "PartitionRecord":
            self.parts[(v["topicId"], v["partitionId"])] = {
                "replicas": v["replicas"], "isr": v["isr"], "leader": v["leader"],
                "leader_epoch": v["leaderEpoch"], "partition_epoch": v["partitionEpoch"],
                "elr": [], "last_known_elr": [], "lrs": 0, "adding": [], "removing": [],
                "dirs": v.get("directories") or [MIGRATING] * len(v["replicas"])}
        elif n == "PartitionChangeRecord":
            p = self.parts[(v["topicId"], v["partitionId"])]
            if "replicas" in v and "directories" not in v:
                old = dict(zip(p["replicas"], p["dirs"], strict=True))
                p["dirs"] = [old.get(r, UNASSIGNED) for r in v["replicas"]]
            for src, dst in (("replicas", "replicas"), ("isr", "isr"),
                             ("addingReplicas", "adding"), ("removingReplicas", "removing"),
                             ("eligibleLeaderReplicas", "elr"),
                             ("lastKnownElr", "last_known_elr"), ("directories", "dirs"),
                             ("leaderRecoveryState", "lrs")):
                if src in v:
                    p[dst] = v[src]
            if "leader" in v:
                p["leader"] = v["leader"]
                p["leader_epoch"] += 1
            p["partition_epoch"] += 1
        elif n == "RemoveTopicRecord":
            name = self.topics.pop(v["topicId"])
            for k in [k for k in self.parts if k[0] == v["topicId"]]:
                del self.parts[k]
            for k in [k for k in self.configs if k[0] == 2 and k[1] == name]:
                del self.configs[k]
        elif n == "ConfigRecord":
            k = (v["resourceType"], v["resourceName"], v["name"])
            if v["value"] is None:
                self.configs.pop(k, None)
            else:
                self.configs[k] = v["value"]
                self.secret_versions[k] = self.secret_versions.get(k, 0) + 1
        elif n == "ClientQuotaRecord":
            ent = tuple(sorted((e["entityType"], e["entityName"]) for e in v["entity"]))
            if v.get("remove"):
                self.quotas.pop((ent, v["key"]), None)
            else:
                self.quotas[(ent, v["key"])] = v["value"]
        elif n == "AccessControlEntryRecord":
            self.acls[v["id"]] = v
        elif n == "RemoveAccessControlEntryRecord":
            del self.acls[v["id"]]
        elif n == "ProducerIdsRecord":
            self.pids = v
        elif n == "UserScramCredentialRecord":
            k = (v["name"], v["mechanism"])
            self.scram[k] = v["iterations"]
            self.scram_versions[k] = self.scram_versions.get(k, 0) + 1
        elif n == "RemoveUserScramCredentialRecord":
            self.scram.pop((v["name"], v["mechanism"]), None)
            self.scram_versions.pop((v["name"], v["mechanism"]), None)
        elif n == "DelegationTokenRecord":
            self.tokens[v["tokenId"]] = v
        elif n == "RemoveDelegationTokenRecord":
            self.tokens.pop(v["tokenId"], None)

    # what kdump should print, built from the model
    def objects(self) -> dict[tuple[str, str], dict[str, Any]]:
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for name, lvl in self.features.items():
            out[("feature", name)] = {"name": name, "level": lvl}
        for i, br in self.brokers.items():
            out[("broker", str(i))] = {
                "id": i, "epoch": br["brokerEpoch"], "fenced": br["fenced"],
                "in_controlled_shutdown": br["inControlledShutdown"], "rack": br["rack"],
                "incarnation_id": br["incarnationId"], "log_dirs": sorted(br["logDirs"]),
                "endpoints": [{"name": e["name"], "host": e["host"], "port": e["port"],
                               "security_protocol": SEC[e["securityProtocol"]]}
                              for e in br["endPoints"]]}
        for tid, name in self.topics.items():
            n = sum(1 for k in self.parts if k[0] == tid)
            out[("topic", tid)] = {"name": name, "topic_id": tid, "partitions": n}
        for (tid, pid), p in self.parts.items():
            out[("partition", f"{tid}/{pid}")] = {
                "topic": self.topics[tid], "topic_id": tid, "partition": pid,
                "leader": p["leader"], "leader_epoch": p["leader_epoch"],
                "partition_epoch": p["partition_epoch"], "replicas": p["replicas"],
                "isr": p["isr"], "elr": p["elr"], "last_known_elr": p["last_known_elr"],
                "leader_recovery_state": ["RECOVERED", "RECOVERING"][p["lrs"]],
                "adding_replicas": p["adding"], "removing_replicas": p["removing"],
                "directories": p["dirs"]}
        for (rt, rn, cn), val in self.configs.items():
            secret = "password" in cn
            out[("config", f"{rt}/{rn}/{cn}")] = {
                "resource_type": {2: "TOPIC", 4: "BROKER"}[rt], "resource_name": rn,
                "name": cn, "value": None if secret else val}
        for (ent, key), val in self.quotas.items():
            out[("quota", f"{ent}/{key}")] = {"entity": dict(ent), "key": key, "value": val}
        for i, a in self.acls.items():
            out[("acl", i)] = {"id": i, "principal": a["principal"],
                               "resource_name": a["resourceName"]}
        if self.pids is not None:
            out[("producer_ids", "")] = {"next_producer_id": self.pids["nextProducerId"],
                                         "broker_id": self.pids["brokerId"]}
        for (name, mech), it in self.scram.items():
            out[("scram_user", f"{name}/{mech}")] = {
                "name": name, "mechanism": {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}[mech],
                "iterations": it, "credentials": "redacted"}
        for tid, tok in self.tokens.items():
            out[("delegation_token", tid)] = {"token_id": tid, "owner": tok["owner"],
                                              "renewers": tok["renewers"], "hmac": "redacted"}
        return out


def model_at(batches: list[tuple[int, list[tuple[str, dict[str, Any]]]]],
             upto: int | None = None) -> Model:
    """Replay the scenario up to (and including) offset ``upto``; offsets start at 0
    (each record one offset)."""
    m = Model()
    off = 0
    txn: list[tuple[str, dict[str, Any]]] | None = None
    for _ts, recs in batches:
        for n, v in recs:
            if upto is not None and off > upto:
                return m
            off += 1
            if n == "BeginTransactionRecord":
                txn = []
            elif n == "EndTransactionRecord":
                assert txn is not None
                for x in txn:
                    m.apply(*x)
                txn = None
            elif n == "AbortTransactionRecord":
                txn = None
            elif txn is not None:
                txn.append((n, v))
            else:
                m.apply(n, v)
    return m


def kdump_keyed(objs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for o in objs:
        t = o["type"]
        if t == "feature":
            k = o["name"]
        elif t == "broker":
            k = str(o["id"])
        elif t == "topic":
            k = o["topic_id"]
        elif t == "partition":
            k = f"{o['topic_id']}/{o['partition']}"
        elif t == "config":
            code = {"TOPIC": 2, "BROKER": 4}[o["resource_type"]]
            k = f"{code}/{o['resource_name']}/{o['name']}"
        elif t == "quota":
            k = f"{tuple(sorted(o['entity'].items(), key=lambda kv: kv[0]))}/{o['key']}"
        elif t == "acl":
            k = o["id"]
        elif t == "producer_ids":
            k = ""
        elif t == "scram_user":
            k = f"{o['name']}/{ {'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2}[o['mechanism']]}"
        elif t == "delegation_token":
            k = o["token_id"]
        else:
            continue
        out[(t, k)] = o
    return out


def assert_same(objs: list[dict[str, Any]], model: Model) -> None:
    want = model.objects()
    got = kdump_keyed(objs)
    assert sorted(got) == sorted(want)
    for k, fields in want.items():
        for f, v in fields.items():
            assert got[k][f] == v, (k, f, got[k][f], v)


# ============================================================================ fixtures


def write_log(d: Path, batches: list[tuple[int, list[tuple[str, dict[str, Any]]]]], *,
              roll_every: int = 5) -> list[int]:
    """The scenario as a __cluster_metadata-0 log; returns each batch's base offset."""
    lw = w.MetadataLogWriter(d)
    bases = []
    for i, (ts, recs) in enumerate(batches):
        if i and i % roll_every == 0:
            lw.roll()
        bases.append(lw.append([w.metadata_record(n, v) for n, v in recs], timestamp=ts))
    lw.close()
    return bases


def snapshot_records(m: Model) -> list[bytes]:
    """The model's image as the records a snapshot holds (written from the model)."""
    r: list[bytes] = []
    for name, lvl in m.features.items():
        r.append(w.metadata_record("FeatureLevelRecord", {"name": name, "featureLevel": lvl}))
    for br in m.brokers.values():
        r.append(w.metadata_record("RegisterBrokerRecord", br))
    for c in m.controllers.values():
        r.append(w.metadata_record("RegisterControllerRecord", c))
    for tid, name in m.topics.items():
        r.append(w.metadata_record("TopicRecord", {"name": name, "topicId": tid}))
        for (t2, pid), p in m.parts.items():
            if t2 == tid:
                r.append(w.metadata_record("PartitionRecord", {
                    "partitionId": pid, "topicId": tid, "replicas": p["replicas"],
                    "isr": p["isr"], "removingReplicas": p["removing"],
                    "addingReplicas": p["adding"], "leader": p["leader"],
                    "leaderRecoveryState": p["lrs"], "leaderEpoch": p["leader_epoch"],
                    "partitionEpoch": p["partition_epoch"], "directories": p["dirs"],
                    "eligibleLeaderReplicas": p["elr"] or None,
                    "lastKnownElr": p["last_known_elr"] or None}))
    for (rt, rn, cn), val in m.configs.items():
        r.append(w.metadata_record("ConfigRecord", {"resourceType": rt, "resourceName": rn,
                                                    "name": cn, "value": val}))
    for (ent, key), val in m.quotas.items():
        r.append(w.metadata_record("ClientQuotaRecord", {
            "entity": [{"entityType": t, "entityName": n} for t, n in ent], "key": key,
            "value": val}))
    for a in m.acls.values():
        r.append(w.metadata_record("AccessControlEntryRecord", a))
    if m.pids is not None:
        r.append(w.metadata_record("ProducerIdsRecord", m.pids))
    for (name, mech), it in m.scram.items():
        r.append(w.metadata_record("UserScramCredentialRecord", {
            "name": name, "mechanism": mech, "salt": b"s", "storedKey": b"k",
            "serverKey": b"v", "iterations": it}))
    for tok in m.tokens.values():
        r.append(w.metadata_record("DelegationTokenRecord", tok))
    return r


def offsets_of(batches: list[tuple[int, list[Any]]]) -> list[int]:
    out, off = [], 0
    for _ts, recs in batches:
        out.append(off)
        off += len(recs)
    return out


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    write_log(tmp_path / "__cluster_metadata-0", scenario())
    return tmp_path


def replay(path: Path, target: Target | None = None, **kw: Any) -> Replay:
    return Replay(find_sources(str(path)), target or Target(), **kw).run()


# ============================================================================ images


def test_every_offset_matches_the_independent_replay(logdir: Path) -> None:
    batches = scenario()
    total = sum(len(r) for _, r in batches)
    for upto in range(total):
        r = replay(logdir, Target(offset=upto))
        assert not [p for p in r.problems if p.is_failure], (upto, r.problems)
        assert_same(image_objects(r.image), model_at(batches, upto))


def test_latest_image_exact_values(logdir: Path) -> None:
    r = replay(logdir)
    objs = {(o["type"], o.get("name") or o.get("id") or o.get("topic")): o
            for o in image_objects(r.image) if o["type"] not in ("partition", "config")}
    parts = {(o["topic"], o["topic_id"], o["partition"]): o
             for o in image_objects(r.image) if o["type"] == "partition"}
    assert set(parts) == {("orders", B, 0), ("payments", PAY, 0)}
    pay = parts[("payments", PAY, 0)]
    # leader -1 then 3: two leader changes -> epoch 2; three changes -> partition epoch 3
    assert (pay["leader"], pay["leader_epoch"], pay["partition_epoch"]) == (3, 2, 3)
    assert pay["isr"] == [3] and pay["elr"] == [] and pay["last_known_elr"] == []
    assert pay["leader_recovery_state"] == "RECOVERED"
    assert pay["directories"] == [D4, D3]
    assert ("topic", "ghost") not in objs  # aborted
    b2 = objs[("broker", 2)]
    assert b2["epoch"] == 25 and b2["fenced"] is False
    assert b2["log_dirs"] == sorted([w.uuid_of(43), w.uuid_of(42)])
    assert objs[("broker", 3)]["in_controlled_shutdown"] is True
    assert ("broker", 4) not in objs
    assert objs[("producer_ids", None)]["next_producer_id"] == 2000
    summary_types = {o["type"] for o in image_objects(r.image)}
    assert summary_types == {"feature", "broker", "controller", "topic", "partition", "config",
                             "quota", "acl", "producer_ids", "scram_user"}
    assert r.transactions_committed == 1 and r.transactions_aborted == 1
    assert r.records_aborted == 2
    assert r.no_effect == {"NO_OP_RECORD": 1}


def test_reassignment_keeps_directories_and_unassigns_new_replicas(logdir: Path) -> None:
    batches = scenario()
    reassign = offsets_of(batches)[10]
    r = replay(logdir, Target(offset=reassign))
    p = next(o for o in image_objects(r.image) if o["type"] == "partition"
             and o["topic_id"] == A and o["partition"] == 1)
    assert p["replicas"] == [2, 3, 1, 4] and p["adding_replicas"] == [4]
    assert p["removing_replicas"] == [2]
    assert p["directories"] == [D2, D3, D1, UNASSIGNED]
    assert (p["leader"], p["leader_epoch"], p["partition_epoch"]) == (2, 0, 1)


def test_secrets_never_printed(logdir: Path) -> None:
    r = replay(logdir, Target(offset=offsets_of(scenario())[5]))
    text = json.dumps(image_objects(r.image))
    for secret in ("hunter2", "SALT", "STORED", "SERVER", "U0FMVA"):
        assert secret not in text
    cfg = next(o for o in image_objects(r.image) if o["type"] == "config"
               and o["name"] == "ssl.keystore.password")
    assert cfg["value"] is None and cfg["redacted"] is True


# ============================================================================ snapshots


def test_snapshot_then_log_matches_the_full_replay(tmp_path: Path) -> None:
    batches = scenario()
    offs = offsets_of(batches)
    d = tmp_path / "__cluster_metadata-0"
    write_log(d, batches, roll_every=4)
    cut = offs[9]  # after the committed transaction: a batch boundary
    w.metadata_snapshot(d / f"{cut:020d}-{1:010d}.checkpoint",
                        snapshot_records(model_at(batches, cut - 1)),
                        timestamp=batches[8][0])
    # the log's first segment is gone, as after Kafka's log cleaning
    (d / f"{0:020d}.log").unlink()
    r = replay(tmp_path)
    assert not [p for p in r.problems if p.is_failure], r.problems
    assert r.snapshot is not None and r.snapshot.end_offset == cut
    assert r.overlap == (offs[4], cut - 1)
    assert_same(image_objects(r.image), model_at(batches))
    # a target before the snapshot cannot use it, and the log before it is gone
    early = replay(tmp_path, Target(offset=offs[1]))
    assert early.snapshot is None
    assert [p.kind for p in early.problems if p.is_failure] == ["metadata-gap"]
    assert early.gaps == [(0, offs[4] - 1)]


def test_snapshot_file_alone(tmp_path: Path) -> None:
    batches = scenario()
    snap = tmp_path / f"{50:020d}-{3:010d}.checkpoint"
    w.metadata_snapshot(snap, snapshot_records(model_at(batches)), per_batch=7)
    r = replay(snap)
    assert not r.problems
    assert r.offset == 49 and r.snapshot is not None
    assert_same(image_objects(r.image), model_at(batches))


def test_gap_between_segments_is_a_finding(tmp_path: Path) -> None:
    d = tmp_path / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(d)
    lw.append([w.metadata_record("TopicRecord", {"name": "a", "topicId": A})])
    lw.skip(3)
    lw.roll()
    lw.append([w.metadata_record("TopicRecord", {"name": "b", "topicId": B})])
    lw.close()
    r = replay(tmp_path)
    assert r.gaps == [(1, 3)]
    assert [(p.kind, p.base_offset) for p in r.problems] == [("metadata-gap", 4)]


def test_apply_errors_are_findings(tmp_path: Path) -> None:
    d = tmp_path / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(d)
    lw.append([w.metadata_record("PartitionChangeRecord", {"partitionId": 0, "topicId": A,
                                                           "leader": 1}),
               w.metadata_record("FenceBrokerRecord", {"id": 9, "epoch": 1}),
               w.metadata_record("EndTransactionRecord", {}),
               w.metadata_record("TopicRecord", {"name": "a", "topicId": A}, api_key=99),
               w.metadata_record("TopicRecord", {"name": "a", "topicId": A})])
    lw.close()
    r = replay(tmp_path)
    assert [p.detail for p in r.problems] == [
        f"PARTITION_CHANGE_RECORD at offset 0 cannot be applied: Unable to find partition {A}:0",
        "FENCE_BROKER_RECORD at offset 1 cannot be applied: Tried to fence broker 9, but that "
        "broker was not registered.",
        "EndTransactionRecord at offset 2 without a BeginTransactionRecord",
        "record at offset 3 not applied: unknown metadata record type (api key) 99, version 0",
    ]
    assert r.records_failed == 3
    assert [o["name"] for o in image_objects(r.image) if o["type"] == "topic"] == ["a"]


def test_open_transaction_at_the_target_is_pending(logdir: Path) -> None:
    offs = offsets_of(scenario())
    r = replay(logdir, Target(offset=offs[7] + 1))  # inside BEGIN .. END
    assert r.pending_transaction == {"begin_offset": offs[7], "name": "create payments",
                                     "records": 1}
    assert "payments" not in {o.get("name") for o in image_objects(r.image)}


def test_at_time(logdir: Path) -> None:
    batches = scenario()
    offs = offsets_of(batches)
    r = replay(logdir, Target(time=batches[5][0] + 999))
    assert r.offset == offs[6] - 1 and r.timestamp == batches[5][0]
    assert_same(image_objects(r.image), model_at(batches, offs[6] - 1))


# ============================================================================ history, diff


def test_history_of_a_partition(logdir: Path) -> None:
    events: list[dict[str, Any]] = []
    sel = Selector.parse("orders/0")
    replay(logdir, earliest=True, on_event=lambda ev: events.extend(sel.entries(ev)))
    offs = offsets_of(scenario())
    assert [(e["offset"], e["record"], e["action"], e["text"]) for e in events] == [
        (offs[3] + 1, "PARTITION_RECORD", "created", "created"),
        (offs[5], "PARTITION_CHANGE_RECORD", "changed",
         "partition_epoch 0 -> 1, isr [1,2,3] -> [1,3]"),
        (offs[5] + 1, "PARTITION_CHANGE_RECORD", "changed",
         "leader 1 -> 3, leader_epoch 0 -> 1, partition_epoch 1 -> 2"),
        (offs[12], "REMOVE_TOPIC_RECORD", "removed", "removed"),
        (offs[13] + 1, "PARTITION_RECORD", "created", "created"),
    ]
    assert events[2]["changes"][0] == {"field": "leader", "from": 1, "to": 3}


def test_history_of_a_broker_says_fenced(logdir: Path) -> None:
    events: list[dict[str, Any]] = []
    sel = Selector.parse("broker:2")
    replay(logdir, earliest=True, on_event=lambda ev: events.extend(sel.entries(ev)))
    assert [(e["record"], e["text"]) for e in events] == [
        ("REGISTER_BROKER_RECORD", "created"),
        ("UNFENCE_BROKER_RECORD", "unfenced"),
        ("BROKER_REGISTRATION_CHANGE_RECORD", "fenced"),
        ("REGISTER_BROKER_RECORD",
         f"epoch 20 -> 25, incarnation_id {w.uuid_of(32)} -> {w.uuid_of(52)}"),
        ("BROKER_REGISTRATION_CHANGE_RECORD",
         f"unfenced, log_dirs [{w.uuid_of(42)}] -> {sorted([w.uuid_of(42), w.uuid_of(43)])}"
         .replace("'", "")),
    ]


def test_on_changes_sees_each_events_fields(logdir: Path) -> None:
    """``on_changes`` (kdump timeline's C callback) is given what ``on_event`` is given,
    as the Event's fields in its order, and no Event is made for it."""
    from kdump.metadata.replay import Event

    events: list[Event] = []
    fields: list[tuple[Any, ...]] = []
    replay(logdir, earliest=True, on_event=events.append)
    replay(logdir, earliest=True, on_event=lambda ev: pytest.fail("on_changes given"),
           on_changes=lambda *f: fields.append(f))
    assert len(events) > 10
    assert [(e.offset, e.timestamp, e.record_type, e.changes, e.committed_at, e.path,
             e.position) for e in events] == fields


def test_diff_between_offsets(logdir: Path) -> None:
    offs = offsets_of(scenario())
    a = replay(logdir, Target(offset=offs[5] - 1))
    b = replay(logdir, Target(offset=offs[6] - 1))
    d = diff_objects(a.image, b.image)
    assert [(x["label"], x["text"]) for x in d] == [
        ("orders/0", "leader 1 -> 3, leader_epoch 0 -> 1, partition_epoch 0 -> 2, "
                     "isr [1,2,3] -> [1,3]"),
    ]


def test_real_corpus(kdump: KdumpRunner) -> None:
    """The project's corpus is a ZooKeeper-mode Kafka 2.x log dir: no metadata log, said
    so (exit 2); any KRaft log dir added to it must replay without a failure."""
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus"
    if not corpus.exists():
        pytest.skip("no ../shared/corpus on this machine")
    zk = corpus / "kafka2-logdir"
    if zk.exists():
        r = kdump("metadata", str(zk))
        assert r.rc == 2
        assert "holds no __cluster_metadata snapshot or log segment" in r.err
    for d in sorted(corpus.glob("**/__cluster_metadata-0")):
        rep = replay(d.parent)
        assert rep.offset is not None
        assert not [p for p in rep.problems if p.is_failure], rep.problems


def test_inputs_are_not_modified(logdir: Path) -> None:
    files = sorted((logdir / "__cluster_metadata-0").iterdir())
    before = [(p.stat().st_mtime_ns, p.stat().st_atime_ns, p.read_bytes()) for p in files]
    replay(logdir)
    replay(logdir, earliest=True)
    after = [(p.stat().st_mtime_ns, p.stat().st_atime_ns, p.read_bytes()) for p in files]
    assert [x[0] for x in before] == [x[0] for x in after]
    assert [x[2] for x in before] == [x[2] for x in after]


# ============================================================================ CLI

from kdump.model import METADATA_SCHEMA  # noqa: E402
from tests.conftest import KdumpRunner  # noqa: E402


def test_cli_json_objects_use_documented_fields(kdump: KdumpRunner, logdir: Path) -> None:
    for args in ([], ["--history"], ["--history", "orders"], ["--diff", "5", "40"]):
        r = kdump("metadata", ".", "--format", "json", *args, cwd=logdir)
        assert r.rc == 0, r.err
        lines = [json.loads(x) for x in r.out.splitlines()]
        assert lines
        for obj in lines:
            kind = obj["type"]
            fields = METADATA_SCHEMA[kind][1]
            documented = {n.rstrip("?") for n, _ in fields} | {"type"}
            required = {n for n, _ in fields if not n.endswith("?")}
            assert required <= set(obj) <= documented, (kind, set(obj) ^ documented)


def test_cli_text_paths(kdump: KdumpRunner, logdir: Path) -> None:
    offs = offsets_of(scenario())
    r = kdump("metadata", "__cluster_metadata-0", "--format", "text", "--at-offset",
              str(offs[7] - 1), cwd=logdir)
    assert r.rc == 0 and r.err == ""
    lines = r.out.splitlines()
    for want in ("/topics/orders/0/leader 3", "/topics/orders/0/isr [1,3]",
                 "/topics/orders/0/leader_epoch 1", "/brokers/2/fenced true",
                 "/brokers/3/in_controlled_shutdown true",
                 "/configs/TOPIC/orders/cleanup.policy/value compact",
                 "/configs/BROKER/1/ssl.keystore.password/value null",
                 "/configs/BROKER/1/ssl.keystore.password/redacted true",
                 "/configs/BROKER//log.retention.ms/value 1000",
                 "/scram/SCRAM-SHA-256/alice/credentials redacted",
                 f"/image/offset {offs[7] - 1}", "/image/complete true"):
        assert want in lines, want
    assert "hunter2" not in r.out


def test_cli_text_escapes_names_from_the_data(kdump: KdumpRunner, tmp_path: Path) -> None:
    d = tmp_path / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(d)
    lw.append([w.metadata_record("ConfigRecord", {
        "resourceType": 2, "resourceName": "a/b c\x1b[2J", "name": "x\ny",
        "value": "v w\r\x07%"})])
    lw.close()
    r = kdump("metadata", str(tmp_path), "--format", "text")
    assert r.rc == 0
    assert r.out.splitlines()[0] == "/configs/TOPIC/a%2Fb%20c%1B[2J/x%0Ay/value v w%0D%07%25"
    t = kdump("metadata", str(tmp_path), "--format", "table")
    assert "\x1b" not in t.out and "\x07" not in t.out
    lw = w.MetadataLogWriter(tmp_path / "m2" / "__cluster_metadata-0")
    lw.append([w.metadata_record("ConfigRecord", {
        "resourceType": 2, "resourceName": "t", "name": "n", "value": "[bold]x[/bold]"})])
    lw.close()
    t = kdump("metadata", str(tmp_path / "m2"), "--format", "table")
    assert "[bold]x[/bold]" in t.out  # rich markup in the data is shown, not obeyed


def test_cli_exit_codes(kdump: KdumpRunner, tmp_path: Path) -> None:
    d = tmp_path / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(d)
    lw.append([w.metadata_record("TopicRecord", {"name": "a", "topicId": A})])
    lw.append([w.metadata_record("RemoveTopicRecord", {"topicId": B})])
    lw.close()
    r = kdump("metadata", str(tmp_path), "--format", "text")
    assert r.rc == 1
    assert r.err.splitlines() == [
        f"{d / '00000000000000000000.log'}: position 90: metadata-apply: REMOVE_TOPIC_RECORD at "
        f"offset 1 cannot be applied: Unable to delete topic: no topic with id {B} "
        "(base offset 1)"]
    assert kdump("metadata", str(tmp_path / "nope")).rc == 2
    assert kdump("metadata", str(tmp_path), "--at-offset", "1", "--at-time", "5").rc == 2
    assert kdump("metadata", str(tmp_path), "--diff", "1").rc == 2
    assert kdump("metadata", str(tmp_path), "--history", "broker:x").rc == 2
    (tmp_path / "empty").mkdir()
    assert kdump("metadata", str(tmp_path / "empty")).rc == 2


def test_cli_table_sections(kdump: KdumpRunner, logdir: Path) -> None:
    r = kdump("metadata", ".", "--format", "table", cwd=logdir)
    assert r.rc == 0
    titles = [ln.split(" (")[0].rstrip() for ln in r.out.splitlines() if ln and ln[0].isalpha()]
    assert titles == ["features", "brokers", "controllers", "topics", "partitions", "configs",
                      "client quotas", "ACLs", "producer ids",
                      "SCRAM users", "image"]


def test_fast_partition_change_reader_is_the_generic_one() -> None:
    import random

    from kdump.metadata.records import decode_generic, decode_record
    from tests.support import message_writer as sw
    schema = w.metadata_schemas()["PartitionChangeRecord"]
    for seed in range(300):
        rng = random.Random(seed)
        version = seed % 3
        values = sw.sample(schema, rng, version)
        body = sw.encode(schema, values, version,
                         unknown_tags=[(90, b"\x01")] if seed % 5 == 0 else None)
        value = bytes([1, 5, version]) + body
        fast, slow = decode_record(value), decode_generic(value)
        assert (fast.name, fast.version, fast.message) == (slow.name, slow.version, slow.message)
        assert decode_record(value).message == slow.message  # the topic id's text kept
    noop = w.metadata_record("NoOpRecord", {})
    assert decode_record(noop) == decode_generic(noop)


def test_every_record_type_has_an_effect_or_is_named_as_having_none() -> None:
    from kdump.metadata.image import APPLIED_TYPES, NO_EFFECT, TRANSACTION_TYPES
    from kdump.protocol.frame import METADATA_SCHEMAS, record_type_name

    names = {record_type_name(s.name) for s in METADATA_SCHEMAS.values()}
    assert len(names) == 27  # to UnregisterControllerRecord (Kafka 4.4, type 29)
    assert names - {"ZK_MIGRATION_STATE_RECORD"} == \
        (APPLIED_TYPES | NO_EFFECT | TRANSACTION_TYPES) - {"ZK_MIGRATION_STATE_RECORD"}
    assert "ZK_MIGRATION_STATE_RECORD" in APPLIED_TYPES  # kept in the image object
    assert "CLEAR_ELR_RECORD" in APPLIED_TYPES  # Kafka 4.0+: tests/metadata/test_elr_and_cordoned.py


def test_quorum_from_control_records_and_quorum_state(kdump: KdumpRunner, tmp_path: Path) -> None:
    d = tmp_path / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(d, leader_epoch=7)
    lw.control([(w.CONTROL_LEADER_CHANGE, w.leader_change_value(2, [1, 2, 3], [2, 3]))])
    lw.control([(w.CONTROL_KRAFT_VERSION, w.kraft_version_value(1))])
    lw.append([w.metadata_record("RegisterControllerRecord", {
        "controllerId": 2, "incarnationId": C, "zkMigrationReady": False,
        "endPoints": [{"name": "CONTROLLER", "host": "c2", "port": 9093,
                       "securityProtocol": 0}]})])
    lw.close()
    (d / "quorum-state").write_text('{"leaderId":2,"leaderEpoch":7,"votedId":-1,'
                                    '"appliedOffset":0,"currentVoters":[{"voterId":1},'
                                    '{"voterId":2},{"voterId":3}],"data_version":0}')
    r = kdump("metadata", str(tmp_path), "--format", "json")
    assert r.rc == 0, r.err
    objs = [json.loads(x) for x in r.out.splitlines()]
    ctrl = [(o["id"], o["registered"], o["voter"], o["leader"]) for o in objs
            if o["type"] == "controller"]
    assert ctrl == [(1, False, True, False), (2, True, True, True), (3, False, True, False)]
    image = objs[-1]
    assert (image["leader_id"], image["leader_epoch"], image["voters"],
            image["kraft_version"]) == (2, 7, [1, 2, 3], 1)
    assert image["quorum_state_file"]["values"]["leaderEpoch"] == 7


def test_damaged_batch_and_unknown_version(kdump: KdumpRunner, tmp_path: Path) -> None:
    d = tmp_path / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(d)
    lw.append([w.metadata_record("TopicRecord", {"name": "a", "topicId": A})])
    lw.append([w.metadata_record("TopicRecord", {"name": "b", "topicId": B})], crc=1)
    lw.append([w.metadata_record("TopicRecord", {"name": "c", "topicId": C}, version=7)])
    lw.close()
    r = kdump("metadata", str(tmp_path), "--format", "json")
    assert r.rc == 1
    objs = [json.loads(x) for x in r.out.splitlines()]
    assert [o["name"] for o in objs if o["type"] == "topic"] == ["a", "c"]
    problems = [(o["kind"], o["severity"], o["base_offset"]) for o in objs
                if o["type"] == "problem"]
    assert problems == [("crc-mismatch", "error", 1), ("metadata-record", "warning", 2)]
    image = next(o for o in objs if o["type"] == "image")
    assert image["complete"] is True and image["records_applied"] == 2


def test_at_time_iso_and_snapshot_by_time(kdump: KdumpRunner, tmp_path: Path) -> None:
    batches = scenario()
    offs = offsets_of(batches)
    d = tmp_path / "__cluster_metadata-0"
    write_log(d, batches)
    cut = offs[9]
    w.metadata_snapshot(d / f"{cut:020d}-{1:010d}.checkpoint",
                        snapshot_records(model_at(batches, cut - 1)), timestamp=batches[8][0])
    # 2023-11-14T22:13:26Z is batches[6]: before the snapshot's time -> log only
    r = kdump("metadata", str(tmp_path), "--format", "json", "--at-time", "2023-11-14T22:13:26Z")
    image = json.loads(r.out.splitlines()[-1])
    assert r.rc == 0 and image["snapshot"] is None and image["offset"] == offs[7] - 1
    late = kdump("metadata", str(tmp_path), "--format", "json", "--at-time",
                 str(batches[11][0]))
    image = json.loads(late.out.splitlines()[-1])
    assert image["snapshot"]["end_offset"] == cut and image["offset"] == offs[12] - 1
    assert image["overlap"] == {"first": 0, "last": cut - 1}


def test_damaged_snapshot_falls_back_to_an_earlier_one(tmp_path: Path) -> None:
    batches = scenario()
    offs = offsets_of(batches)
    d = tmp_path / "__cluster_metadata-0"
    write_log(d, batches)
    for cut in (offs[4], offs[9]):
        w.metadata_snapshot(d / f"{cut:020d}-{1:010d}.checkpoint",
                            snapshot_records(model_at(batches, cut - 1)))
    bad = d / f"{offs[9]:020d}-{1:010d}.checkpoint"
    data = bytearray(bad.read_bytes())
    data[200] ^= 0xFF
    bad.write_bytes(bytes(data))
    r = replay(tmp_path)
    assert r.snapshot is not None and r.snapshot.end_offset == offs[4]
    assert [p.kind for p in r.problems] == ["crc-mismatch", "metadata-snapshot"]
    assert_same(image_objects(r.image), model_at(batches))


def test_problems_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kdump.metadata.replay as rp

    monkeypatch.setattr(rp, "MAX_PROBLEMS_PER_KIND", 3)
    d = tmp_path / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(d)
    lw.append([w.metadata_record("RemoveTopicRecord", {"topicId": A})] * 10)
    lw.close()
    r = replay(tmp_path)
    assert [p.kind for p in r.problems] == ["metadata-apply"] * 4
    assert r.problems[-1].detail == "7 more metadata-apply problems, not listed one by one"
    assert r.records_failed == 10
