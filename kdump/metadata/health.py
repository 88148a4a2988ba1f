"""Stopped or failing: what the metadata image says of the cluster's health, in one place
for ``kdump metadata`` and ``kdump report``.

How a KRaft broker stops, from Kafka's controller (apache/kafka, metadata/src/main/java/
org/apache/kafka/controller/, releases 3.9 to 4.3):

* a broker asking to shut down while it leads partitions enters controlled shutdown
  (``BrokerHeartbeatManager.calculateNextBrokerState``: CONTROLLED_SHUTDOWN); the
  controller writes a ``BrokerRegistrationChangeRecord`` with inControlledShutdown=1
  and moves its leaderships away (``ReplicationControlManager.
  handleBrokerInControlledShutdown``): a partition with no other ISR replica gets a
  ``PartitionChangeRecord`` with leader -1 (NO_LEADER);
* once it leads nothing, the broker is fenced (SHUTDOWN_NOW, ``handleBrokerFenced``):
  ``BrokerRegistrationChangeRecord`` fenced=1, or ``FenceBrokerRecord`` before
  metadata.version 3.3-IV2 (``MetadataVersion.isBrokerRegistrationChangeRecordSupported``);
  a broker whose session times out is fenced the same way
  (``ReplicationControlManager.maybeFenceOneStaleBroker``);
* ``BrokerRegistration.cloneWith`` keeps inControlledShutdown through the fence: only a
  new registration (a new incarnation) leaves it (``BrokerRegistrationInControlledShutdown
  Change``).

So a cluster copied after it was stopped ends with every registered broker fenced (or,
when its controller stopped first, in controlled shutdown), and its partitions without
another replica have leader -1: that is the stop, said once as information
(``cluster-stopped``).  While a registered broker is unfenced and not shutting down, the
cluster runs: a partition without a leader is an error (``partition-offline``), a fenced
broker and a partition short of ISR replicas are warnings (``broker-fenced``,
``partition-under-replicated``).

:class:`BrokerMoments` follows the replay and keeps, per broker, the offset and time of
the record that fenced it and of the one that put it in controlled shutdown (the image
itself keeps states, not when they began).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..findings import ERROR, INFO, WARNING, Problem
from ..timestamps import iso_ms
from .image import Change, MetadataImage

__all__ = ["BrokerMoments", "Health", "Moment", "cluster_health"]

#: (offset, timestamp) of a record; offset None: loaded from a snapshot
Moment = tuple[int | None, int | None]


@dataclass
class BrokerMoments:
    """When each broker was last fenced and last entered controlled shutdown."""

    fenced: dict[int, Moment] = field(default_factory=dict)
    shutdown: dict[int, Moment] = field(default_factory=dict)

    def observe(self, changes: list[Change], offset: int | None, timestamp: int | None) -> None:
        for c in changes:
            if c.key[0] != "broker":
                continue
            bid = c.key[1]
            before, after = c.before, c.after
            if after is None:  # unregistered
                self.fenced.pop(bid, None)
                self.shutdown.pop(bid, None)
                continue
            new_incarnation = before is None or before["incarnation_id"] != after["incarnation_id"] \
                or before["epoch"] != after["epoch"]
            if after["fenced"] and (new_incarnation or not before or not before["fenced"]):
                self.fenced[bid] = (offset, timestamp)
            if after["in_controlled_shutdown"] and (
                    new_incarnation or not before or not before["in_controlled_shutdown"]):
                self.shutdown[bid] = (offset, timestamp)




def _ids(ids: list[int]) -> str:
    return f"broker {ids[0]}" if len(ids) == 1 else "brokers " + ", ".join(map(str, ids))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass
class Health:
    """The cluster's state in an image: ``running``, ``stopped`` or None (no broker
    registered); the stop's moment; the partitions without a leader."""

    state: str | None
    brokers: list[dict[str, Any]]
    partitions: list[dict[str, Any]]
    #: the broker whose fence (or controlled shutdown) stopped the cluster, and how
    stop_broker: int | None = None
    stop_how: str | None = None
    stop_offset: int | None = None
    stop_timestamp: int | None = None
    #: the stop was read from the snapshot, whose last offset is this
    stop_in_snapshot: int | None = None
    moments: BrokerMoments = field(default_factory=BrokerMoments)

    @property
    def leaderless(self) -> list[dict[str, Any]]:
        return [p for p in self.partitions if p["leader"] < 0]

    @property
    def under_replicated(self) -> list[dict[str, Any]]:
        return [p for p in self.partitions if p["leader"] >= 0 and len(p["isr"]) < len(p["replicas"])]

    @property
    def stop_text(self) -> str | None:
        """``the cluster was stopped at T (broker N fenced at offset X)``."""
        if self.state != "stopped":
            return None
        where = f"at offset {self.stop_offset}" if self.stop_offset is not None else (
            f"in the snapshot ending at offset {self.stop_in_snapshot}"
            if self.stop_in_snapshot is not None else "at an unknown offset")
        return (f"the cluster was stopped at {iso_ms(self.stop_timestamp)} (broker "
                f"{self.stop_broker} {self.stop_how} {where})")

    def summary(self) -> dict[str, Any]:
        """The image object's fields (kdump/model/metadata.py: ``cluster_state``, ``stopped``,
        ``partitions_without_leader``)."""
        stopped = None
        if self.state == "stopped":
            stopped = {"timestamp": self.stop_timestamp, "offset": self.stop_offset,
                       "broker": self.stop_broker, "how": self.stop_how,
                       "text": self.stop_text}
        return {"cluster_state": self.state, "stopped": stopped,
                "partitions_without_leader": len(self.leaderless)}

    def problems(self, path: str, *, warnings: bool = True) -> list[Problem]:
        """The findings (``path``: the metadata log's directory, where they were read);
        ``warnings=False``: the stop (info) and partitions without a leader (errors) only,
        not fenced brokers and under-replicated partitions (``kdump metadata``, whose
        objects show those states: its exit code is about the image, and a cluster that
        runs without a partition's leader)."""
        out: list[Problem] = []
        if self.state == "stopped":
            text = self.stop_text or ""
            n = len(self.leaderless)
            if n:
                text += (f": {_plural(n, 'partition')} without a leader follow"
                         f"{'s' if n == 1 else ''} from the stop, not a fault")
            out.append(Problem(path, None, "cluster-stopped", text, severity=INFO,
                               extra={"broker": self.stop_broker,
                                      "offset": self.stop_offset,
                                      "timestamp": self.stop_timestamp,
                                      "partitions_without_leader": n}))
            return out
        if self.state != "running":
            return out
        up = sorted(b["id"] for b in self.brokers
                    if not b["fenced"] and not b["in_controlled_shutdown"])
        for b in sorted(self.brokers, key=lambda b: b["id"]):
            if not warnings or not (b["fenced"] or b["in_controlled_shutdown"]):
                continue
            how = "fenced" if b["fenced"] else "in controlled shutdown"
            m = (self.moments.fenced if b["fenced"] else self.moments.shutdown).get(b["id"])
            when = ""
            if m is not None:
                when = (f" at offset {m[0]}" if m[0] is not None else " in the snapshot") + \
                    (f" ({iso_ms(m[1])})" if m[1] is not None and m[1] >= 0 else "")
            out.append(Problem(path, None, "broker-fenced",
                               f"broker {b['id']} {how}{when} while {_ids(up)} "
                               f"{'is' if len(up) == 1 else 'are'} unfenced",
                               severity=WARNING, extra={"broker": b["id"]}))
        for p in self.leaderless:
            out.append(Problem(path, None, "partition-offline",
                               f"{p['topic']}-{p['partition']} has no leader (leader -1; "
                               f"replicas {_list(p['replicas'])}, ISR {_list(p['isr'])}) while "
                               f"{_ids(up)} {'is' if len(up) == 1 else 'are'} unfenced",
                               severity=ERROR,
                               extra={"topic": p["topic"], "partition": p["partition"]}))
        for p in self.under_replicated if warnings else ():
            out.append(Problem(path, None, "partition-under-replicated",
                               f"{p['topic']}-{p['partition']}: ISR {_list(p['isr'])} of "
                               f"replicas {_list(p['replicas'])} (leader {p['leader']})",
                               severity=WARNING,
                               extra={"topic": p["topic"], "partition": p["partition"]}))
        return out


