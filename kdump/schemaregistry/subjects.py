"""``kdump schemas``: the registry's subjects as rows, and ``--export``.

:func:`schema_rows` is the core function other reports use (``kdump report`` includes a
schema-registry section from it): one :class:`SchemaRow` per (subject, version), sorted
by subject then version, after the problems met while reading the registry's storage.
With ``count=True`` every data record under the inputs is looked at (its key and value
framing and its schema-id headers, nothing decoded) to say how many use each id.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import KdumpError, UsageError
from ..files.logdir import walk
from ..findings import INFO, Problem
from ..model import shape
from ..output import Staged
from ..records.file_records import LogReader
from ..source import FileSource
from . import wire
from .storage import DEFAULT_TOPIC, EXTENSIONS, MANIFEST, Registry, load, manifest_entries

#: internal topics never carry serializer payloads
_INTERNAL_PREFIX = "__"


@dataclass(frozen=True, slots=True)
class SchemaRow:
    """One (subject, version) of the registry."""

    subject: str
    version: int
    schema_id: int
    schema_type: str
    deleted: str | None
    references: list[dict[str, Any]]
    #: records whose key / value names this id (None: not counted)
    key_records: int | None
    value_records: int | None
    #: (file, offset) of the schema record, offset -1 for a schema file
    origin: tuple[str, int] | None

    def to_json(self) -> dict[str, Any]:
        return shape("schema", {
            "subject": self.subject, "version": self.version, "id": self.schema_id,
            "schema_type": self.schema_type, "deleted": self.deleted,
            "references": self.references, "key_records": self.key_records,
            "value_records": self.value_records,
            "file": None if self.origin is None else self.origin[0],
            "offset": None if self.origin is None or self.origin[1] < 0 else self.origin[1]})


def schema_rows(paths: Iterable[str], *, topic: str = DEFAULT_TOPIC, extra: Iterable[str] = (),
                count: bool = True, max_batch_bytes: int = 256 << 20,
                registry: Registry | None = None) -> Iterator[SchemaRow | Problem]:
    """The registry found with ``paths`` (and ``extra``) as rows; see the module doc."""
    paths = list(paths)
    reg = registry if registry is not None else load(paths, topic, extra, max_batch_bytes)
    yield from reg.problems
    if not reg.versions:
        yield Problem(paths[0] if paths else "", None, "schema-registry",
                      f"no schemas: no {topic} partition among or beside the inputs"
                      + (" nor in --schemas" if list(extra) else ""), severity=INFO)
    keys: Counter[int] = Counter()
    values: Counter[int] = Counter()
    if count:
        yield from count_ids(paths, topic, reg, keys, values, max_batch_bytes)
    for v in sorted(reg.versions.values(), key=lambda v: (v.subject, v.version)):
        yield SchemaRow(v.subject, v.version, v.schema_id, v.schema_type, v.deleted,
                        v.references, keys[v.schema_id] if count else None,
                        values[v.schema_id] if count else None, v.origin)


def count_ids(paths: list[str], topic: str, reg: Registry, keys: Counter[int],
              values: Counter[int], max_batch_bytes: int) -> Iterator[Problem]:
    """Count the records naming each id the registry holds (payload framing or schema-id
    header, by the one rule of :mod:`kdump.schemaregistry.framing`) in the data topics
    under ``paths``; the problems of files that cannot be read are yielded."""
    from .framing import ID, FramingRule

    rule = FramingRule(reg)
    for f in walk(paths):
        if isinstance(f, Problem):
            continue  # the walk's own findings belong to dump / verify-crc
        if f.kind != "log" or f.topic in (None, topic) or f.topic.startswith(_INTERNAL_PREFIX):
            continue
        try:
            with FileSource(f.path) as src:
                for item in LogReader(src, active=f.active, max_batch_bytes=max_batch_bytes):
                    if isinstance(item, Problem) or item.is_control:
                        continue
                    try:
                        for rec in item.records(max_batch_bytes):
                            kh, vh = wire.id_headers(rec.headers)
                            for side, counter, data, header in (("key", keys, rec.key, kh),
                                                                ("value", values, rec.value, vh)):
                                fr = rule.classify(f.topic, side, data, header)
                                if fr.how == ID and fr.schema_id is not None:
                                    counter[fr.schema_id] += 1
                    except KdumpError:
                        continue  # a damaged batch: dump and verify-crc report it
        except KdumpError as e:
            yield Problem(e.path or f.path, e.position, "unreadable-file", e.message)


def export(reg: Registry, directory: str, inputs: Iterable[str] = ()) -> list[str]:
    """Write every schema (hard-deleted ones included) to ``directory`` as ``<id>.avsc`` /
    ``<id>.proto`` / ``<id>.json``, and ``registry.json`` (subjects, versions, ids, types,
    references, deleted state): what re-registering needs, and what ``--schemas DIR``
    reads back.  File names come from ids (numbers), never from subjects.  Returns the
    files written.  A directory inside an input is refused (inputs are never modified)."""
    target = os.path.realpath(directory)
    for p in inputs:
        if "://" in p:
            continue
        root = os.path.realpath(p)
        if target == root or target.startswith(root.rstrip(os.sep) + os.sep):
            raise UsageError(f"--export {directory} is inside the input {p}: choose a "
                             "directory outside the evidence")
    # the whole set staged beside the directory and published at once (kdump/output.py):
    # into a new or empty directory one rename, into one holding an earlier export file
    # by file, each whole; a full disk or Ctrl-C leaves the directory as it was
    parent = os.path.dirname(os.path.abspath(directory))
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        from ..errors import OutputError

        raise OutputError(f"cannot write the schemas to {directory}: "
                          f"{(e.strerror or str(e)).lower()}", path=directory) from None
    stage = Staged(directory, kind="merge", replace=True, option="--export")
    written = []
    with stage:
        for sid, versions in sorted(reg.ids().items()):
            v = versions[0]
            name = f"{sid}{EXTENSIONS[v.schema_type]}"
            stage.write(name, v.schema.encode("utf-8"))
            written.append(os.path.join(directory, name))
        data = json.dumps(list(manifest_entries(reg)), indent=1, ensure_ascii=False) + "\n"
        stage.write(MANIFEST, data.encode("utf-8"))
        written.append(os.path.join(directory, MANIFEST))
        stage.publish()
    return written
