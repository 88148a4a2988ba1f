"""``kdump report``'s schema-registry section: the registry's ``schema`` rows (as
``kdump schemas`` writes them, from :func:`kdump.schemaregistry.subjects.schema_rows`) and,
per data topic, a ``schema_usage`` object: the records whose key or value names each id
the registry holds, an id it does not hold, or no id.  One pass over the data topics'
records reads the framing (magic byte and id or GUID) and the schema-id headers only;
nothing is decoded, so a payload that does not decode with its schema is not told apart
here (``kdump dump --schemas`` decodes and reports each one).  Each partition is read
from its first replica listed: replicas are never added up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import fs as kfs
from ..errors import KdumpError
from ..files.logdir import KafkaFile
from ..findings import Problem
from ..model import shape
from ..records.file_records import LogReader
from ..records.v2 import RecordBatch
from ..source import FileSource


@dataclass(slots=True)
class _Usage:
    """One data topic's records as the registry sees them."""

    records: int = 0
    keys: Counter[int] = field(default_factory=Counter)
    values: Counter[int] = field(default_factory=Counter)
    unknown_ids: Counter[int] = field(default_factory=Counter)
    not_framed: int = 0


def _schema_id(reg: Any, data: bytes | None, header: bytes | None) -> tuple[str, int | None]:
    """How a key or value names a schema: ("id", id) for an id the registry holds,
    ("unknown", id) for one it does not, ("plain", None) for data with no framing and
    ("none", None) for no data."""
    from ..schemaregistry import wire

    buf = header if header is not None else data
    if not buf:
        return "none", None
    fr = wire.read_id(buf, "header")
    if isinstance(fr, wire.FrameError):
        return "plain", None
    sid = fr.schema_id if fr.guid is None else reg.id_for_guid(fr.guid)
    if sid is not None and sid in reg.ids():
        return "id", sid
    return "unknown", sid


def _schema_usage(logs: list[KafkaFile], reg: Any, topic: str, max_batch_bytes: int
                  ) -> dict[str, _Usage]:
    """Per data topic (internal ones and ``topic`` left out; each partition's first
    replica listed, replicas never added up): the records whose key / value names each
    id, an id the registry does not hold, or no id."""
    from ..schemaregistry import wire

    out: dict[str, _Usage] = {}
    seen: dict[tuple[str, int], str] = {}
    for f in logs:
        if f.topic == topic or f.topic is None or f.topic.startswith("__") \
                or f.partition is None:
            continue
        pdir = kfs.dirname(f.path)
        if seen.setdefault((f.topic, f.partition), pdir) != pdir:
            continue  # another broker's replica of the partition
        u = out.setdefault(f.topic, _Usage())
        try:
            with FileSource(f.path) as src:
                for item in LogReader(src, active=f.active, max_batch_bytes=max_batch_bytes):
                    if isinstance(item, Problem) or not isinstance(item, RecordBatch) \
                            or item.is_control:
                        continue
                    try:
                        for rec in item.records(max_batch_bytes):
                            u.records += 1
                            kh, vh = wire.id_headers(rec.headers)
                            for counter, data, header in ((u.keys, rec.key, kh),
                                                          (u.values, rec.value, vh)):
                                how, sid = _schema_id(reg, data, header)
                                if how == "id" and sid is not None:
                                    counter[sid] += 1
                                elif how == "unknown" and sid is not None:
                                    u.unknown_ids[sid] += 1
                                elif how == "plain" and counter is u.values:
                                    u.not_framed += 1
                    except KdumpError:
                        continue  # a damaged batch: verify-crc reports it
        except (KdumpError, OSError):
            continue  # the custody and findings sections name an unreadable file
    return out


def schemas_section(logs: list[KafkaFile], paths: list[str], max_batch_bytes: int
                    ) -> Iterator[Any]:
    """The registry's ``schema`` rows (as ``kdump schemas`` writes them, records counted
    per id) and each data topic's ``schema_usage``, when ``_schemas`` is among or beside
    the inputs."""
    from dataclasses import replace

    from ..schemaregistry.storage import DEFAULT_TOPIC, find_partitions, load
    from ..schemaregistry.subjects import SchemaRow, schema_rows

    if not find_partitions(paths, DEFAULT_TOPIC):
        return
    reg = load(paths, DEFAULT_TOPIC, (), max_batch_bytes)
    usage = _schema_usage(logs, reg, DEFAULT_TOPIC, max_batch_bytes)
    keys: Counter[int] = Counter()
    values: Counter[int] = Counter()
    for u in usage.values():
        keys.update(u.keys)
        values.update(u.values)
    for row in schema_rows(paths, registry=reg, count=False):
        if isinstance(row, SchemaRow):
            yield replace(row, key_records=keys[row.schema_id],
                          value_records=values[row.schema_id])
        else:
            yield row
    for t, u in sorted(usage.items()):
        if not u.records:
            continue
        yield shape("schema_usage", {
            "topic": t, "records": u.records,
            "keys": [[k, n] for k, n in sorted(u.keys.items())],
            "values": [[k, n] for k, n in sorted(u.values.items())],
            "unknown_ids": [[k, n] for k, n in sorted(u.unknown_ids.items())],
            "not_framed": u.not_framed})


__all__ = ["schemas_section"]
