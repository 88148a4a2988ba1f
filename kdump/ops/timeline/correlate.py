"""Events that explain each other, said on both where the stream still holds both.

Three rules, each on a key the sources give their events (``TimelineEvent.keys``), with
two sides: an event of one side is related to the events of the other side of its key.

* ``("broker-down", b)``: a partition's ISR losing broker b, or b losing the leadership
  (side ``partition``), within ``WINDOW_MS`` of broker b being fenced or entering
  controlled shutdown (side ``broker``; the controller writes the partition changes just
  before the broker's fencing: ReplicationControlManager.handleBrokerFenced /
  handleBrokerInControlledShutdown, 3.9-4.3); the broker registering again (a restart:
  ClusterControlManager.registerBroker) or unfenced (handleBrokerUnfenced) ends what
  came before on its key: a change after it is not explained by a fencing before it,
  nor the other way (a cluster restarted twice within a minute, seen on a real one);
* ``("epoch", topic, partition, epoch)``: a replica's epoch start (side ``replica``) and
  the partition change that began that leader epoch in the metadata log (side
  ``leader``: a leader change, or an ISR shrink or reassignment bumping the same
  leader's epoch; the same number: exact, whatever the time between them);
* ``("producer", pid)``: a transaction still open at a log's end (side ``open``) and its
  producer's state in ``__transaction_state`` or a bump of its epoch (side ``state``).

A new consumer group's assignment naming topics by id only (keys ``("topic-id", id)``)
has them named from the metadata log's TopicRecords (``facts.topic_names``).

A replica's epoch start with no batch of the epoch yet (``pending_epoch_text``: its
start offset is past every batch) is dated by the leader change that began it when the
metadata log is among the inputs (``facts``): it began after the replica's last batch,
when the new leader applied that change (Partition.makeLeader: a new leader epoch starts
at the log end offset, UnifiedLog.maybeAssignEpochStartOffset in 3.9,
assignEpochStartOffset in 4.0-4.3), so it is held (at most ``MAX_WAITING``) until the
change passes, then given right after it with its time (the controller's clock, an
estimate).  Not held: a change that passed already (the replica's last batch is then the
later bound, kept) or that the metadata log's snapshot holds (before its history).  One
the metadata log never dates (it ended; too many held) is given as it was, a lower
bound, marked ``late``.

The stream passes through a delay of ``WINDOW_MS`` (at most ``MAX_HELD`` events), so an
event can be annotated by one that comes after it.  Memory is bounded: per key and side
the last ``PER_SIDE`` events are remembered (as their time and description, not the
events), for at most ``MAX_KEYS`` keys.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol

from .event import MAX_RELATED, TimelineEvent, iso, pending_epoch_text

WINDOW_MS = 60_000
#: partitions' epochs whose starts (on their replicas) are held until the leader change
#: dating them passes
MAX_WAITING = 10_000
#: the clock of an epoch start dated by its leader change (kdump/model/timeline.py)
#: the clock of an epoch start dated by its leader change: that change's, the controller's
#: (an estimate: the new leader assigns the epoch as it applies the change)
LEADER_CHANGE_CLOCK = "controller"
MAX_HELD = 5_000
MAX_KEYS = 50_000
#: events remembered per key and side (a broker's fencing touches every partition it held)
PER_SIDE = 64


class MetadataFacts(Protocol):
    """What the metadata log tells the stream as it goes (the metadata stream,
    kdump.ops.timeline.metadata.MetadataStream): what dates epoch starts with no batch
    yet, and topics' names by id."""

    #: (topic, partition) -> the leader epoch the metadata log's snapshot holds
    snapshot_epochs: dict[tuple[str, int], int]
    #: topic id -> name (every topic seen so far)
    topic_names: dict[str, str]
    #: the stream has ended, and the latest time of its events
    done: bool
    last_time: int | None


#: key -> kind -> side; a kind not named has no side on that key
_SIDES: dict[str, dict[str, str]] = {
    "broker-down": {"broker-fenced": "broker", "broker-shutdown": "broker",
                    "isr-change": "partition", "leader-change": "partition"},
    # a partition change carries its epoch key only when it began the epoch
    "epoch": {"leader-change": "leader", "partition-created": "leader",
              "isr-change": "leader", "elr-change": "leader", "reassignment": "leader",
              "partition-change": "leader",
              "epoch-start": "replica", "truncation": "replica"},
    "producer": {"txn-open": "open", "producer-epoch": "state", "txn-state": "state"},
}
_WINDOWED = frozenset({"broker-down"})
#: kinds that end what a key remembers (the broker is up again): key family -> kinds
_ENDS: dict[str, frozenset[str]] = {
    "broker-down": frozenset({"broker-registered", "broker-unfenced"})}
_ENDING = frozenset(k for kinds in _ENDS.values() for k in kinds)
#: kind -> key family -> side (:data:`_SIDES` by kind: an event of a kind not here has no
#: side on any key)
_BY_KIND: dict[str, dict[str, str]] = {}
for _family, _kinds in _SIDES.items():
    for _kind, _side in _kinds.items():
        _BY_KIND.setdefault(_kind, {})[_family] = _side
