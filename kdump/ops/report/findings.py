"""``kdump report``'s own findings beside the checks': replicas that diverge or lag
(from compare-replicas' ``partition_comparison``) and hanging transactions (from the
``transaction`` objects), so that the page's glance box, its cards and its findings
list count one list (the cluster's health is :mod:`kdump.metadata.health`'s, the
schema registry's :mod:`kdump.ops.report.schemas`')."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from ...findings import ERROR, INFO, WARNING, Problem

__all__ = ["hanging_finding", "replica_finding", "with_hanging_findings"]


def hanging_finding(t: dict[str, Any]) -> Problem:
    """A hanging ``transaction`` object as a finding (the page counts it with the others)."""
    return Problem(os.path.join(t["log_dir"], f"{t['topic']}-{t['partition']}"), None,
                   "hanging-transaction",
                   f"{t['topic']}-{t['partition']}: producer {t['producer_id']} (epoch "
                   f"{t['producer_epoch']}) opened a transaction at offset {t['first_offset']}, "
                   f"{_minutes(t['age_ms'])} before the partition's last batch, and no marker "
                   "closes it", severity=WARNING,
                   extra={"topic": t["topic"], "partition": t["partition"]})


def _minutes(ms: int | None) -> str:
    if ms is None:
        return "an unknown time"
    m = ms // 60_000
    return f"{m} minute{'' if m == 1 else 's'}" if m < 120 else f"{m // 60} hours"


def with_hanging_findings(transactions: Iterable[dict[str, Any]]) -> Iterator[Any]:
    """The ``transaction`` objects, each hanging one followed by its finding."""
    for t in transactions:
        yield t
        if t["state"] == "hanging":
            yield hanging_finding(t)


def replica_finding(c: Any) -> list[Problem]:
    """A ``partition_comparison`` whose replicas diverge (error) or lag as a finding (none
    when they agree).  A lagging replica is a warning only with evidence that it misses
    committed records: its log ends below a high watermark one of the replicas'
    replication-offset-checkpoint holds.  Otherwise it is information: a follower is
    in sync while it trails the leader's log end by records not yet committed
    (Partition.maybeExpandIsr / isFollowerInSync: within replica.lag.time.max.ms of the
    leader's end, Kafka 3.9-4.3), and brokers stopped one after another end where each
    stopped; ``__cluster_metadata`` keeps its high watermark in memory only (the KRaft
    quorum's voters, stopped one by one, end a few records apart: seen on a real
    3-controller log dir)."""
    if c.status not in ("diverged", "lagging"):
        return []
    def who(s: Any) -> str:
        bid = s.replica.logdir.broker_id
        return f"broker {bid}" if bid is not None else s.replica.log_dir

    ends = ", ".join(f"{who(s)} at {s.leo if s.leo is not None else '–'}" for s in c.states)
    severity = ERROR
    if c.status == "diverged":
        detail = (f"{c.label}: the replicas hold different batches from offset "
                  f"{c.divergence_offset} (replicas end: {ends})")
    else:
        hws = [s.replica.high_watermark for s in c.states
               if s.replica.high_watermark is not None]
        committed = max(hws) if hws else None
        behind = [s for s in c.states
                  if committed is not None and s.leo is not None and s.leo < committed]
        detail = f"{c.label}: a replica ends before another (log end offsets: {ends})"
        if behind:
            severity = WARNING
            detail += (f"; {', '.join(who(s) for s in behind)} below the high watermark "
                       f"{committed}: committed records it does not hold")
        else:
            severity = INFO
            detail += ("; no replica ends below a high watermark on disk"
                       + (f" ({committed})" if committed is not None else "")
                       + ": records not committed yet, normal for brokers stopped or "
                       "copied one after another")
    return [Problem(c.states[0].replica.path if c.states else c.topic, None,
                    "replica-diverged" if c.status == "diverged" else "replica-lagging", detail,
                    severity=severity,
                    extra={"topic": c.topic, "partition": c.partition})]
