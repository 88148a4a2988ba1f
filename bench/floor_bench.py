#!/usr/bin/env python3
"""verify-crc against the hardware floor (issues 33, 49): whole processes, paired rounds.

    .venv/bin/python bench/floor_bench.py                  # 7 rounds
    .venv/bin/python bench/floor_bench.py --rounds 11 --write-readme
    .venv/bin/python bench/floor_bench.py --baseline /work/main   # and the code before
    .venv/bin/python bench/floor_bench.py --no-1g          # the 512 MB segment only

Each round runs, in this order and once each:

- ``python -c pass`` and ``kdump --version`` (start-up; target: at most 1.8x);
- the floor over the 512 MB segment, ``bench/peers/crc_mmap.py``: CRC-32C by the
  ``crc32c`` package over an mmap of the file, 1 MiB per call, start-up included (with
  the file in the page cache the mapped pages ARE the page cache: nothing is copied,
  and the mapping's pages count in its peak RSS), then ``kdump verify-crc`` over the
  same segment (no ``--jobs``: kdump's own choice), and ``kdump verify-crc --jobs 1``
  (one process); target: at most 1.3x the floor (issue 49);
- the same over the 1 GiB segment (unless ``--no-1g``): the floor, ``kdump verify-crc
  --jobs 1`` (one process; target: at most 1.3x the floor) and ``kdump verify-crc`` (its
  own choice, which may start a pool of workers at this size);
- the bare Python batch loop over the 60 MB segment (``bench/peers/crc_loop.py``: each
  batch's CRC by the crc32c package, the file read whole), then ``kdump verify-crc``
  over it; target: at most 1.3x.

The 512 MB segment is written once by ``tests/writer.py big bench/data/floor-512M
512M`` (v2, uncompressed, 100 records of 60-byte values per batch), the 1 GiB one by
``tests/writer.py big bench/data/floor-1G 1G``; the 60 MB one is
bench/run.py's ``bench-u60-0``.  Both are read once before the rounds, so that every
run finds them in the page cache.  A ratio is the median of the rounds' ratios (each
round's kdump time over the same round's peer time), so that a shared machine's load
falls alike on both.  kdump runs from its console script with bytecode caches, as
``pip install`` leaves them.  Exits 1 when a target is missed.
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
from startup_bench import child_env  # noqa: E402

FLOOR_TARGET = 1.3
LOOP_TARGET = 1.3
VERSION_TARGET = 1.8
BEGIN, END = "<!-- floor-figures:begin -->", "<!-- floor-figures:end -->"
BIG_DIR = DATA / "floor-512M"
GIB_DIR = DATA / "floor-1G"


def big_segment(where: Path = BIG_DIR, size: str = "512M") -> Path:
    """The 512 MB (or ``size``) segment, written by the project's encoder on first use."""
    log = where / "big-0" / "00000000000000000000.log"
    if not log.is_file():
        if where.exists() and any(where.iterdir()):
            raise SystemExit(f"floor_bench: {where} holds something else: remove it")
        print(f"floor_bench: writing the {size} segment into {where} ...", file=sys.stderr,
              flush=True)
        subprocess.run([sys.executable, str(ROOT / "tests" / "writer.py"), "big", str(where),
                        size], check=True, stdout=subprocess.DEVNULL)
    return log


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall and CPU seconds and peak RSS (KiB) of one run of ``cmd``, output to /dev/null."""
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=null, stderr=null, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"floor_bench: {' '.join(cmd)} exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def machine() -> str:
    """CPUs (model name, family/model, the CRC instructions there), kernel, Python, kdump."""
    info: dict[str, str] = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ("model name", "cpu family", "model", "flags") and key not in info:
            info[key] = value.strip()
    flags = set(info.get("flags", "").split())
    crc = "/".join(f for f in ("sse4_2", "pclmulqdq", "avx2", "avx512f", "vpclmulqdq")
                   if f in flags) or "no SSE 4.2"
    model = (f"{info.get('model name', '?')}, family {info.get('cpu family', '?')} model "
             f"{info.get('model', '?')}, {crc}")
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    return (f"{os.cpu_count()} CPUs ({model}), Linux {platform.release()}, Python "
            f"{platform.python_version()}, kdump {rev}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--baseline", metavar="CHECKOUT",
                    help="also time another checkout of kdump (its source tree, run by this "
                    "Python) in the same rounds")
    ap.add_argument("--no-1g", action="store_true", help="leave out the 1 GiB segment")
    ap.add_argument("--write-readme", action="store_true",
                    help="replace the floor figures in bench/README.md")
    args = ap.parse_args(argv)
    ensure_dataset("u60")
    big, u60 = str(big_segment()), str(log_of("u60"))
    gib = "" if args.no_1g else str(big_segment(GIB_DIR, "1G"))
    kdump = kdump_cmd()
    py = sys.executable
    commands = {
        "python": [py, "-c", "pass"],
        "version": [*kdump, "--version"],
        "floor": [py, str(PEERS / "crc_mmap.py"), big],
        "verify512": [*kdump, "verify-crc", big],
        "verify512j1": [*kdump, "verify-crc", "--jobs", "1", big],
        "loop": [py, str(PEERS / "crc_loop.py"), u60],
        "verify60": [*kdump, "verify-crc", u60],
    }
    if gib:
        commands["floor1g"] = [py, str(PEERS / "crc_mmap.py"), gib]
        commands["verify1gj1"] = [*kdump, "verify-crc", "--jobs", "1", gib]
        commands["verify1g"] = [*kdump, "verify-crc", gib]
    if args.baseline:
        base = [py, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
                "from kdump.cli import main; sys.exit(main())", str(Path(args.baseline).resolve())]
        commands["base512"] = [*base, "verify-crc", big]
        commands["base60"] = [*base, "verify-crc", u60]
        if gib:
            commands["base1g"] = [*base, "verify-crc", "--jobs", "1", gib]
    env = child_env(True)
    for cmd in commands.values():  # the page cache and the bytecode caches, warm
        timed(cmd, env)
    load_before = os.getloadavg()
    runs: dict[str, list[tuple[float, float, int]]] = {k: [] for k in commands}
    for r in range(args.rounds):
        for name, cmd in commands.items():
            runs[name].append(timed(cmd, env))
        print(f"floor_bench: round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
    load_after = os.getloadavg()

    def med(name: str, i: int = 0) -> float:
        return statistics.median(x[i] for x in runs[name])

    def ratio(a: str, b: str, i: int = 0) -> float:
        return statistics.median(x[i] / y[i] for x, y in zip(runs[a], runs[b], strict=True))

    size_big, size_60 = os.path.getsize(big), os.path.getsize(u60)
    size_gib = os.path.getsize(gib) if gib else 0
    checks = {
        "verify512": ("floor", FLOOR_TARGET),
        "verify60": ("loop", LOOP_TARGET),
        "version": ("python", VERSION_TARGET),
    }
    if gib:
        checks["verify1gj1"] = ("floor1g", FLOOR_TARGET)
    met = {k: ratio(k, peer) <= target for k, (peer, target) in checks.items()}

    def row(what: str, name: str, size: int = 0, peer: str = "", target: float = 0.0) -> str:
        gbs = f"{size / med(name) / 1e9:.2f} GB/s" if size else ""
        rss = f"{max(x[2] for x in runs[name]) / 1024:.0f} MB"
        if peer:
            r, rc = ratio(name, peer), ratio(name, peer, 1)
            cmp = f"{r:.2f}x ({rc:.2f}x)"
        else:
            cmp = ""
        tgt = f"<= {target}x" if target else ""
        ok = ("yes" if r <= target else "**no**") if target else ""
        return (f"| {what} | {med(name):.3f} s | {med(name, 1):.3f} s | {gbs} | {rss} | {cmp} "
                f"| {tgt} | {ok} |")

    lines = [
        f"Run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {machine()}; "
        f"{args.rounds} rounds, medians; load average {load_before[0]:.1f} "
        f"({load_before[1]:.1f} over 5 min) before, {load_after[0]:.1f} after.  Bytecode "
        "cached.  Ratio: the median of the rounds' ratios, wall (CPU in brackets).",
        "",
        "| command | wall | CPU | rate | peak RSS | ratio to the row's peer | target | met |",
        "|---|---:|---:|---:|---:|---:|---|---|",
        row("`python -c pass`", "python"),
        row("`kdump --version` (peer: `python -c pass`)", "version", 0, "python",
            VERSION_TARGET),
        row(f"floor: crc32c over mmap, 1 MiB per call, {size_big / 1e6:.0f} MB", "floor",
            size_big),
        row("`kdump verify-crc`, same segment (peer: the floor)", "verify512", size_big,
            "floor", FLOOR_TARGET),
        row("`kdump verify-crc --jobs 1`, same segment (peer: the floor)", "verify512j1",
            size_big, "floor"),
    ]
    if gib:
        lines += [
            row(f"floor: crc32c over mmap, 1 MiB per call, {size_gib / 1e6:.0f} MB", "floor1g",
                size_gib),
            row("`kdump verify-crc --jobs 1`, same segment (peer: the floor)", "verify1gj1",
                size_gib, "floor1g", FLOOR_TARGET),
            row("`kdump verify-crc`, same segment (peer: the floor)", "verify1g", size_gib,
                "floor1g"),
        ]
    lines += [
        row(f"bare Python batch loop + crc32c, {size_60 / 1e6:.0f} MB", "loop", size_60),
        row("`kdump verify-crc`, same segment (peer: the loop)", "verify60", size_60, "loop",
            LOOP_TARGET),
    ]
    if args.baseline:
        base_rev = subprocess.run(["git", "-C", args.baseline, "rev-parse", "--short", "HEAD"],
                                  capture_output=True, text=True).stdout.strip()
        lines += [
            row(f"before: `kdump verify-crc` at {base_rev}, 512 MB (peer: the floor)",
                "base512", size_big, "floor"),
            row(f"before: `kdump verify-crc` at {base_rev}, 60 MB (peer: the loop)", "base60",
                size_60, "loop"),
        ]
        if gib:
            lines.append(row(f"before: `kdump verify-crc --jobs 1` at {base_rev}, 1 GiB (peer: "
                             "the floor)", "base1g", size_gib, "floor1g"))
    text = "\n".join(lines)
    print(text)
    if args.write_readme:
        readme = README.read_text(encoding="utf-8")
        if BEGIN not in readme:
            readme += f"\n{BEGIN}\n{END}\n"
        a, b = readme.index(BEGIN) + len(BEGIN), readme.index(END)
        README.write_text(readme[:a] + "\n" + text + "\n" + readme[b:], encoding="utf-8")
    return 0 if all(met.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
