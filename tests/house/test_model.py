"""The typed output model (kdump/model.py): declarations, the types of what kdump really
writes, and renderers that follow the model.

- every declared type is one of the model's types; a kind declared in the older untyped
  ``(name, doc)`` form is accepted and listed (a warning), never half-typed;
- the objects kdump writes (the sample log dir under every JSON-writing command, the
  dump goldens, ``kdump metadata``, ``lag``, ``dump --summary``) hold values of their
  declared types;
- the Spark columns agree with the types of the batch/record fields they are named after;
- a field added to the record (or batch) kind shows in ``--format json`` and
  ``--format table`` of ``dump`` with no change to either renderer, and the native
  record writer steps aside until it writes the same fields.
"""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from kdump import model
from kdump.model import (
    METADATA_SCHEMA,
    SCHEMA,
    SPARK_COLUMNS,
    TYPES,
    Field,
    conforms,
    field,
    fields_of,
    shape,
    shape_metadata,
    type_errors,
    untyped_kinds,
)
from tests.conftest import KdumpRunner, subprocess_env
from tests.decoders.test_internal_topics import _offsets_log
from tests.metadata.test_metadata import scenario, write_log
from tests.ops.compare_replicas.test_replicas import offsets_logdirs
from tests.ops.report.test_report import cluster

ROOT = Path(__file__).resolve().parents[2]


# ============================================================================ declarations


def test_every_declared_type_is_a_model_type() -> None:
    for schema in (SCHEMA, METADATA_SCHEMA):
        for kind in schema:
            for f in fields_of(kind, schema):
                assert isinstance(f, Field)
                base, _, null = f.type.partition("|")
                assert base in TYPES and null in ("", "null"), (kind, f)


def test_a_field_still_unpacks_as_name_and_doc() -> None:
    f = field(("crc_valid?", "bool", "the CRC matches"))
    name, doc = f
    assert (name, doc) == ("crc_valid?", "the CRC matches")
    assert (f.name, f.type, f.doc, f.optional, f.nullable) == (
        "crc_valid", "bool", "the CRC matches", True, False)
    assert pickle.loads(pickle.dumps(f)).type == "bool"
    assert field(("old_style", "a doc")).type == "any"
    assert field(("n", "int|null", "")).nullable
    with pytest.raises(ValueError, match="unknown type 'integer'"):
        field(("n", "integer", ""))


