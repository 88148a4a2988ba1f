"""Events that explain each other, said on both where the stream still holds both.

Three rules, each on a key the sources give their events (``TimelineEvent.keys``):

* ``("broker-down", b)``: a partition's ISR losing broker b, or b losing the leadership,
  within ``WINDOW_MS`` of broker b being fenced or entering controlled shutdown (the
  controller writes the partition changes just before the broker's fencing:
  ReplicationControlManager.handleBrokerFenced / handleBrokerInControlledShutdown,
  3.9-4.3);
* ``("epoch", topic, partition, epoch)``: a replica's epoch start and the leader change
  that began that leader epoch in the metadata log (the same number: exact);
* ``("producer", pid)``: a transaction still open at a log's end and a bump of its
  producer's epoch (a fencing) in a replica or in ``__transaction_state``.

The stream passes through a delay of ``WINDOW_MS`` (at most ``MAX_HELD`` events), so
an event can be annotated by one that comes after it; every key's last events are
remembered (at most ``MAX_KEYS`` keys), so a later event names an earlier one however
long ago it was.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator
from typing import Any

from .event import TimelineEvent, iso

WINDOW_MS = 60_000
MAX_HELD = 5_000
MAX_KEYS = 100_000
#: events remembered per key (a broker's fencing touches every partition it held)
PER_KEY = 64

_DOWN = frozenset({"broker-fenced", "broker-shutdown"})
_PARTITION = frozenset({"isr-change", "leader-change"})
_LEADER = frozenset({"leader-change", "partition-created"})
_FENCING = frozenset({"producer-epoch", "txn-state"})


def _pair(key: tuple[Any, ...], a: TimelineEvent, b: TimelineEvent) -> bool:
    kinds = {a.kind, b.kind}
    if key[0] == "broker-down":
        if not (kinds & _DOWN and kinds & _PARTITION) or a.time is None or b.time is None:
            return False
        return abs(a.time - b.time) <= WINDOW_MS and a.kind != b.kind
    if key[0] == "epoch":
        return a.source != b.source and bool(kinds & _LEADER) and "epoch-start" in kinds
    if key[0] == "producer":
        return "txn-open" in kinds and bool(kinds & _FENCING)
    return False


def describe(ev: TimelineEvent) -> str:
    where = f", {ev.source} offset {ev.offset}" if ev.offset is not None else ""
    on = f" {ev.where}" if ev.where is not None and ev.where not in ev.text else ""
    return f"{ev.object}{on}: {ev.text} ({iso(ev.time)}{where})"


def correlate(events: Iterable[TimelineEvent]) -> Iterator[TimelineEvent]:
    """``events`` as they come, annotated (``related``) where they explain each other."""
    held: deque[TimelineEvent] = deque()
    held_ids: set[int] = set()
    seen: OrderedDict[tuple[Any, ...], list[TimelineEvent]] = OrderedDict()
    for ev in events:
        for key in dict.fromkeys(ev.keys):
            for other in seen.get(key, ()):
                if other is ev or not _pair(key, other, ev):
                    continue
                ev.relate(describe(other))
                if id(other) in held_ids:
                    other.relate(describe(ev))
            lst = seen.setdefault(key, [])
            seen.move_to_end(key)
            lst.append(ev)
            if len(lst) > PER_KEY:
                del lst[0]
            if len(seen) > MAX_KEYS:
                seen.popitem(last=False)
        held.append(ev)
        held_ids.add(id(ev))
        now = ev.time
        while held and (len(held) > MAX_HELD or (
                now is not None and held[0].time is not None
                and held[0].time < now - WINDOW_MS)):
            out = held.popleft()
            held_ids.discard(id(out))
            yield out
    while held:
        out = held.popleft()
        held_ids.discard(id(out))
        yield out
