"""Schema-registry payloads decoded offline (kdump/schemaregistry): schemas read from the
registry's ``_schemas`` partition, payloads encoded with fastavro / apache avro /
protobuf-generated classes / json and framed as Confluent's serializers frame them."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from kdump.schemaregistry import storage, wire
from tests.conftest import KdumpRunner
from tests.support import registry_writer as rw
from tests.support import writer as w

pytest.importorskip("fastavro", reason="the schemas extra is not installed")
pytest.importorskip("grpc_tools", reason="the schemas extra is not installed")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return rw.sample_logdir(tmp_path_factory.mktemp("registry"))


def records(out: str) -> list[dict[str, Any]]:
    return [o for o in map(json.loads, out.splitlines()) if o.get("type") == "record"]


def decoded_values(kdump: KdumpRunner, *args: Any, watch: Path) -> list[Any]:
    r = kdump("dump", "--print-data-log", "--format", "json", *args, watch=[watch])
    return [(o.get("decoded"), o.get("decode_error")) for o in records(r.out)]


# --- wire format ---------------------------------------------------------------------------
def test_message_indexes_round_trip_through_the_serializers_encoding() -> None:
    assert wire.message_indexes_bytes([0]) == b"\x00"
    assert wire.message_indexes_bytes([1]) == b"\x02\x02"
    assert wire.message_indexes_bytes([1, 0]) == b"\x04\x02\x00"
    for idx in ([0], [1], [3, 2, 1], [200]):
        buf = b"\xff" + wire.message_indexes_bytes(idx) + b"rest"
        assert wire.read_message_indexes(buf, 1) == (idx, len(buf) - 4)


def test_frames_that_cannot_be_read_are_values_not_exceptions() -> None:
    assert wire.read_id(b"", "payload") == wire.FrameError("empty")
    assert wire.read_id(b"\x00\x00\x01", "payload") == wire.FrameError(
        "3 bytes: too short for the magic byte and a schema id")
    assert wire.read_id(b"{\"a\":1}", "payload") == wire.FrameError(
        "magic byte 0x7b, not 0x00 or 0x01")
    assert wire.read_id(b"\x00\x00\x00\x01\x00data", "payload") == wire.Frame(
        256, None, 5, "payload")
    assert wire.read_message_indexes(b"\x80", 0) == wire.FrameError(
        "message indexes are truncated")
    assert wire.read_message_indexes(b"\xfe\x01", 0) == wire.FrameError(
        "message index count 127 is not plausible")
    # the deprecated format's unsigned varints, read when zigzag does not
    assert wire.read_message_indexes(b"\x01\x03", 0) == ([3], 2)
    assert wire.read_message_indexes(b"\x03\x01\x02\x00", 0) == ([1, 2, 0], 4)


# --- the registry's storage ------------------------------------------------------------------
def test_registry_replays_schemas_with_soft_and_hard_deletes(logdir: Path) -> None:
    reg = storage.load([str(logdir / "orders-0")])
    assert reg.sources == [str(logdir / "_schemas-0")]
    rows = [(v.subject, v.version, v.schema_id, v.schema_type, v.deleted)
            for v in sorted(reg.versions.values(), key=lambda v: v.schema_id)]
    assert rows == [("address", 1, 1, "AVRO", None), ("orders-value", 1, 2, "AVRO", None),
                    ("money", 1, 3, "PROTOBUF", None), ("events-value", 1, 4, "PROTOBUF", None),
                    ("users-value", 1, 5, "JSON", None), ("old-value", 1, 6, "AVRO", "soft"),
                    ("gone-value", 1, 7, "AVRO", "hard")]
    assert reg.problems == []


# --- dump --------------------------------------------------------------------------------------
def test_avro_payloads_dump_as_json_with_their_schema(kdump: KdumpRunner, logdir: Path) -> None:
    got = decoded_values(kdump, logdir / "orders-0", watch=logdir)
    assert got[0] == ({"value": {
        "format": "avro", "schema_id": 2, "guid": None, "subject": "orders-value", "version": 1,
        "deleted": None, "message": None,
        "data": {"id": 0, "customer": "c0", "amount": "0.50", "at": "2024-01-02T03:04:05+00:00",
                 "note": "gift", "address": {"city": "Oslo"}}}}, None)
    assert got[1][0]["value"]["data"]["note"] is None and len(got) == 3


def test_text_output_prints_the_decoded_json_as_the_payload(kdump: KdumpRunner,
                                                            logdir: Path) -> None:
    r = kdump("dump", "--print-data-log", logdir / "orders-0" / "00000000000000000000.log",
              watch=[logdir])
    assert r.rc == 0
    assert r.lines[4].endswith(
        ' key: k1 payload: {"id":1,"customer":"c1","amount":"1.50",'
        '"at":"2024-01-02T03:04:05+00:00","note":null,"address":{"city":"Oslo"}}')


def test_protobuf_messages_by_index_with_imports(kdump: KdumpRunner, logdir: Path) -> None:
    got = [d["value"] for d, err in decoded_values(kdump, logdir / "events-0", watch=logdir)]
    assert [(v["message"], v["data"]) for v in got] == [
        ("events.Created", {"id": "o1", "price": {"currency": "EUR", "units": "1099511627776"}}),
        ("events.Paid", {"id": "o1", "at": "2023-11-14T22:13:20Z",
                         "lines": [{"sku": "a", "qty": 2}]}),
        ("events.Paid.Line", {"sku": "b", "qty": 1}),
    ]
    assert {(v["format"], v["schema_id"], v["subject"]) for v in got} == {
        ("protobuf", 4, "events-value")}


def test_json_schema_payloads_and_validation(kdump: KdumpRunner, logdir: Path,
                                            tmp_path: Path) -> None:
    got = decoded_values(kdump, logdir / "users-0", watch=logdir)
    assert got == [({"value": {"format": "json-schema", "schema_id": 5, "guid": None,
                               "subject": "users-value", "version": 1, "deleted": None,
                               "message": None, "data": {"name": "ada", "age": 36}}}, None)]
    part = tmp_path / "users-1"
    rw.write_partition(part, [w.Rec(None, wire.frame(5, json.dumps({"age": "x"}).encode()))])
    got = decoded_values(kdump, part, "--schemas", logdir / "_schemas-0",
                         "--validate-json-schema", watch=logdir)
    assert got == [(None, "value: schema id 5: does not validate at age: type constraint")]


def test_deleted_schemas_are_used_and_marked(kdump: KdumpRunner, logdir: Path) -> None:
    soft = decoded_values(kdump, logdir / "old-0", watch=logdir)[0][0]["value"]
    hard = decoded_values(kdump, logdir / "gone-0", watch=logdir)[0][0]["value"]
    assert (soft["deleted"], soft["data"]) == ("soft", "hello")
    assert (hard["deleted"], hard["data"]) == ("hard", 42)


def test_schema_id_in_headers_by_id_and_by_guid(kdump: KdumpRunner, logdir: Path,
                                               tmp_path: Path) -> None:
    order = rw.order_schema()
    value = {"id": 9, "customer": "h", "amount": b"\x01", "at": 0, "note": None,
             "address": {"city": "Rome"}}
    data = rw.avro_bytes(order, value)
    guid = storage.schema_md5(json.dumps(rw.ORDER_AVSC))
    part = tmp_path / "hdr-0"
    rw.write_partition(part, [
        w.Rec(None, data, headers=[("__value_schema_id", b"\x00\x00\x00\x00\x02")]),
        w.Rec(None, data, headers=[("__value_schema_id", b"\x01" + guid)]),
    ])
    got = decoded_values(kdump, part, "--schemas", logdir / "_schemas-0", watch=logdir)
    assert [(d["value"]["schema_id"], d["value"]["guid"], d["value"]["data"]["amount"])
            for d, _ in got] == [(2, None, "0.01"),
                                 (2, "ed3205bb-525a-62e9-0eca-d97b2a98374c", "0.01")]


def test_an_independent_avro_encoder(kdump: KdumpRunner, logdir: Path, tmp_path: Path) -> None:
    import avro.io
    import avro.schema

    schema = avro.schema.parse('"string"')
    buf = io.BytesIO()
    avro.io.DatumWriter(schema).write("über", avro.io.BinaryEncoder(buf))
    part = tmp_path / "apache-0"
    rw.write_partition(part, [w.Rec(None, wire.frame(6, buf.getvalue()))])
    got = decoded_values(kdump, part, "--schemas", logdir / "_schemas-0", watch=logdir)
    assert got[0][0]["value"]["data"] == "über"


# --- bad input ---------------------------------------------------------------------------------
def test_bad_payloads_get_a_note_and_keep_their_bytes(kdump: KdumpRunner, logdir: Path,
                                                      tmp_path: Path) -> None:
    good = wire.frame(2, rw.avro_bytes(rw.order_schema(), {
        "id": 1, "customer": "c", "amount": b"", "at": 0, "address": {"city": "x"}}))
    part = tmp_path / "bad-0"
    rw.write_partition(part, [
        w.Rec(None, wire.frame(99, b"\x02")),  # unknown id
        w.Rec(None, good[:-3]),  # truncated
        w.Rec(None, good + b"\x00\x01"),  # bytes left over
        w.Rec(None, b"\x05" + good[1:]),  # wrong magic byte
        w.Rec(None, wire.frame(4, b"\x08\x01", [7])),  # a message the schema lacks
        w.Rec(None, wire.frame(5, b"{not json")),
        w.Rec(None, wire.frame(3, b"\xff\xff", [0])),  # protobuf: not a message
        w.Rec(None, wire.frame(3, b"\x0a\x03EUR\x48\x01", [0])),  # field 9: not in Money
        w.Rec(None, wire.frame(6, b"\x06ab")),  # a string cut short
    ])
    r = kdump("dump", "--print-data-log", "--format", "json", "--value-decoder",
              "schema-registry", part, "--schemas", logdir / "_schemas-0", watch=[logdir])
    recs = records(r.out)
    assert [o.get("decoded") for o in recs] == [None] * 9
    assert [o["decode_error"] for o in recs] == [
        "value: schema id 99 is not in the registry's storage",
        "value: schema id 2: the payload is truncated (5 bytes of data)",
        "value: schema id 2: 2 bytes left over after the Avro value",
        "value: no schema id (payload: magic byte 0x05, not 0x00 or 0x01)",
        "value: schema id 4: message indexes [7] name no message of the schema",
        "value: schema id 5: not JSON (JSONDecodeError)",
        "value: schema id 3: not a common.Money: DecodeError",
        "value: schema id 3: bytes that common.Money does not describe (unknown fields)",
        "value: schema id 6: the payload is truncated (3 bytes of data)",
    ]
    # the raw bytes kept
    assert (recs[2]["value"], recs[2]["value_encoding"]) == (
        (good + b"\x00\x01").decode(), "utf8")
    assert r.rc == 0 and "Traceback" not in r.err


def test_auto_leaves_unframed_and_unknown_payloads_alone(kdump: KdumpRunner, logdir: Path,
                                                         tmp_path: Path) -> None:
    part = tmp_path / "plain-0"
    rw.write_partition(part, [w.Rec(b"k", b"hello"), w.Rec(None, wire.frame(99, b"x"))])
    shutil.copytree(logdir / "_schemas-0", tmp_path / "_schemas-0")
    r = kdump("dump", "--print-data-log", part, watch=[tmp_path])
    assert r.lines[3].endswith(" key: k payload: hello")
    assert "decode" not in r.err


def test_unusable_schemas_are_named_in_each_note(kdump: KdumpRunner, tmp_path: Path) -> None:
    # named records ten deep, ten fields each, ending in an empty record: 2 KB of schema,
    # a million values out of a payload of no bytes
    types: list[Any] = [{"type": "record", "name": "E", "fields": []}]
    for i in range(1, 7):
        types.append({"type": "record", "name": f"R{i}", "fields": [
            {"name": f"f{j}", "type": types[-1]["name"]} for j in range(10)]})
    bomb = {"type": "record", "name": "Top",
            "fields": [{"name": f"t{i}", "type": t} for i, t in enumerate(types)]}
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("a", 1), rw.schema_value("a", 1, 1, '{"type": "record"')),
        w.Rec(rw.schema_key("b", 1), rw.schema_value(
            "b", 1, 2, '"x.Missing"', refs=[{"name": "x.Missing", "subject": "nope",
                                               "version": 1}])),
        w.Rec(rw.schema_key("c", 1), rw.schema_value("c", 1, 3, 'syntax = "proto3"; message {',
                                                     "PROTOBUF")),
        w.Rec(rw.schema_key("d", 1), rw.schema_value("d", 1, 4, 'syntax = "proto3"; import '
                                                     '"d.proto";', "PROTOBUF", refs=[
                                                         {"name": "d.proto", "subject": "d",
                                                          "version": 1}])),
        w.Rec(rw.schema_key("e", 1), rw.schema_value(
            "e", 1, 5, '{"type": "array", "items": "null"}')),
        w.Rec(rw.schema_key("f", 1), rw.schema_value("f", 1, 6, json.dumps(bomb))),
    ])
    rw.write_partition(tmp_path / "t-0", [w.Rec(None, wire.frame(i, b"\x00"))
                                          for i in range(1, 7)])
    r = kdump("dump", "--print-data-log", "--format", "json", tmp_path / "t-0", watch=[tmp_path])
    errors = [o["decode_error"] for o in records(r.out)]
    assert errors[0] == "value: schema id 1: the Avro schema is not JSON"
    assert errors[1] == ("value: schema id 2: reference 'x.Missing' (subject 'nope' version 1) "
                         "is not in the registry's storage")
    assert errors[2].startswith("value: schema id 3: the .proto does not compile: ")
    assert errors[3] == ("value: schema id 4: the .proto does not compile: d.proto:1:20: File "
                         "recursively imports itself: d.proto -> d.proto")
    assert errors[4] == ("value: schema id 5: an array of items that take no bytes: a payload "
                         "could declare any number of them; not decoded")
    assert errors[5] == ("value: schema id 6: a value of 0 bytes would hold 1,234,568 values "
                         "(named types nested in types that take no bytes): not decoded")


# --- kdump schemas ----------------------------------------------------------------------------
def test_schemas_lists_subjects_with_deleted_state_and_record_counts(kdump: KdumpRunner,
                                                                     logdir: Path) -> None:
    r = kdump("schemas", logdir, watch=[logdir])
    assert r.rc == 0
    assert r.lines == [
        "subject\tversion\tid\ttype\tdeleted\tkey_records\tvalue_records\treferences",
        "address\t1\t1\tAVRO\t-\t0\t0\t-",
        "events-value\t1\t4\tPROTOBUF\t-\t0\t3\tcommon/money.proto=money/1",
        "gone-value\t1\t7\tAVRO\thard\t0\t1\t-",
        "money\t1\t3\tPROTOBUF\t-\t0\t0\t-",
        "old-value\t1\t6\tAVRO\tsoft\t0\t1\t-",
        "orders-value\t1\t2\tAVRO\t-\t0\t3\tshop.Address=address/1",
        "users-value\t1\t5\tJSON\t-\t0\t1\t-",
    ]
    first = json.loads(kdump("schemas", logdir, "--format", "json", "--no-count",
                             watch=[logdir]).lines[1])
    assert first == {"type": "schema", "subject": "events-value", "version": 1, "id": 4,
                     "schema_type": "PROTOBUF", "deleted": None,
                     "references": [{"name": "common/money.proto", "subject": "money",
                                     "version": 1}],
                     "key_records": None, "value_records": None,
                     "file": str(logdir / "_schemas-0" / "00000000000000000000.log"),
                     "offset": 5}


def test_export_writes_every_schema_and_reads_back_with_schemas(
        kdump: KdumpRunner, logdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "export"
    r = kdump("schemas", logdir, "--export", out, "--no-count", watch=[logdir])
    assert r.rc == 0 and r.err == f"kdump: 7 schemas and 7 subject versions written to {out}\n"
    assert sorted(p.name for p in out.iterdir()) == [
        "1.avsc", "2.avsc", "3.proto", "4.proto", "5.json", "6.avsc", "7.avsc", "registry.json"]
    assert (out / "3.proto").read_text() == rw.COMMON_PROTO
    assert (out / "7.avsc").read_text() == '"long"'  # hard-deleted, recovered
    # the export replaces the registry's topic: a copy of the data topics without it
    data = tmp_path / "data"
    for topic in ("orders-0", "events-0", "gone-0"):
        shutil.copytree(logdir / topic, data / topic)
    from_topic = decoded_values(kdump, logdir / "events-0", logdir / "gone-0",
                                logdir / "orders-0", watch=logdir)
    from_files = decoded_values(kdump, data, "--schemas", out, watch=data)
    assert from_files == from_topic and all(d is not None for d, _ in from_files)


def test_export_refuses_a_directory_inside_the_evidence(kdump: KdumpRunner,
                                                       logdir: Path) -> None:
    r = kdump("schemas", logdir, "--export", logdir / "out", watch=[logdir])
    assert r.rc == 2
    assert r.err == (f"kdump: --export {logdir / 'out'} is inside the input {logdir}: choose "
                     "a directory outside the evidence\n")


def test_schemas_without_a_registry_says_so(kdump: KdumpRunner, tmp_path: Path) -> None:
    rw.write_partition(tmp_path / "t-0", [w.Rec(None, b"x")])
    r = kdump("schemas", tmp_path / "t-0", watch=[tmp_path])
    assert r.rc == 0 and r.out == ""
    assert r.err == (f"{tmp_path / 't-0'}: schema-registry [info]: no schemas: no _schemas "
                     "partition among or beside the inputs\n")


def test_a_renamed_registry_topic(kdump: KdumpRunner, logdir: Path, tmp_path: Path) -> None:
    shutil.copytree(logdir / "_schemas-0", tmp_path / "_registry-0")
    shutil.copytree(logdir / "orders-0", tmp_path / "orders-0")
    got = decoded_values(kdump, tmp_path / "orders-0", "--schemas-topic", "_registry",
                         watch=tmp_path)
    assert got[0][0]["value"]["subject"] == "orders-value"
    assert decoded_values(kdump, tmp_path / "orders-0", watch=tmp_path)[0] == (None, None)


# --- Spark data source (its plain-Python reading side) -----------------------------------------
def test_spark_rows_carry_the_decoded_json(logdir: Path) -> None:
    from kdump.spark.segments import parse_options, plan, rows

    opts = parse_options({"path": str(logdir), "decoder": "auto", "topics": "events,users"})
    slices, _ = plan(opts)
    got = [json.loads(r[-2]) for s in slices for r in rows(s, opts)]
    assert [(d["format"], d["message"], d["data"]) for d in got] == [
        ("protobuf", "events.Created",
         {"id": "o1", "price": {"currency": "EUR", "units": "1099511627776"}}),
        ("protobuf", "events.Paid",
         {"id": "o1", "at": "2023-11-14T22:13:20Z", "lines": [{"sku": "a", "qty": 2}]}),
        ("protobuf", "events.Paid.Line", {"sku": "b", "qty": 1}),
        ("json-schema", None, {"name": "ada", "age": 36}),
    ]


def test_json_lines_of_decoded_records_match_the_python_writer(
        logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast writer (native record + decoded tail) writes what record_object writes."""
    from kdump.ops.dump import DumpOptions, dump
    from kdump.render import jsonl
    from kdump.schemaregistry.source import SchemaSource

    if jsonl._native_json is None:
        pytest.skip("the C extension is not built here: only the Python writer exists")
    part = logdir.parent / "mixed-0"
    if not part.exists():
        rw.write_partition(part, [
            w.Rec(b"k", wire.frame(5, b'{"name":"\\u202e x","age":1}')),
            w.Rec(None, wire.frame(99, b"x")),
            w.Rec(wire.frame(6, rw.avro_bytes("string", "key")), None),
            w.Rec(b"\xff", wire.frame(2, b"\x01")),
        ])

    def render(native: bool) -> str:
        if not native:
            monkeypatch.setattr(jsonl, "_native_json", None)
        out = io.StringIO()
        r = jsonl.JsonRenderer(out)
        for opts_forced in ("auto", "schema-registry"):
            opts = DumpOptions(print_data_log=True, schema=SchemaSource(
                schemas=(str(logdir / "_schemas-0"),), text=False))
            if opts_forced != "auto":
                opts.decoder, opts.key_decoder, opts.value_decoder = "string", "string", \
                    opts_forced
            for ev in dump([str(part), str(logdir / "events-0")], opts):
                r.emit(ev)
        monkeypatch.undo()
        return out.getvalue()

    fast, slow = render(True), render(False)
    assert fast == slow and '"decode_error"' in fast and '"decoded"' in fast


