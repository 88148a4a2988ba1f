"""Renderers of ``dump --summary`` (the offsets digest: committed offsets, groups,
share-partitions): text and rich tables."""

from __future__ import annotations

from typing import Any, TextIO

from .common import iso_ms, plural
from .rows import ObjectRenderer


def group_epoch(d: dict[str, Any]) -> Any:
    """A classic group's generation, the others' group epoch ('-' when unknown)."""
    v = d["generation"] if d["group_type"] == "classic" else d.get("epoch")
    return "-" if v is None else v


def group_subscription(d: dict[str, Any]) -> str:
    """What a group reads, in one word: topic names, ``regex:<expression>`` for a
    consumer group's regular expressions (its members' and those resolved),
    ``topology:<epoch>:<source topics>`` for a
    streams group; '-' when none is recorded."""
    words: list[str] = list(d.get("subscribed_topic_names") or [])
    regexes = set(d.get("subscribed_topic_regexes") or [])
    regexes.update(r["regular_expression"] for r in d.get("resolved_regular_expressions") or [])
    words += [f"regex:{r}" for r in sorted(regexes)]
    topo = d.get("topology")
    if topo:
        sources = sorted({t for st in topo["subtopologies"]
                          for t in st["source_topics"] + st["source_topic_regex"]})
        words.append(f"topology:{topo['epoch']}:{','.join(sources)}")
    return ",".join(words) or "-"


class DigestTextRenderer(ObjectRenderer):
    """Committed offsets as ``group topic partition offset commit_timestamp metadata``
    (the time in ISO-8601 UTC, one word; JSON keeps the milliseconds)
    lines (awk-friendly, like kafka-consumer-groups' columns), then one line per group
    (EPOCH: a classic group's generation, the group epoch of the others; SUBSCRIPTION:
    see :func:`group_subscription`), then one line per share-partition (TOPIC: the
    topic id when no input names it)."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        super().__init__(out, err)
        self.offsets_header = False
        self.groups_header = False
        self.share_header = False

    def row(self, d: dict[str, Any]) -> None:
        w = self.out.write
        if d["type"] == "committed_offset":
            if not self.offsets_header:
                w("GROUP TOPIC PARTITION OFFSET COMMIT_TIMESTAMP LEADER_EPOCH METADATA\n")
                self.offsets_header = True
            epoch = "-" if d["leader_epoch"] is None else d["leader_epoch"]
            w(f"{d['group']} {d['topic']} {d['partition']} {d['offset']} "
              f"{iso_ms(d['commit_timestamp'])} {epoch} {d['metadata']}\n".rstrip(" \n") + "\n")
        elif d["type"] == "group":
            if not self.groups_header:
                w("GROUP TYPE PROTOCOL_TYPE EPOCH PROTOCOL MEMBERS LEADER SUBSCRIPTION\n")
                self.groups_header = True
            w(f"{d['group']} {d['group_type']} {d['protocol_type'] or '-'} {group_epoch(d)} "
              f"{d['protocol'] or '-'} {d['members']} {d['leader'] or '-'} "
              f"{group_subscription(d)}\n")
        elif d["type"] == "share_partition":
            if not self.share_header:
                w("SHARE_GROUP TOPIC PARTITION START_OFFSET STATE_EPOCH LEADER_EPOCH "
                  "DELIVERY_COMPLETE\n")
                self.share_header = True
            dcc = "-" if d["delivery_complete_count"] is None else d["delivery_complete_count"]
            w(f"{d['group']} {d['topic'] or d['topic_id']} {d['partition']} "
              f"{d['start_offset']} {d['state_epoch']} {d['leader_epoch']} {dcc}\n")
        elif d["type"] == "offsets_summary":
            self.err.write(
                f"offsets summary: {plural(d['records'], 'record')} in "
                f"{plural(d['partitions'], 'partition')}: "
                f"{plural(d['committed_offsets'], 'committed offset')}, "
                f"{plural(d['groups'], 'group')}"
                + (f", {plural(d['share_partitions'], 'share-partition')}"
                   if d["share_partitions"] else "")
                + (f", {d['aborted_records']} aborted" if d["aborted_records"] else "")
                + (f", {d['pending_records']} in open transactions" if d["pending_records"] else "")
                + (f"; other replicas not replayed (a longer one was): "
                   f"{', '.join(d['skipped_replicas'])}" if d.get("skipped_replicas") else "")
                + "\n")


class DigestTableRenderer(ObjectRenderer):
    """Committed offsets, groups and share-partitions as rich tables."""

    def __init__(self, out: TextIO, err: TextIO, *, width: int | None = None) -> None:
        from .table import make_console

        super().__init__(out, err)
        self.console = make_console(out, width)
        self.offsets: list[dict[str, Any]] = []
        self.groups: list[dict[str, Any]] = []
        self.shares: list[dict[str, Any]] = []

    def row(self, d: dict[str, Any]) -> None:
        if d["type"] == "committed_offset":
            self.offsets.append(d)
        elif d["type"] == "group":
            self.groups.append(d)
        elif d["type"] == "share_partition":
            self.shares.append(d)

    def close(self) -> None:
        from rich.table import Table

        t = Table(title="committed offsets", title_justify="left")
        for col in ("group", "topic", "partition", "offset", "committed at (UTC)", "metadata"):
            t.add_column(col, justify="right" if col in ("partition", "offset") else "left",
                         overflow="fold")
        for d in self.offsets:
            t.add_row(d["group"], d["topic"], str(d["partition"]), str(d["offset"]),
                      iso_ms(d["commit_timestamp"]), d["metadata"])
        self.console.print(t)
        if self.groups:
            g = Table(title="groups", title_justify="left")
            for col in ("group", "type", "protocol type", "epoch", "protocol", "members",
                        "subscription"):
                g.add_column(col, overflow="fold")
            for d in self.groups:
                g.add_row(d["group"], d["group_type"], d["protocol_type"] or "",
                          str(group_epoch(d)), d["protocol"] or "", str(d["members"]),
                          group_subscription(d))
            self.console.print(g)
        if self.shares:
            s = Table(title="share-partitions (__share_group_state)", title_justify="left")
            for col in ("share group", "topic", "partition", "start offset", "state epoch",
                        "leader epoch", "delivery complete"):
                s.add_column(col, justify="left" if col in ("share group", "topic")
                             else "right", overflow="fold")
            for d in self.shares:
                s.add_row(d["group"], d["topic"] or d["topic_id"], str(d["partition"]),
                          str(d["start_offset"]), str(d["state_epoch"]), str(d["leader_epoch"]),
                          "-" if d["delivery_complete_count"] is None
                          else str(d["delivery_complete_count"]))
            self.console.print(s)
