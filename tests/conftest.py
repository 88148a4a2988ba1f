"""Shared fixtures for the ``kdump dump`` tests.

* ``--update-golden``: rewrite ``golden/dump/*`` instead of comparing against it.
* ``kdump``: run the real command line in-process (``kdump.cli.main``) with stdout and
  stderr captured, from a chosen working directory, and check that no input file was
  changed by the run (size, mtime and SHA-256 of every file under the watched paths).
* ``sample_dir``: the deterministic sample log dir of ``tests/writer.py`` (built once).
* ``@pytest.mark.both_modes``: a test of CLI cases runs twice through the ``kdump``
  fixture, with the native extension and on the pure-Python code
  (``KDUMP_PURE_PYTHON=1``, in a subprocess: the choice is made at import), holding
  both to the same exact output.
* ``KDUMP_REQUIRE_NATIVE=1`` (.ci/run sets it): the session fails at once when
  ``kdump._speedups`` cannot be imported, instead of the native tests skipping.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
from collections.abc import Callable, Iterable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import writer as w

REPO = Path(__file__).resolve().parent.parent
GOLDEN_DIR = REPO / "golden" / "dump"



def _hypothesis_times_nothing() -> None:
    """No test measures speed (issue 49): hypothesis's per-example deadline (200 ms by
    default) and its too-slow health check fail a test by the clock, which a machine
    busy with other work runs slow.  The default profile here has neither; a test's
    own ``@settings`` only adds to it."""
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:
        return
    settings.register_profile("kdump", deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("kdump")


_hypothesis_times_nothing()

#: environment variables that would change kdump's or rich's output
_ENV_DROP = ("KDUMP_FORMAT", "KDUMP_DEBUG", "FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE",
             "TTY_INTERACTIVE", "CLICOLOR_FORCE", "JUPYTER_COLUMNS", "JUPYTER_LINES")


def _sigint_as_on_a_terminal() -> None:
    """The Ctrl-C tests send SIGINT to kdump processes they start.  A shell that starts
    a job in the background (``cmd &`` in a script, nohup) sets SIGINT to ignored, and
    an ignored signal stays ignored across fork and exec: those kdump processes would
    not see the signal at all.  A handled one is reset to the default on exec, so
    handling it here gives every process the tests start what a terminal gives it."""
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


_sigint_as_on_a_terminal()


def _require_native() -> None:
    """Under ``KDUMP_REQUIRE_NATIVE=1`` (CI) a missing or broken extension fails the run:
    the tests that compare it with its twins would otherwise skip and CI pass."""
    if os.environ.get("KDUMP_REQUIRE_NATIVE", "0") in ("", "0"):
        return
    import importlib

    import kdump

    try:
        native = importlib.import_module("kdump._speedups")
    except ImportError as e:
        pytest.exit(f"KDUMP_REQUIRE_NATIVE=1 but kdump._speedups cannot be imported: {e} "
                    "(build it: python setup.py build_ext --inplace, or pip install -e .)",
                    returncode=3)
    # another tree's build (an editable install's finder answers for a module the
    # package's own directory lacks) is not this tree's extension
    here = Path(kdump.__file__).resolve().parent
    if Path(str(native.__file__)).resolve().parent != here:
        pytest.exit(f"KDUMP_REQUIRE_NATIVE=1 but kdump._speedups comes from {native.__file__}, "
                    f"not from {here} (build it there: python setup.py build_ext --inplace)",
                    returncode=3)


def pytest_configure(config: pytest.Config) -> None:
    _require_native()


#: the test files (paths under tests/) that take longest (measured one by one with ``--durations``; the first
#: two each hold one test of minutes: the fuzzer's fixed budget, export against Spark's):
#: run first, so that under ``-n 2 --dist loadfile`` (.ci/run) no long file is left to
#: start last while the other worker sits idle
SLOWEST_FIRST = ("hostile/test_fuzz.py", "ops/export/test_export.py", "spark/test_spark_standalone.py",
                 "spark/test_spark.py", "records/test_decompression_bombs.py", "remote/test_remote.py",
                 "ops/report/test_report.py", "hostile/test_hostile.py", "hostile/test_bounded.py",
                 "decoders/test_kafka4_records.py")
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}

    def key(item: pytest.Item) -> int:  # by path under tests/ (a name may repeat in two folders)
        path = Path(item.path).resolve()
        return rank.get(path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else "",
                        len(rank))

    items.sort(key=key)  # stable: file order kept


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("both_modes") and "kdump" in metafunc.fixturenames:
        metafunc.parametrize("kdump", ["native", "pure"], indirect=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden/dump/* from the current output instead of comparing",
    )


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@dataclass
class Result:
    rc: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()


def tree_state(paths: Iterable[Path]) -> dict[str, tuple[int, int, str]]:
    """(size, mtime_ns, sha256) of every file under ``paths`` (files or directories)."""
    state: dict[str, tuple[int, int, str]] = {}
    for root in paths:
        root = Path(root)
        if not root.exists() and not root.is_symlink():
            continue
        files = [root] if not root.is_dir() else sorted(p for p in root.rglob("*"))
        for p in files:
            if p.is_symlink() or not p.is_file():
                continue
            st = p.stat()
            try:
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
            except PermissionError:
                digest = "<unreadable>"
            state[str(p)] = (st.st_size, st.st_mtime_ns, digest)
        if root.is_dir():
            state[str(root) + "/<names>"] = (0, 0, "\n".join(sorted(
                str(p.relative_to(root)) for p in root.rglob("*"))))
    return state


def run_in_process(args: list[str], cwd: Path | None = None) -> Result:
    """``kdump ARGS`` through the console entry point, output captured."""
    import kdump.cli

    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    rc: int
    try:
        if cwd is not None:
            os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                kdump.cli.main(list(args))
                rc = 0
            except SystemExit as e:
                code = e.code
                rc = code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        os.chdir(old)
    return Result(rc, out.getvalue(), err.getvalue())


KdumpRunner = Callable[..., Result]


def run_pure(args: list[str], cwd: Path | None = None) -> Result:
    """``kdump ARGS`` on the pure-Python code: ``python -m kdump`` with
    ``KDUMP_PURE_PYTHON=1`` (the extension is chosen at import, so not in-process)."""
    import subprocess

    env = dict(os.environ, KDUMP_PURE_PYTHON="1", PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    p = subprocess.run([sys.executable, "-m", "kdump", *args], cwd=cwd, env=env,
                       capture_output=True, stdin=subprocess.DEVNULL)
    return Result(p.returncode, p.stdout.decode("utf-8", "surrogateescape"),
                  p.stderr.decode("utf-8", "surrogateescape"))


@pytest.fixture
def kdump(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> KdumpRunner:
    """``kdump("dump", "x.log", cwd=dir, watch=[paths])`` -> Result.

    Tables come out at 100 columns without colour.  Every file under ``watch`` (default:
    ``cwd``, or nothing) must be byte-for-byte unchanged, with the same mtime, afterwards.
    In a test marked ``both_modes`` it is parametrized: ``native`` runs in-process (with
    the extension when it is built), ``pure`` in a subprocess on the pure-Python code.
    """
    for name in _ENV_DROP:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("LINES", "50")
    monkeypatch.setenv("TERM", "dumb")
    runner = run_pure if getattr(request, "param", "native") == "pure" else run_in_process

    def run(*args: str | os.PathLike[str], cwd: Path | None = None,
            watch: Iterable[Path] | None = None) -> Result:
        watched = list(watch) if watch is not None else ([Path(cwd)] if cwd is not None else [])
        before = tree_state(watched)
        result = runner([str(a) for a in args], cwd)
        after = tree_state(watched)
        assert after == before, "kdump changed its inputs"
        assert "Traceback" not in result.err, result.err
        return result

    return run


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/writer.py's sample log dir (deterministic); never modified by tests."""
    root = tmp_path_factory.mktemp("sample") / "logdir"
    w.write_sample_logdir(root)
    return root


def subprocess_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _ENV_DROP}
    env["COLUMNS"] = "100"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


KDUMP_BIN = Path(sys.executable).with_name("kdump")


@pytest.fixture(scope="session")
def golden_fixture(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``golden_fixture(name)``: the directory of golden case ``name``, built once."""
    from tests.support import golden_util as g

    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            d = tmp_path_factory.mktemp(f"golden-{name}") / name
            d.mkdir()
            g.case(name).build(d)
            built[name] = d
        return built[name]

    return get