def test_protobuf_indexes_in_the_header_and_framed_keys(kdump: KdumpRunner, logdir: Path,
                                                        tmp_path: Path) -> None:
    events, _money = rw.protobuf_modules(tmp_path)
    line = events.Paid.Line(sku="z", qty=-3).SerializeToString()
    part = tmp_path / "hdr-1"
    rw.write_partition(part, [
        w.Rec(wire.frame(6, rw.avro_bytes("string", "the key")), line, headers=[
            ("__value_schema_id", b"\x00\x00\x00\x00\x04" + wire.message_indexes_bytes([1, 0]))]),
    ])
    got = decoded_values(kdump, part, "--schemas", logdir / "_schemas-0", watch=logdir)
    (dec, err), = got
    assert err is None
    assert (dec["key"]["data"], dec["key"]["deleted"]) == ("the key", "soft")
    assert (dec["value"]["message"], dec["value"]["data"]) == (
        "events.Paid.Line", {"sku": "z", "qty": -3})
    text = kdump("dump", "--print-data-log", "--skip-record-metadata", part, "--schemas",
                 logdir / "_schemas-0", watch=[logdir]).lines[3]
    assert text == '| key: "the key" payload: {"sku":"z","qty":-3}'


def test_without_the_schemas_extra_a_note_names_it(kdump: KdumpRunner, logdir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "fastavro", None)  # import fastavro -> ImportError
    got = decoded_values(kdump, logdir / "old-0", "--value-decoder", "avro", watch=logdir)
    assert got == [(None, "value: schema id 6: decoding it needs the schemas extra: pip "
                          "install 'kdump[schemas]'")]


