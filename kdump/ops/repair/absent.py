"""Replicas the KRaft metadata assigns to a log dir's broker with no directory there
(the log dir's verdict, :class:`kdump.ops.verdict.AbsentReplica`, ``assigned-absent``):
``kdump repair`` names each in a ``repair_absent`` object with the verdict's kind,
severity, words and lost offsets, and says what the copy does about it.

What it does, from Kafka's source (3.9; 4.0-4.3 alike), when nothing proves a record
written on it: nothing is made for it.  A
KRaft broker given the copy applies the metadata at start-up and creates every replica
assigned to it that has no log, empty (``ReplicaManager.applyDelta`` ->
``applyLocalLeadersDelta``/``applyLocalFollowersDelta`` -> ``Partition.makeLeader``/
``makeFollower`` -> ``createLogIfNotExists`` -> ``LogManager.getOrCreateLog``), and a
follower then fetches it from the leader from its log end
(``applyLocalFollowersDelta``: ``replicaFetcherManager.addFetcherForPartitions`` with
``initialFetchOffset(log)``).  An empty directory made by the repair would hold no more
than that, and the copy keeps the evidence that says the replica is absent (its
``meta.properties`` with the ``directory.id``, the KRaft metadata), so ``verify-crc`` on
the copy tells the same story as the manifest.

Where the verdict proves offsets written on it (this broker leads the epoch another
replica given holds batches of: a leader appends first) the copy is not silent either:
those offsets are this broker's, lost, and a broker given no directory would create the
log empty at offset 0 and, as the epoch's leader, hand them out again.  So the replica
is recreated as a gone directory is (:mod:`.plan`, :class:`.partition.PartitionRepair`):
an empty log over the proved range, ``partition.metadata`` from the KRaft metadata, its
next offset past them; and a ``--replica`` holding them fills them byte for byte where
it agrees (:mod:`.fill`).  Offsets below that epoch are not proved written here and are
not taken: the log starts at the range's first offset.

``--replica`` holding a partition of an absent replica with nothing proved written on
it: never filled from it.  Its batches are not this broker's data (the replica was
never created here, or was created and holds nothing the log dir still proves), and the
broker fetches them itself as a follower.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ...findings import INFO
from ...model import shape
from ..verdict import AbsentReplica
from .fill import ReplicaLogDir
from .reserve import Written

#: Kafka's path from the assignment to an empty log, cited in the words
_CREATES = ("a KRaft broker given the copy creates its log empty when it applies the "
            "metadata assigning it (ReplicaManager.applyDelta -> applyLocalLeadersDelta/"
            "applyLocalFollowersDelta -> Partition.makeLeader/makeFollower -> "
            "createLogIfNotExists -> LogManager.getOrCreateLog, Kafka 3.9)")


def what_repair_does(a: AbsentReplica, part: dict[str, Any] | None = None) -> str:
    """What the copy does about an absent replica, in words: no directory made, and what
    a broker given the copy does instead; offsets proved written on it: recreated over
    them (``part``: its ``repair_partition``)."""
    if a.written is not None:
        r = a.written
        risk = (f"as the metadata's leader of epoch {a.leader_epoch} with no directory a broker "
                "given the copy would create the log empty at offset 0 "
                "(LogManager.getOrCreateLog) and append from there")
        if part is None or part["output"] is None:
            return (f"{r.offsets_text} were written on this replica: not recreated, its topic id "
                    f"being unknown (its repair_partition says why); {risk}")
        return (f"{r.offsets_text} were written on this replica: recreated as {part['output']}, "
                "an empty log over them unless a --replica fills them (its repair_partition "
                f"says how), so that they are never handed out again: {risk}")
    head = f"no directory made for {a.topic}-{a.partition} in the copy: {_CREATES}"
    if not a.pinned:
        head += " unless another log dir of the broker holds it"
    if a.leader == a.node:
        return (f"{head}, and as the metadata's leader of epoch {a.leader_epoch} starts it "
                "empty (nothing here proves a record was written to it)")
    if a.leader < 0:
        return f"{head}; it fetches from the leader once one is elected"
    return (f"{head} and, as a follower of broker {a.leader}, fetches it from the leader from "
            "its log end (ReplicaManager.applyLocalFollowersDelta: "
            "replicaFetcherManager.addFetcherForPartitions): Kafka refills it itself")


#: a recreated absent replica's partition.metadata, in words
RECREATED = ("the replica's directory is not here and offsets were proved written on it: "
             "recreated as an empty log over them")


def absent_written(a: AbsentReplica) -> Written:
    """What is proved written on an absent replica: the range another replica holds in
    the epoch this broker led (the copy reserves it, from its first offset)."""
    r = a.written
    if r is None:
        return Written()
    return Written(last=r.last, start=r.first,
                   witnesses=[f"{w.label} ({w.path})" for w in r.witnesses])


def recreated_note(a: AbsentReplica, topic_id: tuple[str, str]) -> str:
    """Why an absent replica with offsets proved written on it is recreated, in words."""
    r = a.written
    assert r is not None
    [w] = r.witnesses
    return (f"the KRaft metadata assigns {a.topic}-{a.partition} to this broker ({a.node}), the "
            f"leader of epoch {a.leader_epoch}, and {w.path} (broker {w.broker_id}) holds "
            f"{r.offsets_text} in that epoch: written here first (a leader appends, its "
            "followers copy its batches), and the partition directory is not here: recreated "
            f"with partition.metadata (topic id {topic_id[0]}, from {topic_id[1]}) as an empty "
            f"log from {r.first} to {r.last}, so they are never handed out again (a broker "
            "given no directory creates the log empty at offset 0, LogManager.getOrCreateLog, "
            "and as the epoch's leader appends from there); offsets below "
            f"{r.first} are not proved written here: the log starts at {r.first}")


def _fill_words(a: AbsentReplica, holding: list[ReplicaLogDir], part: dict[str, Any] | None
                ) -> str | None:
    """What became of the ``--replica`` log dirs holding the partition (None: none does)."""
    if not holding:
        return None
    who = ", ".join(r.label() for r in holding)
    if a.written is not None:
        filled = ", ".join(f"{x}-{y}" for x, y in (part or {}).get("filled_offsets") or [])
        return (f"offered to {who}: " + (
            f"offsets {filled} filled (this broker's data: proved written here; its repair_fill)"
            if filled else "nothing filled (its repair_fill says why)") +
            f"; offsets below {a.written.first} are not proved written here and are not taken")
    return (f"not filled from {who}: its batches are not this broker's data (nothing proves "
            "a record was written to this replica), and a follower fetches them from the "
            "leader itself")


def absent_objects(absent: list[AbsentReplica], replicas: list[ReplicaLogDir],
                   parts: dict[tuple[str, int], dict[str, Any]] | None = None
                   ) -> Iterator[dict[str, Any]]:
    """One ``repair_absent`` per replica assigned to the log dir's broker and absent,
    in the verdict's order; ``parts``: the log dir's ``repair_partition`` objects (a
    replica with offsets proved written on it was recreated: its object says what the
    copy lacks)."""
    for a in absent:
        p = a.finding()
        name = f"{a.topic}-{a.partition}"
        holding = [r for r in replicas if os.path.isdir(os.path.join(r.path, name))]
        part = (parts or {}).get((a.topic, a.partition)) if a.written is not None else None
        lost: list[list[int]] = []
        if part is not None:
            lost = [list(x) for x in part["lost_offsets"]]
        elif a.written is not None:
            lost = [[a.written.first, a.written.last]]
        notes = [what_repair_does(a, part)]
        fill = _fill_words(a, holding, part)
        if fill is not None:
            notes.append(fill)
        yield shape("repair_absent", {
            "log_dir": a.log_dir, "topic": a.topic, "partition": a.partition,
            "input": a.directory, "output": None if part is None else part["output"],
            "kind": str(p.kind), "severity": str(p.severity), "detail": p.detail,
            "data_lost": bool(lost), "lost_offsets": lost,
            "replicas": [r.path for r in holding],
            "filled": bool(part is not None and part["filled_offsets"]), "notes": notes})


def is_damage(obj: dict[str, Any]) -> bool:
    """A ``repair_absent`` the one exit rule counts (an error or a warning)."""
    return obj["severity"] != INFO


__all__ = ["RECREATED", "absent_objects", "absent_written", "is_damage", "recreated_note",
           "what_repair_does"]
