"""``--format text``: for ``dump``, the exact lines DumpLogSegments prints.

core/src/main/scala/kafka/tools/DumpLogSegments.scala: ``printBatchLevel`` for batch
lines, ``dumpLog`` for record lines (``| offset: ...``), ``dumpIndex``,
``dumpTimeIndex``, ``dumpTxnIndex``, ``dumpProducerIdSnapshot``, and the stderr blocks
printed after every file was dumped (index mismatches, time-index errors,
non-consecutive offsets).  Where DumpLogSegments would stop with an exception, kdump
writes a one-line finding on stderr and goes on.  Files DumpLogSegments ignores
(checkpoints, properties) get kdump's own ``name: value`` lines.
"""

from __future__ import annotations

import json
import os
import re
from typing import TextIO

from ..decoders.base import Decoded, NotedDecoded
from ..files.logdir import KafkaFile
from ..findings import Problem
from ..ops import events as de  # the dump events, as de.BatchEvent ...
from ..records.file_records import Batch
from ..records.native import speedups
from ..records.record import Record
from ..textsafe import inert
from .common import jbool, optional_long, problem_line

_native_text = None if speedups is None else speedups.text_record_lines
_native_batch_line = None if speedups is None else speedups.text_batch_line

#: DumpLogSegments.RecordIndent
RECORD_INDENT = "|"
#: findings DumpLogSegments lists after the dump (non-consecutive offsets, index
#: mismatches ...) are kept up to this many per file; a hostile log can have one per
#: record, and memory must not grow with it
DEFERRED_MAX = 100_000

_CAMEL = {
    "recovery_point": "recoveryPoint",
    "high_watermark": "highWatermark",
    "log_start_offset": "logStartOffset",
    "cleaner_checkpoint": "cleanerCheckpointOffset",
    "start_offset": "startOffset",
}


def java_path(path: str) -> str:
    """``new java.io.File(path).toString``: repeated slashes collapsed, no trailing slash
    (``.`` and ``..`` are kept).  A URL keeps its ``scheme://``."""
    scheme, sep, rest = path.partition("://")
    if sep and re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        return scheme + sep + java_path(rest)
    collapsed = re.sub(r"/{2,}", "/", path)
    return collapsed.rstrip("/") or collapsed


def java_absolute_path(path: str) -> str:
    """``File.getAbsolutePath``: resolved against the working directory, not normalised
    (``./a`` stays ``<cwd>/./a``), as DumpLogSegments keys its stderr blocks."""
    path = java_path(path)
    if path.startswith("/") or "://" in path:
        return path
    cwd = os.getcwd()
    return (cwd if cwd.endswith("/") else cwd + "/") + path


def batch_line(b: Batch) -> str:
    """DumpLogSegments.printBatchLevel (``position`` is the batch's file position)."""
    if b.magic >= 2:
        head = (
            f"baseOffset: {b.base_offset} lastOffset: {b.last_offset} count: {b.count} "
            f"baseSequence: {b.base_sequence} lastSequence: {b.last_sequence} "
            f"producerId: {b.producer_id} producerEpoch: {b.producer_epoch} "
            f"partitionLeaderEpoch: {b.partition_leader_epoch} "
            f"isTransactional: {jbool(b.is_transactional)} isControl: {jbool(b.is_control)} "
            f"deleteHorizonMs: {optional_long(b.delete_horizon_ms)}"
        )
    else:
        head = f"offset: {b.last_offset}"
    return (
        f"{head} position: {b.position} {b.timestamp_type}: {b.max_timestamp} size: {b.size} "
        f"magic: {b.magic} compresscodec: {b.compression_name} crc: {b.crc} "
        f"isvalid: {jbool(b.crc_valid)}"
    )


def batch_text(b: Batch) -> str:
    """:func:`batch_line` and its newline: written natively for a v2 batch when the
    extension is built (``text_batch_line``; tests/test_speedups.py compares them)."""
    if _native_batch_line is not None and b.magic >= 2:
        got = _native_batch_line(b.data, b.index, b.position,  # type: ignore[attr-defined]
                                 b.crc_valid)
        if got is not NotImplemented:
            return got
    return batch_line(b) + "\n"


