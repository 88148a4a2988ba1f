"""The schema bombs (tests/fuzz/bombs.py) through the CLI, as a user meets them
(issue #27 item 6): a log dir whose schema registry's topic holds a 1 KB Avro schema of
a million fields, Protobuf messages 300 deep, a message holding itself, a ``.proto``
importing itself, JSON Schema ``$ref`` cycles, and a data topic whose records name
them; ``kdump dump``, ``kdump schemas`` and ``kdump report`` run on it as real processes.

Each run: exit status 0 or 1 (the findings are data), no traceback, every line on
stderr one message, and within a CPU time and a peak RSS bound (the child's ``ru_utime``
+ ``ru_stime`` and ``ru_maxrss``: CPU time, as a machine busy with other work does not
add to it; the wall clock is only a generous guard against a hang).
A second log dir holds a 100 MB ``_schemas`` value: more than a batch may take, so it
is a finding (its records are not read), not 100 MB in memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from kdump.schemaregistry.wire import frame
from tests.fuzz.bombs import MEGABYTE_OF_INTS, bombs
from tests.support import registry_writer as rw
from tests.support import writer as w

REPO = Path(__file__).resolve().parents[2]
#: the bounds every run keeps: CPU seconds, and peak RSS in MiB (kdump's documented bound
#: is 300 MB at the default --max-batch-bytes, up to five times that printing records)
MAX_SECONDS = 60.0
MAX_RSS_MIB = 600
#: the wall-clock guard against a hang (killed after), this many times MAX_SECONDS
WALL_FACTOR = 10


@dataclass
class Proc:
    args: list[str]
    rc: int
    out: str
    err: str
    killed: bool
    cpu_seconds: float
    rss_mib: float


#: runs kdump and writes its peak RSS (KiB) and CPU seconds to argv[1]: a small process in
#: between, as a child forked straight from pytest would count pytest's own memory in its
#: ru_maxrss
_MEASURE = ("import resource, subprocess, sys\n"
            "rc = subprocess.call([sys.executable, '-m', 'kdump', *sys.argv[2:]])\n"
            "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "open(sys.argv[1], 'w').write(f'{u.ru_maxrss} {u.ru_utime + u.ru_stime}')\n"
            "sys.exit(rc)\n")


def run(args: list[str], cwd: Path) -> Proc:
    """``python -m kdump ARGS`` as a real process, and its peak RSS."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("KDUMP_FORMAT", "KDUMP_DEBUG", "FORCE_COLOR")}
    env.update(COLUMNS="100", TERM="dumb", PYTHONPATH=str(REPO))
    out_p, err_p, rss_p = cwd.parent / "out.txt", cwd.parent / "err.txt", cwd.parent / "rss"
    rss_p.unlink(missing_ok=True)
    killed = False
    with open(out_p, "wb") as out, open(err_p, "wb") as err:
        p = subprocess.Popen([sys.executable, "-c", _MEASURE, str(rss_p), *args], stdout=out,
                             stderr=err, stdin=subprocess.DEVNULL, env=env, cwd=cwd)
        try:
            p.wait(MAX_SECONDS * WALL_FACTOR)
        except subprocess.TimeoutExpired:
            killed = True
            p.kill()
            p.wait()
    rss, cpu = (float(x) for x in rss_p.read_text().split()) if rss_p.exists() else (
        float("inf"), float("inf"))
    return Proc(args, p.returncode, out_p.read_text(errors="replace"),
                err_p.read_text(errors="replace"), killed, cpu, rss / 1024)


