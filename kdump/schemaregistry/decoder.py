"""The schema-registry payload decoder: framing, then the writer's schema by id, then
the format's library.  Behind :class:`~kdump.decoders.base.PayloadDecoder` (with the
record's headers, where newer serializers put the schema id).

``mode`` is ``auto`` (a payload is shown decoded only when it is framed, names a known
id and decodes cleanly, every byte consumed; anything else is shown as the string
decoder shows it, with a note only when a known schema failed), or a forced format:
``avro``, ``protobuf``, ``json-schema`` or ``schema-registry`` (any of them): then every
payload that cannot be decoded gets a note naming the id and the reason.

The JSON form (``decoded.key`` / ``decoded.value``): ``{format, schema_id, guid,
subject, version, deleted, message, data}``; text output shows ``data`` as compact JSON.
Never raises on data: a reader that cannot be built (the schema does not parse, a
reference is missing) is remembered per id and named in each record's note.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from ..decoders.base import Decoded, KeyNoteDecoded, NotedDecoded
from ..decoders.simple import number_key
from . import wire
from .avro import AvroReader, PayloadProblem, SchemaProblem
from .formats import AVRO, FORMAT_NAMES, MODES, PROTOBUF
from .storage import Registry, SchemaVersion

_MISSING = object()


class SchemaPayload(dict[str, Any]):
    """The JSON form of a decoded payload (a plain dict to JSON writers); its type tells
    renderers it came from this decoder, never from what a payload says of itself."""

    __slots__ = ()


#: ``dump --format table``: characters of a decoded payload's data shown
COMPACT_DATA_CHARS = 100


def compact(obj: SchemaPayload) -> str:
    """A decoded payload in a few words: ``[<format> <subject> v<version> id <id>
    <message> <deleted>] <data, shortened>``."""
    what = [obj["format"], str(obj["subject"]), f"v{obj['version']}", f"id {obj['schema_id']}"]
    if obj.get("message"):
        what.append(str(obj["message"]))
    if obj.get("deleted"):
        what.append(f"{obj['deleted']}-deleted")
    data = _json_text(obj["data"])
    if len(data) > COMPACT_DATA_CHARS:
        data = data[:COMPACT_DATA_CHARS] + f"… ({len(data) - COMPACT_DATA_CHARS:,} more characters)"
    return f"[{' '.join(what)}] {data}"


def _json_text(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class JsonSchemaReader:
    """JSON Schema payloads: the data is JSON text; validated when asked."""

    format = "json-schema"

    def __init__(self, v: SchemaVersion, reg: Registry, validate: bool = False) -> None:
        self.validator: Any = None
        try:
            schema = json.loads(v.schema)
        except (ValueError, RecursionError):
            raise SchemaProblem("the JSON Schema is not JSON") from None
        if validate:
            try:
                import jsonschema
            except ImportError:
                raise SchemaProblem("validation needs jsonschema: pip install "
                                    "'kdump[schemas]'") from None
            refs = _json_references(v, reg, {}, 0)
            try:
                cls = jsonschema.validators.validator_for(schema)
                cls.check_schema(schema)
                if refs:
                    # references by their names ($ref: "address.json"), from other subjects;
                    # nothing is ever fetched
                    from referencing import Registry as Refs
                    from referencing import Resource
                    from referencing.jsonschema import DRAFT7

                    self.validator = cls(schema, registry=Refs().with_resources(
                        (name, Resource.from_contents(doc, default_specification=DRAFT7))
                        for name, doc in refs.items()))
                else:
                    self.validator = cls(schema)
            except Exception as e:  # SchemaError, TypeError on odd schemas
                raise SchemaProblem(f"the JSON Schema is not valid: {e.__class__.__name__}") \
                    from None

    def read(self, data: bytes) -> object:
        try:
            obj = json.loads(data)
        except RecursionError:
            raise PayloadProblem("the JSON nests too deeply") from None
        except ValueError as e:
            raise PayloadProblem(f"not JSON ({e.__class__.__name__})") from None
        if self.validator is not None:
            err = next(iter(self.validator.iter_errors(obj)), None)
            if err is not None:
                where = "/".join(str(p) for p in err.absolute_path) or "(root)"
                raise PayloadProblem(f"does not validate at {where[:100]}: {err.validator} "
                                 "constraint")
        return obj


def _json_references(v: SchemaVersion, reg: Registry, out: dict[str, Any],
                     depth: int) -> dict[str, Any]:
    """A JSON Schema's references (and theirs), parsed, by reference name."""
    if depth > 64:
        raise SchemaProblem("references nest too deeply")
    for ref in v.references:
        if ref["name"] in out:
            continue
        target = reg.resolve(ref["subject"], ref["version"])
        if target is None:
            raise SchemaProblem(f"reference {ref['name'][:100]!r} (subject "
                                f"{ref['subject'][:100]!r} version {ref['version']}) is not in "
                                "the registry's storage")
        try:
            out[ref["name"]] = json.loads(target.schema)
        except (ValueError, RecursionError):
            raise SchemaProblem(f"reference {ref['name'][:100]!r} is not JSON") from None
        _json_references(target, reg, out, depth + 1)
    return out


