"""A log dir's own files for ``kdump repair``: what the input's checkpoints say (read
once, for every partition's decisions and for the model of Kafka's recovery), and the
copy's root files.

Decisions, each from Kafka's source (4.1; the same in 3.9-4.3 unless said):

* ``meta.properties``: copied byte for byte (the broker checks its cluster and node ids
  against its config at startup: MetaPropertiesEnsemble).
* ``.kafka_cleanshutdown``: never written, even when the input has one.  Without it
  LogManager.loadLogs treats the log dir as shut down uncleanly, so LogLoader.recoverLog
  re-reads the segments from each partition's recovery point (the copy's last segment:
  already valid, nothing to truncate) and UnifiedLog.rebuildProducerState rebuilds the
  producer state from the nearest producer snapshot kept, replaying the log after it.
  With the marker, rebuildProducerState would instead take *empty* snapshots when none is
  found (its ``reloadFromCleanShutdown`` branch): the producers of a repaired partition
  (idempotence, open transactions, the last stable offset) would be forgotten.  Without
  it the broker also registers with no previous broker epoch
  (LogManager.readBrokerEpochFromCleanShutdownFiles), so the controller treats the restart
  as unclean and does not elect it from the eligible leader replicas (KIP-966).
* ``recovery-point-offset-checkpoint``: each live partition at the copy's log end offset
  (every batch below it was checked and fsynced by the repair); the metadata log is not
  listed (LogManager never loads it: KafkaMetadataLog recovers it from 0 each start).
* ``replication-offset-checkpoint`` (high watermarks): an entry is kept, lowered to the
  copy's log end offset where it was above it, never raised (offsets above the high
  watermark were never acknowledged as committed); a broker does the same clamp
  (UnifiedLog.updateHighWatermark, from Partition.createLog).
* ``log-start-offset-checkpoint``: an entry is kept (LogManager writes one only when the
  log start offset is above the first segment's base: DeleteRecords, retention), lowered
  to the copy's log end offset where it was above it: a log start offset beyond the log
  end makes LogLoader delete every segment (deleteSegmentsIfLogStartGreaterThanLogEnd).
* ``cleaner-offset-checkpoint``: lowered to the copy's log end offset where it was above
  it (LogCleanerManager.cleanableOffsets would otherwise reset it to the log start and
  clean the whole log again).
  Beside partitions given alone (no log dir copied), the input log dirs' entries for
  them, merged, when an input log dir holds one (:func:`lone_cleaner_checkpoint`).
* ``bootstrap.checkpoint``: copied when every batch in it is intact.
* ``.lock`` is the broker's to create; other files are not Kafka's: left out.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...errors import KdumpError
from ...files.logdir import classify
from ...files.text import OFFSET_CHECKPOINTS, iter_checkpoint
from ...source import FileSource
from .staging import file_entry

#: the log-dir checkpoints, in the order the copy writes them, with their field names
CHECKPOINTS = tuple(OFFSET_CHECKPOINTS.items())


@dataclass(slots=True)
class LogDirContext:
    """What a log dir's root files say."""

    path: str
    clean_shutdown: bool = False
    #: checkpoint kind -> {(topic, partition): offset}
    entries: dict[str, dict[tuple[str, int], int]] = field(default_factory=dict)
    #: checkpoint kind -> why it could not be read
    unreadable: dict[str, str] = field(default_factory=dict)

    def value(self, kind: str, topic: str, partition: int) -> int | None:
        return self.entries.get(kind, {}).get((topic, partition))


def read_context(logdir: str) -> LogDirContext:
    ctx = LogDirContext(logdir)
    ctx.clean_shutdown = os.path.isfile(os.path.join(logdir, ".kafka_cleanshutdown"))
    for kind, _ in CHECKPOINTS:
        path = os.path.join(logdir, kind)
        if not os.path.isfile(path):
            continue
        try:
            with FileSource(path) as src:
                ctx.entries[kind] = {(e.fields["topic"], e.fields["partition"]):
                                     int(e.fields[OFFSET_CHECKPOINTS[kind]])
                                     for e in iter_checkpoint(src, kind)}
        except KdumpError as e:
            ctx.unreadable[kind] = str(e)
    return ctx


