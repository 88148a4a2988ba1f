"""A log dir's checkpoint files (recovery point, log start offset, replication offset,
cleaner offset) against the partitions that exist in it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...errors import KdumpError
from ...files.logdir import KafkaFile
from ...files.text import OFFSET_CHECKPOINTS, iter_checkpoint
from ...findings import INFO, WARNING, Problem
from ...source import FileSource
from .options import METADATA_TOPIC, PartitionState


def _check_root_entries(
    f: KafkaFile, src: FileSource, field_name: str,
    partitions: dict[tuple[str, int], PartitionState], seen_recovery: set[tuple[str, int]],
) -> Iterator[Problem]:
    """A log-dir checkpoint's entries against the partitions, an entry at a time."""
    for e in iter_checkpoint(src, f.kind):
        key = (e.fields["topic"], e.fields["partition"])
        value = e.fields[field_name]
        if f.kind == "recovery-point-offset-checkpoint" and key in partitions:
            seen_recovery.add(key)
        st = partitions.get(key)
        if st is None:
            # a partition named with no directory: the log dir's verdict says what it lost
            # (kdump.ops.verdict.logdir), once, in every command
            continue
        leo = st.log_end_offset
        if field_name in ("recovery_point", "high_watermark"):
            # what the partition's verdict holds against its batches: data-lost with the
            # range, or nothing (kdump.ops.verdict); not a second finding for one range
            continue
        if leo is not None and value > leo:
            what = {"recovery_point": "recovery point", "high_watermark": "high watermark",
                    "log_start_offset": "log start offset",
                    "cleaner_checkpoint": "cleaner checkpoint"}[field_name]
            live = field_name in ("recovery_point", "high_watermark")
            yield Problem(f.path, None, "checkpoint",
                          f"line {e.line}: {what} {value} of {key[0]}-{key[1]} is beyond its "
                          f"log end offset {leo}" + (
                              "; normal in a copy of a live broker's log dir (the broker "
                              "rewrote the checkpoint after the segments were copied, "
                              "LogManager/ReplicaManager checkpoint periodically)"
                              if live else ""), severity=WARNING,
                          extra={"topic": key[0], "partition": key[1], field_name: value,
                                 "log_end_offset": leo})


def verify_root_checkpoints(
    files: list[KafkaFile], partitions: dict[tuple[str, int], PartitionState]
) -> Iterator[Problem]:
    seen_recovery: set[tuple[str, int]] = set()
    have_recovery_file = False
    for f in files:
        if f.kind not in OFFSET_CHECKPOINTS or f.leftover is not None:
            continue
        try:
            with FileSource(f.path) as src:
                for _ in iter_checkpoint(src, f.kind):  # the whole file parses first
                    pass
        except KdumpError as err:
            yield Problem(f.path, err.position, "checkpoint", err.message)
            continue
        field_name = OFFSET_CHECKPOINTS[f.kind]
        if f.kind == "recovery-point-offset-checkpoint":
            have_recovery_file = True
        try:
            src = FileSource(f.path)
        except KdumpError as err:
            yield Problem(f.path, err.position, "checkpoint", err.message)
            continue
        with src:
            try:
                yield from _check_root_entries(f, src, field_name, partitions, seen_recovery)
            except KdumpError as err:  # changed between the two reads
                yield Problem(f.path, err.position, "checkpoint", err.message)
    if have_recovery_file:
        for key, st in sorted(partitions.items()):
            if key not in seen_recovery and key[0] != METADATA_TOPIC:
                yield Problem(st.path, None, "checkpoint",
                              "partition is not in recovery-point-offset-checkpoint (the broker "
                              "recovers it from its first segment)", severity=INFO)
