"""Payload decoders: simple ones (string, hex, base64, json, int, long, none) and the
internal-topic ones (consumer offsets, transaction log, cluster metadata, share group
state, remote log metadata), all behind :class:`~kdump.decoders.base.PayloadDecoder`.

The decoders are named here and made here (:func:`simple_decoder`,
:func:`internal_decoder`, :class:`Releases` for the release-aware ones): this module
imports the decoder modules, never the other way round.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .base import Decoded, PayloadDecoder

if TYPE_CHECKING:
    from .release import Evidence

#: simple decoder names
SIMPLE = ("string", "hex", "base64", "json", "int", "long", "none")

#: Java class names DumpLogSegments users pass to --key/--value-decoder-class
JAVA_CLASSES = {
    "org.apache.kafka.tools.api.StringDecoder": "string",
    "kafka.serializer.StringDecoder": "string",
    "org.apache.kafka.tools.api.IntegerDecoder": "int",
    "kafka.serializer.IntegerDecoder": "int",
    "org.apache.kafka.tools.api.LongDecoder": "long",
    "kafka.serializer.LongDecoder": "long",
    "org.apache.kafka.tools.api.DefaultDecoder": "hex",
    "kafka.serializer.DefaultDecoder": "hex",
}

#: internal-topic decoders: name -> (module, class)
INTERNAL = {
    "offsets": ("kdump.decoders.consumer_offsets", "ConsumerOffsetsDecoder"),
    "transaction-log": ("kdump.decoders.transaction_log", "TransactionLogDecoder"),
    "cluster-metadata": ("kdump.decoders.cluster_metadata", "ClusterMetadataDecoder"),
    "share-group-state": ("kdump.decoders.share_group_state", "ShareGroupStateDecoder"),
    "remote-log-metadata": ("kdump.decoders.remote_log_metadata", "RemoteLogMetadataDecoder"),
}

#: internal topic name -> decoder name, for ``--decoder auto``
TOPIC_DECODERS = {
    "__consumer_offsets": "offsets",
    "__transaction_state": "transaction-log",
    "__cluster_metadata": "cluster-metadata",
    "__share_group_state": "share-group-state",
    "__remote_log_metadata": "remote-log-metadata",
}

#: the decoder name of keys and values decoded apart, each by its own simple or
#: schema-registry decoder (--key-decoder / --value-decoder, or a simple decoder --decoder
#: names for both): the commands' options come to it, and :func:`key_value_pair` says
#: what it means; no other module spells it
KEY_VALUE = "kv"


def key_value_pair(name: str | None, key_decoder: str | None,
                   value_decoder: str | None) -> tuple[str, str] | None:
    """The decoders of keys and of values (their names; ``string`` where none is given)
    when ``name`` is :data:`KEY_VALUE`, else None: dump's, find's, compare-replicas' and
    export's one reading of it."""
    if name != KEY_VALUE:
        return None
    return key_decoder or "string", value_decoder or "string"


def simple_decoder(name: str) -> PayloadDecoder:
    from . import simple

    classes = {
        "string": simple.StringDecoder,
        "hex": simple.HexDecoder,
        "base64": simple.Base64Decoder,
        "json": simple.JsonDecoder,
        "int": simple.IntegerDecoder,
        "long": simple.LongDecoder,
        "none": simple.NoneDecoder,
    }
    return classes[JAVA_CLASSES.get(name, name)]()


#: internal decoders whose layouts (or text) depend on the Kafka release that wrote the
#: records: they take a :class:`~kdump.decoders.release.Evidence`
RELEASE_AWARE = frozenset({"offsets", "transaction-log", "cluster-metadata", "share-group-state"})


def internal_decoder(name: str, evidence: object = None) -> PayloadDecoder:
    """An internal-topic decoder; ``evidence`` (a :class:`~kdump.decoders.release.Evidence`)
    for the :data:`RELEASE_AWARE` ones."""
    module, cls = INTERNAL[name]
    klass = getattr(importlib.import_module(module), cls)
    decoder: PayloadDecoder = klass(evidence) if evidence is not None and name in RELEASE_AWARE \
        else klass()
    return decoder