def check(p: Proc, rcs: tuple[int, ...] = (0, 1)) -> None:
    what = f"kdump {' '.join(p.args)}"
    assert not p.killed, f"{what}: killed after {MAX_SECONDS * WALL_FACTOR} s"
    assert p.cpu_seconds < MAX_SECONDS, f"{what}: {p.cpu_seconds:.1f} s of CPU"
    assert p.rc in rcs, f"{what}: exit {p.rc}\n{p.err[-3000:]}"
    for text in (p.out, p.err):
        assert "Traceback" not in text and "internal error" not in text, f"{what}:\n{text[-3000:]}"
    for line in p.err.splitlines():  # one message a line: kdump's, or a finding's
        assert line.startswith("kdump") or ": position " in line or not line.strip(), \
            f"{what}: stderr line {line!r}"
    assert p.rss_mib < MAX_RSS_MIB, f"{what}: peak RSS {p.rss_mib:.0f} MiB"


@pytest.fixture(scope="module")
def bomb_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``_schemas-0``: the sample registry and every bomb schema; ``bombs-0``: a record
    naming each bomb (value framed; the key names the sample's Avro id 6), and one
    filling the million-field record with a megabyte of ints."""
    root = tmp_path_factory.mktemp("bombs") / "logdir"
    recs = rw.registry_records()
    seen = set()
    for b in bombs():
        if b.sid not in seen:
            seen.add(b.sid)
            recs.append(w.Rec(rw.schema_key(b.subject, 1), rw.schema_value(
                b.subject, 1, b.sid, b.schema, b.stype, refs=b.refs or None)))
    rw.write_partition(root / "_schemas-0", recs)
    data = [w.Rec(b"k", frame(b.sid, b.payload, b.indexes)) for b in bombs()]
    data.append(w.Rec(None, frame(102, MEGABYTE_OF_INTS)))
    rw.write_partition(root / "bombs-0", data, per_batch=3)
    return root


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["dump", "--format", "json", "--print-data-log", "bombs-0"],
    ["dump", "--value-decoder", "schema-registry", "--validate-json-schema", "bombs-0"],
    ["dump", "--schemas", "_schemas-0", "--format", "table", "--print-data-log", "bombs-0"],
    ["schemas", "."],
    ["schemas", "--format", "json", "--export", "../exported", "."],
    ["report", "--format", "json", "."],
], ids=["dump-json", "dump-validate", "dump-table", "schemas", "schemas-export", "report"])
def test_schema_bombs_through_the_cli(bomb_logdir: Path, args: list[str]) -> None:
    p = run(args, bomb_logdir)
    check(p)
    if args[0] == "dump" and "table" not in args:  # (a table's cells wrap the notes)
        # every bomb record is printed, decoded or with a note saying why not
        if "json" in args:
            records = [json.loads(line) for line in p.out.splitlines()
                       if line.startswith('{"type":"record"')]
            assert len(records) == len(bombs()) + 1, p.out[-3000:]
        assert "a value of 0 bytes would hold 1,398,101 values" in p.out
        assert "File recursively imports itself" in p.out


@pytest.mark.slow
def test_a_100_mb_schemas_value(tmp_path: Path) -> None:
    """A ``_schemas`` value of 100 MB: more than --max-batch-bytes (16M), so its batch is
    reported and skipped, in bounded memory; the schemas before it are listed."""
    root = tmp_path / "logdir"
    recs = rw.registry_records()
    pw = w.PartitionWriter(root / "_schemas-0")
    pw.append(w.v2_batch(recs, base_offset=0))
    big = b'{"subject":"big-value","version":1,"id":99,"schema":"' + b"x" * (100 << 20) + b'"}'
    pw.append(w.v2_batch([w.Rec(rw.schema_key("big-value", 1), big)], base_offset=len(recs)))
    pw.close()
    for args in (["schemas", "--format", "json", "."], ["dump", "--print-data-log", "_schemas-0"]):
        p = run(args, tmp_path / "logdir")
        check(p)
        assert p.rc == 1 and "larger than the limit of 16777216 bytes (--max-batch-bytes)" \
            in p.out + p.err, (args, p.out[-2000:], p.err)
        assert p.rss_mib < 300, f"{args}: peak RSS {p.rss_mib:.0f} MiB"
