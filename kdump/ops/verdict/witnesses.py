"""What a partition's files prove was written, and what of it no batch on disk holds.

"Clean" is a claim about what is missing too.  Besides its batches, a partition leaves
witnesses of how far its log reached: its log dir's checkpoints, its leader-epoch
checkpoint, the entries of its indexes, its producer-state snapshot names, its segment
names, its ``.txnindex`` entries and other brokers' replicas.  Each one proves that the
offsets below some offset were written (an exclusive end); an offset range a witness
proves written but no batch on disk holds is lost on this replica (``data-lost``).

What each witness proves, from Kafka's source (release 4.3 unless said, the same
since 2.8):

* ``high-watermark`` (``replication-offset-checkpoint``): the high watermark is never
  beyond the log end: ``UnifiedLog.updateHighWatermarkMetadata`` raises when asked
  to (``newHighWatermark.messageOffset > logEndOffset()``), ``updateHighWatermark``
  clamps to the log end, a follower's is ``min(leader's, its own log end)``; the file
  is written from that value (``ReplicaManager.checkpointHighWatermarks``).  It may
  lag the log end (never a finding).
* ``recovery-point`` (``recovery-point-offset-checkpoint``): the offset up to which
  the log was flushed (``UnifiedLog.flush`` → ``updateRecoveryPoint``); LogLoader.recoverLog
  only lowers a checkpoint above the log end (``Math.min(recoveryPointCheckpoint,
  logEndOffset)``): flushed data gone is what a lost tail looks like.
* ``log-start-offset`` (``log-start-offset-checkpoint``): the log start is never past
  the log end; ``LogLoader.deleteSegmentsIfLogStartGreaterThanLogEnd`` deletes every
  segment of a log whose end is below it ("This could happen if segment files were
  deleted from the file system").  Offsets below the log start are deleted by design:
  it bounds what must be readable, it never makes a lost range by itself.
* ``leader-epoch-checkpoint``: an entry's start offset is the log end when the epoch
  began (``Partition.makeLeader`` → ``UnifiedLog.maybeAssignEpochStartOffset(epoch,
  logEndOffset)``) or the base offset of a batch appended (``UnifiedLog.append`` →
  ``LeaderEpochFileCache.assign``): the offsets below it were written.
* ``offset-index`` / ``time-index``: an entry is appended only for a batch written
  (``LogSegment.append``: ``offsetIndex().append(batchLastOffset, physicalPosition)``,
  ``timeIndex().maybeAppend(maxTimestampSoFar, shallowOffsetOfMaxTimestampSoFar)``;
  ``LogSegment.recover`` rebuilds both from the batches): its offset was written.  The
  zero slots of a preallocated index (an active segment, a copy of a live broker) are no
  entries (:func:`kdump.files.index.written_entries`); an index failing
  ``OffsetIndex.sanityCheck``/``TimeIndex.sanityCheck`` is no witness.
* ``producer-snapshot``: ``ProducerStateManager.takeSnapshot`` names the file
  ``LogFileUtils.producerSnapshotFile(logDir, lastMapOffset)``: the log end when it
  was taken.  Its entries' last offsets are below that name, so they prove no more.
* ``segment-name``: a segment is rolled at the log end (``UnifiedLog.roll``:
  ``newOffset = Math.max(expectedNextOffset, logEndOffset())``): a segment named ``B``
  proves the offsets below ``B`` were written.  In a delete-policy topic the segments
  are contiguous (the next one starts where the last one ended); the log cleaner
  removes records of a compacted topic's closed segments, so gaps there are
  information (``LogCleaner.cleanSegments``; it never cleans the active segment:
  ``LogCleanerManager`` bounds the cleanable range by its base offset); so are those of a
  topic compacted until its policy changed, in the segments whose records all predate
  the change (``PartitionWitnesses._judge_changed``).
* ``txnindex``: an aborted transaction's last offset is its abort marker's offset
  (``LogSegment.updateTxnIndex`` → ``TransactionIndex.append``): written.
* ``replica``: another broker of the same cluster (``cluster.id`` of meta.properties),
  another node, holding the partition: the offsets below its log end were written on
  that broker.  A follower behind its leader is not damage, so a range only another
  replica holds is information (replication lag), never ``data-lost`` by itself.

Files of ``-delete``, ``-future`` and ``-stray`` directories witness nothing (a future
replica still catching up is checkpointed with the current one's high watermark:
``ReplicaManager.checkpointHighWatermarks``), nor do leftover files (``.deleted``,
``.cleaned``, ``.swap``); a ``.log.swap`` counts as its segment's log (LogLoader
renames it into place).  ``__consumer_offsets`` commits are not witnesses: the
OffsetCommit API accepts any offset a client sends.

Size: over 600 lines, as it is one subject: each witness read from its file, the ranges
they prove lost, and the findings every command makes of them (:class:`LostTracker`),
with the Kafka source argued beside each rule.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ... import fs as kfs
from ...errors import KdumpError
from ...files.index import (
    OffsetIndex,
    TimeIndex,
    TimeIndexEntry,
    offset_index_sanity,
    written_entries,
)
from ...files.logdir import classify, parse_partition_dir
from ...files.text import checkpoint_value, iter_checkpoint
from ...files.txnindex import read_txn_index
from ...findings import INFO, Problem
from ...fs import Listing
from ...source import FileSource
from ...timestamps import iso_ms
from ..replica_groups import log_dir_identity

#: witness name -> (what it is called in a sentence, what it proves)
WITNESS_KINDS: dict[str, tuple[str, str]] = {
    "high-watermark": ("high watermark",
                       "replication-offset-checkpoint: the offsets below it were committed"),
    "recovery-point": ("recovery point",
                       "recovery-point-offset-checkpoint: the offsets below it were flushed"),
    "log-start-offset": ("log start offset",
                         "log-start-offset-checkpoint: the log end reached it"),
    "leader-epoch-checkpoint": ("leader epoch start offset",
                                "leader-epoch-checkpoint: the log end reached an epoch's "
                                "start offset"),
    "offset-index": ("offset index entry",
                     "an entry is written only for a batch written: its offset was"),
    "time-index": ("time index entry",
                   "an entry is written only for a batch written: its offset was"),
    "producer-snapshot": ("producer snapshot",
                          "<offset>.snapshot is named at the log end when it was taken"),
    "segment-name": ("segment",
                     "a segment named <offset> was rolled when the log end reached it"),
    "txnindex": ("aborted transaction",
                 "a .txnindex entry's last offset is its abort marker's, written"),
    "batch": ("batch at offset",
              "a batch on disk at offset <offset> was appended at the log end: the offsets "
              "below it were written"),
    "replica": ("replica", "another broker's copy of the partition holds the offsets below "
                "its log end"),
}


@dataclass(frozen=True, slots=True)
class Witness:
    """One witness: ``name`` (a key of :data:`WITNESS_KINDS`), the file that says it
    (``path``), and what it proves: the offsets below ``end`` were written (exclusive);
    ``offset`` is the one offset it names written (an index entry, an abort marker),
    then ``end == offset + 1``.  ``broker_id``: the other broker (a ``replica``)."""

    name: str
    path: str
    end: int
    offset: int | None = None
    broker_id: int | None = None

    @property
    def label(self) -> str:
        """``high watermark 17097``, ``offset index entry 1200``, ``segment 5000``."""
        what = WITNESS_KINDS.get(self.name, (self.name, ""))[0]
        if self.name == "replica":
            return f"replica on broker {self.broker_id} (log end {self.end})"
        return f"{what} {self.offset if self.offset is not None else self.end}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"witness": self.name, "path": self.path, "end": self.end}
        if self.offset is not None:
            out["offset"] = self.offset
        if self.broker_id is not None:
            out["broker_id"] = self.broker_id
        return out


@dataclass(frozen=True, slots=True)
class LostRange:
    """Offsets ``first``..``last`` (inclusive) that ``witnesses`` prove written and no
    batch given holds.  ``explained`` is None for data lost (an error); otherwise why
    the gap may be Kafka's own doing (information): compaction, a replica behind."""

    first: int
    last: int
    witnesses: tuple[Witness, ...]
    explained: str | None = None
    #: past the last batch on disk (a torn tail, rather than a hole between batches)
    tail: bool = False
    #: why a lost range is not explained where one might think so (a segment written
    #: after its topic's compact period), said after the finding's words
    note: str | None = None

    @property
    def count(self) -> int:
        return self.last - self.first + 1

    @property
    def offsets_text(self) -> str:
        """``offset 7`` or ``offsets 7-99``."""
        return f"offset {self.first}" if self.first == self.last \
            else f"offsets {self.first}-{self.last}"

    @property
    def witnesses_text(self) -> str:
        """``high watermark 17097, offset index entry 1200``."""
        return ", ".join(w.label for w in self.witnesses)

    def to_json(self) -> dict[str, Any]:
        return {"lost_offsets": [self.first, self.last],
                "witnesses": [w.to_json() for w in self.witnesses],
                "explained": self.explained}


