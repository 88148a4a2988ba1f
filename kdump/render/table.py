"""``--format table``: rich tables for people at a terminal (readable at 100 columns).

rich is imported here only, so commands that never render a table never load it.
Tables are flushed every few hundred rows so memory stays bounded on big logs.
"""

from __future__ import annotations

import os
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..findings import Problem
from ..ops.events import (
    BatchEvent,
    CheckpointEntryEvent,
    FileStart,
    IndexEntryEvent,
    IndexStatus,
    LogEnd,
    Note,
    PropertiesEvent,
    SnapshotEntryEvent,
    TimeIndexEntryEvent,
    TxnIndexEntryEvent,
)
from ..textsafe import inert, inert_lines, is_inert
from .common import problem_line

FLUSH_ROWS = 500


class SafeConsole(Console):
    """A console on which nothing from the data can drive the terminal.

    Markup is off (a value ``[bold red]x[/]`` or ``[link=file:///etc/passwd]`` is printed as
    those characters), and every string and :class:`Text` is made inert
    (:func:`kdump.textsafe.inert`: control and bidi characters shown as escapes) before
    rich measures or renders it, table cells and titles included.  kdump's own styling is
    done with ``Text(..., style=...)``, never with markup strings.
    """

    def render_str(self, text: str, **kwargs: Any) -> Text:
        kwargs["markup"] = False
        kwargs["emoji"] = False
        return super().render_str(inert(text), **kwargs)

    def render(self, renderable: Any, options: Any = None) -> Any:
        if isinstance(renderable, Text) and not is_inert(renderable.plain):
            # a Text kdump built (several lines of a cell are kdump's own line breaks)
            renderable = Text(inert_lines(renderable.plain), style=renderable.style,
                              justify=renderable.justify, overflow=renderable.overflow,
                              no_wrap=renderable.no_wrap)
        return super().render(renderable, options)


def safe_text(s: str, style: Any = "") -> Text:
    """A Text of ``s`` from the data, inert, in kdump's ``style``."""
    return Text(inert(s), style=style)


def make_console(stream: TextIO, width: int | None = None) -> Console:
    """A console on ``stream``: the terminal's width on a terminal, else ``$COLUMNS`` or
    100 columns (tables stay readable when piped or captured).  Output is inert: see
    :class:`SafeConsole`."""
    if width is None:
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        if not tty:
            try:
                width = int(os.environ.get("COLUMNS", "100"))
            except ValueError:
                width = 100
    return SafeConsole(file=stream, width=width, soft_wrap=False, highlight=False,
                       emoji=False, markup=False)


def _short(data: bytes | None, n: int = 40) -> str:
    if data is None:
        return "null"
    try:
        s = data.decode("utf-8")
        if not s.isprintable():
            raise UnicodeDecodeError("utf-8", b"", 0, 1, "unprintable")
    except UnicodeDecodeError:
        s = "0x" + data.hex()
    return s if len(s) <= n else s[: n - 1] + "…"


class _Chunked:
    """A table printed in chunks: same columns, a new chunk every FLUSH_ROWS rows."""

    def __init__(self, console: Console, title: str, columns: list[tuple[str, dict[str, Any]]]):
        self.console = console
        self.title = title
        self.columns = columns
        self.table: Table | None = None
        self.rows = 0

    def add(self, *cells: Any, style: str | None = None) -> None:
        if self.table is None:
            # at least as wide as the title (a file path), so the title is not broken
            # across lines mid-word
            self.table = Table(title=self.title if self.rows == 0 else None,
                               title_justify="left", expand=False, pad_edge=False,
                               min_width=min(len(self.title), self.console.width))
            for name, kw in self.columns:
                self.table.add_column(name, **kw)
        self.table.add_row(*cells, style=style)
        self.rows += 1
        if self.table.row_count >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.table is not None and self.table.row_count:
            self.console.print(self.table)
        self.table = None