def test_a_delete_seen_by_one_replica_of_schemas_stands(tmp_path: Path) -> None:
    """Two brokers' copies of _schemas-0: the lagging one lacks the tombstone."""
    recs = rw.registry_records()
    rw.write_partition(tmp_path / "b1" / "_schemas-0", recs)
    rw.write_partition(tmp_path / "b2" / "_schemas-0", recs[:-1])
    for order in (["b1", "b2"], ["b2", "b1"]):
        reg = storage.load([], extra=[str(tmp_path / b / "_schemas-0") for b in order])
        assert reg.versions[("gone-value", 1)].deleted == "hard"
        assert reg.versions[("old-value", 1)].deleted == "soft"


def test_protobuf_known_dependencies_need_no_reference(kdump: KdumpRunner,
                                                       tmp_path: Path) -> None:
    """Confluent's serializers let a schema import google/type/*.proto (and the
    well-known types) without a reference."""
    from google.type import date_pb2

    proto = ('syntax = "proto3";\npackage cal;\nimport "google/type/date.proto";\n'
             "message Day { google.type.Date date = 1; string what = 2; }\n")
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("cal-value", 1), rw.schema_value("cal-value", 1, 40, proto,
                                                             "PROTOBUF"))])
    # the message written field by field with the real Date class
    date = date_pb2.Date(year=2024, month=2, day=29).SerializeToString()
    body = b"\x0a" + bytes([len(date)]) + date + b"\x12\x04leap"
    rw.write_partition(tmp_path / "cal-0", [w.Rec(None, wire.frame(40, body, [0]))])
    got = decoded_values(kdump, tmp_path / "cal-0", watch=tmp_path)
    assert got == [({"value": {"format": "protobuf", "schema_id": 40, "guid": None,
                               "subject": "cal-value", "version": 1, "deleted": None,
                               "message": "cal.Day", "data": {
                                   "date": {"year": 2024, "month": 2, "day": 29},
                                   "what": "leap"}}}, None)]


