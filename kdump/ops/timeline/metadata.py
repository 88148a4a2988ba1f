"""The KRaft metadata log's events, from the one metadata replay (kdump.metadata.replay,
never a second decoder): each record's changes to the image become events dated by
its batch's timestamp, the active controller's clock (the raft client appends a batch
with its own time: raft/.../internals/BatchAccumulator.java, ``appendTimestamp``, 3.9-4.3),
and the quorum's ``LeaderChangeMessage`` control records become quorum-leader events.

The replay calls back; it runs in steps of one batch (``Replay.steps``), each step's
events handed on before the next batch is read, so the log is streamed whatever its
size, in one thread (a thread and a queue cost more than the work, the GIL held by one
or the other).  Records loaded from a snapshot are the image
as of its offset, not its history: they are one event, saying what the log no longer
holds (FORMATS.md §22).
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Container, Iterator
from typing import Any

from ...findings import Problem
from ...metadata.image import Change
from ...metadata.output import describe, object_label
from ...metadata.replay import Event, Replay, Sources
from ...native import speedups
from ...records.v2 import RecordBatch
from .event import TimelineEvent, iso


def _broker_kind(action: str, before: dict[str, Any] | None, after: dict[str, Any] | None
                 ) -> str:
    if action == "created":
        return "broker-registered"
    if action == "removed":
        return "broker-unregistered"
    assert before is not None and after is not None
    if before.get("epoch") != after.get("epoch") or \
            before.get("incarnation_id") != after.get("incarnation_id"):
        return "broker-registered"
    if before.get("fenced") != after.get("fenced"):
        return "broker-fenced" if after.get("fenced") else "broker-unfenced"
    if before.get("in_controlled_shutdown") != after.get("in_controlled_shutdown"):
        return "broker-shutdown"
    return "broker-change"


def _partition_kind(action: str, before: dict[str, Any] | None,
                    after: dict[str, Any] | None) -> str:
    if action == "created":
        return "partition-created"
    if action == "removed":
        return "partition-deleted"
    assert before is not None and after is not None
    # the leader's epoch alone bumped is no leader change: the controller bumps it on an
    # ISR shrink (metadata.version before 3.6) or a reassignment by setting the same
    # leader again (PartitionChangeBuilder.triggerLeaderEpochBumpForIsrShrinkIfNeeded,
    # triggerLeaderEpochBumpForReplicaReassignmentIfNeeded, 3.9-4.3); the change is said
    # by what else changed
    if before.get("leader") != after.get("leader"):
        return "leader-change"
    if before.get("isr") != after.get("isr"):
        return "isr-change"
    if before.get("elr") != after.get("elr") or \
            before.get("last_known_elr") != after.get("last_known_elr"):
        return "elr-change"
    if before.get("replicas") != after.get("replicas"):
        return "reassignment"
    return "partition-change"


_ACTIONS = {"created": "created", "removed": "deleted"}
_SIMPLE_KINDS = {"topic": "topic", "config": "config", "feature": "feature",
                 "controller": "controller"}


def change_events(ev: Event, replicated: Container[tuple[str, int]] | None = None, *,
                  fast: bool = True) -> Iterator[TimelineEvent]:
    """The timeline events of one record's changes; ``replicated``: the partitions whose
    replicas are read (only their leader changes can meet an epoch start; None: all).
    ``fast``: a partition's change (most of a busy log) by :func:`partition_event`
    (the same event: tests/ops/timeline)."""
    for c in ev.changes:
        obj = c.after if c.after is not None else c.before
        if obj is None:
            continue
        t = obj.get("type")
        if fast and t == "partition" and c.before is not None and c.after is not None:
            fev = partition_event(ev, c.before, c.after, replicated)
            if fev is not None:
                yield fev
                continue
        if t == "partition" and c.before is not None and c.after is not None:
            # the most frequent change, said without describe()'s every-field pass
            before, after = c.before, c.after
            action = "changed"
            text = ", ".join(f"{k} {_show(before.get(k))} -> {_show(v)}"
                             for k, v in after.items()
                             if k not in _QUIET and before.get(k) != v) or "unchanged"
        else:
            action, fields, text = describe(c.before, c.after)
            if t == "topic" and action == "changed" and \
                    all(f["field"] == "partitions" for f in fields):
                continue  # the count of its partitions: each partition-created says it
        keys: tuple[tuple[Any, ...], ...] = ()
        involves: tuple[int, ...] = ()
        broker = topic = partition = None
        if t == "broker":
            kind = _broker_kind(action, c.before, c.after)
            broker = int(obj["id"])
            if kind == "broker-registered" and c.before is not None and c.after is not None:
                # a new incarnation id is a new process; the same one re-registering
                # amends its registration (ClusterControlManager.replay(RegisterBroker
                # Record): "modifying the registration" vs "establishing a new
                # incarnation", 3.9-4.3): no restart, though the epoch may move
                # (registerBroker gives an amended registration a new epoch in 3.7, keeps
                # it from 3.9: "Broker epoch remains")
                restart = c.before.get("incarnation_id") != c.after.get("incarnation_id")
                text = (("re-registered (a restart)" if restart else
                         "registration amended by the same process (incarnation unchanged: "
                         "no restart)")
                        + f": epoch {c.before.get('epoch')} -> {c.after.get('epoch')}"
                        + (", fenced" if c.after.get("fenced") else ""))
            elif kind == "broker-registered":
                text = (f"registered, epoch {obj.get('epoch')}"
                        + (", fenced" if obj.get("fenced") else ""))
            if kind in ("broker-fenced", "broker-shutdown", "broker-registered",
                        "broker-unfenced"):
                keys = (("broker-down", broker),)
        elif t == "partition":
            kind = _partition_kind(action, c.before, c.after)
            topic, partition = str(obj["topic"]), int(obj["partition"])
            if kind == "leader-change" and c.before is not None and c.after is not None:
                text = (f"leader {_leader(c.before['leader'])} -> "
                        f"{_leader(c.after['leader'])}, epoch "
                        f"{c.after['leader_epoch']}"
                        + ("" if c.before.get("isr") == c.after.get("isr") else
                           f", isr {_ids(c.before['isr'])} -> {_ids(c.after['isr'])}"))
            elif action == "created":
                text = (f"created: replicas {_ids(obj['replicas'])}, leader "
                        f"{_leader(obj['leader'])}, "
                        f"epoch {obj['leader_epoch']}")
            key_list: list[tuple[Any, ...]] = []
            if c.after is not None and (replicated is None or (topic, partition) in replicated) \
                    and (c.before is None or
                         c.before.get("leader_epoch") != c.after.get("leader_epoch")):
                # the change that began this leader epoch
                key_list.append(("epoch", topic, partition, int(c.after["leader_epoch"])))
            if c.before is not None and c.after is not None:
                gone = set(c.before.get("isr", [])) - set(c.after.get("isr", []))
                key_list.extend(("broker-down", b) for b in sorted(gone))
                if c.before.get("leader") != c.after.get("leader") and \
                        c.before.get("leader", -1) >= 0:
                    key_list.append(("broker-down", c.before["leader"]))
            keys = tuple(key_list)
            involves = tuple(sorted({b for o in (c.before, c.after) if o is not None
                                     for b in (*o.get("replicas", ()), *o.get("isr", ()),
                                               o.get("leader", -1)) if b >= 0}))
        else:
            base = _SIMPLE_KINDS.get(str(t), "metadata")
            kind = f"{base}-{_ACTIONS.get(action, 'change')}"
            if t == "topic":
                topic = str(obj["name"])
            elif t == "controller":
                broker = int(obj["id"])
                # a controller registers with a new incarnation id at each start
                # (ControllerServer.startup: incarnationId = Uuid.randomUuid(), 3.9-4.x;
                # ControllerRegistrationManager sends it): a new one is a restart, as a
                # broker's new registration is
                if action == "changed" and c.before is not None and c.after is not None \
                        and c.before.get("incarnation_id") != c.after.get("incarnation_id"):
                    text = f"re-registered (a restart): {text}"
        yield TimelineEvent(ev.timestamp, "controller", kind, "metadata", object_label(obj),
                            text, file=ev.path, position=ev.position, offset=ev.offset,
                            broker=broker, topic=topic, partition=partition, keys=keys,
                            involves=involves)


_native_event = None if speedups is None else getattr(speedups, "partition_event", None)
#: the replay's callback in C for a record changing one partition, given the Event's
#: fields (Replay's on_changes: no Event made); the rest go to its twin, MetadataStream's
#: on_event, by an Event made of them
_native_sink = None if speedups is None else getattr(speedups, "metadata_changes", None)


def partition_event(ev: Event, before: dict[str, Any], after: dict[str, Any],
                    replicated: Container[tuple[str, int]] | None) -> TimelineEvent | None:
    """:func:`change_events`' event of a partition's change; None when the two objects'
    fields differ (the general path says it).  Made by ``partition_event`` in
    kdump/_speedups_timeline.c where the extension is built and the change is of the
    plain values the replay gives, else by its twin :func:`partition_event_py`."""
    if _native_event is not None:
        fev = _native_event(TimelineEvent, ev.timestamp, ev.path, ev.position, ev.offset,
                            before, after, replicated)
        if fev is not NotImplemented:
            return fev
    return partition_event_py(ev, before, after, replicated)


def partition_event_py(ev: Event, before: dict[str, Any], after: dict[str, Any],
                       replicated: Container[tuple[str, int]] | None
                       ) -> TimelineEvent | None:
    """:func:`partition_event`'s pure-Python twin: the fields compared at once
    (:func:`_shown_fields`)."""
    fields = tuple(after)
    if tuple(before) != fields:
        return None
    layout = _LAYOUT[0]
    if layout[0] != fields:
        layout = _LAYOUT[0] = (fields, *_shown_fields(fields))
    _, shown, values = layout
    bv, av = values(before), values(after)
    flags = tuple(map(operator.ne, bv, av))
    what = _DIFFS.get((shown, flags))
    if what is None:
        what = _DIFFS[(shown, flags)] = _diff(shown, flags)
    kind, isr_changed, epoch_bumped, changed = what
    topic, partition = str(after["topic"]), int(after["partition"])
    b_leader, a_leader = before["leader"], after["leader"]
    if kind == "leader-change":
        text = (f"leader {_leader(b_leader)} -> {_leader(a_leader)}, epoch "
                f"{after['leader_epoch']}"
                + (f", isr {_ids(before['isr'])} -> {_ids(after['isr'])}" if isr_changed
                   else ""))
    else:
        text = ", ".join([f"{k} {_show(bv[i])} -> {_show(av[i])}" for i, k in changed]) \
            or "unchanged"
    keys: list[tuple[Any, ...]] = []
    if epoch_bumped and (replicated is None or (topic, partition) in replicated):
        keys.append(("epoch", topic, partition, int(after["leader_epoch"])))
    b_isr, a_isr = before["isr"], after["isr"]
    if isr_changed:
        keys.extend(("broker-down", b) for b in sorted(set(b_isr) - set(a_isr)))
    if b_leader != a_leader and b_leader >= 0:
        keys.append(("broker-down", b_leader))
    ids = sorted({*before["replicas"], *after["replicas"], *b_isr, *a_isr, b_leader,
                  a_leader})
    if ids and ids[0] < 0:
        ids = [b for b in ids if b >= 0]
    return TimelineEvent(ev.timestamp, "controller", kind, "metadata",
                         f"{after['topic']}/{after['partition']}", text, file=ev.path,
                         position=ev.position, offset=ev.offset, topic=topic,
                         partition=partition, keys=tuple(keys), involves=tuple(ids))


#: (fields said, which of them changed) -> what :func:`_diff` makes of it
_DIFFS: dict[tuple[tuple[str, ...], tuple[bool, ...]],
             tuple[str, bool, bool, tuple[tuple[int, str], ...]]] = {}


def _diff(shown: tuple[str, ...], flags: tuple[bool, ...]
          ) -> tuple[str, bool, bool, tuple[tuple[int, str], ...]]:
    """The kind of a partition's change whose fields ``shown`` changed where ``flags``
    say (:func:`_partition_kind`'s), whether its ISR changed, whether its leader epoch
    did, and the changed fields (index, name)."""
    changed = tuple((i, k) for i, (k, f) in enumerate(zip(shown, flags, strict=True)) if f)
    diff = {k for _, k in changed}
    # an event's kind (not a finding's: tests/house/test_findings_kinds.py reads `kind =`)
    if "leader" in diff:
        event_kind = "leader-change"
    elif "isr" in diff:
        event_kind = "isr-change"
    elif "elr" in diff or "last_known_elr" in diff:
        event_kind = "elr-change"
    elif "replicas" in diff:
        event_kind = "reassignment"
    else:
        event_kind = "partition-change"
    return event_kind, "isr" in diff, "leader_epoch" in diff, changed


#: the last partition field order seen, with its :func:`_shown_fields` (one metadata
#: version writes one order: no cache lookup per change)
_LAYOUT: list[tuple[tuple[str, ...], tuple[str, ...],
                    Callable[[dict[str, Any]], tuple[Any, ...]]]] = [((), (), lambda o: ())]


@functools.lru_cache(maxsize=64)
def _shown_fields(fields: tuple[str, ...]
                  ) -> tuple[tuple[str, ...], Callable[[dict[str, Any]], tuple[Any, ...]]]:
    """A partition object's fields a change says (not :data:`_QUIET`), in its order, and
    a getter of their values (objects of one metadata version have one field order)."""
    shown = tuple(k for k in fields if k not in _QUIET)
    if len(shown) > 1:
        return shown, operator.itemgetter(*shown)
    return shown, lambda o: tuple(o[k] for k in shown)


#: partition fields every change bumps, that say where, not what, or name it
_QUIET = frozenset({"partition_epoch", "directories", "type", "topic", "topic_id",
                    "partition"})


def _show(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ",".join(map(str, v)) + "]"
    return "null" if v is None else str(v)


def _leader(v: Any) -> str:
    """A partition's leader in words: -1 is no leader (LeaderConstants.NO_LEADER,
    metadata/.../LeaderConstants.java, 3.9-4.x: what a PartitionRecord or
    PartitionChangeRecord holds when no replica leads), said "none"; JSON keeps the
    integer (the ``leader`` fields of ``kdump metadata``'s partition objects)."""
    return "none" if v == -1 else str(v)


def _ids(v: Any) -> str:
    return "[" + ",".join(str(x) for x in v) + "]" if isinstance(v, list) else str(v)


class MetadataStream:
    """The metadata log's events, streamed from a replay in a thread (see the module
    docstring); its problems and counts once it has ended."""

    def __init__(self, sources: Sources, max_batch_bytes: int,
                 replicated: Container[tuple[str, int]] | None = None) -> None:
        self.sources = sources
        self.replicated = replicated
        self.max_batch_bytes = max_batch_bytes
        self.replay: Replay | None = None
        self.problems: list[Problem] = []
        self.snapshot_records = 0
        #: (topic, partition) -> the leader epoch the snapshot the history starts from
        #: holds (a leader change up to it is before the log's history: correlate's
        #: MetadataFacts)
        self.snapshot_epochs: dict[tuple[str, int], int] = {}
        #: topic id -> name, every topic the replay has seen (snapshot and log), deleted
        #: ones kept: names the ids new groups' records give (correlate)
        self.topic_names: dict[str, str] = {}
        #: the stream has ended, and the latest time of its events
        self.done = False
        self.last_time: int | None = None

    def _snapshot_object(self, changes: list[Change]) -> None:
        for c in changes:
            o = c.after
            if o is None:
                continue
            t = o.get("type")
            if t == "partition":
                self.snapshot_epochs[(str(o["topic"]), int(o["partition"]))] = \
                    int(o["leader_epoch"])
            elif t == "topic":
                self.topic_names[str(o["topic_id"])] = str(o["name"])

    def __iter__(self) -> Iterator[TimelineEvent]:
        snapshot: list[int | None] = []
        chunk: list[TimelineEvent] = []
        replicated = self.replicated
        names = self.topic_names

        def on_event(ev: Event) -> None:
            if ev.offset is None:  # loaded from a snapshot: the image, not its history
                self.snapshot_records += 1
                if not snapshot:
                    snapshot.append(ev.timestamp)
                self._snapshot_object(ev.changes)
                return
            changes = ev.changes
            if len(changes) == 1:  # most records: one partition's change, said directly
                c = changes[0]
                if c.before is not None and c.after is not None and \
                        c.after.get("type") == "partition":
                    fev = partition_event(ev, c.before, c.after, replicated)
                    if fev is not None:
                        chunk.append(fev)
                        return
            for c in changes:  # a topic's record is never a partition's (the C sink's)
                o = c.after
                if o is not None and o.get("type") == "topic":
                    names[str(o["topic_id"])] = str(o["name"])
            chunk.extend(change_events(ev, replicated))

        def on_control(path: str, batch: RecordBatch, ctl: Any) -> None:
            if ctl.type_name != "LEADER_CHANGE" or ctl.error or not ctl.data:
                return
            data = ctl.data
            leader = int(data.get("leaderId", -1))
            voters = [int(v["voterId"]) for v in data.get("voters", [])]
            chunk.append(TimelineEvent(
                batch.max_timestamp, "controller", "quorum-leader", "metadata", "quorum",
                f"controller {leader} leads the quorum, epoch {batch.partition_leader_epoch}"
                + (f" (voters {_ids(voters)})" if voters else ""),
                file=path, position=batch.position, offset=batch.base_offset, broker=leader))

        def as_event(offset: int | None, ts: int | None, name: str, changes: list[Change],
                     committed_at: int | None, path: str, pos: int | None) -> None:
            on_event(Event(offset, ts, name, changes, committed_at, path, pos))

        sink = None if _native_sink is None else \
            functools.partial(_native_sink, TimelineEvent, chunk, replicated, as_event)
        replay = self.replay = Replay(self.sources, earliest=True,
                                      on_event=on_event if sink is None else None,
                                      on_control=on_control,
                                      max_batch_bytes=self.max_batch_bytes, on_changes=sink)
        first = True
        # the replay steps batch by batch in this thread: each batch's events are handed
        # on before the next batch is read (memory: one batch's events)
        for _ in itertools.chain(replay.steps(), (None,)):  # and once at the end
            if not chunk:
                continue
            if first and snapshot:
                yield self._snapshot_event(snapshot[0])
            first = False
            t = chunk[-1].time  # one batch's events have its time
            if t is not None and (self.last_time is None or t > self.last_time):
                self.last_time = t
            yield from chunk
            chunk.clear()
        if first and snapshot:
            yield self._snapshot_event(snapshot[0])
        r = self.replay
        if r is not None:
            self.problems = list(r.problems)
            if r.pending_transaction is not None:
                p = r.pending_transaction
                yield TimelineEvent(r.timestamp, "controller", "metadata-transaction-open",
                                    "metadata", "metadata log",
                                    f"metadata transaction begun at offset {p['begin_offset']} "
                                    f"has no End record ({p['records']} records not applied)",
                                    offset=p["begin_offset"])
        self.done = True

    def _snapshot_event(self, ts: int | None) -> TimelineEvent:
        r = self.replay
        snap = r.snapshot if r is not None else None
        end = snap.end_offset if snap is not None else None
        return TimelineEvent(ts, "controller", "metadata-snapshot", "metadata", "metadata log",
                             f"history starts from a snapshot: the image as of offset "
                             f"{'?' if end is None else end - 1} ({iso(ts)}); events before "
                             "it are not in the log",
                             file=None if snap is None else snap.path, offset=end)
