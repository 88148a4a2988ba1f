"""Kafka 3.9 and 4.4 records (issue 49, item 3): every record version of every release
line 3.9-4.4 decodes exactly as Kafka's generated JsonConverter prints it; the layouts
3.9 and 4.0 both write at ``__consumer_offsets`` type 9 version 0 are told apart by the
log dir's release evidence (``--kafka-version``, ``metadata.version``, a ZooKeeper-era
log dir); 4.4's UnregisterControllerRecord and StreamsGroupMetadataValue's
Stored/FailedDescriptionTopologyEpoch are read, dumped and replayed.

Records are encoded by tests/support/message_writer.py from tests/support/kafka4_specs.py
(Kafka's JSON definitions of branches 3.9-4.4, written again apart from kdump's
definitions).
"""

from __future__ import annotations

import json
import random
import struct
from pathlib import Path
from typing import Any

import pytest

from kdump.decoders.cluster_metadata import ClusterMetadataDecoder
from kdump.decoders.consumer_offsets import ConsumerOffsetsDecoder
from kdump.decoders.release import (
    NO_EVIDENCE,
    Evidence,
    evidence_for_logdir,
    zookeeper_era,
)
from kdump.decoders.share_group_state import ShareGroupStateDecoder
from kdump.decoders.transaction_log import TransactionLogDecoder
from kdump.protocol.control import decode_control_value
from kdump.protocol.definitions import RELEASES
from kdump.protocol.messages import json_text
from tests.support import kafka4_specs as ks
from tests.support import message_writer as sw
from tests.support import writer as w

_DECODERS = {"group": ConsumerOffsetsDecoder, "share": ShareGroupStateDecoder,
             "transaction": TransactionLogDecoder}


def i16(v: int) -> bytes:
    return struct.pack(">h", v)


def exact(release: str) -> Evidence:
    return Evidence(release, False, f"--kafka-version {release}")


# ============================================================================ every version


def _check_coordinator(release: str, family: str, t: int, version: int) -> int:
    """Encode key and value of one version, decode with kdump; the record versions
    checked (the value's, and the key's once per type)."""
    key_w, value_w = ks.SPECS[release][(family, t)]
    assert key_w is not None
    rng = random.Random(f"all/{release}/{family}/{t}/{version}")
    k = sw.sample(key_w, rng, 0)
    val = sw.sample(value_w, rng, version)
    ks.fix_enums(family, t, val)
    if family == "transaction" and val["transactionPartitions"] is None:
        val["transactionStatus"] = 0
    if "protocolType" in val:
        val["protocolType"] = "connect"
    key = i16(t) + sw.encode(key_w, k, 0)
    value = i16(version) + sw.encode(value_w, val, version)
    out = _DECODERS[family](exact(release)).decode(key, value, 5)
    assert out.error is None, (release, family, t, version, out.error)
    assert isinstance(out.key_json, dict) and isinstance(out.value_json, dict)
    assert out.key_json["data"] == sw.expected_json(key_w, k, 0)
    assert out.value_json["data"] == sw.expected_json(value_w, val, version)
    return 1 + (version == value_w.valid[0])


def _check_kraft(release: str, family: str, t: int, version: int) -> int:
    schema = ks.SPECS[release][(family, t)][1]
    values = sw.sample(schema, random.Random(f"all/{release}/{family}/{t}/{version}"), version)
    if family == "control":
        values["version"] = version
        body = sw.encode(schema, values, version)
        assert decode_control_value(t, body) == sw.expected_json(schema, values, version)
        return 1
    dec = ClusterMetadataDecoder(exact(release))
    dec.show_secrets = True
    out = dec.decode(None, sw.uvarint(1) + sw.uvarint(t) + sw.uvarint(version)
                     + sw.encode(schema, values, version), 3)
    want = {"type": schema.type_name, "version": version,
            "data": sw.expected_json(schema, values, version)}
    assert (out.error, out.value_json, out.value_text) == (None, want, json_text(want))
    return 1


