#!/usr/bin/env python3
"""The output model's cost: ``dump --format json`` of this tree against another revision's
(issue 26: the typed model must not make the JSON writer slower nor change a byte).

    .venv/bin/python bench/model_bench.py [--rev REV] [--size 200M] [--rounds 5] [--pure]

Writes (once) ``bench/data/model-SIZE/big-0``: one uncompressed segment of SIZE bytes by
``tests/writer.py``'s ``big_segment``.  Extracts REV's ``kdump/`` (``git archive``,
default ``main``) into a temporary directory, with this tree's built extension when
the C sources (``kdump/_speedups*.c``, ``*.h``) are the same in both, then runs ``python -m kdump dump LOG
--deep-iteration --format json`` from each tree in interleaved rounds (the load of a
shared machine falls alike on both), hashing stdout.  Reports the median CPU time
(user + system, ``wait4``) of each and their ratio; ``--pure`` runs both on the
pure-Python code (``KDUMP_PURE_PYTHON=1``, the writer the native one falls back to).
Exits 1 when the outputs differ or this tree takes over 5 % more CPU.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures

from tests.support import writer as w  # noqa: E402

SLOWER = 1.05


def dataset(size: str) -> Path:
    log = DATA / f"model-{size}" / "big-0" / "00000000000000000000.log"
    if not log.exists():
        print(f"writing {log} ...", file=sys.stderr)
        w.big_segment(log.parent, w._size(size))
    return log


def base_tree(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "kdump"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    same_c = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", rev, "--",
                             "kdump/_speedups*.c", "kdump/*.h"]).returncode == 0
    if same_c:
        for so in (ROOT / "kdump").glob("_speedups*.so"):
            shutil.copy2(so, into / "kdump" / so.name)
    return into


def run(tree: Path, log: Path, pure: bool) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    if pure:
        env["KDUMP_PURE_PYTHON"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen([sys.executable, "-m", "kdump", "dump", str(log), "--deep-iteration",
                          "--format", "json"], stdout=subprocess.PIPE, env=env)
    assert p.stdout is not None
    h = hashlib.sha256()
    while chunk := p.stdout.read(1 << 20):
        h.update(chunk)
    if p.wait() != 0:
        raise SystemExit(f"kdump from {tree} exited {p.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, h.hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rev", default="main")
    ap.add_argument("--size", default="200M")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pure", action="store_true")
    a = ap.parse_args()
    log = dataset(a.size)
    times: dict[str, list[float]] = {"base": [], "this": []}
    hashes: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="kdump-model-bench-") as tmp:
        trees = {"base": base_tree(a.rev, Path(tmp)), "this": ROOT}
        for r in range(a.rounds):
            for side, tree in trees.items():
                cpu, digest = run(tree, log, a.pure)
                times[side].append(cpu)
                hashes.add(digest)
                print(f"round {r + 1} {side}: {cpu:.2f} s CPU, sha256 {digest[:16]}",
                      file=sys.stderr)
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    ratio = med["this"] / med["base"]
    what = "pure Python" if a.pure else "native writer"
    print(f"dump --deep-iteration --format json, {log.stat().st_size / 1e6:.0f} MB, {what}: "
          f"{a.rev} {med['base']:.2f} s, this tree {med['this']:.2f} s CPU (median of "
          f"{a.rounds}); ratio {ratio:.3f}; output {'identical' if len(hashes) == 1 else 'DIFFERS'}")
    return 0 if len(hashes) == 1 and ratio <= SLOWER else 1


if __name__ == "__main__":
    sys.exit(main())