def record_lines(ev: de.BatchEvent, skip_metadata: bool, print_contents: bool) -> list[str]:
    b = ev.batch
    out = []
    ts_type = b.timestamp_type
    v2 = b.magic >= 2
    control = b.is_control
    for rev in ev.records or ():
        r = rev.record
        prefix: str = RECORD_INDENT + " "
        parts: list[str] = []
        if not skip_metadata:
            parts.append(
                f"{prefix}offset: {r.offset} {ts_type}: {r.timestamp} "
                f"keySize: {r.key_size} valueSize: {r.value_size}"
            )
            prefix = " "
            if v2:
                keys = ",".join(k.decode("utf-8", errors="replace") for k, _ in r.headers)
                parts.append(f" sequence: {r.sequence} headerKeys: [{keys}]")
            else:
                parts.append(f" isValid: {jbool(bool(r.crc_valid))} crc: {r.crc}}}")
            if control and rev.control is not None:
                parts.append(control_text(rev))
        if print_contents and not control and rev.decoded is not None:
            d = rev.decoded
            if d.key_text is not None:
                parts.append(f"{prefix}key: {d.key_text}")
                prefix = " "
            if d.value_text is not None:
                parts.append(f" payload: {d.value_text}")
            if d.error and isinstance(d, NotedDecoded):
                parts.append(f" decodeError: {d.error}")
        out.append("".join(parts))
    return out


