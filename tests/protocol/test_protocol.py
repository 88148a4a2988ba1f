"""kdump.protocol: the message-schema reader, JSON rendering, Jackson text, control values."""

from __future__ import annotations

import json
import random
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kdump.protocol.control import (
    CONTROL_SCHEMAS,
    control_record_text,
    decode_control_value,
)
from kdump.protocol.messages import (
    Field,
    Reader,
    Schema,
    SchemaError,
    Versions,
    clamp_version,
    decode,
    java_double_str,
    json_text,
    read_message,
    to_json,
)
from tests.support import message_writer as sw

# ----------------------------------------------------------------------------- versions


def test_versions_parse() -> None:
    assert Versions.parse("0+") == Versions(0, 0x7FFF)
    assert Versions.parse("1-3") == Versions(1, 3)
    assert Versions.parse("2") == Versions(2, 2)
    assert Versions.parse("none").empty
    assert Versions.parse(None).empty
    assert 3 in Versions.parse("2+") and 1 not in Versions.parse("2+")
    assert str(Versions.parse("0+")) == "0+" and str(Versions.parse("1-3")) == "1-3"
    with pytest.raises(SchemaError):
        Versions.parse("x")


def test_clamp_version() -> None:
    v = Versions.parse("0-4")
    assert [clamp_version(x, v) for x in (-3, 0, 2, 4, 9)] == [0, 0, 2, 4, 4]


# ----------------------------------------------------------------------------- all types

# kdump's table and the independent writer's description of the same synthetic message.
ALL_TYPES = Schema(
    "AllTypes",
    "0-2",
    "1+",
    (
        Field("B", "bool"),
        Field("I8", "int8"),
        Field("I16", "int16"),
        Field("U16", "uint16"),
        Field("I32", "int32"),
        Field("U32", "uint32"),
        Field("I64", "int64"),
        Field("F64", "float64"),
        Field("Id", "uuid"),
        Field("S", "string"),
        Field("NS", "string", nullable_versions="0+"),
        Field("By", "bytes"),
        Field("NBy", "bytes", nullable_versions="0+"),
        Field("Ints", "[]int32"),
        Field("Strs", "[]string"),
        Field("Uuids", "[]uuid", "1+"),
        Field("NInts", "[]int64", nullable_versions="0+"),
        Field(
            "Subs",
            "[]Sub",
            fields=(
                Field("X", "int32"),
                Field("Names", "[]string"),
                Field("Deep", "[]Deep", fields=(Field("Y", "int16"), Field("Z", "string"))),
                Field("T", "int64", "1+", tag=3, tagged_versions="1+", default=-1),
            ),
        ),
        Field("Inner", "Inner", fields=(Field("Q", "string"), Field("R", "int32", "2+"))),
        Field(
            "NInner",
            "NInner",
            nullable_versions="0+",
            default="null",
            fields=(Field("Q", "string"),),
        ),
        Field("Late", "int32", "2+", default=7),
        Field("TagI", "int32", "1+", tag=0, tagged_versions="1+", default=-5),
        Field(
            "TagS",
            "string",
            "1+",
            nullable_versions="1+",
            tag=1,
            tagged_versions="1+",
            default="null",
        ),
        Field("TagA", "[]int32", "1+", tag=2, tagged_versions="1+"),
        Field(
            "TagStruct",
            "TagStruct",
            "2+",
            nullable_versions="2+",
            tag=5,
            tagged_versions="2+",
            default="null",
            fields=(Field("P", "int32"), Field("Qs", "[]string")),
        ),
        Field(
            "TagPlain",
            "TagPlain",
            "2+",
            tag=6,
            tagged_versions="2+",
            fields=(Field("P", "int32"),),
        ),
    ),
)

ALL_TYPES_W = sw.parse(
    """
AllTypes versions=0-2 flexible=1+
  b bool
  i8 int8
  i16 int16
  u16 uint16
  i32 int32
  u32 uint32
  i64 int64
  f64 float64
  id uuid
  s string
  nS string null=0+
  by bytes
  nBy bytes null=0+
  ints []int32
  strs []string
  uuids []uuid v=1+
  nInts []int64 null=0+
  subs []
    x int32
    names []string
    deep []
      y int16
      z string
    t int64 v=1+ tag=3 tagv=1+ default=-1
  inner {}
    q string
    r int32 v=2+
  nInner {} null=0+ default=null
    q string
  late int32 v=2+ default=7
  tagI int32 v=1+ tag=0 tagv=1+ default=-5
  tagS string v=1+ null=1+ tag=1 tagv=1+ default=null
  tagA []int32 v=1+ tag=2 tagv=1+
  tagStruct {} v=2+ null=2+ tag=5 tagv=2+ default=null
    p int32
    qs []string
  tagPlain {} v=2+ tag=6 tagv=2+
    p int32
"""
)


