"""Secrets in the data: what kdump never prints unless asked (``--show-secrets``).

KRaft's ``__cluster_metadata`` (and its snapshots) holds credentials: the salts and
keys of SCRAM users and the values of PASSWORD-typed configs.  The decoders that print
records (``dump``, ``find-*``, Spark) pass each decoded metadata record through
:func:`redact_metadata` (one line in the decoder), so JSON, text, tables and Spark rows
all say ``[redacted]`` where the secret was; the ``metadata`` image uses the same rules
(:func:`is_sensitive_config`).

Keyed on the record type and field names of
``metadata/src/main/resources/common/metadata/*.json`` (Kafka 4.x):

* ``UserScramCredentialRecord``: ``Salt``, ``StoredKey``, ``ServerKey`` (anyone holding
  a stored and a server key can authenticate as the user to any broker of the cluster);
* ``DelegationTokenRecord``: ``Hmac`` where a version carries it (the 4.x record holds
  the token's id and owners only: the HMAC is derived from the cluster's
  ``delegation.token.secret.key``, itself a redacted config);
* ``ConfigRecord``: ``Value`` when ``Name`` is a sensitive config (:func:`is_sensitive_config`).

The bytes on disk are evidence and are never changed: ``--show-secrets`` prints the
records as Kafka's own DumpLogSegments does.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ..records.record import Record
from .base import decode_record

#: what a secret is printed as
REDACTED = "[redacted]"

#: record type (the schema's name) -> its secret fields (lower camel case, as decoded)
SECRET_FIELDS: dict[str, tuple[str, ...]] = {
    "UserScramCredentialRecord": ("salt", "storedKey", "serverKey"),
    "DelegationTokenRecord": ("hmac",),
}

# Config names whose values are secrets: Kafka's PASSWORD-typed configs (ConfigDef
# Type.PASSWORD: *.password, sasl.jaas.config, ssl.keystore.key, ssl.keystore.certificate.chain,
# ssl.truststore.certificates, delegation.token.secret.key, *.client.secret ...).
# kafka-metadata-shell redacts these (and any config its schema does not know); kdump has
# no ConfigDef, so it goes by name.
_SENSITIVE_PARTS = ("password", "jaas.config", "ssl.keystore.key", "ssl.keystore.certificate.chain",
                    "ssl.truststore.certificates", "secret", "credential")


def is_sensitive_config(name: str) -> bool:
    """Is ``name`` a config whose value kdump never prints?"""
    low = name.lower()
    return any(p in low for p in _SENSITIVE_PARTS)


#: the bytes a record holding secrets shows in place of its raw value
REDACTED_BYTES = REDACTED.encode()


def secret_fields(record_type: str, data: Any) -> list[str]:
    """The fields of a decoded metadata record body that hold secrets (not null)."""
    if not isinstance(data, dict):
        return []
    fields = SECRET_FIELDS.get(record_type, ())
    if record_type == "ConfigRecord":
        name = data.get("name")
        fields = ("value",) if isinstance(name, str) and is_sensitive_config(name) else ()
    return [f for f in fields if data.get(f) is not None]


class RedactedRecord(Record):
    """A record whose raw value held secrets: its value is :data:`REDACTED_BYTES`, its
    ``value_size`` the stored one."""

    __slots__ = ("stored_value_size",)
    stored_value_size: int

    @property
    def value_size(self) -> int:
        return int(self.stored_value_size)


def redact_record(rec: Record) -> Record:
    """``rec`` itself, or a :class:`RedactedRecord` when its value is a metadata record
    holding secrets (the raw bytes a JSON or table dump would show)."""
    from ..protocol.frame import METADATA_SCHEMAS, FrameError, decode_frame
    from ..protocol.messages import SchemaError

    if rec.value is None or isinstance(rec, RedactedRecord):
        return rec
    try:
        schema, _, _, data = decode_frame(rec.value, METADATA_SCHEMAS)
    except (FrameError, SchemaError):  # not a record kdump can read: as it is
        return rec
    if not secret_fields(schema.name, data):
        return rec
    return _redacted_copy(rec)


def _redacted_copy(rec: Record) -> RedactedRecord:
    out = RedactedRecord.__new__(RedactedRecord)
    for name in Record.__slots__:
        setattr(out, name, getattr(rec, name))
    out.stored_value_size = rec.value_size
    out.value = REDACTED_BYTES
    return out


_KRAFT_SNAPSHOT = re.compile(r"^\d{20}-\d{10}\.checkpoint$")


def holds_metadata(path: str | None, decoder: Any = None) -> bool:
    """Are the records of the file at ``path`` (or those ``decoder`` reads) KRaft metadata
    records, which may hold secrets?"""
    if getattr(decoder, "name", None) == "cluster-metadata":
        return True
    if not path:
        return False
    path = path.rstrip("/")
    name = path.rsplit("/", 1)[-1]
    parent = path.rsplit("/", 2)[-2] if path.count("/") >= 1 else ""
    return (re.match(r"^__cluster_metadata-\d+$", parent) is not None
            or name == "bootstrap.checkpoint" or _KRAFT_SNAPSHOT.match(name) is not None)


def shown(rec: Record, decoder: Any, path: str | None, *, show_secrets: bool = False,
          metadata: bool | None = None) -> tuple[Record, Any]:
    """The record as kdump's output shows it, and its decoded payload (None without a
    decoder).  A metadata record holding secrets (``metadata``: the caller knows the
    file's records are metadata records; otherwise :func:`holds_metadata` says) is shown
    redacted (:class:`RedactedRecord`); the cluster-metadata decoder reads the original
    (and redacts what it decodes), any other decoder reads the redacted record."""
    if metadata is None:
        metadata = holds_metadata(path, decoder)
    if show_secrets or not metadata:
        return rec, (decode_record(decoder, rec) if decoder is not None else None)
    if getattr(decoder, "name", None) == "cluster-metadata" and not getattr(
            decoder, "show_secrets", False):
        # the decoder redacts what it decodes, and counts it: one decoding, not two
        before = Redacted.records
        decoded = decoder.decode(rec.key, rec.value, rec.offset)
        if Redacted.records == before or rec.value is None:
            return rec, decoded
        return _redacted_copy(rec), decoded
    red = redact_record(rec)
    if decoder is None:
        return red, None
    src = rec if getattr(decoder, "name", None) == "cluster-metadata" else red
    return red, decoder.decode(src.key, src.value, src.offset)


class Redacted:
    """What this process redacted (the CLI's note): records, and their field names."""

    records: ClassVar[int] = 0
    fields: ClassVar[set[str]] = set()

    @classmethod
    def reset(cls) -> None:
        cls.records = 0
        cls.fields = set()


def redact_metadata(record_type: str, data: Any) -> Any:
    """``data`` (a decoded metadata record body) with its secrets replaced by
    :data:`REDACTED` (``data`` itself when it holds none).  A field already null (or
    absent) is left as it is.  Counted in :class:`Redacted`."""
    hidden = secret_fields(record_type, data)
    if not hidden:
        return data
    out = dict(data)
    for f in hidden:
        out[f] = REDACTED
    Redacted.records += 1
    Redacted.fields.update(f"{record_type}.{f}" for f in hidden)
    return out


__all__ = ["REDACTED", "REDACTED_BYTES", "SECRET_FIELDS", "Redacted", "RedactedRecord",
           "holds_metadata", "is_sensitive_config", "redact_metadata", "redact_record",
           "secret_fields", "shown"]
