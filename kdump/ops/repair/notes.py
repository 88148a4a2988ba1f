"""The notes of a ``repair_partition`` object that weigh the copy against the input's
own records of what was written: its leader-epoch-checkpoint (LeaderEpochFileCache) and,
for the KRaft metadata log, its snapshots (KafkaMetadataLog, KafkaRaftClient)."""

from __future__ import annotations

from ...errors import KdumpError
from ...files.logdir import KafkaFile
from ...files.text import read_checkpoint
from ...source import FileSource


def epoch_notes(path: str, epochs: list[tuple[int, int]], leo: int) -> list[str]:
    """What the copy's rebuilt leader-epoch-checkpoint (``epochs``, log end ``leo``) leaves
    of the input's at ``path``: entries no kept batch carries (LogLoader truncates the
    cache to the log's ends at load anyway: LeaderEpochFileCache.truncateFromEndAsyncFlush,
    truncateFromStartAsyncFlush), epochs starting elsewhere."""
    try:
        with FileSource(path) as src:
            cp = read_checkpoint(src, "leader-epoch-checkpoint")
    except KdumpError as e:
        return [f"the input's leader-epoch-checkpoint does not parse ({e}): rebuilt from the "
                "batches"]
    have = dict(epochs)
    # one note per kind, each naming its epochs (a partition whose leadership moved 50
    # times with nothing written gave 50 lines of the same words)
    idle: list[tuple[int, int]] = []  # no batch, at or past the copy's end: never led
    gone: list[tuple[int, int]] = []  # no batch below the end: their batches were dropped
    moved: list[tuple[int, int, int]] = []
    for entry in cp.entries:
        epoch, start = entry.fields["epoch"], entry.fields["start_offset"]
        if epoch not in have:
            (idle if start >= leo else gone).append((epoch, start))
        elif have[epoch] != start:
            moved.append((epoch, have[epoch], start))
    notes = []
    if gone:
        notes.append(f"{_epochs(gone)} of the input's leader-epoch-checkpoint "
                     f"{'has' if len(gone) == 1 else 'have'} no batch in the copy: not written")
    if idle:
        notes.append(f"{_epochs(idle)} of the input's leader-epoch-checkpoint "
                     f"{'has' if len(idle) == 1 else 'have'} no batch in the copy: not written "
                     f"({'a leader' if len(idle) == 1 else 'leaders'} that wrote nothing: "
                     "LogLoader drops such an entry at load, "
                     "LeaderEpochFileCache.truncateFromEndAsyncFlush)")
    if moved:
        shown = ", ".join(f"{e} at offset {copy} ({inp} in the input)"
                          for e, copy, inp in moved[:_SHOWN])
        more = f" and {len(moved) - _SHOWN} more" if len(moved) > _SHOWN else ""
        notes.append(f"{'leader epoch' if len(moved) == 1 else 'leader epochs'} starting "
                     f"elsewhere in the copy than in the input's leader-epoch-checkpoint: "
                     f"{shown}{more}")
    return notes


#: epochs named one by one in a note; more are counted
_SHOWN = 5


def _epochs(entries: list[tuple[int, int]]) -> str:
    """``leader epoch 7 (from offset 120)``, or runs of consecutive epochs starting at one
    offset: ``50 leader epochs: 1-50 from offset 9``, ``3 leader epochs: 2 from offset 0,
    3-4 from offset 9`` (the first :data:`_SHOWN` runs, then a count)."""
    if len(entries) == 1:
        epoch, start = entries[0]
        return f"leader epoch {epoch} (from offset {start})"
    runs: list[list[int]] = []  # [first epoch, last epoch, start offset]
    for epoch, start in entries:
        if runs and runs[-1][1] + 1 == epoch and runs[-1][2] == start:
            runs[-1][1] = epoch
        else:
            runs.append([epoch, epoch, start])
    shown = ", ".join((f"{a}" if a == b else f"{a}-{b}") + f" from offset {o}"
                      for a, b, o in runs[:_SHOWN])
    more = f" and {len(runs) - _SHOWN} more" if len(runs) > _SHOWN else ""
    return f"{len(entries)} leader epochs ({shown}{more})"


def metadata_notes(by_kind: dict[str, list[KafkaFile]], bases: list[int],
                    holes: list[tuple[int, int]], kept: list[int]) -> list[str]:
    """What a KRaft log's copy means for the quorum.  A replay starts from the latest
    snapshot (KafkaRaftClient, MetadataLoader): offsets missing below it are not needed;
    above it the replay would skip records, and a voter never fetches below its log end
    again.  With a log start above 0, a snapshot at or above it must exist, or the broker
    refuses to start (KafkaMetadataLog.recoverSnapshots, 4.1)."""
    notes = []
    latest = max(kept, default=None)
    for first, last in holes:
        if latest is not None and last < latest:
            notes.append(f"offsets {first}-{last} missing from the metadata log lie below the "
                         f"kept snapshot at offset {latest}: a replay starts from it and does "
                         "not need them")
        else:
            notes.append(f"offsets {first}-{last} missing from the metadata log: a replay "
                         "skips their records and a voter never fetches offsets below its log "
                         "end again; prefer a healthy controller's copy of this log")
    start = bases[0] if bases else 0
    if start > 0 and not any(s >= start for s in kept):
        notes.append(f"the metadata log starts at offset {start} and no intact KRaft snapshot "
                     "at or above it is kept: the broker will refuse to start (KafkaMetadataLog."
                     "recoverSnapshots: \"Inconsistent snapshot state\")")
    return notes


__all__ = ["epoch_notes", "metadata_notes"]