@pytest.mark.parametrize("version", [0, 1, 2])
@pytest.mark.parametrize("seed", range(40))
def test_all_types_round_trip(version: int, seed: int) -> None:
    rng = random.Random(seed * 10 + version)
    values = sw.sample(ALL_TYPES_W, rng, version)
    unknown = [(77, b"\x01\x02"), (1000, b"")] if seed % 2 else None
    data = sw.encode(ALL_TYPES_W, values, version, unknown_tags=unknown)
    got = decode(ALL_TYPES, data, version, exact=True)
    assert got == sw.expected_json(ALL_TYPES_W, values, version)
    assert list(got) == list(sw.expected_json(ALL_TYPES_W, values, version))  # field order


@pytest.mark.parametrize("version", [1, 2])
def test_tagged_fields_at_their_default_are_not_shown(version: int) -> None:
    values = sw.sample(ALL_TYPES_W, random.Random(5), version)
    values.update(tagI=-5, tagS=None, tagA=[], tagStruct=None, tagPlain={"p": 0})
    data = sw.encode(ALL_TYPES_W, values, version, write_defaults=True)
    got = decode(ALL_TYPES, data, version, exact=True)
    for name in ("tagI", "tagS", "tagA", "tagStruct", "tagPlain"):
        assert name not in got
    values.update(tagI=3, tagS="x", tagA=[1], tagPlain={"p": 9})
    got = decode(ALL_TYPES, sw.encode(ALL_TYPES_W, values, version), version)
    assert got["tagI"] == 3 and got["tagS"] == "x" and got["tagA"] == [1]
    assert ("tagPlain" in got) == (version >= 2)


def test_message_has_every_field_with_defaults() -> None:
    values = sw.sample(ALL_TYPES_W, random.Random(1), 0)
    msg, _ = read_message(ALL_TYPES, sw.encode(ALL_TYPES_W, values, 0), 0)
    assert msg["late"] == 7 and msg["tagI"] == -5 and msg["tagS"] is None and msg["tagA"] == []
    assert msg["uuids"] == [] and msg["tagStruct"] is None and msg["tagPlain"] == {"p": 0}
    # rendering the same message at another version shows that version's fields
    assert "late" in to_json(ALL_TYPES.fields, msg, 2)
    assert "late" not in to_json(ALL_TYPES.fields, msg, 0)


def test_tag_not_valid_for_version() -> None:
    # Version 1 is flexible but TagStruct (tag 5) exists only from version 2.
    values = sw.sample(ALL_TYPES_W, random.Random(2), 1)
    values.update(tagI=-5, tagS=None, tagA=[])  # top-level tagged section: just b"\x00"
    data = sw.encode(ALL_TYPES_W, values, 1)
    assert data.endswith(b"\x00") and decode(ALL_TYPES, data, 1, exact=True)
    rogue = data[:-1] + bytes([1, 5, 1, 0])  # one tagged field: tag 5, size 1, null
    with pytest.raises(SchemaError, match="Tag 5 is not valid for version 1"):
        decode(ALL_TYPES, rogue, 1)
    values2 = sw.sample(ALL_TYPES_W, random.Random(2), 2)
    values2.update(tagI=-5, tagS=None, tagA=[], tagStruct=None, tagPlain={"p": 0})
    data2 = sw.encode(ALL_TYPES_W, values2, 2)
    assert "tagStruct" not in decode(ALL_TYPES, data2[:-1] + bytes([1, 5, 1, 0]), 2)


def test_nullable_struct_markers() -> None:
    s = Schema("N", "0", "none", (Field("S", "S", nullable_versions="0+", fields=(Field("A", "int8"),)),))
    assert decode(s, b"\xff", 0) == {"s": None}
    assert decode(s, b"\x80", 0) == {"s": None}  # any negative marker
    assert decode(s, b"\x01\x05", 0) == {"s": {"a": 5}}


