"""Schema ids need evidence (issue 32): a key or value is Confluent-framed only when the
registry holds its id, the topic has a subject for that side, or a schema-id header names
it (kdump/schemaregistry/framing.py).  ``kdump schemas``, dump's auto decoding and
``kdump report`` share the rule.  With the auto decoders, a key of exactly 8 or 4 bytes
that is not text is a number, said so.

The log dir is the shape of a real one (Confluent's Avro serializer beside Kafka
Streams): 8-byte big-endian keys (LongSerializer: they start with 0x00, as a frame
does), values framed with the registry's id, a Streams changelog whose values start with
their 8-byte timestamp, a topic with a subject whose record names an id the registry
lacks, and text keys of 4 and 8 bytes.  Written with tests/support/registry_writer.py."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

from kdump.decoders.simple import is_text, number_key
from kdump.schemaregistry import storage, wire
from kdump.schemaregistry.framing import (
    CANDIDATE,
    ID,
    NONE,
    PLAIN,
    UNKNOWN,
    Framing,
    FramingRule,
)
from tests.conftest import KdumpRunner
from tests.support import registry_writer as rw
from tests.support import writer as w

pytest.importorskip("fastavro", reason="the schemas extra is not installed")

TS = rw.TS
SCHEMA = {"type": "record", "name": "Purchase", "namespace": "shop",
          "fields": [{"name": "item", "type": "string"}, {"name": "cents", "type": "long"}]}


def _long(n: int) -> bytes:
    return struct.pack(">q", n)


def _records(out: str) -> list[dict[str, Any]]:
    return [o for o in map(json.loads, out.splitlines()) if o.get("type") == "record"]


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("framing")
    b = w.broker_logdir(root / "b1", 1)
    rw.write_partition(b / "_schemas-0", [
        w.Rec(rw.schema_key("purchases-value", 1),
              rw.schema_value("purchases-value", 1, 6, json.dumps(SCHEMA))),
        w.Rec(rw.schema_key("audited-value", 1),
              rw.schema_value("audited-value", 1, 7, json.dumps(SCHEMA)))])
    # keys: LongSerializer; values: KafkaAvroSerializer with id 6
    rw.write_partition(b / "purchases-0", [
        w.Rec(_long(1045 + i), wire.frame(6, rw.avro_bytes(SCHEMA, {"item": f"i{i}",
                                                                   "cents": 100 * i})))
        for i in range(3)])
    # a Streams timestamped store's changelog: 8-byte timestamp, then the raw value
    rw.write_partition(b / "app-store-changelog-0", [
        w.Rec(b"user-%d" % i, _long(TS + i) + b"\x02\x04ab") for i in range(4)])
    # a topic with a subject for its values: an id the registry lacks is framed (unknown)
    rw.write_partition(b / "audited-0", [
        w.Rec(b"k1", wire.frame(7, rw.avro_bytes(SCHEMA, {"item": "x", "cents": 1}))),
        w.Rec(b"k2", wire.frame(77, b"\x02\x04ab"))])
    # IntegerSerializer keys; text keys of 4 and 8 bytes stay text
    rw.write_partition(b / "counters-0", [
        w.Rec(struct.pack(">i", 7), b"seven"), w.Rec(struct.pack(">i", -2), b"minus two"),
        w.Rec(b"abcd", b"text"), w.Rec(b"order-01", b"text"), w.Rec(b"\x00\x00\x00", b"3")])
    return b


def test_text_and_numbers() -> None:
    assert is_text(b"order-01") and is_text(b"tab\there") and is_text("é€".encode())
    assert not is_text(b"\x00\x00\x00\x00") and not is_text(b"\xff\xfe") \
        and not is_text(b"a\x01cd")
    assert number_key(_long(1045)) == ("1045 (int64)", 1045, "8 bytes that are not text, read "
                                       "as a big-endian int64 (Kafka's LongSerializer)")
    assert number_key(struct.pack(">i", -2)) == ("-2 (int32)", -2, "4 bytes that are not text, "
                                                 "read as a big-endian int32 (Kafka's "
                                                 "IntegerSerializer)")
    assert number_key(b"order-01") is None and number_key(b"\x00" * 5) is None
    assert number_key(None) is None


def test_the_rule(logdir: Path) -> None:
    reg = storage.load([str(logdir)])
    rule = FramingRule(reg)
    assert rule.classify("purchases", "value", wire.frame(6, b"\x00"), None).how == ID
    # an 8-byte number key: magic 0 and id 0, which nothing frames
    assert rule.classify("purchases", "key", _long(1045), None) == Framing(CANDIDATE, 0)
    assert not rule.side_framed("purchases", "key", 0)
    assert rule.side_framed("purchases", "value", 0)  # purchases-value is a subject
    assert rule.classify("audited", "value", wire.frame(77, b""), None).how == UNKNOWN
    # a header names the schema: framed, whatever the topic
    assert rule.classify("t", "value", b"\x02ab", wire.frame(77, b"")).how == UNKNOWN
    assert rule.classify("t", "value", b"\x02ab", wire.frame(6, b"")).how == ID
    assert rule.classify("t", "value", b"hello", None).how == PLAIN
    assert rule.classify("t", "value", None, None).how == NONE
    # a subject in a context, and TopicRecordNameStrategy's <topic>-<record name>
    reg.add(storage.SchemaVersion(":.ctx:ctxed-value", 1, 8, "AVRO", "{}", [], None))
    reg.add(storage.SchemaVersion("trn-shop.Purchase", 1, 9, "AVRO", "{}", [], None))
    rule = FramingRule(reg)
    assert rule.has_subject("ctxed", "value") and not rule.has_subject("ctxed", "key")
    assert rule.has_subject("trn", "value") and rule.has_subject("trn", "key")
    assert not rule.has_subject("purchases-archive", "value")


def test_report_and_schemas_share_the_rule(kdump: KdumpRunner, logdir: Path) -> None:
    r = kdump("report", str(logdir), "--format", "json", watch=[logdir])
    objs = [json.loads(x) for x in r.out.splitlines()]
    usage = {o["topic"]: (o["records"], o["keys"], o["values"], o["unknown_ids"], o["not_framed"])
             for o in objs if o["type"] == "schema_usage"}
    assert usage == {
        "app-store-changelog": (4, [], [], [], 4),  # timestamps, not ids
        "audited": (2, [], [[7, 1]], [[77, 1]], 0),  # a subject frames its values
        "counters": (5, [], [], [], 5),
        "purchases": (3, [], [[6, 3]], [], 0),  # the number keys are not framed
    }
    assert [(o["kind"], o["detail"]) for o in objs if o["type"] == "problem"
            and o["kind"].startswith("schema")] == [
        ("schema-id-unknown", "topic audited: 1 record value names schema id 77 (1), which "
         "the registry's storage does not hold")]
    s = kdump("schemas", str(logdir), "--format", "json", watch=[logdir])
    assert s.rc == 0, s.err
    rows = [json.loads(x) for x in s.out.splitlines()]
    assert [(o["subject"], o["id"], o["key_records"], o["value_records"]) for o in rows
            if o["type"] == "schema"] == [("audited-value", 7, 0, 1), ("purchases-value", 6, 0, 3)]


def test_dump_auto_shows_number_keys_with_a_note(kdump: KdumpRunner, logdir: Path) -> None:
    part = logdir / "purchases-0"
    r = kdump("dump", "--print-data-log", str(part), watch=[logdir])
    assert r.rc == 0, r.err
    lines = [x for x in r.out.splitlines() if x.startswith("| offset:")]
    assert [x.split(" key: ", 1)[1] for x in lines] == [
        f'{1045 + i} (int64) payload: {{"item":"i{i}","cents":{100 * i}}}' for i in range(3)]
    j = kdump("dump", "--print-data-log", "--format", "json", str(part))
    recs = _records(j.out)
    assert [(o["key"], o["key_encoding"], o["decoded"]["key"], o["decoded"]["key_note"],
             o["decoded"]["value"]["schema_id"]) for o in recs] == [
        (_long(1045 + i).decode(), "utf8", 1045 + i, "8 bytes that are not text, read as a "
         "big-endian int64 (Kafka's LongSerializer)", 6) for i in range(3)]
    assert all("decode_error" not in o for o in recs)
    # the changelog's values that start like a frame: shown as the string decoder shows
    # them, with no note (no evidence that they are framed)
    c = kdump("dump", "--print-data-log", "--format", "json", str(logdir / "app-store-changelog-0"))
    assert [(o["key"], o.get("decoded"), o.get("decode_error")) for o in _records(c.out)] == [
        (f"user-{i}", None, None) for i in range(4)]
    # a subject frames audited's values: the id the registry lacks is noted
    a = kdump("dump", "--print-data-log", "--format", "json", str(logdir / "audited-0"))
    assert [o.get("decode_error") for o in _records(a.out)] == [
        None, "value: schema id 77 is not in the registry's storage"]


def test_dump_auto_numbers_without_a_registry(kdump: KdumpRunner, logdir: Path,
                                              tmp_path: Path) -> None:
    import shutil

    part = tmp_path / "counters-0"
    shutil.copytree(logdir / "counters-0", part)  # no _schemas beside it
    r = kdump("dump", "--print-data-log", str(part), watch=[tmp_path])
    assert r.rc == 0, r.err
    assert [x.split(" key: ", 1)[1] for x in r.out.splitlines() if x.startswith("| offset:")] \
        == ["7 (int32) payload: seven", "-2 (int32) payload: minus two", "abcd payload: text",
            "order-01 payload: text", "\x00\x00\x00 payload: 3"]
    j = kdump("dump", "--print-data-log", "--format", "json", str(part))
    assert [o.get("decoded") for o in _records(j.out)] == [
        {"key": 7, "key_note": "4 bytes that are not text, read as a big-endian int32 "
         "(Kafka's IntegerSerializer)"},
        {"key": -2, "key_note": "4 bytes that are not text, read as a big-endian int32 "
         "(Kafka's IntegerSerializer)"}, None, None, None]
    # a decoder named by the user is the user's: DumpLogSegments' StringDecoder
    s = kdump("dump", "--print-data-log", "--key-decoder", "string", str(part))
    assert "key: 7 (int32)" not in s.out and "key: \x00\x00\x00\x07 payload: seven" in s.out
