"""Coverage-guided fuzzing of kdump with atheris (libFuzzer for Python), for developers.

    .venv/bin/pip install atheris          # builds on CPython 3.11 here (atheris 3.0)
    .venv/bin/python -m tests.fuzz.atheris_harness -max_total_time=600 -jobs=2 \\
        /tmp/kdump-atheris-corpus

The first byte of each input picks what the rest of it becomes (a segment, a KRaft
snapshot, an index, a time index, a transaction index, a producer snapshot, a
checkpoint, meta.properties, quorum-state, or a segment of an internal topic); it is
written into a small partition directory beside intact companions, and the subcommands
run in-process with the rules of tests/fuzz/harness.py (exit 0/1/2, no traceback, no
internal error, no hang, inputs unchanged).  A broken rule raises, which atheris reports
as a crash with the input saved (``crash-<sha1>``); replay it with
``python -m tests.fuzz.atheris_harness crash-<sha1>``.  The seed corpus directory is
filled with the mutation fuzzer's corpus on first use.

The mutation fuzzer (tests/fuzz/run.py) knows Kafka's structures and runs in CI;
this harness learns from coverage, which is how it reaches parser states the
structured mutators do not think of.  Not run by pytest (atheris is optional).
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["kdump"]):
    # the commands import their modules when they run: import them all here, under the
    # instrumentation, or coverage would see only the command line layer
    import kdump.cli
    for _module in sorted(set(kdump.cli.COMMAND_MODULES.values())):
        importlib.import_module(f"kdump.cli.{_module}")
    import kdump.codecs
    import kdump.decoders.cluster_metadata
    import kdump.decoders.consumer_offsets
    import kdump.decoders.simple
    import kdump.decoders.transaction_log
    import kdump.ops.dump
    import kdump.ops.find
    import kdump.ops.size_report
    import kdump.ops.verify_crc
    import kdump.ops.verify_index
    import kdump.protocol.control
    import kdump.render.jsonl
    import kdump.render.text

if __package__ in (None, ""):  # pragma: no cover
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.corpus import build_corpus
from tests.fuzz.harness import check_run, run_kdump, tree_state
from tests.support import writer as w

#: first byte -> where the rest of the input goes
TARGETS = [
    "t-0/00000000000000000000.log",
    "__cluster_metadata-0/00000000000000000004-0000000001.checkpoint",
    "t-0/00000000000000000000.index",
    "t-0/00000000000000000000.timeindex",
    "t-0/00000000000000000000.txnindex",
    "t-0/00000000000000000005.snapshot",
    "t-0/leader-epoch-checkpoint",
    "recovery-point-offset-checkpoint",
    "meta.properties",
    "__cluster_metadata-0/quorum-state",
    "__consumer_offsets-0/00000000000000000000.log",
]
COMMANDS = [
    ["dump", "--print-data-log", "--format", "json"],
    ["dump", "--deep-iteration"],
    ["verify-crc"],
    ["verify-index"],
    ["size-report", "--format", "json"],
]
_ROOT = Path(tempfile.mkdtemp(prefix="kdump-atheris-"))


def _companions(root: Path) -> None:
    """Intact neighbours, so that an index or a snapshot has a log to be checked
    against."""
    d = root / "t-0"
    d.mkdir(parents=True, exist_ok=True)
    recs = [w.Rec(b"k%d" % i, b"v%d" % i, timestamp=w.DEFAULT_TIMESTAMP + i) for i in range(3)]
    (d / "00000000000000000000.log").write_bytes(
        w.v2_batch(recs, producer_id=5, producer_epoch=0, base_sequence=0)
        + w.v2_batch(recs, base_offset=3, codec=w.GZIP))
    for name in ("__cluster_metadata-0", "__consumer_offsets-0"):
        (root / name).mkdir(exist_ok=True)


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    root = _ROOT / "logdir"
    if root.exists():
        import shutil

        shutil.rmtree(root)
    _companions(root)
    target = root / TARGETS[data[0] % len(TARGETS)]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data[1:])
    path = target.parent if target.parent != root else root
    before = tree_state(root)
    for args in COMMANDS:
        r = run_kdump([*args, str(path)], timeout=20)
        bad = check_run(r)
        if tree_state(root) != before:
            bad.append(f"inputs changed by {args}")
        if bad:
            raise AssertionError(f"{TARGETS[data[0] % len(TARGETS)]}: " + "\n".join(bad))


def _seed(corpus_dir: Path) -> None:
    """Fill an empty corpus directory with the mutation fuzzer's seed files."""
    if any(corpus_dir.iterdir()):
        return
    src = build_corpus(_ROOT / "seed")
    suffixes = {t.rsplit(".", 1)[-1] if "." in t else t.rsplit("/", 1)[-1]: k
                for k, t in enumerate(TARGETS)}
    for n, p in enumerate(sorted(x for x in src.rglob("*") if x.is_file())):
        key = p.name.rsplit(".", 1)[-1] if "." in p.name else p.name
        k = suffixes.get(key)
        if k is None:
            continue
        if p.parent.name.startswith("__consumer_offsets") and key == "log":
            k = TARGETS.index("__consumer_offsets-0/00000000000000000000.log")
        (corpus_dir / f"seed-{n:03d}").write_bytes(bytes([k]) + p.read_bytes())


def main() -> None:
    dirs = [a for a in sys.argv[1:] if not a.startswith("-") and os.path.isdir(a)]
    for d in dirs[:1]:
        _seed(Path(d))
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
