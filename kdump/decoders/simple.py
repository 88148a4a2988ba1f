"""Built-in payload decoders, in place of DumpLogSegments' Java decoder classes.

``string`` is org.apache.kafka.tools.api.StringDecoder (UTF-8, malformed bytes become
U+FFFD, as ``new String(bytes, UTF_8)`` does); ``int``/``long`` are IntegerDecoder and
LongDecoder (big-endian); ``hex``, ``base64`` and ``json`` are kdump's; ``none`` prints
no key or payload at all.
"""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

from ..native import speedups
from .base import Decoded


def _json_text(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class _Simple:
    name = "string"
    #: True when ``key_json``/``value_json`` carry a structured decoding for JSON output;
    #: otherwise JSON output writes the raw bytes under ``--payload-encoding``.
    structured = False

    def text(self, data: bytes) -> tuple[str, object, str | None]:
        """(text, json value, error)"""
        return data.decode("utf-8", errors="replace"), None, None

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        errors = []
        kt = kj = vt = vj = None
        if key is not None:
            kt, kj, err = self.text(key)
            if err:
                errors.append(f"key: {err}")
        if value is not None:
            vt, vj, err = self.text(value)
            if err:
                errors.append(f"value: {err}")
        return Decoded(kt, vt, kj, vj, "; ".join(errors) or None)


class StringDecoder(_Simple):
    name = "string"


class HexDecoder(_Simple):
    name = "hex"

    def text(self, data: bytes) -> tuple[str, object, str | None]:
        h = data.hex()
        return h, h, None


class Base64Decoder(_Simple):
    name = "base64"

    def text(self, data: bytes) -> tuple[str, object, str | None]:
        b = base64.b64encode(data).decode("ascii")
        return b, b, None


class JsonDecoder(_Simple):
    """Parses the payload as JSON; text output is the JSON re-serialised compactly."""

    name = "json"
    structured = True

    def text(self, data: bytes) -> tuple[str, object, str | None]:
        try:
            obj = json.loads(data)
        except (ValueError, RecursionError) as e:
            s = data.decode("utf-8", errors="replace")
            return s, s, f"not JSON ({e.__class__.__name__}), shown as a string"
        return _json_text(obj), obj, None


class _FixedInt(_Simple):
    structured = True
    fmt = struct.Struct(">i")

    def text(self, data: bytes) -> tuple[str, object, str | None]:
        # IntegerDecoder/LongDecoder: ByteBuffer.wrap(bytes).getInt()/getLong() reads the
        # first 4/8 bytes and ignores the rest; fewer bytes throw (shown here as hex)
        if len(data) < self.fmt.size:
            h = data.hex()
            return h, h, f"{len(data)} bytes, not {self.fmt.size}: shown as hex"
        (n,) = self.fmt.unpack_from(data, 0)
        if len(data) > self.fmt.size:
            return str(n), n, (f"{len(data)} bytes: only the first {self.fmt.size} read, as "
                               "Kafka's decoder does")
        return str(n), n, None


class IntegerDecoder(_FixedInt):
    name = "int"
    fmt = struct.Struct(">i")


class LongDecoder(_FixedInt):
    name = "long"
    fmt = struct.Struct(">q")


class NoneDecoder(_Simple):
    """Prints no key and no payload (record metadata only)."""

    name = "none"

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        return Decoded(None, None, None, None)


#: key sizes dump's auto decoding reads as numbers: size -> (struct, Kafka's serializer
#: type).  LongSerializer / IntegerSerializer write big-endian (org.apache.kafka.common.
#: serialization), as ByteBuffer does
NUMBER_KEYS = {8: (struct.Struct(">q"), "int64"), 4: (struct.Struct(">i"), "int32")}
#: control characters text may hold (the rest, NUL first, say the bytes are not text)
_TEXT_CONTROLS = frozenset(b"\t\n\r")
_native_number_keys = None if speedups is None else speedups.number_key_indices


def is_text(data: bytes) -> bool:
    """Valid UTF-8 holding no control character but tab, newline and carriage return."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(ch.isprintable() or ord(ch) in _TEXT_CONTROLS for ch in text)


def number_key(data: bytes | None) -> tuple[str, int, str] | None:
    """A key of exactly 8 or 4 bytes that is not text, read as Kafka's LongSerializer /
    IntegerSerializer wrote it (big-endian): (text, number, note); None for any other
    key.  dump's auto decoding shows such keys as numbers rather than as UTF-8 full of
    NUL bytes."""
    if data is None or len(data) not in NUMBER_KEYS or is_text(data):
        return None
    fmt, name = NUMBER_KEYS[len(data)]
    (n,) = fmt.unpack(data)
    return (f"{n} ({name})", n, f"{len(data)} bytes that are not text, read as a big-endian "
            f"{name} (Kafka's {'Long' if len(data) == 8 else 'Integer'}Serializer)")


def number_key_indices(records: list[Any]) -> list[int]:
    """The indices of the records (each with a ``key``) whose key :func:`number_key`
    reads as a number: what dump's auto decoding decodes again, a batch at a time (in C
    when the extension is built: ``number_key_indices`` in kdump/_speedups_walk.c)."""
    if _native_number_keys is not None:
        got = _native_number_keys(records)
        if got is not NotImplemented:
            return got
    return number_key_indices_py(records)


def number_key_indices_py(records: list[Any]) -> list[int]:
    """The pure-Python twin of the native ``number_key_indices``."""
    return [i for i, r in enumerate(records)
            if r.key is not None and len(r.key) in NUMBER_KEYS and not is_text(r.key)]
