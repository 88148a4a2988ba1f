"""kdump timeline's event of a KRaft partition change: ``partition_event`` in
kdump/_speedups_timeline.c against its twin
:func:`kdump.ops.timeline.metadata.partition_event_py`, slot by slot, on every kind of
change, with values the native code hands back (NotImplemented) and fields that differ
(None).
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest

from kdump.metadata.replay import Event
from kdump.native import speedups
from kdump.ops.timeline.event import TimelineEvent
from kdump.ops.timeline.metadata import partition_event, partition_event_py

native = pytest.mark.skipif(speedups is None, reason="kdump._speedups is not built")

BASE: dict[str, Any] = {
    "type": "partition", "topic": "orders", "topic_id": "AAAAAAAAAAAAAAAAAAAAAA",
    "partition": 3, "leader": 1, "leader_epoch": 4, "partition_epoch": 9,
    "replicas": [1, 2, 3], "isr": [1, 2, 3], "elr": [], "last_known_elr": [],
    "leader_recovery_state": "RECOVERED", "adding_replicas": [], "removing_replicas": [],
    "directories": ["d1", "d2", "d3"]}

VARIANTS: list[dict[str, Any]] = [
    {}, {"partition_epoch": 10}, {"leader": 2, "leader_epoch": 5},
    {"leader": 2, "leader_epoch": 5, "isr": [2, 3]}, {"leader": -1, "leader_epoch": 5, "isr": []},
    {"isr": [1]}, {"isr": [3, 2, 1, 4]}, {"isr": [1, 1, 2]}, {"leader_epoch": 5, "isr": [1, 2]},
    {"elr": [2]}, {"last_known_elr": [3]}, {"elr": [2], "last_known_elr": [3]},
    {"replicas": [1, 2, 3, 4], "adding_replicas": [4]},
    {"replicas": [4, 5], "removing_replicas": [1, 2, 3], "directories": ["x", "y"]},
    {"leader_recovery_state": "RECOVERING"}, {"leader_epoch": 5},
    {"leader": 7, "leader_epoch": 5, "replicas": [9, -2, 7]},
    {"leader": 1 << 40, "leader_epoch": 5},
    {"elr": None}, {"leader_recovery_state": None}, {"adding_replicas": [None, "a"]},
    {"leader_recovery_state": True},
]

#: values the native code does not say: the twin does, the same
ODD: list[dict[str, Any]] = [
    {"isr": (1, 2)}, {"isr": [1, 2.0]}, {"leader": 1 << 70}, {"replicas": [1, 1 << 64]},
    {"leader_epoch": 5.0}, {"topic": b"orders"}, {"partition": True},
    {"leader_recovery_state": 1.5}, {"adding_replicas": (4,)},
]

SLOTS = TimelineEvent.__slots__


def _slots(ev: TimelineEvent | None) -> Any:
    if ev is None:
        return None
    return [(name, getattr(ev, name)) for name in SLOTS]


def _event(ts: int | None = 1_700_000_000_000) -> Event:
    return Event(42, ts, "PartitionChangeRecord", [], None, "/m/__cluster_metadata-0/0.log", 7)


def _both(ev: Event, before: dict[str, Any], after: dict[str, Any], replicated: Any
          ) -> tuple[Any, Any]:
    assert speedups is not None
    got = speedups.partition_event(TimelineEvent, ev.timestamp, ev.path, ev.position,
                                   ev.offset, before, after, replicated)
    return got, partition_event_py(ev, before, after, replicated)


@native
def test_native_partition_event_is_its_twin() -> None:
    said = 0
    for (b, a), replicated, ts in itertools.product(
            itertools.permutations(VARIANTS, 2), (None, set(), {("orders", 3)}, {("x", 0)}),
            (1_700_000_000_000, None, -1)):
        before, after = {**BASE, **b}, {**BASE, **a}
        got, want = _both(_event(ts), before, after, replicated)
        assert got is not NotImplemented, (b, a)
        assert _slots(got) == _slots(want), (b, a, replicated)
        said += 1
    assert said > 1000


@native
def test_native_partition_event_leaves_odd_values_to_its_twin() -> None:
    for odd in ODD:
        got, want = _both(_event(), BASE, {**BASE, **odd}, None)
        assert got is NotImplemented, odd
        got, want = _both(_event(), {**BASE, **odd}, BASE, None)
        # the before object's topic and partition are not read: said, the same
        assert got is NotImplemented or _slots(got) == _slots(want), odd
    # a time that is not an int, and objects that are not dicts
    assert speedups is not None
    assert speedups.partition_event(TimelineEvent, 1.0, None, None, None, BASE, BASE,
                                    None) is NotImplemented
    assert speedups.partition_event(TimelineEvent, 1, None, None, None, BASE,
                                    list(BASE.items()), None) is NotImplemented
    # fields that differ, or in another order: None from both (the general path says it)
    fewer = {k: v for k, v in BASE.items() if k != "elr"}
    reordered = dict(reversed(list(BASE.items())))
    for before, after in ((BASE, fewer), (fewer, BASE), (BASE, reordered)):
        got, want = _both(_event(), before, after, None)
        assert got is None and want is None
    # what the facade gives is the twin's, natively or not
    for odd in ODD + VARIANTS:
        after = {**BASE, **odd}
        assert _slots(partition_event(_event(), BASE, after, None)) == \
            _slots(partition_event_py(_event(), BASE, after, None))


@native
def test_native_partition_event_on_random_changes() -> None:
    rng = random.Random(48)
    ids = [-1, 0, 1, 2, 3, 4, 5, 1000]

    def some() -> list[int]:
        return [rng.choice(ids) for _ in range(rng.randrange(0, 5))]

    for _ in range(3000):
        before, after = dict(BASE), dict(BASE)
        for obj in (before, after):
            for k in ("replicas", "isr", "elr", "last_known_elr", "adding_replicas"):
                if rng.random() < 0.4:
                    obj[k] = some()
            for k in ("leader", "leader_epoch"):
                if rng.random() < 0.4:
                    obj[k] = rng.choice(ids)
        replicated = rng.choice([None, set(), {("orders", 3)}])
        got, want = _both(_event(rng.choice([None, 5, 1 << 45])), before, after, replicated)
        assert _slots(got) == _slots(want), (before, after)


def _odd_events() -> list[TimelineEvent]:
    evs = []
    texts = ["plain", 'a "quoted" \\ back\tslash\n\r\b\f\x00\x1f\x7f', "caf\u00e9 \u2603 \U0001f600",
             "c1 \x85\x9f bidi \u202e\u2066\u200e\u061c end", ""]
    for k, text in enumerate(texts):
        ev = TimelineEvent(None if k == 1 else 1_700_000_000_000 + k, "producer", "epoch-start",
                           "replica", f"t\u00ff/{k}", text, estimate=k % 2 == 0,
                           file=None if k == 2 else f"/d/t-{k}/0.log", position=k or None,
                           offset=(1 << 70) if k == 3 else k, broker=k, log_dir="/d",
                           topic="t", partition=k, producer_id=-1 if k else None,
                           transactional_id="tx\u202e" if k == 4 else None,
                           group="g" if k == 3 else None,
                           severity="error" if k == 2 else None)
        ev.late = k == 4
        for r in range(k * 2):
            ev.relate(f"r{r} {text}")
        evs.append(ev)
    return evs


@native
def test_native_event_json_is_its_twin() -> None:
    from kdump.render.jsonl import json_text
    from kdump.render.timeline import event_json, event_json_py

    assert speedups is not None
    for ev in _odd_events():
        line = speedups.event_json(ev, TimelineEvent)
        assert line == event_json_py(ev) == json_text(ev.to_json()) + "\n", ev
    # what it leaves to the twin: lone surrogates, a coalesced event's replicas, values
    # that are not the plain types
    for change in ({"text": "x\udc80"}, {"file": "/d\udcff/0.log"},
                   {"replicas": [{"broker": 1, "log_dir": "/d", "file": None, "position": 3}]},
                   {"position": 1.5}, {"time": True}, {"object": 3}):
        ev = _odd_events()[0]
        for name, value in change.items():
            setattr(ev, name, value)
        assert speedups.event_json(ev, TimelineEvent) is NotImplemented, change
        if "position" not in change and "time" not in change and "object" not in change:
            assert event_json(ev) == event_json_py(ev) == json_text(ev.to_json()) + "\n"
    assert speedups.event_json(object(), TimelineEvent) is NotImplemented


@native
def test_native_replay_callback_gives_the_twins_events(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """MetadataStream's replay callback in C (metadata_changes) streams the events its
    Python twin streams, every kind of record, snapshot and all."""
    from kdump.metadata.replay import find_sources
    from kdump.ops.timeline import metadata as tm
    from kdump.render.jsonl import json_text
    from tests.support.cluster_fixtures import fenced_cluster
    from tests.support.timeline_fixture import write_cluster

    dirs = [write_cluster(tmp_path / "c")[0], fenced_cluster(tmp_path / "f")[0]]

    def stream() -> list[Any]:
        out: list[Any] = []
        for d in dirs:
            s = tm.MetadataStream(find_sources(str(d / "__cluster_metadata-0")), 1 << 20,
                                  {("orders", 0)})
            out.extend((json_text(e.to_json()), e.keys, e.involves) for e in s)
        return out

    native_events = stream()
    monkeypatch.setattr(tm, "_native_sink", None)
    assert stream() == native_events
    monkeypatch.setattr(tm, "_native_event", None)
    assert stream() == native_events
    assert len(native_events) > 20


@native
def test_an_event_class_with_members_gets_them_none() -> None:
    """A TimelineEvent with a ``members`` slot (a classic group's rebalance says its
    members there): the events made here have it None, and a line with members is
    left to the twin."""
    assert speedups is not None

    class WithMembers(TimelineEvent):
        __slots__ = ("members",)
        members: Any

    try:
        b, a = BASE, {**BASE, "leader": 2, "leader_epoch": 5}
        e = _event(7)
        ev = speedups.partition_event(WithMembers, 7, e.path, e.position, e.offset, b, a, None)
        assert type(ev) is WithMembers and ev.members is None
        assert _slots(ev) == _slots(partition_event_py(e, b, a, None))
        from kdump.render.timeline import event_json_py

        assert speedups.event_json(ev, WithMembers) == event_json_py(ev)
        ev.members = [{"member_id": "m"}]
        assert speedups.event_json(ev, WithMembers) is NotImplemented
    finally:  # the layout read back for the class the others use
        speedups.partition_event(TimelineEvent, 7, None, None, None, BASE, BASE, None)


def test_no_leader_is_said_none_natively_and_by_the_twin() -> None:
    """A partition change to or from no leader (-1, LeaderConstants.NO_LEADER) says
    ``none`` (issue 48: real clusters' 'leader 1 -> -1'), whichever makes it."""
    none = {**BASE, "leader": -1, "leader_epoch": 5, "isr": []}
    back = {**BASE, "leader": 2, "leader_epoch": 6, "isr": [2]}
    cases = [(BASE, none, "leader 1 -> none, epoch 5, isr [1,2,3] -> []"),
             (none, back, "leader none -> 2, epoch 6, isr [] -> [2]")]
    for before, after, text in cases:
        ev = partition_event(_event(), before, after, None)
        twin = partition_event_py(_event(), before, after, None)
        assert ev is not None and twin is not None
        assert (ev.kind, ev.text) == (twin.kind, twin.text) == ("leader-change", text)
