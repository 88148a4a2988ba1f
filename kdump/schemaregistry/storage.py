"""The schema registry's own storage: its ``_schemas`` topic, or a folder of schema files.

Facts from confluentinc/schema-registry, core/src/main/java/io/confluent/kafka/
schemaregistry/storage/: ``SchemaRegistryKey`` / ``SchemaRegistryKeyType`` (record keys
are JSON objects with ``keytype``: SCHEMA, CONFIG, MODE, NOOP, DELETE_SUBJECT,
CLEAR_SUBJECT, CONTEXT, ASSOC), ``SchemaKey`` (``{"keytype":"SCHEMA","subject":...,
"version":...,"magic":1}``) and ``SchemaValue`` (``subject``, ``version``, ``id``,
``md5`` (base64 of the 16-byte MD5), ``schemaType`` (absent: AVRO), ``references``
(``[{name, subject, version}]``), ``schema``, ``deleted``).  The registry replays the
topic from the start, the last value of a key winning; ``deleted: true`` is a soft
delete, and so is a DELETE_SUBJECT record (``{subject, version}``: versions 1 to
version of the subject, KafkaStoreMessageHandler.handleDeleteSubject); a tombstone (null
value) after the schema record is a hard delete.  Until the log
cleaner compacts the partition the schema record is still on disk, so kdump keeps it and
says it was hard-deleted.

Bounded: a value larger than :data:`MAX_VALUE_BYTES` is not parsed (a finding), and a
schema's text is kept as the string the value held (nothing is expanded here).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import fs as kfs
from ..errors import KdumpError
from ..files.logdir import KafkaFile, not_data, parse_partition_dir, walk
from ..findings import INFO, WARNING, Problem
from ..records.file_records import LogReader
from ..source import FileSource
from .formats import AVRO, JSON, PROTOBUF

#: the registry's default topic (kafkastore.topic)
DEFAULT_TOPIC = "_schemas"
#: a ``_schemas`` value larger than this is not parsed (real ones are kilobytes)
MAX_VALUE_BYTES = 8 << 20
#: file extensions of exported schemas (and of a --schemas folder)
EXTENSIONS = {AVRO: ".avsc", PROTOBUF: ".proto", JSON: ".json"}
#: the manifest ``export`` writes beside the schema files
MANIFEST = "registry.json"


@dataclass(slots=True)
class SchemaVersion:
    """One (subject, version) as the registry stored it."""

    subject: str
    version: int
    schema_id: int
    schema_type: str
    schema: str
    references: list[dict[str, Any]]
    md5: bytes | None
    #: ``deleted: true`` in the last value
    soft_deleted: bool = False
    #: a tombstone followed the schema record (still on disk until compaction)
    hard_deleted: bool = False
    #: where the last value was read: (file, offset)
    origin: tuple[str, int] | None = None
    #: the folder of schema files it was read from (``--schemas DIR``): a ``.proto``'s
    #: imports without a reference are looked for there, by relative path
    folder: str | None = None

    @property
    def deleted(self) -> str | None:
        """None (live), "soft" or "hard"."""
        if self.hard_deleted:
            return "hard"
        return "soft" if self.soft_deleted else None


@dataclass(slots=True)
class Registry:
    """Every schema version found, and lookups by id, GUID and (subject, version)."""

    versions: dict[tuple[str, int], SchemaVersion] = field(default_factory=dict)
    #: where the schemas were read from (partition directories, folders)
    sources: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    _by_id: dict[int, list[SchemaVersion]] | None = None
    _by_guid: dict[bytes, int] | None = None
    _latest: dict[str, SchemaVersion] | None = None

    def __bool__(self) -> bool:
        return bool(self.versions)

    def _index(self) -> None:
        by_id: dict[int, list[SchemaVersion]] = {}
        by_guid: dict[bytes, int] = {}
        for v in sorted(self.versions.values(), key=lambda v: (v.subject, v.version)):
            by_id.setdefault(v.schema_id, []).append(v)
            md5 = v.md5 if v.md5 is not None else schema_md5(v.schema, v.references)
            by_guid[md5] = v.schema_id
        self._by_id, self._by_guid = by_id, by_guid

    def add(self, v: SchemaVersion) -> None:
        self.versions[(v.subject, v.version)] = v
        self._by_id = self._by_guid = self._latest = None

    def ids(self) -> dict[int, list[SchemaVersion]]:
        if self._by_id is None:
            self._index()
        assert self._by_id is not None
        return self._by_id

    def by_id(self, schema_id: int) -> SchemaVersion | None:
        """The version to name for an id: one of the default context first (a subject
        ``:.ctx:name`` is in context ``.ctx``, whose ids are its own), then a live one,
        then soft-, then hard-deleted (one id is shared by every subject registering the
        same schema)."""
        found = self.ids().get(schema_id)
        if not found:
            return None
        return min(found, key=lambda v: (v.subject.startswith(":."), v.hard_deleted,
                                         v.soft_deleted))

    def id_for_guid(self, guid: bytes) -> int | None:
        if self._by_guid is None:
            self._index()
        assert self._by_guid is not None
        return self._by_guid.get(guid)

    def resolve(self, subject: str, version: int) -> SchemaVersion | None:
        """A reference's target; version -1 is the subject's latest."""
        if version == -1:
            if self._latest is None:
                latest: dict[str, SchemaVersion] = {}
                for v in self.versions.values():
                    old = latest.get(v.subject)
                    if old is None or v.version > old.version:
                        latest[v.subject] = v
                self._latest = latest
            return self._latest.get(subject)
        return self.versions.get((subject, version))


def schema_md5(text: str, references: list[dict[str, Any]] | None = None) -> bytes:
    """The registry's MD5 of a schema when its value stores none (MD5.ofSchema,
    Schema.updateHash: the text's UTF-8, then each reference's name, subject and int32
    version; metadata and rule sets, which kdump does not read, are left out)."""
    md = hashlib.md5(text.encode("utf-8"))
    for r in references or ():
        md.update(r["name"].encode("utf-8"))
        md.update(r["subject"].encode("utf-8"))
        md.update((r["version"] & 0xFFFFFFFF).to_bytes(4, "big"))
    return md.digest()


# --- finding the registry's partitions ---------------------------------------------------
def find_partitions(paths: Iterable[str], topic: str = DEFAULT_TOPIC) -> list[str]:
    """``topic`` partition directories among ``paths`` or beside them: in a log dir given,
    or in the log dir holding a given partition directory or file."""
    found: list[str] = []
    # local paths through the OS, URLs from one listing each (kdump.fs.Listing)
    listing = kfs.Listing()
    for p in paths:
        p = p.rstrip("/") or p
        candidates = [p]
        if kfs.isfile(p):
            candidates.append(kfs.dirname(p) or ".")
        if parse_partition_dir(os.path.basename(candidates[-1])) is not None:
            # a relative partition directory ("orders-0") is in the working directory
            candidates.append(kfs.dirname(candidates[-1]) or ".")
        for c in candidates:
            part = parse_partition_dir(os.path.basename(c))
            if part is not None and part.topic == topic and part.state is None:
                _add(found, c)
                continue
            _scan(found, listing, c, topic, nested=True)
    return found


def _scan(found: list[str], listing: kfs.Listing, directory: str, topic: str,
          nested: bool) -> None:
    """``topic``'s partition directories in ``directory`` (nothing when it is not a
    readable directory); with ``nested`` and none there, also in the directories one
    level down (a folder holding several brokers' log dirs, as the walk reads them:
    ``broker-1`` may look like a partition directory's name, so every directory is
    looked into)."""
    try:
        if not listing.isdir(directory):
            return
        names = listing.listdir(directory)
    except OSError:
        return
    base = directory.rstrip("/")
    before = len(found)
    for name in sorted(names):
        part = parse_partition_dir(name)
        if part is not None and part.topic == topic and part.state is None:
            _add(found, base + "/" + name)
    if not nested or len(found) > before or "meta.properties" in names:
        return
    for name in sorted(names):
        if not_data(name) is not None or name.startswith("."):
            continue
        _scan(found, listing, base + "/" + name, topic, nested=False)


def _add(found: list[str], path: str) -> None:
    if path not in found:
        found.append(path)


# --- reading ------------------------------------------------------------------------------
def load(paths: Iterable[str], topic: str = DEFAULT_TOPIC, extra: Iterable[str] = (),
         max_batch_bytes: int = 256 << 20) -> Registry:
    """The registry found with ``paths`` (see :func:`find_partitions`), plus ``extra``:
    more ``_schemas`` partitions (any topic name) or folders of schema files."""
    reg = Registry()
    for path in extra:
        if kfs.isdir(path) and parse_partition_dir(os.path.basename(path.rstrip("/"))) is None \
                and not _has_logs(path):
            read_folder(path, reg)
        else:
            read_topic([path], reg, max_batch_bytes)
    parts = find_partitions(paths, topic)
    if parts:
        read_topic(parts, reg, max_batch_bytes)
    return reg


def _has_logs(path: str) -> bool:
    try:
        return any(n.endswith(".log") for n in kfs.listdir(path))
    except OSError:
        return False


def read_topic(paths: list[str], reg: Registry, max_batch_bytes: int = 256 << 20) -> None:
    """Replay ``_schemas`` partitions (each one's segments in offset order) into ``reg``.
    Several replicas of the partition (several brokers) hold the same records; each is
    replayed on its own, and a version deleted in any replica is deleted."""
    for path in paths:
        reg.sources.append(path)
        one = Registry()
        for item in walk([path]):
            if isinstance(item, Problem):
                reg.problems.append(item)
            elif item.kind == "log" and item.partition_state is None and not item.leftover:
                _replay_log(item, one, max_batch_bytes)
        reg.problems += one.problems
        for key, v in one.versions.items():
            old = reg.versions.get(key)
            if old is not None and old.schema_id == v.schema_id:
                # another broker's replica: a delete any replica saw stands (a lagging
                # replica may not have the tombstone yet)
                v.hard_deleted |= old.hard_deleted
                v.soft_deleted |= old.soft_deleted
            reg.add(v)


def _replay_log(f: KafkaFile, reg: Registry, max_batch_bytes: int) -> None:
    try:
        with FileSource(f.path) as src:
            for item in LogReader(src, active=f.active, max_batch_bytes=max_batch_bytes):
                if isinstance(item, Problem):
                    reg.problems.append(item)
                    continue
                if item.is_control:
                    continue
                try:
                    for rec in item.records(max_batch_bytes):
                        _apply(reg, f.path, item.position, item.base_offset, rec.offset,
                               rec.key, rec.value)
                except KdumpError as e:
                    reg.problems.append(Problem(f.path, item.position, "schema-registry",
                                                f"records of the batch cannot be read: "
                                                f"{e.message}", base_offset=item.base_offset))
    except KdumpError as e:
        reg.problems.append(Problem(e.path or f.path, e.position, "unreadable-file", e.message))


def _apply(reg: Registry, path: str, position: int, base_offset: int, offset: int,
           key: bytes | None, value: bytes | None) -> None:
    def note(reason: str) -> None:
        reg.problems.append(Problem(path, position, "schema-registry",
                                    f"offset {offset}: {reason}", base_offset=base_offset,
                                    severity=WARNING, extra={"offset": offset}))

    if key is None:
        return note("a record without a key")
    if value is not None and len(value) > MAX_VALUE_BYTES:
        return note(f"a value of {len(value)} bytes (more than {MAX_VALUE_BYTES}): not parsed")
    try:
        k = json.loads(key)
    except (ValueError, RecursionError):
        return note("the key is not JSON")
    if isinstance(k, dict) and k.get("keytype") == "DELETE_SUBJECT" and value is not None:
        # a soft delete of a whole subject: versions 1 to N are deleted (as
        # KafkaStoreMessageHandler.handleDeleteSubject marks them)
        try:
            d = json.loads(value)
        except (ValueError, RecursionError):
            return note("the value of a DELETE_SUBJECT key is not JSON")
        if not isinstance(d, dict) or not isinstance(d.get("subject"), str) \
                or not isinstance(d.get("version"), int):
            return note("a DELETE_SUBJECT value without subject and version")
        for (name, ver), v in reg.versions.items():
            if name == d["subject"] and ver <= d["version"]:
                v.soft_deleted = True
        return None
    if not isinstance(k, dict) or k.get("keytype") != "SCHEMA":
        return None  # CONFIG, MODE, NOOP, CLEAR_SUBJECT ... do not define schemas
    subject, version = k.get("subject"), k.get("version")
    if not isinstance(subject, str) or not isinstance(version, int):
        return note("a SCHEMA key without subject and version")
    if value is None:
        old = reg.versions.get((subject, version))
        if old is not None:
            old.hard_deleted = True
        return None
    try:
        v = json.loads(value)
    except (ValueError, RecursionError):
        return note("the value of a SCHEMA key is not JSON")
    parsed = version_from_json(v, subject, version)
    if isinstance(parsed, str):
        return note(parsed)
    parsed.origin = (path, offset)
    reg.add(parsed)
    return None


def version_from_json(v: object, subject: str | None = None,
                      version: int | None = None) -> SchemaVersion | str:
    """A SchemaValue object, or why it is not one."""
    if not isinstance(v, dict):
        return "the value is not a JSON object"
    sid, schema = v.get("id"), v.get("schema")
    subject = v.get("subject", subject) if subject is None else subject
    version = v.get("version", version) if version is None else version
    if not isinstance(sid, int) or not isinstance(schema, str) or not isinstance(subject, str) \
            or not isinstance(version, int):
        return "a SCHEMA value without id, schema, subject or version"
    stype = v.get("schemaType") or AVRO
    if stype not in EXTENSIONS:
        return f"schema id {sid}: unknown schemaType {str(stype)[:40]!r}"
    refs = v.get("references") or []
    if not isinstance(refs, list) or not all(
            isinstance(r, dict) and isinstance(r.get("name"), str)
            and isinstance(r.get("subject"), str) and isinstance(r.get("version"), int)
            for r in refs):
        return f"schema id {sid}: references are not [{{name, subject, version}}]"
    md5: bytes | None = None
    if isinstance(v.get("md5"), str):
        try:
            md5 = base64.b64decode(v["md5"], validate=True)
        except (binascii.Error, ValueError):
            md5 = None
    return SchemaVersion(subject, version, sid, stype, schema, list(refs), md5,
                         soft_deleted=v.get("deleted") is True)


def read_folder(path: str, reg: Registry) -> None:
    """A folder of schema files named by id (``17.avsc``, ``18.proto``, ``19.json``), as
    ``kdump schemas --export`` writes them; its ``registry.json`` (when present) gives
    subjects, versions, references and deleted state.  Other files in it (any name, any
    subfolder) are what a ``.proto`` of the folder may import by relative path
    (:mod:`.protobuf`; ``folder`` of each version)."""
    reg.sources.append(path)
    try:
        names = sorted(kfs.listdir(path))
    except OSError as e:
        reg.problems.append(Problem(path, None, "unreadable-file", str(e)))
        return
    manifest: list[Any] = []
    if MANIFEST in names:
        try:
            with open(os.path.join(path, MANIFEST), encoding="utf-8") as fh:
                loaded = json.load(fh)
            manifest = loaded if isinstance(loaded, list) else []
        except (OSError, ValueError, RecursionError) as e:
            reg.problems.append(Problem(os.path.join(path, MANIFEST), None, "schema-registry",
                                        f"not read: {e.__class__.__name__}"))
    texts: dict[int, tuple[str, str]] = {}
    types = {ext: t for t, ext in EXTENSIONS.items()}
    for name in names:
        stem, ext = os.path.splitext(name)
        if ext not in types or not stem.lstrip("-").isdigit() or name == MANIFEST:
            continue
        full = os.path.join(path, name)
        try:
            if os.path.getsize(full) > MAX_VALUE_BYTES:
                reg.problems.append(Problem(full, None, "schema-registry",
                                            "larger than 8 MiB: not read"))
                continue
            with open(full, encoding="utf-8", errors="replace") as fh:
                texts[int(stem)] = (types[ext], fh.read())
        except OSError as e:
            reg.problems.append(Problem(full, None, "unreadable-file", str(e)))
    described: set[int] = set()
    for entry in manifest:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), int):
            continue
        sid = entry["id"]
        if sid not in texts:
            continue
        v = version_from_json({**entry, "schema": texts[sid][1],
                               "schemaType": texts[sid][0]})
        if isinstance(v, str):
            continue
        v.hard_deleted = entry.get("deleted") == "hard"
        v.soft_deleted = entry.get("deleted") == "soft"
        v.origin = (os.path.join(path, f"{sid}{EXTENSIONS[v.schema_type]}"), -1)
        v.folder = path
        reg.add(v)
        described.add(sid)
    for sid, (stype, text) in texts.items():
        if sid not in described:
            # no manifest entry: a subject of its own, named after the file
            reg.add(SchemaVersion(f"{sid}{EXTENSIONS[stype]}", 1, sid, stype, text, [], None,
                                  origin=(os.path.join(path, f"{sid}{EXTENSIONS[stype]}"), -1),
                                  folder=path))


def manifest_entries(reg: Registry) -> Iterator[dict[str, Any]]:
    """What ``registry.json`` holds: one object per (subject, version)."""
    for v in sorted(reg.versions.values(), key=lambda v: (v.subject, v.version)):
        yield {"subject": v.subject, "version": v.version, "id": v.schema_id,
               "schemaType": v.schema_type, "references": v.references,
               "md5": None if v.md5 is None else base64.b64encode(v.md5).decode("ascii"),
               "deleted": v.deleted}


__all__ = ["AVRO", "DEFAULT_TOPIC", "EXTENSIONS", "INFO", "JSON", "PROTOBUF", "Registry",
           "SchemaVersion", "find_partitions", "load", "manifest_entries", "read_folder",
           "read_topic"]
