"""Schema-registry payloads as real clusters write them (issue 24 follow-up): Confluent's
own Protobuf imports, folders of .proto files, recursive and pathological schemas,
find-offset / find-time / compare-replicas decoding, the compact table form and the
export round trip.  Payloads are encoded with the real libraries (fastavro, protobuf
classes built from protoc's output, json)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from kdump.schemaregistry import confluent_protos, wire
from tests.conftest import KdumpRunner
from tests.support import registry_writer as rw
from tests.support import writer as w

LOG0 = "00000000000000000000.log"

pytest.importorskip("fastavro", reason="the schemas extra is not installed")
pytest.importorskip("grpc_tools", reason="the schemas extra is not installed")


def records(out: str) -> list[dict[str, Any]]:
    return [o for o in map(json.loads, out.splitlines()) if o.get("type") == "record"]


def decoded(kdump: KdumpRunner, *args: Any, watch: Path) -> list[Any]:
    r = kdump("dump", "--print-data-log", "--format", "json", *args, watch=[watch])
    return [(o.get("decoded", {}).get("value", {}).get("data") if o.get("decoded") else None,
             o.get("decode_error")) for o in records(r.out)]


PAYMENT_PROTO = """syntax = "proto3";
package pay;
import "confluent/meta.proto";
import "confluent/type/decimal.proto";
import "google/protobuf/wrappers.proto";

message Payment {
  option (confluent.message_meta) = { doc: "a payment" };
  string id = 1 [(confluent.field_meta) = { tags: ["PII"] }];
  confluent.type.Decimal amount = 2;
  repeated confluent.type.Decimal parts = 3;
  map<string, confluent.type.Decimal> fees = 4;
  google.protobuf.StringValue note = 5;
}
"""


def _dec(cls: Any, unscaled: int, precision: int, scale: int) -> Any:
    n = (unscaled.bit_length() + 8) // 8
    return cls(value=unscaled.to_bytes(n, "big", signed=True), precision=precision, scale=scale)


# --- a. Confluent's own imports ----------------------------------------------------------------
def test_confluent_meta_and_decimal_imports_compile_and_decimals_are_strings(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    classes = rw.proto_classes(tmp_path, {**confluent_protos.FILES, "pay.proto": PAYMENT_PROTO})
    Decimal, Payment = classes["confluent.type.Decimal"], classes["pay.Payment"]
    # the facts: value (bytes, 1), precision (uint32, 2), scale (int32, 3)
    assert _dec(Decimal, 1234, 4, 2).SerializeToString() == b"\x0a\x02\x04\xd2\x10\x04\x18\x02"
    p = Payment(id="p1", amount=_dec(Decimal, 1234, 4, 2),
                parts=[_dec(Decimal, -5, 1, 1), _dec(Decimal, 123456, 3, 2)])
    p.fees["tax"].CopyFrom(_dec(Decimal, 10, 2, 2))
    p.note.value = "n"
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("pay-value", 1), rw.schema_value("pay-value", 1, 1, PAYMENT_PROTO,
                                                             "PROTOBUF"))])
    rw.write_partition(tmp_path / "pay-0", [
        w.Rec(None, wire.frame(1, p.SerializeToString(), [0]))])
    got = decoded(kdump, tmp_path / "pay-0", watch=tmp_path)
    # 1234.56 to 3 digits, half up (DecimalUtils.toBigDecimal's MathContext)
    assert got == [({"id": "p1", "amount": "12.34", "parts": ["-0.5", "1.23E+3"],
                     "fees": {"tax": "0.10"}, "note": "n"}, None)]


def test_decimal_text_rounds_half_up_and_bounds_the_value() -> None:
    assert confluent_protos.decimal_text(b"", 0, 0) == "0"
    assert confluent_protos.decimal_text((125).to_bytes(1, "big"), 2, 1) == "13"
    assert confluent_protos.decimal_text(b"\xff", 0, 3) == "-0.001"
    assert confluent_protos.decimal_text(b"\x01" * 65, 0, 0) is None
    assert confluent_protos.decimal_text(b"\x01", 0, 10 ** 7) is None


def test_a_subject_named_as_the_import_wins_over_kdumps_definition(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """The registry's own confluent/type/decimal.proto (here with one more field) is
    used, not kdump's."""
    mine = confluent_protos.FILES["confluent/type/decimal.proto"].replace(
        "  int32 scale = 3;\n", "  int32 scale = 3;\n  string unit = 4;\n")
    top = ('syntax = "proto3";\npackage m;\nimport "confluent/type/decimal.proto";\n'
           "message Price { confluent.type.Decimal amount = 1; }\n")
    classes = rw.proto_classes(tmp_path, {"confluent/type/decimal.proto": mine, "m.proto": top})
    price = classes["m.Price"](amount=classes["confluent.type.Decimal"](
        value=b"\x07", scale=1, unit="EUR"))
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("confluent/type/decimal.proto", 1), rw.schema_value(
            "confluent/type/decimal.proto", 1, 1, mine, "PROTOBUF")),
        w.Rec(rw.schema_key("m-value", 1), rw.schema_value("m-value", 1, 2, top, "PROTOBUF"))])
    rw.write_partition(tmp_path / "m-0", [w.Rec(None, wire.frame(2, price.SerializeToString(),
                                                                 [0]))])
    assert decoded(kdump, tmp_path / "m-0", watch=tmp_path) == [({"amount": "0.7"}, None)]
    # without that subject, kdump's Decimal does not know field 4: not shown as data
    shutil.rmtree(tmp_path / "_schemas-0")
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("m-value", 1), rw.schema_value("m-value", 1, 2, top, "PROTOBUF"))])
    assert decoded(kdump, tmp_path / "m-0", watch=tmp_path) == [
        (None, "value: schema id 2: bytes that m.Price does not describe (unknown fields)")]