def test_compact_and_classic_lengths() -> None:
    s = Schema("S", "0-1", "1+", (Field("A", "string", nullable_versions="0+"),))
    assert decode(s, b"\xff\xff", 0) == {"a": None}
    assert decode(s, b"\x00\x02hi", 0) == {"a": "hi"}
    assert decode(s, b"\x00\x00", 1) == {"a": None}
    assert decode(s, b"\x03hi\x00", 1) == {"a": "hi"}
    with pytest.raises(SchemaError, match="non-nullable"):
        decode(Schema("S", "0", "none", (Field("A", "string"),)), b"\xff\xff", 0)
    with pytest.raises(SchemaError, match="invalid length"):
        decode(Schema("S", "0", "0+", (Field("A", "string"),)), b"\x82\x80\x02", 0)
    with pytest.raises(SchemaError, match="allocate a collection"):
        decode(Schema("S", "0", "none", (Field("A", "[]int32"),)), b"\x00\x00\x00\x09\x00", 0)


def test_records_type_renders_empty_binary() -> None:
    s = Schema("R", "0", "0+", (Field("Recs", "records", nullable_versions="0+"),))
    assert decode(s, b"\x04abc\x00", 0) == {"recs": ""}
    assert decode(s, b"\x00\x00", 0) == {"recs": None}


def test_uvarint_limits() -> None:
    assert Reader(b"\xac\x02").uvarint() == 300
    assert Reader(b"\xff\xff\xff\xff\x0f").uvarint() == -1  # a Java int
    with pytest.raises(SchemaError, match="too long"):
        Reader(b"\xff\xff\xff\xff\xff\x01").uvarint()
    with pytest.raises(SchemaError):
        Reader(b"\x80").uvarint()


def test_read_beyond_valid_versions_is_refused() -> None:
    with pytest.raises(SchemaError, match="Can't read version 3 of AllTypes"):
        read_message(ALL_TYPES, b"", 3)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 2))
def test_garbage_never_escapes_as_other_errors(data: bytes, version: int) -> None:
    try:
        decode(ALL_TYPES, data, version)
    except SchemaError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2), st.integers(0, 10_000), st.data())
def test_truncations_raise_schema_error(version: int, seed: int, data: st.DataObject) -> None:
    values = sw.sample(ALL_TYPES_W, random.Random(seed), version)
    full = sw.encode(ALL_TYPES_W, values, version)
    cut = data.draw(st.integers(0, len(full) - 1))
    with pytest.raises(SchemaError):
        decode(ALL_TYPES, full[:cut], version, exact=True)


# ----------------------------------------------------------------------------- Jackson text


def test_json_text_matches_jackson() -> None:
    # Produced by Jackson 2.17 ObjectNode.toString() on JDK 25 for the same nodes.
    expected = (
        '{"s":"a\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001F\x7f/é€😀\u2028",'
        '"d":[0.0,-0.0,1.0,1.0E7,9999999.0,0.001,9.99E-4,1.0E-4,123.456,1.0E22,1.0E23,'
        "2.0E23,4.9E-324,1.7976931348623157E308,0.1,0.3333333333333333,100.0,1048576.0,"
        '"NaN","Infinity","-Infinity",4.35,0.002,1.0E-5,1.23456789E7],'
        '"b":"AAEC+vv/Pj8=","e":"","z":null,"sh":-5,"l":-9223372036854775808}'
    )
    doubles = [0.0, -0.0, 1.0, 1e7, 9999999.0, 1e-3, 9.99e-4, 1e-4, 123.456, 1e22, 1e23]
    doubles += [2e23, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3, 100.0, 1048576.0]
    obj = {
        "s": 'a"b\\c\n\t\r\b\f\x01\x1f\x7f/é€😀\u2028',
        "d": [*doubles, "NaN", "Infinity", "-Infinity", 4.35, 2e-3, 1e-5, 12345678.9],
        "b": "AAEC+vv/Pj8=",
        "e": "",
        "z": None,
        "sh": -5,
        "l": -(2**63),
    }
    assert json_text(obj) == expected


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1.0, "1.0"),
        (-2.5, "-2.5"),
        (1e7, "1.0E7"),
        (1e-3, "0.001"),
        (1e-4, "1.0E-4"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
        (5e-324, "4.9E-324"),
        (1e-323, "9.9E-324"),
        (123456789012.0, "1.23456789012E11"),
    ],
)
def test_java_double_str(x: float, text: str) -> None:
    assert java_double_str(x) == text


_PLAIN_TEXT = st.text(st.characters(min_codepoint=0x20, exclude_characters='"\\'))


@settings(max_examples=300)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**63), 2**63) | _PLAIN_TEXT,
        lambda c: st.lists(c, max_size=4) | st.dictionaries(_PLAIN_TEXT, c, max_size=4),
        max_leaves=20,
    )
)
def test_json_text_is_compact_json(obj: object) -> None:
    """Without control characters or doubles, Jackson's text is json.dumps' compact text."""
    text = json_text(obj)
    assert json.loads(text) == obj
    assert text == json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


