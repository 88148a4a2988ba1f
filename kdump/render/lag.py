"""Renderers for ``lag``: kafka-consumer-groups-like text columns and rich tables.  JSON
Lines is :class:`~kdump.render.jsonl.JsonRenderer`."""

from __future__ import annotations

from typing import TextIO

from ..findings import Problem
from ..ops.lag import GroupLag, LagRow, OffsetsSource
from ..ops.offsets_summary import SHARE_STATE_TOPIC
from ..textsafe import InertLines
from .common import dash, escape_controls, plain_cells, plural, problem_line

_LAG_COLUMNS = ("GROUP", "TYPE", "TOPIC", "PARTITION", "COMMITTED-OFFSET", "LOG-END-OFFSET",
                "HIGH-WATERMARK", "LAG")


class LagTextRenderer:
    """kafka-consumer-groups --describe-like columns (largest lag first), a line per
    group after them; where each figure comes from and the findings on stderr.  TYPE is
    the group's type ('-': only offset commits name it); a share group's
    COMMITTED-OFFSET is its share-partition start offset."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = InertLines(out)
        self.err = InertLines(err)
        self.rows: list[tuple[str, ...]] = []
        self.groups: list[GroupLag] = []
        self.empty_sources = 0
        self.empty_share_sources = 0

    def emit(self, item: object) -> None:
        if isinstance(item, LagRow):
            self.rows.append((item.group, item.group_type or "-", item.topic, str(item.partition),
                              dash(item.committed_offset), dash(item.log_end_offset),
                              dash(item.high_watermark), dash(item.lag)))
        elif isinstance(item, GroupLag):
            self.groups.append(item)
        elif isinstance(item, OffsetsSource):
            c = item.chosen
            if item.records == 0 and c.replicas <= 1:
                # a broker has 50 __consumer_offsets partitions, most of them empty: count
                # them, one line at the end, rather than a line each
                if c.replica.topic == SHARE_STATE_TOPIC:
                    self.empty_share_sources += 1
                else:
                    self.empty_sources += 1
                return
            what = ("share-group state" if c.replica.topic == SHARE_STATE_TOPIC
                    else "committed offsets")
            who = f"broker {c.replica.broker_id} " if c.replica.broker_id is not None else ""
            extra = (f", chosen of {plural(c.replicas, 'replica')} for the highest log end offset"
                     if c.replicas > 1 else "")
            self.err.write(escape_controls(f"{what}: {who}{c.replica.path} (log end offset "
                                 f"{dash(c.log_end_offset)}{extra}): "
                                 f"{plural(item.records, 'record')} applied, "
                                 f"{item.aborted_records} aborted") + "\n")
        elif isinstance(item, Problem):
            self.err.write(escape_controls(problem_line(item)) + "\n")

    def close(self) -> None:
        rows = [_LAG_COLUMNS, *self.rows]
        widths = [max(len(r[k]) for r in rows) for k in range(len(_LAG_COLUMNS))]
        for r in rows:
            line = " ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            self.out.write(escape_controls(line) + "\n")
        if self.groups:
            self.out.write("\n")
        for g in self.groups:
            gtype = f" ({g.group_type})" if g.group_type else ""
            self.out.write(escape_controls(
                f"group {g.group}{gtype}: {plural(g.partitions, 'partition')}, total lag "
                f"{g.total_lag}, max lag {dash(g.max_lag)}"
                + (f", {g.partitions_without_log} without a log in the inputs"
                   if g.partitions_without_log else "")) + "\n")
        if self.empty_sources:
            empty = plural(self.empty_sources, "empty __consumer_offsets partition")
            self.err.write(f"committed offsets: {empty} (no commits to replay)\n")
        if self.empty_share_sources:
            empty = plural(self.empty_share_sources, "empty __share_group_state partition")
            self.err.write(f"share-group state: {empty} (no state to replay)\n")
        self.out.flush()
        self.err.flush()


class LagTableRenderer:
    def __init__(self, out: TextIO, err: TextIO, *, width: int | None = None) -> None:
        from .table import make_console

        self.console = make_console(out, width)
        self.text = LagTextRenderer(out, err)

    def emit(self, item: object) -> None:
        self.text.emit(item)

    def close(self) -> None:
        from rich.table import Table

        t = Table(title="consumer lag (largest first)", title_justify="left")
        for name in ("group", "type", "topic", "partition", "committed", "log end",
                     "high watermark", "lag"):
            t.add_column(name, justify="left" if name in ("group", "type", "topic")
                         else "right", overflow="fold")
        for row in self.text.rows:
            t.add_row(*plain_cells(*row))
        self.console.print(t)
        if self.text.groups:
            g = Table(title="per group", title_justify="left")
            for name in ("group", "type", "partitions", "total lag", "max lag", "no log"):
                g.add_column(name, justify="left" if name in ("group", "type") else "right")
            for x in self.text.groups:
                g.add_row(*plain_cells(x.group, x.group_type or "-", str(x.partitions),
                                  str(x.total_lag), dash(x.max_lag),
                                  str(x.partitions_without_log)))
            self.console.print(g)
        self.text.err.flush()