def test_every_record_version_of_every_release_is_decoded_exactly() -> None:
    """Every record version (each key, each value or KRaft record version, control
    records at version 0: their ``Version`` field is in the body) of each release line,
    read with that release named: N of N exactly, the counts per release said here."""
    assert RELEASES == ks.RELEASES == ("3.9", "4.0", "4.1", "4.2", "4.3", "4.4")
    per_release: dict[str, int] = {}
    total = 0
    for release, table in ks.SPECS.items():
        done = 0
        for (family, t), (_key_w, spec) in sorted(table.items()):
            versions = range(1) if family == "control" else spec.versions()
            for v in versions:
                if family in ("group", "share", "transaction"):
                    done += _check_coordinator(release, family, t, v)
                else:
                    done += _check_kraft(release, family, t, v)
            total += len(versions) + (family in ("group", "share", "transaction"))
        per_release[release] = done
    assert per_release == {"3.9": 78, "4.0": 93, "4.1": 99, "4.2": 99, "4.3": 101, "4.4": 102}
    assert sum(per_release.values()) == total == 572


# ============================================================================ type 9: 3.9 / 4.0


def _type9_both() -> tuple[bytes, bytes]:
    """A type 9 record that reads exactly with 3.9's layout and with 4.0's, differently:
    4.0's ``topics: []`` with one unknown tagged field (tag 1, 2 bytes ``01 07``) is, to
    3.9's layout, ``initializedTopics: []``, ``deletingTopics: []`` and one unknown
    tagged field (tag 2, 1 byte ``07``)."""
    key_w, v40 = ks.SPECS["4.0"][("group", 9)]
    assert key_w is not None
    value = i16(0) + sw.encode(v40, {"topics": []}, 0, unknown_tags=[(1, b"\x01\x07")])
    v39 = ks.SPECS["3.9"][("group", 9)][1]
    assert value == i16(0) + sw.encode(v39, {"initializedTopics": [], "deletingTopics": []}, 0,
                                       unknown_tags=[(2, b"\x07")])
    return i16(9) + sw.encode(key_w, {"groupId": "share-g"}, 0), value


_AS_39 = '{"version":"0","data":{"initializedTopics":[],"deletingTopics":[]}}'
_AS_40 = '{"version":"0","data":{"topics":[]}}'


def test_type_9_read_with_the_release_named() -> None:
    key, value = _type9_both()
    out = ConsumerOffsetsDecoder(exact("3.9")).decode(key, value, 4)
    assert (out.value_text, out.error, out.note) == (
        _AS_39, None, "read as ShareGroupPartitionMetadataValue (Kafka 3.9), by --kafka-version 3.9")
    out = ConsumerOffsetsDecoder(exact("4.0")).decode(key, value, 4)
    assert (out.value_text, out.error, out.note) == (
        _AS_40, None, "read as ShareGroupPartitionMetadataValue (Kafka 4.0), by --kafka-version 4.0")
    out = ConsumerOffsetsDecoder(NO_EVIDENCE).decode(key, value, 4)
    assert out.value_text == _AS_40 and out.error == (
        "ambiguous: the record fits ShareGroupPartitionMetadataValue (Kafka 3.9), "
        "ShareGroupPartitionMetadataValue (Kafka 4.0) with different fields; shown as "
        "ShareGroupPartitionMetadataValue (Kafka 4.0), raw bytes kept; give --kafka-version "
        "to choose")
    # Kafka 4.1 removed type 9: named as such, still read
    out = ConsumerOffsetsDecoder(exact("4.1")).decode(key, value, 4)
    assert out.error is not None and out.error.startswith(
        "record type 9 (ShareGroupPartitionMetadataKey) is written by Kafka 3.9-4.0, not by "
        "Kafka 4.1 (--kafka-version 4.1)")


