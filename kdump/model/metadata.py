"""``kdump metadata``'s objects (kdump/metadata/): the KRaft image replayed from
__cluster_metadata, ``--history`` and ``--diff``.  A namespace of their own
(``METADATA_SCHEMA``, ``shape_metadata``): its ``topic`` and ``partition`` are not
size-report's rows.
"""

from __future__ import annotations

from .fields import Kinds, typed

_ENDPOINTS = ("endpoints", "list", "[{name, host, port, security_protocol}], by listener name")
_SUMMARY = ("offset, timestamp, target, snapshot, log_segments, gaps, records_applied, "
            "records_failed, complete")
KINDS: Kinds = typed({
    "feature": ("a finalized feature (metadata.version included)", [
        ("name", "str", ""), ("level", "int", "feature level")]),
    "broker": ("a registered broker", [
        ("id", "int", ""), ("epoch", "int", "broker epoch"), ("incarnation_id", "str", ""),
        ("fenced", "bool", ""),
        ("in_controlled_shutdown", "bool", ""),
        ("rack", "str|null", "null when none"), _ENDPOINTS,
        ("features", "list", "[{name, min_version, max_version}] supported"),
        ("log_dirs", "list", "directory ids, sorted"),
        ("cordoned_log_dirs", "list|null", "directory ids the broker cordoned (Kafka 4.3+), as "
         "written; null until the broker says (older records)"),
        ("is_migrating_zk_broker", "bool", "")]),
    "controller": ("a controller: its registration and what the quorum's control records say", [
        ("id", "int", ""), ("incarnation_id", "str|null", "null when not registered"),
        ("zk_migration_ready", "bool|null", ""), _ENDPOINTS, ("features", "list", ""),
        ("registered", "bool", "a RegisterControllerRecord exists"),
        ("voter", "bool|null", "in the voters of the latest LeaderChange/Voters record (null: none seen)"),
        ("leader", "bool", "the latest LeaderChange record names it")]),
    "topic": ("a topic", [("name", "str", ""), ("topic_id", "str", ""), ("partitions", "int", "the count")]),
    "partition": ("a partition's registration", [
        ("topic", "str", ""),
        ("topic_id", "str", ""),
        ("partition", "int", ""),
        ("leader", "int", "-1: none"),
        ("leader_epoch", "int", ""),
        ("partition_epoch", "int", ""),
        ("replicas", "list", ""),
        ("isr", "list", ""),
        ("elr", "list", "eligible leader replicas (a ClearElrRecord empties them and bumps "
         "partition_epoch)"), ("last_known_elr", "list", ""),
        ("leader_recovery_state", "str", "RECOVERED or RECOVERING"), ("adding_replicas", "list", ""),
        ("removing_replicas", "list", ""),
        ("directories", "list", "per replica; AAAAAAAAAAAAAAAAAAAAAA = MIGRATING, "
                                "AAAAAAAAAAAAAAAAAAAAAQ = UNASSIGNED")]),
    "config": ("a dynamic config", [
        ("resource_type", "str", "TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP"),
        ("resource_name", "str", "empty: the cluster default"), ("name", "str", ""),
        ("value", "str|null", "null when redacted"),
        ("redacted?", "bool", "true for password-like names: the value is never printed"),
        ("version?", "int", "redacted configs: how many times the value was set")]),
    "quota": ("a client quota", [("entity", "object", "{entity type: name or null (default)}"),
                                 ("key", "str", ""), ("value", "float", "")]),
    "acl": ("an ACL", [("id", "str", ""), ("resource_type", "str", ""), ("resource_name", "str", ""),
                       ("pattern_type", "str", ""), ("principal", "str", ""), ("host", "str", ""),
                       ("operation", "str", ""), ("permission_type", "str", "")]),
    "producer_ids": ("the next producer-id block", [
        ("next_producer_id", "int", ""), ("broker_id", "int", "the broker it went to"),
        ("broker_epoch", "int", "")]),
    "scram_user": ("a SCRAM credential", [
        ("name", "str", ""),
        ("mechanism", "str", "SCRAM-SHA-256 or SCRAM-SHA-512"),
        ("iterations", "int", ""),
        ("credentials", "str", "always \"redacted\": salt and keys are never printed"),
        ("version", "int", "how many times it was set")]),
    "delegation_token": ("a delegation token", [
        ("token_id", "str", ""), ("owner", "str", ""), ("requester", "str", ""), ("renewers", "list", ""),
        ("issue_timestamp", "int", ""), ("max_timestamp", "int", ""), ("expiration_timestamp", "int", ""),
        ("hmac", "str", "always \"redacted\"")]),
    "image": ("closes the image: where it stands and what built it", [
        ("offset", "int|null", "last offset in the image"), ("timestamp", "int|null", "of that record"),
        ("target", "str", "offset N, time T or end"),
        ("snapshot", "object|null", "{file, end_offset, epoch, timestamp} used, or null"),
        ("log_segments", "list", "segments read"), ("skipped_segments", "list", "[{file, why}]"),
        ("log_start_offset", "int|null", ""), ("log_end_offset", "int|null", "last offset read"),
        ("overlap", "object|null", "{first, last}: log offsets also in the snapshot (taken from it)"),
        ("gaps", "list", "[{first, last}]: offsets in no file"), ("records_applied", "int", ""),
        ("records_failed", "int", "records not applied (see the problems)"),
        ("records_by_type", "object", ""), ("records_without_effect", "object", "NO_OP_RECORD ..."),
        ("transactions_committed", "int", ""), ("transactions_aborted", "int", ""),
        ("records_aborted", "int", ""),
        ("pending_transaction", "object|null",
         "{begin_offset, name, records} open at the target, not applied"),
        ("metadata_version", "int|null", ""),
        ("zk_migration_state", "str|null", ""),
        ("kraft_version", "int|null", ""),
        ("leader_id", "int|null", "from the latest LeaderChange record"), ("leader_epoch", "int|null", ""),
        ("voters", "list|null", ""),
        ("quorum_state_file", "object|null", "{file, values}: the quorum-state file, as copied"),
        ("complete", "bool", "no gap and no record failed"), ("topics", "int", ""), ("partitions", "int", ""),
        ("brokers", "int", ""),
        ("cluster_state", "str|null", "running (a registered broker is unfenced and not in "
         "controlled shutdown), stopped (every registered broker is fenced or in controlled "
         "shutdown: the cluster was stopped), null (no broker registered)"),
        ("stopped", "object|null", "when stopped: {timestamp, offset, broker, how (fenced or "
         "in controlled shutdown), text}: the record of the last broker to go down (offset "
         "null: read from the snapshot); text reads \"the cluster was stopped at T (broker N "
         "fenced at offset X)\""),
        ("partitions_without_leader", "int", "partitions whose leader is -1 (when stopped, "
         "they follow from the stop)")]),
    "change": ("--history: one object changed by one record", [
        ("offset", "int|null", "null: loaded from the snapshot"), ("timestamp", "int|null", ""),
        ("record", "str", "the record type"),
        ("committed_at", "int|null", "in a transaction: the END record's offset"),
        ("object", "str", "its type"),
        ("label", "str", "orders/0, broker 1 ..."),
        ("path", "str", "/topics/orders/0"),
        ("action", "str", "created, changed or removed"),
        ("changes", "list", "[{field, from, to}]"), ("text", "str", "leader 1 -> 3, fenced ...")]),
    "history": ("closes --history", [("object", "str|null", "what was asked"), ("changes", "int", "entries"),
                                     ("image", "object", _SUMMARY)]),
    "difference": ("--diff: an object that differs", [
        ("object", "str", "type"),
        ("label", "str", ""),
        ("path", "str", ""),
        ("action", "str", "created, changed, removed"),
        ("changes", "list", "[{field, from, to}]"),
        ("text", "str", ""),
        ("before", "object|null", "the object at A"),
        ("after", "object|null", "the object at B")]),
    "diff": ("closes --diff", [("from", "object", _SUMMARY), ("to", "object", _SUMMARY),
                               ("differences", "int", "count")]),
})