def test_untyped_kinds_are_listed_and_never_half_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kinds other branches add in the ``(name, doc)`` form are accepted (type any) and
    listed here as a warning until they are typed; a kind with some fields typed and
    others not is a mistake."""
    def half_typed(schema: dict[str, Any]) -> list[str]:
        return [kind for kind in schema
                if len({f.type == "any" for f in fields_of(kind, schema) if f.name != "..."}) > 1]

    assert half_typed(SCHEMA) == [] and half_typed(METADATA_SCHEMA) == []
    half = {"_half": ("probe", [field(("a", "int", "")), field(("b", "doc"))])}
    assert half_typed(half) == ["_half"]
    untyped = untyped_kinds()
    if untyped:
        warnings.warn(f"output model kinds without types: {untyped}", stacklevel=1)
    # the check sees an untyped kind
    monkeypatch.setitem(SCHEMA, "_probe", ("probe", [field(("a", "doc"))]))
    assert "_probe" in untyped_kinds()


def test_conforms() -> None:
    assert conforms(3, "int") and not conforms(True, "int") and not conforms(None, "int")
    assert conforms(None, "int|null") and conforms(2, "float") and conforms(0.5, "float")
    assert conforms(False, "bool") and not conforms(0, "bool")
    assert conforms({}, "object") and conforms([], "list") and conforms("x", "any")
    assert not conforms("3", "int") and not conforms([], "object")
    assert type_errors({"type": "index_entry", "file": "f", "slot": 0, "offset": "3",
                        "position": 1, "colour": 2}) == [
        "index_entry.offset: '3' is not int", "index_entry.colour: not declared"]
    assert type_errors({"type": "note", "file": "f"}) == ["note.text: missing"]


def test_shape_metadata_orders_and_refuses_drift() -> None:
    got = shape_metadata("topic", {"partitions": 2, "type": "topic", "topic_id": "x",
                                   "name": "orders"})
    assert list(got.items()) == [("type", "topic"), ("name", "orders"), ("topic_id", "x"),
                                 ("partitions", 2)]
    with pytest.raises(KeyError, match="without its field 'partitions'"):
        shape_metadata("topic", {"name": "orders", "topic_id": "x"})
    with pytest.raises(KeyError, match="undocumented fields \\['colour'\\]"):
        shape_metadata("feature", {"name": "a", "level": 1, "colour": 1})


def test_spark_columns_agree_with_the_model_types() -> None:
    spark = {"string": "str", "int": "int", "bigint": "int", "boolean": "bool"}
    declared = {f.name: f.type.removesuffix("|null")
                for kind in ("batch", "record") for f in fields_of(kind)}
    checked = 0
    for level in ("record", "batch", "verify"):
        for name, typ, _ in SPARK_COLUMNS[level]:
            if name in declared and typ in spark:
                assert spark[typ] == declared[name], (level, name, typ, declared[name])
                checked += 1
    assert checked > 30


# ============================================================================ real output


def _check(lines: list[str], schema: dict[str, Any] | None = None) -> set[str]:
    kinds = set()
    errors = []
    for line in lines:
        obj = json.loads(line)
        kinds.add(obj["type"])
        own = schema if (schema is not None and obj["type"] != "problem") else None
        errors += type_errors(obj, own)
    assert errors == []
    return kinds


SAMPLE_COMMANDS = [
    ["dump", ".", "--print-data-log"], ["dump", ".", "--deep-iteration"],
    ["dump", ".", "--index-sanity-check"], ["dump", "."],
    ["verify-crc", "."], ["verify-index", "."],
    ["size-report", ".", "--by", "segment"], ["size-report", ".", "--by", "partition"],
    ["size-report", ".", "--by", "topic", "--shallow"],
    ["find-offset", "orders-0", "130", "--print-data-log"],
    ["find-offset", "orders-0", "100000"], ["find-time", "orders-0", "1700000020000"],
    ["coordinator-partition", "g"],
    ["retention", ".", "--now", "2023-11-21T22:13:35Z"],
]


def test_sample_output_has_the_declared_types(kdump: KdumpRunner, sample_dir: Path) -> None:
    kinds: set[str] = set()
    for args in SAMPLE_COMMANDS:
        r = kdump(*args, "--format", "json", cwd=sample_dir)
        assert r.rc in (0, 1), (args, r.err)
        kinds |= _check(r.out.splitlines())
    assert {"file", "batch", "record", "log_end", "index_entry", "time_index_entry",
            "index_status", "producer_snapshot_entry", "checkpoint_entry", "properties",
            "summary", "segment", "partition", "topic", "total", "found", "not_found",
            "coordinator_partition", "retention_run", "retention_config", "retention_segment",
            "retention_partition", "retention_total"} <= kinds


def test_dump_goldens_have_the_declared_types() -> None:
    kinds: set[str] = set()
    for path in sorted((ROOT / "golden" / "dump").glob("*.json")):
        stdout = path.read_text(encoding="utf-8").split("--- stderr ---\n")[0]
        kinds |= _check([x for x in stdout.splitlines() if x])
    # (the goldens' one note was the broker's .lock, which the walk now passes over)
    assert {"batch", "record", "problem", "txn_index_entry"} <= kinds


def test_replicas_lag_and_offsets_output_have_the_declared_types(
        kdump: KdumpRunner, sample_dir: Path, tmp_path: Path) -> None:
    offsets_logdirs(tmp_path)
    kinds = _check(kdump("lag", "--format", "json", "b1", "b2", cwd=tmp_path).out.splitlines())
    r = kdump("compare-replicas", "--print-data-log", "--format", "json", "b1", "b2",
              cwd=tmp_path)
    kinds |= _check(r.out.splitlines())
    copy = tmp_path / "copy"
    shutil.copytree(sample_dir, copy)
    r = kdump("compare-replicas", "--format", "json", str(sample_dir), str(copy))
    kinds |= _check(r.out.splitlines())
    offsets = tmp_path / "offsets"
    offsets.mkdir()
    _offsets_log(offsets)
    r = kdump("dump", "--summary", "--format", "json", ".", cwd=offsets)
    kinds |= _check(r.out.splitlines())
    assert {"offsets_source", "lag", "group_lag", "partition_comparison", "replicas_summary",
            "record", "batch", "committed_offset", "offsets_summary"} <= kinds


def test_metadata_output_has_the_declared_types(kdump: KdumpRunner, tmp_path: Path) -> None:
    write_log(tmp_path / "__cluster_metadata-0", scenario())
    kinds: set[str] = set()
    for args in ([], ["--history"], ["--diff", "5", "40"]):
        r = kdump("metadata", ".", "--format", "json", *args, cwd=tmp_path)
        assert r.rc == 0, r.err
        kinds |= _check(r.out.splitlines(), METADATA_SCHEMA)
    assert set(METADATA_SCHEMA) - kinds <= {"delegation_token"}, set(METADATA_SCHEMA) - kinds


def test_report_output_has_the_declared_types(kdump: KdumpRunner, sample_dir: Path,
                                              tmp_path: Path) -> None:
    """kdump report's objects: its own kinds and the other commands'; in its cluster
    section the image's objects are kdump metadata's kinds (its topic and partition
    are not size-report rows)."""
    cluster(tmp_path)
    kinds: set[str] = set()
    for args in (["b1", "b2"], [str(sample_dir)]):
        r = kdump("report", *args, "--format", "json", cwd=tmp_path)
        assert r.rc in (0, 1), r.err
        errors, section = [], None
        for line in r.out.splitlines():
            obj = json.loads(line)
            kinds.add(obj["type"])
            if obj["type"] == "section":
                section = obj["name"]
            own = METADATA_SCHEMA if section == "cluster" and obj["type"] in METADATA_SCHEMA \
                else None
            errors += type_errors(obj, own)
        assert errors == []
    assert {"report", "section", "input_file", "activity", "timeline", "transaction",
            "report_end", "broker", "image", "retention_run", "retention_segment"} <= kinds


def test_repair_output_has_the_declared_types(kdump: KdumpRunner, sample_dir: Path,
                                              tmp_path: Path) -> None:
    """kdump repair's manifest, of a damaged copy of the sample (stdout and the file)."""
    copy = tmp_path / "copy"
    shutil.copytree(sample_dir, copy)
    log = copy / "orders-0" / "00000000000000000000.log"
    data = bytearray(log.read_bytes())
    data[3000:3100] = bytes(100)
    log.write_bytes(bytes(data))
    kinds: set[str] = set()
    for extra in (["--dry-run"], []):
        r = kdump("repair", str(copy), "--into", str(tmp_path / "out"), "--format", "json",
                  *extra)
        assert r.rc == 1, r.err
        kinds |= _check(r.out.splitlines())
    kinds |= _check((tmp_path / "out" / "kdump-repair-manifest.jsonl").read_text().splitlines())
    assert {"repair", "repair_dropped", "repair_file", "repair_partition", "repair_input",
            "repair_end"} <= kinds