def _offsets_dir(root: Path, *, meta: dict[str, str] | None = None,
                 level: int | None = None) -> Path:
    """A log dir whose ``__consumer_offsets-0`` holds the type 9 record of
    :func:`_type9_both`; ``meta``: its meta.properties; ``level``: a metadata.version in
    its ``__cluster_metadata-0``."""
    if meta is not None:
        (root / "meta.properties").write_bytes(w.meta_properties(meta))
    if level is not None:
        ml = w.MetadataLogWriter(root / "__cluster_metadata-0")
        ml.append([w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                            "featureLevel": level})])
        ml.close()
    pw = w.PartitionWriter(root / "__consumer_offsets-0")
    pw.append(w.v2_batch([w.Rec(*_type9_both())]))
    pw.close()
    return root


def _dumped(kdump: Any, root: Path, *args: str) -> tuple[str, str | None, str | None]:
    r = kdump("dump", "--format", "json", "--print-data-log", *args, "__consumer_offsets-0",
              cwd=root)
    assert r.rc in (0, 1), r.err
    (rec,) = [json.loads(x) for x in r.lines if x.startswith('{"type":"record"')]
    value = rec["decoded"]["value"]
    assert ("raw" in value) == ("decode_error" in rec)  # a doubtful reading keeps its bytes
    return (json_text({k: v for k, v in value.items() if k != "raw"}),
            rec["decoded"].get("layout"), rec.get("decode_error"))


ZK = {"version": "0", "broker.id": "1", "cluster.id": "zk-cluster-0000000000"}


def test_a_zookeeper_era_log_dir_reads_3_9s_layout(kdump: Any, tmp_path: Path) -> None:
    _offsets_dir(tmp_path, meta=ZK)
    value, layout, error = _dumped(kdump, tmp_path)
    assert (value, error) == (_AS_39, None)
    assert layout == (
        "read as ShareGroupPartitionMetadataValue (Kafka 3.9), by a ZooKeeper-era log dir "
        "(meta.properties: version=0, no directory.id; no __cluster_metadata-0): Kafka 3.9 "
        "at the latest")
    # --kafka-version is stronger than the log dir
    value, layout, error = _dumped(kdump, tmp_path, "--kafka-version", "4.0")
    assert (value, layout, error) == (
        _AS_40, "read as ShareGroupPartitionMetadataValue (Kafka 4.0), by --kafka-version 4.0",
        None)


def test_a_kraft_log_dir_reads_4_0s_layout_from_its_metadata_version(
        kdump: Any, tmp_path: Path) -> None:
    _offsets_dir(tmp_path, meta={"version": "1", "node.id": "1", "cluster.id": "c",
                                 "directory.id": "AAAAAAAAAAAAAAAAAAAAAQ"}, level=22)
    value, layout, error = _dumped(kdump, tmp_path)
    assert (value, error) == (_AS_40, None)
    assert layout == ("read as ShareGroupPartitionMetadataValue (Kafka 4.0), by metadata.version "
                      "22 (4.0-IV0) in __cluster_metadata-0/00000000000000000000.log")


def test_a_3x_metadata_version_or_no_evidence_leaves_it_ambiguous(
        kdump: Any, tmp_path: Path) -> None:
    """metadata.version 21 (3.9-IV0) is a floor 4.0 brokers may run at too: it chooses
    nothing; nor does a log dir without meta.properties."""
    for root, level in ((tmp_path / "a", 21), (tmp_path / "b", None)):
        root.mkdir()
        _offsets_dir(root, level=level)
        value, layout, error = _dumped(kdump, root)
        assert value == _AS_40 and layout == "read as ShareGroupPartitionMetadataValue (Kafka 4.0)"
        assert error is not None and error.startswith("ambiguous: the record fits ")


