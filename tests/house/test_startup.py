"""A command loads only what it uses (issue 26).

Each case runs the real command line in a child process and reads ``sys.modules`` when
that process exits: ``kdump --help`` loads click and the command-line modules, none of
the core's floors; a plain ``kdump verify-crc`` (no ``--jobs``: kdump's own choice of
jobs, which starts no pool for a segment of a few MB) loads neither rich, nor
multiprocessing, concurrent.futures or pyspark, nor the other commands' modules.  The
times are bench/startup_bench.py's business, not a test's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kdump.parallel import MAX_AHEAD, MIN_POOL_BYTES, DefaultJobs, default_jobs, pool_pays
from tests.conftest import subprocess_env
from tests.support import writer as w

#: runs kdump's console entry with argv[1:], then writes sys.modules (JSON) to stderr
CHILD = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules))))\n"
    "from kdump.cli import main\n"
    "main(sys.argv[1:])\n"
)

#: never loaded by a command that does not use them
HEAVY = {"rich", "multiprocessing", "concurrent.futures", "pyspark", "pyarrow"}
#: the core's floors above the ground (tests/house/test_layering.py FLOORS), and the output model
CORE = {"kdump.protocol", "kdump.records", "kdump.files", "kdump.decoders", "kdump.ops",
        "kdump.metadata", "kdump.render", "kdump.spark", "kdump.model", "kdump.parallel",
        "kdump.source", "kdump.codecs"}


def run(args: list[str]) -> tuple[int, str, set[str], str]:
    """Exit code, stdout, the modules loaded and stderr of ``kdump ARGS`` in a child
    process."""
    p = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True,
                       env=subprocess_env(), timeout=120)
    err, _, mods = p.stderr.rpartition("\nMODULES ")
    assert mods, p.stderr
    return p.returncode, p.stdout, set(json.loads(mods)), err


def loaded(modules: set[str], names: set[str]) -> list[str]:
    return sorted(m for m in modules if m in names or any(m.startswith(n + ".") for n in names))


@pytest.fixture(scope="module")
def segment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One 9 MB segment: over SPLIT_BYTES (4 MiB), so ``--jobs 2`` reads it as ranges in
    a pool, and under MIN_POOL_BYTES, so kdump's own choice of jobs does not."""
    root = tmp_path_factory.mktemp("startup")
    w.big_segment(root / "big-0", 9 << 20)
    return root / "big-0" / "00000000000000000000.log"


def test_help_loads_no_core_module() -> None:
    code, out, mods, _ = run(["--help"])
    assert code == 0 and out.startswith("Usage: kdump [OPTIONS] COMMAND [ARGS]...\n")
    assert "  verify-crc " in out and "  spark " in out
    assert loaded(mods, HEAVY | CORE) == []
    assert "click" in mods


def test_version_loads_no_command_module() -> None:
    code, out, mods, _ = run(["--version"])
    assert (code, out) == (0, "kdump, version 0.1.0\n")
    assert loaded(mods, HEAVY | CORE) == []
    assert sorted(m for m in mods if m.startswith("kdump.cli.")) == ["kdump.cli.exitcodes"]


#: runs the console script's entry (kdump/__main__.py, as pyproject.toml names it) with
#: argv[1:], then writes sys.modules (JSON) to stderr
ENTRY = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules))))\n"
    "sys.argv = ['kdump', *sys.argv[1:]]\n"
    "from kdump.__main__ import main\n"
    "sys.exit(main())\n"
)


def run_entry(args: list[str]) -> tuple[int, str, set[str], str]:
    p = subprocess.run([sys.executable, "-c", ENTRY, *args], capture_output=True, text=True,
                       env=subprocess_env(), timeout=120)
    err, _, mods = p.stderr.rpartition("\nMODULES ")
    assert mods, p.stderr
    return p.returncode, p.stdout, set(json.loads(mods)), err


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_console_version_loads_no_click_and_no_core(flag: str) -> None:
    """``kdump --version`` alone is answered by the entry point (issue 33): the package's
    __init__ and kdump/__main__.py, no click, no typing, dataclasses or enum of kdump's
    own (the interpreter's site may have loaded some), the line click would print."""
    code, out, mods, err = run_entry([flag])
    assert (code, out, err) == (0, "kdump, version 0.1.0\n", "")
    assert sorted(m for m in mods if m == "kdump" or m.startswith("kdump.")) == [
        "kdump", "kdump.__main__", "kdump.limits", "kdump.version"]
    assert "click" not in mods and loaded(mods, HEAVY) == []
    # the package imports none of these itself: whatever of them is loaded, the bare
    # interpreter loads too
    bare = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sorted("
                           "sys.modules)))"], capture_output=True, text=True,
                          env=subprocess_env(), timeout=60)
    extra = {"typing", "dataclasses", "enum", "inspect"} & (mods - set(json.loads(bare.stdout)))
    assert extra == set()


