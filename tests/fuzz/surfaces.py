"""Payload surfaces: parsers that take one blob (a record's key and value, a schema, a
report input) rather than a file, fuzzed in-process with bounded time and memory.

The file-level fuzzer (harness.py) damages whole segments and runs commands; a surface
here is smaller and faster, so a new parser (a Kafka 4.x record type, a schema-registry
payload or ``_schemas`` value, a report input) is fuzzed by adding ONE entry to
:data:`SURFACES`::

    Surface("schema-registry-avro", seeds=_avro_seeds, target=_decode_avro,
            bombs=_avro_bombs)

* ``seeds()``: well-formed ``(key, value)`` samples, written by the project's writers
  (never pasted bytes); each must go through ``target`` without a failure;
* ``target(key, value)``: the code under test, as kdump calls it; it must return (a
  decoder's corruption is data: a note in its result, never an exception), within
  ``max_seconds`` of CPU time (a machine busy with other work does not count) and
  allocating at most ``max_bytes`` (tracemalloc's peak), and what it returns must pass
  ``check`` (by default: JSON-able, as every kdump output is);
* ``bombs()``: named hostile inputs that must keep the same bounds: a length that claims
  2 GiB, a count of a billion, a million tagged fields, a value that refers to itself.

Mutations are mutate.py's byte-level ones (bit flips, byte sets, truncations, zeroed
regions, insertions, deletions, splices with another seed, appended garbage) plus
varints replaced by huge, negative, overlong or unterminated ones.  Case ``i`` of seed
``s`` of a surface is always the same case.
"""

from __future__ import annotations

import json
import random
import struct
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fuzz import mutate
from tests.fuzz.harness import RunTimeout, cpu_timer

Blob = tuple[bytes | None, bytes | None]


def _jsonable(result: Any) -> list[str]:
    try:
        json.dumps(_plain(result), allow_nan=False)
    except (TypeError, ValueError) as e:
        return [f"result is not JSON-able: {e}"]
    return []


def _plain(result: Any) -> Any:
    """A decoder's Decoded as the objects kdump writes (its JSON sides)."""
    if hasattr(result, "key_json") and hasattr(result, "value_json"):
        return [result.key_json, result.value_json, result.key_text, result.value_text,
                result.error]
    return result


@dataclass(frozen=True)
class Surface:
    name: str
    seeds: Callable[[], list[Blob]]
    target: Callable[[bytes | None, bytes | None], Any]
    bombs: Callable[[], list[tuple[str, bytes | None, bytes | None]]] = lambda: []
    check: Callable[[Any], list[str]] = _jsonable
    max_seconds: float = 2.0
    max_bytes: int = 64 << 20


@dataclass
class Outcome:
    surface: str
    case: str
    seconds: float
    peak: int
    failures: list[str] = field(default_factory=list)


def run_one(surface: Surface, case: str, key: bytes | None, value: bytes | None) -> Outcome:
    """``surface.target(key, value)`` under a timer and tracemalloc; the rules it broke."""
    failures: list[str] = []
    result: Any = None
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with cpu_timer(surface.max_seconds):
            result = surface.target(key, value)
    except RunTimeout:
        failures.append(f"no answer within {surface.max_seconds} s of CPU")
    except Exception as e:  # what kdump would print as an internal error
        failures.append(f"raised {type(e).__name__}: {str(e)[:200]}")
    finally:
        seconds = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    if peak > surface.max_bytes:
        failures.append(f"allocated {peak:,} bytes (at most {surface.max_bytes:,})")
    if not failures:
        failures += surface.check(result)
    return Outcome(surface.name, case, seconds, peak, failures)


def mutate_blob(rng: random.Random, data: bytes | None, donor: bytes) -> tuple[bytes | None, str]:
    if data is None or rng.random() < 0.15:
        return data, "as is"
    if rng.random() < 0.2 and data:
        pos = rng.randrange(len(data))
        v = mutate.random_varint(rng)
        return data[:pos] + v + data[pos + rng.randint(0, 5):], f"varint {v.hex()} at {pos}"
    out, what = mutate.generic(rng, data, donor, "payload")
    return out, what


def fuzz(surface: Surface, seed: str, cases: int) -> list[Outcome]:
    """``cases`` mutated seeds of ``surface`` (seed ``seed``), plus every seed and bomb
    as is; the outcomes that broke a rule."""
    seeds = surface.seeds()
    assert seeds, f"{surface.name}: no seeds"
    bad: list[Outcome] = []
    for i, (k, v) in enumerate(seeds):
        o = run_one(surface, f"seed {i}", k, v)
        if o.failures:
            bad.append(o)
    for name, k, v in surface.bombs():
        o = run_one(surface, f"bomb {name}", k, v)
        if o.failures:
            bad.append(o)
    for i in range(cases):
        rng = random.Random(f"{surface.name}:{seed}:{i}")
        k, v = rng.choice(seeds)
        dk, dv = rng.choice(seeds)
        donor = dv or dk or b""
        what = []
        if rng.random() < 0.3:
            k, w = mutate_blob(rng, k, donor)
            what.append(f"key {w}")
        if rng.random() < 0.9 or not what:
            v, w = mutate_blob(rng, v, donor)
            what.append(f"value {w}")
        o = run_one(surface, f"case {seed}:{i} ({'; '.join(what)})", k, v)
        if o.failures:
            bad.append(o)
    return bad


