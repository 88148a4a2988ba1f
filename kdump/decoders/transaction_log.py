"""``--transaction-log-decoder``: records of ``__transaction_state``.

Key = int16 version (0) + TransactionalId; value = int16 version (0 non-flexible, 1
flexible; from Kafka 4.0 with tagged PreviousProducerId / NextProducerId /
ClientTransactionVersion and, from 4.1, NextProducerEpoch) + TransactionLogValue; null
value = tombstone.

The text is what ``TransactionLog.formatRecordKeyAndValue`` gives DumpLogSegments::

    key: transaction_metadata::transactionalId=my-txn
    payload: producerId:1000,producerEpoch:2,state=Ongoing,partitions=[t-0,t-1],
             txnLastUpdateTimestamp=1700000000000,txnTimeoutMs=60000

(one line; Kafka 3.9's and 4.0's text).  Kafka 4.1+ prints JSON instead, like the other coordinator
records (``{"type":"0","data":{...}}`` / ``{"version":"1","data":{...}}``); kdump does
so when the evidence says 4.1 or later (``--kafka-version``, the log dir's
metadata.version).  Kafka 4.4's DumpLogSegments (``TransactionLogMessageParser.valueAsJson``)
puts the state's name in place of the ``transactionStatus`` id in that JSON
(``"transactionStatus":"Ongoing"``; an id no state has: the id as a string); kdump's
text does so when the evidence says 4.4 or later, its JSON output (``decoded``) keeps
the JsonConverter's id.  ``partitions`` is the ``toString`` of a Scala ``mutable.HashSet``,
whose iteration order depends on the TopicPartition hash codes and the table size; kdump
reproduces that order (see :func:`scala_hashset_order`).

Definitions: :mod:`kdump.protocol.definitions`, family ``transaction``
(``transaction-coordinator/src/main/resources/common/message/TransactionLog{Key,Value}.json``
of Kafka 3.9-4.4); format: ``core/src/main/scala/kafka/coordinator/transaction/TransactionLog.scala``.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from typing import Any

from kdump.decoders.base import Decoded
from kdump.decoders.consumer_offsets import java_string_hashcode
from kdump.decoders.release import NO_EVIDENCE, Evidence
from kdump.protocol.definitions import RELEASES, release_key, schema_table
from kdump.protocol.messages import Schema, SchemaError, json_text, read_message, to_json

__all__ = [
    "TRANSACTION_LOG_KEY",
    "TRANSACTION_LOG_VALUE",
    "TRANSACTION_STATES",
    "TransactionLogDecoder",
    "scala_hashset_order",
]

#: the key and value definitions (:mod:`kdump.protocol.definitions`, family ``transaction``)
TRANSACTION_LOG_KEY: Schema = schema_table("transaction", "key")[0]
TRANSACTION_LOG_VALUE: Schema = schema_table("transaction", "value")[0]

#: the release lines kdump reads, for messages ("3.9-4.4")
_RELEASES = f"{RELEASES[0]}-{RELEASES[-1]}"

#: TransactionState ids (``TransactionMetadata.scala``); the names are the case objects'.
TRANSACTION_STATES: dict[int, str] = {
    0: "Empty",
    1: "Ongoing",
    2: "PrepareCommit",
    3: "PrepareAbort",
    4: "CompleteCommit",
    5: "CompleteAbort",
    6: "Dead",
    7: "PrepareEpochFence",
}

#: ``transaction.version`` feature levels (TransactionVersion TV_0..TV_2).
_TRANSACTION_VERSIONS = frozenset({0, 1, 2})


# ----------------------------------------------------------------------------- Scala HashSet


def _topic_partition_hash(topic: str, partition: int) -> int:
    """``TopicPartition.hashCode``: ``31 * (31 + partition) + topic.hashCode()``, int32."""
    h = (31 * (31 + partition) + java_string_hashcode(topic)) & 0xFFFFFFFF
    return h - 0x100000000 if h & 0x80000000 else h


def _improve(h: int) -> int:
    """Scala 2.13 ``mutable.HashSet.improveHash``: ``h ^ (h >>> 16)`` as an Int."""
    u = h & 0xFFFFFFFF
    u ^= u >> 16
    return u - 0x100000000 if u & 0x80000000 else u


def _table_size_for(capacity: int) -> int:
    n = max(capacity - 1, 4)
    return min((1 << (n.bit_length() - 1)) * 2, 1 << 30)


def scala_hashset_order(
    groups: Iterable[Sequence[tuple[str, int]]],
) -> list[tuple[str, int]]:
    """Iteration order of a Scala 2.13 ``mutable.HashSet[TopicPartition]``.

    ``groups`` are the sets added one after another with ``++=`` (each built with
    ``.toSet`` from a partition list, so duplicates inside a group collapse).  The set
    iterates bucket by bucket (improved hash masked by the table size), each bucket in
    ascending improved-hash order; the table size depends on how the set grew:
    ``addAll`` first grows to fit the added collection's size, then adds small sets
    (Set1..Set4) element by element with the usual load-factor check, large ones
    (immutable.HashSet) without it.  Kafka 4.x builds with Scala 2.13.15.
    """
    length = 16
    threshold = 12
    seen: dict[tuple[str, int], tuple[int, int]] = {}
    for group in groups:
        elems = list(dict.fromkeys(group))  # .toSet keeps the first of duplicates
        target = _table_size_for(int((len(elems) + 1) / 0.75))
        if target > length:
            length = target
            threshold = int(length * 0.75)
        for tp in elems:
            if len(elems) <= 4 and len(seen) + 1 >= threshold:
                length *= 2
                threshold = int(length * 0.75)
            if tp not in seen:
                seen[tp] = (_improve(_topic_partition_hash(*tp)), len(seen))
    mask = length - 1
    return sorted(seen, key=lambda tp: (seen[tp][0] & mask, seen[tp][0], seen[tp][1]))


# ----------------------------------------------------------------------------- decoder


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _raw_json(buf: bytes | None) -> dict[str, Any] | None:
    if buf is None:
        return None
    out: dict[str, Any] = {}
    if len(buf) >= 2:
        out["version"] = str(int.from_bytes(buf[:2], "big", signed=True))
    out["raw"] = _b64(buf)
    return out


class TransactionLogDecoder:
    """Decoder for ``__transaction_state`` records (``--transaction-log-decoder``)."""

    name = "transaction-log"

    def __init__(self, evidence: Evidence = NO_EVIDENCE) -> None:
        self.evidence = evidence
        #: Kafka 4.1+ DumpLogSegments prints the records as JSON (CoordinatorRecordMessageParser);
        #: 3.9 and 4.0 printed TransactionLog.formatRecordKeyAndValue's text.  kdump prints the JSON
        #: when the evidence (``--kafka-version``, the log dir's metadata.version) says 4.1+,
        #: the 3.9 / 4.0 text otherwise.
        self.json_text = (evidence.release is not None
                          and release_key(evidence.release) >= release_key("4.1"))
        #: Kafka 4.4+ DumpLogSegments prints the state's name as transactionStatus
        #: (TransactionLogMessageParser.valueAsJson: TransactionState.fromId(id).stateName(),
        #: the id as a string when no state has it)
        self.status_names = (evidence.release is not None
                             and release_key(evidence.release) >= release_key("4.4"))

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        try:
            return self._decode(key, value, offset)
        except SchemaError as e:  # a decoder never aborts a dump
            text = f"Error at offset {offset}, skipping. {e}"
            return Decoded(text, None, _raw_json(key), _raw_json(value), text)

    def _decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        if key is None or len(key) < 2:
            raise SchemaError("the record has no transaction log key")
        key_version = int.from_bytes(key[:2], "big", signed=True)
        if key_version not in TRANSACTION_LOG_KEY.v_valid:
            return Decoded(
                f"Unknown record type {key_version} at offset {offset}, skipping."
                if self.json_text else f"unknown::version={key_version}",
                None,
                _raw_json(key),
                _raw_json(value),
                f"unknown record type {key_version} of __transaction_state: not a type of Kafka "
                f"{_RELEASES} (known: 0); raw bytes kept",
            )
        key_msg, key_end = read_message(TRANSACTION_LOG_KEY, key, key_version, pos=2)
        txn_id = key_msg["transactionalId"]
        key_text = f"transaction_metadata::transactionalId={txn_id}"
        key_json = {
            "version": str(key_version),
            "data": to_json(TRANSACTION_LOG_KEY.fields, key_msg, key_version),
        }
        notes: list[str] = []
        if key_end != len(key):
            notes.append(f"{len(key) - key_end} unread byte(s) after the TransactionLogKey")
        if self.json_text:
            key_text = json_text({"type": str(key_version), "data": key_json["data"]})
        if value is None:
            return Decoded(key_text, "<DELETE>", key_json, None, "; ".join(notes) or None)
        if len(value) < 2:
            raise SchemaError("the value is too short to hold a version")
        version = int.from_bytes(value[:2], "big", signed=True)
        if version not in TRANSACTION_LOG_VALUE.v_valid:
            why = (f"TransactionLogValue version {version} is not a version of Kafka {_RELEASES} "
                   f"(known {TRANSACTION_LOG_VALUE.v_valid}); raw bytes kept")
            if self.json_text:
                text = (f"Error at offset {offset}, skipping. Found an unknown record version "
                        f"{version} for {key_version} type")
                return Decoded(text, None, key_json, _raw_json(value), why)
            text = f"Unknown version {version} from the transaction log message value"
            return Decoded(key_text, None, key_json, _raw_json(value), f"{text}: {why}")
        msg, end = read_message(TRANSACTION_LOG_VALUE, value, version, pos=2)
        if end != len(value):
            notes.append(f"{len(value) - end} unread byte(s) after the TransactionLogValue")
        status = msg["transactionStatus"]
        state = TRANSACTION_STATES.get(status)
        if self.json_text:
            data = to_json(TRANSACTION_LOG_VALUE.fields, msg, version)
            if state is None:
                notes.append(f"TransactionStatus {status} is not a transaction state id")
            value_obj = {"version": str(version), "data": data}
            shown = value_obj
            if self.status_names:
                shown = {"version": str(version),
                         "data": {**data, "transactionStatus": state or str(status)}}
            return Decoded(key_text, json_text(shown), key_json, value_obj, "; ".join(notes) or None)
        if state is None:
            text = f"Unknown transaction state id {status} from the transaction status message"
            return Decoded(key_text, None, key_json, _raw_json(value), text)
        if msg["clientTransactionVersion"] not in _TRANSACTION_VERSIONS:
            notes.append(
                f"ClientTransactionVersion {msg['clientTransactionVersion']} is not a known "
                "transaction.version level"
            )
        groups: list[list[tuple[str, int]]] = []
        if state != "Empty":
            if msg["transactionPartitions"] is None:
                raise SchemaError(f"TransactionPartitions is null in state {state}")
            for entry in msg["transactionPartitions"]:
                groups.append([(entry["topic"], p) for p in entry["partitionIds"]])
        partitions = [f"{t}-{p}" for t, p in scala_hashset_order(groups)]
        value_text = (
            f"producerId:{msg['producerId']},"
            f"producerEpoch:{msg['producerEpoch']},"
            f"state={state},"
            f"partitions=[{','.join(partitions)}],"
            f"txnLastUpdateTimestamp={msg['transactionLastUpdateTimestampMs']},"
            f"txnTimeoutMs={msg['transactionTimeoutMs']}"
        )
        value_json = {
            "version": str(version),
            "data": to_json(TRANSACTION_LOG_VALUE.fields, msg, version),
            "state": state,
            "partitions": partitions,
        }
        return Decoded(key_text, value_text, key_json, value_json, "; ".join(notes) or None)
