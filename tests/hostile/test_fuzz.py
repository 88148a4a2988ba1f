"""The mutation fuzzer, on a fixed CI budget (see docs/fuzzing.md).

``KDUMP_FUZZ_CASES`` cases (default 2000, about two minutes on two shared cores; a
quarter of them the Kafka 4.x family: report, lag, schemas, dump --summary on a log dir
of 4.x records) of seed ``KDUMP_FUZZ_SEED`` (default ``ci``: the same cases every run) go through
``python -m tests.fuzz.run`` in two worker processes, one using the native extension
and one pure Python, so a crash in native code fails this test instead of killing
pytest.  Every case damages one file of the seed corpus (tests/fuzz/corpus.py) and
runs kdump subcommands on it; the rules each run keeps are in tests/fuzz/harness.py.

A longer run, for developers::

    KDUMP_FUZZ_CASES=100000 .venv/bin/python -m pytest tests/hostile/test_fuzz.py
    .venv/bin/python -m tests.fuzz.run --cases 100000 --jobs 8 --seed $RANDOM --save /tmp/found
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz import harness, mutate, surfaces

REPO = Path(__file__).resolve().parents[2]
CASES = int(os.environ.get("KDUMP_FUZZ_CASES", "2000"))
SEED = os.environ.get("KDUMP_FUZZ_SEED", "ci")
JOBS = int(os.environ.get("KDUMP_FUZZ_JOBS", "2"))
#: mutated payloads per surface (tests/fuzz/surfaces.py), on top of its seeds and bombs
PAYLOAD_CASES = int(os.environ.get("KDUMP_FUZZ_PAYLOAD_CASES", "500"))


@pytest.mark.slow
def test_mutation_fuzzer_ci_budget() -> None:
    cmd = [sys.executable, "-m", "tests.fuzz.run", "--cases", str(CASES), "--seed", SEED,
           "--jobs", str(JOBS), "--max-failures", "20"]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True,
                       timeout=max(600, CASES * 2))
    summary = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    print(summary)
    assert r.returncode == 0, r.stdout[-20000:] + r.stderr[-5000:]
    assert f"{CASES} cases" in summary, r.stdout[-5000:]
    # every command is in the budget's rotation: report, and the Kafka 4.x family's
    (by_command,) = [line for line in r.stdout.splitlines() if line.startswith("runs by command")]
    print(by_command)
    counts = dict(item.rsplit(" ", 1) for item in
                  by_command.split(": ", 1)[1].split(";")[0].split(", "))
    want = {*harness.FILE_COMMANDS, "lag", "schemas", "dump --summary"}
    assert want <= set(counts), (sorted(want - set(counts)), by_command)
    kafka4 = int(by_command.rsplit("; ", 1)[1].split()[0])
    assert kafka4 >= CASES * harness.KAFKA4_SHARE / 2, by_command


# --- the fuzzer's own machinery ----------------------------------------------------------
def test_cases_are_deterministic(tmp_path: Path) -> None:
    """Case i of a seed is the same case every time (replay depends on it)."""
    corpus = harness.Corpus.load(_corpus(tmp_path))
    a = harness.run_case(corpus, "det", 7, tmp_path / "a")
    b = harness.run_case(corpus, "det", 7, tmp_path / "b")
    assert (a.target, a.mutation) == (b.target, b.mutation)
    def norm(res: harness.CaseResult, d: Path) -> list[list[str]]:
        return [[x.replace(str(d), "") for x in r.args] for r in res.runs]

    assert norm(a, tmp_path / "a") == norm(b, tmp_path / "b")


def test_the_rules_catch_what_they_should() -> None:
    ok = harness.Run(["dump", "--format", "json", "x"], 0, '{"a":1}\n', "", 0.1)
    assert harness.check_run(ok) == []
    for bad in (harness.Run(["dump", "x"], 3, "", "boom", 0.1),
                harness.Run(["dump", "x"], 2, "", "Traceback (most recent call last):", 0.1),
                harness.Run(["dump", "x"], 2, "", "kdump: internal error: KeyError", 0.1),
                harness.Run(["dump", "x"], 1, "", "", 0.1),
                harness.Run(["dump", "--format", "json", "x"], 0, "{not json\n", "", 0.1),
                harness.Run(["dump", "x"], None, "", "", 99.0, timed_out=True)):
        assert harness.check_run(bad), bad


def test_the_timer_stops_a_hang() -> None:
    import kdump.cli

    real = kdump.cli.main

    def spin(argv: list[str]) -> None:
        while True:
            pass

    kdump.cli.main = spin  # type: ignore[assignment]
    try:
        r = harness.run_kdump(["dump", "x"], timeout=0.3)
    finally:
        kdump.cli.main = real
    assert r.timed_out and harness.check_run(r)


def test_framing_and_record_fields_find_the_structure() -> None:
    from tests.support import writer as w
    b1 = w.v2_batch([w.Rec(b"k", b"v", [("h", None)]), w.Rec(None, b"")], base_offset=5)
    b2 = w.legacy_message(1, b"a", b"b", offset=7, timestamp=1)
    spans = mutate.frame(b1 + b2 + b"\x00" * 5)
    assert [(s.start, s.end, s.magic) for s in spans] == [(0, len(b1), 2),
                                                          (len(b1), len(b1) + len(b2), 1)]
    names = [n for n, _, _ in mutate.record_fields(b1, 61, len(b1))]
    assert names == ["record_length", "timestamp_delta", "offset_delta", "key_length",
                     "value_length", "header_count", "header_key_length",
                     "header_value_length", "record_length", "timestamp_delta",
                     "offset_delta", "key_length", "value_length", "header_count"]
    rng = random.Random(1)
    for _ in range(50):  # synthesized batches frame as one entry with a valid length
        data, _ = mutate.log_synth(rng, b1, mutate.frame(b1))
        assert mutate.frame(data)


def _corpus(tmp_path: Path) -> Path:
    from tests.fuzz.corpus import build_corpus

    return build_corpus(tmp_path / "corpus")


@pytest.mark.parametrize("name,kind", [("00000000000000000000.log", "log"),
                                       ("00000000000000000004-0000000001.checkpoint", "kraft-snapshot"),
                                       ("leader-epoch-checkpoint", "text"),
                                       ("00000000000000000005.snapshot", "producer-snapshot")])
def test_kind_of(name: str, kind: str) -> None:
    assert harness.kind_of(name) == kind


# --- payload surfaces (tests/fuzz/surfaces.py): one entry per parser ----------------------
@pytest.mark.parametrize("surface", surfaces.SURFACES, ids=lambda s: s.name)
def test_payload_surface(surface: surfaces.Surface) -> None:
    """Every seed, every bomb and PAYLOAD_CASES mutations of the seeds: the parser
    returns (never raises), within its time and memory bounds, something JSON-able."""
    bad = surfaces.fuzz(surface, SEED, PAYLOAD_CASES)
    assert not bad, "\n".join(f"{o.case}: {o.failures}" for o in bad[:20])


def test_payload_rules_catch_what_they_should() -> None:

    def raising(k: bytes | None, v: bytes | None) -> object:
        raise IndexError("list index out of range")

    def hanging(k: bytes | None, v: bytes | None) -> object:
        while True:  # a parser's hang spins (the timer counts CPU time)
            pass

    def hungry(k: bytes | None, v: bytes | None) -> object:
        return len(bytearray(8 << 20))

    seeds = lambda: [(None, b"x")]  # noqa: E731
    for target, rule in ((raising, "raised IndexError"), (hanging, "no answer within 0.2 s"),
                         (hungry, "allocated"), (lambda k, v: {b"k"}, "not JSON-able")):
        s = surfaces.Surface("t", seeds, target, max_seconds=0.2, max_bytes=1 << 20)
        (o,) = surfaces.fuzz(s, "rules", 0)
        assert any(rule in f for f in o.failures), (rule, o.failures)
    ok = surfaces.Surface("t", seeds, lambda k, v: {"v": 1})
    assert surfaces.fuzz(ok, "rules", 20) == []


@pytest.fixture(scope="module")
def corpus4(tmp_path_factory: pytest.TempPathFactory) -> harness.Corpus:
    """The seed corpus with its Kafka 4.x log dir, written once for this module."""
    corpus = harness.Corpus.load(_corpus(tmp_path_factory.mktemp("corpus4")))
    assert corpus.kafka4 is not None
    return corpus.kafka4


def test_kafka4_family_damage_hides_behind_valid_crcs(corpus4: harness.Corpus) -> None:
    """The Kafka 4.x family's own mutators keep every batch framed and its CRC valid, so
    only the payload decoders see the damage; a subject re-registered with a bomb schema
    is appended after the topic's last offset."""
    import crc32c

    from tests.fuzz import kafka4_family as k4

    data = corpus4.data[Path("_schemas-0/00000000000000000000.log")]
    before = mutate.frame(data)
    for i in range(20):
        rng = random.Random(i)
        for got in (k4.payload_behind_crc(rng, data), k4.schemas_bomb(rng, data)):
            assert got is not None
            out, what = got
            spans = mutate.frame(out)
            assert sum(s.end - s.start for s in spans) == len(out), what
            for s in spans:
                batch = out[s.start:s.end]
                assert int.from_bytes(batch[17:21], "big") == crc32c.crc32c(batch[21:]), what
        assert len(spans) == len(before) + 1 and "re-registered as" in what
        last = out[spans[-1].start:spans[-1].end]
        assert int.from_bytes(last[:8], "big") == 12  # the sample registry's 12 records


def test_kafka4_cases_are_deterministic(corpus4: harness.Corpus, tmp_path: Path) -> None:
    from tests.fuzz.kafka4_family import run_kafka4_case

    a = run_kafka4_case(corpus4, "det", 3, tmp_path / "a")
    b = run_kafka4_case(corpus4, "det", 3, tmp_path / "b")
    assert a.target.startswith("kafka4/") and (a.target, a.mutation) == (b.target, b.mutation)
    assert [r.args[0] for r in a.runs] == [r.args[0] for r in b.runs] and a.ok, a.report()
