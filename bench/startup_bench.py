#!/usr/bin/env python3
"""Start-up of kdump (issue 26): ``kdump --help``, ``kdump verify-crc`` on a one-batch
segment (start-up and imports, next to nothing read), and ``kdump verify-crc`` on the
60 MB segment against the bare Python crc32c loop over the same bytes.

    .venv/bin/python bench/startup_bench.py                 # 7 paired rounds
    .venv/bin/python bench/startup_bench.py --rounds 11 --write-readme

The 60 MB segment is bench/run.py's ``bench-u60-0`` (tests/writer.py ``big_segment``,
written into bench/data/ on first use).  Each round runs every command once, in the same
order, so that the load of a shared machine falls alike on each; the verify-crc ratio is
the median of the rounds' ratios (each round's kdump time over the same round's loop
time).  Times are whole processes (``wait4``: wall, and user + system CPU).  kdump runs
as a user runs it: its console script, no ``--jobs``, output to /dev/null, and with
bytecode caches, as ``pip install`` leaves them (kept in bench/data/pycache, whatever
PYTHONDONTWRITEBYTECODE says: without them every run compiles kdump's sources, which
``--no-bytecode-cache`` measures).  Exits 1 when a target is missed: the ratio at most
1.5x, ``--help`` under 100 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from run import DATA, PEERS, README, ROOT, ensure_dataset, kdump_cmd, log_of  # noqa: E402

RATIO_TARGET = 1.5
HELP_TARGET = 0.100
BEGIN, END = "<!-- startup-figures:begin -->", "<!-- startup-figures:end -->"


def child_env(bytecode_cache: bool) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(DATA / "pycache")
    else:  # the interpreter's own caches as installed; kdump's sources compiled each run
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``cmd`` (its output to /dev/null)."""
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=null, stderr=null, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"startup_bench: {' '.join(cmd)} exited {p.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def small_segment() -> Path:
    """A one-batch segment (tests/writer.py), for start-up alone."""
    part = DATA / "bench-one-0"
    log = part / "00000000000000000000.log"
    if not log.is_file():
        sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures
        from tests.support import writer

        part.mkdir(parents=True, exist_ok=True)
        log.write_bytes(writer.v2_batch([writer.Rec(key=b"k", value=b"v", timestamp=writer.TS0)],
                                        base_offset=0))
    return log


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="every run compiles the sources (PYTHONDONTWRITEBYTECODE=1)")
    ap.add_argument("--baseline", metavar="CHECKOUT",
                    help="also time another checkout of kdump (e.g. /work/main: before the "
                    "change) in the same rounds, run by this Python from its source tree")
    ap.add_argument("--write-readme", action="store_true",
                    help="replace the start-up figures in bench/README.md")
    args = ap.parse_args(argv)
    ensure_dataset("u60")
    seg, one = str(log_of("u60")), str(small_segment())
    kdump = kdump_cmd()
    commands = {
        "python": [sys.executable, "-c", "pass"],
        "help": [*kdump, "--help"],
        "startup": [*kdump, "verify-crc", one],
        "loop": [sys.executable, str(PEERS / "crc_loop.py"), seg],
        "verify": [*kdump, "verify-crc", seg],
    }
    if args.baseline:
        base = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
                "from kdump.cli import main; sys.exit(main())", str(Path(args.baseline).resolve())]
        commands["help-base"] = [*base, "--help"]
        commands["verify-base"] = [*base, "verify-crc", seg]
    env = child_env(not args.no_bytecode_cache)
    load_before = os.getloadavg()[0]
    for cmd in commands.values():  # warm the page cache and the bytecode caches
        timed(cmd, env)
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    for _ in range(args.rounds):
        for name, cmd in commands.items():
            runs[name].append(timed(cmd, env))
    load_after = os.getloadavg()[0]

    def med(name: str, i: int = 0) -> float:
        return statistics.median(r[i] for r in runs[name])

    ratios = [v[0] / lp[0] for v, lp in zip(runs["verify"], runs["loop"], strict=True)]
    cpu_ratios = [v[1] / lp[1] for v, lp in zip(runs["verify"], runs["loop"], strict=True)]
    ratio, cpu_ratio = statistics.median(ratios), statistics.median(cpu_ratios)
    help_ok, ratio_ok = med("help") < HELP_TARGET, ratio <= RATIO_TARGET
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    size = os.path.getsize(seg)

    def row(what: str, name: str, target: str = "", met: str = "") -> str:
        best = min(r[0] for r in runs[name])
        return (f"| {what} | {med(name):.3f} s | {best:.3f} s | {med(name, 1):.3f} s | "
                f"{target} | {met} |")

    lines = [
        f"Run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: kdump {rev}, Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs; "
        + ("no bytecode cache (every run compiles kdump's sources)" if args.no_bytecode_cache
           else "bytecode cached") + f"; {args.rounds} paired rounds, "
        f"medians; load average {load_before:.1f} before, {load_after:.1f} after.",
        "",
        "| command | wall (median) | wall (best) | CPU (median) | target | met |",
        "|---|---:|---:|---:|---|---|",
        row("`python -c pass` (the interpreter alone)", "python"),
        row("`kdump --help`", "help", "< 0.100 s", "yes" if help_ok else "**no**"),
        row("`kdump verify-crc` on a one-batch segment (start-up)", "startup"),
        row(f"bare Python + crc32c loop, {size / 1e6:.1f} MB segment", "loop"),
        row("`kdump verify-crc`, same segment (no `--jobs`)", "verify"),
        f"| verify-crc / crc32c loop (median of the rounds' ratios) | {ratio:.2f}x | | "
        f"{cpu_ratio:.2f}x | <= {RATIO_TARGET}x | {'yes' if ratio_ok else '**no**'} |",
    ]
    if args.baseline:
        base_rev = subprocess.run(["git", "-C", args.baseline, "rev-parse", "--short", "HEAD"],
                                  capture_output=True, text=True).stdout.strip()
        pairs = list(zip(runs["verify-base"], runs["loop"], strict=True))
        base_ratio = statistics.median(v[0] / lp[0] for v, lp in pairs)
        base_cpu = statistics.median(v[1] / lp[1] for v, lp in pairs)
        lines += [
            row(f"before: `kdump --help` at {base_rev}", "help-base"),
            row(f"before: `kdump verify-crc` at {base_rev}, same segment", "verify-base"),
            f"| before: verify-crc / crc32c loop at {base_rev} | {base_ratio:.2f}x | | "
            f"{base_cpu:.2f}x | | |",
        ]
    text = "\n".join(lines)
    print(text)
    if args.write_readme:
        begin, end = (BEGIN, END) if not args.no_bytecode_cache else (
            BEGIN.replace("startup", "startup-nocache"), END.replace("startup", "startup-nocache"))
        readme = README.read_text(encoding="utf-8")
        a, b = readme.index(begin) + len(begin), readme.index(end)
        README.write_text(readme[:a] + "\n" + text + "\n" + readme[b:], encoding="utf-8")
    return 0 if help_ok and ratio_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
