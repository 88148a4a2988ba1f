"""A record's key or value as ``kdump browse``'s record view shows it, in the rendering
the user picks (``v`` cycles them): ``auto`` (``dump``'s decoding; bytes that are not
UTF-8 in hex), ``text`` (UTF-8, a byte that is not shown as ``\\xNN``), ``json``
(pretty-printed, or why it is not JSON), ``hex`` (16 bytes a line with their ASCII) and
``base64``.  Never a replacement character: a byte the text cannot hold is shown as
itself.  The strings returned hold the data as it is (controls included): the interface
makes them inert (kdump/textsafe.py) before they reach a terminal."""

from __future__ import annotations

import base64
import json

RENDERINGS = ("auto", "text", "json", "hex", "base64")


def next_rendering(mode: str) -> str:
    return RENDERINGS[(RENDERINGS.index(mode) + 1) % len(RENDERINGS)] if mode in RENDERINGS \
        else RENDERINGS[0]


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def is_json(data: bytes) -> bool:
    try:
        json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return False
    return True


def key_text(data: bytes | None) -> str:
    """A key (or header) in one line: its text when it is UTF-8, else ``0x`` and its
    bytes in hex (a binary key: never replacement characters)."""
    if data is None:
        return "null"
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "0x" + data.hex()


def no_replacement(decoded: str | None, data: bytes | None) -> str:
    """A decoder's text of ``data`` unless it holds a replacement character the bytes do
    not (a decoding of bytes that are not UTF-8): then :func:`key_text`'s hex."""
    if decoded is None or ("\ufffd" in decoded and data is not None and not is_utf8(data)):
        return key_text(data)
    return decoded


def hex_lines(data: bytes, width: int = 16) -> str:
    out = []
    for i in range(0, len(data), width):
        chunk = data[i:i + width]
        hexes = " ".join(f"{b:02x}" for b in chunk)
        ascii_ = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        out.append(f"{i:08x}  {hexes:<{width * 3 - 1}}  |{ascii_}|")
    return "\n".join(out)


def render(data: bytes | None, mode: str, decoded: str | None = None) -> str:
    """``data`` (None: null) in ``mode``; ``decoded``: ``dump``'s text of it, which
    ``auto`` shows when there is one, and ``json`` pretty-prints when the bytes are not
    JSON but it is (``__consumer_offsets``' binary keys and values)."""
    if data is None:
        return "null"
    if mode == "auto":
        if decoded is not None:
            return decoded
        return data.decode("utf-8") if is_utf8(data) else hex_lines(data)
    if mode == "text":
        return data.decode("utf-8", "backslashreplace")
    if mode == "json":
        try:
            return json.dumps(json.loads(data.decode("utf-8")), indent=2, ensure_ascii=False)
        except UnicodeDecodeError as e:
            why = f"not JSON: not UTF-8 ({e.reason} at byte {e.start})"
        except (ValueError, RecursionError) as e:
            why = f"not JSON: {e}"
        if decoded is not None:  # dump's decoding of binary (internal topics ...) may be
            try:
                pretty = json.dumps(json.loads(decoded), indent=2, ensure_ascii=False)
            except (ValueError, RecursionError):
                return why
            return pretty
        return why
    if mode == "hex":
        return hex_lines(data)
    if mode == "base64":
        text = base64.b64encode(data).decode("ascii")
        return "\n".join(text[i:i + 76] for i in range(0, len(text), 76))
    raise ValueError(f"no rendering {mode!r}")
