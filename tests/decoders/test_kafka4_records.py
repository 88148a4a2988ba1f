"""Kafka 3.9-4.4 records: every type and version of every release line decodes exactly,
the 4.0 and 4.1 share-group layouts are told apart from the evidence, unknown types and
versions are named (issue #23).

Records are encoded by tests/support/message_writer.py from tests/support/kafka4_specs.py, descriptions
written separately from kdump's definitions; kdump must give exactly what Kafka's JSON
converters give for the values encoded.
"""

from __future__ import annotations

import base64
import json
import random
import struct
from pathlib import Path
from typing import Any

import pytest

from kdump.decoders.base import Decoded
from kdump.decoders.cluster_metadata import ClusterMetadataDecoder
from kdump.decoders.consumer_offsets import ConsumerOffsetsDecoder
from kdump.decoders.release import (
    NO_EVIDENCE,
    Evidence,
    check_release,
    evidence_for_logdir,
    read_layout,
)
from kdump.decoders.share_group_state import ShareGroupStateDecoder
from kdump.decoders.transaction_log import TRANSACTION_STATES, TransactionLogDecoder
from kdump.protocol.control import decode_control_value
from kdump.protocol.definitions import RELEASES, definitions, schema_table
from kdump.protocol.messages import SchemaError, json_text
from tests.support import kafka4_specs as ks
from tests.support import message_writer as sw
from tests.support import writer as w


def i16(v: int) -> bytes:
    return struct.pack(">h", v)


def exact(release: str) -> Evidence:
    return Evidence(release, False, f"--kafka-version {release}")




# ============================================================================ the tables


def test_kdump_defines_every_record_of_every_release() -> None:
    assert RELEASES == ks.RELEASES
    for release, table in ks.SPECS.items():
        for family in ("group", "share", "transaction"):
            keys = schema_table(family, "key", release)
            values = schema_table(family, "value", release)
            assert sorted(keys) == sorted(values) == ks.coordinator_types(release, family), \
                (release, family)
            for t in keys:
                key_w, value_w = table[(family, t)]
                assert key_w is not None
                assert (values[t].v_valid.lo, values[t].v_valid.hi) == value_w.valid
                assert (keys[t].v_valid.lo, keys[t].v_valid.hi) == key_w.valid
        for family in ("metadata", "control"):
            records = schema_table(family, "record", release)
            assert sorted(records) == ks.coordinator_types(release, family), (release, family)
            for t, s in records.items():
                want = table[(family, t)][1]
                # a release line defines the versions it reads; kdump's table is the newest
                assert s.v_valid.lo == want.valid[0] and s.v_valid.hi >= want.valid[1]


def test_every_layout_names_its_releases() -> None:
    for d in definitions():
        assert d.releases.lo in RELEASES
        assert d.releases.hi is None or d.releases.hi in RELEASES
        for v, rel in d.introduced:
            assert v in d.schema.v_valid and rel in RELEASES
    # where two layouts of one type share a version, their releases do not overlap
    by_type: dict[tuple[str, str, int], list[Any]] = {}
    for d in definitions():
        by_type.setdefault((d.family, d.role, d.record_type), []).append(d)
    shared = {k: v for k, v in by_type.items() if len(v) > 1}
    assert sorted(shared) == [("group", "value", 0), ("group", "value", 9), ("group", "value", 11),
                              ("group", "value", 15), ("share", "value", 0), ("share", "value", 1)]
    for defs in shared.values():
        for a in defs:
            for b in defs:
                if a is not b:
                    assert not any(r in b.releases for r in RELEASES if r in a.releases)


# ============================================================================ round trips


def _coordinator_cases() -> list[tuple[str, str, int, int, int]]:
    out = []
    for release, table in ks.SPECS.items():
        for (family, t), (_key_w, value_w) in sorted(table.items()):
            if family not in ("group", "share", "transaction"):
                continue
            for v in value_w.versions():
                for seed in range(3):
                    out.append((release, family, t, v, seed))
    return out


_DECODERS = {"group": ConsumerOffsetsDecoder, "share": ShareGroupStateDecoder,
             "transaction": TransactionLogDecoder}


def _encode_coordinator(release: str, family: str, t: int, v: int, seed: int
                        ) -> tuple[bytes, bytes, dict[str, Any], dict[str, Any]]:
    key_w, value_w = ks.SPECS[release][(family, t)]
    assert key_w is not None
    rng = random.Random(f"{release}/{family}/{t}/{v}/{seed}")
    k = sw.sample(key_w, rng, 0)
    val = sw.sample(value_w, rng, v)
    ks.fix_enums(family, t, val)
    if "protocolType" in val:
        val["protocolType"] = "connect"  # consumer groups get their members expanded
    if family == "transaction" and val["transactionPartitions"] is None:
        val["transactionStatus"] = 0  # Empty: the only state whose partitions may be null
    unknown = [(60, b"\x07")] if seed == 2 else None
    key = i16(t) + sw.encode(key_w, k, 0)
    value = i16(v) + sw.encode(value_w, val, v, unknown_tags=unknown)
    return key, value, sw.expected_json(key_w, k, 0), sw.expected_json(value_w, val, v)


