"""One event of ``kdump timeline``, and how per-source streams become one time-ordered
stream in bounded memory.

Each source (the metadata log, a replica, a coordinator partition) yields its events
in the order it reads its bytes.  Their times mostly go forward but need not (CreateTime
is the producers' clocks; a coordinator's summary is placed at its last commit), so each
stream passes through a bounded reorder heap (:func:`reorder`, ``REORDER_EVENTS``
events): disorder within that many events is put right; an event older than one already
given is given anyway, marked ``late``.  The streams, each in time order, are then
merged lazily by :func:`heapq.merge` (:func:`merge`): memory is the heaps and one event
per stream, whatever the size of the logs.  Chosen over a full sort (memory grows with
the history) and over an external sort (spill files, a second read of every event): the
sources are nearly ordered already, and a late event is said to be one.
"""

from __future__ import annotations

import functools
import heapq
import itertools
from collections import deque
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from typing import Any

from ...model import shape

#: events held by a stream's reorder heap
REORDER_EVENTS = 20_000
#: related events said on one event (the rest are counted)
MAX_RELATED = 5
#: the sort key of an event with no time: before every timed one
NO_TIME = -(1 << 62)


class TimelineEvent:
    """One event: its time and whose clock, where its bytes are, what it is about and
    what changed in words (the ``timeline_event`` kind of kdump/model/timeline.py)."""

    __slots__ = ("broker", "clock", "estimate", "file", "group", "involves", "keys", "kind",
                 "late",
                 "log_dir", "members", "object", "offset", "partition", "position", "problem", "producer_id",
                 "related", "related_more", "replicas", "seq", "severity", "source", "text", "time",
                 "topic", "transactional_id", "where")

    def __init__(self, time: int | None, clock: str, kind: str, source: str, obj: str,
                 text: str, *, estimate: bool = False, file: str | None = None,
                 position: int | None = None, offset: int | None = None,
                 broker: int | None = None, log_dir: str | None = None,
                 topic: str | None = None, partition: int | None = None,
                 producer_id: int | None = None, transactional_id: str | None = None,
                 group: str | None = None, severity: str | None = None,
                 keys: tuple[tuple[Any, ...], ...] = (), where: str | None = None,
                 involves: tuple[int, ...] = ()) -> None:
        self.time = time if time is not None and time >= 0 else None
        self.clock = clock if self.time is not None else "unknown"
        self.kind = kind
        self.source = source
        self.object = obj
        self.text = text
        self.estimate = estimate
        self.file = file
        self.position = position
        self.offset = offset
        self.broker = broker
        self.log_dir = log_dir
        self.topic = topic
        self.partition = partition
        self.producer_id = producer_id
        self.transactional_id = transactional_id
        self.group = group
        self.severity = severity
        #: correlation keys (kdump.ops.timeline.correlate): events sharing one explain
        #: each other
        self.keys = keys
        self.related: list[str] = []
        #: related events past :data:`MAX_RELATED`, counted
        self.related_more = 0
        self.late = False
        self.seq = 0
        #: a finding's Problem, given beside the event (the exit code counts it)
        self.problem: Any = None
        #: replica events: the words in ``text`` naming the replica ("on broker 2"), so
        #: the same event on several replicas is said once (:func:`coalesce`)
        self.where = where
        #: other brokers the event is about (a partition's replicas, ISR and leader):
        #: --broker keeps it too
        self.involves = involves
        #: the replicas an event coalesced from several is on: [{broker, log_dir, file,
        #: position}]
        self.replicas: list[dict[str, Any]] | None = None
        #: a classic consumer group's rebalance: its members, what each subscribed to and
        #: was assigned (coordinators.consumer_members)
        self.members: list[dict[str, Any]] | None = None

    @property
    def sort_time(self) -> int:
        return self.time if self.time is not None else NO_TIME

    def sort_key(self) -> tuple[int, int]:
        return (self.sort_time, self.seq)

    def relate(self, text: str) -> None:
        """Say that the event ``text`` describes explains this one (at most
        :data:`MAX_RELATED` said, the rest counted)."""
        if text in self.related:
            return
        if len(self.related) < MAX_RELATED:
            self.related.append(text)
        else:
            self.related_more += 1

    def related_list(self) -> list[str]:
        more = [f"and {self.related_more} more like these"] if self.related_more else []
        return self.related + more

    def to_json(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            "time": self.time, "clock": self.clock, "estimate": self.estimate,
            "kind": self.kind, "source": self.source, "file": self.file,
            "position": self.position, "offset": self.offset, "broker": self.broker,
            "log_dir": self.log_dir, "topic": self.topic, "partition": self.partition,
            "producer_id": self.producer_id, "transactional_id": self.transactional_id,
            "group": self.group, "object": self.object, "text": self.text,
            "related": self.related_list(), "late": self.late}
        if self.severity is not None:
            values["severity"] = self.severity
        if self.replicas is not None:
            values["replicas"] = self.replicas
        if self.members is not None:
            values["members"] = self.members
        return shape("timeline_event", values)

    def __repr__(self) -> str:
        return f"TimelineEvent({self.time}, {self.kind!r}, {self.object!r}, {self.text!r})"


