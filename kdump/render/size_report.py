"""Renderers for ``size-report``: awk-friendly text columns and a rich table with bars."""

from __future__ import annotations

from typing import Any, TextIO

from ..textsafe import InertLines
from .rows import ObjectRenderer, human

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
                  "fails are not counted in records (invalid_records; the crc-mismatch findings "
                  "name the batches)\n")