class Releases:
    """The one way every command (dump, dump --summary, lag, find-offset, find-time,
    compare-replicas, report, the Spark data source) learns which release wrote a log
    dir's records: ``--kafka-version`` when given, else each log dir's
    ``metadata.version`` (:func:`~kdump.decoders.release.evidence_for_logdir`, read once
    per log dir).  Makes the release-aware internal decoders (:func:`internal_decoder`)
    with that :class:`~kdump.decoders.release.Evidence`.  :mod:`.release` (and the
    message tables it loads) is imported when a method runs, not with this package,
    which every decoder module's import runs."""

    def __init__(self, kafka_version: str | None = None) -> None:
        self.kafka_version = kafka_version
        self._by_dir: dict[str, Evidence] = {}
        self._decoders: dict[tuple[str, Evidence], PayloadDecoder] = {}

    def evidence(self, log_dir: str | None, decoder: str) -> Evidence:
        """The evidence for ``decoder``'s records in ``log_dir``."""
        from . import release

        if self.kafka_version is not None:
            return release.Evidence(self.kafka_version, False,
                                    f"--kafka-version {self.kafka_version}")
        if decoder not in release.BY_METADATA_VERSION or not log_dir:
            return release.NO_EVIDENCE
        if log_dir not in self._by_dir:
            self._by_dir[log_dir] = release.evidence_for_logdir(log_dir)
        return self._by_dir[log_dir]

    def decoder(self, name: str, log_dir: str | None) -> PayloadDecoder:
        """The internal decoder ``name`` (:data:`INTERNAL`) for records of ``log_dir``;
        one per (name, evidence)."""
        from .release import NO_EVIDENCE

        evidence = self.evidence(log_dir, name) if name in RELEASE_AWARE else NO_EVIDENCE
        key = (name, evidence)
        if key not in self._decoders:
            self._decoders[key] = internal_decoder(name, evidence if name in RELEASE_AWARE
                                                   else None)
        return self._decoders[key]


class KeyValueDecoder:
    """DumpLogSegments' DecoderMessageParser: one decoder for keys, one for values."""

    def __init__(self, key: str = "string", value: str = "string") -> None:
        self.key = simple_decoder(key)
        self.value = simple_decoder(value)
        self.name = f"{self.key.name}/{self.value.name}"
        self.key_structured = bool(getattr(self.key, "structured", False))
        self.value_structured = bool(getattr(self.value, "structured", False))

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        k = self.key.decode(key, None, offset)
        v = self.value.decode(None, value, offset)
        errors = [e for e in (k.error, v.error) if e]
        return Decoded(
            k.key_text, v.value_text, k.key_json, v.value_json, "; ".join(errors) or None
        )


class AutoKeyValueDecoder(KeyValueDecoder):
    """dump's ``--decoder auto`` for a data topic without the registry's schemas:
    keys and values as the string decoder shows them, except a key of exactly 8 or 4
    bytes that is not text, shown as the big-endian number Kafka's Long / Integer
    serializers wrote, with a note saying so (:func:`~kdump.decoders.simple.number_key`).
    ``framed`` tells dump which records need more than the string decoder (the others
    keep its fast path)."""

    #: the only keys :meth:`framed` may say yes to: their sizes (dump asks about no other)
    key_sizes = frozenset((4, 8))

    def __init__(self) -> None:
        super().__init__("string", "string")
        self.name = "auto"
        from .simple import number_key_indices  # once, not per batch

        self._number_key_indices = number_key_indices

    @staticmethod
    def framed(key: bytes | None, value: bytes | None, headers: object = ()) -> bool:
        from .simple import number_key

        return key is not None and len(key) in (4, 8) and number_key(key) is not None

    def framed_indices(self, records: list[Any]) -> list[int]:
        """The indices of ``records`` (a batch's) :meth:`framed` says yes to, in one
        call (natively when the extension is built)."""
        return self._number_key_indices(records)

    def decode(self, key: bytes | None, value: bytes | None, offset: int,
               headers: object = ()) -> Decoded:
        from .base import KeyNoteDecoded
        from .simple import number_key

        d = super().decode(key, value, offset)
        got = number_key(key)
        if got is None:
            return d
        text, n, note = got
        return KeyNoteDecoded(text, d.value_text, n, d.value_json, d.error, d.note,
                              key_note=note)


__all__ = [
    "INTERNAL",
    "JAVA_CLASSES",
    "KEY_VALUE",
    "RELEASE_AWARE",
    "SIMPLE",
    "TOPIC_DECODERS",
    "AutoKeyValueDecoder",
    "Decoded",
    "KeyValueDecoder",
    "PayloadDecoder",
    "Releases",
    "internal_decoder",
    "key_value_pair",
    "simple_decoder",
]