def checkpoint_bytes(entries: list[tuple[str, int, int]]) -> bytes:
    """An offset checkpoint as CheckpointFile.write writes it: version 0, the count,
    then ``topic partition offset`` lines, each ending in a line feed."""
    lines = ["0", str(len(entries))] + [f"{t} {p} {o}" for t, p, o in entries]
    return ("\n".join(lines) + "\n").encode("utf-8")


def epoch_checkpoint_bytes(entries: list[tuple[int, int]]) -> bytes:
    """leader-epoch-checkpoint (LeaderEpochCheckpointFile: ``epoch startOffset``)."""
    lines = ["0", str(len(entries))] + [f"{e} {o}" for e, o in entries]
    return ("\n".join(lines) + "\n").encode("utf-8")


def clamp_checkpoints(ctx: LogDirContext | None, topic: str, partition: int, leo: int,
                      first_kept: int | None, live: bool, metadata: bool
                      ) -> tuple[dict[str, list[int | None]], list[str]]:
    """Each checkpoint's [before, after] for one partition, and what was changed, in
    words (see the module docstring)."""
    out: dict[str, list[int | None]] = {}
    notes: list[str] = []
    if ctx is None:
        return out, notes
    for kind, name in CHECKPOINTS:
        before = ctx.value(kind, topic, partition)
        if kind == "recovery-point-offset-checkpoint":
            after = before if (metadata or not live) else leo
        elif before is None:
            after = None
        else:
            after = min(before, leo)
        if before is None and after is None:
            continue
        out[name] = [before, after]
        if before is not None and after is not None and after < before:
            what = {"high_watermark": "high watermark", "log_start_offset": "log start offset",
                    "cleaner_checkpoint": "cleaner checkpoint",
                    "recovery_point": "recovery point"}[name]
            notes.append(f"{what} lowered from {before} to {after}, the copy's log end offset"
                         + (": offsets above it were lost, so the high watermark had to come "
                            "down (a broker would clamp it too: UnifiedLog.updateHighWatermark)"
                            if name == "high_watermark" else ""))
        if name == "log_start_offset" and after is not None and first_kept is not None \
                and after > first_kept:
            notes.append(f"log start offset {after} kept above the first kept offset "
                         f"{first_kept}: the records below it were deleted (DeleteRecords or "
                         "retention) and stay deleted (LogLoader takes the larger of it and the "
                         "first segment's base)")
    return out, notes


def root_files(ctx: LogDirContext, files: list[str], partitions: list[dict[str, Any]],
               target: str, stage: Any, intact_log: Any) -> Iterator[dict[str, Any]]:
    """The copy's root files (``partitions``: the repair_partition objects of the live
    partitions of this log dir); ``intact_log(path)``: None when every batch of the file
    frames and holds its checksum, else why not."""
    by_name = {os.path.basename(f): f for f in files}
    written = set()
    for kind, name in CHECKPOINTS:
        entries: list[tuple[str, int, int]] = []
        for p in partitions:
            pair = p["checkpoints"].get(name)
            if pair is not None and pair[1] is not None:
                entries.append((p["topic"], p["partition"], int(pair[1])))
        src = by_name.get(kind)
        if src is None and not entries and kind != "recovery-point-offset-checkpoint":
            continue
        rel = os.path.join(target, kind) if target else kind
        n, h = stage.write(rel, checkpoint_bytes(sorted(entries)))
        written.add(kind)
        why = ctx.unreadable.get(kind)
        detail = (f"{len(entries)} entries at the copy's offsets (see each repair_partition's "
                  "checkpoints)")
        if why is not None:
            detail += f"; the input's does not parse ({why}): its entries were not used"
        yield file_entry(src, rel, "rewritten", detail, n, h)
    for f in files:
        name = os.path.basename(f)
        if name in written:
            continue
        kind = classify(f, in_partition=False).kind
        rel = os.path.join(target, name) if target else name
        if kind == "meta-properties":
            yield copy_file(f, rel, stage, "copied byte for byte")
        elif kind == "clean-shutdown":
            yield file_entry(f, None, "left-out", "not copied: without it the broker recovers the "
                        "copy's last segments and rebuilds producer state from the log "
                        "(LogManager.loadLogs, UnifiedLog.rebuildProducerState)", None, None)
        elif kind == "lock":
            yield file_entry(f, None, "left-out", "the broker's lock file: the broker makes its own",
                        None, None)
        elif kind == "bootstrap-snapshot":
            why = intact_log(f)
            if why is None:
                yield copy_file(f, rel, stage, "copied byte for byte: every batch intact")
            else:
                yield file_entry(f, None, "left-out", f"damaged ({why}): not copied", None, None)
        else:
            yield file_entry(f, None, "left-out", "not a file Kafka writes at a log dir's root"
                        + (" (a leftover: Kafka deletes it)" if classify(
                            f, in_partition=False).leftover else ""), None, None)