def test_zookeeper_era_evidence(tmp_path: Path) -> None:
    meta = tmp_path / "meta.properties"
    meta.write_bytes(w.meta_properties(ZK))
    ev = Evidence("3.9", False, f"a ZooKeeper-era log dir ({tmp_path / 'meta.properties'}: "
                  "version=0, no directory.id; no __cluster_metadata-0): Kafka 3.9 at the latest")
    assert zookeeper_era(str(meta)) == ev and evidence_for_logdir(str(tmp_path)) == ev
    # no version line: MetaProperties reads version 0
    meta.write_bytes(w.meta_properties({"broker.id": "1"}))
    assert evidence_for_logdir(str(tmp_path)).release == "3.9"
    # a migrating ZooKeeper broker (directory.id) or a KRaft one (version=1): no evidence
    meta.write_bytes(w.meta_properties({**ZK, "directory.id": "AAAAAAAAAAAAAAAAAAAAAQ"}))
    assert evidence_for_logdir(str(tmp_path)) == NO_EVIDENCE
    meta.write_bytes(w.meta_properties({"version": "1", "node.id": "1", "cluster.id": "c"}))
    assert evidence_for_logdir(str(tmp_path)) == NO_EVIDENCE
    meta.unlink()
    assert evidence_for_logdir(str(tmp_path)) == NO_EVIDENCE
    # a KRaft metadata log in the log dir wins over meta.properties
    meta.write_bytes(w.meta_properties(ZK))
    ml = w.MetadataLogWriter(tmp_path / "__cluster_metadata-0")
    ml.append([w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                        "featureLevel": 31})])
    ml.close()
    assert evidence_for_logdir(str(tmp_path)) == Evidence(
        "4.4", True, "metadata.version 31 (4.4-IV0) in "
        f"{tmp_path / '__cluster_metadata-0' / '00000000000000000000.log'}")


def test_a_zookeeper_era_transaction_log_prints_3_9s_text(kdump: Any, tmp_path: Path) -> None:
    (tmp_path / "meta.properties").write_bytes(w.meta_properties(ZK))
    key_w, value_w = ks.SPECS["3.9"][("transaction", 0)]
    assert key_w is not None
    values = {"producerId": 1000, "producerEpoch": 2, "transactionTimeoutMs": 60000,
              "transactionStatus": 1, "transactionPartitions": [
                  {"topic": "t", "partitionIds": [0]}],
              "transactionLastUpdateTimestampMs": 1700000000000,
              "transactionStartTimestampMs": 1699999999000}
    pw = w.PartitionWriter(tmp_path / "__transaction_state-0")
    pw.append(w.v2_batch([w.Rec(i16(0) + sw.encode(key_w, {"transactionalId": "tx"}, 0),
                                i16(1) + sw.encode(value_w, values, 1))]))
    pw.close()
    r = kdump("dump", "--print-data-log", "__transaction_state-0", cwd=tmp_path)
    assert (r.rc, r.err) == (0, "")
    (line,) = [x for x in r.lines if " key: " in x]
    assert line.endswith(
        " key: transaction_metadata::transactionalId=tx payload: producerId:1000,"
        "producerEpoch:2,state=Ongoing,partitions=[t-0],txnLastUpdateTimestamp=1700000000000,"
        "txnTimeoutMs=60000")


# ============================================================================ Kafka 4.4


def _unregister_controller(controller_id: int) -> bytes:
    schema = ks.SPECS["4.4"][("metadata", 29)][1]
    return sw.uvarint(1) + sw.uvarint(29) + sw.uvarint(0) + sw.encode(
        schema, {"controllerId": controller_id}, 0)


def _controller_log(root: Path) -> Path:
    ml = w.MetadataLogWriter(root / "__cluster_metadata-0")
    ml.append([w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                        "featureLevel": 33})])
    for cid in (3000, 3001):
        ml.append([w.metadata_record("RegisterControllerRecord", {
            "controllerId": cid, "incarnationId": "AAAAAAAAAAAAAAAAAAAAAQ",
            "zkMigrationReady": False, "endPoints": [
                {"name": "CONTROLLER", "host": f"c{cid}", "port": 9093,
                 "securityProtocol": 0}]})])
    ml.append([_unregister_controller(3001)])
    ml.close()
    return root