# --- b. a folder of .proto files without registry.json ---------------------------------------
def test_imports_between_files_of_a_schemas_folder(kdump: KdumpRunner, tmp_path: Path) -> None:
    events, money = rw.protobuf_modules(tmp_path)
    folder = tmp_path / "protos"
    (folder / "common").mkdir(parents=True)
    (folder / "common" / "money.proto").write_text(rw.COMMON_PROTO)
    (folder / "4.proto").write_text(rw.EVENTS_PROTO)
    # 5.proto imports a file named by id (4.proto), whose import is found in turn
    (folder / "5.proto").write_text('syntax = "proto3";\npackage wrap;\nimport "4.proto";\n'
                                    "message Box { events.Created created = 1; }\n")
    created = events.Created(id="o9", price=money.Money(currency="NOK", units=3))
    data = tmp_path / "data"
    rw.write_partition(data / "events-0", [
        w.Rec(None, wire.frame(4, created.SerializeToString(), [0])),
        # Box { created = 1 } written as the wire format has it: tag 1, length, message
        w.Rec(None, wire.frame(5, b"\x0a" + bytes([created.ByteSize()])
                               + created.SerializeToString(), [0]))])
    got = decoded(kdump, data, "--schemas", folder, watch=tmp_path)
    assert got == [({"id": "o9", "price": {"currency": "NOK", "units": "3"}}, None),
                   ({"created": {"id": "o9", "price": {"currency": "NOK", "units": "3"}}},
                    None)]


def test_folder_imports_never_leave_the_folder(kdump: KdumpRunner, tmp_path: Path) -> None:
    folder = tmp_path / "protos"
    folder.mkdir()
    (tmp_path / "outside.proto").write_text('syntax = "proto3";\nmessage O { string s = 1; }\n')
    (folder / "link.proto").symlink_to(tmp_path / "outside.proto")
    (folder / "1.proto").write_text('syntax = "proto3";\nimport "link.proto";\n'
                                    "message A { O o = 1; }\n")
    (folder / "2.proto").write_text('syntax = "proto3";\nimport "../outside.proto";\n'
                                    "message B { O o = 1; }\n")
    rw.write_partition(tmp_path / "t-0", [w.Rec(None, wire.frame(1, b"", [0])),
                                          w.Rec(None, wire.frame(2, b"", [0]))])
    got = decoded(kdump, tmp_path / "t-0", "--schemas", folder, watch=tmp_path)
    assert got == [
        (None, "value: schema id 1: the .proto does not compile: link.proto: File not found."),
        (None, "value: schema id 2: the .proto does not compile: ../outside.proto: "
               'Backslashes, consecutive slashes, ".", or ".." are not allowed in the virtual '
               "path")]


