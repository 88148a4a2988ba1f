"""The KRaft metadata image: what the cluster looked like, and the rules that change it.

Apply rules follow Kafka's image classes (apache/kafka, metadata/src/main/java/org/
apache/kafka/image/*Delta.java and metadata/.../metadata/PartitionRegistration.java,
BrokerRegistration.java), applied one record at a time:

* TopicRecord creates a topic (by id; a name can come back with a new id after a
  RemoveTopicRecord); PartitionRecord sets a partition whole (directories default to
  MIGRATING); PartitionChangeRecord merges (``PartitionRegistration.merge``): absent
  (null) fields keep their value, leader -2 (NO_LEADER_CHANGE) keeps the leader and
  its epoch, any other leader (-1 = none) bumps the leader epoch, every change bumps
  the partition epoch, leader recovery state -1 keeps it, new replicas without
  directories keep each surviving replica's directory and give UNASSIGNED to new
  ones.  RemoveTopicRecord drops the topic and its topic configs.
* ClearElrRecord (4.0+; ``TopicsDelta.replay(ClearElrRecord)``, ``TopicDelta.
  maybeClearElr``): an empty topic name means every topic; else the topic the name
  points to now (an unknown name is an error).  Each of its partitions whose ELR or
  last-known ELR is not empty is merged with a change that empties both: as every
  merge, it bumps the partition epoch (leader and leader epoch kept).
* RegisterBrokerRecord replaces the registration; UnregisterBrokerRecord drops it;
  Fence/Unfence and BrokerRegistrationChangeRecord need the registered epoch
  (``ClusterDelta.getBrokerOrThrow``); fenced 1/0/-1 = fence/none/unfence,
  inControlledShutdown 1/0 = enter/none; logDirs replace the broker's directories.
  CordonedLogDirs (RegisterBrokerRecord v4+, BrokerRegistrationChangeRecord v3+, Kafka
  4.3; ``BrokerRegistration.cloneWith``) are kept as written, in their order: null in a
  registration means the broker has not said yet (null in the image too), null in a
  change record means no change, an empty list means none cordoned.
* ConfigRecord with a null value deletes the key; FeatureLevelRecord level 0 removes
  the feature (metadata.version is kept as a feature too); ClientQuotaRecord remove
  drops the key; RemoveAccessControlEntryRecord of an unknown id is an error;
  ProducerIdsRecord sets the next producer id; SCRAM and delegation-token records
  replace or remove by (mechanism, name) / token id.
* NoOpRecord carries no change; Begin/End/AbortTransaction are handled by the replay
  (records between them apply at END, or never).

kdump applies each record as its own delta; Kafka batches several records into one
delta, which can differ only where Kafka's own deltas consult the pre-batch image.
Secrets (SCRAM salts and keys) are never kept.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ..decoders.redact import is_sensitive_config

__all__ = [
    "ACL_OPERATIONS",
    "ApplyError",
    "Change",
    "MetadataImage",
    "config_resource_type",
    "is_sensitive_config",
]

#: ``LeaderConstants``
NO_LEADER = -1
NO_LEADER_CHANGE = -2
#: ``DirectoryId``: reserved directory ids (Uuid.toString of (0, 0), (0, 1), (0, 2))
MIGRATING = "AAAAAAAAAAAAAAAAAAAAAA"
UNASSIGNED = "AAAAAAAAAAAAAAAAAAAAAQ"
LOST = "AAAAAAAAAAAAAAAAAAAAAg"

#: ``LeaderRecoveryState``
LEADER_RECOVERY_STATES = {0: "RECOVERED", 1: "RECOVERING"}
#: ``ConfigResource.Type``
CONFIG_RESOURCE_TYPES = {0: "UNKNOWN", 2: "TOPIC", 4: "BROKER", 8: "BROKER_LOGGER",
                         16: "CLIENT_METRICS", 32: "GROUP"}
#: ``SecurityProtocol``
SECURITY_PROTOCOLS = {0: "PLAINTEXT", 1: "SSL", 2: "SASL_PLAINTEXT", 3: "SASL_SSL"}
#: ``ScramMechanism``
SCRAM_MECHANISMS = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}
#: ``org.apache.kafka.common.resource.ResourceType``
ACL_RESOURCE_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "TOPIC", 3: "GROUP", 4: "CLUSTER",
                      5: "TRANSACTIONAL_ID", 6: "DELEGATION_TOKEN", 7: "USER"}
#: ``PatternType``
ACL_PATTERN_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "MATCH", 3: "LITERAL", 4: "PREFIXED"}
#: ``AclOperation``
ACL_OPERATIONS = {0: "UNKNOWN", 1: "ANY", 2: "ALL", 3: "READ", 4: "WRITE", 5: "CREATE",
                  6: "DELETE", 7: "ALTER", 8: "DESCRIBE", 9: "CLUSTER_ACTION",
                  10: "DESCRIBE_CONFIGS", 11: "ALTER_CONFIGS", 12: "IDEMPOTENT_WRITE",
                  13: "CREATE_TOKENS", 14: "DESCRIBE_TOKENS", 15: "TWO_PHASE_COMMIT"}
#: ``AclPermissionType``
ACL_PERMISSION_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "DENY", 3: "ALLOW"}
#: ``ZkMigrationState``
ZK_MIGRATION_STATES = {0: "NONE", 1: "PRE_MIGRATION", 2: "MIGRATION", 3: "POST_MIGRATION",
                       4: "ZK"}

#: record types that change nothing in the image (named in the image object)
NO_EFFECT = frozenset({"NO_OP_RECORD"})

#: the marker printed instead of a secret
REDACTED = "redacted"

def config_resource_type(code: int) -> str:
    return CONFIG_RESOURCE_TYPES.get(code, f"UNKNOWN({code})")


def _dirs_or_none(dirs: list[str] | None) -> list[str] | None:
    return None if dirs is None else list(dirs)


def _enum(table: dict[int, str], code: int) -> str:
    return table.get(code, f"UNKNOWN({code})")


class ApplyError(Exception):
    """A record that Kafka's apply rules refuse (unknown topic, epoch mismatch, ...)."""


