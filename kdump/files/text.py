"""Small text files: checkpoints, ``partition.metadata``, ``meta.properties``,
``quorum-state``, ``.kafka_cleanshutdown``.

server-common/src/main/java/org/apache/kafka/server/common/CheckpointFile.java,
storage/.../checkpoint/{OffsetCheckpointFile,LeaderEpochCheckpointFile,
PartitionMetadataFile,CleanShutdownFileHandler}.java,
metadata/.../properties/MetaProperties.java, raft/.../FileQuorumStateStore.java.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import CorruptDataError
from ..source import FileSource

#: text files are small; a larger one is not read whole
MAX_TEXT_BYTES = 64 << 20

OFFSET_CHECKPOINTS = {
    "recovery-point-offset-checkpoint": "recovery_point",
    "replication-offset-checkpoint": "high_watermark",
    "log-start-offset-checkpoint": "log_start_offset",
    "cleaner-offset-checkpoint": "cleaner_checkpoint",
}


def read_text(source: FileSource) -> str:
    if source.size > MAX_TEXT_BYTES:
        raise CorruptDataError(f"{source.size} bytes is too large for this kind of file",
                               path=source.path, position=0)
    raw = source.pread(0, source.size)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorruptDataError(f"not UTF-8 text: {e.reason}", path=source.path,
                               position=e.start) from None


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


def read_checkpoint(source: FileSource, kind: str) -> Checkpoint:
    """An offset checkpoint (``topic partition offset`` lines) or the
    leader-epoch-checkpoint (``epoch startOffset``).  CheckpointFile's rules: version
    line 0, a count line, then exactly that many entries; an empty file has none."""
    text = read_text(source)
    path = source.path
    lines = [ln for ln in re.split(r"\r\n|\n|\r", text)]
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return Checkpoint(path, kind, None, None)

    def bad(msg: str, line_no: int) -> CorruptDataError:
        return CorruptDataError(f"line {line_no}: {msg}", path=path,
                                position=_line_position(text, line_no))

    try:
        version = int(lines[0].strip())
    except ValueError:
        raise bad(f"version line {lines[0]!r} is not a number", 1) from None
    if version != 0:
        raise bad(f"unrecognised checkpoint version {version} (expected 0)", 1)
    if len(lines) < 2:
        return Checkpoint(path, kind, version, None)
    try:
        count = int(lines[1].strip())
    except ValueError:
        raise bad(f"entry count line {lines[1]!r} is not a number", 2) from None
    cp = Checkpoint(path, kind, version, count)
    for k, raw in enumerate(lines[2:], start=3):
        tokens = raw.split()
        if kind == "leader-epoch-checkpoint":
            if len(tokens) != 2:
                raise bad(f"expected 'epoch startOffset', found {raw!r}", k)
            try:
                cp.entries.append(CheckpointEntry(k, {"epoch": int(tokens[0]),
                                                      "start_offset": int(tokens[1])}))
            except ValueError:
                raise bad(f"expected two numbers, found {raw!r}", k) from None
        else:
            if len(tokens) != 3:
                raise bad(f"expected 'topic partition offset', found {raw!r}", k)
            try:
                cp.entries.append(CheckpointEntry(k, {
                    "topic": tokens[0], "partition": int(tokens[1]),
                    OFFSET_CHECKPOINTS.get(kind, "offset"): int(tokens[2])}))
            except ValueError:
                raise bad(f"expected a partition and an offset, found {raw!r}", k) from None
    if len(cp.entries) != count:
        raise CorruptDataError(
            f"expected {count} entries but found {len(cp.entries)}", path=path,
            position=_line_position(text, 2))
    return cp


def read_partition_metadata(source: FileSource) -> dict[str, Any]:
    """``version: 0`` / ``topic_id: <uuid>`` (PartitionMetadataFile)."""
    text = read_text(source)
    out: dict[str, Any] = {}
    for k, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = re.split(r":\s+", line.strip(), maxsplit=1)
        if len(parts) != 2:
            raise CorruptDataError(f"line {k}: expected 'name: value', found {line!r}",
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
        m = re.match(r"((?:\\.|[^=:\s])*)\s*[=:\s]\s*(.*)$", s)
        key, value = (m.group(1), m.group(2)) if m else (s, "")
        props[_unescape(key)] = _unescape(value)
    return props


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


def read_json(source: FileSource) -> Any:
    """``quorum-state`` and the 3.7+ ``.kafka_cleanshutdown`` (empty = old marker)."""
    text = read_text(source)
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CorruptDataError(f"not JSON: {e.msg}", path=source.path, position=e.pos) from None
