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
_NO_SIDES: dict[str, str] = {}
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


class _Seen:
    """What a key's side remembers of an event: enough to describe it, and the event
    itself while the stream still holds it."""

    __slots__ = ("event", "fields", "text", "time")

    def __init__(self, ev: TimelineEvent) -> None:
        self.time = ev.time
        self.text: str | None = None
        self.event: TimelineEvent | None = ev
        self.fields: tuple[Any, ...] | None = None

    def describe(self) -> str:
        if self.text is None:
            if self.event is not None:
                self.text = describe(self.event)
            else:
                assert self.fields is not None
                self.text = _describe(*self.fields)
        return self.text

    def release(self) -> None:
        ev = self.event
        if ev is not None and self.text is None:
            self.fields = (ev.object, ev.where, ev.text, ev.time, ev.source, ev.offset)
        self.event = None


def correlate(events: Iterable[TimelineEvent]) -> Iterator[TimelineEvent]:
    """``events`` as they come, annotated (``related``) where they explain each other."""
    held: deque[tuple[TimelineEvent, list[_Seen]]] = deque()
    seen: OrderedDict[tuple[Any, ...], dict[str, deque[_Seen]]] = OrderedDict()
    no_keys: list[_Seen] = []  # never added to
    for ev in events:
        keys = ev.keys
        if keys and ev.kind in _ENDING:
            for key in keys:
                if ev.kind in _ENDS.get(key[0], ()):
                    seen.pop(key, None)
        by_family = _BY_KIND.get(ev.kind, _NO_SIDES) if keys else _NO_SIDES
        mine = no_keys if by_family is _NO_SIDES else []
        for key in () if by_family is _NO_SIDES else keys if len(keys) == 1 else \
                dict.fromkeys(keys):
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
            me: _Seen | None = None
            windowed = key[0] in _WINDOWED
            own = entry.get(side)
            for other_side, others in entry.items() if len(entry) > (own is not None) else ():
                if other_side == side:
                    continue
                if windowed:
                    if ev.time is None:
                        continue
                    # the stream goes forward in time: what is out of the window now
                    # stays out
                    while others and (others[0].time is None or
                                      others[0].time < ev.time - WINDOW_MS):
                        others.popleft()
                room = MAX_RELATED - len(ev.related)
                if len(others) > room:
                    ev.related_more += len(others) - max(room, 0)  # counted, not said
                for k, other in enumerate(others):
                    if k >= room:
                        break
                    ev.relate(other.describe())
                    if other.event is not None:
                        if me is None:
                            me = _Seen(ev)
                        other.event.relate(me.describe())
            if me is None:
                me = _Seen(ev)
            if own is None:
                own = entry[side] = deque(maxlen=PER_SIDE)
            own.append(me)
            mine.append(me)
        held.append((ev, mine))
        now = ev.time
        if now is not None:
            old = now - WINDOW_MS
            while held and (len(held) > MAX_HELD or (
                    held[0][0].time is not None and held[0][0].time < old)):
                yield _release(held.popleft())
        else:
            while len(held) > MAX_HELD:
                yield _release(held.popleft())
    while held:
        yield _release(held.popleft())


def _release(item: tuple[TimelineEvent, list[_Seen]]) -> TimelineEvent:
    ev, mine = item
    for s in mine:
        s.release()
    return ev
