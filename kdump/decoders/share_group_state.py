"""``--share-group-state-decoder``: records of ``__share_group_state`` (KIP-932).

Framing as for ``__consumer_offsets``: key int16 = record type (0 ShareSnapshot, 1
ShareUpdate) + key body; value int16 version + body; null value = tombstone.  The key
type selects the value definition.  DumpLogSegments' ``ShareGroupStateMessageParser``
of Kafka 4.0 labels *both* JSON objects with ``"type"``; from 4.1 on the value is
labelled ``"version"`` like the other coordinator records::

    key: {"type":"0","data":{"groupId":"g","topicId":"...","partition":0}}
    payload: {"type":"0","data":{"snapshotEpoch":0,...}}          (Kafka 4.0)
    payload: {"version":"0","data":{"snapshotEpoch":0,...}}       (Kafka 4.1+)

Kafka 4.0 and 4.1 write ``ShareSnapshotValue`` / ``ShareUpdateValue`` at the same
version 0 with different layouts (4.0: uint16 SnapshotEpoch; 4.1: int32 SnapshotEpoch,
and the snapshot gains CreateTimestamp / WriteTimestamp); which one a record uses is
picked from the evidence (:mod:`kdump.decoders.release`), and the label follows the
layout's release (or the ``--kafka-version``).

Definitions: :mod:`kdump.protocol.definitions`, family ``share``
(``share-coordinator/src/main/resources/common/message/Share{Snapshot,Update}{Key,Value}.json``
of Kafka 4.0-4.4; 3.9 has no share coordinator).
"""

from __future__ import annotations

from kdump.decoders.consumer_offsets import CoordinatorRecordDecoder
from kdump.protocol.definitions import RecordDef, schema_table
from kdump.protocol.messages import Schema

__all__ = [
    "SHARE_KEY_SCHEMAS",
    "SHARE_VALUE_SCHEMAS",
    "ShareGroupStateDecoder",
]

#: record type -> key schema
SHARE_KEY_SCHEMAS: dict[int, Schema] = schema_table("share", "key")
#: record type -> value schema (the newest layout; Kafka 4.0's: ``schema_table("share",
#: "value", "4.0")``)
SHARE_VALUE_SCHEMAS: dict[int, Schema] = schema_table("share", "value")


class ShareGroupStateDecoder(CoordinatorRecordDecoder):
    """Decoder for ``__share_group_state`` records (``--share-group-state-decoder``)."""

    name = "share-group-state"
    topic = "__share_group_state"
    topic_label = "share group state topic"
    family = "share"
    key_schemas = SHARE_KEY_SCHEMAS
    value_schemas = SHARE_VALUE_SCHEMAS
    value_label = "type"

    def label_for(self, layout: RecordDef | None) -> str:
        ev = self.evidence
        if ev.release is not None and not ev.floor:
            return "type" if ev.release == "4.0" else "version"
        if layout is not None and layout.releases.hi == "4.0":
            return "type"
        return "version"
