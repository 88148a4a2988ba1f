"""Formatting shared by the renderers."""

from __future__ import annotations

import base64
import re
from typing import Any

from ..findings import Problem
from ..textsafe import inert


def jbool(b: bool) -> str:
    """Java's Boolean.toString."""
    return "true" if b else "false"


def optional_long(v: int | None) -> str:
    """java.util.OptionalLong.toString."""
    return "OptionalLong.empty" if v is None else f"OptionalLong[{v}]"


def problem_line(p: Problem) -> str:
    """One line per finding: ``FILE: position N: KIND: DETAIL (base offset B)``."""
    where = p.path if p.position is None else f"{p.path}: position {p.position}"
    tail = f" (base offset {p.base_offset})" if p.base_offset is not None else ""
    sev = "" if p.severity == "error" else f" [{p.severity}]"
    # names and details quote the data: inert (kdump.textsafe), piped or not
    return inert(f"{where}: {p.kind}{sev}: {p.detail}{tail}")


PAYLOAD_ENCODINGS = ("utf8", "base64", "hex")


def encode_payload(data: bytes | None, encoding: str) -> tuple[str | None, str | None]:
    """Bytes as a JSON string, and the encoding actually used.

    ``utf8`` (the default) writes valid UTF-8 as is and anything else as base64, saying
    so in the returned encoding, so no byte is ever lost; ``base64`` and ``hex`` apply
    to every payload.  ``None`` (a null key or value) stays ``None``.
    """
    if data is None:
        return None, None
    if encoding == "utf8":
        try:
            return data.decode("utf-8"), "utf8"
        except UnicodeDecodeError:
            return base64.b64encode(data).decode("ascii"), "base64"
    if encoding == "hex":
        return data.hex(), "hex"
    return base64.b64encode(data).decode("ascii"), "base64"


def iso_ms(ms: int | None) -> str:
    """Epoch milliseconds as ISO-8601 UTC with milliseconds (``2023-11-14T22:13:20.000Z``),
    for people; JSON keeps the number.  Kafka's ``-1`` (no timestamp) and values outside
    the calendar are shown as the number itself."""
    import datetime

    if ms is None:
        return "-"
    if ms < 0:
        return str(ms)
    try:
        t = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def plural(n: int, word: str, many: str | None = None, *, grouped: bool = False) -> str:
    """``1 note``, ``2 notes``, ``1 entry``, ``3 entries``, ``1 batch``, ``2 batches``
    (``many`` for irregular words); ``grouped``: thousands separators.  Every count kdump
    writes for people goes through here."""
    num = f"{n:,}" if grouped else str(n)
    if n == 1:
        return f"{num} {word}"
    if many is None:
        many = (word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou"
                else word + "es" if word.endswith(("s", "x", "ch", "sh")) else word + "s")
    return f"{num} {many}"


#: C0 and C1 controls and DEL: never written to a terminal as they are (a file name, a
#: topic or a record may hold an escape sequence)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def escape_controls(line: str) -> str:
    """``line`` with its control characters as ``\\xNN`` (compare-replicas and lag)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", line)


def plain_cells(*cells: str) -> list[Any]:
    """Table cells as plain text: neither rich markup nor control characters."""
    from rich.text import Text

    return [Text(escape_controls(c)) for c in cells]


def dash(v: int | None) -> str:
    """A number, or '-' for none."""
    return "-" if v is None else str(v)