@pytest.mark.parametrize(("release", "family", "record_type", "version", "seed"),
                         _coordinator_cases())
def test_coordinator_record_round_trip(release: str, family: str, record_type: int,
                                       version: int, seed: int) -> None:
    key, value, key_data, value_data = _encode_coordinator(release, family, record_type,
                                                           version, seed)
    for evidence in (exact(release), NO_EVIDENCE):
        out = _DECODERS[family](evidence).decode(key, value, 7)
        assert out.error is None, (evidence, out.error)
        if family == "transaction":
            assert isinstance(out.value_json, dict) and out.value_json["data"] == value_data
            assert isinstance(out.key_json, dict) and out.key_json["data"] == key_data
            if evidence.release is not None and release not in ("3.9", "4.0"):  # 4.1+: JSON
                assert out.key_text == json_text({"type": "0", "data": key_data})
                shown = value_data
                if release == "4.4":  # DumpLogSegments 4.4 names the state
                    shown = {**value_data, "transactionStatus": TRANSACTION_STATES[
                        value_data["transactionStatus"]]}
                assert out.value_text == json_text({"version": str(version), "data": shown})
            continue
        label = "type" if family == "share" and release == "4.0" else "version"
        want_key = {"type": str(record_type), "data": key_data}
        want_value = {label: str(version), "data": value_data}
        assert (out.key_text, out.value_text) == (json_text(want_key), json_text(want_value))
        assert (out.key_json, out.value_json) == (want_key, want_value)
        candidates = [d for d in definitions(family) if d.role == "value"
                      and d.record_type == record_type and version in d.schema.v_valid]
        (layout,) = [d for d in candidates if release in d.releases]
        if len(candidates) == 1:
            assert out.note is None
        elif evidence.release is not None:
            assert out.note == f"read as {layout.label}, by --kafka-version {release}"
        elif out.note is not None:  # the layouts gave different fields: the one that fits
            assert out.note.startswith(f"read as {layout.label}, the layout that fits (")


def _kraft_cases() -> list[tuple[str, str, int, int, int]]:
    out = []
    for release, table in ks.SPECS.items():
        for (family, t), (_, schema) in sorted(table.items()):
            if family in ("metadata", "control"):
                versions = schema.versions() if family == "metadata" else range(1)
                out += [(release, family, t, v, seed) for v in versions for seed in range(3)]
    return out


@pytest.mark.parametrize(("release", "family", "record_type", "version", "seed"), _kraft_cases())
def test_kraft_record_round_trip(release: str, family: str, record_type: int, version: int,
                                 seed: int) -> None:
    schema = ks.SPECS[release][(family, record_type)][1]
    rng = random.Random(f"{release}/{family}/{record_type}/{version}/{seed}")
    values = sw.sample(schema, rng, version)
    unknown = [(90, b"\x01")] if seed == 2 else None
    if family == "control":
        values["version"] = version
        body = sw.encode(schema, values, version, unknown_tags=unknown)
        assert decode_control_value(record_type, body) == sw.expected_json(schema, values, version)
        return
    body = sw.encode(schema, values, version, unknown_tags=unknown)
    value = sw.uvarint(1) + sw.uvarint(record_type) + sw.uvarint(version) + body
    for evidence in (exact(release), NO_EVIDENCE):
        dec = ClusterMetadataDecoder(evidence)
        dec.show_secrets = True  # every field compared, secrets too (redaction: hostile/test_bounded.py)
        out = dec.decode(None, value, 3)
        want = {"type": schema.type_name, "version": version,
                "data": sw.expected_json(schema, values, version)}
        assert out == Decoded(None, json_text(want), None, want), evidence


# ============================================================================ 4.0 / 4.1 layouts