# ----------------------------------------------------------------------------- control records

CONTROL_W = sw.parse_many(
    """
LeaderChangeMessage versions=0-1 flexible=0+
  version int16
  leaderId int32
  voters []
    voterId int32
    voterDirectoryId uuid v=1+
  grantingVoters []
    voterId int32
    voterDirectoryId uuid v=1+

SnapshotHeaderRecord versions=0 flexible=0+
  version int16
  lastContainedLogTimestamp int64

SnapshotFooterRecord versions=0 flexible=0+
  version int16

KRaftVersionRecord versions=0 flexible=0+
  version int16
  kRaftVersion int16

VotersRecord versions=0 flexible=0+
  version int16
  voters []
    voterId int32
    voterDirectoryId uuid
    endpoints []
      name string
      host string
      port uint16
    kRaftVersionFeature {}
      minSupportedVersion int16
      maxSupportedVersion int16
"""
)
CONTROL_TYPES = {
    2: "LeaderChangeMessage",
    3: "SnapshotHeaderRecord",
    4: "SnapshotFooterRecord",
    5: "KRaftVersionRecord",
    6: "VotersRecord",
}


def test_control_schemas_cover_types_2_to_6() -> None:
    assert sorted(CONTROL_SCHEMAS) == [2, 3, 4, 5, 6]
    assert {t: s.name for t, s in CONTROL_SCHEMAS.items()} == CONTROL_TYPES


@pytest.mark.parametrize("control_type", sorted(CONTROL_TYPES))
@pytest.mark.parametrize("seed", range(10))
def test_control_values_round_trip(control_type: int, seed: int) -> None:
    w = CONTROL_W[CONTROL_TYPES[control_type]]
    values = sw.sample(w, random.Random(seed), 0)
    values["version"] = 0
    body = sw.encode(w, values, 0, unknown_tags=[(9, b"zz")] if seed % 2 else None)
    assert decode_control_value(control_type, body) == sw.expected_json(w, values, 0)


def test_snapshot_header_example() -> None:
    body = b"\x00\x00" + struct.pack(">q", 123) + b"\x00"
    assert decode_control_value(3, body) == {"version": 0, "lastContainedLogTimestamp": 123}
    assert control_record_text(3, body) == (' SnapshotHeader {"version":0,"lastContainedLogTimestamp":123}')
    assert control_record_text(4, b"\x00\x00\x00") == ' SnapshotFooter {"version":0}'
    assert control_record_text(5, b"\x00\x00\x00\x01\x00") == (' KRaftVersion {"version":0,"kRaftVersion":1}')


def test_leader_change_is_read_at_v0_and_shown_at_its_version() -> None:
    # Kafka reads every body at version 0 and renders it at the Version field's value.
    w = CONTROL_W["LeaderChangeMessage"]
    values = {"version": 1, "leaderId": 3, "voters": [{"voterId": 3}], "grantingVoters": []}
    body = sw.encode(w, values, 0)
    assert decode_control_value(2, body) == {
        "version": 1,
        "leaderId": 3,
        "voters": [{"voterId": 3, "voterDirectoryId": "AAAAAAAAAAAAAAAAAAAAAA"}],
        "grantingVoters": [],
    }
    assert control_record_text(2, body) == " controlType: LEADER_CHANGE(2)"


def test_end_transaction_markers() -> None:
    assert decode_control_value(1, b"\x00\x00\x00\x00\x00\x05") == {
        "version": 0,
        "coordinatorEpoch": 5,
    }
    assert control_record_text(1, b"\x00\x00\x00\x00\x00\x05") == (
        " endTxnMarker: COMMIT coordinatorEpoch: 5"
    )
    assert control_record_text(0, b"\x00\x01\x00\x00\x00\x07") == (" endTxnMarker: ABORT coordinatorEpoch: 7")
    with pytest.raises(SchemaError, match="Invalid value size"):
        decode_control_value(0, b"\x00\x00")
    with pytest.raises(SchemaError, match="Invalid version"):
        decode_control_value(0, b"\xff\xff\x00\x00\x00\x00")


def test_control_errors() -> None:
    assert control_record_text(9, b"") == " controlType: UNKNOWN(9)"
    with pytest.raises(SchemaError):
        decode_control_value(9, b"")
    with pytest.raises(SchemaError):
        decode_control_value(3, b"\x00\x00\x00")  # truncated
