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
from ..model import SCHEMA, Field, extra_fields
from ..ops import events as de  # the dump events, as de.BatchEvent ...
from ..textsafe import inert, inert_lines, is_inert
from .common import iso_ms, plural, problem_line

FLUSH_ROWS = 500
#: a payload shown in a table is cut after this many characters (saying how many more):
#: ``--format json`` or text has every byte
PAYLOAD_CHARS = 2000


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

    def on_broken_pipe(self) -> None:
        # rich exits 1 on a broken pipe; kdump's CLI treats the reader going away
        # (``| head``) as success, the same for every format (issue 18)
        self.quiet = True
        raise BrokenPipeError

    def print(self, *objects: Any, **kwargs: Any) -> None:
        # every table kdump prints fits the terminal (issues 15, 16): see :func:`fit`
        super().print(*(fit(self, o) for o in objects), **kwargs)


#: the room a flexible column (one with a ``ratio``: payloads, details) needs at least;
#: it takes what the other columns leave and wraps its cells in it
FLEX_MIN = 24


def natural_width(console: Console, table: Table) -> int:
    """The width ``table`` takes when no cell is wrapped or cropped (a flexible column
    counted at :data:`FLEX_MIN`: it wraps, losing nothing)."""
    from rich.measure import Measurement

    flex = [c for c in table.columns if c.ratio]
    saved = [c.max_width for c in flex]
    for c in flex:
        c.max_width = c.min_width or FLEX_MIN
    try:
        return Measurement.get(console, console.options.update(width=10**6), table).maximum
    finally:
        for c, m in zip(flex, saved, strict=True):
            c.max_width = m


def vertical(table: Table) -> Table:
    """``table`` as name/value lines, one block per row (rows apart by a rule): the
    layout for a terminal too narrow for the columns side by side.  Every non-empty cell
    is kept; values wrap (never cropped) in the width the terminal has."""
    v = Table(title=table.title, title_justify=table.title_justify, show_header=False,
              box=table.box, pad_edge=table.pad_edge)
    v.add_column(no_wrap=True, style="bold")
    v.add_column(overflow="fold", ratio=1)
    headers = [c.header if isinstance(c.header, str) else str(c.header) for c in table.columns]
    cells = [list(c.cells) for c in table.columns]
    for i, row in enumerate(table.rows):
        block = [(headers[j] or "·", cells[j][i]) for j in range(len(headers))
                 if i < len(cells[j]) and not (isinstance(cells[j][i], (str, Text))
                                              and not str(cells[j][i]).strip())]
        for k, (name, cell) in enumerate(block):
            v.add_row(name, cell, style=row.style,
                      end_section=k == len(block) - 1 and i < len(table.rows) - 1)
    return v


def fit(console: Console, renderable: Any) -> Any:
    """A table as it is when it fits the console side by side, else :func:`vertical`:
    no column is ever cropped or squeezed into an ellipsis at the terminal's edge."""
    if (isinstance(renderable, Table) and (renderable.show_header or len(renderable.columns) > 2)
            and natural_width(console, renderable) > console.width):
        return vertical(renderable)
    return renderable


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


def _compact(obj: object, text: str | None) -> str:
    """A key or value as a table cell: a schema-registry payload in its compact form
    (subject, version, id, the data shortened), else its text."""
    if isinstance(obj, dict) and obj.__class__ is not dict:
        from ..schemaregistry.decoder import SchemaPayload, compact

        if isinstance(obj, SchemaPayload):
            return compact(obj)
    return text if text is not None else "null"


def short_bytes(data: bytes | None, n: int = 40) -> str:
    if data is None:
        return "null"
    try:
        s = data.decode("utf-8")
        if not s.isprintable():
            raise UnicodeDecodeError("utf-8", b"", 0, 1, "unprintable")
    except UnicodeDecodeError:
        s = "0x" + data.hex()
    return s if len(s) <= n else s[: n - 1] + "…"


#: The batch and record fields of the output model (kdump/model.py) the dump table draws,
#: or leaves out on purpose (the file is the table's title; a record's topic, partition
#: and producer are its batch's; sizes and encodings are in what is shown).  Any other
#: field the model declares for ``batch`` or ``record`` is shown as ``name=value`` (its
#: JSON value) after the batch's details or the record's key and value: a field added to
#: the model shows in the table without a change here (tests/test_model.py).
TABLE_BATCH_FIELDS = frozenset({
    "file", "position", "base_offset", "last_offset", "count", "size", "magic",
    "compression", "timestamp_type", "max_timestamp", "crc", "crc_valid", "first_timestamp",
    "partition_leader_epoch", "producer_id", "producer_epoch", "base_sequence",
    "last_sequence", "is_transactional", "is_control", "delete_horizon_ms", "attributes",
    "replica", "log_dir", "broker_id"})