def _share_snapshot(release: str, **over: Any) -> tuple[bytes, bytes, dict[str, Any]]:
    key_w, value_w = ks.SPECS[release][("share", 0)]
    assert key_w is not None
    k = {"groupId": "g", "topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "partition": 3}
    v = {"snapshotEpoch": 1, "stateEpoch": 2, "leaderEpoch": 3, "startOffset": 100,
         "createTimestamp": 1700000000000, "writeTimestamp": 1700000000500,
         "stateBatches": [{"firstOffset": 100, "lastOffset": 109, "deliveryState": 2,
                           "deliveryCount": 1}], **over}
    return (i16(0) + sw.encode(key_w, k, 0), i16(0) + sw.encode(value_w, v, 0),
            sw.expected_json(value_w, v, 0))


def test_share_layouts_are_told_apart_by_the_one_that_fits() -> None:
    key, v40, d40 = _share_snapshot("4.0")
    out = ShareGroupStateDecoder().decode(key, v40, 5)
    assert out.value_text == json_text({"type": "0", "data": d40})
    assert out.error is None
    assert out.note == ("read as ShareSnapshotValue (Kafka 4.0), the layout that fits "
                        "(ShareSnapshotValue (Kafka 4.1+): non-nullable field stateBatches was "
                        "serialized as null)")
    key, v41, d41 = _share_snapshot("4.1")
    out = ShareGroupStateDecoder().decode(key, v41, 6)
    assert out.value_text == json_text({"version": "0", "data": d41})
    assert out.error is None and out.note is not None
    assert out.note.startswith("read as ShareSnapshotValue (Kafka 4.1+), the layout that fits "
                               "(ShareSnapshotValue (Kafka 4.0): ")
    # the 4.1 record read with 4.0's layout (what kdump did before) is garbage
    wrong = ShareGroupStateDecoder(exact("4.0")).decode(key, v41, 6)
    assert wrong.value_text is None and wrong.error == (
        "Error at offset 6, skipping. Could not read record with version 0 from value's buffer "
        "due to: non-nullable field stateBatches was serialized as null (read as "
        "ShareSnapshotValue (Kafka 4.0)).")


def test_share_layout_from_the_kafka_version() -> None:
    key, v41, d41 = _share_snapshot("4.2", deliveryCompleteCount=7)
    out = ShareGroupStateDecoder(exact("4.2")).decode(key, v41, 1)
    assert out.value_text == json_text({"version": "0", "data": d41})
    assert d41["deliveryCompleteCount"] == 7
    assert out.note == "read as ShareSnapshotValue (Kafka 4.1+), by --kafka-version 4.2"
    assert out.error is None


def test_a_record_fitting_two_layouts_says_so_and_keeps_its_bytes() -> None:
    """ShareGroupMetadataValue: 4.0 {epoch}, 4.1 {epoch, metadataHash}.  A hash whose bytes
    read, in 4.0's layout, as one tagged field of 6 bytes fits both."""
    key = i16(11) + sw.encode(ks.SPECS["4.1"][("group", 11)][0], {"groupId": "g"}, 0)  # type: ignore[arg-type]
    body = struct.pack(">i", 5) + bytes([1, 0, 6, 9, 9, 9, 9, 9]) + b"\x00"
    out = ConsumerOffsetsDecoder().decode(key, i16(0) + body, 9)
    metadata_hash = int.from_bytes(bytes([1, 0, 6, 9, 9, 9, 9, 9]), "big")
    assert out.value_text == json_text({"version": "0",
                                        "data": {"epoch": 5, "metadataHash": metadata_hash}})
    assert out.error == (
        "ambiguous: the record fits ShareGroupMetadataValue (Kafka 3.9-4.0), ShareGroupMetadataValue "
        "(Kafka 4.1+) with different fields; shown as ShareGroupMetadataValue (Kafka 4.1+), raw "
        "bytes kept; give --kafka-version to choose")
    assert isinstance(out.value_json, dict)
    assert out.value_json["raw"] == base64.b64encode(i16(0) + body).decode()
    out40 = ConsumerOffsetsDecoder(exact("4.0")).decode(key, i16(0) + body, 9)
    assert out40.value_text == json_text({"version": "0", "data": {"epoch": 5}})
    assert out40.error is None


def test_a_record_fitting_no_layout_keeps_its_bytes() -> None:
    key, v40, _ = _share_snapshot("4.0")
    out = ShareGroupStateDecoder().decode(key, v40[:-3], 5)
    assert out.value_text is None and out.key_text is not None
    assert out.key_text.startswith(
        "Error at offset 5, skipping. Could not read record with version 0 from value's buffer "
        "due to: fits none of the layouts: ShareSnapshotValue (Kafka 4.0): ")
    assert out.value_json == {"type": "0", "raw": base64.b64encode(v40[:-3]).decode()}


def test_read_layout_prefers_valid_enum_values() -> None:
    _key_w, value_w = ks.SPECS["4.0"][("share", 1)]
    body = sw.encode(value_w, {"snapshotEpoch": 1, "leaderEpoch": 2, "startOffset": 3,
                               "stateBatches": [{"firstOffset": 3, "lastOffset": 4,
                                                 "deliveryState": 3, "deliveryCount": 1}]}, 0)
    r = read_layout("share", "value", 1, 0, body)
    assert r.layout is not None and r.layout.releases.hi == "4.0"
    assert r.doubt == ("the record fits no layout exactly; shown as ShareUpdateValue (Kafka 4.0): "
                       "stateBatches.deliveryState 3 is not one of [0, 1, 2, 4]")


# ============================================================================ unknown types


def test_unknown_types_and_versions_are_named() -> None:
    d = ConsumerOffsetsDecoder()
    out = d.decode(i16(24) + b"\x00\x01g", i16(0), 40)
    assert out.key_text == "Unknown record type 24 at offset 40, skipping."
    assert out.error == ("unknown record type 24 of __consumer_offsets, value version 0: not a "
                         "type of Kafka 3.9-4.4 (known: 0-17, 19-23); raw bytes kept")
    out = ShareGroupStateDecoder().decode(i16(2) + b"\x00\x01g", None, 41)
    assert out.error == ("unknown record type 2 of __share_group_state: not a type of Kafka "
                         "3.9-4.4 (known: 0-1); raw bytes kept")
    key = i16(3) + b"\x00\x01g"
    out = d.decode(key, i16(1) + b"\x00\x00\x00\x01\x00", 42)
    assert out.key_text == "Error at offset 42, skipping. Found an unknown record version 1 for 3 type"
    assert out.error == ("ConsumerGroupMetadataValue version 1 is not a version of Kafka 3.9-4.4 "
                         "(known: 0); raw bytes kept")
    value = bytes([1, 30, 0]) + b"\x00"
    out = ClusterMetadataDecoder().decode(None, value, 43)
    assert out.value_text == ("Error at 43, skipping. org.apache.kafka.common.errors."
                              "UnsupportedVersionException: Unknown metadata id 30")
    assert out.error == out.value_text + (" (metadata record type 30, version 0: not a type of "
                                          "Kafka 3.9-4.4; raw bytes kept)")
    assert out.value_json == {"apiKey": 30, "version": 0, "raw": base64.b64encode(value).decode()}


def test_a_type_the_named_release_does_not_write_is_said() -> None:
    key_w, value_w = ks.SPECS["4.1"][("group", 17)]
    assert key_w is not None
    key = i16(17) + sw.encode(key_w, {"groupId": "s"}, 0)
    value = i16(0) + sw.encode(value_w, {"epoch": 1, "metadataHash": 2}, 0)
    out = ConsumerOffsetsDecoder(exact("4.0")).decode(key, value, 1)
    assert out.value_text == '{"version":"0","data":{"epoch":1,"metadataHash":2}}'
    assert out.error == ("record type 17 (StreamsGroupMetadataKey) is written by Kafka 4.1+, not "
                         "by Kafka 4.0 (--kafka-version 4.0)")


def test_a_version_newer_than_the_named_release_is_said() -> None:
    schema = ks.SPECS["4.3"][("metadata", 0)][1]
    values = sw.sample(schema, random.Random(1), 4)
    value = bytes([1, 0, 4]) + sw.encode(schema, values, 4)
    out = ClusterMetadataDecoder(exact("4.2")).decode(None, value, 1)
    assert out.error == ("RegisterBrokerRecord version 4 is from Kafka 4.3, newer than "
                         "--kafka-version 4.2")
    assert json.loads(out.value_text or "")["data"] == sw.expected_json(schema, values, 4)


# ============================================================================ evidence


def _feature_level(level: int) -> bytes:
    return w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                    "featureLevel": level})