def test_non_finite_doubles_are_written_as_json_strings(kdump: KdumpRunner,
                                                        tmp_path: Path) -> None:
    schema = {"type": "record", "name": "M", "fields": [{"name": "x", "type": "double"},
                                                         {"name": "y", "type": "float"}]}
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("m", 1), rw.schema_value("m", 1, 1, json.dumps(schema)))])
    rw.write_partition(tmp_path / "m-0", [
        w.Rec(None, wire.frame(1, rw.avro_bytes(schema, {"x": float("nan"),
                                                         "y": float("-inf")}))),
        w.Rec(None, wire.frame(1, rw.avro_bytes(schema, {"x": 1.5, "y": 2.0})))])
    r = kdump("dump", "--print-data-log", "--format", "json", tmp_path / "m-0",
              watch=[tmp_path])
    datas = [json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
             for line in r.lines]
    assert [o["decoded"]["value"]["data"] for o in datas if o["type"] == "record"] == [
        {"x": "NaN", "y": "-Infinity"}, {"x": 1.5, "y": 2.0}]


def test_json_schema_references_are_used_for_validation(kdump: KdumpRunner,
                                                        tmp_path: Path) -> None:
    address = {"type": "object", "properties": {"city": {"type": "string"}},
               "required": ["city"]}
    person = {"type": "object", "properties": {"home": {"$ref": "address.json"}}}
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("address", 1), rw.schema_value("address", 1, 1,
                                                           json.dumps(address), "JSON")),
        w.Rec(rw.schema_key("person", 1), rw.schema_value(
            "person", 1, 2, json.dumps(person), "JSON",
            refs=[{"name": "address.json", "subject": "address", "version": 1}])),
    ])
    rw.write_partition(tmp_path / "p-0", [
        w.Rec(None, wire.frame(2, b'{"home": {"city": "Oslo"}}')),
        w.Rec(None, wire.frame(2, b'{"home": {"street": "x"}}')),
    ])
    got = decoded_values(kdump, tmp_path / "p-0", "--validate-json-schema", watch=tmp_path)
    assert got[0][0]["value"]["data"] == {"home": {"city": "Oslo"}}
    assert got[1] == (None, "value: schema id 2: does not validate at home: required "
                            "constraint")