def _framed(key: bytes | None, value: bytes | None,
            headers: Sequence[tuple[bytes, bytes | None]]) -> bool:
    """May this record carry a schema id (a key or value starting with a magic byte, or a
    schema-id header), or a key the auto decoders show as a number?  False: the auto
    decoder shows it as the string decoder does."""
    if (value and value[0] <= wire.MAGIC_BYTE_V1) or (key and key[0] <= wire.MAGIC_BYTE_V1):
        return True
    if key is not None and len(key) in (4, 8) and number_key(key) is not None:
        return True
    return any(k in _ID_HEADERS for k, _ in headers) if headers else False


_ID_HEADERS = (wire.KEY_SCHEMA_ID_HEADER, wire.VALUE_SCHEMA_ID_HEADER)


class SchemaRegistryDecoder:
    """Decodes keys and values framed by Confluent's serializers (see the module doc)."""

    structured = True
    uses_headers = True

    def __init__(self, registry: Registry, key: str = "auto", value: str = "auto", *,
                 validate: bool = False, text: bool = True, topic: str | None = None) -> None:
        from ..decoders import simple_decoder

        self.registry = registry
        #: the topic whose records this decodes: in auto mode a payload counts as framed
        #: by the topic's subjects too (kdump.schemaregistry.framing)
        self.topic = topic
        self._rule: Any = None
        self.validate = validate
        self.name = f"schema-registry({key}/{value})"
        #: a side named by a simple decoder (string, hex ...) is decoded by it alone;
        #: payloads a schema does not decode are shown as the string decoder shows them
        self.key_mode = key if key == "auto" or key in MODES else None
        self.value_mode = value if value == "auto" or value in MODES else None
        self.key_fallback = simple_decoder("string" if self.key_mode else key)
        self.value_fallback = simple_decoder("string" if self.value_mode else value)
        self._readers: dict[int, Any] = {}
        self._versions: dict[int, SchemaVersion | None] = {}
        if self.key_mode == self.value_mode == "auto":
            # auto on both sides: a record that is not framed decodes as the string
            # decoder decodes it; callers may build those themselves (kdump/ops/dump/__init__.py)
            self.framed = _framed
        #: False: decoded payloads get no text form (``key_text``/``value_text`` None),
        #: for JSON output, which writes the structure only
        self.text = text

    # -- readers, once per id ------------------------------------------------------------
    def reader(self, v: SchemaVersion) -> Any:
        """The id's reader, or the :class:`SchemaProblem` that prevents one."""
        r = self._readers.get(v.schema_id, _MISSING)
        if r is _MISSING:
            try:
                if v.schema_type == AVRO:
                    r = _avro(v, self.registry)
                elif v.schema_type == PROTOBUF:
                    r = _protobuf(v, self.registry)
                else:
                    r = JsonSchemaReader(v, self.registry, self.validate)
            except SchemaProblem as e:
                r = e
            except RecursionError:
                r = SchemaProblem("the schema nests too deeply")
            self._readers[v.schema_id] = r
        return r

    # -- PayloadDecoder ------------------------------------------------------------------
    def decode(self, key: bytes | None, value: bytes | None, offset: int,
               headers: Sequence[tuple[bytes, bytes | None]] = ()) -> Decoded:
        kh, vh = wire.id_headers(headers)
        kt, kj, kerr = self.side(key, kh, self.key_mode, self.key_fallback, "key")
        vt, vj, verr = self.side(value, vh, self.value_mode, self.value_fallback, "value")
        key_note = None
        if self.key_mode == "auto" and kerr is None and not isinstance(kj, dict):
            # auto: a key of 8 or 4 bytes that is not text is a number (its note says so)
            num = number_key(key)
            if num is not None:
                kt, kj, key_note = num
        if kerr is None and verr is None:
            if key_note is not None:
                return KeyNoteDecoded(kt, vt, kj, vj, None, key_note=key_note)
            return Decoded(kt, vt, kj, vj, None)
        errors = [f"key: {kerr}" if kerr else "", f"value: {verr}" if verr else ""]
        return NotedDecoded(kt, vt, kj, vj, "; ".join(e for e in errors if e))

    def side(self, data: bytes | None, header: bytes | None, mode: str | None,
             fallback: Any, which: str = "value") -> tuple[str | None, object, str | None]:
        """(text, JSON object, note) for a key or a value (``which``)."""
        if data is None:
            return None, None, None
        got: dict[str, Any] | str | None = None
        if mode == "auto":
            if header is not None or data[:1] in (b"\x00", b"\x01"):
                # framed only with evidence (kdump.schemaregistry.framing): an id the
                # registry holds is decoded; one it lacks, named by a header or in a topic
                # with a subject for this side, is noted; the rest is not framed
                if self._rule is None:
                    from .framing import FramingRule

                    self._rule = FramingRule(self.registry)
                how = self._rule.classify(self.topic, which, data, header).how
                if how == "id":
                    got = self._decode(data, header, mode)
                elif how == "unknown":
                    got = self._decode(data, header, "schema-registry")
        elif mode is not None:
            got = self._decode(data, header, mode)
        if isinstance(got, dict):
            return _json_text(got["data"]) if self.text else None, got, None
        t, j, err = fallback.text(data)
        j = j if fallback.structured else None
        return t, j, got or err

    def _decode(self, data: bytes, header: bytes | None, mode: str) -> dict[str, Any] | str | None:
        """The decoded object, or the note (None: not framed, nothing to say in auto)."""
        forced = mode != "auto"
        fr: wire.Frame | wire.FrameError
        if header is None and len(data) >= 5 and data[0] == wire.MAGIC_BYTE_V0:
            fr = _V0_FRAMES.get(data[:5]) or _v0_frame(data[:5])  # the common case, fast
        elif header is not None:
            fr = wire.read_id(header, "header")
        else:
            fr = wire.read_id(data, "payload")
        if isinstance(fr, wire.FrameError):
            return f"no schema id ({'header' if header is not None else 'payload'}: " \
                   f"{fr.reason})" if forced else None
        sid = fr.schema_id
        if sid is None:
            assert fr.guid is not None
            sid = self.registry.id_for_guid(fr.guid)
            if sid is None:
                return f"schema GUID {uuid.UUID(bytes=fr.guid)} is not in the registry's " \
                       "storage" if forced else None
        try:
            v = self._versions[sid]
        except KeyError:
            v = self._versions[sid] = self.registry.by_id(sid)
        if v is None:
            return f"schema id {sid} is not in the registry's storage" if forced else None
        want = MODES.get(mode)
        if want is not None and v.schema_type != want:
            return f"schema id {sid} is {v.schema_type}, not {want}"
        reader = self.reader(v)
        if isinstance(reader, SchemaProblem):
            return f"schema id {sid}: {reader}"
        # where the data starts; Protobuf's message indexes follow the id (in the
        # header when the id is there)
        indexes: list[int] | None = None
        if header is not None:
            start, idx_buf, idx_pos = 0, header, fr.start
        else:
            start, idx_buf, idx_pos = fr.start, data, fr.start
        if v.schema_type == PROTOBUF:
            got = wire.read_message_indexes(idx_buf, idx_pos)
            if isinstance(got, wire.FrameError):
                return f"schema id {sid}: {got.reason}"
            indexes, after = got
            if header is None:
                start = after
        elif header is not None and len(header) != fr.start:
            return f"schema id {sid}: {len(header) - fr.start} bytes after the id in the " \
                   "header"
        body = data[start:]
        message = None
        try:
            if v.schema_type == AVRO:
                obj, used = reader.read(body)
                if used != len(body):
                    return f"schema id {sid}: {len(body) - used} bytes left over after the " \
                           "Avro value"
            elif v.schema_type == PROTOBUF:
                assert indexes is not None
                obj, message = reader.read(body, indexes)
            else:
                obj = reader.read(body)
        except PayloadProblem as e:
            return f"schema id {sid}: {e}"
        except (EOFError, IndexError):  # fastavro: EOFError, or IndexError in a varint
            return f"schema id {sid}: the payload is truncated ({len(body)} bytes of data)"
        except RecursionError:
            return f"schema id {sid}: the value nests too deeply"
        except Exception as e:  # fastavro/protobuf raise many kinds on bad bytes
            text = str(e).splitlines()[0][:200] if str(e) else ""
            return f"schema id {sid}: {e.__class__.__name__}" + (f": {text}" if text else "")
        return SchemaPayload(
            format=FORMAT_NAMES[v.schema_type], schema_id=sid,
            guid=None if fr.guid is None else str(uuid.UUID(bytes=fr.guid)),
            subject=v.subject, version=v.version, deleted=v.deleted, message=message,
            data=obj)


#: the frames of the ids met (magic 0x00 + id, as in payloads): a few, reused
_V0_FRAMES: dict[bytes, wire.Frame] = {}


def _v0_frame(head: bytes) -> wire.Frame:
    fr = wire.Frame(int.from_bytes(head[1:5], "big", signed=True), None, 5, "payload")
    if len(_V0_FRAMES) < 4096:
        _V0_FRAMES[head] = fr
    return fr


def _avro(v: SchemaVersion, reg: Registry) -> Any:
    try:
        import fastavro  # noqa: F401
    except ImportError:
        raise SchemaProblem(MISSING_EXTRA) from None
    return AvroReader(v, reg)


def _protobuf(v: SchemaVersion, reg: Registry) -> Any:
    try:
        import google.protobuf  # noqa: F401
        import grpc_tools  # noqa: F401
    except ImportError:
        raise SchemaProblem(MISSING_EXTRA) from None
    from .protobuf import ProtobufReader

    return ProtobufReader(v, reg)


MISSING_EXTRA = "decoding it needs the schemas extra: pip install 'kdump[schemas]'"