# --- e. recursive and pathological schemas ------------------------------------------------------
LIST_AVSC = {"type": "record", "name": "Node", "namespace": "ll", "fields": [
    {"name": "value", "type": "int"},
    {"name": "next", "type": ["null", "ll.Node"], "default": None}]}
TREE_AVSC = {"type": "record", "name": "Tree", "fields": [
    {"name": "label", "type": "string"},
    {"name": "children", "type": {"type": "array", "items": "Tree"}}]}


def test_recursive_avro_types_decode(kdump: KdumpRunner, tmp_path: Path) -> None:
    chain: Any = None
    for i in (3, 2, 1):
        chain = {"value": i, "next": chain}
    tree = {"label": "root", "children": [{"label": "a", "children": []},
                                          {"label": "b", "children": [
                                              {"label": "c", "children": []}]}]}
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("list", 1), rw.schema_value("list", 1, 1, json.dumps(LIST_AVSC))),
        w.Rec(rw.schema_key("tree", 1), rw.schema_value("tree", 1, 2, json.dumps(TREE_AVSC)))])
    rw.write_partition(tmp_path / "t-0", [
        w.Rec(None, wire.frame(1, rw.avro_bytes(LIST_AVSC, chain))),
        w.Rec(None, wire.frame(2, rw.avro_bytes(TREE_AVSC, tree)))])
    assert decoded(kdump, tmp_path / "t-0", watch=tmp_path) == [(chain, None), (tree, None)]


def test_a_deep_recursive_value_is_refused_with_a_note(kdump: KdumpRunner,
                                                       tmp_path: Path) -> None:
    """A linked list 100,000 long is 200 KB of payload: refused, not a crash."""
    body = b"\x02\x02" * 100_000 + b"\x02\x00"  # value 1, branch Node ... then null
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("list", 1), rw.schema_value("list", 1, 1, json.dumps(LIST_AVSC)))])
    rw.write_partition(tmp_path / "t-0", [w.Rec(None, wire.frame(1, body))])
    assert decoded(kdump, tmp_path / "t-0", watch=tmp_path) == [
        (None, "value: schema id 1: the value nests too deeply")]


def test_proto_import_cycles_and_self_imports_are_refused(kdump: KdumpRunner,
                                                          tmp_path: Path) -> None:
    a = 'syntax = "proto3";\nimport "b.proto";\nmessage A { string s = 1; }\n'
    b = 'syntax = "proto3";\nimport "a.proto";\nmessage B { string s = 1; }\n'
    me = 'syntax = "proto3";\nimport "me.proto";\nmessage M { string s = 1; }\n'
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("a.proto", 1), rw.schema_value("a.proto", 1, 1, a, "PROTOBUF")),
        w.Rec(rw.schema_key("b.proto", 1), rw.schema_value("b.proto", 1, 2, b, "PROTOBUF")),
        w.Rec(rw.schema_key("me.proto", 1), rw.schema_value("me.proto", 1, 3, me, "PROTOBUF"))])
    rw.write_partition(tmp_path / "t-0", [w.Rec(None, wire.frame(i, b"", [0]))
                                          for i in (1, 3)])
    got = decoded(kdump, tmp_path / "t-0", watch=tmp_path)
    assert got == [
        (None, "value: schema id 1: the .proto does not compile: b.proto:2:1: File "
               "recursively imports itself: b.proto -> a.proto -> b.proto"),
        (None, "value: schema id 3: the .proto does not compile: me.proto:2:1: File "
               "recursively imports itself: me.proto -> me.proto")]