#: an object's key in the image: ("broker", 1), ("partition", topic_id, 0), ...
Key = tuple[Any, ...]


@dataclass(slots=True)
class Change:
    """One object changed by one record: ``before``/``after`` are output objects (None:
    absent)."""

    key: Key
    before: dict[str, Any] | None
    after: dict[str, Any] | None


@dataclass
class MetadataImage:
    """The whole image as output objects keyed by :data:`Key`.

    Every value is the JSON object ``kdump metadata`` prints for it, so an image can be
    written, compared (``--diff``) and followed (``--history``) without translation.
    """

    objects: dict[Key, dict[str, Any]] = field(default_factory=dict)
    #: topic name -> topic id (live topics)
    topic_ids: dict[str, str] = field(default_factory=dict)
    #: topic id -> partition ids
    partitions_of: dict[str, set[int]] = field(default_factory=dict)
    #: resource (type code, name) -> config names set
    configs_of: dict[tuple[int, str], set[str]] = field(default_factory=dict)
    zk_migration_state: str | None = None
    #: quorum, from KRaft control records: leader, voters, kraft.version
    leader_id: int | None = None
    leader_epoch: int | None = None
    voters: list[int] | None = None
    kraft_version: int | None = None

    def copy(self) -> MetadataImage:
        return copy.deepcopy(self)

    # ------------------------------------------------------------------ helpers
    def _set(self, key: Key, obj: dict[str, Any] | None, out: list[Change]) -> None:
        before = self.objects.get(key)
        if obj is None:
            if before is None:
                return
            del self.objects[key]
        else:
            if before == obj:
                return
            self.objects[key] = obj
        out.append(Change(key, before, obj))

    # ------------------------------------------------------------------ apply
    def apply(self, name: str, m: dict[str, Any]) -> list[Change]:
        """Apply one metadata record (``MetadataRecordType`` name, message with every
        field).  Returns what changed; raises :class:`ApplyError` when Kafka would."""
        handler = _HANDLERS.get(name)
        out: list[Change] = []
        if handler is not None:
            handler(self, m, out)
        return out

    # topics -----------------------------------------------------------------
    def _topic(self, m: dict[str, Any], out: list[Change]) -> None:
        tid, tname = m["topicId"], m["name"]
        # TopicsDelta.replay(TopicRecord) starts the topic afresh: a TopicRecord for a
        # live id drops its partitions; a live name with another id keeps that topic by
        # id while the name now points here (TopicsDelta.apply: topicsByName.updated)
        for pid in sorted(self.partitions_of.get(tid, set())):
            self._set(("partition", tid, pid), None, out)
        self.topic_ids[tname] = tid
        self.partitions_of[tid] = set()
        self._set(("topic", tid), {"type": "topic", "name": tname, "topic_id": tid,
                                   "partitions": len(self.partitions_of[tid])}, out)

    def _topic_name(self, tid: str, what: str) -> str:
        t = self.objects.get(("topic", tid))
        if t is None:
            raise ApplyError(f"{what}: no topic with id {tid}")
        return str(t["name"])

    def _count_partitions(self, tid: str, out: list[Change]) -> None:
        t = dict(self.objects[("topic", tid)])
        t["partitions"] = len(self.partitions_of[tid])
        self._set(("topic", tid), t, out)

    def _partition(self, m: dict[str, Any], out: list[Change]) -> None:
        tid, pid = m["topicId"], m["partitionId"]
        tname = self._topic_name(tid, f"PartitionRecord for partition {pid}")
        replicas = list(m["replicas"])
        dirs = m.get("directories") or []
        if dirs and len(dirs) != len(replicas):
            raise ApplyError(f"PartitionRecord {tname}-{pid}: {len(dirs)} directories for "
                             f"{len(replicas)} replicas")
        lrs = m["leaderRecoveryState"]
        if lrs not in LEADER_RECOVERY_STATES:
            raise ApplyError(f"PartitionRecord {tname}-{pid}: leader recovery state {lrs} "
                             "is not valid")
        obj = {
            "type": "partition", "topic": tname, "topic_id": tid, "partition": pid,
            "leader": m["leader"], "leader_epoch": m["leaderEpoch"],
            "partition_epoch": m["partitionEpoch"], "replicas": replicas,
            "isr": list(m["isr"]), "elr": list(m.get("eligibleLeaderReplicas") or []),
            "last_known_elr": list(m.get("lastKnownElr") or []),
            "leader_recovery_state": LEADER_RECOVERY_STATES[lrs],
            "adding_replicas": list(m["addingReplicas"]),
            "removing_replicas": list(m["removingReplicas"]),
            "directories": list(dirs) if dirs else [MIGRATING] * len(replicas),
        }
        self.partitions_of[tid].add(pid)
        self._set(("partition", tid, pid), obj, out)
        self._count_partitions(tid, out)

    def _partition_change(self, m: dict[str, Any], out: list[Change]) -> None:
        tid, pid = m["topicId"], m["partitionId"]
        cur = self.objects.get(("partition", tid, pid))
        if cur is None:
            raise ApplyError(f"Unable to find partition {tid}:{pid}")
        new = dict(cur)
        old_replicas = cur["replicas"]
        if m["replicas"] is not None:
            new["replicas"] = list(m["replicas"])
        d = m.get("directories")
        if d:
            if m["replicas"] is not None and len(d) != len(m["replicas"]):
                raise ApplyError(f"PartitionChangeRecord {cur['topic']}-{pid}: {len(d)} "
                                 f"directories for {len(m['replicas'])} replicas")
            new["directories"] = list(d)
        elif m["replicas"] is not None:
            by_replica = dict(zip(old_replicas, cur["directories"], strict=False))
            new["directories"] = [by_replica.get(r, UNASSIGNED) for r in m["replicas"]]
        if not new["directories"]:
            new["directories"] = [MIGRATING] * len(old_replicas)
        for src, dst in (("isr", "isr"), ("removingReplicas", "removing_replicas"),
                         ("addingReplicas", "adding_replicas"),
                         ("eligibleLeaderReplicas", "elr"), ("lastKnownElr", "last_known_elr")):
            v = m.get(src)
            if v is not None:
                new[dst] = list(v)
        if m["leader"] != NO_LEADER_CHANGE:
            new["leader"] = m["leader"]
            new["leader_epoch"] = cur["leader_epoch"] + 1
        lrs = m["leaderRecoveryState"]
        if lrs != -1:
            if lrs not in LEADER_RECOVERY_STATES:
                raise ApplyError(f"PartitionChangeRecord {cur['topic']}-{pid}: leader "
                                 f"recovery state {lrs} is not valid")
            new["leader_recovery_state"] = LEADER_RECOVERY_STATES[lrs]
        new["partition_epoch"] = cur["partition_epoch"] + 1
        self._set(("partition", tid, pid), new, out)

    def _clear_elr(self, m: dict[str, Any], out: list[Change]) -> None:
        name = m["topicName"]
        if name:
            tid = self.topic_ids.get(name)
            if tid is None:
                raise ApplyError(f"Unable to clear elr for topic with name {name}: no such "
                                 "topic found.")
            tids = [tid]
        else:
            tids = sorted(self.partitions_of)
        for tid in tids:
            for pid in sorted(self.partitions_of.get(tid, set())):
                cur = self.objects[("partition", tid, pid)]
                if cur["elr"] or cur["last_known_elr"]:
                    self._set(("partition", tid, pid), {
                        **cur, "elr": [], "last_known_elr": [],
                        "partition_epoch": cur["partition_epoch"] + 1}, out)

    def _remove_topic(self, m: dict[str, Any], out: list[Change]) -> None:
        tid = m["topicId"]
        self._topic_name(tid, "Unable to delete topic")
        self._drop_topic(tid, out, configs=True)

    def _drop_topic(self, tid: str, out: list[Change], *, configs: bool) -> None:
        tname = str(self.objects[("topic", tid)]["name"])
        for pid in sorted(self.partitions_of.pop(tid, set())):
            self._set(("partition", tid, pid), None, out)
        self._set(("topic", tid), None, out)
        if self.topic_ids.get(tname) == tid:
            del self.topic_ids[tname]
        if configs:
            res = (2, tname)
            for cname in sorted(self.configs_of.pop(res, set())):
                self._set(("config", 2, tname, cname), None, out)

    # configs ----------------------------------------------------------------
    def _config(self, m: dict[str, Any], out: list[Change]) -> None:
        rtype, rname, cname, value = m["resourceType"], m["resourceName"], m["name"], m["value"]
        key = ("config", rtype, rname, cname)
        names = self.configs_of.setdefault((rtype, rname), set())
        if value is None:
            names.discard(cname)
            if not names:
                del self.configs_of[(rtype, rname)]
            self._set(key, None, out)
            return
        names.add(cname)
        obj: dict[str, Any] = {"type": "config", "resource_type": config_resource_type(rtype),
                               "resource_name": rname, "name": cname, "value": value}
        if is_sensitive_config(cname):
            obj["value"] = None
            obj["redacted"] = True
            # a change of a secret is still a change: keep a fingerprint-free counter
            prev = self.objects.get(key)
            obj["version"] = (prev.get("version", 0) + 1) if prev else 1
        self._set(key, obj, out)

    # features ----------------------------------------------------------------
    def _feature(self, m: dict[str, Any], out: list[Change]) -> None:
        name, level = m["name"], m["featureLevel"]
        if level == 0 and name != "metadata.version":
            self._set(("feature", name), None, out)
        else:
            self._set(("feature", name), {"type": "feature", "name": name, "level": level}, out)

    def _zk_migration(self, m: dict[str, Any], out: list[Change]) -> None:
        self.zk_migration_state = _enum(ZK_MIGRATION_STATES, m["zkMigrationState"])

    # cluster ----------------------------------------------------------------
    def _register_broker(self, m: dict[str, Any], out: list[Change]) -> None:
        eps: dict[str, dict[str, Any]] = {}
        for e in m["endPoints"]:
            eps[e["name"]] = {"name": e["name"], "host": e["host"], "port": e["port"],
                              "security_protocol": _enum(SECURITY_PROTOCOLS, e["securityProtocol"])}
        feats = {f["name"]: {"name": f["name"], "min_version": f["minSupportedVersion"],
                             "max_version": f["maxSupportedVersion"]} for f in m["features"]}
        obj = {
            "type": "broker", "id": m["brokerId"], "epoch": m["brokerEpoch"],
            "incarnation_id": m["incarnationId"], "fenced": bool(m["fenced"]),
            "in_controlled_shutdown": bool(m["inControlledShutdown"]), "rack": m["rack"],
            "endpoints": [eps[k] for k in sorted(eps)],
            "features": [feats[k] for k in sorted(feats)],
            "log_dirs": sorted(m.get("logDirs") or []),
            "cordoned_log_dirs": _dirs_or_none(m.get("cordonedLogDirs")),
            "is_migrating_zk_broker": bool(m["isMigratingZkBroker"]),
        }
        self._set(("broker", m["brokerId"]), obj, out)

    def _unregister_broker(self, m: dict[str, Any], out: list[Change]) -> None:
        self._set(("broker", m["brokerId"]), None, out)

    def _broker(self, bid: int, epoch: int, action: str) -> dict[str, Any]:
        b = self.objects.get(("broker", bid))
        if b is None:
            raise ApplyError(f"Tried to {action} broker {bid}, but that broker was not registered.")
        if b["epoch"] != epoch:
            raise ApplyError(f"Tried to {action} broker {bid}, but the given epoch, {epoch}, did "
                             f"not match the current broker epoch, {b['epoch']}")
        return b

    def _fence(self, m: dict[str, Any], out: list[Change]) -> None:
        b = dict(self._broker(m["id"], m["epoch"], "fence"))
        b["fenced"] = True
        self._set(("broker", m["id"]), b, out)

    def _unfence(self, m: dict[str, Any], out: list[Change]) -> None:
        b = dict(self._broker(m["id"], m["epoch"], "unfence"))
        b["fenced"] = False
        self._set(("broker", m["id"]), b, out)

    def _broker_change(self, m: dict[str, Any], out: list[Change]) -> None:
        b = dict(self._broker(m["brokerId"], m["brokerEpoch"], "change"))
        fenced, ics = m["fenced"], m["inControlledShutdown"]
        if fenced not in (-1, 0, 1):
            raise ApplyError(f"Unable to replay BrokerRegistrationChangeRecord: unknown value "
                             f"for fenced field: {fenced}")
        if ics not in (0, 1):
            raise ApplyError("Unable to replay BrokerRegistrationChangeRecord: unknown value "
                             f"for inControlledShutdown field: {ics}")
        if fenced:
            b["fenced"] = fenced == 1
        if ics == 1:
            b["in_controlled_shutdown"] = True
        if m.get("logDirs"):
            b["log_dirs"] = sorted(m["logDirs"])
        cordoned = m.get("cordonedLogDirs")
        if cordoned is not None:
            b["cordoned_log_dirs"] = list(cordoned)
        self._set(("broker", m["brokerId"]), b, out)

    def _register_controller(self, m: dict[str, Any], out: list[Change]) -> None:
        cid = m["controllerId"]
        eps: dict[str, dict[str, Any]] = {}
        for e in m["endPoints"]:
            if e["securityProtocol"] not in SECURITY_PROTOCOLS:
                raise ApplyError(f"Unknown security protocol {e['securityProtocol']}")
            eps[e["name"]] = {"name": e["name"], "host": e["host"], "port": e["port"],
                              "security_protocol": SECURITY_PROTOCOLS[e["securityProtocol"]]}
        feats = {f["name"]: {"name": f["name"], "min_version": f["minSupportedVersion"],
                             "max_version": f["maxSupportedVersion"]} for f in m["features"]}
        self._set(("controller", cid), {
            "type": "controller", "id": cid, "incarnation_id": m["incarnationId"],
            "zk_migration_ready": bool(m["zkMigrationReady"]),
            "endpoints": [eps[k] for k in sorted(eps)],
            "features": [feats[k] for k in sorted(feats)],
        }, out)

    def _unregister_controller(self, m: dict[str, Any], out: list[Change]) -> None:
        # Kafka 4.4's UnregisterControllerRecord (api key 29): the registration is gone,
        # as ClusterDelta.replay(UnregisterControllerRecord) drops it from the image (like
        # an UnregisterBrokerRecord, no error when none was registered)
        self._set(("controller", m["controllerId"]), None, out)

    # quotas, ACLs, producer ids, SCRAM, tokens ---------------------------------
    def _quota(self, m: dict[str, Any], out: list[Change]) -> None:
        entity: dict[str, str | None] = {}
        for e in m["entity"]:
            entity[e["entityType"]] = e["entityName"]
        ekey = tuple(sorted(entity.items(), key=lambda kv: kv[0]))
        key = ("quota", ekey, m["key"])
        if m["remove"]:
            self._set(key, None, out)
        else:
            self._set(key, {"type": "quota", "entity": dict(ekey), "key": m["key"],
                            "value": m["value"]}, out)

    def _acl(self, m: dict[str, Any], out: list[Change]) -> None:
        self._set(("acl", m["id"]), {
            "type": "acl", "id": m["id"],
            "resource_type": _enum(ACL_RESOURCE_TYPES, m["resourceType"]),
            "resource_name": m["resourceName"],
            "pattern_type": _enum(ACL_PATTERN_TYPES, m["patternType"]),
            "principal": m["principal"], "host": m["host"],
            "operation": _enum(ACL_OPERATIONS, m["operation"]),
            "permission_type": _enum(ACL_PERMISSION_TYPES, m["permissionType"]),
        }, out)

    def _remove_acl(self, m: dict[str, Any], out: list[Change]) -> None:
        if ("acl", m["id"]) not in self.objects:
            raise ApplyError(f"Failed to find existing ACL with ID {m['id']}")
        self._set(("acl", m["id"]), None, out)

    def _producer_ids(self, m: dict[str, Any], out: list[Change]) -> None:
        self._set(("producer_ids",), {
            "type": "producer_ids", "next_producer_id": m["nextProducerId"],
            "broker_id": m["brokerId"], "broker_epoch": m["brokerEpoch"],
        }, out)

    def _scram(self, m: dict[str, Any], out: list[Change]) -> None:
        mech = _enum(SCRAM_MECHANISMS, m["mechanism"])
        key = ("scram_user", m["name"], mech)
        prev = self.objects.get(key)
        self._set(key, {
            "type": "scram_user", "name": m["name"], "mechanism": mech,
            "iterations": m["iterations"], "credentials": REDACTED,
            "version": (prev["version"] + 1) if prev else 1,
        }, out)

    def _remove_scram(self, m: dict[str, Any], out: list[Change]) -> None:
        self._set(("scram_user", m["name"], _enum(SCRAM_MECHANISMS, m["mechanism"])), None, out)

    def _token(self, m: dict[str, Any], out: list[Change]) -> None:
        self._set(("delegation_token", m["tokenId"]), {
            "type": "delegation_token", "token_id": m["tokenId"], "owner": m["owner"],
            "requester": m["requester"], "renewers": list(m["renewers"]),
            "issue_timestamp": m["issueTimestamp"], "max_timestamp": m["maxTimestamp"],
            "expiration_timestamp": m["expirationTimestamp"], "hmac": REDACTED,
        }, out)

    def _remove_token(self, m: dict[str, Any], out: list[Change]) -> None:
        self._set(("delegation_token", m["tokenId"]), None, out)

    # ------------------------------------------------------------------ reading
    def sorted_objects(self) -> list[dict[str, Any]]:
        """Every object, sections in a fixed order, each sorted the way people look."""
        return [self.objects[k] for k in sorted(self.objects, key=self.sort_key)]

    def sort_key(self, key: Key) -> tuple[Any, ...]:
        kind = key[0]
        rank = SECTION_ORDER.index(kind)
        obj = self.objects.get(key)
        return (rank, *object_sort_key(kind, key, obj))