#: a new group's assignment naming topic ids (keys ("topic-id", id)): named, no side
_BY_KIND["group-member"] = {}


def describe(ev: TimelineEvent) -> str:
    """How a related event names ``ev``: object, what changed, time, source offset."""
    return _describe(ev.object, ev.where, ev.text, ev.time, ev.source, ev.offset)


def _describe(obj: str, where: str | None, text: str, time: int | None, source: str,
              offset: int | None) -> str:
    at = f", {source} offset {offset}" if offset is not None else ""
    on = f" {where}" if where is not None and where not in text else ""
    return f"{obj}{on}: {text} ({iso(time)}{at})"


#: what a key's side remembers of an event (a list, made and read in the loop: a class's
#: instance costs more, and a busy metadata log remembers most of its events): its time,
#: how a related event names it (made once, when first asked), the event itself while
#: the stream still holds it (it can still be annotated), then the fields that name it
_TIME, _TEXT, _EVENT, _FIELDS = range(4)
Seen = list[Any]


def _said(s: Seen) -> str:
    """How a related event names the event ``s`` remembers."""
    text = s[_TEXT]
    if text is None:
        ev = s[_EVENT]
        text = s[_TEXT] = describe(ev) if ev is not None else _describe(*s[_FIELDS])
    return text  # type: ignore[no-any-return,unused-ignore]


def _name_topic_ids(ev: TimelineEvent, names: Mapping[str, str]) -> None:
    """A new group's assignment event (its ``("topic-id", id)`` keys: ids no record of
    the group names) with the ids ``names`` knows named, in its words and ``members``
    (new lists: the stream's state keeps the assignment as the record said it).  A
    consumer group's records name topics by id only from 4.1
    (ConsumerGroupPartitionMetadataValue.json, 4.1: "replaced by
    ConsumerGroupMetadataValue#MetadataHash in 4.1 (KIP-1101)"); the metadata log's
    TopicRecord (name, topicId) names them."""
    named = {k[1]: names[k[1]] for k in ev.keys if k[0] == "topic-id" and k[1] in names}
    if not named:
        return
    for tid, name in named.items():
        ev.text = ev.text.replace(f"{tid}-", f"{name}-")
    if ev.members:
        ev.members = [{**m, "assigned": [
            {**tp, "topic": named[tp["topic_id"]]} if isinstance(tp, dict) and
            tp.get("topic") is None and tp.get("topic_id") in named else tp
            for tp in m["assigned"]]} if isinstance(m.get("assigned"), list) else m
            for m in ev.members]


def _waits(ev: TimelineEvent, facts: MetadataFacts, began: dict[tuple[str, int], int]
           ) -> bool:
    """Whether a replica's epoch start with no batch yet (``ev``) waits for the leader
    change that began its epoch: not passed yet (``began``: a partition's latest epoch
    whose change has passed), nor before the metadata log's history."""
    key = ev.keys[0]
    if key[0] != "epoch" or ev.time is None:
        return False
    if began.get((key[1], key[2]), -1) >= key[3]:
        return False  # passed (at or before the replica's last batch, the later bound)
    held_epoch = facts.snapshot_epochs.get((key[1], key[2]))
    if held_epoch is not None and held_epoch >= key[3]:
        return False
    # the metadata log ended before it: no change can come
    return not (facts.done and (facts.last_time is None or ev.time > facts.last_time))


def _dated(ev: TimelineEvent, change: TimelineEvent) -> TimelineEvent:
    """``ev`` (waiting) dated by ``change``, the leader change that began its epoch."""
    key = ev.keys[0]
    ev.text = pending_epoch_text(key[3], ev.offset or 0, ev.where or "", ev.time,
                                 change.offset)
    ev.time = change.time
    ev.clock = LEADER_CHANGE_CLOCK if change.time is not None else "unknown"
    ev.estimate = True
    return ev


def _admit(ev: TimelineEvent, side: str, seen: OrderedDict[tuple[Any, ...],
                                                             dict[str, deque[Seen]]]
           ) -> list[Seen]:
    """A waiting epoch start, given at last: related to the other side of its (one,
    not windowed) key, remembered on its own."""
    key = ev.keys[0]
    entry = seen.get(key)
    if entry is None:
        entry = seen[key] = {}
        if len(seen) > MAX_KEYS:
            seen.popitem(last=False)
    me: Seen = [ev.time, None, ev, None]
    for other_side, others in entry.items():
        if other_side != side:
            for other in others:
                ev.relate(_said(other))
                if other[_EVENT] is not None:
                    other[_EVENT].relate(_said(me))
    own = entry.get(side)
    if own is None:
        own = entry[side] = deque(maxlen=PER_SIDE)
    own.append(me)
    return [me]


