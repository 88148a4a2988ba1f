"""One partition's verdict: what its files hold, what is damaged, in flight and lost.

:func:`judge_partition` turns a partition directory's witnesses
(:mod:`kdump.ops.verdict.witnesses`) and what a command's scan framed (the offsets its
batches hold, its tails as :mod:`kdump.ops.verdict.tail` judged them, its damage) into
one :class:`PartitionVerdict`.  Every command that says a partition lost offsets says it
from this object: the same ranges, the same kind, the same severity, one finding per
fact (:meth:`PartitionVerdict.findings`: a lost range a tail already names is not named
again as ``data-lost``).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ... import fs as kfs
from ...errors import KdumpError
from ...files.logdir import KafkaFile, parse_partition_dir
from ...findings import ERROR, INFO, Problem
from ...source import FileSource
from ..replica_groups import log_dir_identity
from .cleanup import Cleanup, CleanupPolicies, cleanup_of
from .witnesses import (
    LostRange,
    PartitionWitnesses,
    SegmentFiles,
    Witness,
    lost_problem,
    witnesses_of,
)

#: the tail kinds a verdict names, and the finding kind each is said with
TAIL_KINDS: dict[str, str] = {
    "in-flight": "in-flight",             # a half batch past every witness (information)
    "torn-lost": "truncated",             # a half batch below a witness: batches lost
    "zeros-preallocated": "zero-tail",    # zeros past every witness (information)
    "zeros-lost": "zero-tail",            # zeros where a witness says batches were
    "zeros": "zero-tail",                 # zeros ending a closed segment (a warning)
    "truncated": "truncated",             # a closed segment cut short
    "trailing-bytes": "trailing-bytes",   # bytes too few for a batch header
}


#: the findings that say how a log ends (its tail)
TAIL_PROBLEMS = frozenset({"in-flight", "zero-tail", "truncated", "trailing-bytes"})


def finds_gaps(f: KafkaFile, policies: CleanupPolicies | None = None,
               compacted: Collection[str] | None = None) -> bool:
    """Should a scan of the log ``f`` note the gaps between its batches?  A local
    segment of a live partition of a delete-policy topic: there a gap is lost data (a
    compacted topic's gaps are the cleaner's, and a scan stays fast there).
    ``compacted``: the partition directories judged compacted already (by
    :func:`compacted_dirs`, where the policies were read: a Spark driver), in place of
    judging here."""
    if f.kind != "log" or f.topic is None or f.partition is None \
            or f.partition_state is not None or kfs.is_url(f.path):
        return False
    if compacted is not None:
        return kfs.dirname(f.path) not in compacted
    return not cleanup_of(kfs.dirname(f.path), f.topic, f.partition, policies).compacted


def compacted_dirs(files: Iterable[KafkaFile], policies: CleanupPolicies | None
                   ) -> frozenset[str]:
    """The partition directories of the logs ``files`` whose topic is compacted under
    ``policies`` (:func:`cleanup_of`): what an executor that cannot read the policies
    (a Spark task) is given, so that it looks for gaps where the local command does."""
    out: set[str] = set()
    seen: set[str] = set()
    for f in files:
        if f.kind != "log" or f.topic is None or f.partition is None:
            continue
        d = kfs.dirname(f.path)
        if d in seen:
            continue
        seen.add(d)
        if cleanup_of(d, f.topic, f.partition, policies).compacted:
            out.add(d)
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class Tail:
    """How a log ends, as judged: ``kind`` a key of :data:`TAIL_KINDS`; the byte
    ``position`` in ``path``; ``lost`` the offsets it loses (first, last: None when
    none); ``severity``; ``problem`` the finding that says it (verify-crc's, dump's,
    browse's: the same words)."""

    kind: str
    path: str
    position: int | None
    lost: tuple[int, int] | None
    severity: str
    problem: Problem

    @classmethod
    def of(cls, p: Problem, active: bool) -> Tail | None:
        """The tail a judged finding names (None: the finding is no tail)."""
        kind = str(p.kind)
        lost_ = (p.extra or {}).get("lost_offsets")
        lost = (int(lost_[0]), int(lost_[1])) if lost_ else None
        if kind == "in-flight":
            name = "in-flight"
        elif kind == "zero-tail":
            name = "zeros-lost" if lost else ("zeros-preallocated" if active else "zeros")
        elif kind == "truncated":
            name = "torn-lost" if active else "truncated"
        elif kind == "trailing-bytes":
            name = "trailing-bytes"
        else:
            return None
        return cls(name, p.path, p.position, lost, str(p.severity), p)

    @property
    def in_flight(self) -> bool:
        return self.kind in ("in-flight", "zeros-preallocated")


def _policy_note(p: Problem, cleanup: Cleanup, topic: str) -> None:
    """A gap between batches lost in a topic only Kafka's default calls delete-policy:
    say how to tell kdump it is compacted."""
    if not cleanup.known and not cleanup.compacted:
        p.detail += ("; cleanup.policy is Kafka's default delete here (nothing read says "
                     f"otherwise): if the topic is compacted, say so with --config "
                     f"{topic}:cleanup.policy=compact")


def gap_lost(log_path: str, first: int, last: int, policies: CleanupPolicies | None = None
             ) -> Problem | None:
    """The ``data-lost`` finding of offsets ``first``..``last`` missing between two
    batches of the log ``log_path`` (a delete-policy topic's), with the partition's
    witnesses, as its verdict names it: for a command that reads one log at a time
    (dump).  None when the log is no live partition's."""
    pw = witnesses_of(kfs.dirname(log_path))
    if pw is None:
        return None
    cleanup = cleanup_of(pw.directory, pw.topic, pw.partition, policies)
    take_cleanup(pw, cleanup)
    for r in pw.lost_ranges([(first - 1, first - 1), (last + 1, last + 1)]):
        if r.first == first and r.last == last and r.explained is None:
            p = lost_problem(pw, r)
            _policy_note(p, cleanup, pw.topic)
            return p
        if r.first == first and r.last == last and pw.policy_history is not None:
            return lost_problem(pw, r)  # the cleaner's, by the policy history: as verify-crc
    return None


def take_cleanup(pw: PartitionWitnesses, cleanup: Cleanup) -> None:
    """The witnesses judged under ``cleanup`` (:func:`cleanup_of`): compacted, known, and a
    compact period the policy history ended."""
    pw.compacted, pw.policy_known = cleanup.compacted, cleanup.known
    pw.policy_history, pw.compact_until = cleanup.history, cleanup.compact_until
    pw.deeper = cleanup if cleanup.deeper is not None else None


def held_pieces(first: int | None, last: int | None,
                gaps: Iterable[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """A log's offsets ``first``..``last`` less the ``gaps`` between its batches (each
    ``(first, last)`` missing, inclusive): the ranges its batches hold."""
    if first is None or last is None or last < first:
        return []
    out: list[tuple[int, int]] = []
    at = first
    for a, b in sorted(gaps):
        if a > at:
            out.append((at, min(a - 1, last)))
        at = max(at, b + 1)
    if at <= last:
        out.append((at, last))
    return out


def _subtract(r: LostRange, cut: Sequence[tuple[int, int]]) -> list[LostRange]:
    pieces = [(r.first, r.last)]
    for a, b in cut:
        nxt: list[tuple[int, int]] = []
        for x, y in pieces:
            if b < x or a > y:
                nxt.append((x, y))
                continue
            if x < a:
                nxt.append((x, a - 1))
            if b < y:
                nxt.append((b + 1, y))
        pieces = nxt
    return [LostRange(x, y, r.witnesses, r.explained, r.tail, r.note) for x, y in pieces]


@dataclass(slots=True)
class PartitionVerdict:
    """The one judgment of a partition directory.

    Identity: ``directory``, ``log_dir``, ``topic``, ``partition``, ``state`` (None for
    a live replica; ``future``, ``delete``, ``stray``), ``topic_id`` (partition.metadata),
    ``cluster_id`` and ``node_id`` (the log dir's meta.properties).  ``cleanup``: the
    policy and where it came from.  ``witnesses``: what the partition's files prove
    written; ``log_start`` (log-start-offset-checkpoint), ``expected_start`` (the lowest
    offset that should be readable), ``highest_written`` and the witnesses proving it
    (``highest_witnesses``); ``held``: the offset ranges the batches on disk hold
    (inclusive); ``log_end``: one past the highest offset held (None: no batch);
    ``missing_logs``: segments whose ``.log`` is gone while other files name them;
    ``tails``: how its logs end, judged; ``lost``: every range written that no batch
    holds (``explained`` None: data lost, else an ``offset-gap``), less what a tail
    names; ``damage``: the other findings about its bytes (CRC, framing) the caller
    gave."""

    directory: str
    log_dir: str
    topic: str
    partition: int
    cleanup: Cleanup
    state: str | None = None
    topic_id: str | None = None
    cluster_id: str | None = None
    node_id: int | None = None
    witnesses: tuple[Witness, ...] = ()
    log_start: int | None = None
    expected_start: int = 0
    highest_written: int = 0
    highest_witnesses: tuple[Witness, ...] = ()
    held: tuple[tuple[int, int], ...] = ()
    log_end: int | None = None
    missing_logs: tuple[SegmentFiles, ...] = ()
    tails: tuple[Tail, ...] = ()
    lost: tuple[LostRange, ...] = ()
    damage: tuple[Problem, ...] = ()
    #: the witnesses as read (for callers that ask more of them: repair's reserve)
    source: PartitionWitnesses | None = field(default=None, repr=False)

    @property
    def lost_ranges(self) -> list[tuple[int, int]]:
        """Every range of offsets lost (data lost, not explained), a tail's included,
        in offset order."""
        out = [(r.first, r.last) for r in self.lost if r.explained is None]
        out += [t.lost for t in self.tails if t.lost is not None and t.severity == ERROR]
        return sorted(out)

    @property
    def offset_gaps(self) -> list[LostRange]:
        """The ranges no batch holds that Kafka's own work explains (information)."""
        return [r for r in self.lost if r.explained is not None]

    @property
    def data_lost(self) -> bool:
        """A witness proves offsets written that no batch here holds."""
        return bool(self.lost_ranges)

    @property
    def offsets_lost(self) -> int:
        return sum(b - a + 1 for a, b in self.lost_ranges)

    @property
    def in_flight(self) -> Tail | None:
        """The active segment's tail when it is a live broker's append or preallocation."""
        return next((t for t in self.tails if t.in_flight), None)

    @property
    def damaged(self) -> bool:
        """Data lost, or a finding (warning or error) about the partition's bytes."""
        return self.data_lost or any(p.severity != INFO for p in self.damage) or \
            any(not t.in_flight for t in self.tails)

    @property
    def reserve_to(self) -> int:
        """The lowest offset the broker may hand out next without handing one out twice:
        past every offset held and every offset a witness proves written."""
        return max(self.highest_written, self.log_end or 0, self.expected_start)

    def tail_of(self, path: str) -> Tail | None:
        """The judged tail of the log ``path``."""
        return next((t for t in self.tails if t.path == path), None)

    def findings(self, *, tails: bool = False) -> list[Problem]:
        """One finding per fact: each lost range (``data-lost``, an error) or gap Kafka
        explains (``offset-gap``, information), in offset order; a range a tail already
        names (its ``lost_offsets``) is not named again.  ``tails``: the tails' own
        findings too (for a caller that did not give them on as its scan met them)."""
        pw = self.source if self.source is not None else PartitionWitnesses(
            self.directory, self.topic, self.partition, self.cleanup.compacted,
            self.log_start, list(self.witnesses))
        out: list[Problem] = []
        if tails:
            out += [t.problem for t in self.tails]
        for r in self.lost:
            p = lost_problem(pw, r)
            if r.explained is None and not r.tail and self._inside_a_segment(r):
                _policy_note(p, self.cleanup, self.topic)
            out.append(p)
        return out

    def _inside_a_segment(self, r: LostRange) -> bool:
        """The range lies between two batches of one segment (no segment starts in it or
        right after it): the kind of gap a compacted topic's cleaner leaves."""
        bases = self.source.segments if self.source is not None else {}
        return not any(r.first < b <= r.last + 1 for b in bases)

    def to_json(self) -> dict[str, Any]:
        """The verdict as plain data (repair's manifest, tests)."""
        return {"directory": self.directory, "topic": self.topic,
                "partition": self.partition, "state": self.state,
                "compacted": self.cleanup.compacted, "cleanup_source": self.cleanup.source,
                "log_start": self.log_start, "expected_start": self.expected_start,
                "highest_written": self.highest_written, "log_end": self.log_end,
                "held": [list(h) for h in self.held],
                "lost_ranges": [list(r) for r in self.lost_ranges],
                "offset_gaps": [[r.first, r.last] for r in self.offset_gaps],
                "tails": [{"kind": t.kind, "path": t.path, "position": t.position,
                           "lost": list(t.lost) if t.lost else None,
                           "severity": t.severity} for t in self.tails],
                "data_lost": self.data_lost, "damaged": self.damaged,
                "reserve_to": self.reserve_to,
                "witnesses": [w.to_json() for w in self.highest_witnesses]}


def _topic_id(directory: str) -> str | None:
    """partition.metadata's ``topic_id`` (PartitionMetadataFile, Kafka 2.8+)."""
    path = os.path.join(directory, "partition.metadata")
    if not os.path.isfile(path):
        return None
    try:
        with FileSource(path) as src:  # O_NOATIME, as every input is read
            text = src.pread(0, min(src.size, 4096)).decode("utf-8", "replace")
    except KdumpError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "topic_id" and value.strip():
            return value.strip()
    return None


def judge_partition(directory: str | os.PathLike[str], held: Iterable[tuple[int, int]] = (),
                    tails: Iterable[Tail] = (), *, policies: CleanupPolicies | None = None,
                    damage: Iterable[Problem] = (), replicas: Iterable[str] = (),
                    witnesses: PartitionWitnesses | None = None) -> PartitionVerdict | None:
    """The verdict of the partition directory ``directory``, whose batches hold the
    offset ranges ``held`` (inclusive; split by the gaps between batches where the scan
    saw them, :func:`held_pieces`), whose logs end as ``tails`` say, and whose other
    findings are ``damage``.  ``replicas``: other log dirs given (their copies are
    ``replica`` witnesses: a range only they hold is replication lag).  None when the
    directory is no live partition's (a ``-delete``/``-future``/``-stray`` directory's
    files witness nothing)."""
    directory = kfs.abspath(os.fspath(directory))
    part = parse_partition_dir(os.path.basename(os.path.normpath(directory)))
    if part is None:
        return None
    pw = witnesses
    if pw is None:
        if replicas:
            from .witnesses import partition_witnesses

            pw = partition_witnesses(directory, replicas=replicas)
        else:
            pw = witnesses_of(directory)
    if pw is None:
        return None
    cleanup = cleanup_of(directory, pw.topic, pw.partition, policies)
    take_cleanup(pw, cleanup)
    held_ = sorted(h for h in held if h[1] >= h[0])
    tails_ = tuple(tails)
    ranges = pw.lost_ranges(held_, include_replicas=bool(replicas))
    told = [t.lost for t in tails_ if t.lost is not None]
    lost: list[LostRange] = []
    for r in ranges:
        lost += _subtract(r, told) if told else [r]
    top, proving = pw.highest_written(include_replicas=False)
    log_dir = kfs.dirname(directory)
    local = not kfs.is_url(directory)
    ident = log_dir_identity(log_dir) if local else None
    cluster, node = (ident.cluster_id, ident.node_id) if ident is not None else (None, None)
    return PartitionVerdict(
        directory, log_dir, pw.topic, pw.partition, cleanup, part.state,
        _topic_id(directory) if local else None, cluster, node, tuple(pw.witnesses),
        pw.log_start, pw.expected_start(), top, proving, tuple(held_),
        max(b for _a, b in held_) + 1 if held_ else None, tuple(pw.missing_logs()),
        tails_, tuple(lost), tuple(damage), pw)


__all__ = [
    "TAIL_KINDS",
    "TAIL_PROBLEMS",
    "PartitionVerdict",
    "Tail",
    "compacted_dirs",
    "finds_gaps",
    "gap_lost",
    "held_pieces",
    "judge_partition",
    "take_cleanup",
]