def test_huge_and_deeply_nested_schema_texts_are_refused_in_bounded_time(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    deep_avro = '{"type":"array","items":' * 5000 + '"int"' + "}" * 5000
    nested_avro = '{"type":"array","items":' * 100 + '"int"' + "}" * 100
    deep_proto = 'syntax = "proto3";\n' + "message M { " * 3000 + "}" * 3000
    huge_proto = 'syntax = "proto3";\nmessage H {\n' + "".join(
        f"  string f{i} = {i};\n" for i in range(1, 300_000)) + "}\n"
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("a", 1), rw.schema_value("a", 1, 1, deep_avro)),
        w.Rec(rw.schema_key("p", 1), rw.schema_value("p", 1, 2, deep_proto, "PROTOBUF")),
        w.Rec(rw.schema_key("h", 1), rw.schema_value("h", 1, 3, huge_proto, "PROTOBUF")),
        w.Rec(rw.schema_key("n", 1), rw.schema_value("n", 1, 4, nested_avro))])
    rw.write_partition(tmp_path / "t-0", [w.Rec(None, wire.frame(i, b"\x00", [0] if i in (2, 3)
                                                                 else None))
                                          for i in (1, 2, 3, 4)])
    got = decoded(kdump, tmp_path / "t-0", watch=tmp_path)
    assert got[0] == (None, "value: schema id 1: the Avro schema nests too deeply")
    assert got[1][0] is None and got[1][1].startswith(
        "value: schema id 2: the .proto does not compile: ")
    assert got[2] == (None, "value: schema id 3: the .proto text and its references exceed "
                            "4194304 bytes: not compiled")
    assert got[3] == (None, "value: schema id 4: the Avro schema nests more than 64 levels")


# --- c. find-offset, find-time and compare-replicas decode as dump does -------------------------
@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return rw.sample_logdir(tmp_path_factory.mktemp("registry"))


PAID = '{"id":"o1","at":"2023-11-14T22:13:20Z","lines":[{"sku":"a","qty":2}]}'


def test_find_offset_and_find_time_print_decoded_payloads(kdump: KdumpRunner,
                                                          logdir: Path) -> None:
    r = kdump("find-offset", logdir / "events-0", "1", "--print-data-log", watch=[logdir])
    assert r.rc == 0
    assert r.lines[-1] == ("| offset: 1 CreateTime: 1700000000000 keySize: 2 valueSize: 26 "
                           f"sequence: -1 headerKeys: [] key: e2 payload: {PAID}")
    r = kdump("find-time", logdir / "events-0", "2023-11-14T22:13:20Z", "--format", "json",
              "--print-data-log", watch=[logdir])
    found = json.loads(r.out)
    assert found["offset"] == 0 and found["decoded"] == {"value": {
        "format": "protobuf", "schema_id": 4, "guid": None, "subject": "events-value",
        "version": 1, "deleted": None, "message": "events.Created",
        "data": {"id": "o1", "price": {"currency": "EUR", "units": "1099511627776"}}}}
    # a forced decoder and a registry given by --schemas, away from the data
    part = logdir / "gone-0"
    r = kdump("find-offset", part, "0", "--value-decoder", "avro", "--schemas",
              logdir / "_schemas-0", "--schemas-topic", "nothing", watch=[logdir])
    assert r.lines[-1].endswith(" headerKeys: [] payload: 42")
    r = kdump("find-offset", part, "0", "--value-decoder", "protobuf", "--schemas-topic",
              "nothing", watch=[logdir])
    assert r.lines[-1].endswith(r" headerKeys: [] payload: \x00\x00\x00\x00\x07T "
                                "decodeError: value: schema id 7 is not in the registry's "
                                "storage")


