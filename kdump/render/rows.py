"""Renderers for size-report rows and find results."""

from __future__ import annotations

from typing import Any, TextIO

from ..findings import Problem
from ..textsafe import InertLines
from .common import iso_ms, plural, problem_line

#: text columns of size-report: (header, JSON field)
SIZE_COLUMNS = [
    ("bytes", "bytes"),
    ("disk_bytes", "disk_bytes"),
    ("segments", "segments"),
    ("batches", "batches"),
    ("records", "records"),
    ("key_bytes", "key_bytes"),
    ("value_bytes", "value_bytes"),
    ("header_bytes", "header_bytes"),
    ("overhead_bytes", "overhead_bytes"),
    ("ratio", "compression_ratio"),
    ("first_offset", "first_offset"),
    ("last_offset", "last_offset"),
    ("min_timestamp", "min_timestamp"),
    ("max_timestamp", "max_timestamp"),
]

#: columns added when some row has records it cannot read or offsets lost (issue 39):
#: records the headers claim, records in batches whose CRC is valid, offsets the
#: witnesses prove written that no batch holds
DAMAGE_COLUMNS = [
    ("records_claimed", "records_claimed"),
    ("records_readable", "records_readable"),
    ("offsets_lost", "offsets_lost"),
]


def size_columns(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The columns of size-report's text: :data:`DAMAGE_COLUMNS` too when a row needs
    them (a clean report keeps its columns)."""
    damaged = any(d.get("offsets_lost") or d.get("records_claimed", 0)
                  != d.get("records_readable", 0) for d in rows)
    return SIZE_COLUMNS + DAMAGE_COLUMNS if damaged else SIZE_COLUMNS


def _name(d: dict[str, Any]) -> str:
    t = d["type"]
    if t == "total":
        return "TOTAL"
    if t == "topic":
        return "(unknown)" if d["topic"] is None else str(d["topic"])
    # segments found outside a topic-N directory: read, their partition unknown
    part = ("(unknown-partition)" if d["topic"] is None
            else f"{d['topic']}-{d['partition']}")
    if t == "partition":
        return part
    if d.get("segment") is None:  # --by segment: the partition's files outside segments
        return f"{part}/(other)"
    return f"{part}/{d['segment']}"


def _replica_names(rows: list[dict[str, Any]]) -> bool:
    """Several log dirs (brokers) in one report: names say which replica a row is."""
    return len({d["log_dir"] for d in rows if d.get("log_dir") is not None}) > 1


def _replica_name(d: dict[str, Any], several: bool) -> str:
    name = _name(d)
    if d["type"] == "total" and d.get("replicas", 0) > d.get("partitions", 0):
        return f"TOTAL({d['counts']})"  # several replicas of a partition: which were counted
    if d["type"] == "topic" and d.get("replication_factor", 0) > 1:
        return f"{name}(rf={d['replication_factor']})"
    if several and d.get("log_dir") is not None:
        who = d["broker_id"] if d.get("broker_id") is not None else d["log_dir"]
        name += f"@{who}"
    return name


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


class ObjectRenderer:
    """Base of the renderers of objects with ``to_json()`` (rows, answers): problems go
    to stderr one line each; subclasses render the objects in :meth:`row`."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = InertLines(out)
        self.err = InertLines(err)

    def emit(self, item: object) -> None:
        if isinstance(item, Problem):
            self.err.write(problem_line(item) + "\n")
            return
        if isinstance(item, dict):  # objects already in their JSON shape (metadata)
            self.row(item)
            return
        to_json = getattr(item, "to_json", None)
        if to_json is not None:
            self.row(to_json())

    def row(self, d: dict[str, Any]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.out.flush()


class SizeTextRenderer(ObjectRenderer):
    """A header line, then one whitespace-separated line per row (awk-friendly)."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        super().__init__(out, err)
        self.header = False
        self.rows: list[dict[str, Any]] = []

    def row(self, d: dict[str, Any]) -> None:
        # held until the total: with several log dirs, names carry the replica
        self.rows.append(d)
        if d["type"] == "total":
            self._write()
            _invalid_note(self.err, d)

    def _write(self) -> None:
        several = _replica_names(self.rows)
        columns = size_columns(self.rows)
        for d in self.rows:
            if not self.header:
                self.out.write(" ".join(["name"] + [h for h, _ in columns]) + "\n")
                self.header = True
            self.out.write(" ".join([_replica_name(d, several)]
                                    + [_cell(d.get(k)) for _, k in columns]) + "\n")
        self.rows = []

    def close(self) -> None:
        self._write()
        super().close()


def human(n: int | None) -> str:
    if n is None:
        return "-"
    f = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(f) < 1024 or unit == "TiB":
            return f"{f:.0f} {unit}" if unit == "B" else f"{f:.1f} {unit}"
        f /= 1024
    return str(n)


class SizeTableRenderer(ObjectRenderer):
    """A rich table with a bar per row so the big ones stand out."""

    def __init__(self, out: TextIO, err: TextIO, *, width: int | None = None) -> None:
        from .table import make_console

        super().__init__(out, err)
        self.console = make_console(out, width)
        self.rows: list[dict[str, Any]] = []
        self.total: dict[str, Any] | None = None

    def row(self, d: dict[str, Any]) -> None:
        if d["type"] == "total":
            self.total = d
        else:
            self.rows.append(d)

    def _table(self, bar_width: int) -> Any:
        from rich.table import Table
        from rich.text import Text

        level = self.rows[0]["type"] if self.rows else "partition"
        t = Table(title=f"size by {level}", title_justify="left")
        t.add_column(level, no_wrap=True)
        t.add_column("size", justify="right", no_wrap=True)
        t.add_column("on disk", justify="right", no_wrap=True)
        if bar_width:
            t.add_column("", width=bar_width, no_wrap=True)
        t.add_column("batches", justify="right", no_wrap=True)
        t.add_column("records", justify="right", no_wrap=True)
        t.add_column("payload", justify="right", no_wrap=True)
        t.add_column("overhead", justify="right", no_wrap=True)
        t.add_column("ratio", justify="right", no_wrap=True)
        t.add_column("offsets", justify="right", no_wrap=True)
        biggest = max((r["bytes"] for r in self.rows), default=0) or 1
        several = _replica_names(self.rows)
        for d in self.rows:
            bar = "█" * max(1 if d["bytes"] else 0, round(bar_width * d["bytes"] / biggest))
            offsets = "-" if d["first_offset"] is None else f"{d['first_offset']}–{d['last_offset']}"
            t.add_row(_replica_name(d, several), human(d["bytes"]), human(d["disk_bytes"]),
                      *([Text(bar, style="cyan")] if bar_width else []), f"{d['batches']:,}",
                      f"{d['records']:,}", human(d["payload_bytes"]), human(d["overhead_bytes"]),
                      _cell(d["compression_ratio"]), offsets)
        if self.total is not None:
            d = self.total
            t.add_section()
            label = "total"
            if d.get("replicas", 0) > d.get("partitions", 0):
                label += (" (replicas)" if d.get("counts") == "replicas"
                          else " (unique partitions)")
            t.add_row(Text(label, style="bold"), human(d["bytes"]), human(d["disk_bytes"]),
                      *([""] if bar_width else []), f"{d['batches']:,}",
                      f"{d['records']:,}", human(d["payload_bytes"]), human(d["overhead_bytes"]),
                      _cell(d["compression_ratio"]), "")
        return t

    def close(self) -> None:
        from rich.table import Table

        from .table import natural_width

        # the bar gets what room the terminal leaves (none if need be): every number fits
        for bar_width in (20, 12, 8, 5, 3, 0):
            t = self._table(bar_width)
            if natural_width(self.console, t) <= self.console.width:
                break
        self.console.print(t)
        if self.total and self.total["codecs"]:
            c = Table(title="codecs", title_justify="left")
            for col in ("codec", "batches", "stored", "uncompressed", "ratio"):
                c.add_column(col, justify="left" if col == "codec" else "right")
            for name, s in self.total["codecs"].items():
                c.add_row(name, f"{s['batches']:,}", human(s["stored_bytes"]),
                          human(s["uncompressed_bytes"]), _cell(s["ratio"]))
            self.console.print(c)
        if self.total:
            _invalid_note(self.err, self.total)


def _invalid_note(err: InertLines, total: dict[str, Any]) -> None:
    """Records of batches whose CRC fails are not in ``records``: said once, on stderr
    (the text's columns stay as awk reads them)."""
    n = total.get("invalid_records") or 0
    if n:
        err.write(f"size-report: {n:,} record{'s' if n != 1 else ''} in batches whose CRC "
                  "fails are not counted in records (invalid_records; verify-crc names the "
                  "batches)\n")


class FindTextRenderer:
    """``name: value`` lines, then the DumpLogSegments lines of the batch and record."""

    def __init__(self, out: TextIO, err: TextIO, *, print_data_log: bool = False,
                 decoder: Any = None) -> None:
        self.out = InertLines(out)
        self.err = InertLines(err)
        self.print_data = print_data_log
        self.decoder = decoder

    def emit(self, item: object) -> None:
        if isinstance(item, Problem):
            self.err.write(problem_line(item) + "\n")
            return
        from ..ops.find import FindResult

        if not isinstance(item, FindResult):
            return
        d = item.to_json()
        w = self.out.write
        when = f" ({iso_ms(item.target)})" if item.query == "timestamp" else ""
        if item.found:
            w(f"found: {item.query} {item.target}{when}\n")
        else:
            w(f"not found: {item.query} {item.target}{when}: {item.reason}\n")
            if item.nearest_below is not None:
                w(f"nearest below: {item.nearest_below}\n")
            if item.nearest_above is not None:
                w(f"nearest above: {item.nearest_above}\n")
        for k in ("file", "position", "offset", "timestamp", "base_offset", "last_offset",
                  "method"):
            if d.get(k) is not None and d.get(k) != "":
                # the time for people beside the milliseconds (which stay the 2nd word)
                w(f"{k}: {d[k]} ({iso_ms(d[k])})\n" if k == "timestamp" else f"{k}: {d[k]}\n")
        if item.index_entry:
            e = item.index_entry
            w(f"index entry: slot {e['slot']} offset {e['offset']} position {e['position']}\n")
        w(f"bytes scanned: {item.bytes_scanned}\n")
        w(f"bytes read: {item.bytes_read}\n")
        for n in item.notes:
            w(f"note: {n}\n")
        if item.batch is not None:
            from ..ops.events import BatchEvent, RecordEvent
            from .text import batch_line, record_lines

            w(batch_line(item.batch) + "\n")
            if item.record is not None:
                from ..decoders.redact import shown

                rec, decoded = shown(item.record, self.decoder, item.batch.path)
                ev = RecordEvent(rec)
                ev.decoded = decoded
                if ev.decoded is not None and ev.decoded.note:
                    # stdout keeps DumpLogSegments' record line: the layout on stderr
                    self.err.write(f"{item.file}: note: record layout: {ev.decoded.note}\n")
                if item.batch.is_control:
                    from ..records.control import parse_control

                    ev.control = parse_control(item.record)
                for line in record_lines(BatchEvent(item.batch, [ev]), False, self.print_data):
                    w(line + "\n")

    def close(self) -> None:
        self.out.flush()


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


class ExportTextRenderer(ObjectRenderer):
    """kdump spark export's answer: problems on stderr, one line on stdout."""

    def row(self, d: dict[str, Any]) -> None:
        if not d["segments"]:
            self.out.write(f"no segments found: nothing written to {d['output']}\n")
            return
        what = "record" if d["level"] == "record" else "batch"
        self.out.write(
            f"exported {plural(d['rows'], what)} from {plural(d['segments'], 'segment')} "
            f"({plural(d['tasks'], 'task')}) to "
            f"{d['output']}: Parquet, partitioned by topic and partition\n")


class LocalExportTextRenderer(ObjectRenderer):
    """kdump export's answer: problems on stderr, one line on stdout at the end (the
    files written are listed in the manifest, and with --json)."""

    def row(self, d: dict[str, Any]) -> None:
        if d.get("type") != "export_end":
            return
        what = "record" if d["level"] == "record" else "batch"
        found = f"; {plural(d['findings'], 'finding')} in _findings" if d["findings"] \
            else ""
        self.out.write(
            f"exported {plural(d['rows'], what)} from {plural(d['segments'], 'segment')} to "
            f"{plural(d['files'], d['format'] + ' file')} in {d['output']}, partitioned by "
            f"topic and partition{found}\n")


class CoordinatorTextRenderer(ObjectRenderer):
    """coordinator-partition: ``id<TAB>partition<TAB>offsets dir<TAB>transactions dir``."""

    def row(self, d: dict[str, Any]) -> None:
        self.out.write_row((d["id"], d["partition"], d["consumer_offsets_dir"],
                            d["transaction_state_dir"]))


class CoordinatorTableRenderer(ObjectRenderer):
    """coordinator-partition as a table (printed at close)."""

    def __init__(self, out: TextIO, err: TextIO, *, width: int | None = None) -> None:
        from .table import make_console

        super().__init__(out, err)
        self.console = make_console(out, width)
        self.rows: list[dict[str, Any]] = []

    def row(self, d: dict[str, Any]) -> None:
        self.rows.append(d)

    def close(self) -> None:
        from rich.table import Table

        if self.rows:
            partitions = self.rows[0]["partitions"]
            t = Table(title=f"coordinator partitions (of {partitions})", title_justify="left")
            for col in ("id", "hashCode", "partition", "directories"):
                t.add_column(col, overflow="fold")
            for r in self.rows:
                t.add_row(str(r["id"]), str(r["hash_code"]), str(r["partition"]),
                          f"{r['consumer_offsets_dir']}  {r['transaction_state_dir']}")
            self.console.print(t)
        super().close()
