"""The mutation fuzzer's command line: CI budget, long runs, replaying one case.

    .venv/bin/python -m tests.fuzz.run --cases 2000                 # the CI budget
    .venv/bin/python -m tests.fuzz.run --cases 100000 --jobs 8      # a long run
    .venv/bin/python -m tests.fuzz.run --seed ci --case 1234 --keep /tmp/c   # replay one

Cases run in worker processes (``--jobs``), half of them with the native extension
and half with ``KDUMP_PURE_PYTHON=1`` (``--impl`` chooses), so a crash of native code
kills a worker, not the run: the case it was running is reported with the signal and
the worker's last words, and a new worker carries on.  Exit status 0 when every case
kept every rule, 1 otherwise (each failing case is printed with its replay command;
``--save DIR`` keeps the failing cases' files).  Before the summary line, the runs by
command and the number of cases of the Kafka 4.x family (``KDUMP_FUZZ_KAFKA4_SHARE`` of
them, tests/fuzz/harness.py ``run_kafka4_case``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # pragma: no cover - run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.corpus import build_corpus
from tests.fuzz.harness import Corpus, run_case

REPO = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------------
# worker: runs cases, reports one line per event on stdout
# ---------------------------------------------------------------------------------------
def worker(opts: argparse.Namespace) -> int:
    import faulthandler

    faulthandler.enable()  # a crash in native code leaves a Python traceback on stderr
    corpus = Corpus.load(Path(opts.corpus))
    workdir = Path(opts.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    out = sys.stdout
    for index in range(opts.start, opts.stop, opts.stride):
        out.write(f"S {index}\n")
        out.flush()
        res = run_case(corpus, opts.seed, index, workdir, keep=bool(opts.save),
                       commands=opts.commands)
        if not res.ok and opts.save:
            dest = Path(opts.save) / f"case-{index}"
            shutil.rmtree(dest, ignore_errors=True)
            shutil.move(str(workdir / f"case-{index}"), dest)
            (dest / "REPORT.txt").write_text(res.report() + "\n")
        elif opts.save:
            shutil.rmtree(workdir / f"case-{index}", ignore_errors=True)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        slowest = max((r.seconds for r in res.runs), default=0.0)
        report = "" if res.ok else res.report()
        names = [_command_name(r.args) for r in res.runs]
        out.write("D " + json.dumps([index, len(res.runs), slowest, rss, report, names,
                                     res.target.startswith("kafka4/")]) + "\n")
        out.flush()
    return 0


def _command_name(args: list[str]) -> str:
    """A run's command for the statistics: ``dump --summary`` apart from ``dump``."""
    if args and args[0] == "dump" and "--summary" in args:
        return "dump --summary"
    return args[0] if args else "?"