@dataclass(slots=True)
class SegmentFiles:
    """A segment's files by base offset: its log (None: missing) and the other files
    named for it (indexes, .txnindex); ``max_timestamp``: its largest timestamp, its
    time index's last entry (LogSegment.largestTimestamp reads it there; written at roll
    by LogSegment.onBecomeInactiveSegment, ``timeIndex.maybeAppend(maxTimestampSoFar)``,
    4.3; a cleaned segment's too: Cleaner.cleanSegments; None: no sane entry read)."""

    base: int
    log: str | None = None
    others: list[str] = field(default_factory=list)
    max_timestamp: int | None = None


def _merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if b < a:
            continue
        if out and a <= out[-1][1] + 1:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


@dataclass(slots=True)
class PartitionWitnesses:
    """Every witness of one partition directory (:func:`partition_witnesses` builds it).

    ``compacted``: the topic's ``cleanup.policy`` includes ``compact`` (gaps between
    batches are then the cleaner's, information); ``log_start``: the
    log-start-offset-checkpoint's entry (None: none); ``segments``: the segment files
    by base offset; ``skipped_replicas``: other log dirs given that were not used, and
    why (another cluster, the same node)."""

    directory: str
    topic: str
    partition: int
    compacted: bool = False
    log_start: int | None = None
    witnesses: list[Witness] = field(default_factory=list)
    segments: dict[int, SegmentFiles] = field(default_factory=dict)
    skipped_replicas: list[tuple[str, str]] = field(default_factory=list)
    #: something beyond Kafka's default says the cleanup policy (kdump.ops.verdict.Cleanup)
    policy_known: bool = True
    #: a topic not compacted now that its KRaft metadata history says was compacted
    #: before (``Cleanup.history``: the words of its last compact period; None: none
    #: known) and when that period ended (``Cleanup.compact_until``: epoch ms on the
    #: controllers' clock; None: not known)
    policy_history: str | None = None
    compact_until: int | None = None
    #: the :class:`kdump.ops.verdict.Cleanup` to ask for a compact period in the whole
    #: history when a gap would be lost and none is known (``Cleanup.deepened``; asked
    #: once, then None)
    deeper: Any = None

    def add(self, w: Witness) -> None:
        """One more witness (a caller's own: e.g. a replica read elsewhere)."""
        if w.end > 0:
            self.witnesses.append(w)

    def _own(self, include_replicas: bool) -> list[Witness]:
        return [w for w in self.witnesses if include_replicas or w.name != "replica"]

    def highest_written(self, *, include_replicas: bool = True
                        ) -> tuple[int, tuple[Witness, ...]]:
        """The highest exclusive end any witness proves written, and the witnesses
        proving it (``(0, ())`` without any).  A log's next offset (what the broker
        assigns next) must be at or above it, or an offset is handed out twice."""
        ws = self._own(include_replicas)
        if not ws:
            return 0, ()
        top = max(w.end for w in ws)
        return top, tuple(w for w in ws if w.end == top)

    def missing_logs(self) -> list[SegmentFiles]:
        """Segments whose ``.log`` is gone while other files still name them."""
        return [s for _, s in sorted(self.segments.items()) if s.log is None]

    def active_base(self) -> int | None:
        """The base offset of the last segment that has its log (the active one)."""
        bases = [b for b, s in self.segments.items() if s.log is not None]
        return max(bases) if bases else None

    def expected_start(self) -> int:
        """The lowest offset that should be readable: the first segment's base (any
        file naming one), raised to the log start offset; without any segment file,
        the lowest offset a witness names (the log start, an epoch's start offset, a
        snapshot's name), else 0."""
        if self.segments:
            start = min(self.segments)
        else:
            lows = [w.offset if w.offset is not None else w.end for w in self.witnesses
                    if w.name in ("leader-epoch-checkpoint", "producer-snapshot")]
            start = min(lows) if lows else 0
        if self.log_start is not None:
            start = max(start, self.log_start)
        return start

    def lost_ranges(self, readable: Iterable[tuple[int, int]], *,
                    include_replicas: bool = False) -> list[LostRange]:
        """The offset ranges witnesses prove written that no batch in ``readable`` holds
        (``readable``: the ``(first, last)`` offsets, inclusive, of the batches framed
        on disk, whatever their CRC: a damaged batch is its own finding).  Ranges below
        :meth:`expected_start` are deleted by design and never lost.  In a compacted
        topic a gap below the active segment's base with no index entry in it is the
        cleaner's (``explained``); a range only another replica holds is explained as
        replication lag."""
        start = self.expected_start()
        held = _merge(readable)
        # a batch at offset B was appended at the log end (UnifiedLog.append assigns
        # offsets from the log end; a follower appends its leader's batches as they are):
        # the offsets below B were written, like a segment named B
        own = self._own(False) + [Witness("batch", self.directory, a, a)
                                  for a, _b in held if a > start and a not in self.segments]
        end = max((w.end for w in own), default=0)
        every = own + [w for w in self.witnesses if w.name == "replica"] \
            if include_replicas else own
        top = max((w.end for w in every), default=0)
        holes: list[tuple[int, int, bool]] = []  # first, last, a batch lies above it
        at = start
        for a, b in held:
            if b < at:
                continue
            if a > at:
                holes.append((at, min(a - 1, top - 1), True))
            at = max(at, b + 1)
            if at >= top:
                break
        if at < top:
            holes.append((at, top - 1, False))
        out: list[LostRange] = []
        active = self.active_base()
        for a, b, inside in holes:
            if b < a:
                continue
            # compacted: a hole between two batches is the cleaner's (or a follower's
            # copy of its leader's cleaned segments, appended to its active segment)
            cut = None if inside else active
            if inside and not self.compacted and not self.policy_known \
                    and active is not None and b < active \
                    and not any(a < base <= b + 1 for base in self.segments):
                # between two batches of a closed segment, and nothing says the topic is
                # not compacted (no cleaner-offset-checkpoint beside it, no config read)
                out.append(LostRange(a, b, _proving(a, b, own), UNKNOWN_POLICY))
                continue
            if a < end <= b:  # the part only a replica proves: split it off
                out.extend(self._judge(a, end - 1, own, cut, active if inside else None))
                out.append(self._replica_range(end, b, every))
            elif a >= end:
                out.append(self._replica_range(a, b, every))
            else:
                out.extend(self._judge(a, b, own, cut, active if inside else None))
        last_held = held[-1][1] if held else None
        return [replace(r, tail=last_held is None or r.first > last_held)
                for r in out if r.witnesses]

    def _replica_range(self, a: int, b: int, ws: list[Witness]) -> LostRange:
        return LostRange(a, b, _proving(a, b, [w for w in ws if w.name == "replica"]),
                         "only another broker's replica holds them (a follower behind its "
                         "leader, or a copy taken at another time)")

    def _judge(self, a: int, b: int, own: list[Witness], active: int | None,
               between: int | None = None) -> list[LostRange]:
        """The range ``a``..``b`` no batch holds, judged: ``active`` bounds the cleaner's
        reach in a compacted topic (None: a hole between batches, which a follower may
        copy from its leader); ``between``: the active segment's base when the range is
        a hole between batches (None: past the last batch)."""
        ws = _proving(a, b, own)
        if not self.compacted and ws and between is not None and a < between:
            if self.policy_history is None and self.deeper is not None:
                more, self.deeper = self.deeper.deepened(), None
                if more is not None:
                    self.policy_history, self.compact_until = more.history, more.compact_until
            if self.policy_history is not None:
                return self._judge_changed(a, b, own, between)
        if not self.compacted or not ws:
            return [LostRange(a, b, ws)]
        # compacted: below the active segment's base, gaps are the cleaner's unless an
        # index entry names an offset inside them or their segment's log is missing
        cut = b if active is None else min(b, active - 1)
        out: list[LostRange] = []
        if a <= cut:
            points = [w for w in ws if w.name in ("offset-index", "time-index")
                      and w.offset is not None and a <= w.offset <= cut]
            missing = [s.base for s in self.missing_logs() if a <= s.base <= cut]
            if points or missing:
                out.append(LostRange(a, cut, _proving(a, cut, own)))
            else:
                out.append(LostRange(a, cut, _proving(a, cut, own),
                                     "cleanup.policy=compact: the log cleaner removes records"))
        if cut < b:  # at or above the active segment's base: the cleaner never goes there
            first = max(a, cut + 1)
            out.append(LostRange(first, b, _proving(first, b, own)))
        return out

    def _judge_changed(self, a: int, b: int, own: list[Witness], active: int
                       ) -> list[LostRange]:
        """A hole between batches of a topic compacted until its policy changed (the
        KRaft metadata's history): below the active segment's base it is the cleaner's
        when every segment it lies in holds only records older than the change.

        While compact, the log cleaner cleaned closed segments only, below the first
        uncleanable offset (LogCleanerManager.cleanableOffsets: never the active
        segment's base or past it; Cleaner.cleanSegments rewrites a group of them under
        the first one's base offset, 4.3; LogCleaner.Cleaner in 3.9 and 4.0); once the
        policy holds no ``compact`` it takes the log no more
        (LogCleanerManager.grabFilthiestCompactedLog filters on ``config.compact``).  So
        a segment holding a record stamped after the change (its largest timestamp, the
        time index's last entry) was still being written then and was never cleaned:
        its gaps are lost.  Without a timestamp the gap is explained on the history
        alone, and said so.  An index entry naming an offset in the gap, or a segment
        whose ``.log`` is gone, says it is no cleaner's, as in a compacted topic."""
        cut = min(b, active - 1)
        out: list[LostRange] = []
        ws = _proving(a, cut, own)
        bases = sorted(x for x in self.segments if x <= cut)
        holding = max((x for x in bases if x <= a), default=None)  # the one ``a`` is in
        touched = [self.segments[x] for x in bases if x > a or x == holding]
        points = [w for w in ws if w.name in ("offset-index", "time-index")
                  and w.offset is not None and a <= w.offset <= cut]
        missing = [s.base for s in touched if s.log is None]
        until = self.compact_until
        later = [s for s in touched if until is not None and s.max_timestamp is not None
                 and s.max_timestamp >= until]
        unknown = until is None or any(s.max_timestamp is None for s in touched)
        history = self.policy_history
        if points or missing:
            out.append(LostRange(a, cut, ws))
        elif later:
            s = later[0]
            out.append(LostRange(a, cut, ws, note=(
                f"the topic was compacted until its policy changed ({history}), but segment "
                f"{s.base} holds records written after that (its largest timestamp "
                f"{iso_ms(s.max_timestamp)}, its time index's last entry): the cleaner never "
                "cleaned it")))
        else:
            why = f"{POLICY_CHANGED} ({history}): the log cleaner's, "
            if unknown:
                blind = [str(s.base) for s in touched if s.max_timestamp is None]
                why += ("judged on the policy history alone (no time for the change)"
                        if until is None or not blind else
                        "judged on the policy history alone (no largest timestamp read for "
                        f"segment{'s' if len(blind) > 1 else ''} {', '.join(blind)})")
            else:
                why += ("in segments closed before the change (largest timestamp "
                        + ", ".join(f"{iso_ms(s.max_timestamp)} in segment {s.base}"
                                    for s in touched)
                        + "; the producers' or brokers' clock against the controllers')")
            out.append(LostRange(a, cut, ws, why))
        if cut < b:  # at or above the active segment's base: the cleaner never goes there
            out.append(LostRange(cut + 1, b, _proving(cut + 1, b, own)))
        return out