def _share_logdir(root: Path, level: int | None, release: str) -> Path:
    if level is not None:
        ml = w.MetadataLogWriter(root / "__cluster_metadata-0")
        ml.append([_feature_level(level)])
        ml.close()
    key, value, _ = _share_snapshot(release)
    pw = w.PartitionWriter(root / "__share_group_state-0")
    pw.append(w.v2_batch([w.Rec(key, value)]))
    pw.close()
    return root


def test_evidence_from_the_metadata_version(tmp_path: Path) -> None:
    _share_logdir(tmp_path, 27, "4.1")
    ev = evidence_for_logdir(str(tmp_path))
    assert ev == Evidence("4.1", True, "metadata.version 27 (4.1-IV1) in "
                          f"{tmp_path / '__cluster_metadata-0' / '00000000000000000000.log'}")
    assert evidence_for_logdir(str(tmp_path / "nowhere")) == NO_EVIDENCE


def test_evidence_from_a_3x_metadata_version_is_none(tmp_path: Path) -> None:
    _share_logdir(tmp_path, 21, "4.0")
    assert evidence_for_logdir(str(tmp_path)) == NO_EVIDENCE


def test_dump_uses_the_log_dirs_metadata_version(kdump: Any, tmp_path: Path) -> None:
    _share_logdir(tmp_path, 26, "4.1")
    r = kdump("dump", "--format", "json", "--print-data-log", "__share_group_state-0",
              cwd=tmp_path)
    assert r.rc == 0, r.err
    rec = [json.loads(line) for line in r.lines if '"type":"record"' in line.replace(" ", "")]
    assert len(rec) == 1
    assert rec[0]["decoded"]["layout"] == (
        "read as ShareSnapshotValue (Kafka 4.1+), by metadata.version 26 (4.1-IV0) in "
        "__cluster_metadata-0/00000000000000000000.log")
    assert rec[0]["decoded"]["value"]["version"] == "0"
    assert "decode_error" not in rec[0]