def test_dump_of_a_metadata_log_with_unregister_controller_record(
        kdump: Any, tmp_path: Path) -> None:
    _controller_log(tmp_path)
    r = kdump("dump", "--print-data-log", "__cluster_metadata-0", cwd=tmp_path)
    assert (r.rc, r.err) == (0, "")
    payloads = [x.split(" payload: ", 1)[1] for x in r.lines if " payload: " in x]
    assert len(payloads) == 4
    assert payloads[-1] == \
        '{"type":"UNREGISTER_CONTROLLER_RECORD","version":0,"data":{"controllerId":3001}}'
    r = kdump("dump", "--print-data-log", "--format", "json", "__cluster_metadata-0",
              cwd=tmp_path)
    recs = [json.loads(x) for x in r.lines if x.startswith('{"type":"record"')]
    assert recs[-1]["decoded"]["value"] == {"type": "UNREGISTER_CONTROLLER_RECORD", "version": 0,
                                            "data": {"controllerId": 3001}}
    assert "decode_error" not in recs[-1]
    # named 4.3: a record of a later release, said
    r = kdump("dump", "--print-data-log", "--format", "json", "--kafka-version", "4.3",
              "__cluster_metadata-0", cwd=tmp_path)
    recs = [json.loads(x) for x in r.lines if x.startswith('{"type":"record"')]
    assert recs[-1]["decode_error"] == ("UnregisterControllerRecord version 0 is from Kafka 4.4, "
                                        "newer than --kafka-version 4.3")


def test_metadata_replays_unregister_controller_record(kdump: Any, tmp_path: Path) -> None:
    """ClusterDelta.replay(UnregisterControllerRecord) (4.4) drops the registration."""
    _controller_log(tmp_path)
    r = kdump("metadata", ".", "--format", "json", cwd=tmp_path)
    assert r.rc == 0, r.err
    objs = [json.loads(x) for x in r.lines if x.startswith("{")]
    assert [(o["id"], o["registered"]) for o in objs if o["type"] == "controller"] == [
        (3000, True)]
    r = kdump("metadata", ".", "--format", "json", "--at-offset", "2", cwd=tmp_path)
    objs = [json.loads(x) for x in r.lines if x.startswith("{")]
    assert [(o["id"], o["registered"]) for o in objs if o["type"] == "controller"] == [
        (3000, True), (3001, True)]


@pytest.mark.parametrize(("stored", "failed"), [(-1, -1), (5, -1), (-1, 4), (7, 6)])
def test_streams_group_metadata_of_kafka_4_4(stored: int, failed: int) -> None:
    """StreamsGroupMetadataValue's Stored/FailedDescriptionTopologyEpoch (4.4, tags 2 and
    3, default -1): printed when not -1; named as newer than a 4.3 named."""
    key_w, value_w = ks.SPECS["4.4"][("group", 17)]
    assert key_w is not None
    values = {"epoch": 3, "metadataHash": 42, "storedDescriptionTopologyEpoch": stored,
              "failedDescriptionTopologyEpoch": failed}
    key = i16(17) + sw.encode(key_w, {"groupId": "app"}, 0)
    value = i16(0) + sw.encode(value_w, values, 0)
    data: dict[str, Any] = {"epoch": 3, "metadataHash": 42}
    if stored != -1:
        data["storedDescriptionTopologyEpoch"] = stored
    if failed != -1:
        data["failedDescriptionTopologyEpoch"] = failed
    out = ConsumerOffsetsDecoder(exact("4.4")).decode(key, value, 0)
    assert (out.value_text, out.error) == (json_text({"version": "0", "data": data}), None)
    newer = [f"StreamsGroupMetadataValue holds {name}, a field of Kafka 4.4+, newer than "
             "--kafka-version 4.3" for name, v in (("storedDescriptionTopologyEpoch", stored),
                                                    ("failedDescriptionTopologyEpoch", failed))
             if v != -1]
    out = ConsumerOffsetsDecoder(exact("4.3")).decode(key, value, 0)
    assert out.value_text == json_text({"version": "0", "data": data})
    assert out.error == ("; ".join(newer) or None)


