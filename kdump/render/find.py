"""Renderers of ``find-offset`` and ``find-time``: ``name: value`` text lines, one JSON
object, or name/value tables (rich, imported only when a table is drawn)."""

from __future__ import annotations

from typing import Any, TextIO

from ..decoders.redact import shown
from ..findings import Problem
from ..model import fields_of, shape
from ..ops import events as de
from ..textsafe import InertLines
from .common import iso_ms, problem_line
from .jsonl import JsonRenderer, record_object, structured_of


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


class FindTableRenderer:
    """``find-offset`` / ``find-time --format table``: the answer as a name/value table
    (times in ISO-8601 UTC beside the milliseconds), then the batch and the record."""

    def __init__(self, out: TextIO, err: TextIO, *, print_data_log: bool = False,
                 decoder: Any = None, width: int | None = None) -> None:
        from .table import make_console

        self.console = make_console(out, width)
        self.err = make_console(err, width)
        self.print_data = print_data_log
        self.decoder = decoder

    def _kv(self, title: str, rows: list[tuple[str, Any]], style: str | None = None) -> None:
        from rich.table import Table
        from rich.text import Text

        t = Table(title=title, title_justify="left", show_header=False)
        t.add_column(no_wrap=True, style="bold")
        t.add_column(overflow="fold", ratio=1)
        for k, v in rows:
            if v is not None and v != "":
                t.add_row(k, v if isinstance(v, Text) else str(v), style=style)
        self.console.print(t)

    def emit(self, item: object) -> None:
        from rich.text import Text

        from ..ops.find import FindResult
        from .table import compact_layout, safe_text, short_bytes

        if isinstance(item, Problem):
            self.err.print(safe_text(problem_line(item), "red"), soft_wrap=True)
            return
        if not isinstance(item, FindResult):
            return
        d = item.to_json()
        target = (f"{item.target} ({iso_ms(item.target)})" if item.query == "timestamp"
                  else str(item.target))
        rows: list[tuple[str, Any]] = [
            ("answer", Text("found", style="green") if item.found
             else Text("not found", style="red")),
            (f"target {item.query}", target)]
        if not item.found:
            rows += [("reason", item.reason), ("nearest below", item.nearest_below),
                     ("nearest above", item.nearest_above)]
        for k in ("file", "position", "offset", "base_offset", "last_offset", "method"):
            rows.append((k.replace("_", " "), d.get(k)))
        if d.get("timestamp") is not None:
            rows.append(("timestamp", f"{iso_ms(d['timestamp'])} ({d['timestamp']})"))
        if item.index_entry:
            e = item.index_entry
            rows.append(("index entry", f"slot {e['slot']} offset {e['offset']} "
                                        f"position {e['position']}"))
        rows += [("bytes scanned", f"{item.bytes_scanned:,}"),
                 ("bytes read", f"{item.bytes_read:,}")]
        rows += [("note", n) for n in item.notes]
        self._kv(f"{'find-offset' if item.query == 'offset' else 'find-time'} "
                 f"{item.target}", rows)
        b = item.batch
        if b is not None:
            self._kv("batch", [
                ("offsets", f"{b.base_offset}–{b.last_offset}"), ("count", b.count),
                ("position", b.position), ("size", b.size), ("magic", b.magic),
                ("codec", b.compression_name),
                ("max timestamp", f"{iso_ms(b.max_timestamp)} ({b.max_timestamp})"),
                ("producer", None if b.producer_id < 0
                 else f"{b.producer_id}/{b.producer_epoch}"),
                ("sequences", None if b.magic < 2
                 else f"{b.base_sequence}–{b.last_sequence}"),
                ("leader epoch", getattr(b, "partition_leader_epoch", None)),
                ("transactional", "yes" if b.is_transactional else None),
                ("control", "yes" if b.is_control else None),
                ("crc", "ok" if b.crc_valid else Text("BAD", style="red"))])
        r = item.record
        if r is not None:
            rrows: list[tuple[str, Any]] = [
                ("offset", r.offset), ("timestamp", f"{iso_ms(r.timestamp)} ({r.timestamp})"),
                ("size", r.size)]
            if self.print_data:
                r, dd = shown(r, self.decoder, getattr(item.batch, "path", None))
                if dd is not None:
                    key = "null" if dd.key_text is None else dd.key_text
                    value = "null" if dd.value_text is None else dd.value_text
                    in_text = any(t and dd.error and t in dd.error
                                  for t in (dd.key_text, dd.value_text))
                    extra = [("layout", compact_layout(dd.note) if dd.note else None),
                             ("error", None if in_text else dd.error)]
                else:
                    key, value = short_bytes(r.key, 4096), short_bytes(r.value, 65536)
                    extra = []
                rrows += [("key", key), ("value", value), *extra]
                for hk, hv in getattr(r, "headers", None) or ():
                    name = hk.decode("utf-8", "backslashreplace") if isinstance(hk, bytes) \
                        else str(hk)
                    rrows.append((f"header {name}", short_bytes(hv, 4096)))
            self._kv("record", rrows)

    def close(self) -> None:
        pass


#: the optional fields of a ``found`` object that are the record's (--print-data-log)
_FOUND_RECORD_FIELDS = [f.name for f in fields_of("found") if f.optional]


class FindJsonRenderer(JsonRenderer):
    """A find result as one object; with ``print_data_log`` the record's key, value and
    headers are added under ``--payload-encoding``."""

    def __init__(self, out: TextIO, *, payload_encoding: str = "utf8",
                 print_data_log: bool = False, decoder: Any = None) -> None:
        super().__init__(out, payload_encoding=payload_encoding)
        self.print_data = print_data_log
        #: the payload decoder (internal topics decoded, as in dump), or None
        self.decoder = decoder

    def emit(self, item: object) -> None:
        to_json = getattr(item, "to_json", None)
        if to_json is None or isinstance(item, Problem):
            super().emit(item)
            return
        obj = to_json()
        rec = getattr(item, "record", None)
        batch = getattr(item, "batch", None)
        if self.print_data and rec is not None and batch is not None:
            rec, decoded = shown(rec, self.decoder, batch.path)
            ev = de.RecordEvent(rec)
            ev.decoded = decoded
            r = record_object(batch, ev, self.encoding, structured_of(ev))
            values = {k: v for k, v in obj.items() if k != "type"}
            # the found kind's record fields, in the model's order
            values.update((k, r[k]) for k in _FOUND_RECORD_FIELDS if k in r)
            obj = shape(obj["type"], values)
        self._write(obj)