def test_compare_replicas_prints_decoded_records_only_one_replica_holds(
        kdump: KdumpRunner, logdir: Path, tmp_path: Path) -> None:
    events, money = rw.protobuf_modules(tmp_path)
    recs = [w.Rec(f"e{i}".encode(), wire.frame(4, events.Created(
        id=f"o{i}", price=money.Money(currency="EUR", units=i)).SerializeToString(), [0]))
        for i in range(3)]
    for broker, n in (("b1", 3), ("b2", 2)):
        rw.write_partition(tmp_path / broker / "events-0", recs[:n], per_batch=1)
        shutil.copytree(logdir / "_schemas-0", tmp_path / broker / "_schemas-0")
    r = kdump("compare-replicas", tmp_path / "b1", tmp_path / "b2", "--print-data-log",
              watch=[tmp_path])
    assert r.rc == 0
    assert r.lines[-1].endswith(
        ' headerKeys: [] key: e2 payload: {"id":"o2","price":{"currency":"EUR","units":"2"}}')
    r = kdump("compare-replicas", tmp_path / "b1", tmp_path / "b2", "--print-data-log",
              "--format", "json", watch=[tmp_path])
    [rec] = records(r.out)
    assert (rec["replica"], rec["offset"], rec["decoded"]["value"]["data"]) == (
        str(tmp_path / "b1" / "events-0"), 2, {"id": "o2", "price": {"currency": "EUR",
                                                                    "units": "2"}})


# --- d. dump --format table: decoded payloads in a compact form --------------------------------
def test_table_shows_subject_version_id_and_the_data_shortened(kdump: KdumpRunner,
                                                               logdir: Path) -> None:
    r = kdump("dump", "--format", "table", "--print-data-log", "gone-0/" + LOG0,
              "orders-0/" + LOG0, cwd=logdir)
    assert r.rc == 0 and r.err == ""
    rows = [line for line in r.out.splitlines() if line.startswith("│")]
    assert rows == [
        "│    0–0 │ 2023-11-14T22:13:20.000Z │   74 │ position 0 · 1 record · none · v2 · crc ok      │",
        "│      0 │ 2023-11-14T22:13:20.000Z │   13 │ null = [avro gone-value v1 id 7 hard-deleted] 42│",
        "│    0–2 │ 2023-11-14T22:13:20.000Z │  169 │"
        " position 0 · 3 records · none · v2 · crc ok           │",
        "│      0 │ 2023-11-14T22:13:20.000Z │   37 │"
        " k0 = [avro orders-value v1 id 2]                      │",
        '│        │                          │      │'
        ' {"id":0,"customer":"c0","amount":"0.50","at":"2024-01-│',
        '│        │                          │      │'
        ' 02T03:04:05+00:00","note":"gift","address":{"c… (13   │',
        "│        │                          │      │"
        " more characters)                                      │",
        "│      1 │ 2023-11-14T22:13:20.000Z │   33 │"
        " k1 = [avro orders-value v1 id 2]                      │",
        '│        │                          │      │'
        ' {"id":1,"customer":"c1","amount":"1.50","at":"2024-01-│',
        '│        │                          │      │'
        ' 02T03:04:05+00:00","note":null,"address":{"cit… (11   │',
        "│        │                          │      │"
        " more characters)                                      │",
        "│      2 │ 2023-11-14T22:13:20.000Z │   38 │"
        " k2 = [avro orders-value v1 id 2]                      │",
        '│        │                          │      │'
        ' {"id":2,"customer":"c2","amount":"2.50","at":"2024-01-│',
        '│        │                          │      │'
        ' 02T03:04:05+00:00","note":"gift","address":{"c… (13   │',
        "│        │                          │      │"
        " more characters)                                      │",
    ]


def test_compact_form_of_a_protobuf_payload_names_the_message() -> None:
    from kdump.schemaregistry.decoder import SchemaPayload, compact

    p = SchemaPayload(format="protobuf", schema_id=4, guid=None, subject="events-value",
                      version=1, deleted="soft", message="events.Paid.Line",
                      data={"sku": "b" * 200})
    assert compact(p) == ('[protobuf events-value v1 id 4 events.Paid.Line soft-deleted] '
                          '{"sku":"' + "b" * 92 + "… (110 more characters)")
    # a payload claiming to be a decoded one is shown as the text it is
    from kdump.render.table import _compact

    assert _compact(dict(p), '{"format":"avro"}') == '{"format":"avro"}'