# --- the surfaces ---------------------------------------------------------------------------
#: the Kafka 4.x family (tests/fuzz/kafka4_seeds.py) of each internal decoder
_KAFKA4_FAMILY = {"offsets": "group", "share-group-state": "share",
                  "transaction-log": "transaction", "cluster-metadata": "metadata"}


def _decoder_seeds(name: str) -> Callable[[], list[Blob]]:
    """The records of tests/decoders/test_decoders.py's ``_valid_records()`` for decoder ``name``,
    and every record type and version of Kafka 3.9-4.4 (tests/fuzz/kafka4_seeds.py)."""
    def seeds() -> list[Blob]:
        from tests.decoders.test_decoders import _valid_records
        from tests.fuzz import kafka4_seeds as k4

        out = [(k, v) for d, k, v in _valid_records() if d.name == name]
        family = _KAFKA4_FAMILY.get(name)
        if family == "metadata":
            out += k4.metadata_seeds()
        elif family is not None:
            out += k4.coordinator_seeds(family)
        return out
    return seeds


#: what a release-aware decoder is told of the release (kdump/decoders/release.py):
#: nothing (the layout that fits), the user's --kafka-version, a metadata.version floor
_EVIDENCE = {"": None, "@4.0": ("4.0", False), "@4.1": ("4.1", False),
             "@4.1-floor": ("4.1", True)}
_DECODERS: dict[tuple[str, str], Any] = {}


def _decoder_target(name: str, evidence: str = "") -> Callable[[bytes | None, bytes | None], Any]:
    def target(key: bytes | None, value: bytes | None) -> Any:
        dec = _DECODERS.get((name, evidence))
        if dec is None:
            from kdump.decoders import internal_decoder
            from kdump.decoders.release import NO_EVIDENCE, Evidence

            ev = _EVIDENCE[evidence]
            dec = internal_decoder(name, NO_EVIDENCE if ev is None else
                                   Evidence(ev[0], ev[1], f"fuzz {evidence[1:]}"))
            _DECODERS[(name, evidence)] = dec
        return dec.decode(key, value, 7)
    return target


def _control_seeds() -> list[Blob]:
    from tests.fuzz import kafka4_seeds as k4

    return list(k4.control_seeds())


def _control_target(key: bytes | None, value: bytes | None) -> Any:
    """A control record's key and value as a v2 batch's record holds them
    (kdump/records/control.py: transaction markers and the KRaft types)."""
    import dataclasses
    from types import SimpleNamespace

    from kdump.records.control import parse_control

    return dataclasses.asdict(parse_control(SimpleNamespace(key=key, value=value)))  # type: ignore[arg-type]


def _control_bombs() -> list[tuple[str, bytes | None, bytes | None]]:
    from tests.support import writer as w

    huge = w.uvarint(1 << 31)
    return [
        ("leader change voters claiming 2^31", struct.pack(">hh", 0, 2),
         struct.pack(">hi", 0, 1) + huge),
        ("voters record claiming a billion voters", struct.pack(">hh", 0, 6),
         struct.pack(">h", 0) + w.uvarint(1 << 30) + b"\x00"),
        ("a million tagged fields", struct.pack(">hh", 0, 3),
         struct.pack(">hq", 0, 1) + w.uvarint(1_000_000) + b"\x00\x00" * 1000),
        ("type -1", struct.pack(">hh", 0, -1), b"\x00" * 8),
        ("key version -1", struct.pack(">hh", -1, 2), b"\x00" * 8),
    ]


def _frame(api_key: int, version: int, body: bytes) -> bytes:
    from tests.support import writer as w

    return w.uvarint(1) + w.uvarint(api_key) + w.uvarint(version) + body