def test_console_version_with_other_arguments_is_clicks() -> None:
    """Anything but the one flag goes to the command line: click's eager --version, its
    usage errors."""
    code, out, mods, err = run_entry(["--version", "--help"])
    assert (code, out) == (0, "kdump, version 0.1.0\n") and "click" in mods
    code, out, mods, err = run_entry(["--versio"])
    assert code == 2 and "No such option '--versio'" in err


def test_console_version_to_a_full_disk_is_one_line() -> None:
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-c", ENTRY, "--version"], stdout=full,
                           stderr=subprocess.PIPE, text=True, env=subprocess_env(), timeout=60)
    err = p.stderr.rpartition("\nMODULES ")[0]
    assert (p.returncode, err) == (2, "kdump: cannot write to standard output: No space left "
                                      "on device\n")


def test_plain_verify_crc_loads_what_it_uses(segment: Path) -> None:
    code, out, mods, err = run(["verify-crc", str(segment)])
    batches = err.split(", ")[1].split()[0]
    assert (code, out, err) == (0, "", f"verify-crc: 1 file, {batches} batches: clean\n")
    assert int(batches) > 1000
    assert loaded(mods, HEAVY) == []
    # only its own command module, and no message table, decoder, renderer of rows or
    # range splitting
    assert sorted(m for m in mods if m.startswith("kdump.cli.")) == [
        "kdump.cli.exitcodes", "kdump.cli.options", "kdump.cli.progress", "kdump.cli.verify_crc"]
    assert loaded(mods, {"kdump.protocol", "kdump.decoders", "kdump.metadata",
                         "kdump.files.splits", "kdump.render.table", "kdump.render.rows"}) == []
    assert {"kdump.ops.verify_crc", "kdump.records.v2"} <= mods


def test_verify_crc_with_jobs_asked_for_uses_a_pool(segment: Path) -> None:
    """The check above can fail: ``--jobs 2`` on the same segment starts the pool."""
    code, out, mods, err = run(["verify-crc", "--jobs", "2", str(segment)])
    assert (code, out) == (0, "") and err.endswith(" batches: clean\n")
    assert {"multiprocessing", "concurrent.futures", "kdump.files.splits"} <= mods


def test_verify_index_starts_a_pool_only_for_work_that_pays(tmp_path: Path) -> None:
    """Without --jobs, verify-index on a small log dir of several partitions reads them
    in this process (no pool, no multiprocessing); --jobs 2 asked for does start one,
    and both say the same."""
    root = tmp_path / "logdir"
    w.big_segment(root / "a-0", 1 << 20)
    w.big_segment(root / "b-0", 1 << 20)
    code, out, mods, err = run(["verify-index", str(root)])
    assert code == 0 and loaded(mods, {"multiprocessing", "concurrent.futures"}) == []
    code2, out2, mods2, err2 = run(["verify-index", "--jobs", "2", str(root)])
    assert (code2, out2, err2) == (code, out, err)
    assert {"multiprocessing", "concurrent.futures"} <= mods2