def test_a_3_9_share_group_partition_metadata_is_the_groups_share_state() -> None:
    """Kafka 3.9's type 9 (initialized and deleting topics) is what 4.0 calls type 15:
    the share group's state partitions, in the groups digest (dump --summary, lag)."""
    from kdump.ops.offsets_digest import OffsetsDigest

    key_w, value_w = ks.SPECS["3.9"][("group", 9)]
    meta_key, meta_value = ks.SPECS["3.9"][("group", 11)]
    assert key_w is not None and meta_key is not None
    dec = ConsumerOffsetsDecoder(exact("3.9"))
    digest = OffsetsDigest()
    for key, value in (
            (i16(11) + sw.encode(meta_key, {"groupId": "sg"}, 0),
             i16(0) + sw.encode(meta_value, {"epoch": 2}, 0)),
            (i16(9) + sw.encode(key_w, {"groupId": "sg"}, 0),
             i16(0) + sw.encode(value_w, {"initializedTopics": [
                 {"topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "topicName": "orders",
                  "partitions": [1, 0]}], "deletingTopics": [
                 {"topicId": "AAAAAAAAAAAAAAAAAAAAAg", "topicName": "old"}]}, 0))):
        out = dec.decode(key, value, 0)
        assert out.error is None
        digest.add(out.key_json, out.value_json)
    (row,) = digest.group_rows()
    assert (row["group_type"], row["share_partitions"]) == ("share", {
        "initialized": [{"topic_id": "AAAAAAAAAAAAAAAAAAAAAQ", "topic": "orders",
                         "partitions": [0, 1]}],
        "initializing": [],
        "deleting": [{"topic_id": "AAAAAAAAAAAAAAAAAAAAAg", "topic": "old"}]})


def test_kafka_4_4_prints_the_transaction_state_by_name(kdump: Any, tmp_path: Path) -> None:
    """DumpLogSegments 4.4 (TransactionLogMessageParser.valueAsJson) puts
    TransactionState.fromId(id).stateName() in place of transactionStatus, the id as a
    string when no state has it; 4.1-4.3 print the id; JSON output keeps the id."""
    key_w, value_w = ks.SPECS["4.4"][("transaction", 0)]
    assert key_w is not None
    key = i16(0) + sw.encode(key_w, {"transactionalId": "tx"}, 0)
    values = {"producerId": 7, "producerEpoch": 1, "transactionTimeoutMs": 60000,
              "transactionStatus": 3, "transactionPartitions": [],
              "transactionLastUpdateTimestampMs": 5, "transactionStartTimestampMs": 4}
    data = sw.expected_json(value_w, values, 1)
    for status, shown in ((3, "PrepareAbort"), (9, "9")):
        value = i16(1) + sw.encode(value_w, {**values, "transactionStatus": status}, 1)
        want = {"version": "1", "data": {**data, "transactionStatus": status}}
        out = TransactionLogDecoder(exact("4.4")).decode(key, value, 0)
        assert out.value_text == json_text(
            {"version": "1", "data": {**data, "transactionStatus": shown}})
        assert out.value_json == want
        assert TransactionLogDecoder(exact("4.3")).decode(key, value, 0).value_text == \
            json_text(want)
    assert '"transactionStatus":"PrepareAbort","transactionPartitions"' in (
        TransactionLogDecoder(exact("4.4")).decode(
            key, i16(1) + sw.encode(value_w, values, 1), 0).value_text or "")
    pw = w.PartitionWriter(tmp_path / "__transaction_state-0")
    pw.append(w.v2_batch([w.Rec(key, i16(1) + sw.encode(value_w, values, 1))]))
    pw.close()
    r = kdump("dump", "--print-data-log", "--kafka-version", "4.4", "__transaction_state-0",
              cwd=tmp_path)
    assert r.rc == 0, r.err
    (line,) = [x for x in r.lines if " key: " in x]
    assert line.endswith(' key: {"type":"0","data":{"transactionalId":"tx"}} payload: '
                         + json_text({"version": "1", "data": {
                             **data, "transactionStatus": "PrepareAbort"}}))
