"""The Kafka 4.x family of fuzz cases: whole-log-dir commands on Kafka 4.x records.

A case (:func:`run_kafka4_case`, chosen for :data:`tests.fuzz.harness.KAFKA4_SHARE` of
the cases) copies the whole log dir of tests/support/report_fixture.py (``_schemas`` and its
data topics, ``__cluster_metadata`` of 4.x records, ``__consumer_offsets`` with classic,
consumer, streams and share groups, ``__share_group_state``), damages one file (mostly a
log of the partitions in :data:`KAFKA4_TARGETS`: record bytes behind a valid CRC, a
subject of ``_schemas`` re-registered with a bomb schema, or tests/fuzz/mutate.py's
damage), then runs :data:`KAFKA4_COMMANDS` and ``report`` on it under the rules of
tests/fuzz/harness.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from tests.support import writer as w

from . import mutate as m
from .harness import (
    COMMANDS,
    CaseResult,
    Corpus,
    _fmt,
    _mbb,
    _report_args,
    _rmtree,
    check_run,
    kind_of,
    mutate_file,
    run_kdump,
    tree_state,
)

#: the partitions a Kafka 4.x case damages most: what report, lag and schemas read
KAFKA4_TARGETS = {"_schemas-0": 4, "__cluster_metadata-0": 3, "__consumer_offsets-0": 3,
                  "__share_group_state-0": 3, "orders-0": 1, "events-0": 1, "users-0": 1,
                  "legacy-0": 1, "payments-1": 1}


def _k4_report(rng: random.Random, case_dir: Path, logdir: Path) -> list[str]:
    return _report_args(rng, case_dir, logdir, logdir)


def _k4_lag(rng: random.Random, case_dir: Path, logdir: Path) -> list[str]:
    opts = []
    if rng.random() < 0.2:
        opts += ["--group", rng.choice(["classic", "cg", "share-g", "streams-g", "nope"])]
    if rng.random() < 0.2:
        opts += ["--topic", rng.choice(["payments", "orders", "nope"])]
    return ["lag", *opts, *_fmt(rng), *_mbb(rng), str(logdir)]


def _k4_summary(rng: random.Random, case_dir: Path, logdir: Path) -> list[str]:
    part = rng.choice(["__consumer_offsets-0", "__share_group_state-0"])
    opts = ["--kafka-version", rng.choice(["4.0", "4.1", "4.3"])] if rng.random() < 0.3 else []
    return ["dump", "--summary", *opts, *_fmt(rng), *_mbb(rng), str(logdir / part)]


def _k4_internal(rng: random.Random, case_dir: Path, logdir: Path) -> list[str]:
    part, flag = rng.choice([("__cluster_metadata-0", "--cluster-metadata-decoder"),
                             ("__consumer_offsets-0", "--offsets-decoder"),
                             ("__share_group_state-0", "--share-group-state-decoder")])
    opts = ["--kafka-version", rng.choice(["4.0", "4.1", "4.2"])] if rng.random() < 0.4 else []
    return ["dump", flag, *opts, *_fmt(rng), *_mbb(rng), str(logdir / part)]


def _k4_schemas(rng: random.Random, case_dir: Path, logdir: Path) -> list[str]:
    opts = ["--no-count"] if rng.random() < 0.3 else []
    if rng.random() < 0.2:
        opts += ["--export", str(case_dir / "exported")]
    return ["schemas", *opts, *_fmt(rng), *_mbb(rng), str(logdir)]


def _k4_decode(rng: random.Random, case_dir: Path, logdir: Path) -> list[str]:
    """A data topic's payloads decoded with the registry's schemas (beside, or named)."""
    part = rng.choice(["orders-0", "events-0", "users-0", "legacy-0", "_schemas-0"])
    opts = ["--print-data-log"]
    r = rng.random()
    if r < 0.3:
        opts += ["--value-decoder", rng.choice(["schema-registry", "avro", "protobuf",
                                                "json-schema"])]
    elif r < 0.45:
        opts += ["--decoder", "schema-registry"]
    if rng.random() < 0.3:
        opts.append("--validate-json-schema")
    if rng.random() < 0.2:
        opts += ["--schemas", str(logdir / "_schemas-0")]
    return ["dump", *opts, *_fmt(rng), *_mbb(rng), str(logdir / part)]


#: the Kafka 4.x family's commands: name -> (weight, arguments from (rng, case dir,
#: log dir)); outputs go under the case dir, never into the log dir
KAFKA4_COMMANDS: dict[str, tuple[float, Callable[[random.Random, Path, Path], list[str]]]] = {
    "lag": (2, _k4_lag),
    "dump --summary": (2, _k4_summary),
    "dump internal": (1.5, _k4_internal),
    "schemas": (1.5, _k4_schemas),
    "dump schema-registry": (2, _k4_decode),
}


def payload_behind_crc(rng: random.Random, data: bytes) -> tuple[bytes, str] | None:
    """Bytes of the records of an uncompressed v2 batch changed, its CRC fixed: damage
    to keys, values and headers that only their decoders see."""
    spans = [s for s in m.frame(data) if s.magic == 2 and s.end - s.start > 61
             and not data[s.start + 22] & 0x07]
    if not spans:
        return None
    s = rng.choice(spans)
    entry = bytearray(data[s.start:s.end])
    flips = []
    for _ in range(rng.randint(1, 6)):
        pos = rng.randrange(61, len(entry))
        if rng.random() < 0.5:
            entry[pos] ^= 1 << rng.randrange(8)
        else:
            entry[pos] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        flips.append(pos)
    m.fix_v2(entry, length=False, crc=True)
    return (data[:s.start] + bytes(entry) + data[s.end:],
            f"batch[{s.start}] record bytes at {sorted(flips)} changed +crc")


def schemas_bomb(rng: random.Random, data: bytes) -> tuple[bytes, str] | None:
    """A batch appended to ``_schemas``: a subject of the sample re-registered, under its
    id, with one of tests/fuzz/bombs.py's schemas, so the data topics' records that name
    the id meet the bomb."""

    from tests.support import registry_writer as rw

    from .bombs import bombs

    spans = m.frame(data)
    if not spans or spans[-1].magic != 2:
        return None
    last = spans[-1]
    next_offset = (int.from_bytes(data[last.start:last.start + 8], "big")
                   + int.from_bytes(data[last.start + 23:last.start + 27], "big", signed=True)
                   + 1)
    b = rng.choice(bombs())
    subject, sid = rng.choice([("orders-value", 2), ("events-value", 4), ("users-value", 5),
                               ("address", 1)])
    rec = w.Rec(rw.schema_key(subject, 1), rw.schema_value(subject, 1, sid, b.schema, b.stype,
                                                         refs=b.refs or None))
    batch = w.v2_batch([rec], base_offset=next_offset, first_timestamp=w.DEFAULT_TIMESTAMP)
    return data[:last.end] + batch + data[last.end:], \
        f"{subject} (id {sid}) re-registered as {b.name!r}"


def run_kafka4_case(corpus: Corpus, seed: str, index: int, workdir: Path, *,
                    keep: bool = False, commands: int = 2) -> CaseResult:
    """A Kafka 4.x case: the whole log dir copied, one file damaged (record bytes behind
    a valid CRC half the time), and ``commands`` of :data:`KAFKA4_COMMANDS` or ``report``
    run on it."""
    rng = random.Random(f"{seed}:{index}:kafka4")
    case_dir = workdir / f"case-{index}"
    if case_dir.exists():
        _rmtree(case_dir)
    logdir = case_dir / "logdir"
    for p in corpus.files:
        (logdir / p).parent.mkdir(parents=True, exist_ok=True)
        (logdir / p).write_bytes(corpus.data[p])
    logs = [p for p in corpus.files if kind_of(p.name) == "log" and p.parts[0] in KAFKA4_TARGETS]
    if rng.random() < 0.85 and logs:
        rel = rng.choices(logs, [KAFKA4_TARGETS[p.parts[0]] for p in logs])[0]
    else:
        rel = corpus.pick(rng)
    data = corpus.data[rel]
    got = None
    if rel.parts[0] == "_schemas-0" and kind_of(rel.name) == "log" and rng.random() < 0.3:
        got = schemas_bomb(rng, data)
    elif kind_of(rel.name) == "log" and rng.random() < 0.5:
        got = payload_behind_crc(rng, data)
    if got is None:
        got = mutate_file(rng, rel.name, data, corpus.donor(rng, kind_of(rel.name)))
    (logdir / rel).write_bytes(got[0])
    res = CaseResult(seed, index, f"kafka4/{rel}", got[1])
    names = [*KAFKA4_COMMANDS, *(["report"] if "report" in COMMANDS else [])]
    weights = [*(wt for wt, _ in KAFKA4_COMMANDS.values()),
               *([2.0] if "report" in COMMANDS else [])]
    before = tree_state(logdir)
    for cmd in rng.choices(names, weights, k=commands):
        args = (_k4_report(rng, case_dir, logdir) if cmd == "report"
                else KAFKA4_COMMANDS[cmd][1](rng, case_dir, logdir))
        r = run_kdump(args)
        res.runs.append(r)
        res.failures += check_run(r)
        after = tree_state(logdir)
        if after != before:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            res.failures.append(f"inputs changed by `kdump {' '.join(args)}`: {changed[:5]}")
            before = after
    if res.ok and not keep:
        _rmtree(case_dir)
    return res


__all__ = ["KAFKA4_COMMANDS", "KAFKA4_TARGETS", "payload_behind_crc", "run_kafka4_case",
           "schemas_bomb"]