#: how the words of a gap the policy history explains begin (the cleaner's, before the
#: topic's cleanup.policy changed from compact)
POLICY_CHANGED = "the topic was compacted until its policy changed"

#: why a gap between two batches of a closed segment is not called lost when nothing says
#: the topic's cleanup policy (a partition directory given without its log dir)
UNKNOWN_POLICY = ("nothing here says the topic's cleanup.policy (no cleaner-offset-checkpoint "
                  "beside it, no --config, no KRaft metadata): the log cleaner of a compacted "
                  "topic leaves such gaps (--config TOPIC:cleanup.policy=delete says they are "
                  "lost)")


def _proving(a: int, b: int, ws: Sequence[Witness]) -> tuple[Witness, ...]:
    """The witnesses proving offset ``a`` (and so some of ``a``..``b``) written: an
    end above it.  One per name, the nearest (the lowest such end), in
    :data:`WITNESS_KINDS` order."""
    best: dict[str, Witness] = {}
    for w in ws:
        if w.end <= a:
            continue
        cur = best.get(w.name)
        if cur is None or w.end < cur.end:
            best[w.name] = w
    order = list(WITNESS_KINDS)
    return tuple(sorted(best.values(), key=lambda w: (order.index(w.name)
                                                      if w.name in order else 99, w.end)))