def correlate(events: Iterable[TimelineEvent], facts: MetadataFacts | None = None
              ) -> Iterator[TimelineEvent]:
    """``events`` as they come, annotated (``related``) where they explain each other;
    with ``facts``, replicas' epoch starts with no batch yet are dated by the leader
    changes that began them (the module docstring)."""
    held: deque[tuple[TimelineEvent, list[Seen] | None]] = deque()
    seen: OrderedDict[tuple[Any, ...], dict[str, deque[Seen]]] = OrderedDict()
    by_kind = _BY_KIND
    #: epoch key -> the epoch starts waiting for its leader change (one a replica)
    waiting: dict[tuple[Any, ...], list[TimelineEvent]] = {}
    #: what came out of ``waiting`` to be given now
    ready: list[TimelineEvent] = []
    #: (topic, partition) -> the latest leader epoch whose change has passed (one entry
    #: a partition with replicas among the inputs: those changes alone have epoch keys)
    began: dict[tuple[str, int], int] = {}
    now: int | None = None
    for ev in events:
        if waiting and facts is not None and facts.done and (
                ev.time is None or facts.last_time is None or ev.time > facts.last_time):
            _give_up(waiting, ready)
        keys = ev.keys
        if keys and ev.kind in _ENDING:
            for key in keys:
                if ev.kind in _ENDS.get(key[0], ()):
                    seen.pop(key, None)
        by_family = by_kind.get(ev.kind) if keys else None
        mine: list[Seen] | None = None
        if by_family:
            if facts is not None and ev.position is None and ev.kind == "epoch-start" and \
                    _waits(ev, facts, began):
                waiting.setdefault(ev.keys[0], []).append(ev)
                if len(waiting) > MAX_WAITING:
                    ready.extend(waiting.pop(next(iter(waiting))))
                continue
            mine = []
            for key in keys if len(keys) == 1 else dict.fromkeys(keys):
                side = by_family.get(key[0])
                if side is None:
                    continue
                entry = seen.get(key)
                if entry is None:
                    entry = seen[key] = {}
                    if len(seen) > MAX_KEYS:
                        seen.popitem(last=False)
                else:
                    seen.move_to_end(key)
                me: Seen | None = None
                own = entry.get(side)
                if len(entry) > (own is not None):
                    windowed = key[0] in _WINDOWED
                    for other_side, others in entry.items():
                        if other_side == side:
                            continue
                        if windowed:
                            if ev.time is None:
                                continue
                            # the stream goes forward in time: what is out of the window
                            # now stays out
                            while others and (others[0][_TIME] is None or
                                              others[0][_TIME] < ev.time - WINDOW_MS):
                                others.popleft()
                        room = MAX_RELATED - len(ev.related)
                        if len(others) > room:
                            ev.related_more += len(others) - max(room, 0)  # counted, not said
                        related = ev.related
                        for k, other in enumerate(others):
                            if k >= room:
                                break
                            # ev.relate(text), inline (most events relate to one)
                            text = other[_TEXT] or _said(other)
                            if text not in related:
                                if len(related) < MAX_RELATED:
                                    related.append(text)
                                else:
                                    ev.related_more += 1
                            if other[_EVENT] is not None:
                                if me is None:
                                    me = [ev.time, None, ev, None]
                                other[_EVENT].relate(_said(me))
                if me is None:
                    me = [ev.time, None, ev, None]
                if own is None:
                    own = entry[side] = deque(maxlen=PER_SIDE)
                own.append(me)
                mine.append(me)
                if side == "leader" and facts is not None:
                    tp = (key[1], key[2])
                    if began.get(tp, -1) < key[3]:
                        began[tp] = key[3]
                    if waiting and key in waiting:
                        ready.extend(_dated(w, ev) for w in waiting.pop(key))
        elif by_family is not None and facts is not None:
            # a new group's topic ids (its ("topic-id", id) keys, no side): the metadata
            # log has replayed at least up to this event's time
            _name_topic_ids(ev, facts.topic_names)
        held.append((ev, mine))
        now = ev.time
        if ready:  # given after it (a dated one has its time; the others are late)
            for w in ready:
                if w.time is not None and now is not None and w.time < now:
                    w.late = True
                held.append((w, _admit(w, "replica", seen)))
            ready.clear()
        old = (now - WINDOW_MS) if now is not None else None
        while held:
            first = held[0]
            if len(held) <= MAX_HELD:
                t = first[0].time
                if old is None or t is None or t >= old:
                    break
            held.popleft()
            if first[1]:
                _release(first[1])
            yield first[0]
    _give_up(waiting, ready)
    for w in ready:
        if w.time is not None and now is not None and w.time < now:
            w.late = True
        held.append((w, _admit(w, "replica", seen)))
    while held:
        first = held.popleft()
        if first[1]:
            _release(first[1])
        yield first[0]


def _give_up(waiting: dict[tuple[Any, ...], list[TimelineEvent]],
             ready: list[TimelineEvent]) -> None:
    """The metadata log has ended without dating these: given as they are (lower
    bounds, in their time order)."""
    ready.extend(sorted((e for evs in waiting.values() for e in evs),
                        key=lambda e: e.sort_time))
    waiting.clear()


def _release(mine: list[Seen]) -> None:
    """The stream no longer holds the event these remember: they keep what names it."""
    for s in mine:
        ev = s[_EVENT]
        if ev is not None and s[_TEXT] is None:
            s[_FIELDS] = (ev.object, ev.where, ev.text, ev.time, ev.source, ev.offset)
        s[_EVENT] = None
