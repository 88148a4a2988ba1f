"""Bytes from the data never drive the terminal (issue 15, issue 18).

Records full of escape sequences, markup and bidi controls are dumped in a real
pseudo-terminal: nothing from the data may reach it as a control byte, as rich markup or as
a hyperlink.  Piped, the DumpLogSegments text stays the data's bytes.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from kdump.textsafe import InertLines, inert
from tests.support import writer as w

HOSTILE_KEY = b"\x1b]0;title\x07\x1b[2J"
HOSTILE_VALUES = [
    b"[bold red]RED[/]",
    b"[link=file:///etc/passwd]click[/link]",
    b"\x1b]52;c;aGVsbG8=\x07",  # OSC 52: write the clipboard
    "\u009b31mC1-CSI".encode(),
    "abc\u202edcba".encode(),
    b"line1\nline2\rover",
]
#: bytes that must never reach the terminal from the data: ESC, BEL, C1 (as UTF-8), CR
FORBIDDEN = [b"\x1b]0;title", b"\x1b[2J", b"\x1b]52", b"\x07", "\u009b".encode(), "\u202e".encode(),
             b"\x1b]8;"]


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    part = tmp_path / "evil-0"
    pw = w.PartitionWriter(part)
    recs = [w.Rec(HOSTILE_KEY, v, headers=[("h\x1b[31m", b"\x1b[2J")]) for v in HOSTILE_VALUES]
    pw.append(w.v2_batch(recs, base_offset=0))
    pw.close()
    return part


def run_in_pty(args: list[str], cwd: Path, columns: int = 100) -> bytes:
    """Run kdump with stdout and stderr on a pseudo-terminal; return what it printed."""
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "kdump", *args], stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, cwd=cwd, env=env)
    os.close(slave)
    out = bytearray()
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(30)
    os.close(master)
    return bytes(out)


@pytest.mark.parametrize("fmt", ["table", "text"])
def test_no_control_byte_from_the_data_reaches_the_terminal(hostile: Path, fmt: str) -> None:
    out = run_in_pty(["dump", "--format", fmt, "--print-data-log", str(hostile)], hostile.parent)
    for bad in FORBIDDEN:
        assert bad not in out, (bad, out)
    text = out.decode("utf-8", "replace")
    # shown, as escapes and as the literal characters of the markup
    assert "\\x1b]0;" in text
    if fmt == "table":
        assert "[bold" in text  # markup printed, not obeyed
    else:
        assert "\\x1b]0;title\\x07\\x1b[2J" in text
        assert "\\u202e" in text and "\\x9b" in text and "line1\\x0aline2\\x0dover" in text
        assert "[bold red]RED[/]" in text and "[link=file:///etc/passwd]click[/link]" in text


def test_raw_prints_the_data_on_a_terminal(hostile: Path) -> None:
    out = run_in_pty(["dump", "--raw", "--print-data-log", str(hostile)], hostile.parent)
    assert b"\x1b[2J" in out


def test_piped_text_is_the_data_bytes(hostile: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "kdump", "dump", "--print-data-log", str(hostile)],
                       capture_output=True, cwd=hostile.parent)
    assert r.returncode == 0, r.stderr
    # DumpLogSegments prints keys and payloads as they are: scripts and diffs rely on it
    assert b"key: \x1b]0;title\x07\x1b[2J payload: [bold red]RED[/]" in r.stdout


def test_json_escapes_control_characters(hostile: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "kdump", "dump", "--format", "json",
                        "--print-data-log", str(hostile)], capture_output=True, cwd=hostile.parent)
    assert b"\x1b" not in r.stdout and b"\x07" not in r.stdout
    keys = [json.loads(line)["key"] for line in r.stdout.splitlines()
            if json.loads(line)["type"] == "record"]
    assert keys == [HOSTILE_KEY.decode()] * len(HOSTILE_VALUES)


def test_findings_quote_names_inertly(tmp_path: Path) -> None:
    """A file name is data too: a finding that names it is inert on stderr."""
    part = tmp_path / "t\x1b[2J-0"
    part.mkdir()
    (part / "00000000000000000000.log").write_bytes(b"\x00" * 5)
    r = subprocess.run([sys.executable, "-m", "kdump", "verify-crc", "--format", "text", str(part)],
                       capture_output=True, cwd=tmp_path)
    assert b"\x1b" not in r.stdout + r.stderr
    assert b"t\\x1b[2J-0" in r.stdout + r.stderr


def test_inert() -> None:
    assert inert("a\x1b[2Jb\tc\u202ed\x9b\x7f ok é") == "a\\x1b[2Jb\\x09c\\u202ed\\x9b\\x7f ok é"
    assert inert("plain text, 100%") == "plain text, 100%"


def test_own_lines_cannot_be_forged() -> None:
    import io

    buf = io.StringIO()
    InertLines(buf).write("group topic 0 5 1700000000000 - meta\ndata forged 0 9\n")
    assert buf.getvalue() == "group topic 0 5 1700000000000 - meta\\x0adata forged 0 9\n"
