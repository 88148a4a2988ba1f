"""The output model: every object type (*kind*) kdump writes, with its typed fields, in order.

One definition per kind, read by everything that writes or describes objects:

- the JSON Lines writers take each object's field names and their order from here
  (:func:`shape`; ``kdump metadata``'s objects: :func:`shape_metadata`);
- ``--format table`` of ``dump`` takes the batch and record columns it does not draw
  itself from here (:func:`extra_fields`: a field added to ``batch`` or ``record`` shows
  in the table as ``name=value``, kdump/render/table.py);
- docs/json-schema.md and the man pages' schema sections are generated from it
  (:func:`markdown`, kdump/cli/manpages.py), each field with its type;
- the Spark columns (:data:`SPARK_COLUMNS`) are checked against the types of the
  batch/record fields of the same name (tests/test_model.py);
- the native record writer (kdump/_speedups_writers.c) is tested byte for byte against the
  Python writer, which shapes through here (tests/test_speedups.py);
- tests/test_model.py checks that the objects kdump writes (the sample log dir's, the
  goldens', ``kdump metadata``'s) hold values of the declared types.

``--format text`` of ``dump`` is not generated from the model: it is the fixed lines of
Kafka's DumpLogSegments (kafka-dump-log.sh), so a new field shows in text only where
DumpLogSegments prints one.  Other commands' text and table layouts are their own
renderers' (kdump/render/registry.py picks one per command and format).

Each family of commands declares its kinds in a module of its own, beside the others of
its family, as ``KINDS``: :mod:`.dump` (dump and ``dump --summary``), :mod:`.schemas`,
:mod:`.findings` (``problem``, every command's, and verify's ``summary``),
:mod:`.size_report`, :mod:`.find`, :mod:`.replicas` (compare-replicas, lag,
coordinator-partition), :mod:`.export` (with :data:`SPARK_COLUMNS`), :mod:`.retention`,
:mod:`.report`, :mod:`.repair` and :mod:`.metadata` (:data:`METADATA_SCHEMA`, a namespace
of its own).  This module joins them into :data:`SCHEMA` in :data:`ORDER` (the order
docs/json-schema.md lists them) and holds what reads them.

A field is declared ``(name, type, doc)``: ``name`` ends in ``?`` when the field appears
only in some objects of the kind (said in the doc); ``type`` is a JSON type in
:data:`TYPES` (``str``, ``int``, ``float``, ``bool``, ``object``, ``list``, ``any``),
``|null`` when the value may be null (``int|null``).  Each declaration becomes a
:class:`Field` (kdump/model/fields.py), which still unpacks as the two-tuple ``(name, doc)``.

How to add a kind (a new object some command writes):

1. In its family's module (a new command: a new module, imported below and added to
   :data:`FAMILIES`), add ``"kind": ("what it is (which command)", [("field", "type",
   "doc"), ...])`` to its ``KINDS`` (``kdump metadata``'s objects: kdump/model/metadata.py),
   fields in the order the JSON shows them, and name the kind in :data:`ORDER` where
   docs/json-schema.md should list it (importing kdump.model fails on a kind declared
   twice, or declared and not ordered).  The older form ``("field", "doc")`` is still
   accepted: the field's type is then ``any`` and tests/test_model.py lists the kind as
   untyped (:func:`untyped_kinds`) until it is given types.
2. Build the JSON object with ``shape("kind", {field: value, ...})`` in the core (or
   ``shape_metadata``): it orders the fields, leaves out absent optional ones and
   raises KeyError for a missing required field or an undeclared one.  Objects with a
   ``to_json()`` method are written by :class:`kdump.render.jsonl.JsonRenderer` as is.
3. Give the command's family a renderer per format in kdump/render/registry.py.  A
   family whose objects need no layout of their own can register
   ``objects:ModelTextRenderer`` and ``objects:ModelTableRenderer`` (with ``json``:
   ``jsonl:JsonRenderer``): they draw every declared field from the model alone
   (``metadata=True`` for :data:`METADATA_SCHEMA`'s kinds).
4. Regenerate docs/json-schema.md's schema section (``markdown()``, between the
   ``json-schema`` markers) and the man pages (``python -m kdump.cli.manpages man``);
   tests/test_docs.py fails until they match.  Add the command's JSON output to
   tests/test_model.py's type check.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from operator import itemgetter
from typing import Any

from . import (
    dump,
    export,
    find,
    findings,
    metadata,
    repair,
    replicas,
    report,
    retention,
    schemas,
    size_report,
    timeline,
)
from .dump import BATCH_FIELDS
from .export import SPARK_COLUMNS, Column, spark_fields, spark_markdown
from .fields import ANY, TYPES, Declared, Field, Kinds, field, typed
from .size_report import SIZE_ROW_TYPES

__all__ = [
    "ANY", "BATCH_FIELDS", "ENCODING_NOTES", "FAMILIES", "METADATA_SCHEMA", "ORDER", "SCHEMA",
    "SIZE_ROW_TYPES", "SPARK_COLUMNS", "TYPES", "TYPE_NOTES", "Column", "Declared", "Field",
    "Kinds", "conforms", "describe_fields", "extra_fields", "field", "fields_of", "markdown",
    "shape", "shape_metadata", "spark_fields", "spark_markdown", "type_errors", "typed",
    "untyped_kinds",
]

#: the modules declaring :data:`SCHEMA`'s kinds, one per family of commands
FAMILIES = (dump, schemas, findings, size_report, find, replicas, export, retention, report,
            repair, timeline)

#: every kind of :data:`SCHEMA`, in the order docs/json-schema.md (and ``SCHEMA``) lists them
ORDER = (
    "file", "batch", "record", "schema", "log_end", "index_entry", "time_index_entry",
    "index_status", "txn_index_entry", "producer_snapshot_entry", "checkpoint_entry",
    "properties", "note", "problem", "summary", "segment", "partition", "topic", "total",
    "found", "not_found", "committed_offset", "group", "share_partition", "offsets_summary",
    "partition_comparison", "replicas_summary", "offsets_source", "lag", "group_lag",
    "coordinator_partition", "export",
    "retention_run", "retention_config", "retention_segment", "retention_compaction",
    "retention_partition", "retention_total", "retention_held_dir", "retention_disk",
    "export_file", "export_end",
    "report", "section", "input_file", "cluster_image", "log_dir", "activity", "timeline",
    "transaction", "schema_usage", "report_end",
    "repair", "repair_dropped", "repair_file", "repair_partition", "repair_fill", "repair_absent",
    "repair_input", "repair_end",
    "timeline_event", "timeline_count", "timeline_end",
)


def assemble(order: Sequence[str], families: Sequence[Kinds]) -> Kinds:
    """One schema of the families' kinds, in ``order``: a kind declared by two families,
    or declared and not ordered (or ordered and not declared), is a programming error
    (ValueError, at import)."""
    declared: Kinds = {}
    for kinds in families:
        twice = declared.keys() & kinds.keys()
        if twice:
            raise ValueError(f"output kinds declared by two families: {sorted(twice)}")
        declared.update(kinds)
    if len(set(order)) != len(order) or set(order) != declared.keys():
        raise ValueError("output kinds declared and not in ORDER, or ordered and not declared: "
                         f"{sorted(set(order) ^ declared.keys())}")
    return {kind: declared[kind] for kind in order}


#: every kind kdump writes but ``kdump metadata``'s: kind -> (what it is, its fields)
SCHEMA: Kinds = assemble(ORDER, [family.KINDS for family in FAMILIES])

#: ``kdump metadata``'s objects (a namespace of their own)
METADATA_SCHEMA: Kinds = metadata.KINDS


def fields_of(kind: str, schema: Mapping[str, tuple[str, Sequence[Any]]] | None = None
              ) -> list[Field]:
    """The fields of ``kind`` (of :data:`SCHEMA`, or of ``schema``: :data:`METADATA_SCHEMA`),
    in order.  size-report's row kinds share ``total``'s fields."""
    if schema is None or schema is SCHEMA:
        decl = SCHEMA["total" if kind in SIZE_ROW_TYPES else kind]
    else:
        decl = schema[kind]
    return [field(d) for d in decl[1]]


#: (kind, upto, the names ``values`` holds, in its order) -> (the documented order of
#: those names, a getter of their values in that order): checked once per shape of input
_Order = tuple[tuple[str, ...], Callable[[Mapping[str, Any]], tuple[Any, ...]]]
_ORDERS: dict[tuple[str, str | None, tuple[str, ...]], _Order] = {}
_METADATA_ORDERS: dict[tuple[str, str | None, tuple[str, ...]], _Order] = {}


def shape(kind: str, values: Mapping[str, Any], upto: str | None = None) -> dict[str, Any]:
    """The JSON object of type ``kind``: ``type`` first, then the documented fields in
    their documented order, each from ``values`` (with ``upto``: only the fields before
    that one).  An optional field (``name?``) missing from ``values`` is left out; a
    required one missing, or a name that is not documented, is a programming error
    (KeyError).  Values are not type-checked here (this runs per record): the tests
    check the declared types on real output (tests/test_model.py)."""
    key = (kind, upto, tuple(values))
    known = _ORDERS.get(key)
    if known is None:
        known = _ORDERS[key] = _order(fields_of(kind), kind, upto, key[2])
        if len(_ORDERS) > 4096:  # input shapes are few; never let them pile up
            _ORDERS.clear()
    names, get = known
    obj: dict[str, Any] = {"type": kind}
    obj.update(zip(names, get(values), strict=True))
    return obj


def shape_metadata(kind: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`shape` for ``kdump metadata``'s objects (:data:`METADATA_SCHEMA`, a
    namespace of its own); a ``type`` in ``values`` is ignored (the image keeps its
    objects with their type)."""
    given = tuple(k for k in values if k != "type")
    key = (kind, None, given)
    known = _METADATA_ORDERS.get(key)
    if known is None:
        known = _METADATA_ORDERS[key] = _order(fields_of(kind, METADATA_SCHEMA), kind, None,
                                               given)
        if len(_METADATA_ORDERS) > 4096:
            _METADATA_ORDERS.clear()
    names, get = known
    obj: dict[str, Any] = {"type": kind}
    obj.update(zip(names, get(values), strict=True))
    return obj


