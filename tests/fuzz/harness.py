"""One fuzz case: copy a piece of the seed corpus, damage one file, run kdump's
subcommands on it in-process, and check the rules every run must keep.

The rules (issue 8): exit status 0, 1 or 2; no ``Traceback`` and no ``internal error``
on either stream; no hang (a per-run timer); the inputs unchanged (names, sizes,
mtimes and SHA-256 of everything under the case's log dir); ``--format json`` writes
one JSON object per line; a non-zero exit says something.

A quarter of the cases (:data:`KAFKA4_SHARE`) are of the Kafka 4.x family
(tests/fuzz/kafka4_family.py): a whole log dir of 4.x records (tests/support/report_fixture.py's),
one file damaged, and report, lag, schemas, dump --summary ... run on it.

Cases are numbered; case ``i`` of seed ``s`` is always the same case (its
:class:`random.Random` is seeded with ``"s:i"``), so any failure replays with
``python -m tests.fuzz.run --seed s --case i``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import shutil
import signal
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from . import mutate as m

#: CPU seconds one kdump run may use before it counts as a hang (CPU time: a machine busy
#: with other work does not bring a run nearer to it; issue 49)
RUN_TIMEOUT = float(os.environ.get("KDUMP_FUZZ_RUN_TIMEOUT", "60"))
#: a wall-clock guard on top, for a run blocked rather than spinning: this many times the
#: CPU budget (generous: a hang guard, not a speed claim)
WALL_FACTOR = 10

FORMATS = ["text", "json", "table"]
ENV_DROP = ("KDUMP_FORMAT", "KDUMP_DEBUG", "FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE",
            "TTY_INTERACTIVE", "CLICOLOR_FORCE")


class RunTimeout(BaseException):
    """Raised by the timer: not an Exception, so kdump's own handlers cannot swallow it."""


@dataclass
class Run:
    args: list[str]
    rc: int | None
    out: str
    err: str
    seconds: float
    timed_out: bool = False


@dataclass
class CaseResult:
    seed: str
    index: int
    target: str
    mutation: str
    runs: list[Run] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def report(self) -> str:
        lines = [f"case {self.seed}:{self.index}: {self.target}: {self.mutation}"]
        for f in self.failures:
            lines.append(f"  FAIL {f}")
        lines.append(f"  replay: python -m tests.fuzz.run --seed {self.seed} --case {self.index} "
                     "--keep /tmp/kdump-fuzz-case")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# running kdump
# ---------------------------------------------------------------------------------------
def _on_alarm(signum: int, frame: object) -> None:
    raise RunTimeout()


@contextmanager
def cpu_timer(seconds: float) -> Iterator[None]:
    """Raise :class:`RunTimeout` in the block once this process has used ``seconds`` of
    CPU (``ITIMER_PROF``), or ``WALL_FACTOR`` times that of wall time (``ITIMER_REAL``)."""
    old = signal.signal(signal.SIGPROF, _on_alarm), signal.signal(signal.SIGALRM, _on_alarm)
    try:
        signal.setitimer(signal.ITIMER_PROF, seconds)
        signal.setitimer(signal.ITIMER_REAL, seconds * WALL_FACTOR)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGPROF, old[0])
        signal.signal(signal.SIGALRM, old[1])


@contextmanager
def _env() -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in (*ENV_DROP, "COLUMNS", "LINES", "TERM")}
    for k in ENV_DROP:
        os.environ.pop(k, None)
    os.environ.update(COLUMNS="100", LINES="50", TERM="dumb")
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_kdump(args: list[str], timeout: float = RUN_TIMEOUT) -> Run:
    """``kdump ARGS`` through ``kdump.cli.main``, streams captured, under a timer."""
    import kdump.cli

    out, err = io.StringIO(), io.StringIO()
    rc: int | None = None
    timed_out = False
    t0 = time.perf_counter()
    try:
        with _env(), redirect_stdout(out), redirect_stderr(err), cpu_timer(timeout):
            try:
                kdump.cli.main(list(args))
                rc = 0
            except SystemExit as e:
                code = e.code
                rc = code if isinstance(code, int) else (0 if code is None else -1)
    except RunTimeout:
        timed_out = True
    return Run(list(args), rc, out.getvalue(), err.getvalue(), time.perf_counter() - t0, timed_out)


