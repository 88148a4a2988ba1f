"""``kdump timeline`` reads an offset commit's fields at their places
(coordinators.commit_fields): what the consumer-offsets decoder gives for them, under
every release's evidence, on every key type and value version, and on damaged records
(which it leaves to the decoder)."""

from __future__ import annotations

import random
import struct
from typing import Any

from kdump.decoders import internal_decoder
from kdump.decoders.release import Evidence
from kdump.ops.offsets_digest import as_int
from kdump.ops.timeline.coordinators import commit_fields
from tests.support import kafka4_specs as ks
from tests.support import message_writer as sw

EVIDENCE = [Evidence(), *(Evidence(r, floor, "test") for r in ks.SPECS
                          for floor in (False, True))]


def _record(release: str, rtype: int, key: dict[str, Any], value: dict[str, Any] | None,
            version: int) -> tuple[bytes, bytes | None]:
    key_w, value_w = ks.SPECS[release][("group", rtype)]
    assert key_w is not None
    k = struct.pack(">h", rtype) + sw.encode(key_w, key, 0)
    v = None if value is None else struct.pack(">h", version) + sw.encode(value_w, value,
                                                                        version)
    return k, v


def _records() -> list[tuple[bytes | None, bytes | None]]:
    out: list[tuple[bytes | None, bytes | None]] = []
    for release in ("3.9", "4.3"):
        for rtype in (0, 1):
            _, value_w = ks.SPECS[release][("group", rtype)]
            assert value_w is not None
            for version in range(value_w.valid[0], value_w.valid[1] + 1):
                for group, topic in (("payments", "orders"), ("", ""), ("gr\u00fcn", "t\u2603")):
                    out.append(_record(release, rtype,
                                       {"group": group, "topic": topic, "partition": 7},
                                       {"offset": 12345678901, "leaderEpoch": 3,
                                        "metadata": "meta\u00e9", "commitTimestamp": -1 if
                                        group == "" else 1_700_000_000_123,
                                        "expireTimestamp": 5}, version))
            out.append(_record(release, rtype, {"group": "g", "topic": "t", "partition": 0},
                               None, 0))
    out.append(_record("4.3", 2, {"group": "g"}, None, 0))
    out.extend([(None, b"\x00\x01"), (b"\x00", b"\x00\x01"), (b"\x00\x01", None)])
    return out


def _mutations(k: bytes, v: bytes | None, rng: random.Random
               ) -> list[tuple[bytes | None, bytes | None]]:
    out: list[tuple[bytes | None, bytes | None]] = [(k[:-1], v), (k + b"\x00", v),
                                                    (k[:4] + b"\xff\xfe" + k[6:], v)]
    if v is not None:
        out += [(k, v[:-1]), (k, v + b"\x00"), (k, v[:2]), (k, b"\x00\x05" + v[2:]),
                (k, b"\xff\xff" + v[2:])]
        for _ in range(20):
            b = bytearray(v)
            b[rng.randrange(len(b))] = rng.randrange(256)
            out.append((k, bytes(b)))
    for _ in range(20):
        b = bytearray(k)
        b[rng.randrange(len(b))] = rng.randrange(256)
        out.append((bytes(b), v))
    return out


def test_commit_fields_are_what_the_decoder_reads() -> None:
    rng = random.Random(48)
    records = _records()
    for k, v in list(records):
        if k is not None and len(k) > 6:
            records.extend(_mutations(k, v, rng))
    read = 0
    for evidence in EVIDENCE:
        decoder = internal_decoder("offsets", evidence)
        for k, v in records:
            got = commit_fields(k, v)
            if got is None:
                continue
            read += 1
            d = decoder.decode(k, v, 0)
            assert isinstance(d.key_json, dict) and d.key_json["type"] in ("0", "1"), (k, v)
            kd, data = d.key_json["data"], d.value_json["data"]  # type: ignore[index]
            assert (kd["group"], kd["topic"], kd["partition"], as_int(data["offset"]),
                    as_int(data["commitTimestamp"])) == got, (evidence, k, v)
    assert read > 300
    # what it leaves to the decoder: tombstones, version 4, other types, damage
    assert commit_fields(*_record("4.3", 1, {"group": "g", "topic": "t", "partition": 0},
                                  None, 0)) is None
    assert commit_fields(*_record("4.3", 1, {"group": "g", "topic": "t", "partition": 0},
                                  {"offset": 1, "leaderEpoch": 0, "metadata": "",
                                   "commitTimestamp": 2}, 4)) is None
    assert commit_fields(*_record("4.3", 2, {"group": "g"}, None, 0)) is None