def test_an_oversized_or_broken_schemas_record_is_a_finding(kdump: KdumpRunner,
                                                            tmp_path: Path) -> None:
    big = b'{"subject":"x","version":1,"id":1,"schema":"' + b"a" * (9 << 20) + b'"}'
    recs = [
        w.Rec(rw.schema_key("x", 1), big),
        w.Rec(rw.schema_key("y", 1), b"{not json"),
        w.Rec(b"[1]", b"{}"),  # a key that is not an object: not a schema, nothing to say
        w.Rec(rw.schema_key("z", 1), rw.schema_value("z", 1, 3, '"int"')),
    ]
    rw.write_partition(tmp_path / "_schemas-0", recs, per_batch=1)
    second = len(w.v2_batch(recs[:1], base_offset=0, first_timestamp=rw.TS))
    r = kdump("schemas", tmp_path, "--no-count", watch=[tmp_path])
    log = tmp_path / "_schemas-0" / "00000000000000000000.log"
    assert r.rc == 1
    assert r.err.splitlines() == [
        f"{log}: position 0: schema-registry [warning]: offset 0: a value of {len(big)} bytes "
        "(more than 8388608): not parsed (base offset 0)",
        f"{log}: position {second}: schema-registry [warning]: offset 1: the value of a "
        "SCHEMA key is not JSON (base offset 1)",
    ]
    assert r.lines[1:] == ["z\t1\t3\tAVRO\t-\t-\t-\t-"]


