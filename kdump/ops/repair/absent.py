"""Replicas the KRaft metadata assigns to a log dir's broker with no directory there
(the log dir's verdict, :class:`kdump.ops.verdict.AbsentReplica`, ``assigned-absent``):
``kdump repair`` names each in a ``repair_absent`` object with the verdict's kind,
severity, words and lost offsets, and says what the copy does about it.

What it does, from Kafka's source (3.9; 4.0-4.3 alike): nothing is made for it.  A
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

``--replica`` holding the partition: never filled from it.  Unless the verdict proves
offsets written here its batches are not this broker's data: it was never created
here, or was created and fetched nothing the log dir still proves, and the broker
fetches them itself as a follower.  Where the verdict proves offsets written here (this
broker led the epoch another replica holds batches of) they are named lost, not filled:
a fill takes a replica's batches into a gap of this replica's own log where the two
agree around it (:mod:`.fill`), and there is no batch of this replica to agree with;
the offsets below the epoch are not proved written here at all.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ...findings import INFO
from ...model import shape
from ..verdict import AbsentReplica
from .fill import ReplicaLogDir

#: Kafka's path from the assignment to an empty log, cited in the words
_CREATES = ("a KRaft broker given the copy creates its log empty when it applies the "
            "metadata assigning it (ReplicaManager.applyDelta -> applyLocalLeadersDelta/"
            "applyLocalFollowersDelta -> Partition.makeLeader/makeFollower -> "
            "createLogIfNotExists -> LogManager.getOrCreateLog, Kafka 3.9)")


def what_repair_does(a: AbsentReplica) -> str:
    """What the copy does about an absent replica, in words (no directory made, and
    what a broker given the copy does instead)."""
    head = f"no directory made for {a.topic}-{a.partition} in the copy: {_CREATES}"
    if not a.pinned:
        head += " unless another log dir of the broker holds it"
    if a.written is not None:
        r = a.written
        [w] = r.witnesses
        return (f"{head}; {r.offsets_text} were written here and are lost on this replica, "
                f"and as the metadata's leader of epoch {a.leader_epoch} a broker given the "
                "copy would start the partition empty at offset 0 and hand them out again: "
                f"let another in-sync replica lead it first ({w.path}, broker {w.broker_id}, "
                "holds them)")
    if a.leader == a.node:
        return (f"{head}, and as the metadata's leader of epoch {a.leader_epoch} starts it "
                "empty (nothing here proves a record was written to it)")
    if a.leader < 0:
        return f"{head}; it fetches from the leader once one is elected"
    return (f"{head} and, as a follower of broker {a.leader}, fetches it from the leader from "
            "its log end (ReplicaManager.applyLocalFollowersDelta: "
            "replicaFetcherManager.addFetcherForPartitions): Kafka refills it itself")


def _fill_words(a: AbsentReplica, holding: list[ReplicaLogDir]) -> str | None:
    """Why a ``--replica`` holding the partition is not filled from (None: none holds it)."""
    if not holding:
        return None
    who = ", ".join(r.label() for r in holding)
    if a.written is not None:
        return (f"not filled from {who}: a fill takes a replica's batches into a gap of this "
                "replica's own log where the two agree around it, and the copy holds no batch "
                f"of this replica to agree with; offsets below {a.written.first} are not "
                "proved written here at all")
    return (f"not filled from {who}: its batches are not this broker's data (nothing proves "
            "a record was written to this replica), and a follower fetches them from the "
            "leader itself")


def absent_objects(absent: list[AbsentReplica], replicas: list[ReplicaLogDir]
                   ) -> Iterator[dict[str, Any]]:
    """One ``repair_absent`` per replica assigned to the log dir's broker and absent,
    in the verdict's order."""
    for a in absent:
        p = a.finding()
        name = f"{a.topic}-{a.partition}"
        holding = [r for r in replicas if os.path.isdir(os.path.join(r.path, name))]
        lost = [[a.written.first, a.written.last]] if a.written is not None else []
        notes = [what_repair_does(a)]
        fill = _fill_words(a, holding)
        if fill is not None:
            notes.append(fill)
        yield shape("repair_absent", {
            "log_dir": a.log_dir, "topic": a.topic, "partition": a.partition,
            "input": a.directory, "output": None, "kind": str(p.kind),
            "severity": str(p.severity), "detail": p.detail, "data_lost": bool(lost),
            "lost_offsets": lost, "replicas": [r.path for r in holding], "filled": False,
            "notes": notes})


def is_damage(obj: dict[str, Any]) -> bool:
    """A ``repair_absent`` the one exit rule counts (an error or a warning)."""
    return obj["severity"] != INFO


__all__ = ["absent_objects", "is_damage", "what_repair_does"]