def test_dump_kafka_version_option(kdump: Any, tmp_path: Path) -> None:
    _share_logdir(tmp_path, None, "4.0")
    r = kdump("dump", "--print-data-log", "--kafka-version", "4.0", "__share_group_state-0",
              cwd=tmp_path)
    assert r.rc == 0, r.err
    payload = [line for line in r.lines if " key: " in line]
    assert len(payload) == 1 and ' payload: {"type":"0","data":{"snapshotEpoch":1,' in payload[0]
    r = kdump("dump", "--print-data-log", "--kafka-version", "3.8", "__share_group_state-0",
              cwd=tmp_path)
    assert r.rc == 2
    assert "unsupported Kafka version '3.8': kdump reads the record layouts of Kafka 3.9, 4.0, " \
           "4.1, 4.2, 4.3, 4.4" in r.err


def test_a_field_newer_than_the_named_release_is_said() -> None:
    key_w, value_w = ks.SPECS["4.1"][("group", 3)]
    assert key_w is not None
    key = i16(3) + sw.encode(key_w, {"groupId": "g"}, 0)
    value = i16(0) + sw.encode(value_w, {"epoch": 4, "metadataHash": 99}, 0)
    out = ConsumerOffsetsDecoder(exact("4.0")).decode(key, value, 1)
    assert out.value_text == '{"version":"0","data":{"epoch":4,"metadataHash":99}}'
    assert out.error == ("ConsumerGroupMetadataValue holds metadataHash, a field of Kafka 4.1+, "
                         "newer than --kafka-version 4.0")
    assert ConsumerOffsetsDecoder(exact("4.1")).decode(key, value, 1).error is None


def test_evidence_from_the_bootstrap_checkpoint(tmp_path: Path) -> None:
    snapshot = (
        w.kraft_control_batch([(w.CONTROL_SNAPSHOT_HEADER, w.snapshot_header_value(w.DEFAULT_TIMESTAMP))])
        + w.v2_batch([w.Rec(None, _feature_level(29))], base_offset=1)
        + w.kraft_control_batch([(w.CONTROL_SNAPSHOT_FOOTER, w.snapshot_footer_value())],
                                base_offset=2))
    (tmp_path / "bootstrap.checkpoint").write_bytes(snapshot)
    assert evidence_for_logdir(str(tmp_path)) == Evidence(
        "4.2", True, f"metadata.version 29 (4.2-IV1) in {tmp_path / 'bootstrap.checkpoint'}")
    # a level newer than kdump knows: at least its newest release
    (tmp_path / "bootstrap.checkpoint").write_bytes(
        w.v2_batch([w.Rec(None, _feature_level(34))]))
    assert evidence_for_logdir(str(tmp_path)).release == "4.4"


def test_kafka_version_values() -> None:
    assert check_release("4.1") == "4.1"
    assert check_release("4.2.1") == "4.2"
    assert check_release("3.9") == "3.9"
    assert check_release("4.5") == "4.5"  # a later release: read with the newest layouts
    for bad in ("3.8", "4", "four", "4.1.x", ""):
        with pytest.raises(SchemaError):
            check_release(bad)
    key, v41, _ = _share_snapshot("4.1")
    assert ShareGroupStateDecoder(exact("4.5")).decode(key, v41, 0).note == (
        "read as ShareSnapshotValue (Kafka 4.1+), by --kafka-version 4.5")


def test_an_unstable_version_is_read_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    """No 3.9-4.4 on-disk record is latestVersionUnstable; the notation can say so, and a
    record read with such a version says it."""
    from kdump.decoders import release
    from kdump.protocol import definitions as defs

    parsed = defs._Parser("""
## group group-coordinator/src/main/resources/common/message
value 3 ConsumerGroupMetadataValue v0-1 flex0+ 4.3+ v1@4.3 unstable@4.3
  Epoch:int32
  Extra:int32 v1+
""").parse()
    assert [(d.unstable_in, d.version_introduced(1)) for d in parsed] == [("4.3", "4.3")]
    monkeypatch.setitem(release._BY_KEY, ("group", "value", 3), tuple(parsed))
    monkeypatch.setattr(release, "_PLANS", {})
    key = i16(3) + b"\x00\x01g"
    out = ConsumerOffsetsDecoder().decode(key, i16(1) + struct.pack(">ii", 4, 5) + b"\x00", 0)
    assert out.value_text == '{"version":"1","data":{"epoch":4,"extra":5}}'
    assert out.error is None and out.note == (
        "ConsumerGroupMetadataValue version 1 is unstable in Kafka 4.3 (written only with "
        "unstable features enabled)")
    out = ConsumerOffsetsDecoder().decode(key, i16(0) + struct.pack(">i", 4) + b"\x00", 0)
    assert out.value_text == '{"version":"0","data":{"epoch":4}}' and out.note is None