def run_kdump_process(args: list[str], timeout: float = RUN_TIMEOUT) -> Run:
    """``python -m kdump ARGS`` in a real process: the exit status and streams exactly as
    a shell sees them (the in-process runner cannot see an interpreter crash)."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ENV_DROP}
    env.update(COLUMNS="100", LINES="50", TERM="dumb")
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-m", "kdump", *args], capture_output=True,
                           text=True, timeout=timeout * WALL_FACTOR, env=env, errors="replace")
    except subprocess.TimeoutExpired as e:
        return Run(list(args), None, str(e.stdout or ""), str(e.stderr or ""),
                   time.perf_counter() - t0, timed_out=True)
    return Run(list(args), p.returncode, p.stdout, p.stderr, time.perf_counter() - t0)


def tree_state(root: Path) -> dict[str, tuple[object, ...]]:
    """Everything under ``root`` (not following links): kind, size, mtime, SHA-256."""
    state: dict[str, tuple[object, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in sorted(dirnames + filenames):
            p = os.path.join(dirpath, name)
            try:
                st = os.lstat(p)
            except OSError:
                state[p] = ("vanished",)
                continue
            if stat.S_ISLNK(st.st_mode):
                state[p] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                try:
                    with open(p, "rb") as fh:
                        digest = hashlib.sha256(fh.read()).hexdigest()
                except OSError:
                    digest = "<unreadable>"
                state[p] = ("file", st.st_size, st.st_mtime_ns, st.st_mode, digest)
            else:
                state[p] = ("other", stat.S_IFMT(st.st_mode), st.st_mtime_ns, st.st_mode)
    return state


def check_run(r: Run) -> list[str]:
    """The rules one run must keep."""
    what = " ".join(r.args)
    bad = []
    if r.timed_out:
        bad.append(f"hang: `kdump {what}` still running after {RUN_TIMEOUT:.0f} s of CPU")
        return bad
    if r.rc not in (0, 1, 2):
        bad.append(f"exit status {r.rc} from `kdump {what}`")
    for stream, text in (("stderr", r.err), ("stdout", r.out)):
        if "Traceback" in text:
            bad.append(f"traceback on {stream} of `kdump {what}`:\n{text[-3000:]}")
    if "internal error" in r.err:
        bad.append(f"internal error from `kdump {what}`: {r.err.strip()[-1500:]}")
    if r.rc in (1, 2) and not (r.out.strip() or r.err.strip()):
        bad.append(f"exit {r.rc} without a word from `kdump {what}`")
    if "--format" in r.args and r.args[r.args.index("--format") + 1] == "json" and r.rc in (0, 1):
        for n, line in enumerate(r.out.splitlines(), 1):
            try:
                json.loads(line)
            except ValueError:
                bad.append(f"--format json line {n} is not JSON in `kdump {what}`: {line[:200]!r}")
                break
    return bad


# ---------------------------------------------------------------------------------------
# corpus files
# ---------------------------------------------------------------------------------------
def kind_of(name: str) -> str:
    """What a corpus file is, from its name (the fuzzer's own reading, not kdump's)."""
    if name.endswith(".log"):
        return "log"
    if name.endswith(".checkpoint") and name[0].isdigit():
        return "kraft-snapshot"
    for suffix, kind in ((".index", "offset-index"), (".timeindex", "time-index"),
                         (".txnindex", "txn-index"), (".snapshot", "producer-snapshot")):
        if name.endswith(suffix):
            return kind
    return "text"


#: how often each kind of file is picked as the target
KIND_WEIGHTS = {"log": 10, "kraft-snapshot": 2, "offset-index": 2.5, "time-index": 2.5,
                "txn-index": 1.5, "producer-snapshot": 2, "text": 2}


@dataclass
class Corpus:
    root: Path
    files: list[Path]  # relative to root
    data: dict[Path, bytes]

    #: the Kafka 4.x log dir (tests/fuzz/corpus.py kafka4_root), when built
    kafka4: Corpus | None = None

    @classmethod
    def load(cls, root: Path) -> Corpus:
        from .corpus import kafka4_root

        files = sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file())
        corpus = cls(root, files, {p: (root / p).read_bytes() for p in files})
        k4 = kafka4_root(root)
        if k4.is_dir():
            corpus.kafka4 = cls.load(k4)
        return corpus

    def pick(self, rng: random.Random) -> Path:
        weights = [KIND_WEIGHTS[kind_of(p.name)] for p in self.files]
        return rng.choices(self.files, weights)[0]

    def donor(self, rng: random.Random, kind: str) -> bytes:
        same = [p for p in self.files if kind_of(p.name) == kind] or self.files
        return self.data[rng.choice(same)]


def mutate_file(rng: random.Random, name: str, data: bytes, donor: bytes) -> tuple[bytes, str]:
    kind = kind_of(name)
    if kind in ("log", "kraft-snapshot"):
        return m.mutate_log(rng, data, donor)
    if kind in m.ENTRY_LAYOUTS:
        return m.mutate_entries(rng, data, kind, donor)
    if kind == "producer-snapshot":
        return m.mutate_snapshot(rng, data, donor)
    return m.mutate_text(rng, data, donor)


ODD_FILE_NAMES = ["abc.log", "-1.log", "99999999999999999999999.log", "0.log", ".log",
                  "00000000000000000000.log.log", "ñ-ü.index", "a b.timeindex", "x\ny.log",
                  "00000000000000000000", "00000000000000000000.LOG", "00000000000000000000.log~",
                  "18446744073709551616.snapshot", "00000000000000000001-abc.checkpoint",
                  "00000000000000000000-0000000001-x.checkpoint.part"]
LEFTOVER_SUFFIXES = [".deleted", ".cleaned", ".swap", ".tmp", ".part"]
ODD_DIR_SUFFIXES = [".0123456789abcdef0123456789abcdef-delete",
                    ".0123456789abcdef0123456789abcdef-future",
                    ".0123456789abcdef0123456789abcdef-stray"]
ODD_DIR_NAMES = ["orders-x", "orders--1", "topic-99999999999999999999", "-0", "a-b-c-7",
                 "\u00e9\u00e8-3", "t-0-0"]


def rename_target(rng: random.Random, path: Path, part_dir: Path | None) -> tuple[Path, Path | None, str]:
    r = rng.random()
    if part_dir is not None and r < 0.3:
        new_dir = part_dir.with_name(rng.choice(
            [part_dir.name + s for s in ODD_DIR_SUFFIXES] + ODD_DIR_NAMES))
        part_dir.rename(new_dir)
        return new_dir / path.name, new_dir, f"partition dir renamed to {new_dir.name!r}"
    if r < 0.65:
        new = path.with_name(path.name + rng.choice(LEFTOVER_SUFFIXES))
    else:
        new = path.with_name(rng.choice(ODD_FILE_NAMES))
    path.rename(new)
    return new, part_dir, f"renamed to {new.name!r}"


def fs_trouble(rng: random.Random, path: Path) -> str:
    """Replace the target by something that is not a regular file."""
    op = rng.choice(["dir", "loop", "dangling", "fifo", "chmod", "devnull", "self-link"])
    path.unlink()
    if op == "dir":
        path.mkdir()
        (path / "inner.log").write_bytes(b"\x00" * 20)
        return "replaced by a directory"
    if op == "loop":
        other = path.with_name(path.name + ".loop")
        os.symlink(other.name, path)
        os.symlink(path.name, other)
        return "symlink loop"
    if op == "dangling":
        os.symlink("does-not-exist", path)
        return "dangling symlink"
    if op == "fifo":
        os.mkfifo(path)
        return "a FIFO (nobody writing)"
    if op == "chmod":
        path.write_bytes(b"\x00" * 64)
        path.chmod(0)
        return "mode 000"
    if op == "devnull":
        os.symlink("/dev/zero", path)
        return "symlink to /dev/zero"
    os.symlink(".", path)
    return "symlink to its own directory"


# ---------------------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------------------
def _fmt(rng: random.Random) -> list[str]:
    return ["--format", rng.choice(FORMATS)]


def _mbb(rng: random.Random) -> list[str]:
    return ["--max-batch-bytes", rng.choice(["1M", "64K", "4M"])] if rng.random() < 0.3 else []


def build_command(rng: random.Random, cmd: str, case_dir: Path, logdir: Path,
                  part: Path | None, target: Path) -> list[str]:
    r = rng.random()
    if r < 0.55 and part is not None:
        path = part
    elif r < 0.85:
        path = target
    else:
        path = logdir
    if cmd == "dump":
        opts: list[str] = []
        for flag, p in (("--deep-iteration", 0.5), ("--print-data-log", 0.5), ("--strict", 0.15),
                        ("--skip-record-metadata", 0.1), ("--verify-index-only", 0.1),
                        ("--index-sanity-check", 0.08)):
            if rng.random() < p:
                opts.append(flag)
        if rng.random() < 0.1:
            opts += ["--max-bytes", str(rng.choice([0, 1, 17, 61, 500, 5000, 2147483647]))]
        if rng.random() < 0.1:
            opts += ["--max-message-size", str(rng.choice([0, 61, 100, 1 << 20]))]
        if rng.random() < 0.15:
            opts += ["--value-decoder", rng.choice(["hex", "base64", "json", "int", "long", "none"])]
        if rng.random() < 0.08:
            opts.append(rng.choice(["--offsets-decoder", "--transaction-log-decoder",
                                    "--cluster-metadata-decoder", "--share-group-state-decoder",
                                    "--remote-log-metadata-decoder"]))
        elif rng.random() < 0.05:
            opts.append("--summary")
        fmt = _fmt(rng)
        if fmt[1] == "json" and rng.random() < 0.5:
            opts += ["--payload-encoding", rng.choice(["utf8", "base64", "hex"])]
        return ["dump", *opts, *fmt, *_mbb(rng), str(path)]
    if cmd == "verify-crc":
        opts = [f for f, p in (("--shallow", 0.25), ("--strict", 0.15)) if rng.random() < p]
        return ["verify-crc", *opts, *_fmt(rng), *_mbb(rng), str(path)]
    if cmd == "verify-index":
        opts = []
        if rng.random() < 0.2:
            opts.append("--sanity-only")
        elif rng.random() < 0.3:
            opts += ["--rebuild-into", str(case_dir / "rebuilt")]
        if rng.random() < 0.1:
            opts += ["--index-interval-bytes", str(rng.choice([1, 256, 4096]))]
        return ["verify-index", *opts, *_fmt(rng), str(path)]
    if cmd == "size-report":
        opts = ["--by", rng.choice(["topic", "partition", "segment"])]
        if rng.random() < 0.2:
            opts += ["--top", str(rng.choice([0, 1, 3]))]
        if rng.random() < 0.25:
            opts.append("--shallow")
        return ["size-report", *opts, *_fmt(rng), *_mbb(rng), str(path)]
    if cmd in COMMANDS:  # a command added as one entry (see COMMANDS)
        return COMMANDS[cmd][1](rng, case_dir, logdir, path)
    if cmd in ("find-offset", "find-time"):
        where = str(part if part is not None and rng.random() < 0.7 else target)
        if cmd == "find-offset":
            q = str(rng.choice([0, 1, 5, 13, 40, 55, 120, 161, 200, -1, 2**63 - 1]))
        else:
            q = str(rng.choice([0, w_ts(), w_ts() + 30, w_ts() + 10**6, -1, 2**63 - 1]))
            if rng.random() < 0.2:
                q = rng.choice(["2023-11-14T22:13:20Z", "2023-11-14T22:13:20.010+02:00"])
        opts = ["--print-data-log"] if rng.random() < 0.4 else []
        return [cmd, *opts, *_fmt(rng), *_mbb(rng), "--", where, q]
    return ["coordinator-partition", *_fmt(rng),
            "--partitions", str(rng.choice([1, 50, 2147483647])), "--",
            rng.choice(["g", "", "\u00e9t\u00e9", "x" * 300, "-1"])]


def w_ts() -> int:
    return 1700000000000


#: a command that takes files, added to the fuzzer as ONE entry: name -> (weight, its
#: arguments from (rng, case dir, log dir, the path chosen: partition, file or log dir)).
#: The ``report`` command, for instance::
#:
#:     COMMANDS["report"] = (2, lambda rng, case_dir, logdir, path: [
#:         "report", "--output", str(case_dir / "report.html"), str(path)])
#:
#: An output it writes goes under ``case_dir`` (outside the watched log dir).
COMMANDS: dict[str, tuple[float, Callable[[random.Random, Path, Path, Path], list[str]]]] = {}


def _report_args(rng: random.Random, case_dir: Path, logdir: Path, path: Path) -> list[str]:
    """``kdump report`` (branch report): the HTML page to the case directory, or JSON."""
    opts = ["--top", str(rng.choice([1, 3, 20]))] if rng.random() < 0.3 else []
    if rng.random() < 0.5:
        return ["report", "--format", "json", *opts, *_mbb(rng), str(path)]
    return ["report", "--output", str(case_dir / "report.html"), *opts, *_mbb(rng), str(path)]


def _have(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


if _have("kdump.ops.report"):  # branch report: its inputs are whole log dirs and files
    COMMANDS["report"] = (1.5, _report_args)

FILE_COMMANDS = ["dump", "verify-crc", "verify-index", "size-report", "find-offset", "find-time",
                 *COMMANDS]
COMMAND_WEIGHTS = [4, 3, 3, 2, 1.5, 1.5, *(w for w, _ in COMMANDS.values())]


# ---------------------------------------------------------------------------------------
# the Kafka 4.x family (tests/fuzz/kafka4_family.py)
# ---------------------------------------------------------------------------------------
#: share of the cases that are of the Kafka 4.x family (drawn from their own Random, so
#: the other cases are the same with and without it)
KAFKA4_SHARE = float(os.environ.get("KDUMP_FUZZ_KAFKA4_SHARE", "0.25"))


# ---------------------------------------------------------------------------------------
# one case
# ---------------------------------------------------------------------------------------
def run_case(corpus: Corpus, seed: str, index: int, workdir: Path, *, keep: bool = False,
             commands: int = 2) -> CaseResult:
    if corpus.kafka4 is not None and \
            random.Random(f"{seed}:{index}:family").random() < KAFKA4_SHARE:
        from .kafka4_family import run_kafka4_case

        return run_kafka4_case(corpus.kafka4, seed, index, workdir, keep=keep,
                               commands=commands)
    rng = random.Random(f"{seed}:{index}")
    rel = corpus.pick(rng)
    case_dir = workdir / f"case-{index}"
    if case_dir.exists():
        _rmtree(case_dir)
    logdir = case_dir / "logdir"
    logdir.mkdir(parents=True)
    # the log-dir root files, and the partition holding the target (or one partition)
    for p in corpus.files:
        if len(p.parts) == 1:
            (logdir / p).write_bytes(corpus.data[p])
    part_name = rel.parts[0] if len(rel.parts) > 1 else rng.choice(
        sorted({p.parts[0] for p in corpus.files if len(p.parts) > 1}))
    for p in corpus.files:
        if p.parts[0] == part_name and len(p.parts) > 1:
            (logdir / p).parent.mkdir(exist_ok=True)
            (logdir / p).write_bytes(corpus.data[p])
    part: Path | None = logdir / part_name
    target = logdir / rel
    kind = kind_of(rel.name)
    data, desc = mutate_file(rng, rel.name, corpus.data[rel], corpus.donor(rng, kind))
    target.write_bytes(data)
    if len(rel.parts) > 1 and rng.random() < 0.15:  # and a second file of the partition
        others = [p for p in corpus.files if p.parts[0] == rel.parts[0] and p != rel]
        if others:
            rel2 = rng.choice(others)
            data2, d2 = mutate_file(rng, rel2.name, corpus.data[rel2],
                                    corpus.donor(rng, kind_of(rel2.name)))
            (logdir / rel2).write_bytes(data2)
            desc += f" ; {rel2.name}: {d2}"
    extra = rng.random()
    if extra < 0.06:
        target, part, d = rename_target(rng, target, part if len(rel.parts) > 1 else None)
        desc += f" ; {d}"
    elif extra < 0.09:
        desc += f" ; {fs_trouble(rng, target)}"
    res = CaseResult(seed, index, str(rel), desc)
    runs = (FILE_COMMANDS if rng.random() < 0.1 else
            rng.choices(FILE_COMMANDS, COMMAND_WEIGHTS, k=commands))
    if rng.random() < 0.01:
        runs = [*runs, "coordinator-partition"]
    before = tree_state(logdir)
    in_process = rng.random() >= 0.03  # a few cases run kdump as a real process
    for cmd in runs:
        args = build_command(rng, cmd, case_dir, logdir, part, target)
        r = run_kdump(args) if in_process else run_kdump_process(args)
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


def _rmtree(path: Path) -> None:
    def onerror(func: object, p: str, exc: object) -> None:
        try:
            os.chmod(p, 0o700)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass

    for dirpath, _dirnames, filenames in os.walk(path):
        for name in filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                try:
                    os.chmod(p, 0o600)
                except OSError:
                    pass
    shutil.rmtree(path, onerror=onerror)