def iso(ms: int | None, tz: Any = None) -> str:
    """``2023-11-14T22:13:20.000Z`` (UTC), or in ``tz`` (a tzinfo) with its offset;
    ``-`` for no time."""
    if ms is None:
        return "-"
    if tz is None:
        return _iso_utc(ms)
    return _iso(ms, tz)


@functools.lru_cache(maxsize=4096)
def _iso_utc(ms: int) -> str:
    return _iso(ms, None)


def _iso(ms: int, tz: Any) -> str:
    try:
        dt = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(ms)
    if tz is not None:
        dt = dt.astimezone(tz)
        return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}" + dt.strftime("%z")
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def pending_epoch_text(epoch: int, start: int, on: str, last: int | None,
                       change: int | None = None) -> str:
    """The words of a replica's epoch start with no batch of the epoch yet: its start
    offset is past every batch, so it began after the replica's last batch (``last``);
    with ``change``, the metadata offset of the leader change that began the epoch, it
    is dated by that change (kdump.ops.timeline.correlate)."""
    said = f"epoch {epoch} starts at offset {start:,} {on} (leader-epoch-checkpoint)"
    batch = "its last batch" + ("" if last is None else f" ({iso(last)})")
    if change is None:
        return f"{said} after {batch}, no batch of this epoch yet"
    return (f"{said}, dated by the leader change that began it (metadata offset "
            f"{change}); no batch of this epoch yet, after {batch}")


def duration(ms: int) -> str:
    """``3h 2m 5s``, ``850 ms``."""
    if ms < 1000:
        return f"{ms} ms"
    s = ms // 1000
    parts = []
    for unit, n in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= n:
            parts.append(f"{s // n}{unit}")
            s %= n
    if s or not parts:
        parts.append(f"{s}s")
    return " ".join(parts)


def reorder(events: Iterable[TimelineEvent], size: int = REORDER_EVENTS
            ) -> Iterator[TimelineEvent]:
    """``events`` in time order, given a heap of ``size`` events to put them right; an
    event older than one already given is given as it comes, marked ``late``."""
    for _, _, ev in _reordered(events, size, None):
        yield ev


def _reordered(events: Iterable[TimelineEvent], size: int, stream: int | None
               ) -> Iterator[tuple[int, int, TimelineEvent]]:
    """:func:`reorder`'s events as (sort time, ``stream``, event), each event's ``seq``
    set to ``stream`` (unless None).  While events come in time order they are held in
    a deque (a sorted list is a heap: popping its first is popping the heap's least);
    the first one out of order turns it into the heap it stands for."""
    k = 0 if stream is None else stream
    run: deque[tuple[int, int, TimelineEvent]] = deque()
    heap: list[tuple[int, int, TimelineEvent]] = []
    n = 0
    last = NO_TIME  # the time last given
    top = NO_TIME  # the latest time in ``run``
    for ev in events:
        n += 1
        t = ev.time
        if t is None:
            t = NO_TIME
        if not heap and t >= top:
            top = t
            run.append((t, n, ev))
            if len(run) <= size:
                continue
            t, _, out = run.popleft()
        else:
            if not heap:  # the first out of order: the run becomes the heap
                heap = list(run)
                run.clear()
            heapq.heappush(heap, (t, n, ev))
            if len(heap) <= size:
                continue
            t, _, out = heapq.heappop(heap)
        if t < last:
            out.late = True
        else:
            last = t
        if stream is not None:
            out.seq = stream
        yield t, k, out
    for t, _, out in itertools.chain(run, _popped(heap)):
        if t < last:
            out.late = True
        else:
            last = t
        if stream is not None:
            out.seq = stream
        yield t, k, out