TABLE_RECORD_FIELDS = frozenset({
    "file", "topic", "partition", "batch_position", "producer_id", "producer_epoch",
    "is_transactional", "is_control", "offset", "timestamp", "timestamp_type", "key_size",
    "value_size", "key", "key_encoding", "value", "value_encoding", "headers", "sequence",
    "magic", "crc", "crc_valid", "size", "control", "decoded", "decode_error", "replica",
    "log_dir", "broker_id"})
_EXTRAS: dict[str, tuple[object, list[Field]]] = {}
def compact_layout(note: str) -> str:
    """A record's layout note (:attr:`~kdump.decoders.base.Decoded.note`) in a table
    cell: the layout read with (``Kafka 4.1+ ShareSnapshotValue``), and ``unstable``
    when the note says the version is; the whole note is in JSON and, once per file and
    layout, above the table."""
    from ..decoders.release import layout_of_note

    short = layout_of_note(note)
    return f"{short}, unstable" if short != note and "unstable" in note else short


def _extras(kind: str, shown: frozenset[str]) -> list[Field]:
    """The fields of ``kind`` the table does not draw (checked again only when the
    model's declaration of ``kind`` is replaced)."""
    decl = SCHEMA[kind]
    known = _EXTRAS.get(kind)
    if known is None or known[0] is not decl:
        known = _EXTRAS[kind] = (decl, extra_fields(kind, shown))
    return known[1]