def _json(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def control_text(rev: object) -> str:
    c = rev.control  # type: ignore[attr-defined]
    if c.error is not None and c.type_id not in (0, 1, 3, 4, 5, 6):
        return f" controlType: {c.type_name}({c.type_id})"
    if c.type_id in (0, 1):
        if c.error is not None:
            return f" endTxnMarker: {c.type_name} (invalid: {c.error})"
        return f" endTxnMarker: {c.type_name} coordinatorEpoch: {c.coordinator_epoch}"
    label = {3: "SnapshotHeader", 4: "SnapshotFooter", 5: "KRaftVersion", 6: "KRaftVoters"}
    if c.type_id in label:
        if c.data is None:
            return f" {label[c.type_id]} (invalid: {c.error})"
        return f" {label[c.type_id]} {_json(c.data)}"
    return f" controlType: {c.type_name}({c.type_id})"


def _start_line(f: KafkaFile) -> str | None:
    """The line dumpLog prints after ``Dumping``."""
    if f.kind == "log":
        return f"Log starting offset: {f.base_offset}" if f.base_offset is not None else None
    if f.kind == "bootstrap-snapshot":
        return "KRaft bootstrap snapshot"
    if f.kind == "kraft-snapshot" and f.base_offset is not None:
        return f"Snapshot end offset: {f.base_offset}, epoch: {f.epoch}"
    return None


class DumpTextRenderer:
    """DumpLogSegments' output, line for line."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        skip_record_metadata: bool = False,
        print_data_log: bool = False,
        inert_out: bool = False,
    ) -> None:
        self.out = out
        self.err = err
        #: on a terminal (unless --raw) lines are made inert: what the data holds is shown,
        #: never obeyed; piped, the lines are DumpLogSegments' bytes
        self.inert_out = inert_out
        self.skip = skip_record_metadata
        self.print_contents = print_data_log
        # deferred stderr blocks, keyed by absolute path, in first-seen order
        self.index_mismatches: dict[str, list[tuple[int, int]]] = {}
        self.ts_mismatches: dict[str, list[tuple[int, int]]] = {}
        self.ts_out_of_order: dict[str, list[tuple[int, int]]] = {}
        self.ts_not_found: dict[str, list[tuple[int, int]]] = {}
        self.non_consecutive: dict[str, list[tuple[int, int]]] = {}
        # producer snapshots whose CRC failed: ProducerStateManager.readSnapshot throws
        # CorruptSnapshotException before returning any entry, so none is printed
        self.corrupt_snapshots: set[str] = set()
        #: deferred findings past DEFERRED_MAX, counted: (id of the table, path) -> count
        self.not_kept: dict[tuple[int, str], int] = {}

    def _w(self, line: str) -> None:
        self.out.write((inert(line) if self.inert_out else line) + "\n")

    def _e(self, line: str) -> None:
        # stderr quotes names and data in kdump's messages: inert always
        self.err.write(inert(line) + "\n")

    def emit(self, item: object) -> None:
        if isinstance(item, de.BatchEvent):
            if not item.continued:
                if self.inert_out:
                    self._w(batch_line(item.batch))
                else:
                    self.out.write(batch_text(item.batch))
            if item.records is not None:
                b = item.batch
                text = NotImplemented
                if (_native_text is not None and b.magic >= 2 and not b.is_control
                        and not self.inert_out):
                    # native: the same lines (tests/test_speedups.py), one write per batch
                    text = _native_text(item.records, b.timestamp_type, self.skip,
                                        self.print_contents, de.RecordEvent, Record, Decoded)
                if text is not NotImplemented:
                    self.out.write(text)
                else:
                    for line in record_lines(item, self.skip, self.print_contents):
                        self._w(line)
        elif isinstance(item, de.FileStart):
            self._w(f"Dumping {java_path(item.file.path)}")
            start = _start_line(item.file)
            if start:
                self._w(start)
        elif isinstance(item, de.IndexEntryEvent):
            self._w(f"offset: {item.offset} position: {item.position}")
        elif isinstance(item, de.TimeIndexEntryEvent):
            self._w(f"timestamp: {item.timestamp} offset: {item.offset}")
        elif isinstance(item, de.LogEnd):
            if item.trailing_bytes > 0 and not item.limited:
                name = os.path.basename(item.path)
                self._w(f"Found {item.trailing_bytes} invalid bytes at the end of {name}")
        elif isinstance(item, Problem):
            self._problem(item)
        elif isinstance(item, de.IndexStatus):
            if item.status == "empty":
                self._w(f"{java_path(item.path)} is empty.")
            elif item.status == "sanity-passed":
                self._w(f"{java_path(item.path)} passed sanity check.")
            else:
                self._e(item.message)
        elif isinstance(item, de.TxnIndexEntryEvent):
            t = item.txn
            self._w(
                f"version: {t.version} producerId: {t.producer_id} firstOffset: {t.first_offset} "
                f"lastOffset: {t.last_offset} lastStableOffset: {t.last_stable_offset}"
            )
        elif isinstance(item, de.SnapshotEntryEvent):
            if item.path in self.corrupt_snapshots:
                return
            e = item.entry
            txn_first = e.current_txn_first_offset if e.current_txn_first_offset >= 0 else None
            line = (
                f"producerId: {e.producer_id} producerEpoch: {e.producer_epoch} "
                f"coordinatorEpoch: {e.coordinator_epoch} currentTxnFirstOffset: "
                f"{optional_long(txn_first)} lastTimestamp: {e.timestamp} "
            )
            if e.has_batch_metadata:
                line += (
                    f"firstSequence: {e.first_sequence} lastSequence: {e.last_sequence} "
                    f"lastOffset: {e.last_offset} offsetDelta: {e.offset_delta} "
                    f"timestamp: {e.timestamp}"
                )
            self._w(line)
        elif isinstance(item, de.CheckpointEntryEvent):
            self._w(" ".join(f"{_CAMEL.get(k, k)}: {v}" for k, v in item.fields.items()))
        elif isinstance(item, de.PropertiesEvent):
            if item.values is None:
                self._w("(empty)")
            elif item.kind == "partition-metadata":
                v = item.values
                self._w(f"version: {v.get('version')} topicId: {v.get('topic_id')}")
            elif item.kind == "meta-properties":
                for k, v in item.values.items():
                    self._w(f"{k}={v}")
            else:
                self._w(_json(item.values))
        elif isinstance(item, de.LayoutNote):
            # stdout stays DumpLogSegments' lines: which layout read the records is said
            # on stderr
            self._note(item)
        elif isinstance(item, de.Note):
            self._w(item.text)

    def _note(self, n: de.LayoutNote) -> None:
        """``FILE: note: record layout: ...`` on stderr (stdout: DumpLogSegments' lines)."""
        self._e(f"{n.path}: note: {n.text}")

    def _problem(self, p: Problem) -> None:
        extra = p.extra or {}
        key = java_absolute_path(p.path)
        if p.kind == "index-mismatch" and "check" not in extra:
            self._defer(self.index_mismatches, key).append(
                (extra["index_offset"], extra["log_offset"]))
        elif p.kind in ("index-mismatch", "index-order") and "check" in extra:
            check = extra["check"]
            if check == "timestamp":
                self._defer(self.ts_mismatches, key).append(
                    (extra["index_timestamp"], extra["log_timestamp"]))
            elif check == "order":
                self._defer(self.ts_out_of_order, key).append(
                    (extra["index_timestamp"], extra["previous_timestamp"]))
            elif check == "offset-not-found":
                self._defer(self.ts_not_found, key).append(
                    (extra["index_offset"], extra["log_offset"]))
            else:
                self._e(problem_line(p))
        elif p.kind in ("offset-gap", "offset-order"):
            self._defer(self.non_consecutive, key).append((extra["after"], extra["next"]))
        elif p.kind in ("snapshot-corrupt", "snapshot-crc"):
            self.corrupt_snapshots.add(p.path)
            self._e(p.detail)
        elif p.kind == "unknown-file" and extra.get("ignored"):
            self._e(f"Ignoring unknown file {java_path(p.path)}")
        elif p.kind in ("index-zero-slots", "crc-mismatch"):
            pass  # shown in the output itself (entries stop; isvalid: false)
        else:
            self._e(problem_line(p))

    def _defer(self, table: dict[str, list[tuple[int, int]]], key: str) -> list[tuple[int, int]]:
        """The deferred list of ``key`` in ``table``; past DEFERRED_MAX entries a
        throwaway list, the entry only counted."""
        pairs = table.setdefault(key, [])
        if len(pairs) < DEFERRED_MAX:
            return pairs
        self.not_kept[(id(table), key)] = self.not_kept.get((id(table), key), 0) + 1
        return []

    def _not_kept(self, table: dict[str, list[tuple[int, int]]], key: str) -> None:
        n = self.not_kept.get((id(table), key))
        if n:
            self._e(f"  ... and {n} more (kdump lists the first {DEFERRED_MAX} of a file)")

    def close(self) -> None:
        # DumpLogSegments.main, after the loop over files.  Lists were built by
        # prepending, so pairs print newest first.
        for path, pairs in self.index_mismatches.items():
            self._e(f"Mismatches in :{path}")
            for index_offset, log_offset in reversed(pairs):
                self._e(f"  Index offset: {index_offset}, log offset: {log_offset}")
            self._not_kept(self.index_mismatches, path)
        for path, pairs in self.ts_mismatches.items():
            self._e(f"Found timestamp mismatch in :{path}")
            for a, b in pairs:
                self._e(f"  Index timestamp: {a}, log timestamp: {b}")
            self._not_kept(self.ts_mismatches, path)
        for path, pairs in self.ts_out_of_order.items():
            self._e(f"Found out of order timestamp in :{path}")
            for a, b in pairs:
                self._e(f"  Index timestamp: {a}, Previously indexed timestamp: {b}")
            self._not_kept(self.ts_out_of_order, path)
        for path, pairs in self.ts_not_found.items():
            self._e("The following indexed offsets are not found in the log.")
            for a, b in pairs:
                self._e(f"Indexed offset: {a}, found log offset: {b}")
            self._not_kept(self.ts_not_found, path)
        for path, pairs in self.non_consecutive.items():
            self._e(f"Non-consecutive offsets in {path}")
            for a, b in reversed(pairs):
                self._e(f"  {a} is followed by {b}")
            self._not_kept(self.non_consecutive, path)
        self.out.flush()
        self.err.flush()