def _order(fields: list[Field], kind: str, upto: str | None, given: tuple[str, ...]) -> _Order:
    present = set(given)
    names: list[str] = []
    documented = set()
    for f in fields:
        name = f.name
        if name == upto:
            break
        documented.add(name)
        if name in present:
            names.append(name)
        elif not f.optional:
            raise KeyError(f"{kind} object without its field {name!r}")
    extra = present - documented
    if extra:
        raise KeyError(f"{kind} object with undocumented fields {sorted(extra)}")
    if len(names) == 1:
        only = names[0]
        return tuple(names), lambda v: (v[only],)
    return tuple(names), itemgetter(*names) if names else (lambda v: ())


def extra_fields(kind: str, known: Collection[str]) -> list[Field]:
    """The fields of ``kind`` a renderer with its own layout does not draw (``known``:
    the names it does), in model order: what it shows as ``name=value`` so a field
    added to the model is never missing from it."""
    return [f for f in fields_of(kind) if f.name not in known]


def conforms(value: Any, typ: str) -> bool:
    """``value`` (as parsed from JSON) is of the declared type ``typ``."""
    if typ == ANY:
        return True
    base, _, null = typ.partition("|")
    if value is None:
        return null == "null"
    if base == "str":
        return isinstance(value, str)
    if base == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if base == "float":  # JSON numbers: an integral ratio may be written as 2
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if base == "bool":
        return isinstance(value, bool)
    if base == "object":
        return isinstance(value, dict)
    if base == "list":
        return isinstance(value, list)
    return base == ANY


