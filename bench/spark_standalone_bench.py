#!/usr/bin/env python3
"""When does Spark pay?  ``kdump spark size-report`` and ``verify-crc`` on ``local[2]``
and on a real standalone cluster (a master and one 2-core worker on 127.0.0.1, started
with pyspark's ``bin/spark-class``: tests/support/sparkcluster.py), beside the local commands,
on a tiny log dir and on 256 MiB and 1 GiB of segments: the fixed cost of a run and
its cost per GiB, in one run.

    .venv/bin/python bench/spark_standalone_bench.py                 # 3 rounds
    .venv/bin/python bench/spark_standalone_bench.py --rounds 5 --json bench/data/spark-std/results.json
    .venv/bin/python bench/spark_standalone_bench.py --write-readme   # the figures into bench/README.md

The data (``bench/data/spark-std/``, git-ignored) is written once by the project's
encoder (tests/writer.py ``big_segment``, what ``writer.py big`` runs), 100 records of
70-byte values per batch, uncompressed:

* ``tiny``: one partition of 1 MiB (the fixed cost: start-up, one small task, stop);
* ``256m``: 4 partitions of 64 MiB;
* ``1g``: 4 partitions of 256 MiB.

Two measurements, in one run:

1. **Whole commands**, each a process as a user runs it, on ``tiny`` and ``1g``:
   ``kdump size-report|verify-crc D`` (local: as many worker processes as cores), and
   ``kdump spark ...`` with ``--master local[2]``, with ``--master spark://127.0.0.1:P
   --no-ship`` (executors run the venv's kdump, native code included: kdump installed
   on the nodes) and, for verify-crc, ``--ship`` (executors run the zip the driver
   ships, which cannot carry native code: pure Python per record).  The fixed cost of a
   run is its time on ``tiny``.  Rounds: one run of each per round, the order rotated
   from round to round.
2. **Warm sessions**: one driver per master (``local[2]``; the cluster ``--no-ship``;
   the cluster ``--ship``) starts its session once and runs the size-report and
   verify-crc jobs on ``tiny``, ``256m`` and ``1g`` in rounds, each job followed by the
   local command on the same data: the cost per GiB is the slope from ``256m`` to
   ``1g`` (what a job adds per GiB once everything is up), beside the local
   command's measured at the same moments.

Every output is checked against the local command's (byte for byte).  Medians are
reported, with the load average before and after each round (other sessions load this
2-core machine: read the ratios).  The data sits in the page cache (it fits in RAM
many times): the figures are CPU, not disk.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "spark-std"
README = ROOT / "bench" / "README.md"
sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures

from tests.support import sparkcluster as sc  # noqa: E402  (tests/, on the path above)

MIB = 1 << 20
#: dataset -> (partitions, bytes per partition)
DATASETS = {"tiny": (1, 1 * MIB), "256m": (4, 64 * MIB), "1g": (4, 256 * MIB)}
RECORDS_PER_BATCH = 100
VALUE_SIZE = 70
KDUMP = [str(Path(sys.executable).with_name("kdump"))]
BEGIN, END = "<!-- spark-standalone:begin -->", "<!-- spark-standalone:end -->"


def ensure_data() -> dict[str, int]:
    """Write the datasets once; their sizes in bytes."""
    from tests.support import writer

    want = {"datasets": DATASETS, "records_per_batch": RECORDS_PER_BATCH, "value_size": VALUE_SIZE}
    meta = DATA / "params.json"
    if not (meta.is_file() and json.loads(meta.read_text()) == json.loads(json.dumps(want))):
        need = sum(n * size for n, size in DATASETS.values()) * 1.1
        DATA.mkdir(parents=True, exist_ok=True)
        if shutil.disk_usage(DATA).free < need:
            raise SystemExit(f"bench: {need / MIB:.0f} MiB of free disk needed in {DATA}")
        for name, (n, size) in DATASETS.items():
            shutil.rmtree(DATA / name, ignore_errors=True)
            for p in range(n):
                print(f"bench: writing {name}/bench-{p} ({size // MIB} MiB) ...", file=sys.stderr,
                      flush=True)
                writer.big_segment(DATA / name / f"bench-{p}", size,
                                   records_per_batch=RECORDS_PER_BATCH, value_size=VALUE_SIZE)
        meta.write_text(json.dumps(want))
    return {name: sum(f.stat().st_size for f in (DATA / name).rglob("*") if f.is_file())
            for name in DATASETS}


def machine() -> dict[str, str]:
    def first(cmd: list[str], pattern: str | None = None) -> str:
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return "?"
        text = p.stdout + p.stderr
        if pattern is None:
            return text.strip().splitlines()[0] if text.strip() else "?"
        m = re.search(pattern, text, re.M)
        return m.group(1).strip() if m else "?"

    import pyspark

    from kdump.native import speedups

    model = first(["lscpu"], r"^Model name:(.*)$")
    cpus = first(["lscpu"], r"^CPU\(s\):(.*)$")
    threads = first(["lscpu"], r"^Thread\(s\) per core:(.*)$")
    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / (1 << 30)
    cpu = f"{model}, {cpus} CPUs ({threads} thread(s) per core), {ram:.0f} GiB RAM"
    return {
        "cpu": cpu,
        "kernel": f"Linux {platform.release()}",
        "python": platform.python_version(),
        "java": first(["java", "-version"]),
        "pyspark": pyspark.__version__,
        "kdump": first(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
        + (", native extension on" if speedups is not None else ", native extension OFF"),
    }


#: the datasets of the whole-command runs (fixed cost on tiny, the whole job on 1g)
WHOLE = ("tiny", "1g")
COMMANDS = ("size-report", "verify-crc")


def whole_commands(master: str) -> list[tuple[str, str, list[str]]]:
    """(mode, command, argv without the path), in the order of a round."""
    out = []
    for cmd in COMMANDS:
        out.append(("local", cmd, [*KDUMP, cmd, "--format", "json"]))
        out.append(("local[2]", cmd, [*KDUMP, "spark", cmd, "--master", "local[2]",
                                      "--format", "json"]))
        out.append(("standalone", cmd, [*KDUMP, "spark", cmd, "--master", master, "--no-ship",
                                        "--format", "json"]))
    out.append(("standalone --ship", "verify-crc", [*KDUMP, "spark", "verify-crc", "--master",
                                                    master, "--ship", "--format", "json"]))
    return out


Times = dict[tuple[str, str, str], list[float]]


def local_output(cmd: str, ds: str) -> str:
    r = subprocess.run([*KDUMP, cmd, "--format", "json", str(DATA / ds)], capture_output=True,
                       text=True, timeout=3600)
    return r.stdout


def whole_rounds(cluster: sc.Cluster, rounds: int, reference: dict[tuple[str, str], str]
                 ) -> tuple[Times, list[tuple[float, float]]]:
    env = cluster.driver_env()
    env["PYSPARK_PYTHON"] = sys.executable  # the nodes' Python: this venv (kdump installed)
    # --ship: the nodes' Python has kdump's dependencies, not kdump (only the zip, which
    # cannot carry the native module)
    ship_env = {**env, "PYSPARK_PYTHON": sc.python_without_kdump(cluster.root / "nodes-python")}
    work = [(mode, cmd, argv, ds) for mode, cmd, argv in whole_commands(cluster.master_url)
            for ds in WHOLE]
    times: Times = {(m, c, d): [] for m, c, _, d in work}
    loads = []
    for r in range(rounds):
        load0 = os.getloadavg()[0]
        shift = (r * len(work)) // max(rounds, 1)
        for mode, cmd, argv, ds in work[shift:] + work[:shift]:
            t0 = time.perf_counter()
            res = sc.run_group([*argv, str(DATA / ds)], env=ship_env if "--ship" in argv else env,
                               timeout=3600)
            wall = time.perf_counter() - t0
            if res.rc not in (0, 1) or res.left_behind or ("spark" in argv and res.err):
                raise SystemExit(f"bench: {' '.join(argv)} {ds} failed ({res.rc}): {res.err[-2000:]}")
            if res.out != reference[(cmd, ds)]:
                raise SystemExit(f"bench: {mode} {cmd} {ds}: output differs from the local command's")
            times[(mode, cmd, ds)].append(wall)
            print(f"bench: round {r + 1} {mode:18} {cmd:11} {ds:5} {wall:7.2f} s "
                  f"(load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
        loads.append((load0, os.getloadavg()[0]))
    return times, loads


def warm_session(master: str, ship: bool, rounds: int) -> dict[str, Any]:
    """In a driver of its own (``--warm``): start one session, then in rounds each job
    on each dataset, each followed by the local command on the same data."""
    import io

    from kdump.ops.size_report import SizeOptions
    from kdump.ops.verify_crc import VerifyOptions
    from kdump.render.registry import make_renderer
    from kdump.spark.jobs import size_report, verify_crc
    from kdump.spark.session import start

    t0 = time.perf_counter()
    ks = start(master, ship=ship, app_name="kdump-bench-warm")
    started = time.perf_counter() - t0
    jobs: dict[str, list[float]] = {}
    local: dict[str, list[float]] = {}
    outputs: dict[str, str] = {}
    loads = []
    try:
        for _ in range(rounds):
            load0 = os.getloadavg()[0]
            for ds in DATASETS:
                for cmd in COMMANDS:
                    out, err = io.StringIO(), io.StringIO()
                    t = time.perf_counter()
                    if cmd == "size-report":
                        items: Any = size_report(ks, [str(DATA / ds)], SizeOptions())
                        r = make_renderer("size-report", "json", out, err)
                    else:
                        items = verify_crc(ks, [str(DATA / ds)], VerifyOptions())
                        r = make_renderer("findings", "json", out, err)
                    for item in items:
                        r.emit(item)
                    r.close()
                    jobs.setdefault(f"{cmd} {ds}", []).append(time.perf_counter() - t)
                    outputs[f"{cmd} {ds}"] = out.getvalue()
                    t = time.perf_counter()
                    subprocess.run([*KDUMP, cmd, "--format", "json", str(DATA / ds)],
                                   stdout=subprocess.DEVNULL, timeout=3600)
                    local.setdefault(f"{cmd} {ds}", []).append(time.perf_counter() - t)
            loads.append((load0, os.getloadavg()[0]))
    finally:
        ks.stop()
    return {"start": started, "jobs": jobs, "local": local, "outputs": outputs, "loads": loads}


def warm_all(cluster: sc.Cluster, rounds: int, reference: dict[tuple[str, str], str]
             ) -> dict[str, dict[str, Any]]:
    env = cluster.driver_env()
    env["PYSPARK_PYTHON"] = sys.executable
    ship_env = {**env, "PYSPARK_PYTHON": sc.python_without_kdump(cluster.root / "nodes-python")}
    res = {}
    for mode, master, ship in (("local[2]", "local[2]", False),
                               ("standalone", cluster.master_url, False),
                               ("standalone --ship", cluster.master_url, True)):
        run = sc.run_group([sys.executable, __file__, "--warm", master, str(int(ship)),
                            str(rounds)], env=ship_env if ship else env, timeout=7200)
        if run.rc != 0 or run.left_behind:
            raise SystemExit(f"bench: warm session {mode} failed ({run.rc}): {run.err[-2000:]}")
        r = json.loads(run.out)
        for key, out in r.pop("outputs").items():
            cmd, ds = key.split()
            if out != reference[(cmd, ds)]:
                raise SystemExit(f"bench: warm {mode} {key}: output differs from the local command's")
        res[mode] = r
        print(f"bench: warm {mode}: start {r['start']:.1f} s, jobs {r['jobs']}", file=sys.stderr,
              flush=True)
    return res


def slope(t: dict[str, float], sizes: dict[str, int]) -> float:
    """Seconds per GiB from 256m to 1g (what is paid once cancels out)."""
    return (t["1g"] - t["256m"]) / ((sizes["1g"] - sizes["256m"]) / (1 << 30))


def report(times: Times, loads: list[tuple[float, float]], warm: dict[str, dict[str, Any]],
           sizes: dict[str, int], info: dict[str, str], cluster_start: float, rounds: int,
           elapsed: float) -> str:
    med = {k: statistics.median(v) for k, v in times.items()}
    modes = list(dict.fromkeys(m for m, _, _ in med))
    wloads = [x for w in warm.values() for x in w["loads"]]
    lines = [
        f"Run of {time.strftime('%Y-%m-%d')}.  Machine: {info['cpu']}; {info['kernel']}; "
        f"Python {info['python']}; {info['java']}; PySpark {info['pyspark']}; "
        f"kdump {info['kdump']}.",
        f"Cluster: a master and one worker (2 cores, executors of 1 GiB) on 127.0.0.1, up and "
        f"registered in {cluster_start:.1f} s.  {rounds} rounds, {elapsed / 60:.0f} min in all; "
        "load average (1 min) before/after each round: whole commands "
        + ", ".join(f"{a:.1f}/{b:.1f}" for a, b in loads) + "; warm sessions "
        + ", ".join(f"{a:.1f}/{b:.1f}" for a, b in wloads) + ".",
        f"Data: tiny {sizes['tiny'] / MIB:.1f} MiB (1 partition), 256m {sizes['256m'] / MIB:.0f} "
        f"MiB and 1g {sizes['1g'] / MIB:.0f} MiB (4 partitions each), uncompressed, in the page "
        "cache.",
        "",
    ]
    if med:
        lines += [
            "Whole commands (a process each, as a user runs them): median wall seconds, and "
            "the ratio to the local command on the same data in the same rounds.",
            "",
            "| command | mode | tiny (fixed cost) | 1g | tiny ratio | 1g ratio |",
            "|---|---|---:|---:|---:|---:|",
        ]
    for cmd in COMMANDS:
        for mode in modes:
            if (mode, cmd, "tiny") not in med:
                continue
            t = [med[(mode, cmd, d)] for d in WHOLE]
            ratios = ["" if mode == "local" else f"{x / med[('local', cmd, d)]:.1f}×"
                      for x, d in zip(t, WHOLE, strict=True)]
            lines.append(f"| `{cmd}` | {mode} | " + " | ".join(f"{x:.2f}" for x in t)
                         + " | " + " | ".join(ratios) + " |")
    lines += [
        "",
        "Warm sessions (the session started once; a job alone, no JVM start): median "
        "seconds per job, the cost per GiB (slope from 256m to 1g), and the local command "
        "run right after each job on the same data:",
        "",
        "| command | mode | session start s | job tiny | job 256m | job 1g | s per GiB "
        "| local s per GiB | per GiB ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    per_gib: dict[tuple[str, str], float] = {}
    for cmd in COMMANDS:
        for mode, w in warm.items():
            job = {d: statistics.median(w["jobs"][f"{cmd} {d}"]) for d in DATASETS}
            loc = {d: statistics.median(w["local"][f"{cmd} {d}"]) for d in DATASETS}
            s, ls = slope(job, sizes), slope(loc, sizes)
            per_gib[(mode, cmd)] = s
            lines.append(f"| `{cmd}` | {mode} | {w['start']:.1f} | "
                         + " | ".join(f"{job[d]:.2f}" for d in DATASETS)
                         + f" | {s:.2f} | {ls:.2f} | {s / ls:.1f}× |")
    if not med:  # --warm-only
        return "\n".join(lines)
    lines += [
        "",
        "When Spark pays: a run costs about F + X·c for X GiB (F: the whole command on tiny; "
        "c: the warm cost per GiB, here with 2 cores).  Spark on N machines like this one "
        "beats the local command on one when X > (F_spark − F_local) / (c_local − c_spark/N) "
        "(arithmetic on the figures above, not a measurement; it assumes the data is spread "
        "over the N machines' disks and read at this machine's rate):",
        "",
        "| command | mode | F s | c s/GiB | N = 1 (this machine) | N = 4 | N = 16 |",
        "|---|---|---:|---:|---|---|---|",
    ]
    for cmd in COMMANDS:
        # the local command's cost per GiB: all its runs beside the warm jobs
        all_local = {d: statistics.median(x for w in warm.values() for x in w["local"][f"{cmd} {d}"])
                     for d in DATASETS}
        fl, cl = med[("local", cmd, "tiny")], slope(all_local, sizes)
        lines.append(f"| `{cmd}` | local | {fl:.2f} | {cl:.2f} | | | |")
        for mode in modes:
            if mode == "local" or (mode, cmd, "tiny") not in med or (mode, cmd) not in per_gib:
                continue
            f, c = med[(mode, cmd, "tiny")], per_gib[(mode, cmd)]
            cells = []
            for n in (1, 4, 16):
                gain = cl - c / n
                if n > 1 and not mode.startswith("standalone"):
                    cells.append("(one machine)")
                else:
                    cells.append(f"{(f - fl) / gain:.0f} GiB" if gain > 0 else "never")
            lines.append(f"| `{cmd}` | {mode} | {f:.2f} | {c:.2f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_readme(text: str, command: str) -> None:
    readme = README.read_text()
    block = f"{BEGIN}\n{text}\n\nReproduce: `{command}`\n{END}"
    if BEGIN in readme and END in readme:
        readme = readme[: readme.index(BEGIN)] + block + readme[readme.index(END) + len(END):]
    else:
        raise SystemExit(f"bench: {README} has no {BEGIN} ... {END} block")
    README.write_text(readme)


def main() -> None:
    if sys.argv[1:2] == ["--warm"]:
        master, ship, rounds = sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
        print(json.dumps(warm_session(master, ship, rounds)))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None, help="also write the raw figures here")
    ap.add_argument("--warm-only", action="store_true",
                    help="only the warm sessions (the cost per GiB), not the whole commands")
    ap.add_argument("--write-readme", action="store_true",
                    help=f"replace the figures between {BEGIN} and {END} in bench/README.md")
    args = ap.parse_args()
    problem = sc.java_problem()
    if problem:
        raise SystemExit(f"bench: {problem}")
    sizes = ensure_data()
    info = machine()
    reference = {(cmd, ds): local_output(cmd, ds) for cmd in COMMANDS for ds in DATASETS}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kdump-spark-std-") as tmp:
        t0 = time.perf_counter()
        with sc.start_cluster(Path(tmp) / "spark", cores=2) as cluster:
            cluster_start = time.perf_counter() - t0
            print(f"bench: cluster {cluster.master_url} up in {cluster_start:.1f} s",
                  file=sys.stderr, flush=True)
            times, loads = ({}, []) if args.warm_only else whole_rounds(cluster, args.rounds,
                                                                        reference)
            warm = warm_all(cluster, args.rounds, reference)
    elapsed = time.perf_counter() - start
    text = report(times, loads, warm, sizes, info, cluster_start, args.rounds, elapsed)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": info, "sizes": sizes, "loads": loads,
                                         "cluster_start": cluster_start, "warm": warm,
                                         "times": {" | ".join(k): v for k, v in times.items()}},
                                        indent=1))
    if args.write_readme:
        argv = " ".join(a for a in sys.argv[1:] if a != "--write-readme")
        write_readme(text, f".venv/bin/python bench/spark_standalone_bench.py {argv}".strip())


if __name__ == "__main__":
    main()