def _popped(heap: list[tuple[int, int, TimelineEvent]]
            ) -> Iterator[tuple[int, int, TimelineEvent]]:
    while heap:
        yield heapq.heappop(heap)


def merge(streams: list[Iterable[TimelineEvent]], size: int = REORDER_EVENTS
          ) -> Iterator[TimelineEvent]:
    """One stream of the given ones, each reordered (:func:`reorder`), merged by time;
    ties keep the order of ``streams`` (the metadata log first)."""
    return _merged([_reordered(s, size, k) for k, s in enumerate(streams)])


def _merged(streams: list[Iterator[tuple[int, int, TimelineEvent]]]
            ) -> Iterator[TimelineEvent]:
    """The events of ``streams`` ((time, stream, event), each in order) by (time,
    stream): what ``heapq.merge`` gives, but a stream stays in front as long as it
    holds the least: its events then cost one comparison each, not a heap's
    (a busy metadata log is most of the events)."""
    heap: list[list[Any]] = []
    for it in streams:
        for t, k, ev in it:
            heap.append([t, k, ev, it])
            break
    heapq.heapify(heap)
    while len(heap) > 1:
        top = heap[0]
        t, k, ev, it = top
        yield ev
        # the least of the others: a child of the root
        b = heap[1] if len(heap) == 2 or heap[1] < heap[2] else heap[2]
        bt, bk = b[0], b[1]
        for t, _, ev in it:
            if t < bt or (t == bt and k < bk):
                yield ev
                continue
            top[0], top[2] = t, ev
            heapq.heapreplace(heap, top)
            break
        else:
            heapq.heappop(heap)
    if heap:
        _, _, ev, it = heap[0]
        yield ev
        for _, _, ev in it:
            yield ev


#: events of one time held to say an event seen on several replicas once
COALESCE_EVENTS = 10_000


def _same(ev: TimelineEvent) -> tuple[Any, ...] | None:
    if ev.where is None:
        return None
    return (ev.kind, ev.object, ev.offset, ev.clock, ev.estimate, ev.late,
            ev.text.replace(ev.where, "\0"))


def _said_once(group: list[TimelineEvent]) -> TimelineEvent:
    first = group[0]
    if len(group) == 1:
        return first
    brokers = [e.broker for e in group]
    first.replicas = [{"broker": e.broker, "log_dir": e.log_dir, "file": e.file,
                       "position": e.position} for e in group]
    if all(b is not None for b in brokers):
        on = "on brokers " + ", ".join(str(b) for b in brokers)
    else:
        on = f"on {len(group)} replicas"
    assert first.where is not None
    first.text = first.text.replace(first.where, on) if first.where in first.text \
        else f"{first.text} ({on})"
    first.where = on
    first.broker = None
    first.log_dir = None
    first.involves = tuple(b for b in brokers if b is not None)
    for e in group[1:]:
        first.keys = tuple(dict.fromkeys(first.keys + e.keys))
    return first


def coalesce(events: Iterable[TimelineEvent]) -> Iterator[TimelineEvent]:
    """``events`` with an event that several replicas show alike (same kind, object,
    offset, time and words but the replica) said once, naming every replica
    (``replicas``); events of one time are held to find them (at most
    :data:`COALESCE_EVENTS`)."""
    held: dict[Any, list[TimelineEvent]] = {}
    n = 0
    now: int | None = None
    for ev in events:
        if n and (ev.time != now or n >= COALESCE_EVENTS):
            for group in held.values():
                yield _said_once(group)
            held.clear()
            n = 0
        now = ev.time
        if ev.where is None and not n:  # not a replica's, nothing held: as it comes
            yield ev
            continue
        key = _same(ev)
        held.setdefault(key if key is not None else ("one", id(ev)), []).append(ev)
        n += 1
    for group in held.values():
        yield _said_once(group)