def test_evidence_reads_the_newest_snapshot_and_the_segments_after_it(tmp_path: Path) -> None:
    d = tmp_path / "__cluster_metadata-0"
    ml = w.MetadataLogWriter(d)
    ml.append([_feature_level(22)])   # offset 0: in a segment the snapshot covers
    ml.roll()
    ml.append([_feature_level(30)])   # offset 1: a stale segment (before the snapshot)
    ml.roll()
    ml.append([_feature_level(24)])   # offset 2: the segment holding the snapshot's offset
    ml.append([w.metadata_record("NoOpRecord", {})])
    ml.roll()
    ml.append([_feature_level(26)])   # offset 4: after the snapshot
    ml.close()
    snapshot = (
        w.kraft_control_batch([(w.CONTROL_SNAPSHOT_HEADER, w.snapshot_header_value(0))])
        + w.v2_batch([w.Rec(None, _feature_level(25))], base_offset=1)
        + w.kraft_control_batch([(w.CONTROL_SNAPSHOT_FOOTER, w.snapshot_footer_value())],
                                base_offset=2))
    (d / "00000000000000000003-0000000001.checkpoint").write_bytes(snapshot)
    seg1 = d / "00000000000000000001.log"
    ev = evidence_for_logdir(str(tmp_path))
    assert ev.release == "4.1" and ev.source.startswith("metadata.version 26 (4.1-IV0) in ")
    # the stale segment (level 30) was not read: drop the last segment, the snapshot wins
    (d / "00000000000000000004.log").unlink()
    ev = evidence_for_logdir(str(tmp_path))
    assert ev.source.startswith("metadata.version 24 (4.0-IV2) in ") and seg1.exists()