def _epoch_start_offsets(path: str) -> list[int]:
    try:
        with FileSource(path) as src:
            return [int(e.fields["start_offset"])
                    for e in iter_checkpoint(src, "leader-epoch-checkpoint")]
    except KdumpError:
        return []


def _index_witness(path: str, base: int, kind: str) -> tuple[Witness | None, int | None]:
    """The last entry an index was written with (its zero preallocated tail and an
    index the broker would rebuild are no witness), and a time index's last timestamp
    (the segment's largest, once it is closed)."""
    try:
        with FileSource(path) as src:
            index = OffsetIndex(src, base, chunk=4096) if kind == "offset-index" \
                else TimeIndex(src, base, chunk=4096)
            sane = offset_index_sanity(index) if isinstance(index, OffsetIndex) \
                else _time_sane(index)
            if sane is not None:
                return None, None
            n = written_entries(index)
            if n == 0:
                return None, None
            last = index.entry(n - 1)
            offset = last.offset
            ts = last.timestamp if isinstance(last, TimeIndexEntry) else None
    except KdumpError:
        return None, None
    if offset < base:
        return None, None
    return Witness(kind, path, offset + 1, offset), ts


def _time_sane(index: TimeIndex) -> str | None:
    """TimeIndex.sanityCheck on the written entries only: a preallocated time index of
    an active segment fails the check on its zero last slot, yet its written entries
    are the broker's."""
    if not index.size_is_multiple:
        return "not a multiple of the entry size"
    n = written_entries(index)
    if n and index.entry(n - 1).timestamp < index.entry(0).timestamp:
        return "timestamps descend"
    return None


