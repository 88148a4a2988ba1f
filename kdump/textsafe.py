"""Bytes from the data are evidence, never instructions: text made inert for a terminal.

A record key, a header, a topic or file name, a consumer group's commit metadata may hold
anything: ``ESC ] 0;title BEL``, ``ESC [2J``, OSC 8 hyperlinks, OSC 52 clipboard writes, a C1
CSI (U+009B), bidi overrides (U+202E) that reorder what a reader sees.  Everything kdump
shows a person goes through :func:`inert` first, which makes each such character visible as
an escape (``\\x1b``, ``\\x9b``, ``\\u202e``), so the terminal only ever receives printable
text from the data.  JSON escapes on its own (kdump/render/jsonl.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# C0 controls (tab, newline and carriage return included: a newline in a value must not
# forge a line of output), DEL, C1 controls, and the Unicode bidirectional controls:
# embeddings and overrides U+202A-U+202E, isolates U+2066-U+2069, marks U+200E/U+200F and
# the Arabic letter mark U+061C (Unicode TR9, "Explicit Directional" and "Implicit" marks);
# U+2028/U+2029 are line and paragraph separators some terminals honour.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c <= 0xFF else f"\\u{c:04x}"


def inert(s: str) -> str:
    """``s`` with every control and bidi character written as a visible escape."""
    if _UNSAFE.search(s) is None:
        return s
    return _UNSAFE.sub(_escape, s)


def inert_lines(s: str) -> str:
    """Like :func:`inert`, for text made of whole lines: the line breaks stay."""
    if _UNSAFE.search(s) is None:
        return s
    return "\n".join(inert(line) for line in s.split("\n"))


def is_inert(s: str) -> bool:
    return _UNSAFE.search(s) is None


class InertLines:
    """A text stream for kdump's own line formats (findings, summaries, size reports,
    find answers): each ``write`` is one line, with or without its final newline, and
    whatever it quotes from the data is made inert, newlines inside it included, so a value
    can neither drive the terminal nor forge a line of output, piped or not."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, s: str) -> int:
        if s.endswith("\n"):
            return self._stream.write(inert(s[:-1]) + "\n")
        return self._stream.write(inert(s))

    def write_row(self, fields: Iterable[object], sep: str = "\t") -> int:
        """One line of ``fields`` joined by kdump's own ``sep`` (written as it is), each
        field made inert."""
        return self._stream.write(sep.join(inert(str(f)) for f in fields) + "\n")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