def test_every_command_names_its_module() -> None:
    """kdump.cli.COMMAND_MODULES names, for every command, the module defining it, and
    every command a module of kdump/cli defines (a ``click.Command`` at module level, not
    a subcommand of a group) is in it."""
    import importlib

    import click

    from kdump.cli import COMMAND_MODULES, cli

    ctx = click.Context(cli)
    names = cli.list_commands(ctx)
    assert sorted(COMMAND_MODULES) == names
    for name in names:
        cmd = cli.get_command(ctx, name)
        assert cmd is not None and cmd.callback is not None
        assert cmd.callback.__module__ == f"kdump.cli.{COMMAND_MODULES[name]}", name
    cli_dir = Path(__file__).resolve().parents[2] / "kdump" / "cli"
    commands: list[tuple[str, click.Command]] = []
    for path in sorted(cli_dir.glob("*.py")):
        if path.stem in ("__init__", "spark_submit"):
            continue
        mod = importlib.import_module(f"kdump.cli.{path.stem}")
        commands += [(path.stem, v) for v in vars(mod).values() if isinstance(v, click.Command)
                     and v.callback is not None and v.callback.__module__ == mod.__name__]
    subcommands = {id(c) for _, g in commands if isinstance(g, click.Group)
                   for c in g.commands.values()}
    tops = {c.name: m for m, c in commands if id(c) not in subcommands}
    assert tops == COMMAND_MODULES


def test_a_mistyped_command_is_named_with_the_nearest_one() -> None:
    code, out, _, err = run(["dum", "x"])
    assert (code, out) == (2, "")
    assert err.endswith("Error: No such command 'dum'. Did you mean 'dump'?\n")


def test_pool_pays_only_for_enough_work_when_kdump_chose_the_jobs() -> None:
    assert isinstance(default_jobs(), DefaultJobs) and default_jobs() >= 1
    items = ["walk-problem", 10, 20, "other", 30]

    def size(x: object) -> int:
        return x << 20 if isinstance(x, int) else 0

    # the user's --jobs: always a pool above 1, never at 1; items untouched
    for jobs, want in ((2, True), (1, False)):
        pays, it = pool_pays(items, jobs, size)
        assert (pays, list(it)) == (want, items)
    # kdump's choice: 60 MiB of work does not pay, 64 MiB does; every item comes back
    pays, it = pool_pays(items, DefaultJobs(2), size)
    assert (pays, list(it)) == (False, items)
    more = [*items, 4, "tail", 1]
    pays, it = pool_pays(more, DefaultJobs(2), size)
    assert (pays, list(it)) == (True, more)
    assert MIN_POOL_BYTES == 64 << 20
    assert pool_pays(more, DefaultJobs(1), size)[0] is False
    # many small files are work enough, and the look-ahead stays bounded
    many = ["p"] * (MAX_AHEAD - 1) + [0, "after"]
    src = iter(many)
    pays, _ = pool_pays(src, DefaultJobs(2), size)
    assert pays is True and list(src) == ["after"]
    pays, it = pool_pays(many, DefaultJobs(2), size)
    assert pays is True and list(it) == many


@pytest.mark.parametrize(("cores", "load", "jobs"), [
    (2, 0.0, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 1.0, 1), (2, 7.5, 1),
    (8, 0.0, 8), (8, 3.2, 5), (8, 12.0, 1), (1, 0.0, 1),
])
def test_kdump_starts_a_worker_per_idle_core(monkeypatch: pytest.MonkeyPatch, cores: int,
                                             load: float, jobs: int) -> None:
    """Without --jobs: the cores less the 1-minute load average (a busy second core is
    not one a pool can use); --jobs is bounded by the cores, whatever the load."""
    from kdump import parallel

    monkeypatch.setattr(parallel, "cores", lambda: cores)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (load, 0.0, 0.0))
    got = parallel.default_jobs()
    assert isinstance(got, DefaultJobs) and got == jobs
    assert parallel.max_jobs() == 4 * cores


def test_spark_submit_entry_point_is_named_without_importing_the_cli() -> None:
    """``python -m kdump.spark.submit --path`` names kdump/cli/spark_submit.py (the Spark
    floor does not import the CLI); that file, run as spark-submit runs it, is ``kdump
    spark``."""
    import kdump.cli.spark_submit as entry

    env = subprocess_env()
    p = subprocess.run([sys.executable, "-m", "kdump.spark.submit", "--path"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (0, f"{entry.__file__}\n", "")
    p = subprocess.run([sys.executable, entry.__file__, "--help"], capture_output=True,
                       text=True, env=env, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("Usage: kdump spark [OPTIONS] COMMAND")
    p = subprocess.run([sys.executable, "-m", "kdump.spark.submit", "verify-crc", "x"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"usage: python -m kdump.spark.submit --path  (then: spark-submit "
                        f"[spark options] {entry.__file__} COMMAND ARGS...)\n")