def test_evidence_on_a_remote_log_dir(kdump: Any, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The same metadata.version evidence from an S3 copy of the log dir (moto server)."""
    from tests.support import s3server

    server = s3server.start_or_skip(tmp_path / "moto")
    try:
        from kdump import fs as kfs

        root = tmp_path / "logdir"
        _share_logdir(root, 27, "4.1")
        url = server.upload(root, "k4/logdir")
        for k, v in server.env().items():
            monkeypatch.setenv(k, v)
        kfs.clear_cache()
        assert evidence_for_logdir(url) == Evidence(
            "4.1", True, f"metadata.version 27 (4.1-IV1) in {url}/__cluster_metadata-0/"
                         "00000000000000000000.log")
        r = kdump("dump", "--format", "json", "--print-data-log", f"{url}/__share_group_state-0")
        assert r.rc == 0, r.err
        recs = [json.loads(line) for line in r.lines if line.startswith('{"type":"record"')]
        assert [x["decoded"]["layout"] for x in recs] == [
            f"read as ShareSnapshotValue (Kafka 4.1+), by metadata.version 27 (4.1-IV1) in "
            f"{url}/__cluster_metadata-0/00000000000000000000.log"]
    finally:
        kfs.clear_cache()
        server.stop()


def test_dump_jobs_give_the_same_release_aware_output(kdump: Any, golden_fixture: Any) -> None:
    d = golden_fixture("kafka41")
    one = kdump("dump", "--format", "json", "--print-data-log", "--jobs", "1", ".", cwd=d)
    two = kdump("dump", "--format", "json", "--print-data-log", "--jobs", "2", ".", cwd=d)
    assert one.rc == two.rc == 0 and one.out == two.out
    assert one.out.count('"layout":"read as ') == 4


def test_families_name_their_kafka_sources() -> None:
    from kdump.protocol.definitions import FAMILIES

    assert FAMILIES == {
        "group": "group-coordinator/src/main/resources/common/message",
        "share": "share-coordinator/src/main/resources/common/message",
        "transaction": "transaction-coordinator/src/main/resources/common/message",
        "metadata": "metadata/src/main/resources/common/metadata",
        "control": "clients/src/main/resources/common/message",
    }


def test_garbage_versions_leave_no_plans_behind() -> None:
    from kdump.decoders import release

    before = len(release._PLANS)
    key = i16(0) + b"\x00\x01g" + bytes(16) + b"\x00\x00\x00\x00"
    for version in range(100, 400):
        out = ShareGroupStateDecoder().decode(key, i16(version) + b"\x00", 0)
        assert out.key_text == ("Error at offset 0, skipping. Found an unknown record version "
                                f"{version} for 0 type")
    assert len(release._PLANS) <= before + 1


# ============================================================================ tagged nullable structs
#
# Kafka's generated code (generator/.../MessageDataGenerator.java, 4.0 to trunk) reads a
# nullable struct in the tagged section with readUnsignedVarint() (<= 0: null) at the
# start of the field's payload, and writes it as (tag, size + 1, uvarint 1, struct), or,
# for a null whose default is not null, (tag, 1, uvarint 0); a null whose default is null
# is not written, but a reader meets the (tag, 1, 0) form all the same.  tests/
# message_writer.py writes the same bytes (with write_defaults, the null too).


def _tagged_nullable_structs(fields: Any, path: tuple[tuple[str, bool], ...] = ()
                             ) -> list[tuple[tuple[tuple[str, bool], ...], Any]]:
    """(path of (json name, is an array), field) of every nullable struct field that is
    tagged in some version, at any depth."""
    out = []
    for f in fields:
        here = (*path, (f.json_name, f.is_array))
        if f.is_struct and not f.is_array and not f.v_tagged.empty and not f.v_nullable.empty:
            out.append((here, f))
        if f.fields:
            out += _tagged_nullable_structs(f.fields, here)
    return out


def _tagged_null_cases() -> list[tuple[str, str, int, str, int, str]]:
    """(release, family, record type, role, version, dotted path) for every definition of
    kdump/protocol/definitions.py with a tagged nullable struct, at every version where it
    is tagged and nullable, in every release line that defines that layout."""
    out = []
    for d in definitions():
        for path, f in _tagged_nullable_structs(d.schema.fields):
            for release in RELEASES:
                if release not in d.releases:
                    continue
                spec = ks.SPECS[release][(d.family, d.record_type)][0 if d.role == "key" else 1]
                assert spec is not None
                out += [(release, d.family, d.record_type, d.role, v,
                         ".".join(name for name, _ in path))
                        for v in range(d.schema.v_valid.lo, d.schema.v_valid.hi + 1) if v in spec.versions()
                        and v in f.v_tagged and v in f.v_nullable and v in f.v_present]
    return out


TAGGED_NULL_CASES = _tagged_null_cases()


def test_the_tagged_nullable_structs_are_found() -> None:
    """The check below can fail: it runs on the one such field of Kafka 3.9-4.4's records."""
    assert {(r, f, t, role, v, p) for r, f, t, role, v, p in TAGGED_NULL_CASES} >= {
        (release, "group", 5, "value", 0, "classicMemberMetadata") for release in RELEASES}


def _with_null_at(values: dict[str, Any], path: list[str]) -> bool:
    """Set ``path`` (through structs and the first element of arrays) to None in
    ``values``; False where a struct or array on the way is null or empty."""
    obj: Any = values
    for name in path[:-1]:
        obj = obj.get(name)
        if isinstance(obj, list):
            obj = obj[0] if obj else None
        if not isinstance(obj, dict):
            return False
    obj[path[-1]] = None
    return True


def _read_path(message: dict[str, Any], path: list[str]) -> Any:
    obj: Any = message
    for name in path:
        obj = obj[name]
        if isinstance(obj, list):
            obj = obj[0]
    return obj


@pytest.mark.parametrize(("release", "family", "record_type", "role", "version", "path"),
                         TAGGED_NULL_CASES)
def test_a_tagged_nullable_struct_present_as_null_reads_as_null(
        release: str, family: str, record_type: int, role: str, version: int,
        path: str) -> None:
    from kdump.protocol.messages import read_message, to_json

    key_w, value_w = ks.SPECS[release][(family, record_type)]
    spec = key_w if role == "key" else value_w
    assert spec is not None
    names = path.split(".")
    for seed in range(50):
        values = sw.sample(spec, random.Random(f"{release}/{path}/{version}/{seed}"), version)
        if _with_null_at(values, names):
            break
    else:
        pytest.fail(f"no sample reaches {path}")
    if family != "metadata":
        ks.fix_enums(family, record_type, values)
    present = sw.encode(spec, values, version, write_defaults=True)
    absent = sw.encode(spec, values, version)
    want = sw.expected_json(spec, values, version)
    layout = next(d for d in definitions(family) if d.role == role
                  and d.record_type == record_type and release in d.releases)
    for body in (present, absent):
        message, end = read_message(layout.schema, body, version)
        assert end == len(body)
        assert _read_path(message, names) is None
        assert to_json(layout.schema.fields, message, version) == want
    if family in _DECODERS and role == "value":
        assert key_w is not None
        key = i16(record_type) + sw.encode(key_w, sw.sample(key_w, random.Random(1), 0), 0)
        out = _DECODERS[family](exact(release)).decode(key, i16(version) + present, 7)
        assert out.error is None and isinstance(out.value_json, dict)
        assert out.value_json["data"] == want
    elif family == "metadata":
        frame = sw.uvarint(1) + sw.uvarint(record_type) + sw.uvarint(version)
        meta = ClusterMetadataDecoder(exact(release))
        meta.show_secrets = True
        out = meta.decode(None, frame + present, 3)
        assert out.error is None and out.value_json == {
            "type": spec.type_name, "version": version, "data": want}


def _member_metadata(classic: Any) -> tuple[bytes, bytes]:
    """A Kafka 4.0 ConsumerGroupMemberMetadata record (type 5): key and value."""
    key_w, value_w = ks.SPECS["4.0"][("group", 5)]
    assert key_w is not None
    values = {"instanceId": None, "rackId": "rack-a", "clientId": "consumer-1",
              "clientHost": "/10.0.0.7", "subscribedTopicNames": ["orders"],
              "subscribedTopicRegex": None, "rebalanceTimeoutMs": 300000,
              "serverAssignor": None, "classicMemberMetadata": classic}
    key = i16(5) + sw.encode(key_w, {"groupId": "g1", "memberId": "m-1"}, 0)
    return key, i16(0) + sw.encode(value_w, values, 0)


def test_classic_member_metadata_null_absent_or_present_and_set_through_dump(
        kdump: Any, tmp_path: Path) -> None:
    """Kafka 4.0's ConsumerGroupMemberMetadataValue: ClassicMemberMetadata declares
    ``"default": null``, a JSON null, which Kafka's generator reads as no default
    (FieldSpec's constructor: ``fieldDefault == null ? "" : fieldDefault``), so its
    default is the empty struct.  The generated writer (3.9-4.4) leaves the empty struct
    out and writes a null as present (tag 0, size 1, marker 0:
    ``if (classicMemberMetadata == null || !classicMemberMetadata.equals(new
    ClassicMemberMetadata()))``), and its JsonConverter prints that null.  Dumped as JSON
    and as text from a __consumer_offsets segment."""
    classic = {"sessionTimeoutMs": 45000,
               "supportedProtocols": [{"name": "range", "metadata": b"\x00\x03ab"}]}
    empty = {"sessionTimeoutMs": 0, "supportedProtocols": []}
    records = [_member_metadata(empty), _member_metadata(None), _member_metadata(classic)]
    assert records[1][1] == records[0][1][:-1] + b"\x01\x00\x01\x00"  # the present null
    pw = w.PartitionWriter(tmp_path / "__consumer_offsets-0")
    pw.append(w.v2_batch([w.Rec(k, v) for k, v in records]))
    pw.close()
    data = {"instanceId": None, "rackId": "rack-a", "clientId": "consumer-1",
            "clientHost": "/10.0.0.7", "subscribedTopicNames": ["orders"],
            "subscribedTopicRegex": None, "rebalanceTimeoutMs": 300000, "serverAssignor": None}
    with_null = {**data, "classicMemberMetadata": None}
    with_classic = {**data, "classicMemberMetadata": {
        "sessionTimeoutMs": 45000,
        "supportedProtocols": [{"name": "range", "metadata": base64.b64encode(
            b"\x00\x03ab").decode()}]}}
    r = kdump("dump", "--format", "json", "--print-data-log", "__consumer_offsets-0",
              cwd=tmp_path)
    assert (r.rc, r.err) == (0, "")
    got = [json.loads(line) for line in r.lines if line.startswith('{"type":"record"')]
    assert [g["decoded"]["value"] for g in got] == [
        {"version": "0", "data": data}, {"version": "0", "data": with_null},
        {"version": "0", "data": with_classic}]
    assert all("decode_error" not in g for g in got)
    r = kdump("dump", "--print-data-log", "__consumer_offsets-0", cwd=tmp_path)
    assert r.rc == 0
    payloads = [line.split(" payload: ", 1)[1] for line in r.lines if " payload: " in line]
    assert payloads == [json_text({"version": "0", "data": d})
                        for d in (data, with_null, with_classic)]


def test_an_int8_null_marker_in_the_tagged_section_reads_as_null() -> None:
    """0xff (an int8 -1, the positional marker) as the tagged field's one byte is not what
    Kafka's writer puts there (it writes the uvarint 0), but it is what an encoder
    following the positional rule writes, and it can only mean null (issue 32.4); a
    0xff followed by more bytes of the field is still a varint, read as Kafka reads it."""
    key, value = _member_metadata(None)
    assert value.endswith(b"\x01\x00\x01\x00")
    rogue = value[:-1] + b"\xff"
    kafka = ConsumerOffsetsDecoder(exact("4.0")).decode(key, value, 9)
    out = ConsumerOffsetsDecoder(exact("4.0")).decode(key, rogue, 9)
    assert out.error is None
    assert (out.value_json, out.value_text) == (kafka.value_json, kafka.value_text)
    assert out.value_json["data"]["classicMemberMetadata"] is None  # type: ignore[index]
    # two bytes of the field, the first 0xff: a varint running past the field's end
    longer = value[:-4] + b"\x01\x00\x02\xff\x7f"
    bad = ConsumerOffsetsDecoder(exact("4.0")).decode(key, longer, 9)
    assert bad.error is not None and "Could not read record with version 0" in bad.error