def _txn_witness(path: str) -> Witness | None:
    try:
        with FileSource(path) as src:
            last = max((t.last_offset for t in read_txn_index(src)), default=None)
    except KdumpError:
        return None
    return None if last is None or last < 0 else Witness("txnindex", path, last + 1, last)


def partition_witnesses(partition_dir: str, *, compacted: bool = False,
                        replicas: Iterable[str] = (), listing: Listing | None = None
                        ) -> PartitionWitnesses | None:
    """The witnesses of the partition directory ``partition_dir`` (its log dir is its
    parent: checkpoints are read once per log dir, :func:`kdump.files.text.checkpoint_value`).
    ``compacted``: the topic's cleanup.policy includes compact (resolve it with
    :class:`kdump.ops.topics.config.Resolver`, Kafka's default is delete).
    ``replicas``: other log dirs given in the same command; a partition directory of
    the same name in one of them, of the same cluster.id and another node, is a
    ``replica`` witness (its log end, read from its last segment: :func:`replica_log_end`).
    None when the directory is no partition's, or a ``-delete``/``-future``/``-stray`` one,
    or it is there but cannot be listed (unknown, not lost)."""
    part = parse_partition_dir(os.path.basename(os.path.normpath(partition_dir)))
    if part is None or part.state is not None or part.topic_id is not None:
        return None
    pw = PartitionWitnesses(partition_dir, part.topic, part.partition, compacted)
    lst = listing if listing is not None else Listing()
    try:
        names = sorted(lst.listdir(partition_dir))
    except FileNotFoundError:  # gone: its checkpoints alone witness (the log dir's verdict)
        names = []
    except OSError:
        # there but not listable (permission, I/O): what it holds is unknown, not lost;
        # the walk's unreadable-file finding is the one to give
        if kfs.is_url(partition_dir) or not os.path.lexists(partition_dir):
            names = []
        else:
            return None
    # in an object store, the names (one listing) and the log dir's checkpoints (a read
    # each, once per log dir) only: no request per index file
    remote = kfs.is_url(partition_dir)
    for name in names:
        path = partition_dir.rstrip("/") + "/" + name if remote \
            else os.path.join(partition_dir, name)
        f = classify(path, part)
        if remote and f.kind not in ("log", "offset-index", "time-index", "txn-index",
                                     "producer-snapshot"):
            continue
        if f.base_offset is None:
            if f.kind == "leader-epoch-checkpoint" and f.leftover is None:
                starts = _epoch_start_offsets(path)
                if starts:
                    pw.add(Witness("leader-epoch-checkpoint", path, max(starts)))
            continue
        if f.kind == "producer-snapshot" and f.leftover is None:
            pw.add(Witness("producer-snapshot", path, f.base_offset))
            continue
        if f.kind not in ("log", "offset-index", "time-index", "txn-index"):
            continue
        if f.leftover is not None and not (f.kind == "log" and f.leftover == "swap"):
            continue
        seg = pw.segments.setdefault(f.base_offset, SegmentFiles(f.base_offset))
        if f.kind == "log":
            seg.log = path
            continue
        seg.others.append(path)
        if remote:
            continue
        if f.kind == "txn-index":
            w = _txn_witness(path)
        else:
            w, ts = _index_witness(path, f.base_offset, f.kind)
            if ts is not None:
                seg.max_timestamp = ts
        if w is not None:
            pw.add(w)
    for base, seg in pw.segments.items():
        pw.add(Witness("segment-name", seg.log or seg.others[0], base))
    for name, wname in (("replication-offset-checkpoint", "high-watermark"),
                        ("recovery-point-offset-checkpoint", "recovery-point"),
                        ("log-start-offset-checkpoint", "log-start-offset")):
        v = checkpoint_value(partition_dir, name, part.topic, part.partition)
        if v is None:
            continue
        if wname == "log-start-offset":
            pw.log_start = v
        pw.add(Witness(wname, kfs.dirname(kfs.abspath(partition_dir)) + "/" + name, v))
    if not remote:
        _add_replicas(pw, partition_dir, replicas)
    return pw