class DumpTableRenderer:
    def __init__(self, out: TextIO, err: TextIO, *, deep: bool = False,
                 print_data_log: bool = False, width: int | None = None) -> None:
        self.console = make_console(out, width)
        self.err = make_console(err, width)
        self.deep = deep
        self.print_data = print_data_log
        self.current: _Chunked | None = None

    def _table(self, title: str, columns: list[tuple[str, dict[str, Any]]]) -> _Chunked:
        if self.current is None or self.current.title != title:
            self._flush()
            self.current = _Chunked(self.console, title, columns)
        return self.current

    def _flush(self) -> None:
        if self.current is not None:
            self.current.flush()
            self.current = None

    def emit(self, item: object) -> None:
        r = {"justify": "right"}
        if isinstance(item, FileStart):
            self._flush()
            f = item.file
            size = "" if item.size is None else f" · {item.size:,} bytes"
            self.console.print(safe_text(f.path, "bold"), safe_text(f"  {f.description}{size}",
                                                                    "dim"))
        elif isinstance(item, BatchEvent):
            b = item.batch
            t = self._table(f"batches of {b.path}", [
                ("position", r), ("offsets", r), ("count", r), ("size", r), ("codec", {}),
                ("max timestamp", r), ("producer", r), ("flags", {}), ("crc", {})])
            flags = " ".join(x for x, on in (("txn", b.is_transactional),
                                             ("control", b.is_control)) if on)
            if not item.continued:
                t.add(str(b.position), f"{b.base_offset}–{b.last_offset}" if b.magic >= 2
                      else str(b.last_offset), "" if b.count is None else str(b.count),
                      str(b.size), b.compression_name, str(b.max_timestamp),
                      "" if b.producer_id < 0 else f"{b.producer_id}/{b.producer_epoch}",
                      flags or f"v{b.magic}", "ok" if b.crc_valid else "BAD",
                      style=None if b.crc_valid else "red")
            for ev in item.records or ():
                rec = ev.record
                if ev.control is not None:
                    c = ev.control
                    what = (f"{c.type_name} coordinatorEpoch={c.coordinator_epoch}"
                            if c.coordinator_epoch is not None else c.type_name)
                    t.add("", f"  {rec.offset}", "", str(rec.size), "", str(rec.timestamp),
                          "", what, "", style="cyan")
                    continue
                if self.print_data and ev.decoded is not None:
                    d = ev.decoded
                    kv = f"{d.key_text if d.key_text is not None else 'null'} = " \
                         f"{d.value_text if d.value_text is not None else 'null'}"
                    kv = kv if len(kv) <= 48 else kv[:47] + "…"
                else:
                    kv = f"{_short(rec.key, 16)} = {_short(rec.value, 28)}"
                t.add("", f"  {rec.offset}", "", str(rec.size), "", str(rec.timestamp), "",
                      kv, "", style="dim")
        elif isinstance(item, IndexEntryEvent):
            self._table(f"offset index {item.path}", [("slot", r), ("offset", r),
                                                      ("position", r)]).add(
                str(item.slot), str(item.offset), str(item.position))
        elif isinstance(item, TimeIndexEntryEvent):
            self._table(f"time index {item.path}", [("slot", r), ("timestamp", r),
                                                    ("offset", r)]).add(
                str(item.slot), str(item.timestamp), str(item.offset))
        elif isinstance(item, TxnIndexEntryEvent):
            x = item.txn
            self._table(f"aborted transactions {item.path}", [
                ("producer", r), ("first offset", r), ("last offset", r), ("LSO", r)]).add(
                str(x.producer_id), str(x.first_offset), str(x.last_offset),
                str(x.last_stable_offset))
        elif isinstance(item, SnapshotEntryEvent):
            e = item.entry
            self._table(f"producers {item.path}", [
                ("producer", r), ("epoch", r), ("last seq", r), ("last offset", r),
                ("timestamp", r), ("coord epoch", r), ("txn first", r)]).add(
                str(e.producer_id), str(e.producer_epoch), str(e.last_sequence),
                str(e.last_offset), str(e.timestamp), str(e.coordinator_epoch),
                "" if e.current_txn_first_offset < 0 else str(e.current_txn_first_offset))
        elif isinstance(item, CheckpointEntryEvent):
            cols: list[tuple[str, dict[str, Any]]] = [(k, {}) for k in item.fields]
            self._table(f"{item.kind} {item.path}", cols).add(*[str(v) for v in
                                                                item.fields.values()])
        elif isinstance(item, PropertiesEvent):
            self._flush()
            for k, v in (item.values or {}).items():
                self.console.print(f"  {k} = {v}")
        elif isinstance(item, (IndexStatus, Note)):
            self._flush()
            text = item.message if isinstance(item, IndexStatus) else item.text
            self.console.print(f"  {text}")
        elif isinstance(item, LogEnd):
            self._flush()
            tail = f", {item.trailing_bytes:,} trailing bytes" if item.trailing_bytes else ""
            self.console.print(Text(f"  {item.batches:,} batches, {item.records:,} records"
                                    f"{tail}", style="dim"))
        elif isinstance(item, Problem):
            style = "red" if item.severity == "error" else "yellow" if \
                item.severity == "warning" else "dim"
            # one finding, one line: never wrapped at the console width
            self.err.print(safe_text(problem_line(item), style), soft_wrap=True)

    def close(self) -> None:
        self._flush()
