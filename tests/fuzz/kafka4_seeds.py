"""Seeds of every Kafka 3.9-4.4 record for the payload surfaces (tests/fuzz/surfaces.py).

Every record type and every version of each release line's table (tests/support/kafka4_specs.py,
Kafka's JSON message definitions written again for the test encoder
tests/support/message_writer.py), encoded as tests/decoders/test_kafka4_records.py encodes them: coordinator
records of ``__consumer_offsets`` (family ``group``), ``__share_group_state``
(``share``) and ``__transaction_state`` (``transaction``) as ``(key, value)``; KRaft
records of ``__cluster_metadata`` as ``(None, value)``; control records as their
``(key, value)``.  One sample per (release, type, version); a version whose fields
differ between releases (4.0's and 4.1's share layouts) has a seed from each release.
Values are fixed (a :class:`random.Random` seeded with the record's name), so a case
is the same case every run.
"""

from __future__ import annotations

import random
import struct
from functools import cache

from tests.support import kafka4_specs as ks
from tests.support import message_writer as sw

Blob = tuple[bytes | None, bytes | None]

#: the decoder (kdump.decoders.internal_decoder name) of each coordinator family
DECODER_OF = {"group": "offsets", "share": "share-group-state", "transaction": "transaction-log"}




def _coordinator(release: str, family: str, t: int, v: int) -> Blob:
    key_w, value_w = ks.SPECS[release][(family, t)]
    assert key_w is not None
    rng = random.Random(f"fuzz/{release}/{family}/{t}/{v}")
    k = sw.sample(key_w, rng, 0)
    val = sw.sample(value_w, rng, v)
    ks.fix_enums(family, t, val)
    if "protocolType" in val:
        val["protocolType"] = "consumer"  # members' subscriptions decoded: more to reach
    if family == "transaction" and val.get("transactionPartitions") is None:
        val["transactionStatus"] = 0
    unknown = [(60, b"\x07")] if (t + v) % 3 == 0 else None  # and some unknown tags
    key = struct.pack(">h", t) + sw.encode(key_w, k, 0)
    value = struct.pack(">h", v) + sw.encode(value_w, val, v, unknown_tags=unknown)
    return key, value


def _dedup(blobs: list[Blob]) -> list[Blob]:
    seen: set[Blob] = set()
    out = []
    for b in blobs:
        if b not in seen:
            seen.add(b)
            out.append(b)
    return out


@cache
def coordinator_seeds(family: str) -> tuple[Blob, ...]:
    """Every (release, record type, version) of a coordinator family, key and value;
    plus a tombstone of each type (a deleted group, offset, state)."""
    out: list[Blob] = []
    for release, table in ks.SPECS.items():
        for (fam, t), (_key_w, value_w) in sorted(table.items()):
            if fam != family:
                continue
            for v in value_w.versions():
                key, value = _coordinator(release, family, t, v)
                out.append((key, value))
                if v == value_w.valid[0]:
                    out.append((key, None))
    return tuple(_dedup(out))


@cache
def metadata_seeds() -> tuple[Blob, ...]:
    """Every KRaft record type and version of every release (``__cluster_metadata``)."""
    out: list[Blob] = []
    for release, table in ks.SPECS.items():
        for (family, t), (_, schema) in sorted(table.items()):
            if family != "metadata":
                continue
            for v in schema.versions():
                rng = random.Random(f"fuzz/{release}/metadata/{t}/{v}")
                values = sw.sample(schema, rng, v)
                unknown = [(90, b"\x01")] if (t + v) % 3 == 0 else None
                body = sw.encode(schema, values, v, unknown_tags=unknown)
                out.append((None, sw.uvarint(1) + sw.uvarint(t) + sw.uvarint(v) + body))
    return tuple(_dedup(out))


@cache
def control_seeds() -> tuple[Blob, ...]:
    """Every control record type of every release: ``(key, value)`` as a v2 batch's
    control record holds them (key ``int16 version, int16 type``)."""
    out: list[Blob] = [(struct.pack(">hh", 0, 0), struct.pack(">hi", 0, 5)),  # ABORT
                       (struct.pack(">hh", 0, 1), struct.pack(">hi", 0, 7))]  # COMMIT
    for release, table in ks.SPECS.items():
        for (family, t), (_, schema) in sorted(table.items()):
            if family != "control":
                continue
            rng = random.Random(f"fuzz/{release}/control/{t}")
            values = sw.sample(schema, rng, 0)
            values["version"] = 0
            out.append((struct.pack(">hh", 0, t), sw.encode(schema, values, 0)))
    return tuple(_dedup(out))


__all__ = ["DECODER_OF", "control_seeds", "coordinator_seeds", "metadata_seeds"]