def _add_replicas(pw: PartitionWitnesses, partition_dir: str, replicas: Iterable[str]) -> None:
    here = kfs.dirname(kfs.abspath(partition_dir))
    me = log_dir_identity(here)
    cluster, node = me.cluster_id, me.node_id
    for other in replicas:
        if kfs.abspath(other) == here:
            continue
        them = log_dir_identity(other)
        their_cluster, their_node = them.cluster_id, them.node_id
        if cluster is None or their_cluster != cluster:
            pw.skipped_replicas.append((other, f"cluster.id {their_cluster} is not this log "
                                               f"dir's {cluster}"))
            continue
        if their_node is None or their_node == node:
            pw.skipped_replicas.append((other, f"the same node ({node})" if their_node == node
                                        else "meta.properties names no node"))
            continue
        d = os.path.join(other, os.path.basename(os.path.normpath(partition_dir)))
        if not os.path.isdir(d):
            continue
        end = replica_log_end(d)
        if end:
            pw.add(Witness("replica", d, end, broker_id=their_node))


def replica_log_end(partition_dir: str) -> int:
    """The log end of a partition directory: one past the last offset of the last
    intact batch of its last segment, read from its offset index's last entry on
    (LogSegment.readNextOffset); the segment's base offset when it holds none."""
    from ...records.file_records import LogReader

    segs = sorted((b, s) for b, s in _logs(partition_dir))
    for base, path in reversed(segs):
        start = 0
        idx = path[:-4] + ".index"
        if os.path.exists(idx):
            try:
                with FileSource(idx) as src:
                    index = OffsetIndex(src, base, chunk=4096)
                    n = written_entries(index) if offset_index_sanity(index) is None else 0
                    start = index.entry(n - 1).position if n else 0
            except KdumpError:
                start = 0
        last: int | None = None
        try:
            with FileSource(path) as src:
                reader = LogReader(src, start=min(start, src.size), resync=False)
                try:
                    for item in reader:
                        lo = getattr(item, "last_offset", None)
                        if isinstance(lo, int) and getattr(item, "crc_valid", False):
                            last = lo if last is None else max(last, lo)
                finally:
                    reader.close()
        except KdumpError:
            pass
        if last is not None:
            return last + 1
        if segs:
            return base
    return 0