# ---------------------------------------------------------------------------------------
# parent: spawns workers, collects, survives their crashes
# ---------------------------------------------------------------------------------------
@dataclass
class Stats:
    done: int = 0
    runs: int = 0
    failing: int = 0
    crashes: int = 0
    slowest: float = 0.0
    peak_rss: int = 0
    reports: list[str] = field(default_factory=list)
    #: runs by command, and the cases of the Kafka 4.x family
    by_command: dict[str, int] = field(default_factory=dict)
    kafka4: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _drive(k: int, pure: bool, opts: argparse.Namespace, corpus: Path, work: Path,
           stop: int, stats: Stats, halt: threading.Event) -> None:
    start = opts.start + k
    env = dict(os.environ)
    env["KDUMP_PURE_PYTHON"] = "1" if pure else "0"
    impl = "pure Python" if pure else "native"
    while start < stop and not halt.is_set():
        cmd = [sys.executable, "-m", "tests.fuzz.run", "--worker", "--seed", opts.seed,
               "--corpus", str(corpus), "--workdir", str(work / f"w{k}"), "--start", str(start),
               "--stop", str(stop), "--stride", str(opts.jobs), "--commands", str(opts.commands)]
        if opts.save:
            cmd += ["--save", opts.save]
        err_path = work / f"w{k}.stderr"
        with open(err_path, "w") as err:
            p = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=err,
                                 text=True)
            current: int | None = None
            assert p.stdout is not None
            for line in p.stdout:
                if line.startswith("S "):
                    current = int(line[2:])
                elif line.startswith("D "):
                    _index, nruns, slowest, rss, report, names, k4 = json.loads(line[2:])
                    current = None
                    with stats.lock:
                        stats.done += 1
                        stats.kafka4 += int(k4)
                        for name in names:
                            stats.by_command[name] = stats.by_command.get(name, 0) + 1
                        stats.runs += nruns
                        stats.slowest = max(stats.slowest, slowest)
                        stats.peak_rss = max(stats.peak_rss, rss)
                        if report:
                            stats.failing += 1
                            stats.reports.append(f"{report}\n  (implementation: {impl})")
                            print(stats.reports[-1], flush=True)
                            if stats.failing >= opts.max_failures:
                                halt.set()
                        if stats.done % 1000 == 0:
                            print(f"... {stats.done} cases, {stats.runs} runs, "
                                  f"{stats.failing} failing", flush=True)
                    if halt.is_set():
                        p.kill()
                        break
            rc = p.wait()
        if current is None or halt.is_set():
            if rc != 0 and not halt.is_set():
                with stats.lock:
                    stats.reports.append(f"worker {k} exited {rc}: {err_path.read_text()[-2000:]}")
                    print(stats.reports[-1], flush=True)
                    stats.failing += 1
            return
        # the worker died inside a case: that case crashed kdump
        tail = err_path.read_text()[-4000:]
        how = f"signal {-rc}" if rc < 0 else f"exit {rc}"
        text = (f"case {opts.seed}:{current}: CRASH: worker died ({how}) ({impl})"
                f"\n{tail}\n  replay: python -m tests.fuzz.run --seed {opts.seed} --case {current}")
        with stats.lock:
            stats.done += 1
            stats.failing += 1
            stats.crashes += 1
            stats.reports.append(text)
            print(text, flush=True)
            if stats.failing >= opts.max_failures:
                halt.set()
        start = current + opts.jobs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", default="ci", help="case i of a seed is always the same case")
    ap.add_argument("--cases", type=int, default=1000, help="number of cases (default 1000)")
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--case", type=int, default=None, help="run this one case, verbosely")
    ap.add_argument("--commands", type=int, default=2, help="subcommands run per case")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--impl", choices=["mixed", "native", "pure"], default="mixed",
                    help="native extension, KDUMP_PURE_PYTHON=1, or alternate per worker")
    ap.add_argument("--keep", default=None, help="with --case: leave the case's files in DIR")
    ap.add_argument("--save", default=None, help="copy every failing case's files into DIR")
    ap.add_argument("--max-failures", type=int, default=50, help="stop after this many")
    # internal: worker mode
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--corpus", help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    ap.add_argument("--stop", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--stride", type=int, default=1, help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.worker:
        return worker(opts)

    tmp = Path(tempfile.mkdtemp(prefix="kdump-fuzz-"))
    try:
        corpus_root = build_corpus(tmp / "corpus")
        if opts.case is not None:
            workdir = Path(opts.keep) if opts.keep else tmp / "work"
            workdir.mkdir(parents=True, exist_ok=True)
            res = run_case(Corpus.load(corpus_root), opts.seed, opts.case, workdir,
                           keep=bool(opts.keep), commands=opts.commands)
            print(f"case {opts.seed}:{opts.case}: {res.target}: {res.mutation}")
            for r in res.runs:
                print(f"$ kdump {' '.join(r.args)}   -> exit {r.rc} ({r.seconds:.2f} s)")
                for line in ([*r.out.splitlines()[:40], "[stderr]", *r.err.splitlines()[:40]]):
                    print("    " + line[:300])
            print("OK" if res.ok else res.report())
            if opts.keep:
                print(f"files left in {workdir / f'case-{opts.case}'}")
            return 0 if res.ok else 1
        if opts.save:
            Path(opts.save).mkdir(parents=True, exist_ok=True)
            opts.save = str(Path(opts.save).resolve())
        t0 = time.time()
        stats = Stats()
        halt = threading.Event()
        stop = opts.start + opts.cases
        work = tmp / "work"
        work.mkdir()
        threads = []
        for k in range(opts.jobs):
            pure = {"mixed": k % 2 == 1, "native": False, "pure": True}[opts.impl]
            t = threading.Thread(target=_drive, args=(k, pure, opts, corpus_root, work, stop,
                                                      stats, halt), daemon=True)
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
        print("runs by command: " + ", ".join(
            f"{n} {c}" for n, c in sorted(stats.by_command.items(), key=lambda x: -x[1]))
            + f"; {stats.kafka4} cases of the Kafka 4.x family")
        print(f"{stats.done} cases ({opts.seed}:{opts.start}..{stop - 1}), {stats.runs} kdump runs, "
              f"{stats.failing} failing ({stats.crashes} crashes), {time.time() - t0:.1f} s; "
              f"slowest run {stats.slowest:.2f} s; peak RSS of a worker {stats.peak_rss} MB")
        return 1 if stats.failing else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
