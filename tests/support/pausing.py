"""A real ``kdump`` process stopped mid-run at a point the test names, so that a signal,
a ``kill -9`` or a full disk lands mid-run however fast (or loaded) the machine is.
Polling for a file the run writes and then acting races the run's end: a 4 MiB repair
copy once finished between the poll and the filler (CI, stop 50)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import subprocess_env

#: ``python -c`` this, then kdump's arguments: a kdump that stops until the test says go
#: (a file ``go`` in KDUMP_TEST_PAUSE_AT; it writes ``paused`` there first), at the point
#: KDUMP_TEST_PAUSE_AFTER names:
#:
#: - ``estimate``: right after the free space is read for the pre-flight estimate;
#: - ``spool``: in a ``dump --jobs N`` worker, once a file's text is spooled (the workers
#:   are forked with the patch; the work sent to them is pickled by name, so the wrapper
#:   takes the name of the function it wraps);
#: - any other value, a glob: after the first staged file whose shown path matches it is
#:   finished (in a worker too, where the work writes there).
#:
#: Without a ``go`` it waits 60 s, then goes on.
_PAUSING = (
    "import fnmatch, os, sys, time\n"
    "import kdump.output as out\n"
    "_at, _after = os.environ['KDUMP_TEST_PAUSE_AT'], os.environ['KDUMP_TEST_PAUSE_AFTER']\n"
    "def _pause():\n"
    "    if os.path.exists(os.path.join(_at, 'paused')):\n"
    "        return\n"
    "    open(os.path.join(_at, 'paused'), 'w').close()\n"
    "    deadline = time.monotonic() + 60\n"
    "    while not os.path.exists(os.path.join(_at, 'go')) and time.monotonic() < deadline:\n"
    "        time.sleep(0.01)\n"
    "if _after == 'estimate':\n"
    "    _free = out.free_bytes\n"
    "    def _free_then_pause(path):\n"
    "        n = _free(path)\n"
    "        _pause()\n"
    "        return n\n"
    "    out.free_bytes = _free_then_pause\n"
    "elif _after == 'spool':\n"
    "    import kdump.ops.dump.parallel as par\n"
    "    _dump_one = par._dump_one\n"
    "    def _dump_then_pause(*args):\n"
    "        r = _dump_one(*args)\n"
    "        _pause()\n"
    "        return r\n"
    "    _dump_then_pause.__module__ = _dump_one.__module__\n"
    "    _dump_then_pause.__qualname__ = _dump_one.__qualname__\n"
    "    par._dump_one = _dump_then_pause\n"
    "else:\n"
    "    _finish = out.StagedFile.finish\n"
    "    def _finish_then_pause(self):\n"
    "        r = _finish(self)\n"
    "        if fnmatch.fnmatch(self.shown, _after):\n"
    "            _pause()\n"
    "        return r\n"
    "    out.StagedFile.finish = _finish_then_pause\n"
    "sys.argv[0] = 'kdump'\n"
    "from kdump.cli import main\n"
    "sys.exit(main())\n")


def start_paused(args: list[object], after: str, at: Path, env: dict[str, str] | None = None,
                 stdout: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """``kdump ARGS`` stopped mid-run (see _PAUSING), once it is there."""
    env = {**(env or subprocess_env()), "KDUMP_TEST_PAUSE_AT": str(at),
           "KDUMP_TEST_PAUSE_AFTER": after}
    proc = subprocess.Popen([sys.executable, "-c", _PAUSING, *map(str, args)],
                            stdout=stdout, stderr=subprocess.PIPE, env=env)
    wait_for(proc, at, "paused", str(args[0]))
    return proc


def wait_for(proc: subprocess.Popen[bytes], base: Path, pattern: str, what: str) -> None:
    """Until a file matching ``pattern`` (a glob under ``base``) exists: mid-run."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(p.is_file() for p in base.glob(pattern)):
            return
        assert proc.poll() is None, (what, proc.communicate())
        time.sleep(0.01)
    raise AssertionError(f"{what}: never started writing")
