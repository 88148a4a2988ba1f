"""Payload decoders: what a record's key and value bytes mean.

DumpLogSegments turns key and value bytes into text with a ``Decoder`` class
(``--key-decoder-class`` / ``--value-decoder-class``) or a topic-specific parser
(``--offsets-decoder`` ...).  kdump has the same two families behind one contract:
a decoder takes the raw key/value bytes of a record and returns :class:`Decoded`,
which carries both the text DumpLogSegments prints and a JSON-able object for
``--format json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Decoded:
    """A decoded record payload.

    ``key_text``/``value_text`` are what DumpLogSegments prints after ``key: `` and
    `` payload: `` (``None``: nothing printed).  ``key_json``/``value_json`` are the
    same content as nested JSON-able objects (``None`` for a null key or a tombstone).
    ``error`` names a per-record decoding problem; the dump carries on.  ``note`` says
    which of several layouts read the record, and why (the 4.0 and 4.1+ share-group
    layouts: :mod:`kdump.decoders.release`); it is not a problem.
    """

    key_text: str | None
    value_text: str | None
    key_json: object
    value_json: object
    error: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class NotedDecoded(Decoded):
    """A :class:`Decoded` whose ``error`` text output shows on the record's line
    (`` decodeError: ...``): the schema-registry decoder's notes (unknown id, truncated
    payload ...), which DumpLogSegments has no equivalent of."""


class PayloadDecoder(Protocol):
    """Turns one record's key and value bytes into :class:`Decoded`."""

    name: str

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded: ...


def decode_record(decoder: Any, rec: Any) -> Decoded:
    """``decoder.decode`` of a record's key and value, with its headers for a decoder that
    reads them (``uses_headers``: the schema-registry decoder, whose ids may be in
    ``__key_schema_id`` / ``__value_schema_id``)."""
    if getattr(decoder, "uses_headers", False):
        got: Decoded = decoder.decode(rec.key, rec.value, rec.offset, rec.headers)
        return got
    got = decoder.decode(rec.key, rec.value, rec.offset)
    return got


@dataclass(frozen=True, slots=True)
class KeyNoteDecoded(Decoded):
    """A :class:`Decoded` whose key dump's auto decoding read as a number (a key of 8 or
    4 bytes that is not text: :func:`kdump.decoders.simple.number_key`); ``key_note``
    says so (JSON: ``decoded.key_note``; text: the key is followed by its type)."""

    key_note: str | None = None