CLEANER = "cleaner-offset-checkpoint"


def lone_cleaner_checkpoint(inputs: list[tuple[LogDirContext | None, dict[str, Any]]],
                            stage: Any) -> dict[str, Any] | None:
    """The ``cleaner-offset-checkpoint`` at the copy's root beside partitions given alone
    (``inputs``: each one's input log dir, read, and its ``repair_partition``), holding
    their input log dirs' entries at the copy's offsets, merged; None when no input log
    dir holds one.  Kafka's LogCleaner creates the file at start-up (CheckpointFile
    creates a missing file) and LogCleanerManager.updateCheckpoints keeps an entry for
    every log the cleaner compacted (4.1), so the verdict reads its presence, without an
    entry, as "cleanup.policy=delete" (kdump/ops/verdict/partition.py ``cleanup_of``):
    written here, the copy is judged under the same evidence as the input, and a gap the
    repair left is ``data-lost`` in both, as the manifest's ``lost_offsets`` say."""
    sources = [c for c, _ in inputs if c is not None
               and os.path.isfile(os.path.join(c.path, CLEANER))]
    if not sources:
        return None
    entries: list[tuple[str, int, int]] = []
    for ctx, p in inputs:
        pair = p["checkpoints"].get("cleaner_checkpoint")
        if ctx in sources and pair is not None and pair[1] is not None:
            entries.append((p["topic"], p["partition"], int(pair[1])))
    n, h = stage.write(CLEANER, checkpoint_bytes(sorted(entries)))
    dirs = sorted({c.path for c in sources})
    detail = (f"{len(entries)} entries of the partitions given alone, at the copy's offsets, "
              f"from the cleaner-offset-checkpoint of {', '.join(dirs)}: the copy is judged "
              "under the same cleanup-policy evidence as the input")
    bad = sorted({f"{c.path} ({c.unreadable[CLEANER]})" for c in sources
                  if CLEANER in c.unreadable})
    if bad:
        detail += f"; it does not parse in {', '.join(bad)}: its entries were not used"
    return file_entry(os.path.join(dirs[0], CLEANER) if len(dirs) == 1 else None, CLEANER,
                      "rewritten", detail, n, h)


def copy_file(src: str, rel: str, stage: Any, detail: str) -> dict[str, Any]:
    """A small file copied byte for byte; one that cannot be read (not a regular file,
    a read error) is left out, named."""
    try:
        s = FileSource(src)
    except KdumpError as e:
        return file_entry(src, None, "left-out", f"cannot be read ({e.message}): not copied", None,
                     None)
    out = stage.create(rel)
    with s:
        pos = 0
        while pos < s.size:
            chunk = s.pread(pos, min(1 << 20, s.size - pos))
            if not chunk:
                break
            out.write(chunk)
            pos += len(chunk)
    n, h = stage.finish(out)
    return file_entry(src, rel, "copied", detail, n, h)



__all__ = ["CHECKPOINTS", "LogDirContext", "checkpoint_bytes", "clamp_checkpoints",
           "epoch_checkpoint_bytes", "lone_cleaner_checkpoint", "read_context", "root_files"]