def _list(ids: list[int]) -> str:
    return "[" + ",".join(map(str, ids)) + "]"


def cluster_health(image: MetadataImage, moments: BrokerMoments | None = None, *,
                   snapshot_offset: int | None = None,
                   snapshot_timestamp: int | None = None) -> Health:
    """The health of ``image``; ``moments`` from the replay that built it;
    ``snapshot_offset``/``snapshot_timestamp``: the last offset and time of the snapshot it
    started from (where a state loaded from the snapshot is dated)."""
    moments = moments if moments is not None else BrokerMoments()
    brokers = [o for k, o in sorted(image.objects.items(), key=lambda kv: image.sort_key(kv[0]))
               if k[0] == "broker"]
    partitions = [o for k, o in sorted(image.objects.items(), key=lambda kv: image.sort_key(kv[0]))
                  if k[0] == "partition"]
    if not brokers:
        return Health(None, brokers, partitions, moments=moments)
    down = [b for b in brokers if b["fenced"] or b["in_controlled_shutdown"]]
    if len(down) < len(brokers):
        return Health("running", brokers, partitions, moments=moments)
    # stopped: dated by the last broker to go down, by its fence when it was fenced
    best: tuple[int, int, str, Moment] | None = None
    for b in down:
        how = "fenced" if b["fenced"] else "in controlled shutdown"
        m = (moments.fenced if b["fenced"] else moments.shutdown).get(b["id"], (None, None))
        rank = -1 if m[0] is None else m[0]
        if best is None or rank > best[0] or (rank == best[0] and b["id"] > best[1]):
            best = (rank, b["id"], how, m)
    assert best is not None
    _rank, bid, how, (offset, ts) = best
    if offset is None and ts is None:
        ts = snapshot_timestamp
    return Health("stopped", brokers, partitions, stop_broker=bid, stop_how=how,
                  stop_offset=offset, stop_timestamp=ts,
                  stop_in_snapshot=snapshot_offset if offset is None else None,
                  moments=moments)