def _metadata_bombs() -> list[tuple[str, bytes | None, bytes | None]]:
    """KRaft records that claim far more than they hold."""
    from tests.support import writer as w

    huge = w.uvarint(1 << 31)  # a compact length of 2^31 - 1
    return [
        ("string claiming 2 GiB", None, _frame(2, 0, huge + b"x")),             # TopicRecord name
        ("array of a billion ids", None, _frame(5, 0, b"\x00" * 4 + b"\x00" * 16
                                                + w.uvarint(1 << 30) + b"\x01")),
        ("a million tagged fields", None, _frame(12, 0, w.uvarint(1) + b"a" + b"\x00\x01"
                                                 + w.uvarint(1_000_000) + b"\x00\x00" * 1000)),
        ("tagged field claiming 2 GiB", None, _frame(12, 0, w.uvarint(1) + b"a" + b"\x00\x01"
                                                     + w.uvarint(1) + w.uvarint(5) + huge)),
        ("api key 2^31", None, w.uvarint(1) + w.uvarint(1 << 31) + w.uvarint(0) + b"\x00"),
        ("version 2^31", None, w.uvarint(1) + w.uvarint(2) + w.uvarint(1 << 31) + b"\x00"),
        ("100 KB of 0xff", None, b"\xff" * 100_000),
    ]


def _coordinator_bombs() -> list[tuple[str, bytes | None, bytes | None]]:
    return [
        ("key string claiming 32767 bytes", struct.pack(">hh", 1, 32767) + b"g", b"\x00\x03"),
        ("value array of 2^31 - 1 members", struct.pack(">hh", 2, 1) + b"g",
         struct.pack(">hh", 3, 8) + b"consumer" + struct.pack(">i", 1) + b"\x00\x00"
         + b"\x00\x00\x00\x00" + struct.pack(">i", 0x7FFFFFFF)),
        ("version -1", struct.pack(">h", -1), struct.pack(">h", -1)),
        ("100 KB of 0xff", b"\xff" * 100_000, b"\xff" * 100_000),
    ]


