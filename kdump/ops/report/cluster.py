"""The report's cluster section and who holds the data: each cluster's KRaft metadata
image, apart (:func:`metadata_section`: one ``cluster_image`` object, then the image, its
timeline and problems, per cluster.id among the inputs), and the ``log_dir`` objects
naming each log dir's cluster and broker (:func:`log_dir_objects`), by which the page
keeps every row apart."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from typing import Any

from ... import fs as kfs
from ...errors import KdumpError
from ...files.logdir import KafkaFile
from ...findings import INFO, Problem
from ...model import shape

#: the metadata history kept (the latest entries; the rest counted)
HISTORY_LIMIT = 5000
METADATA_TOPIC = "__cluster_metadata"


#: partition fields whose change belongs on the cluster's timeline
_PARTITION_EVENTS = {"leader", "isr", "elr", "last_known_elr", "leader_recovery_state"}


def _timeline_worthy(entry: dict[str, Any]) -> bool:
    obj = entry["object"]
    if obj == "partition":
        return entry["action"] == "changed" and any(
            c.get("field") in _PARTITION_EVENTS for c in entry["changes"])
    return obj in ("topic", "broker", "controller", "feature")


def metadata_section(files: list[KafkaFile], max_batch_bytes: int) -> Iterator[Any]:
    """For each cluster among the inputs (cluster.id), the image at the end of the
    fullest replica of its ``__cluster_metadata`` log (a ``cluster_image`` object first),
    its timeline (leader and ISR changes, fencing, topics created and deleted), its
    problems."""
    from ...metadata import Replay, find_sources
    from ...metadata.output import history_object, image_objects, image_summary
    from ..replica_groups import log_dir_identity

    dirs = sorted({kfs.dirname(f.path) for f in files
                   if f.topic == METADATA_TOPIC and f.partition_state is None})
    #: each cluster's fullest replica: (replay, its history, changes, directory)
    best: dict[str | None, tuple[Any, deque[dict[str, Any]], int, str]] = {}
    # one cluster's metadata log: another cluster's is never a replica of it
    # (kdump.ops.replica_groups); the others are named in a note
    cluster_of = {d: log_dir_identity(kfs.dirname(d)).cluster_id for d in dirs}
    for d in dirs:
        try:
            sources = find_sources(d)
        except KdumpError as e:
            yield Problem(d, None, "unreadable-file", e.message)
            continue
        kept: deque[dict[str, Any]] = deque(maxlen=HISTORY_LIMIT)
        total = [0]

        def on_event(ev: Any, kept: deque[dict[str, Any]] = kept, total: list[int] = total) -> None:
            for c in ev.changes:
                if c.before is None and c.after is None:
                    continue
                entry = history_object(ev, c.before, c.after)
                if _timeline_worthy(entry):
                    total[0] += 1
                    kept.append(entry)

        r = Replay(sources, earliest=True, on_event=on_event,
                   max_batch_bytes=max_batch_bytes).run()
        c = cluster_of[d]
        if c not in best or (r.offset or -1) > (best[c][0].offset or -1):
            best[c] = (r, kept, total[0], d)
    if not best:
        return
    # each cluster's image, apart: the clusters named first, in order, then a metadata
    # log of a log dir naming none
    order = sorted(best, key=lambda c: (c is None, c or ""))
    if len(order) > 1:
        yield Problem(best[order[0]][3], None, "several-clusters",
                      f"the inputs hold the metadata logs of {len(order)} clusters: "
                      + "; ".join(f"cluster {c or '(no cluster.id)'} ({best[c][3]})"
                                  for c in order)
                      + ". Never replicas of each other: each is shown apart, and every "
                      "section keeps them apart", severity=INFO)
    for c in order:
        r, kept, changes, d = best[c]
        yield shape("cluster_image", {"cluster_id": c, "metadata_dir": d})
        yield from image_objects(r.image)
        yield image_summary(r)
        yield shape("timeline", {"changes": changes, "shown": len(kept),
                                 "entries": list(kept)})
        yield from r.problems
        yield from r.health().problems(r.sources.directory or r.sources.path)  # stopped


def log_dir_objects(files: list[KafkaFile]) -> Iterator[dict[str, Any]]:
    """A ``log_dir`` object for each log dir the partition rows will name (as
    size-report names it), with its cluster and broker: every table keeps them apart."""
    from ..compare_replicas import broker_id_of, logdir_of
    from ..replica_groups import log_dir_identity

    seen: list[str] = []
    for f in files:
        if f.topic is None:
            continue
        ld = logdir_of(os.path.dirname(f.path) or ".")
        if ld in seen:
            continue
        seen.append(ld)
        yield shape("log_dir", {"log_dir": ld, "cluster_id": log_dir_identity(ld).cluster_id,
                                "broker_id": broker_id_of(ld)})


__all__ = ["HISTORY_LIMIT", "METADATA_TOPIC", "log_dir_objects", "metadata_section"]