def _logs(partition_dir: str) -> Iterable[tuple[int, str]]:
    try:
        names = kfs.listdir(partition_dir)
    except OSError:
        return []
    return [(int(n[:-4]), os.path.join(partition_dir, n)) for n in names
            if n.endswith(".log") and n[:-4].isdigit()]


def lost_problem(pw: PartitionWitnesses, r: LostRange) -> Problem:
    """The finding of one range: ``data-lost`` (an error) when nothing explains it, an
    ``offset-gap`` (information) when compaction or a replica behind does."""
    extra: dict[str, Any] = {"lost_offsets": [r.first, r.last], "topic": pw.topic,
                             "partition": pw.partition,
                             "witnesses": [w.to_json() for w in r.witnesses]}
    n = f"{r.count:,} offset{'s' if r.count != 1 else ''}"
    missing = [s for s in pw.missing_logs() if r.first <= s.base <= r.last]
    gone = "".join(f"; segment {s.base}'s .log is missing ("
                   + ", ".join(os.path.basename(p) for p in s.others) + " still name it)"
                   for s in missing)
    if r.explained is not None:
        return Problem(pw.directory, None, "offset-gap",
                       f"{r.offsets_text} ({n}) are in no batch on disk, though written "
                       f"({r.witnesses_text}): {r.explained}", base_offset=r.first,
                       severity=INFO, extra=extra)
    live = ""
    if r.tail and not missing and all(w.name in _COPIED_LATER for w in r.witnesses):
        live = ("; unless this is a copy of a running broker's log dir whose checkpoints "
                "were copied after its segments")
    note = f"; {r.note}" if r.note else ""
    return Problem(pw.directory, None, "data-lost",
                   f"{r.offsets_text} ({n}) were written ({r.witnesses_text}) and no batch on "
                   f"disk holds them: lost on this replica{gone}{live}{note}",
                   base_offset=r.first, extra=extra)