def test_auto_keeps_the_fast_path_for_records_that_are_not_framed(logdir: Path,
                                                                  tmp_path: Path) -> None:
    """dump builds unframed records' events as the string decoder does and decodes only
    the others: the same Decoded as the auto decoder gives for every record."""
    from kdump.ops import events as de
    from kdump.ops.dump import DumpOptions, dump
    from kdump.schemaregistry.decoder import SchemaRegistryDecoder
    from kdump.schemaregistry.source import SchemaSource

    part = tmp_path / "mixed-0"
    rw.write_partition(part, [
        w.Rec(b"plain", b"text \xff"),
        w.Rec(None, wire.frame(6, rw.avro_bytes("string", "framed"))),
        w.Rec(wire.frame(6, rw.avro_bytes("string", "k")), b"v"),
        w.Rec(b"k", b"\x00\x00\x00\x00\x63 unknown id"),
        w.Rec(b"k", rw.avro_bytes("long", 5), headers=[("__value_schema_id",
                                                         b"\x00\x00\x00\x00\x07")]),
        w.Rec(None, None),
    ])
    src = SchemaSource(schemas=(str(logdir / "_schemas-0"),))
    evs = [r for ev in dump([str(part)], DumpOptions(print_data_log=True, schema=src))
           if isinstance(ev, de.BatchEvent) for r in ev.records or ()]
    reference = SchemaRegistryDecoder(src.registry())
    assert [ev.decoded for ev in evs] == [
        reference.decode(ev.record.key, ev.record.value, ev.record.offset, ev.record.headers)
        for ev in evs]
    assert [ev.decoded.value_text for ev in evs] == [
        "text \ufffd", '"framed"', "v", "\x00\x00\x00\x00c unknown id", "5", None]


