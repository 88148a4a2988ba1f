"""``kdump report``'s schema-registry section: the registry's ``schema`` rows (as
``kdump schemas`` writes them, from :func:`kdump.schemaregistry.subjects.schema_rows`) and,
per data topic, a ``schema_usage`` object: the records whose key or value names each id
the registry holds, an id it does not hold, or no id, by the one rule of
:mod:`kdump.schemaregistry.framing` (an id counts as framed only with evidence: the
registry holds it, the topic has a subject for that side, or a schema-id header names
it; an unknown id only where its side of the topic carries framed records).  Findings:
``schema-id-unknown`` per topic and side, ``schema-deleted-in-use`` per deleted id that
records name.  One pass over the data topics'
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

from ... import fs as kfs
from ...errors import KdumpError
from ...files.logdir import KafkaFile
from ...findings import WARNING, Problem
from ...model import shape
from ...records.file_records import LogReader
from ...records.v2 import RecordBatch
from ...source import FileSource


@dataclass(slots=True)
class _Usage:
    """One data topic's records as the registry sees them."""

    records: int = 0
    keys: Counter[int] = field(default_factory=Counter)
    values: Counter[int] = field(default_factory=Counter)
    unknown_ids: Counter[int] = field(default_factory=Counter)
    not_framed: int = 0
    #: per side: ids the registry does not hold, framed by a subject or a header
    unknown: dict[str, Counter[int]] = field(
        default_factory=lambda: {"key": Counter(), "value": Counter()})
    #: per side: ids that only look framed (kdump.schemaregistry.framing: candidates)
    candidates: dict[str, Counter[int]] = field(
        default_factory=lambda: {"key": Counter(), "value": Counter()})

    def settle(self, rule: Any, topic: str) -> None:
        """Candidates are framed where their side of the topic carries framed records
        (:meth:`FramingRule.side_framed`), else not framed."""
        for side, known in (("key", self.keys), ("value", self.values)):
            cands = self.candidates[side]
            if rule.side_framed(topic, side, sum(known.values())):
                self.unknown[side].update(cands)
            elif side == "value":
                self.not_framed += sum(cands.values())
            cands.clear()
        self.unknown_ids = self.unknown["key"] + self.unknown["value"]


def _schema_usage(logs: list[KafkaFile], reg: Any, topic: str, max_batch_bytes: int
                  ) -> dict[str, _Usage]:
    """Per data topic (internal ones and ``topic`` left out; each partition's first
    replica listed, replicas never added up): the records whose key / value names each
    id, an id the registry does not hold, or no id -- by the one rule of
    :mod:`kdump.schemaregistry.framing`."""
    from ...schemaregistry import wire
    from ...schemaregistry.framing import CANDIDATE, ID, PLAIN, UNKNOWN, FramingRule
    from ..replica_groups import log_dir_identity

    rule = FramingRule(reg)
    out: dict[str, _Usage] = {}
    seen: dict[tuple[str | None, str, int], str] = {}
    clusters: dict[str, str | None] = {}
    for f in logs:
        if f.topic == topic or f.topic is None or f.topic.startswith("__") \
                or f.partition is None:
            continue
        pdir = kfs.dirname(f.path)
        ld = kfs.dirname(pdir)
        if ld not in clusters:
            clusters[ld] = log_dir_identity(ld).cluster_id
        # one partition of one cluster (kdump.ops.replica_groups): another cluster's
        # namesake is another partition, listed too
        if seen.setdefault((clusters[ld], f.topic, f.partition), pdir) != pdir:
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
                            for side, counter, data, header in (
                                    ("key", u.keys, rec.key, kh),
                                    ("value", u.values, rec.value, vh)):
                                fr = rule.classify(f.topic, side, data, header)
                                if fr.how == ID and fr.schema_id is not None:
                                    counter[fr.schema_id] += 1
                                elif fr.how == UNKNOWN and fr.schema_id is not None:
                                    u.unknown[side][fr.schema_id] += 1
                                elif fr.how == CANDIDATE and fr.schema_id is not None:
                                    u.candidates[side][fr.schema_id] += 1
                                elif fr.how in (PLAIN, CANDIDATE) and side == "value":
                                    u.not_framed += 1
                    except KdumpError:
                        continue  # a damaged batch: verify-crc reports it
        except (KdumpError, OSError):
            continue  # the custody and findings sections name an unreadable file
    for t, u in out.items():
        u.settle(rule, t)
    return out


#: ids named one by one in a schema-id-unknown finding (the rest are counted)
_IDS_NAMED = 5


def _unknown_findings(usage: dict[str, _Usage], where: str) -> Iterator[Problem]:
    """One ``schema-id-unknown`` finding per topic whose framed keys or values name ids
    the registry does not hold."""
    for t, u in sorted(usage.items()):
        parts = []
        total = 0
        for side in ("key", "value"):
            ids = u.unknown[side]
            if not ids:
                continue
            n = sum(ids.values())
            total += n
            named = ", ".join(f"{sid} ({c})" for sid, c in
                              sorted(ids.items(), key=lambda kv: (-kv[1], kv[0]))[:_IDS_NAMED])
            more = f" and {len(ids) - _IDS_NAMED} more" if len(ids) > _IDS_NAMED else ""
            parts.append(f"{n} record {side}{' names' if n == 1 else 's name'} schema "
                         f"id{'' if len(ids) == 1 else 's'} {named}{more}")
        if parts:
            yield Problem(where, None, "schema-id-unknown",
                          f"topic {t}: {'; '.join(parts)}, which the registry's storage does "
                          "not hold", severity=WARNING,
                          extra={"topic": t, "records": total,
                                 "schema_ids": sorted(u.unknown_ids)})


def _deleted_findings(reg: Any, keys: Counter[int], values: Counter[int],
                      where: str) -> Iterator[Problem]:
    for sid in sorted(set(keys) | set(values)):
        v = reg.by_id(sid)
        if v is None or v.deleted is None:
            continue
        n = keys[sid] + values[sid]
        yield Problem(v.origin[0] if v.origin else where, None, "schema-deleted-in-use",
                      f"schema id {sid} ({v.subject} version {v.version}, {v.deleted}-deleted) "
                      f"is named by {n} record key{'' if n == 1 else 's'} or "
                      f"value{'' if n == 1 else 's'}", severity=WARNING,
                      extra={"schema_id": sid, "records": n})


def schemas_section(logs: list[KafkaFile], paths: list[str], max_batch_bytes: int
                    ) -> Iterator[Any]:
    """The registry's ``schema`` rows (as ``kdump schemas`` writes them, records counted
    per id) and each data topic's ``schema_usage``, when ``_schemas`` is among or beside
    the inputs."""
    from dataclasses import replace

    from ...schemaregistry.storage import DEFAULT_TOPIC, find_partitions, load
    from ...schemaregistry.subjects import SchemaRow, schema_rows

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
    where = reg.sources[0] if reg.sources else (paths[0] if paths else "")
    yield from _deleted_findings(reg, keys, values, where)
    yield from _unknown_findings(usage, where)
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
