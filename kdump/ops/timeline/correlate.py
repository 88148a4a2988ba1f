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

The stream passes through a delay of ``WINDOW_MS`` (at most ``MAX_HELD`` events), so an
event can be annotated by one that comes after it.  Memory is bounded: per key and side
the last ``PER_SIDE`` events are remembered (as their time and description, not the
events), for at most ``MAX_KEYS`` keys.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator
from typing import Any

from .event import MAX_RELATED, TimelineEvent, iso

WINDOW_MS = 60_000
MAX_HELD = 5_000
MAX_KEYS = 50_000
#: events remembered per key and side (a broker's fencing touches every partition it held)
PER_SIDE = 64

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


def correlate(events: Iterable[TimelineEvent]) -> Iterator[TimelineEvent]:
    """``events`` as they come, annotated (``related``) where they explain each other."""
    held: deque[tuple[TimelineEvent, list[Seen] | None]] = deque()
    seen: OrderedDict[tuple[Any, ...], dict[str, deque[Seen]]] = OrderedDict()
    by_kind = _BY_KIND
    for ev in events:
        keys = ev.keys
        if keys and ev.kind in _ENDING:
            for key in keys:
                if ev.kind in _ENDS.get(key[0], ()):
                    seen.pop(key, None)
        by_family = by_kind.get(ev.kind) if keys else None
        mine: list[Seen] | None = None
        if by_family is not None:
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
        held.append((ev, mine))
        now = ev.time
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
    while held:
        first = held.popleft()
        if first[1]:
            _release(first[1])
        yield first[0]


def _release(mine: list[Seen]) -> None:
    """The stream no longer holds the event these remember: they keep what names it."""
    for s in mine:
        ev = s[_EVENT]
        if ev is not None and s[_TEXT] is None:
            s[_FIELDS] = (ev.object, ev.where, ev.text, ev.time, ev.source, ev.offset)
        s[_EVENT] = None