def test_a_schema_decoder_without_any_schemas_says_so_once(kdump: KdumpRunner,
                                                           tmp_path: Path) -> None:
    from kdump.cli.options import SCHEMA_DECODERS
    from kdump.schemaregistry.formats import SCHEMA_MODES

    assert SCHEMA_DECODERS == SCHEMA_MODES  # --help spells them out, without the import
    rw.write_partition(tmp_path / "t-0", [w.Rec(None, wire.frame(1, b"\x02")),
                                          w.Rec(None, wire.frame(1, b"\x04"))])
    r = kdump("dump", tmp_path / "t-0", "--value-decoder", "avro", watch=[tmp_path])
    assert r.rc == 1
    assert r.err.splitlines()[0] == (
        f"{tmp_path / 't-0'}: schema-registry [warning]: no schemas: no _schemas partition "
        "among or beside the inputs: schema-framed payloads are not decoded")
    # the note is on the record's line in text output
    assert r.lines[3].endswith(" decodeError: value: schema id 1 is not in the registry's "
                               "storage")


def test_random_bytes_never_escape_the_decoder(logdir: Path) -> None:
    """Whatever follows a known id (Avro with references, Protobuf, JSON Schema) or sits
    in a schema-id header: a value or a note, never an exception."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from kdump.schemaregistry.decoder import SchemaRegistryDecoder

    reg = storage.load([str(logdir)])
    forced = SchemaRegistryDecoder(reg, "schema-registry", "schema-registry")
    auto = SchemaRegistryDecoder(reg)

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 99]), st.binary(max_size=64),
           st.booleans())
    def check(sid: int, tail: bytes, in_header: bool) -> None:
        head = wire.frame(sid, b"")
        if in_header:
            headers = [(b"__value_schema_id", head + tail[:2])]
            value = tail[2:]
        else:
            headers, value = [], head + tail
        for d in (forced.decode(value, value, 0, headers), auto.decode(value, value, 0, headers)):
            assert d.value_json is None or set(d.value_json) == {  # type: ignore[arg-type]
                "format", "schema_id", "guid", "subject", "version", "deleted", "message", "data"}
            assert d.value_json is not None or d.value_text is not None

    check()


def test_guid_of_a_schema_value_without_md5(kdump: KdumpRunner, tmp_path: Path) -> None:
    """Without a stored md5 the GUID is the registry's MD5.ofSchema: the text, then each
    reference's name, subject and big-endian int32 version."""
    import hashlib

    refs = [{"name": "shop.Address", "subject": "address", "version": 1}]
    text = json.dumps(rw.ORDER_AVSC)
    addr = json.dumps(rw.ADDRESS_AVSC)
    values = [json.loads(rw.schema_value("address", 1, 1, addr)),
              json.loads(rw.schema_value("orders-value", 1, 2, text, refs=refs))]
    for v in values:
        del v["md5"]
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key(v["subject"], 1), json.dumps(v).encode()) for v in values])
    guid = hashlib.md5(text.encode() + b"shop.Address" + b"address" + b"\x00\x00\x00\x01")
    data = rw.avro_bytes(rw.order_schema(), {"id": 1, "customer": "g", "amount": b"",
                                             "at": 0, "address": {"city": "Bergen"}})
    rw.write_partition(tmp_path / "o-0", [w.Rec(None, data, headers=[
        ("__value_schema_id", b"\x01" + guid.digest())])])
    got = decoded_values(kdump, tmp_path / "o-0", watch=tmp_path)
    assert got[0][0]["value"]["data"]["address"] == {"city": "Bergen"}


