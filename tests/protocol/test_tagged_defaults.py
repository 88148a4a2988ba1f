"""Tagged fields in kdump's JSON exactly as Kafka's generated JsonConverter prints them.

Kafka's ``JsonConverterGenerator.generateWrite`` (3.9-4.4) writes a tagged field only
when ``FieldSpec.generateNonDefaultValueCheck`` says it differs from its default:

* array: default ``"null"`` -> present unless null (so ``[]`` prints); otherwise, when
  nullable, ``x == null || !x.isEmpty()``; not nullable, ``!x.isEmpty()``;
* bytes: the same with ``length != 0``;
* string, struct, uuid: default ``"null"`` -> present unless null; otherwise
  ``x == null || !x.equals(default)`` (the declared default, ``""``, the empty struct,
  ``Uuid.ZERO_UUID``);
* bool: ``x != default``; numbers: ``x != default`` (declared defaults such as ``-1``).

A JSON ``"default": null`` in a definition is a Java null to Kafka's generator, which
FieldSpec's constructor makes ``""``: no default (ClassicMemberMetadata, the
AssignmentEpochs and LastAssignmentConfigs of 4.2/4.3).

The rule is written here once more (:func:`_kafka_default`), from the descriptions of
tests/support/kafka4_specs.py, apart from kdump's; every tagged field of every record of every
release and version is encoded by tests/support/message_writer.py holding its default and
values that are not, with its bytes present (``write_defaults``) and as Kafka writes
it, and kdump's JSON must hold the field exactly when the rule says.
"""

from __future__ import annotations

import json
import math
import random
import struct
from pathlib import Path
from typing import Any

import pytest

from kdump.protocol.definitions import RecordDef, definitions
from kdump.protocol.messages import read_message, to_json
from tests.support import kafka4_specs as ks
from tests.support import message_writer as sw
from tests.support import writer as w