SECTION_ORDER = ("feature", "broker", "controller", "topic", "partition", "config", "quota",
                 "acl", "producer_ids", "scram_user", "delegation_token")


def object_sort_key(kind: str, key: Key, obj: dict[str, Any] | None) -> tuple[Any, ...]:
    if kind in ("topic", "partition") and obj is not None:
        return (obj["topic"] if kind == "partition" else obj["name"], key[1],
                key[2] if kind == "partition" else 0)
    if kind == "quota":
        return (str(key[1]), key[2])
    return tuple(str(k) if not isinstance(k, int) else f"{k:020d}" for k in key[1:])


_HANDLERS = {
    "TOPIC_RECORD": MetadataImage._topic,
    "PARTITION_RECORD": MetadataImage._partition,
    "PARTITION_CHANGE_RECORD": MetadataImage._partition_change,
    "REMOVE_TOPIC_RECORD": MetadataImage._remove_topic,
    "CLEAR_ELR_RECORD": MetadataImage._clear_elr,
    "CONFIG_RECORD": MetadataImage._config,
    "FEATURE_LEVEL_RECORD": MetadataImage._feature,
    "ZK_MIGRATION_STATE_RECORD": MetadataImage._zk_migration,
    "REGISTER_BROKER_RECORD": MetadataImage._register_broker,
    "UNREGISTER_BROKER_RECORD": MetadataImage._unregister_broker,
    "FENCE_BROKER_RECORD": MetadataImage._fence,
    "UNFENCE_BROKER_RECORD": MetadataImage._unfence,
    "BROKER_REGISTRATION_CHANGE_RECORD": MetadataImage._broker_change,
    "REGISTER_CONTROLLER_RECORD": MetadataImage._register_controller,
    "UNREGISTER_CONTROLLER_RECORD": MetadataImage._unregister_controller,
    "CLIENT_QUOTA_RECORD": MetadataImage._quota,
    "ACCESS_CONTROL_ENTRY_RECORD": MetadataImage._acl,
    "REMOVE_ACCESS_CONTROL_ENTRY_RECORD": MetadataImage._remove_acl,
    "PRODUCER_IDS_RECORD": MetadataImage._producer_ids,
    "USER_SCRAM_CREDENTIAL_RECORD": MetadataImage._scram,
    "REMOVE_USER_SCRAM_CREDENTIAL_RECORD": MetadataImage._remove_scram,
    "DELEGATION_TOKEN_RECORD": MetadataImage._token,
    "REMOVE_DELEGATION_TOKEN_RECORD": MetadataImage._remove_token,
}

#: every record type the image knows what to do with (transactions are the replay's)
APPLIED_TYPES = frozenset(_HANDLERS)
TRANSACTION_TYPES = frozenset({"BEGIN_TRANSACTION_RECORD", "END_TRANSACTION_RECORD",
                               "ABORT_TRANSACTION_RECORD"})