def test_a_subject_deleted_as_a_whole_is_soft_deleted(tmp_path: Path) -> None:
    """Deleting a subject (not permanently) writes one DELETE_SUBJECT record: versions 1
    to its version are deleted; later versions are not."""
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("s", 1), rw.schema_value("s", 1, 1, '"int"')),
        w.Rec(rw.schema_key("s", 2), rw.schema_value("s", 2, 2, '"long"')),
        w.Rec(rw.schema_key("t", 1), rw.schema_value("t", 1, 3, '"string"')),
        w.Rec(b'{"keytype":"DELETE_SUBJECT","subject":"s","magic":0}',
              b'{"subject":"s","version":1}'),
        w.Rec(b'{"keytype":"DELETE_SUBJECT","subject":"t","magic":0}', None),
    ])
    reg = storage.load([str(tmp_path / "_schemas-0")])
    assert {k: v.deleted for k, v in reg.versions.items()} == {
        ("s", 1): "soft", ("s", 2): None, ("t", 1): None}
    assert reg.problems == []


def test_an_export_that_fails_leaves_no_partial_file(kdump: KdumpRunner, logdir: Path,
                                                     tmp_path: Path) -> None:
    """The schema files and registry.json are staged beside the directory and published
    together (kdump/output.py): a set that cannot be placed (here a directory in the way
    of 3.proto) is one line naming it and exit 2, and leaves the directory as it was."""
    out = tmp_path / "export"
    (out / "3.proto").mkdir(parents=True)
    r = kdump("schemas", logdir, "--export", out, "--no-count", watch=[logdir])
    assert r.rc == 2
    assert r.err == (f"kdump: {out / '3.proto'}: cannot write: Is a directory; {out} is left "
                     "as it was\n")
    assert sorted(p.name for p in out.iterdir()) == ["3.proto"]
    assert list((out / "3.proto").iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]  # no staging area


def test_a_missing_path_is_an_error_not_no_schemas(kdump: KdumpRunner, logdir: Path,
                                                   tmp_path: Path) -> None:
    for args in ((tmp_path / "nope",), (logdir, "--schemas", tmp_path / "gone")):
        r = kdump("schemas", *args)
        assert (r.rc, r.out) == (2, "")
        assert r.err.endswith(": no such file or directory\n") and len(r.err.splitlines()) == 1