# --- f. kdump schemas --export DIR, then dump --schemas DIR -------------------------------------
def test_export_then_schemas_dir_round_trips_avro_protobuf_and_json_schema(
        kdump: KdumpRunner, logdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "recovered"
    assert kdump("schemas", logdir, "--export", out, "--no-count", watch=[logdir]).rc == 0
    topics = ("events-0", "gone-0", "old-0", "orders-0", "users-0")
    data = tmp_path / "data"  # the data topics alone: no _schemas anywhere near them
    for topic in topics:
        shutil.copytree(logdir / topic, data / topic)

    def objects(*args: Any, watch: Path) -> list[Any]:
        r = kdump("dump", "--print-data-log", "--format", "json", *args, watch=[watch])
        return [(o.get("decoded"), o.get("decode_error")) for o in records(r.out)]

    from_topic = objects(*(logdir / t for t in topics), watch=logdir)
    from_files = objects(data, "--schemas", out, watch=data)
    assert from_files == from_topic
    assert sorted({d["value"]["format"] for d, _ in from_files}) == [
        "avro", "json-schema", "protobuf"]
    assert [(d["value"]["subject"], d["value"]["deleted"]) for d, _ in from_files] == [
        ("events-value", None)] * 3 + [("gone-value", "hard"), ("old-value", "soft")] + [
        ("orders-value", None)] * 3 + [("users-value", None)]
    # text output too, byte for byte
    text = kdump("dump", "--print-data-log", *(logdir / t for t in topics), watch=[logdir])
    back = kdump("dump", "--print-data-log", data, "--schemas", out, watch=[data])
    payloads = [line.split(" headerKeys: ")[1] for line in text.lines if "payload:" in line]
    assert [line.split(" headerKeys: ")[1] for line in back.lines if "payload:" in line] \
        == payloads and len(payloads) == 9


def test_recursive_protobuf_messages_decode_and_deep_values_get_a_note(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    proto = ('syntax = "proto3";\npackage rec;\n'
             "message Node { int32 value = 1; Node next = 2; }\n")
    Node = rw.proto_classes(tmp_path, {"rec.proto": proto})["rec.Node"]
    short = Node(value=1)
    short.next.value = 2
    short.next.next.value = 3
    deep = Node(value=0)
    n = deep
    for i in range(1, 150):  # deeper than the runtime's recursion limit (100)
        n = n.next
        n.value = i
    deep_bytes = deep.SerializeToString()
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("rec", 1), rw.schema_value("rec", 1, 1, proto, "PROTOBUF"))])
    rw.write_partition(tmp_path / "t-0", [
        w.Rec(None, wire.frame(1, short.SerializeToString(), [0])),
        w.Rec(None, wire.frame(1, deep_bytes, [0]))])
    got = decoded(kdump, tmp_path / "t-0", watch=tmp_path)
    assert got[0] == ({"value": 1, "next": {"value": 2, "next": {"value": 3}}}, None)
    assert got[1] == (None, "value: schema id 1: not a rec.Node: DecodeError")


def test_decoder_names_a_schema_decoder_for_keys_and_values(kdump: KdumpRunner,
                                                            logdir: Path) -> None:
    """--decoder avro (as the Spark data source's decoder=avro) is --key-decoder avro
    --value-decoder avro, and implies --print-data-log as --decoder hex does."""
    log = logdir / "gone-0" / LOG0
    r = kdump("dump", log, "--decoder", "avro", "--skip-record-metadata", watch=[logdir])
    assert r.lines[-1] == " payload: 42"
    r = kdump("dump", log, "--decoder", "hex", "--skip-record-metadata", watch=[logdir])
    assert r.lines[-1] == " payload: 000000000754"
    r = kdump("find-offset", logdir / "users-0", "0", "--decoder", "json-schema",
              watch=[logdir])
    assert r.lines[-1].endswith(' headerKeys: [] payload: {"name":"ada","age":36}')


