#!/usr/bin/env python3
"""kdump's benchmark: kdump against its Python peers and the hardware floor.

    .venv/bin/python bench/run.py            # everything (writes a 1 GiB segment once)
    .venv/bin/python bench/run.py --quick    # fewer runs; no 1 GiB segment unless present
    .venv/bin/python bench/run.py --write-readme   # also record the figures in README.md
    .venv/bin/python bench/run.py --pure --quick --no-1g --write-readme   # the fallback's

Test segments are written by the project's own encoder (tests/writer.py big_segment)
into bench/data/ (git-ignored) on first use and reused after.  Every figure is a whole
process (start-up included), timed several times; the median is reported.  Commands are
run in rounds (one run of each per round) so that the load of a shared machine falls
alike on kdump and on the peers it is compared with: ratios are what count, absolute
times only give context.  Peers: a bare Python + crc32c loop over batch headers (the
floor), aiokafka's Cython record reader and kafka-python's pure-Python one (found in
this Python, else installed into bench/.venv), and a kafka-python + json.dumps dump.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
DATA = BENCH / "data"
PEERS = BENCH / "peers"
PEER_VENV = BENCH / ".venv"
README = BENCH / "README.md"
MB = 1 << 20

#: name -> (directory, target bytes, codec, what it is for).  100 records of 70-byte
#: values per batch: the 100 MB segment holds 1.14 M records, as in issue 7; the lz4 one
#: holds about as many records, compressed.
DATASETS: dict[str, tuple[str, int, str, str]] = {
    "u100": ("bench-u100-0", 100_000_000, "none", "100 MB uncompressed"),
    "lz4": ("bench-lz4-0", 18_800_000, "lz4", "lz4, ~1.14 M records"),
    "u60": ("bench-u60-0", 60_000_000, "none", "60 MB uncompressed"),
    "u1g": ("bench-u1g-0", 1 << 30, "none", "1 GiB uncompressed"),
}
RECORDS_PER_BATCH = 100
VALUE_SIZE = 70
FORBIDDEN_AT_STARTUP = ("rich", "pyspark", "pyarrow", "lz4", "zstandard", "snappy", "cramjam")


# --- data ------------------------------------------------------------------------------
def log_of(name: str) -> Path:
    return DATA / DATASETS[name][0] / "00000000000000000000.log"


def ensure_dataset(name: str) -> Path:
    """The partition directory of a test segment, written on first use."""
    dirname, target, codec, _ = DATASETS[name]
    part = DATA / dirname
    meta = DATA / f"{dirname}.json"
    want = {"target": target, "codec": codec, "records_per_batch": RECORDS_PER_BATCH,
            "value_size": VALUE_SIZE}
    if part.is_dir() and meta.is_file():
        try:
            if json.loads(meta.read_text())["params"] == want:
                return part
        except (ValueError, KeyError):
            pass
    DATA.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(DATA).free
    need = int(target * 1.05) + 64 * MB
    if free < need:
        raise SystemExit(f"bench: {free // MB} MB free in {DATA}, {need // MB} MB needed for "
                         f"the {DATASETS[name][3]} segment")
    sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures
    from tests.support import writer  # the project's own encoder

    codecs = {"none": writer.NONE, "lz4": writer.LZ4}
    print(f"bench: writing the {DATASETS[name][3]} segment into {part} ...", file=sys.stderr,
          flush=True)
    t0 = time.perf_counter()
    tmp = DATA / f".tmp-{dirname}"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(part, ignore_errors=True)
    writer.big_segment(tmp, target, records_per_batch=RECORDS_PER_BATCH, value_size=VALUE_SIZE,
                       codec=codecs[codec])
    tmp.rename(part)
    meta.write_text(json.dumps({"params": want}))
    print(f"bench: written in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return part


# --- tools -----------------------------------------------------------------------------
def kdump_cmd() -> list[str]:
    script = Path(sys.executable).parent / "kdump"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kdump"]


def peer_python() -> str:
    """A Python with kafka-python, aiokafka and crc32c: this one, else bench/.venv."""
    probe = "import kafka, aiokafka, crc32c, aiokafka.record._crecords"
    for py in (sys.executable, str(PEER_VENV / "bin" / "python")):
        if Path(py).exists() and subprocess.run([py, "-c", probe],
                                                capture_output=True).returncode == 0:
            return py
    print("bench: installing the peers (kafka-python, aiokafka) into bench/.venv ...",
          file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
    py = str(PEER_VENV / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "kafka-python", "aiokafka", "crc32c",
                    "lz4", "cramjam"], check=True)
    return py


def package_version(py: str, name: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({name!r}))"
    p = subprocess.run([py, "-c", code], capture_output=True, text=True)
    return p.stdout.strip() or "?"


def native_loaded(env: dict[str, str]) -> bool:
    code = "from kdump.records.native import speedups; print(speedups is not None)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return p.stdout.strip() == "True"


# --- measuring -------------------------------------------------------------------------
@dataclass
class Run:
    wall: float
    cpu: float
    rss_kb: int
    rc: int
    out: str


@dataclass
class Case:
    key: str
    label: str
    cmd: list[str]
    records: int | None = None  # for records/s
    rounds: int | None = None  # at most this many runs (slow peers)
    capture: bool = False  # keep stdout (small outputs only)
    env: dict[str, str] | None = None
    ok_rcs: tuple[int, ...] = (0,)
    runs: list[Run] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return statistics.median(r.wall for r in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(r.cpu for r in self.runs)

    @property
    def rss_mb(self) -> float:
        return max(r.rss_kb for r in self.runs) / 1024


def run_once(case: Case) -> Run:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(case.cmd, stdout=out if case.capture else subprocess.DEVNULL,
                             stderr=err, env=case.env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = rc = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode("utf-8", "replace") if case.capture else ""
        if rc not in case.ok_rcs:
            raise SystemExit(f"bench: {' '.join(case.cmd)} exited {rc}:\n"
                             + err.read().decode("utf-8", "replace")[-2000:])
    return Run(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, rc, text)


def measure(cases: list[Case], rounds: int) -> None:
    for r in range(rounds):
        for c in cases:
            if c.rounds is not None and r >= c.rounds:
                continue
            c.runs.append(run_once(c))
            print(f"bench: round {r + 1}/{rounds} {c.label}: {c.runs[-1].wall:.3f} s",
                  file=sys.stderr, flush=True)


def import_check(env: dict[str, str]) -> list[str]:
    """Modules among FORBIDDEN_AT_STARTUP imported by ``kdump --version``/``--help``."""
    found: set[str] = set()
    for arg in ("--version", "--help"):
        p = subprocess.run([sys.executable, "-X", "importtime", "-m", "kdump", arg],
                           capture_output=True, text=True, env=env)
        for line in p.stderr.splitlines():
            m = re.match(r"import time:\s+\d+ \|\s+\d+ \|\s+(\S+)", line)
            if m and m.group(1).split(".")[0] in FORBIDDEN_AT_STARTUP:
                found.add(m.group(1).split(".")[0])
    return sorted(found)


def machine() -> dict[str, str]:
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return {"nproc": str(os.cpu_count()), "cpu": model,
            "python": platform.python_version(), "commit": commit or "?"}


def records_in(part: Path, env: dict[str, str]) -> int:
    p = subprocess.run([*kdump_cmd(), "size-report", "--format", "json", str(part)],
                       capture_output=True, text=True, env=env, check=True)
    return int(json.loads(p.stdout.splitlines()[-1])["records"])


# --- the report ------------------------------------------------------------------------
@dataclass
class Row:
    what: str
    case: Case | None
    versus: str = ""
    ratio: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""


def fmt_rate(c: Case) -> str:
    if c.records is None or not c.runs:
        return ""
    return f"{c.records / c.wall / 1e6:.2f} M/s"


def table(rows: list[Row]) -> str:
    head = ("| measurement | median wall | CPU | records/s | peak RSS | compared with "
            "| ratio (wall; CPU) | target | met |")
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        c = r.case
        wall = f"{c.wall:.3f} s" if c and c.runs else ""
        cpu = f"{c.cpu:.3f} s" if c and c.runs else ""
        rss = f"{c.rss_mb:.0f} MB" if c and c.runs else ""
        rate = fmt_rate(c) if c else ""
        met = "" if r.met is None else ("yes" if r.met else "**no**")
        what = r.what + (f" ({r.note})" if r.note else "")
        lines.append(f"| {what} | {wall} | {cpu} | {rate} | {rss} | {r.versus} | {r.ratio} "
                     f"| {r.target} | {met} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="3 rounds (kafka-python once); skip the 1 GiB segment unless present")
    ap.add_argument("--rounds", type=int, default=None, help="runs of each command (default 5)")
    ap.add_argument("--no-1g", action="store_true", help="skip the 1 GiB segment")
    ap.add_argument("--pure", action="store_true",
                    help="run kdump on its pure-Python code (KDUMP_PURE_PYTHON=1)")
    ap.add_argument("--write-readme", action="store_true",
                    help="record the table in bench/README.md")
    args = ap.parse_args()
    rounds = args.rounds or (3 if args.quick else 5)
    slow_rounds = 1 if args.quick else 3

    env = dict(os.environ)
    env.pop("KDUMP_PURE_PYTHON", None)
    if args.pure:
        env["KDUMP_PURE_PYTHON"] = "1"
    native = native_loaded(env)
    with_1g = not args.no_1g and (not args.quick or DATA.joinpath(DATASETS["u1g"][0]).is_dir())

    parts = {name: ensure_dataset(name) for name in ("u100", "lz4", "u60")}
    if with_1g:
        parts["u1g"] = ensure_dataset("u1g")
    py = peer_python()
    kd = kdump_cmd()
    n100 = records_in(parts["u100"], env)
    nlz4 = records_in(parts["lz4"], env)
    n1g = records_in(parts["u1g"], env) if with_1g else 0
    u100, lz4 = str(log_of("u100")), str(log_of("lz4"))

    def K(key: str, label: str, argv: list[str], **kw: Any) -> Case:
        return Case(key, label, [*kd, *argv], env=env, **kw)

    def P(key: str, label: str, argv: list[str], **kw: Any) -> Case:
        return Case(key, label, [py, *argv], **kw)

    cases = [
        P("crc", "crc32c loop", [str(PEERS / "crc_loop.py"), u100]),
        K("verify", "kdump verify-crc", ["verify-crc", u100], records=n100),
        K("shallow", "kdump verify-crc --shallow", ["verify-crc", "--shallow", u100]),
        P("aio", "aiokafka scan", [str(PEERS / "scan.py"), "aiokafka", u100], records=n100),
        K("size", "kdump size-report", ["size-report", str(parts["u100"])], records=n100),
        P("kp", "kafka-python scan", [str(PEERS / "scan.py"), "kafka", u100], records=n100,
          rounds=slow_rounds),
        P("aio_lz4", "aiokafka scan lz4", [str(PEERS / "scan.py"), "aiokafka", lz4],
          records=nlz4),
        K("size_lz4", "kdump size-report lz4", ["size-report", str(parts["lz4"])],
          records=nlz4),
        P("kp_lz4", "kafka-python scan lz4", [str(PEERS / "scan.py"), "kafka", lz4],
          records=nlz4, rounds=slow_rounds),
        P("kp_dump", "kafka-python dump", [str(PEERS / "kafka_python_dump.py"), u100],
          records=n100, rounds=slow_rounds),
        K("dump_json", "kdump dump json", ["dump", "--format", "json", "--print-data-log", u100],
          records=n100),
        K("dump_text", "kdump dump text", ["dump", "--format", "text", "--print-data-log", u100],
          records=n100),
        K("dump60", "kdump dump json 60 MB",
          ["dump", "--format", "json", "--print-data-log", str(log_of("u60"))],
          rounds=max(1, rounds // 2)),
        K("version", "kdump --version", ["--version"]),
        K("help", "kdump --help", ["--help"]),
    ]
    target_offset = n1g // 2 + 17
    if with_1g:
        cases += [
            K("dump1g", "kdump dump json 1 GiB",
              ["dump", "--format", "json", "--print-data-log", str(log_of("u1g"))],
              records=n1g, rounds=1),
            K("find", "kdump find-offset 1 GiB",
              ["find-offset", "--format", "json", str(parts["u1g"]), str(target_offset)],
              capture=True),
        ]
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    measure(cases, rounds)
    elapsed = time.perf_counter() - t0
    load1 = os.getloadavg()[0]
    forbidden = import_check(env)
    c = {x.key: x for x in cases}

    def ratio(a: str, b: str) -> float:
        return c[a].wall / c[b].wall

    def times(a: str, b: str) -> str:
        """a's time as a multiple of b's: wall, then CPU."""
        return f"{ratio(a, b):.2f}× (CPU {c[a].cpu / c[b].cpu:.2f}×)"

    def faster(a: str, b: str) -> str:
        """How many times faster b is than a: wall, then CPU."""
        return f"{ratio(a, b):.1f}× faster (CPU {c[a].cpu / c[b].cpu:.1f}×)"

    rows = [
        Row("bare Python + crc32c loop over batch headers", c["crc"], note="the floor"),
        Row("`kdump verify-crc` (CRC + every record checked)", c["verify"], "crc32c loop",
            times("verify", "crc"), "≤ 1.5×", ratio("verify", "crc") <= 1.5),
        Row("`kdump verify-crc --shallow` (CRC + framing)", c["shallow"], "crc32c loop",
            times("shallow", "crc"), "≤ 1.5×", ratio("shallow", "crc") <= 1.5),
        Row("aiokafka (Cython) deep scan", c["aio"]),
        Row("kafka-python deep scan", c["kp"]),
        Row("`kdump size-report` (every record decoded)", c["size"], "aiokafka",
            times("size", "aio"), "≤ 1×", ratio("size", "aio") <= 1.0),
        Row("", None, "kafka-python", faster("kp", "size"), "many times",
            ratio("kp", "size") >= 5),
        Row("aiokafka deep scan, lz4", c["aio_lz4"]),
        Row("kafka-python deep scan, lz4", c["kp_lz4"]),
        Row("`kdump size-report`, lz4", c["size_lz4"], "aiokafka",
            times("size_lz4", "aio_lz4"), "≤ 1×", ratio("size_lz4", "aio_lz4") <= 1.0),
        Row("", None, "kafka-python", faster("kp_lz4", "size_lz4"), "many times",
            ratio("kp_lz4", "size_lz4") >= 5),
        Row("kafka-python + json.dumps dump", c["kp_dump"]),
        Row("`kdump dump --format json --print-data-log`", c["dump_json"], "kafka-python dump",
            faster("kp_dump", "dump_json"), "≥ 3×", ratio("kp_dump", "dump_json") >= 3),
        Row("`kdump dump --format text --print-data-log`", c["dump_text"], "kafka-python dump",
            faster("kp_dump", "dump_text"), "≥ 3×", ratio("kp_dump", "dump_text") >= 3),
        Row("`kdump dump` json, 60 MB segment: peak RSS", c["dump60"], target="≤ 150 MB",
            met=c["dump60"].rss_mb <= 150),
    ]
    if with_1g:
        found = json.loads(c["find"].runs[-1].out)
        rows += [
            Row("`kdump dump` json, 1 GiB segment: peak RSS", c["dump1g"], target="≤ 150 MB",
                met=c["dump1g"].rss_mb <= 150),
            Row(f"`kdump find-offset` 1 GiB segment, offset {target_offset}", c["find"],
                target="< 0.5 s", met=c["find"].wall < 0.5,
                note=f"read {found['bytes_read']} bytes, {found['method']}"),
        ]
    rows += [
        Row("`kdump --version`", c["version"], target="< 0.3 s", met=c["version"].wall < 0.3),
        Row("`kdump --help`", c["help"], target="< 0.3 s", met=c["help"].wall < 0.3),
        Row("modules imported by --version/--help among " + ", ".join(FORBIDDEN_AT_STARTUP),
            None, ratio=", ".join(forbidden) or "none", target="none", met=not forbidden),
    ]
    m = machine()
    header = (
        f"Machine: {m['nproc']} CPUs, {m['cpu']}; Python {m['python']}; kdump {m['commit']}, "
        f"native extension {'on' if native else 'OFF (pure Python)'}; "
        f"peers: aiokafka {package_version(py, 'aiokafka')}, kafka-python "
        f"{package_version(py, 'kafka-python')}, crc32c {package_version(py, 'crc32c')}.\n"
        f"Data: {n100:,} records in {log_of('u100').stat().st_size / 1e6:.0f} MB uncompressed; "
        f"{nlz4:,} records in {log_of('lz4').stat().st_size / 1e6:.1f} MB lz4"
        + (f"; {n1g:,} records in the 1 GiB segment" if with_1g else "")
        + f".  {rounds} rounds (kafka-python {slow_rounds}), {elapsed:.0f} s; load average "
        f"{load0:.1f} before, {load1:.1f} after."
    )
    report = header + "\n\n" + table(rows)
    print(report)
    if args.write_readme:
        write_readme(report, time.strftime("%Y-%m-%d"), "pure-figures" if args.pure else "figures")
    return 0 if all(r.met is not False for r in rows) else 1


def write_readme(report: str, day: str, section: str) -> None:
    """Replace the text between ``<!-- SECTION:begin -->`` and ``<!-- SECTION:end -->``."""
    begin, end = f"<!-- {section}:begin -->", f"<!-- {section}:end -->"
    text = README.read_text() if README.exists() else "# kdump benchmarks\n"
    if begin not in text:
        text += f"\n{begin}\n{end}\n"
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    README.write_text(f"{head}{begin}\nRun of {day}.  {report}\n{end}{tail}")


if __name__ == "__main__":
    sys.exit(main())