# ============================================================================ one-place change


def test_the_native_writer_writes_the_model_record_fields() -> None:
    """The C record writer (kdump/_speedups_writers.c) writes these fields; a field added to the
    model's record kind must be taught to it (and listed in NATIVE_RECORD_FIELDS) --
    until then the Python writer writes every record (next test)."""
    from kdump.render.jsonl import NATIVE_RECORD_FIELDS, native_matches_model

    assert tuple(f[0] for f in fields_of("record")) == NATIVE_RECORD_FIELDS  # "name?"
    assert native_matches_model()


def _with_field(monkeypatch: pytest.MonkeyPatch, kind: str, decl: tuple[str, str, str],
                after: str) -> None:
    what, fields = SCHEMA[kind]
    new = list(fields)
    new.insert([f.name for f in new].index(after) + 1, field(decl))
    monkeypatch.setitem(SCHEMA, kind, (what, new))
    monkeypatch.setattr(model, "_ORDERS", {})


def test_a_field_added_to_the_record_and_batch_kinds_shows_in_json_and_table(
        kdump: KdumpRunner, sample_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kdump.render import jsonl

    plain = kdump("dump", "orders-1", "--deep-iteration", "--format", "table",
                  cwd=sample_dir).out
    _with_field(monkeypatch, "record", ("colour?", "str", "a test field"), "value_encoding")
    _with_field(monkeypatch, "batch", ("shade", "int", "a test field"), "crc_valid")
    record_values, batch_values = jsonl.record_values, jsonl.batch_values

    def coloured(*args: Any) -> dict[str, Any]:
        return {**record_values(*args), "colour": "blue"}

    def shaded(b: Any) -> dict[str, Any]:
        return {**batch_values(b), "shade": b.position}

    monkeypatch.setattr(jsonl, "record_values", coloured)
    monkeypatch.setattr(jsonl, "batch_values", shaded)
    assert not jsonl.native_matches_model()  # the C writer does not know colour

    r = kdump("dump", "orders-1", "--deep-iteration", "--format", "json", cwd=sample_dir)
    objs = [json.loads(x) for x in r.out.splitlines()]
    records = [o for o in objs if o["type"] == "record"]
    batches = [o for o in objs if o["type"] == "batch"]
    assert records and batches
    for o in records:  # in the model's place: after value_encoding, before headers
        keys = list(o)
        assert o["colour"] == "blue"
        assert keys[keys.index("value_encoding") + 1:keys.index("headers") + 1] == [
            "colour", "headers"]
    for o in batches:
        keys = list(o)
        assert o["shade"] == o["position"] and keys[keys.index("crc_valid") + 1] == "shade"

    t = kdump("dump", "orders-1", "--deep-iteration", "--format", "table", cwd=sample_dir)
    assert t.rc == 0, t.err
    assert t.out != plain
    assert t.out.count('colour="blue"') == len(records)
    for o in batches:
        assert f"shade={o['position']}" in t.out
    # with the model as it is, the table shows no extra field (the goldens hold it)
    assert "colour" not in plain and "shade" not in plain


def test_shape_of_a_kind_added_in_the_old_form(monkeypatch: pytest.MonkeyPatch) -> None:
    """What another branch adds as ``"kind": (what, [(name, doc), ...])`` works: shaped,
    documented (names without a type), listed as untyped."""
    monkeypatch.setitem(SCHEMA, "schema_entry", ("a registry entry", [
        ("subject", "its subject"), ("version?", "when known")]))
    monkeypatch.setattr(model, "_ORDERS", {})
    assert shape("schema_entry", {"subject": "s"}) == {"type": "schema_entry", "subject": "s"}
    assert "- `schema_entry`: a registry entry. Fields: `subject`, `version?`." in \
        model.markdown()
    assert "schema_entry" in untyped_kinds()


# ============================================================================ model renderers


def _render(cls: Any, objs: list[Any], **kw: Any) -> tuple[str, str]:
    import io

    out, err = io.StringIO(), io.StringIO()
    r = cls(out, err, **kw)
    for o in objs:
        r.emit(o)
    r.close()
    return out.getvalue(), err.getvalue()


def _objs() -> list[Any]:
    from kdump.findings import Problem

    return [shape("index_entry", {"file": "a.index", "slot": 0, "offset": 3, "position": 0}),
            shape("index_entry", {"file": "a.index", "slot": 1, "offset": 9,
                                  "position": 4096}),
            Problem("a.log", 7, "crc-mismatch", "stored 1, computed 2", base_offset=0),
            shape("note", {"file": "x y\x1b[31m\u202e.log", "text": "two words"})]


def test_model_text_renderer_writes_every_field_in_model_order() -> None:
    from kdump.render.objects import ModelTextRenderer

    out, err = _render(ModelTextRenderer, _objs())
    assert out.splitlines() == [
        "index_entry file=a.index slot=0 offset=3 position=0",
        "index_entry file=a.index slot=1 offset=9 position=4096",
        'note file="x y\\u001b[31m\\u202e.log" text="two words"']
    assert err == "a.log: position 7: crc-mismatch: stored 1, computed 2 (base offset 0)\n"
    # metadata kinds from their own namespace
    topic = shape_metadata("topic", {"name": "orders", "topic_id": "T", "partitions": 2})
    out, _ = _render(ModelTextRenderer, [topic], metadata=True)
    assert out == "topic name=orders topic_id=T partitions=2\n"


def test_model_table_renderer_draws_a_table_per_kind() -> None:
    from kdump.render.objects import ModelTableRenderer

    out, _ = _render(ModelTableRenderer, _objs(), width=100)
    assert [x.rstrip() for x in out.splitlines()] == [
        "index_entry",
        "┏━━━━━━━━━┳━━━━━━┳━━━━━━━━┳━━━━━━━━━━┓",
        "┃ file    ┃ slot ┃ offset ┃ position ┃",
        "┡━━━━━━━━━╇━━━━━━╇━━━━━━━━╇━━━━━━━━━━┩",
        "│ a.index │    0 │      3 │        0 │",
        "│ a.index │    1 │      9 │     4096 │",
        "└─────────┴──────┴────────┴──────────┘",
        "note",
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━┓",
        "┃ file                      ┃ text        ┃",
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━┩",
        '│ "x y\\u001b[31m\\u202e.log" │ "two words" │',
        "└───────────────────────────┴─────────────┘"]


def test_a_field_added_to_a_kind_shows_in_the_model_renderers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from kdump.render.objects import ModelTableRenderer, ModelTextRenderer

    _with_field(monkeypatch, "index_entry", ("colour?", "str", "a test field"), "slot")
    obj = shape("index_entry", {"file": "a.index", "slot": 0, "offset": 3, "position": 0,
                                "colour": "blue"})
    out, _ = _render(ModelTextRenderer, [obj])
    assert out == "index_entry file=a.index slot=0 colour=blue offset=3 position=0\n"
    out, _ = _render(ModelTableRenderer, [obj], width=100)
    assert "┃ file    ┃ slot ┃ colour ┃ offset ┃ position ┃" in out


def test_schema_joins_the_families_in_order() -> None:
    """SCHEMA is each family module's kinds (kdump/model/<family>.py), every one once, in
    ORDER; a kind two families declare, or one declared and not ordered, stops the
    import (assemble raises)."""
    assert list(SCHEMA) == list(model.ORDER)
    assert sum(len(family.KINDS) for family in model.FAMILIES) == len(SCHEMA)
    for family in model.FAMILIES:
        assert all(SCHEMA[kind] is decl for kind, decl in family.KINDS.items())
    assert model.METADATA_SCHEMA is model.metadata.KINDS
    note = SCHEMA["note"]
    with pytest.raises(ValueError, match=r"declared by two families: \['note'\]"):
        model.assemble(("note",), [{"note": note}, {"note": note}])
    with pytest.raises(ValueError, match=r"not in ORDER, or ordered and not declared: \['log_end'\]"):
        model.assemble(("note",), [{"note": note, "log_end": SCHEMA["log_end"]}])
    with pytest.raises(ValueError, match=r"\['gone'\]"):
        model.assemble(("note", "gone"), [{"note": note}])


def test_the_model_imports_nothing_but_its_own_modules() -> None:
    """Every command shapes through kdump.model (verify-crc too, tests/test_startup.py):
    its family modules import only kdump/model/fields.py, which imports only typing's
    collections; nothing of kdump's other floors, no json."""
    child = ("import sys, kdump; before = set(sys.modules); import kdump.model; "
             "print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                         env=subprocess_env(), check=True).stdout.split()
    assert "kdump.model.repair" in out and "kdump.model.fields" in out
    assert [m for m in out if not m.startswith("kdump.model")
            and m not in {"collections.abc", "operator", "typing", "_typing", "typing.io",
                          "typing.re"}] == []