def type_errors(obj: Mapping[str, Any], schema: Mapping[str, tuple[str, Sequence[Any]]] | None
                = None) -> list[str]:
    """What in the JSON object ``obj`` does not match its kind's declared types (and
    names not declared, or required ones missing): empty when it conforms."""
    kind = obj.get("type")
    try:
        fields = fields_of(str(kind), schema)
    except KeyError:
        return [f"undeclared kind {kind!r}"]
    out = []
    declared = {f.name: f for f in fields}
    for name, value in obj.items():
        if name == "type":
            continue
        f = declared.get(name) or declared.get("...")
        if f is None:
            out.append(f"{kind}.{name}: not declared")
        elif not conforms(value, f.type):
            out.append(f"{kind}.{name}: {value!r} is not {f.type}")
    out += [f"{kind}.{f.name}: missing" for f in fields
            if not f.optional and f.name not in obj]
    return out


def untyped_kinds() -> list[str]:
    """Kinds with a field declared without a type (``(name, doc)``): to be typed."""
    out = []
    for schema, prefix in ((SCHEMA, ""), (METADATA_SCHEMA, "metadata ")):
        for kind in schema:
            if any(f.type == ANY and f.name != "..." for f in fields_of(kind, schema)):
                out.append(prefix + kind)
    return sorted(out)