# --- schema registry (branch schemas): present once kdump.schemaregistry is ---------------
def _have(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _rw() -> Any:
    from tests.support import registry_writer as rw
    return rw


def _registry(extra: list[tuple[bytes, bytes]] = ()) -> Any:  # type: ignore[assignment]
    """The sample registry (tests/support/registry_writer.py), plus ``extra`` _schemas records."""
    from kdump.schemaregistry.storage import Registry, _apply

    reg = Registry()
    recs = [(r.key, r.value) for r in _rw().registry_records()] + list(extra)
    for i, (k, v) in enumerate(recs):
        _apply(reg, "fuzz", 0, 0, i, k, v)
    return reg


_SR_DECODER: list[Any] = []

#: small Avro schemas whose values claim a billion-byte fixed, and any number of
#: members that take no bytes
_HUGE_AVSC = ('{"type":"record","name":"Huge","fields":[{"name":"f","type":{"type":"fixed",'
              '"name":"F","size":1000000000}}]}')
_EMPTY_ITEMS_AVSC = ('{"type":"record","name":"Many","fields":[{"name":"a","type":{"type":'
                     '"array","items":{"type":"record","name":"E","fields":[]}}}]}')


def _sr_decoder() -> Any:
    if not _SR_DECODER:
        from kdump.schemaregistry.decoder import SchemaRegistryDecoder

        rw = _rw()
        extra = [(rw.schema_key("huge-value", 1), rw.schema_value("huge-value", 1, 90, _HUGE_AVSC)),
                 (rw.schema_key("many-value", 1), rw.schema_value("many-value", 1, 92,
                                                                  _EMPTY_ITEMS_AVSC)),
                 (rw.schema_key("self-value", 1), rw.schema_value(
                     "self-value", 1, 91, 'syntax = "proto3";\nimport "self.proto";\n'
                     "message M { int32 a = 1; }\n", "PROTOBUF",
                     refs=[{"name": "self.proto", "subject": "self-value", "version": 1}]))]
        # values forced through their schema (a failure is a note), keys as kdump guesses
        seen = set()
        for b in _bomb_schemas():
            if b.sid not in seen:
                seen.add(b.sid)
                extra.append((rw.schema_key(b.subject, 1), rw.schema_value(
                    b.subject, 1, b.sid, b.schema, b.stype, refs=b.refs or None)))
        reg = _registry(extra)
        _SR_DECODER.append(SchemaRegistryDecoder(reg, "auto", "schema-registry"))
        # and JSON Schema payloads validated (--schemas ... with validation: $ref cycles)
        _SR_DECODER.append(SchemaRegistryDecoder(reg, "auto", "schema-registry", validate=True))
    return _SR_DECODER[0]


def _bomb_schemas() -> tuple[Any, ...]:
    from tests.fuzz.bombs import bombs

    return bombs()


def _sr_seeds() -> list[Blob]:
    import json as _json

    rw = _rw()
    from kdump.schemaregistry.wire import frame

    order = {"id": 7, "customer": "c-1", "amount": b"\x01\x00", "at": 1_700_000_000_000,
             "note": None, "address": {"city": "Lyon"}}
    avro = rw.avro_bytes(rw.order_schema(), order)
    user = _json.dumps({"name": "ann", "age": 3}).encode()
    return [(None, frame(2, avro)), (b"k", frame(5, user)), (frame(6, b"\x02a"), None)]


def _sr_target(key: bytes | None, value: bytes | None) -> Any:
    return _sr_decoder().decode(key, value, 7)


def _sr_validating_target(key: bytes | None, value: bytes | None) -> Any:
    _sr_decoder()
    return _SR_DECODER[1].decode(key, value, 7)


def _sr_bombs() -> list[tuple[str, bytes | None, bytes | None]]:
    from kdump.schemaregistry.wire import frame

    return [
        ("a fixed of a billion bytes", None, frame(90, b"\x00" * 64)),
        ("an array of a million empty records", None, frame(92, b"\x80\x89\x7a\x00")),
        ("a .proto importing itself", None, frame(91, b"\x08\x01", [0])),
        ("an unknown id", None, frame(2**31 - 1, b"x")),
        ("a string claiming 2^62 bytes", None, frame(2, b"\x0e" + b"\xfe" * 9 + b"\x7f")),
        *((b.name, None, frame(b.sid, b.payload, b.indexes)) for b in _bomb_schemas()),
    ]


def _schemas_seeds() -> list[Blob]:
    return [(r.key, r.value) for r in _rw().registry_records()]


def _schemas_target(key: bytes | None, value: bytes | None) -> Any:
    """One _schemas record applied to a fresh registry, as the topic's replay does."""
    from kdump.schemaregistry.storage import Registry, _apply

    reg = Registry()
    _apply(reg, "fuzz", 0, 0, 1, key, value)
    return {"versions": sorted(f"{s}/{v}" for s, v in reg.versions),
            "problems": [p.detail for p in reg.problems]}


def _schemas_bombs() -> list[tuple[str, bytes | None, bytes | None]]:
    rw = _rw()
    key = rw.schema_key("big-value", 1)
    return [
        ("a 100 MB value", key, b'{"schema":"' + b"x" * (100 << 20) + b'"}'),
        ("JSON nested 100,000 deep", key, b"[" * 100_000 + b"]" * 100_000),
        ("a 1 KB schema of a billion-byte fixed", key,
         rw.schema_value("big-value", 1, 9, _HUGE_AVSC)),
        ("a key nested 100,000 deep", b"{" * 50_000, b"{}"),
        *((f"the schema of {b.name}", rw.schema_key(b.subject, 1),
           rw.schema_value(b.subject, 1, b.sid, b.schema, b.stype, refs=b.refs or None))
          for b in _bomb_schemas()),
    ]


#: every payload surface; a new parser is one entry (see the module docstring)
SURFACES: list[Surface] = [
    Surface("cluster-metadata", _decoder_seeds("cluster-metadata"),
            _decoder_target("cluster-metadata"), _metadata_bombs),
    Surface("offsets", _decoder_seeds("offsets"), _decoder_target("offsets"),
            _coordinator_bombs),
    Surface("transaction-log", _decoder_seeds("transaction-log"),
            _decoder_target("transaction-log"), _coordinator_bombs),
    Surface("share-group-state", _decoder_seeds("share-group-state"),
            _decoder_target("share-group-state"), _coordinator_bombs),
    Surface("remote-log-metadata", _decoder_seeds("remote-log-metadata"),
            _decoder_target("remote-log-metadata"), _metadata_bombs),
    Surface("control-records", _control_seeds, _control_target, _control_bombs),
]
# the release-aware path: the same seeds read with a named release or a release floor
for _name, _bombs in (("offsets", _coordinator_bombs), ("share-group-state", _coordinator_bombs),
                      ("transaction-log", _coordinator_bombs),
                      ("cluster-metadata", _metadata_bombs)):
    for _ev in ("@4.0", "@4.1", "@4.1-floor"):
        SURFACES.append(Surface(_name + _ev, _decoder_seeds(_name), _decoder_target(_name, _ev),
                                _bombs))
if _have("kdump.schemaregistry"):  # branch schemas: schema-registry payloads, _schemas values
    SURFACES += [
        Surface("schema-registry-payload", _sr_seeds, _sr_target, _sr_bombs, max_seconds=10.0),
        Surface("schema-registry-payload-validated", _sr_seeds, _sr_validating_target, _sr_bombs,
                max_seconds=10.0),
        Surface("schemas-topic-value", _schemas_seeds, _schemas_target, _schemas_bombs,
                max_seconds=5.0, max_bytes=256 << 20),
    ]


def by_name(name: str) -> Surface:
    for s in SURFACES:
        if s.name == name:
            return s
    raise KeyError(name)


__all__ = ["SURFACES", "Outcome", "Surface", "by_name", "fuzz", "run_one"]