def _extra_text(obj: dict[str, Any], fields: list[Field]) -> str:
    from .jsonl import json_text

    return " · ".join(f"{f.name}={json_text(obj[f.name])}" for f in fields if f.name in obj)


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

    def _batch(self, item: de.BatchEvent) -> None:
        r = {"justify": "right"}
        b = item.batch
        flags = " ".join(x for x, on in (("txn", b.is_transactional),
                                         ("control", b.is_control)) if on)
        offsets = f"{b.base_offset}–{b.last_offset}" if b.magic >= 2 else str(b.last_offset)
        producer = "" if b.producer_id < 0 else f"{b.producer_id}/{b.producer_epoch}"
        crc = "ok" if b.crc_valid else "BAD"
        records = bool(item.records) or self.deep or self.print_data
        batch_extras = _extras("batch", TABLE_BATCH_FIELDS)
        record_extras = _extras("record", TABLE_RECORD_FIELDS)
        more = ""
        if batch_extras and not item.continued:
            from .jsonl import batch_values

            more = _extra_text(batch_values(b), batch_extras)
        if not records and not more and self.console.width >= 110:
            # wide enough for one column per batch field
            t = self._table(f"batches of {b.path}", [
                ("position", r), ("offsets", r), ("count", r), ("size", r), ("codec", {}),
                ("max timestamp (UTC)", {}), ("producer", r), ("flags", {}), ("crc", {})])
            if not item.continued:
                t.add(str(b.position), offsets, "" if b.count is None else str(b.count),
                      str(b.size), b.compression_name, iso_ms(b.max_timestamp), producer,
                      flags or f"v{b.magic}", crc, style=None if b.crc_valid else "red")
            return
        # records, or a narrower terminal: offset, time and size, then the rest of the
        # batch (or the record's key and value) in one column that takes the room left
        t = self._table(f"batches of {b.path}", [
            ("offsets", r), ("timestamp (UTC)", {"no_wrap": True}), ("size", r),
            ("batch / record", {"overflow": "fold", "ratio": 1})])
        if not item.continued:
            count = "" if b.count is None else f" · {plural(b.count, 'record')}"
            detail = " · ".join(x for x in (
                f"position {b.position}{count}", b.compression_name,
                f"producer {producer}" if producer else "", flags or f"v{b.magic}",
                f"crc {crc}", more) if x)
            t.add(offsets, iso_ms(b.max_timestamp), str(b.size), detail,
                  style=None if b.crc_valid else "red")
        for ev in item.records or ():
            rec = ev.record
            if ev.control is not None:
                c = ev.control
                what = (f"{c.type_name} coordinatorEpoch={c.coordinator_epoch}"
                        if c.coordinator_epoch is not None else c.type_name)
                if record_extras:
                    from .jsonl import record_values

                    extra = _extra_text(record_values(b, ev, "utf8", (False, False)),
                                        record_extras)
                    what = f"{what} · {extra}" if extra else what
                t.add(f"  {rec.offset}", iso_ms(rec.timestamp), str(rec.size), what,
                      style="cyan")
                continue
            if self.print_data and ev.decoded is not None:
                d = ev.decoded
                kv = f"{_compact(d.key_json, d.key_text)} = {_compact(d.value_json, d.value_text)}"
                if len(kv) > PAYLOAD_CHARS:
                    kv = kv[:PAYLOAD_CHARS] + f"… ({len(kv) - PAYLOAD_CHARS:,} more characters)"
                if d.note:
                    kv = f"{kv} · layout: {compact_layout(d.note)}"
                if d.error and not any(t and t in d.error for t in (d.key_text, d.value_text)):
                    # the error, unless it restates the text shown (DumpLogSegments' own)
                    kv = f"{kv} · error: {d.error}"
            else:
                kv = f"{short_bytes(rec.key, 40)} = {short_bytes(rec.value, 120)}"
            if record_extras:
                from .jsonl import record_values, structured_of

                extra = _extra_text(record_values(b, ev, "utf8", structured_of(ev)),
                                    record_extras)
                kv = f"{kv} · {extra}" if extra else kv
            t.add(f"  {rec.offset}", iso_ms(rec.timestamp), str(rec.size), kv,
                  style=None if self.print_data else "dim")

    def emit(self, item: object) -> None:
        r = {"justify": "right"}
        if isinstance(item, de.FileStart):
            self._flush()
            f = item.file
            size = "" if item.size is None else f" · {plural(item.size, 'byte', grouped=True)}"
            self.console.print(safe_text(f.path, "bold"), safe_text(f"  {f.description}{size}",
                                                                    "dim"))
        elif isinstance(item, de.BatchEvent):
            self._batch(item)
        elif isinstance(item, de.IndexEntryEvent):
            self._table(f"offset index {item.path}", [("slot", r), ("offset", r),
                                                      ("position", r)]).add(
                str(item.slot), str(item.offset), str(item.position))
        elif isinstance(item, de.TimeIndexEntryEvent):
            self._table(f"time index {item.path}", [("slot", r), ("timestamp (UTC)", {}),
                                                    ("ms", r), ("offset", r)]).add(
                str(item.slot), iso_ms(item.timestamp), str(item.timestamp), str(item.offset))
        elif isinstance(item, de.TxnIndexEntryEvent):
            x = item.txn
            self._table(f"aborted transactions {item.path}", [
                ("producer", r), ("first offset", r), ("last offset", r), ("LSO", r)]).add(
                str(x.producer_id), str(x.first_offset), str(x.last_offset),
                str(x.last_stable_offset))
        elif isinstance(item, de.SnapshotEntryEvent):
            e = item.entry
            self._table(f"producers {item.path}", [
                ("producer", r), ("epoch", r), ("last seq", r), ("last offset", r),
                ("timestamp (UTC)", {}), ("coord epoch", r), ("txn first", r)]).add(
                str(e.producer_id), str(e.producer_epoch), str(e.last_sequence),
                str(e.last_offset), iso_ms(e.timestamp), str(e.coordinator_epoch),
                "" if e.current_txn_first_offset < 0 else str(e.current_txn_first_offset))
        elif isinstance(item, de.CheckpointEntryEvent):
            cols: list[tuple[str, dict[str, Any]]] = [(k, {}) for k in item.fields]
            self._table(f"{item.kind} {item.path}", cols).add(*[str(v) for v in
                                                                item.fields.values()])
        elif isinstance(item, de.PropertiesEvent):
            self._flush()
            for k, v in (item.values or {}).items():
                self.console.print(f"  {k} = {v}")
        elif isinstance(item, de.LayoutNote):
            pass  # each record's row says its layout (compact_layout)
        elif isinstance(item, (de.IndexStatus, de.Note)):
            self._flush()
            text = item.message if isinstance(item, de.IndexStatus) else item.text
            self.console.print(f"  {text}")
        elif isinstance(item, de.LogEnd):
            self._flush()
            tail = (f", {plural(item.trailing_bytes, 'trailing byte', grouped=True)}" if item.trailing_bytes
                    else "")
            self.console.print(Text(f"  {plural(item.batches, 'batch', grouped=True)}, "
                                    f"{plural(item.records, 'record', grouped=True)}{tail}", style="dim"))
        elif isinstance(item, Problem):
            style = "red" if item.severity == "error" else "yellow" if \
                item.severity == "warning" else "dim"
            # one finding, one line: never wrapped at the console width
            self.err.print(safe_text(problem_line(item), style), soft_wrap=True)

    def close(self) -> None:
        self._flush()
