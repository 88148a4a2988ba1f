"""When a key or value is Confluent-framed: the one rule ``kdump schemas``, dump's auto
decoding and ``kdump report`` share.

A key or value whose first byte is 0x00 and that holds four more bytes *looks* framed
(magic byte 0 + a big-endian schema id, :mod:`kdump.schemaregistry.wire`), but so does an
8-byte big-endian number below 2^56, a Kafka Streams changelog value that starts with
its timestamp, and any binary payload starting with a zero byte.  So the look is not
evidence.  A key or value counts as framed only when

* its id is in the registry's storage (``_schemas`` replayed, or ``--schemas``): ``id``;
* or the topic has a subject for that side: TopicNameStrategy's ``<topic>-key`` /
  ``<topic>-value``, or TopicRecordNameStrategy's ``<topic>-<record full name>``
  (Confluent's ``io.confluent.kafka.serializers.subject``), in any context: ``unknown``
  when the id is not held;
* or a schema-id header (``__key_schema_id`` / ``__value_schema_id``) names the schema:
  ``unknown`` when the id is not held.

Anything else that looks framed is a ``candidate``: framed only when the same side of
the same topic carries framed records (ids the registry holds: RecordNameStrategy, whose
subjects are record names, not topics) -- which a pass over the whole topic can tell
(:meth:`FramingRule.side_framed`), a record on its own cannot.  A candidate never
decodes (its id is not held); dump shows it with the plain decoders.  Everything else is
``plain`` (not framed), or ``none`` (no key, a tombstone).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import wire
from .storage import Registry

__all__ = ["CANDIDATE", "ID", "NONE", "PLAIN", "UNKNOWN", "Framing", "FramingRule"]

ID, UNKNOWN, CANDIDATE, PLAIN, NONE = "id", "unknown", "candidate", "plain", "none"


@dataclass(frozen=True, slots=True)
class Framing:
    """How a key or value names a schema: ``how`` is one of ``id`` (an id the registry
    holds), ``unknown`` (framed by evidence, id not held), ``candidate`` (looks framed, no
    evidence yet), ``plain`` (not framed) or ``none`` (no data)."""

    how: str
    schema_id: int | None = None


_PLAIN = Framing(PLAIN)
_NONE = Framing(NONE)


def _bare(subject: str) -> str:
    """A subject without its context (``:.ctx:orders-value`` -> ``orders-value``)."""
    if subject.startswith(":.") and subject.count(":") >= 2:
        return subject.split(":", 2)[2]
    return subject


class FramingRule:
    """The rule over one registry's storage (see the module docstring)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._subjects = {_bare(s) for s, _v in registry.versions}
        self._sides: dict[tuple[str, str], bool] = {}

    def has_subject(self, topic: str | None, side: str) -> bool:
        """Does the registry hold a subject for ``topic``'s ``side`` (``key`` / ``value``):
        ``<topic>-<side>``, or ``<topic>-<record full name>`` (a dotted name)?"""
        if topic is None:
            return False
        got = self._sides.get((topic, side))
        if got is None:
            prefix = topic + "-"
            got = f"{prefix}{side}" in self._subjects or any(
                s.startswith(prefix) and "." in s[len(prefix):]
                and not s.endswith(("-key", "-value")) for s in self._subjects)
            self._sides[(topic, side)] = got
        return got

    def classify(self, topic: str | None, side: str, data: bytes | None,
                 header: bytes | None) -> Framing:
        """How ``data`` (a key or a value: ``side``) of a record of ``topic`` names a
        schema; ``header``: the value of its schema-id header for that side, or None."""
        buf = header if header is not None else data
        if not buf:
            return _NONE
        if header is None and buf[0] > wire.MAGIC_BYTE_V1:
            return _PLAIN
        fr = wire.read_id(buf, "header" if header is not None else "payload")
        if isinstance(fr, wire.FrameError):
            return _PLAIN
        reg = self.registry
        sid = fr.schema_id if fr.guid is None else reg.id_for_guid(fr.guid)
        if sid is not None and sid in reg.ids():
            return Framing(ID, sid)
        if header is not None or self.has_subject(topic, side):
            return Framing(UNKNOWN, sid)
        return Framing(CANDIDATE, sid)

    def side_framed(self, topic: str | None, side: str, ids_held: int) -> bool:
        """Does ``side`` of ``topic`` carry framed records: a subject for it, or
        ``ids_held`` of its keys / values name ids the registry holds?  Its candidates
        are then framed too (ids the registry does not hold); else they are plain."""
        return ids_held > 0 or self.has_subject(topic, side)
