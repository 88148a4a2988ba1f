"""Formatting shared by the renderers."""

from __future__ import annotations

import base64

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