def describe_fields(fields: Sequence[Field], code: str = "`") -> str:
    """``name`` type, ... of ``fields`` for the docs (an untyped field: its name only)."""
    return ", ".join(f"{code}{f[0]}{code}" + ("" if f.type == ANY else f" {f.type}")
                     for f in fields)


#: How strings are written, for the README and the man pages.
ENCODING_NOTES = (
    "Keys, values and header values are written per --payload-encoding: utf8 (default) "
    "writes valid UTF-8 as is and anything else as base64, saying which in "
    "key_encoding/value_encoding; base64 and hex apply to every payload; null stays null. "
    "key and value always hold the raw bytes; a decoder's structure is under decoded. "
    "Header keys are Strings in Kafka: always text, base64 only when not valid UTF-8 "
    "(key_encoding says so). Every line is valid UTF-8 JSON: C1 controls (U+0080-U+009F) "
    "and bidirectional-text controls (U+061C, U+200E, U+200F, U+202A-U+202E, "
    "U+2066-U+2069) are written as \\uXXXX escapes (the same string once parsed), and a "
    "file name holding bytes that are not UTF-8 has each such byte as the escape "
    "\\udc80-\\udcff (Python's surrogateescape): os.fsencode of the parsed name gives "
    "the name's bytes back."
)


#: How fields are described, for the README and the man pages.
TYPE_NOTES = (
    "Each field is given with its JSON type: str, int, float, bool, object or list; "
    "|null when it may be null. A field name ending in ? appears only in some objects of "
    "the type (its description says which)."
)


def markdown() -> str:
    """The schema as a Markdown section (the README embeds it; a test checks it)."""
    out = []
    for kind, (what, _) in SCHEMA.items():
        if kind in ("segment", "partition", "topic"):
            continue
        label = "`segment` / `partition` / `topic` / `total`" if kind == "total" else f"`{kind}`"
        names = describe_fields(fields_of(kind))
        out.append(f"- {label}: {what if kind != 'total' else 'size-report rows and total'}. "
                   f"Fields: {names}.")
    out.append("")
    out.append("`kdump metadata` writes objects of its own (its `topic` and `partition` are "
               "not size-report rows):")
    out.append("")
    for kind, (what, _) in METADATA_SCHEMA.items():
        names = describe_fields(fields_of(kind, METADATA_SCHEMA))
        out.append(f"- `{kind}`: {what}. Fields: {names}.")
    out.append("")
    out.append(TYPE_NOTES)
    out.append("")
    out.append(ENCODING_NOTES)
    return "\n".join(out) + "\n"