_INTS = {"int8": (-(2**7), 2**7 - 1), "int16": (-(2**15), 2**15 - 1), "uint16": (0, 2**16 - 1),
         "int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-(2**63), 2**63 - 1)}


def _declared(f: sw.WField) -> str:
    """Kafka's ``fieldDefault`` string: absent (or a JSON null) is ``""``."""
    return "" if f.default is None else f.default


def _kafka_default(f: sw.WField, value: Any) -> bool:
    """``!generateNonDefaultValueCheck(f)`` for ``value`` (Kafka 3.9-4.4)."""
    d = _declared(f)
    if f.is_array or f.type == "bytes":
        if d == "null":
            return value is None
        return value is not None and len(value) == 0
    if f.is_struct or f.type in ("string", "uuid"):
        if d == "null":
            return value is None
        if value is None:
            return False
        if f.is_struct:
            return bool(value == {c.name: sw.default_of(c) for c in f.children})
        if f.type == "uuid":
            return bool(value == (d or sw.ZERO_UUID_TEXT))
        return bool(value == d)
    if f.type == "bool":
        return bool(value) == (d.lower() == "true")
    if f.type == "float64":
        return bool(value == (float(d) if d else 0.0))  # NaN != anything: not default
    return bool(value == (int(d, 0) if d else 0))


def _candidates(f: sw.WField, version: int, rng: random.Random) -> list[Any]:
    """The field's default and values beside it, nulls where the version allows them."""
    nullable = sw._in(version, f.nullable)
    out: list[Any] = []
    if f.is_array:
        sample = sw._sample_field(sw.WField(f.name, f.type, f.versions, None, None, None,
                                            None, f.children), rng, version, 1)
        elem = (sw._sample_struct(f.children, rng, version, 1) if f.is_struct
                else sw._sample_scalar(f.elem, rng))
        out = [[], [elem], sample]
    elif f.is_struct:
        out = [{c.name: sw.default_of(c) for c in f.children},
               sw._sample_struct(f.children, rng, version, 1)]
    elif f.type == "string":
        out = ["", "x", _declared(f) if _declared(f) != "null" else "y"]
    elif f.type == "bytes":
        out = [b"", b"\x01"]
    elif f.type == "bool":
        out = [False, True]
    elif f.type == "uuid":
        out = [sw.ZERO_UUID_TEXT, sw._sample_scalar("uuid", rng)]
        if _declared(f):
            out.append(_declared(f))
    elif f.type == "float64":
        out = [0.0, 1.5, float("nan")] + ([float(_declared(f))] if _declared(f) else [])
    else:
        lo, hi = _INTS[f.type]
        d = int(_declared(f), 0) if _declared(f) else 0
        out = sorted({0, d, d + 1 if d < hi else d - 1, max(lo, -1)})
    if nullable:
        out.append(None)
    return out


def _tagged_paths(fields: list[sw.WField], version: int, path: tuple[sw.WField, ...] = ()
                  ) -> list[tuple[sw.WField, ...]]:
    """Every tagged field present at ``version``, at any depth (through structs and
    arrays of structs), as the fields leading to it."""
    out = []
    for f in fields:
        if not sw._in(version, f.versions):
            continue
        here = (*path, f)
        if sw._in(version, f.tagged):
            out.append(here)
        if f.is_struct and f.children:
            out += _tagged_paths(f.children, version, here)
    return out


def _put(values: dict[str, Any], path: tuple[sw.WField, ...], value: Any,
         rng: random.Random, version: int) -> dict[str, Any]:
    """``values`` with the field at ``path`` set (a struct or an array's first element on
    the way made non-null and non-empty), and the object holding it."""
    obj = values
    for f in path[:-1]:
        inner = obj.get(f.name)
        if f.is_array:
            if not inner:
                inner = [sw._sample_struct(f.children, rng, version, 1)]
                obj[f.name] = inner
            obj = inner[0]
        else:
            if inner is None:
                inner = sw._sample_struct(f.children, rng, version, 1)
                obj[f.name] = inner
            obj = inner
    obj[path[-1].name] = value
    return obj


def _json_at(out: dict[str, Any], path: tuple[sw.WField, ...]) -> dict[str, Any] | None:
    obj: Any = out
    for f in path[:-1]:
        obj = obj.get(f.name) if isinstance(obj, dict) else None
        if isinstance(obj, list):
            obj = obj[0] if obj else None
    return obj if isinstance(obj, dict) else None


def _cases() -> list[tuple[str, str, int, str, int]]:
    out = []
    for release, table in ks.SPECS.items():
        for (family, t), (key, value) in sorted(table.items()):
            for role, spec in (("key", key), ("value" if key is not None else "record", value)):
                if spec is None or spec.flexible is None:
                    continue
                for v in spec.versions():
                    if sw._in(v, spec.flexible) and _tagged_paths(spec.fields, v):
                        out.append((release, family, t, role, v))
    return out


CASES = _cases()


def _layout(release: str, family: str, record_type: int, role: str) -> RecordDef:
    return next(d for d in definitions(family) if d.role == role
                and d.record_type == record_type and release in d.releases)


def test_the_cases_reach_every_kind_of_tagged_field() -> None:
    """The check below can fail: it meets every kind of tagged field 3.9-4.4's records
    have: nullable arrays with a JSON null default (none) and with ``"null"``, arrays that
    are not nullable, a nullable struct, a nullable string with default ``"null"``, uuids,
    numbers with declared defaults (-1, -2) and without.  (No on-disk record has a tagged
    bool, bytes or float64: the rule for those is the same check, tested on the same
    code through the kinds above.)"""
    kinds = set()
    for release, family, t, role, v in CASES:
        key, value = ks.SPECS[release][(family, t)]
        spec = key if role == "key" else value
        assert spec is not None
        for path in _tagged_paths(spec.fields, v):
            f = path[-1]
            kind = ("array" if f.is_array else "struct" if f.is_struct else f.type)
            d = _declared(f)
            kinds.add((kind, sw._in(v, f.nullable), d if d in ("", "null") else "declared"))
    assert {("array", True, ""), ("array", True, "null"), ("array", False, ""),
            ("struct", True, ""), ("string", True, "null"), ("uuid", False, ""),
            ("int32", False, "declared"), ("int8", False, ""), ("int64", False, "declared")
            } <= kinds
    assert ("4.3", "group", 17, "value", 0) in CASES  # StreamsGroupMetadataValue
    assert ("4.2", "group", 22, "value", 0) in CASES  # StreamsGroupCurrentMemberAssignment


@pytest.mark.parametrize(("release", "family", "record_type", "role", "version"), CASES)
def test_a_tagged_field_prints_exactly_when_it_is_not_its_default(
        release: str, family: str, record_type: int, role: str, version: int) -> None:
    key, value = ks.SPECS[release][(family, record_type)]
    spec = key if role == "key" else value
    assert spec is not None
    schema = _layout(release, family, record_type, role).schema
    seen = 0
    for path in _tagged_paths(spec.fields, version):
        f = path[-1]
        rng = random.Random(f"{release}/{family}/{record_type}/{role}/{version}/{f.name}")
        for candidate in _candidates(f, version, rng):
            values = sw.sample(spec, rng, version)
            if family != "metadata":
                ks.fix_enums(family, record_type, values)
            holder = _put(values, path, candidate, rng, version)
            want_present = not _kafka_default(f, candidate)
            for write_defaults in (True, False):
                body = sw.encode(spec, values, version, write_defaults=write_defaults)
                message, end = read_message(schema, body, version)
                assert end == len(body)
                out = to_json(schema.fields, message, version)
                at = _json_at(out, path)
                if at is None:  # a tagged holder at its own default: left out whole
                    assert len(path) > 1
                    continue
                name = f.name
                assert (name in at) == want_present, (path[-1].name, candidate, write_defaults)
                if want_present and candidate is None:
                    assert at[name] is None
                if want_present and isinstance(candidate, float) and math.isnan(candidate):
                    assert at[name] == "NaN"
                seen += 1
                assert holder[name] is candidate or holder[name] == candidate
    assert seen > 0


# ----------------------------------------------------------------------------- Streams groups

def _i16(n: int) -> bytes:
    return struct.pack(">h", n)


def test_streams_group_records_of_kafka_4_3_print_their_tagged_arrays_as_kafka_does(
        kdump: Any, tmp_path: Path) -> None:
    """Kafka 4.3's StreamsGroupCurrentMemberAssignmentValue (type 22) and
    StreamsGroupMetadataValue (type 17) with AssignmentEpochs and LastAssignmentConfigs
    (``"default": null``: no default to Kafka's generator, so the default is the empty
    list): ``[]`` is left out, a null and a list print, through ``dump --format json``."""
    table = ks.SPECS["4.3"]
    meta_key, meta_value = table[("group", 17)]
    assign_key, assign_value = table[("group", 22)]
    assert meta_key is not None and assign_key is not None
    records = []
    datas = []
    for configs in ([], None, [{"key": "num.standby.replicas", "value": "1"}]):
        values = {"epoch": 7, "metadataHash": 99, "validatedTopologyEpoch": -1,
                  "lastAssignmentConfigs": configs}
        records.append((_i16(17) + sw.encode(meta_key, {"groupId": "app"}, 0),
                        _i16(0) + sw.encode(meta_value, values, 0, write_defaults=True)))
        datas.append(sw.expected_json(meta_value, values, 0))
    for epochs in ([], None, [5, 6]):
        task = {"subtopologyId": "0", "partitions": [0, 1], "assignmentEpochs": epochs}
        rng = random.Random(f"streams/{epochs}")
        values = sw.sample(assign_value, rng, 0)
        for f in assign_value.fields:
            if f.is_array and f.is_struct:  # activeTasks, standbyTasks, warmupTasks, ...
                values[f.name] = [dict(task)]
        ks.fix_enums("group", 22, values)
        key_values = sw.sample(assign_key, rng, 0)
        records.append((_i16(22) + sw.encode(assign_key, key_values, 0),
                        _i16(0) + sw.encode(assign_value, values, 0, write_defaults=True)))
        datas.append(sw.expected_json(assign_value, values, 0))
    pw = w.PartitionWriter(tmp_path / "__consumer_offsets-3")
    pw.append(w.v2_batch([w.Rec(k, v) for k, v in records]))
    pw.close()
    r = kdump("dump", "--format", "json", "--print-data-log", "--kafka-version", "4.3",
              "__consumer_offsets-3", cwd=tmp_path)
    assert (r.rc, r.err) == (0, "")
    got = [json.loads(line)["decoded"]["value"]["data"] for line in r.lines
           if line.startswith('{"type":"record"')]
    assert got == datas
    assert "lastAssignmentConfigs" not in got[0]
    assert got[1]["lastAssignmentConfigs"] is None
    assert got[2]["lastAssignmentConfigs"] == [{"key": "num.standby.replicas", "value": "1"}]
    tasks = [[t for v in g.values() if isinstance(v, list) for t in v
              if isinstance(t, dict) and "subtopologyId" in t] for g in got[3:]]
    assert all(ts for ts in tasks)
    assert all("assignmentEpochs" not in t for t in tasks[0])
    assert all(t["assignmentEpochs"] is None for t in tasks[1])
    assert all(t["assignmentEpochs"] == [5, 6] for t in tasks[2])
