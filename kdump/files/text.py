"""Small text files: checkpoints, ``partition.metadata``, ``meta.properties``,
``quorum-state``, ``.kafka_cleanshutdown``.

server-common/src/main/java/org/apache/kafka/server/common/CheckpointFile.java,
storage/.../checkpoint/{OffsetCheckpointFile,LeaderEpochCheckpointFile,
PartitionMetadataFile,CleanShutdownFileHandler}.java,
metadata/.../properties/MetaProperties.java, raft/.../FileQuorumStateStore.java.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .. import fs as kfs
from ..errors import CorruptDataError, KdumpError
from ..source import FileSource

#: checkpoints list every partition of a log dir (a line each, read a line at a time);
#: a larger file is not read
MAX_TEXT_BYTES = 64 << 20
#: the other text files (meta.properties, partition.metadata, quorum-state,
#: .kafka_cleanshutdown) hold a few lines; a larger one is not read whole
MAX_SMALL_TEXT_BYTES = 1 << 20
#: how much of an offending line a message quotes
_QUOTE = 80
_EOL = re.compile(rb"\r\n|\n|\r")

OFFSET_CHECKPOINTS = {
    "recovery-point-offset-checkpoint": "recovery_point",
    "replication-offset-checkpoint": "high_watermark",
    "log-start-offset-checkpoint": "log_start_offset",
    "cleaner-offset-checkpoint": "cleaner_checkpoint",
}


def _read_raw(source: FileSource, limit: int) -> bytes:
    if source.size > limit:
        raise CorruptDataError(f"{source.size} bytes is too large for this kind of file",
                               path=source.path, position=0)
    return source.pread(0, source.size)


def read_text(source: FileSource, limit: int = MAX_SMALL_TEXT_BYTES) -> str:
    raw = _read_raw(source, limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorruptDataError(f"not UTF-8 text: {e.reason}", path=source.path,
                               position=e.start) from None


def _spans(raw: bytes) -> Iterator[tuple[int, int, int]]:
    """(start, end of text, end with the line break) of every line, as
    ``re.split(r"\r\n|\n|\r")`` cuts them, without the empty piece after a final break."""
    pos, n = 0, len(raw)
    while pos < n:
        m = _EOL.search(raw, pos)
        stop, nxt = (m.start(), m.end()) if m else (n, n)
        yield pos, stop, nxt
        pos = nxt


def text_lines(source: FileSource, limit: int = MAX_TEXT_BYTES) -> Iterator[tuple[int, int, str]]:
    """``(line number, byte position, text)`` of every line, decoded one at a time (a
    whole-file ``str`` of a hostile file can take four times its bytes, and a list of
    its lines far more).  The whole file is checked to be UTF-8 first, so the error is
    the one decoding it whole gives (no encoded character holds a CR or LF byte)."""
    raw = _read_raw(source, limit)
    for start, _stop, nxt in _spans(raw):
        try:
            raw[start:nxt].decode("utf-8")
        except UnicodeDecodeError as e:
            raise CorruptDataError(f"not UTF-8 text: {e.reason}", path=source.path,
                                   position=start + e.start) from None
    for k, (start, stop, _nxt) in enumerate(_spans(raw), start=1):
        yield k, start, raw[start:stop].decode("utf-8")


def _quote(line: str) -> str:
    return repr(line if len(line) <= _QUOTE else line[:_QUOTE] + "…")


@dataclass(slots=True)
class CheckpointEntry:
    line: int  # 1-based line number in the file
    fields: dict[str, Any]


@dataclass(slots=True)
class Checkpoint:
    path: str
    kind: str
    version: int | None
    declared_count: int | None
    entries: list[CheckpointEntry] = field(default_factory=list)


def _line_position(text: str, line_no: int) -> int:
    """Byte position of the start of 1-based ``line_no``."""
    lines = re.split(r"(?<=\n)", text)
    return len("".join(lines[: line_no - 1]).encode("utf-8"))


def iter_checkpoint(source: FileSource, kind: str,
                    header: list[int | None] | None = None) -> Iterator[CheckpointEntry]:
    """The entries of an offset checkpoint (``topic partition offset`` lines) or of the
    leader-epoch-checkpoint (``epoch startOffset``), one at a time; raises
    :class:`CorruptDataError` where the file breaks CheckpointFile's rules (version line
    0, a count line, then exactly that many entries; an empty file has none), after
    the entries before it.  ``header`` receives ``[version, declared count]``."""
    path = source.path
    lines = text_lines(source)
    if header is None:
        header = []
    header[:] = [None, None]

    def bad(msg: str, line_no: int, position: int) -> CorruptDataError:
        return CorruptDataError(f"line {line_no}: {msg}", path=path, position=position)

    first = next(lines, None)
    if first is None:
        return
    try:
        version = int(first[2].strip())
    except ValueError:
        raise bad(f"version line {_quote(first[2])} is not a number", 1, first[1]) from None
    if version != 0:
        raise bad(f"unrecognised checkpoint version {version} (expected 0)", 1, first[1])
    header[0] = version
    second = next(lines, None)
    if second is None:
        return
    try:
        count = int(second[2].strip())
    except ValueError:
        raise bad(f"entry count line {_quote(second[2])} is not a number", 2,
                  second[1]) from None
    header[1] = count
    found = 0
    field_name = OFFSET_CHECKPOINTS.get(kind, "offset")
    for k, position, raw in lines:
        tokens = raw.split()
        if kind == "leader-epoch-checkpoint":
            if len(tokens) != 2:
                raise bad(f"expected 'epoch startOffset', found {_quote(raw)}", k, position)
            try:
                entry = CheckpointEntry(k, {"epoch": int(tokens[0]),
                                            "start_offset": int(tokens[1])})
            except ValueError:
                raise bad(f"expected two numbers, found {_quote(raw)}", k, position) from None
        else:
            if len(tokens) != 3:
                raise bad(f"expected 'topic partition offset', found {_quote(raw)}", k, position)
            try:
                entry = CheckpointEntry(k, {"topic": tokens[0], "partition": int(tokens[1]),
                                            field_name: int(tokens[2])})
            except ValueError:
                raise bad(f"expected a partition and an offset, found {_quote(raw)}", k,
                          position) from None
        found += 1
        yield entry
    if found != count:
        raise CorruptDataError(f"expected {count} entries but found {found}", path=path,
                               position=second[1])


def read_checkpoint(source: FileSource, kind: str) -> Checkpoint:
    """A whole checkpoint (see :func:`iter_checkpoint`); for a large one, iterate."""
    header: list[int | None] = []
    entries = list(iter_checkpoint(source, kind, header))
    return Checkpoint(source.path, kind, header[0], header[1], entries)


def read_partition_metadata(source: FileSource) -> dict[str, Any]:
    """``version: 0`` / ``topic_id: <uuid>`` (PartitionMetadataFile)."""
    text = read_text(source)
    out: dict[str, Any] = {}
    for k, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = re.split(r":\s+", line.strip(), maxsplit=1)
        if len(parts) != 2:
            raise CorruptDataError(f"line {k}: expected 'name: value', found {_quote(line)}",
                                   path=source.path, position=_line_position(text, k))
        out[parts[0]] = parts[1]
    if "version" not in out or "topic_id" not in out:
        raise CorruptDataError("missing version or topic_id", path=source.path, position=0)
    try:
        out["version"] = int(out["version"])
    except ValueError:
        raise CorruptDataError(f"version {out['version']!r} is not a number",
                               path=source.path, position=0) from None
    return out


def read_properties(source: FileSource) -> dict[str, str]:
    """java.util.Properties text (the subset Kafka writes: ``key=value`` lines and
    ``#`` comments), e.g. ``meta.properties``."""
    text = read_text(source)
    props: dict[str, str] = {}
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "#!":
            continue
        # a backslash is either an escape pair or the last character: never ambiguous,
        # so no input makes the match backtrack exponentially (a line of 40 backslashes
        # took 50 s with "(?:\\.|[^=:\s])*")
        m = _PROPERTY.match(s)
        key, value = (m.group(1), m.group(2)) if m else (s, "")
        props[_unescape(key)] = _unescape(value)
    return props


_PROPERTY = re.compile(r"((?:\\.|\\$|[^=:\s\\])*)\s*[=:\s]\s*(.*)$")
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(s: str) -> str:
    """Properties.load's escapes, in keys and values alike: ``\\t \\n \\r \\f``,
    ``\\uXXXX``, and a backslash before any other character stands for that character
    (``Properties.store`` writes ``=``, ``:``, ``#``, ``!`` and ``\\`` escaped)."""
    if "\\" not in s:
        return s
    out = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\" or i + 1 == n:
            out.append(c)
            i += 1
            continue
        e = s[i + 1]
        i += 2
        if e == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", s[i : i + 4]):
            out.append(chr(int(s[i : i + 4], 16)))
            i += 4
        else:
            out.append(_ESCAPES.get(e, e))
    return "".join(out)


@dataclass(frozen=True, slots=True)
class PropertyLine:
    """One ``key=value`` of a properties file, where it was written."""

    key: str
    value: str
    line: int  # 1-based number of the line the entry starts on
    position: int  # byte position of that line


def iter_properties_strict(source: FileSource) -> Iterator[PropertyLine]:
    """A hand-written properties file (``server.properties``) as Properties.load reads
    it (ISO-8859-1, ``#``/``!`` comments, a backslash at the end continues the line,
    ``=``, ``:`` or blanks between key and value, ``\\uXXXX`` escapes), refusing what
    a person most likely got wrong: a line holding a key and no value, no separator
    (``log.retention.hours``), and a malformed ``\\u`` escape (Properties.load throws
    "Malformed \\uxxxx encoding").  :class:`CorruptDataError` names the line and its
    byte position."""
    raw = _read_raw(source, MAX_SMALL_TEXT_BYTES)
    spans = list(_spans(raw))
    k = 0
    while k < len(spans):
        start, stop, _nxt = spans[k]
        first = k
        text = raw[start:stop].decode("latin-1").lstrip(" \t\f")
        k += 1
        if not text or text[0] in "#!":
            continue
        # a logical line: an odd number of backslashes at the end continues it
        while _continues(text) and k < len(spans):
            s2, e2, _ = spans[k]
            text = text[:-1] + raw[s2:e2].decode("latin-1").lstrip(" \t\f")
            k += 1
        if _continues(text):
            text = text[:-1]
        m = _PROPERTY.match(text)
        key, sep_value = (m.group(1), m.group(2)) if m else (text, "")
        if m is None or (not sep_value and not re.search(r"(?<!\\)[=:]", text)):
            raise CorruptDataError(f"line {first + 1}: {_quote(text)} is not key=value",
                                   path=source.path, position=start)
        for part in (key, sep_value):
            bad = re.search(r"(?<!\\)(?:\\\\)*\\u(?![0-9a-fA-F]{4})", part)
            if bad:
                raise CorruptDataError(f"line {first + 1}: malformed \\uxxxx escape in "
                                       f"{_quote(text)}", path=source.path, position=start)
        yield PropertyLine(_unescape(key), _unescape(sep_value), first + 1, start)


def _continues(text: str) -> bool:
    n = len(text) - len(text.rstrip("\\"))
    return n % 2 == 1


def read_json(source: FileSource) -> Any:
    """``quorum-state`` and the 3.7+ ``.kafka_cleanshutdown`` (empty = old marker)."""
    text = read_text(source)
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CorruptDataError(f"not JSON: {e.msg}", path=source.path, position=e.pos) from None
    except RecursionError:
        raise CorruptDataError("not JSON Kafka writes: nested too deeply", path=source.path,
                               position=0) from None
    except ValueError as e:  # a number past the interpreter's 4300 digits
        raise CorruptDataError(f"not JSON Kafka writes: {e}", path=source.path,
                               position=0) from None


def checkpoint_value(partition_dir: str, name: str, topic: str, partition: int) -> int | None:
    """The partition's entry in its log dir's offset checkpoint ``name``
    (``replication-offset-checkpoint``, ``recovery-point-offset-checkpoint``,
    ``log-start-offset-checkpoint``...; None when the file or the entry is missing or
    unreadable)."""
    path = kfs.dirname(kfs.abspath(partition_dir)) + "/" + name
    try:
        if kfs.is_url(path):  # the listing's size: no request of its own
            key: tuple[int, int | None] = (kfs.getsize(path), None)
        else:
            st = os.stat(path)
            key = (st.st_size, st.st_mtime_ns)
    except OSError:
        return None
    return _checkpoint_values(path, name, *key).get((topic, partition))


def checkpoint_entries(log_dir: str, name: str) -> dict[tuple[str, int], int]:
    """Every entry of the log dir's offset checkpoint ``name`` (topic, partition ->
    offset; empty when the file is missing or unreadable)."""
    path = kfs.abspath(log_dir).rstrip("/") + "/" + name
    try:
        if kfs.is_url(path):
            key: tuple[int, int | None] = (kfs.getsize(path), None)
        else:
            st = os.stat(path)
            key = (st.st_size, st.st_mtime_ns)
    except OSError:
        return {}
    return dict(_checkpoint_values(path, name, *key))


@lru_cache(maxsize=8)
def _checkpoint_values(path: str, name: str, _size: int, _mtime_ns: int | None
                       ) -> dict[tuple[str, int], int]:
    """A log dir's offset checkpoint, read once per process for all its partitions
    (keyed by size and mtime: a file changed under us is read again)."""
    column = OFFSET_CHECKPOINTS[name]
    out: dict[tuple[str, int], int] = {}
    try:
        with FileSource(path) as src:
            for e in iter_checkpoint(src, name):
                out[(e.fields["topic"], e.fields["partition"])] = e.fields[column]
    except KdumpError:
        return {}
    return out