#: witnesses a running broker rewrites while its segments are copied (the log dir's
#: checkpoints, every few seconds: ReplicaManager.checkpointHighWatermarks,
#: LogManager.checkpointLogRecoveryOffsets)
_COPIED_LATER = frozenset({"high-watermark", "recovery-point"})



@functools.lru_cache(maxsize=8)
def _witnesses_cached(directory: str, _mtime_ns: int) -> PartitionWitnesses | None:
    return partition_witnesses(directory)


def witnesses_of(directory: str) -> PartitionWitnesses | None:
    """:func:`partition_witnesses` of a local partition directory, read once while it
    stays unchanged (verify-crc asks per log and per partition)."""
    if kfs.is_url(directory):
        m = 0
    else:
        try:
            m = os.stat(directory).st_mtime_ns
        except OSError:
            return None
    pw = _witnesses_cached(kfs.abspath(directory), m)
    if pw is None:
        return None
    return PartitionWitnesses(pw.directory, pw.topic, pw.partition, pw.compacted,
                              pw.log_start, list(pw.witnesses), dict(pw.segments),
                              list(pw.skipped_replicas), pw.policy_known, pw.policy_history,
                              pw.compact_until, pw.deeper)


__all__ = ["POLICY_CHANGED", "UNKNOWN_POLICY", "WITNESS_KINDS", "LostRange", "PartitionWitnesses",
           "SegmentFiles", "Witness", "lost_problem", "partition_witnesses", "replica_log_end",
           "witnesses_of"]
