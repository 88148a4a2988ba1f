"""Tables fit the terminal (issues 15 and 16): at 80 and 100 columns, in a real
pseudo-terminal, every line of every ``--format table`` output fits the width and every
table row that starts with a border ends with one (no cropped columns, no lost border).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.metadata.test_metadata import scenario, write_log
from tests.ops.compare_replicas.test_replicas import offsets_logdirs, unclean
from tests.render.test_terminal_safety import run_in_pty
from tests.support import writer as w

#: ANSI SGR and other CSI sequences rich writes (colour, bold, ...), and OSC 8 links
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
#: rich's box-drawing characters that open or close a table line
_BORDER = set("┃│╭╮╰╯┏┓┗┛┡┩├┤┌┐└┘━─╇╈┼┳┻┠┨║")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample log dir, a KRaft metadata log, two brokers that diverged, and two
    brokers with __consumer_offsets."""
    root = tmp_path_factory.mktemp("fit")
    w.write_sample_logdir(root / "sample")
    write_log(root / "kraft" / "__cluster_metadata-0", scenario())
    unclean(root / "replicas")
    offsets_logdirs(root / "lag")
    return root


S = "sample"
COMMANDS: list[list[str]] = [
    ["dump", S],
    ["dump", "--print-data-log", S],
    ["dump", "--print-data-log", f"{S}/orders-0"],
    ["dump", "--deep-iteration", f"{S}/customers-0"],
    ["verify-crc", S],
    ["verify-index", S],
    ["size-report", "--by", "topic", S],
    ["size-report", "--by", "partition", S],
    ["size-report", "--by", "segment", S],
    ["find-offset", f"{S}/orders-0", "42"],
    ["find-offset", "--print-data-log", f"{S}/orders-0", "42"],
    ["find-time", f"{S}/orders-0", "1700000000000"],
    ["find-time", "--print-data-log", f"{S}/orders-0", "1700000000000"],
    ["coordinator-partition", "my-consumer-group", "another-group-with-a-long-name"],
    ["metadata", "kraft"],
    ["compare-replicas", "replicas/b1", "replicas/b2"],
    ["lag", "lag/b1", "lag/b2"],
    ["retention", S, "--now", "2023-11-21T22:13:35Z"],
    ["retention", "lag/b1", "lag/b2", "--now", "2023-11-21T22:13:35Z"],
]


def visible_lines(out: bytes) -> list[str]:
    text = _ANSI.sub("", out.decode("utf-8", "replace"))
    return text.replace("\r\n", "\n").split("\n")


@pytest.mark.parametrize("columns", [80, 100])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_every_table_fits_the_terminal(world: Path, args: list[str], columns: int) -> None:
    out = run_in_pty([args[0], "--format", "table", *args[1:]], world, columns)
    lines = visible_lines(out)
    assert any(line.strip() for line in lines), out
    assert "Traceback" not in out.decode("utf-8", "replace")
    tables = 0
    for i, line in enumerate(lines):
        s = line.rstrip()
        table_line = bool(set(s) & _BORDER)
        # a table's lines and its title fit; kdump's one-line messages on stderr (findings,
        # summaries) stay one line each for grep, and the terminal wraps them
        if table_line or (i + 1 < len(lines) and lines[i + 1][:1] in _BORDER):
            assert len(s) <= columns, f"{len(s)} > {columns}: {line!r}"
            tables += table_line
        # a header or cell cropped into an ellipsis has lost information
        if table_line:
            assert "…" not in s or "more characters" in out.decode(), f"cropped: {line!r}"
        if s and s[0] in _BORDER:
            assert s[-1] in _BORDER, f"right border lost: {line!r}"
    assert tables, "no table printed"


@pytest.mark.parametrize("fmt", ["table", "text", "json"])
def test_reader_going_away_is_success(tmp_path: Path, fmt: str) -> None:
    """``kdump dump --format table ... | head -1``: exit 0 and nothing on stderr, as for
    text and JSON (rich's own broken-pipe handling exits 1)."""
    import subprocess
    import sys

    from tests.conftest import subprocess_env

    pw = w.PartitionWriter(tmp_path / "big-0")
    for i in range(200):
        pw.append(w.v2_batch(w.numbered_records(i * 20, 20), base_offset=i * 20))
    pw.close()
    # far more than a pipe buffer holds, so the writer does meet the closed pipe
    kdump = subprocess.Popen([sys.executable, "-m", "kdump", "dump", "--format", fmt,
                              "--print-data-log", "big-0"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=subprocess_env())
    head = subprocess.run(["head", "-1"], stdin=kdump.stdout, capture_output=True)
    assert kdump.stdout is not None and kdump.stderr is not None
    kdump.stdout.close()
    err = kdump.stderr.read()
    assert kdump.wait(60) == 0
    assert err == b""
    assert head.returncode == 0 and head.stdout.count(b"\n") == 1


def test_plural_and_iso_helpers() -> None:
    from kdump.render.common import iso_ms, plural

    assert [plural(1, "note"), plural(2, "note"), plural(0, "entry"), plural(1, "entry"),
            plural(1, "batch"), plural(3, "batch"), plural(1, "partition"),
            plural(1, "group"), plural(12345, "byte", grouped=True)] == \
        ["1 note", "2 notes", "0 entries", "1 entry", "1 batch", "3 batches", "1 partition",
         "1 group", "12,345 bytes"]
    assert iso_ms(1587583335220) == "2020-04-22T19:22:15.220Z"
    assert iso_ms(0) == "1970-01-01T00:00:00.000Z"
    assert iso_ms(-1) == "-1" and iso_ms(None) == "-"
    assert iso_ms(2**63 - 1) == str(2**63 - 1)


def test_one_of_each_is_singular(kdump, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """verify-crc of one file with one batch, and its table: ``1 file, 1 batch``."""
    pw = w.PartitionWriter(tmp_path / "one-0")
    pw.append(w.v2_batch([w.Rec(b"k", b"v")], base_offset=0))
    pw.close()
    r = kdump("verify-crc", "one-0/00000000000000000000.log", cwd=tmp_path)
    assert r.rc == 0
    assert "verify-crc: 1 file, 1 batch: clean" in r.err
    t = kdump("dump", "--format", "table", "--deep-iteration", "one-0/00000000000000000000.log",
              cwd=tmp_path)
    assert "  1 batch, 1 record" in t.out