def test_recursive_json_schema_validates_and_deep_values_get_a_note(kdump: KdumpRunner,
                                                                   tmp_path: Path) -> None:
    tree = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"name": {"type": "string"},
                           "children": {"type": "array", "items": {"$ref": "#"}}},
            "required": ["name"]}
    ok = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    bad = {"name": "a", "children": [{"children": []}]}
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("tree", 1), rw.schema_value("tree", 1, 1, json.dumps(tree),
                                                        "JSON"))])
    def nested(n: int) -> bytes:
        return b'{"name":"x","children":[' * n + b'{"name":"x"}' + b"]}" * n
    rw.write_partition(tmp_path / "t-0", [
        w.Rec(None, wire.frame(1, json.dumps(v).encode())) for v in (ok, bad)]
        + [w.Rec(None, wire.frame(1, nested(n))) for n in (5000, 400)])
    got = decoded(kdump, tmp_path / "t-0", "--validate-json-schema", watch=tmp_path)
    assert got[0] == (ok, None)
    assert got[1] == (None, "value: schema id 1: does not validate at children/0: required "
                            "constraint")
    assert got[2] == (None, "value: schema id 1: the JSON nests too deeply")
    # parsed, but deeper than the validator's recursion
    assert got[3] == (None, "value: schema id 1: the value nests too deeply")


def test_messages_of_the_same_name_in_two_schemas_are_checked_each_by_its_own(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """Schema 1's m.M has no message field; schema 2's m.M does: bytes its m.N does not
    know are still found (the checks are per descriptor, not per name)."""
    one = 'syntax = "proto3";\npackage m;\nmessage M { string s = 1; }\n'
    two = ('syntax = "proto3";\npackage m;\nmessage M { N n = 1; }\n'
           "message N { string t = 1; }\n")
    writer_two = two.replace("string t = 1; }", "string t = 1; int32 extra = 5; }")
    M1 = rw.proto_classes(tmp_path / "a", {"m.proto": one})["m.M"]
    c = rw.proto_classes(tmp_path / "b", {"m.proto": writer_two})
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("one", 1), rw.schema_value("one", 1, 1, one, "PROTOBUF")),
        w.Rec(rw.schema_key("two", 1), rw.schema_value("two", 1, 2, two, "PROTOBUF"))])
    rw.write_partition(tmp_path / "t-0", [
        w.Rec(None, wire.frame(1, M1(s="a").SerializeToString(), [0])),
        w.Rec(None, wire.frame(2, c["m.M"](n=c["m.N"](t="b")).SerializeToString(), [0])),
        w.Rec(None, wire.frame(2, c["m.M"](n=c["m.N"](t="b", extra=7)).SerializeToString(),
                               [0]))])
    assert decoded(kdump, tmp_path / "t-0", watch=tmp_path) == [
        ({"s": "a"}, None), ({"n": {"t": "b"}}, None),
        (None, "value: schema id 2: bytes that m.M does not describe (unknown fields)")]


def test_a_proto_with_thousands_of_imports_is_refused(kdump: KdumpRunner,
                                                      tmp_path: Path) -> None:
    many = 'syntax = "proto3";\n' + "".join(f'import "x{i}.proto";\n' for i in range(5000)) \
        + "message M { string s = 1; }\n"
    rw.write_partition(tmp_path / "_schemas-0", [
        w.Rec(rw.schema_key("many", 1), rw.schema_value("many", 1, 1, many, "PROTOBUF"))])
    rw.write_partition(tmp_path / "t-0", [w.Rec(None, wire.frame(1, b"", [0]))])
    assert decoded(kdump, tmp_path / "t-0", watch=tmp_path) == [
        (None, "value: schema id 1: more than 512 imports in one file: not compiled")]


def test_schemas_are_found_in_a_folder_of_brokers_log_dirs(kdump: KdumpRunner,
                                                            tmp_path: Path) -> None:
    """A folder holding several brokers' log dirs (as the walk reads it): the registry's
    topic in one of them is found, for kdump schemas and for dump alike."""
    fleet = tmp_path / "fleet"
    rw.write_sample(fleet / "broker-1", tmp_path / "scratch")
    flat = kdump("schemas", "--format", "json", fleet / "broker-1", watch=[fleet])
    nested = kdump("schemas", "--format", "json", fleet, watch=[fleet])
    assert flat.rc == nested.rc == 0, nested.err
    assert nested.out == flat.out and '"subject":"orders-value"' in nested.out.replace(" ", "")
    assert "no _schemas partition" not in nested.err
