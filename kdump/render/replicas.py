"""Renderers for ``compare-replicas`` and ``lag``: text (lines for people and ``grep``)
and tables (rich).  JSON Lines is :class:`~kdump.render.jsonl.JsonRenderer`, plus the
``record`` objects of ``--print-data-log`` built here."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TextIO

from ..decoders import KeyValueDecoder
from ..decoders.redact import shown
from ..findings import Problem
from ..ops.compare_replicas import CompareSummary, OnlyHereBatch, PartitionComparison
from ..ops.events import BatchEvent, RecordEvent
from ..ops.lag import GroupLag, LagRow, OffsetsSource
from ..ops.offsets_summary import SHARE_STATE_TOPIC
from ..records.control import parse_control
from ..textsafe import InertLines
from .common import plural, problem_line

_DECODER: KeyValueDecoder | None = None
#: the decoder of a replica's records, by partition directory (``kdump.ops.dump.
#: DumpOptions.decoder_for_path``: as dump decodes them); None: the string decoder
DecoderFor = Callable[[str], Any] | None
#: C0 and C1 controls and DEL: never written to a terminal as they are (a file name, a
#: topic or a record may hold an escape sequence)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _safe(line: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", line)


def _cells(*cells: str) -> list[Any]:
    """Table cells as plain text: neither rich markup nor control characters."""
    from rich.text import Text

    return [Text(_safe(c)) for c in cells]


def _events(item: OnlyHereBatch, decode: bool, decoder_for: DecoderFor = None) -> BatchEvent:
    """The batch and its records, as ``dump --print-data-log`` shows them."""
    global _DECODER
    if _DECODER is None:
        _DECODER = KeyValueDecoder("string", "string")
    # as dump decodes the replica's records (decoder_for: schema-registry payloads,
    # internal topics), else the internal-topic decoder compare-replicas chose, else strings
    decoder: Any = (decoder_for(item.replica.path) if decoder_for is not None
                    else item.decoder if item.decoder is not None else _DECODER)
    b = item.batch
    decode = decode or item.decoder is not None
    events: list[RecordEvent] = []
    try:
        for rec in b.records():
            ev = RecordEvent(rec)
            if b.magic >= 2 and b.is_control:
                ev.control = parse_control(rec)
            elif decode:  # secrets of metadata records shown redacted (kdump.decoders.redact)
                ev.record, ev.decoded = shown(rec, decoder, b.path)
            events.append(ev)
    except Exception:
        pass
    return BatchEvent(b, events)


def epochs_text(pairs: list[list[int]] | None) -> str:
    if not pairs:
        return "none"
    return " ".join(f"{e}@{o}" for e, o in pairs)


def _who(r: dict[str, Any]) -> str:
    b = r["broker_id"]
    return f"broker {b} {r['path']}" if b is not None else r["path"]


def comparison_lines(c: PartitionComparison) -> list[str]:
    d = c.to_json()
    head = f"{d['partition']}: "
    if d["status"] == "single":
        where = ", ".join(str(m["broker_id"]) if m["broker_id"] is not None else m["log_dir"]
                          for m in d["missing_from"])
        head += "only one replica" + (f" (not in: {where})" if where else "")
    elif d["status"] == "diverged":
        head += f"replicas diverge at offset {d['divergence_offset']}"
        if d["truncation_offset"] is not None:
            head += f"; Kafka's truncation would cut a follower at {d['truncation_offset']}"
    elif d["status"] == "lagging":
        head += "replicas agree; some lag behind"
    else:
        head += "replicas agree"
    if d["compacted_differences"]:
        head += (f"; {plural(d['compacted_differences'], 'batch')} "
                 f"{'differs' if d['compacted_differences'] == 1 else 'differ'} by compaction only")
    lines = [head]
    for r in d["replicas"]:
        s = (f"  {_who(r)} ({r['role']}): log start {r['log_start_offset']}, "
             f"log end {r['log_end_offset']}")
        if r["high_watermark"] is not None:
            s += f", high watermark {r['high_watermark']} (checkpointed)"
        s += f", epochs {epochs_text(r['epochs'])} ({r['epochs_source']})"
        s += f", {plural(r['records_only_here'], 'record')} only here"
        if r["role"] == "follower" and r["truncation_offset"] is not None:
            s += f", Kafka truncates it at {r['truncation_offset']}"
            if r["log_end_offset"] is not None and r["truncation_offset"] >= r["log_end_offset"]:
                s += " (nothing to cut)"
        if r["batch_at_divergence"] is not None:
            b = r["batch_at_divergence"]
            s += (f"; at the divergence: batch {b['base_offset']}-{b['last_offset']} epoch "
                  f"{b['partition_leader_epoch']} crc {b['crc']} ({b['file']} position "
                  f"{b['position']})")
        if r["damage"]:
            s += f"; {len(r['damage'])} damaged stretches"
        lines.append(s)
    return lines


class CompareTextRenderer:
    """A block of lines per partition on stdout, findings and the summary on stderr;
    ``--print-data-log`` records as DumpLogSegments lines under a ``Replica:`` line."""

    def __init__(self, out: TextIO, err: TextIO, *, print_data_log: bool = False,
                 decoder_for: DecoderFor = None) -> None:
        self.out = InertLines(out)
        self.err = InertLines(err)
        self.print_data = print_data_log
        self.decoder_for = decoder_for
        self._replica: str | None = None
        #: (replica, layout) the layout note was said of (stderr, once each)
        self._noted: set[tuple[str, str]] = set()

    def emit(self, item: object) -> None:
        from .text import batch_line, record_lines

        if isinstance(item, PartitionComparison):
            self._replica = None
            for line in comparison_lines(item):
                self.out.write(_safe(line) + "\n")
        elif isinstance(item, OnlyHereBatch):
            r = item.replica
            if self._replica != r.path:
                self._replica = r.path
                who = f"broker {r.broker_id} " if r.broker_id is not None else ""
                self.out.write(_safe(f"Replica: {who}{r.path} (records only here)") + "\n")
            ev = _events(item, True, self.decoder_for)
            self._layout_notes(r.path, ev)
            self.out.write(_safe(batch_line(item.batch)) + "\n")
            for line in record_lines(ev, False, True):
                self.out.write(_safe(line) + "\n")
        elif isinstance(item, Problem):
            self.err.write(_safe(problem_line(item)) + "\n")
        elif isinstance(item, CompareSummary):
            d = item.to_json()
            self.err.write(
                f"compare-replicas: {_plural(d['partitions'], 'partition')}: {d['agree']} agree, "
                f"{d['lagging']} lagging, {d['diverged']} diverged, "
                f"{d['only_one_replica']} with one replica, {d['damaged']} damaged; "
                f"{plural(d['bytes_read'], 'byte')} read\n")

    def _layout_notes(self, replica: str, ev: BatchEvent) -> None:
        """Which layout read an internal topic's records, on stderr once per replica and
        layout (stdout keeps DumpLogSegments' lines, as dump's text does)."""
        from ..decoders.release import layout_of_note

        for rev in ev.records or ():
            note = rev.decoded.note if rev.decoded is not None else None
            if note:
                key = (replica, layout_of_note(note))
                if key not in self._noted and len(self._noted) < 64:
                    self._noted.add(key)
                    self.err.write(_safe(f"{replica}: note: record layout: {note} (offset "
                                         f"{rev.record.offset})") + "\n")

    def close(self) -> None:
        self.out.flush()
        self.err.flush()


def compare_json(item: object, out: TextIO, encoding: str,
                 decoder_for: DecoderFor = None) -> bool:
    """``record`` objects of ``--print-data-log``, tagged with their replica; False when
    ``item`` is not an :class:`OnlyHereBatch`.  With ``decoder_for``, records carry what
    their decoder makes of them (``decoded`` / ``decode_error``), as in dump."""
    if not isinstance(item, OnlyHereBatch):
        return False
    from .jsonl import batch_object, json_text, record_object, structured_of

    r = item.replica
    tag = {"replica": r.path, "log_dir": r.log_dir, "broker_id": r.broker_id}
    ev = _events(item, decoder_for is not None, decoder_for)
    out.write(json_text({**batch_object(item.batch), **tag}) + "\n")
    for rev in ev.records or ():
        out.write(json_text({**record_object(item.batch, rev, encoding, structured_of(rev)),
                          **tag}) + "\n")
    return True


class CompareJsonRenderer:
    format = "json"

    def __init__(self, out: TextIO, *, payload_encoding: str = "utf8",
                 decoder_for: DecoderFor = None) -> None:
        from .jsonl import JsonRenderer

        self.out = out
        self.encoding = payload_encoding
        self.decoder_for = decoder_for
        self.inner = JsonRenderer(out, payload_encoding=payload_encoding)

    def emit(self, item: object) -> None:
        if not compare_json(item, self.out, self.encoding, self.decoder_for):
            self.inner.emit(item)

    def close(self) -> None:
        self.inner.close()


class CompareTableRenderer:
    """One table of replicas, a row each, grouped by partition."""

    def __init__(self, out: TextIO, err: TextIO, *, width: int | None = None,
                 decoder_for: DecoderFor = None) -> None:
        from .table import make_console

        self.console = make_console(out, width)
        self.err = InertLines(err)
        self.rows: list[tuple[str, ...]] = []
        self.text = CompareTextRenderer(out, err, print_data_log=True, decoder_for=decoder_for)
        self.summary: CompareSummary | None = None

    def emit(self, item: object) -> None:
        if isinstance(item, PartitionComparison):
            d = item.to_json()
            for k, r in enumerate(d["replicas"]):
                status = d["status"]
                if status == "diverged":
                    status = f"diverged at {d['divergence_offset']}"
                trunc = r["truncation_offset"]
                if r["damage"]:
                    status = (status + "; " if k == 0 else "") + f"{len(r['damage'])} damaged"
                elif k:
                    status = ""
                self.rows.append((
                    d["partition"] if k == 0 else "", status,
                    f"broker {r['broker_id']}" if r["broker_id"] is not None else r["log_dir"],
                    r["role"], _s(r["log_start_offset"]), _s(r["log_end_offset"]),
                    _s(r["high_watermark"]), epochs_text(r["epochs"]),
                    str(r["records_only_here"]), _s(trunc)))
        elif isinstance(item, OnlyHereBatch):
            self.text.emit(item)
        elif isinstance(item, Problem):
            self.err.write(_safe(problem_line(item)) + "\n")
        elif isinstance(item, CompareSummary):
            self.summary = item

    def close(self) -> None:
        from rich.table import Table

        t = Table(title="replicas compared", title_justify="left")
        for name in ("partition", "status", "replica", "role", "start", "end", "hw",
                     "epochs", "only here", "cut at"):
            justify: Any = "right" if name in ("start", "end", "hw", "only here",
                                               "cut at") else "left"
            t.add_column(name, justify=justify, overflow="fold")
        for row in self.rows:
            t.add_row(*_cells(*row))
        self.console.print(t)
        if self.summary is not None:
            self.text.emit(self.summary)
        self.text.close()


def _plural(n: int, word: str) -> str:
    return plural(n, word)


def _s(v: int | None) -> str:
    return "-" if v is None else str(v)


# ------------------------------------------------------------------ lag

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
                              _s(item.committed_offset), _s(item.log_end_offset),
                              _s(item.high_watermark), _s(item.lag)))
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
            self.err.write(_safe(f"{what}: {who}{c.replica.path} (log end offset "
                                 f"{_s(c.log_end_offset)}{extra}): "
                                 f"{plural(item.records, 'record')} applied, "
                                 f"{item.aborted_records} aborted") + "\n")
        elif isinstance(item, Problem):
            self.err.write(_safe(problem_line(item)) + "\n")

    def close(self) -> None:
        rows = [_LAG_COLUMNS, *self.rows]
        widths = [max(len(r[k]) for r in rows) for k in range(len(_LAG_COLUMNS))]
        for r in rows:
            self.out.write(_safe(" ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))
                                 .rstrip()) + "\n")
        if self.groups:
            self.out.write("\n")
        for g in self.groups:
            gtype = f" ({g.group_type})" if g.group_type else ""
            self.out.write(_safe(f"group {g.group}{gtype}: {_plural(g.partitions, 'partition')}, total lag "
                           f"{g.total_lag}, max lag {_s(g.max_lag)}"
                           + (f", {g.partitions_without_log} without a log in the inputs"
                              if g.partitions_without_log else "")) + "\n")
        if self.empty_sources:
            empty = _plural(self.empty_sources, "empty __consumer_offsets partition")
            self.err.write(f"committed offsets: {empty} (no commits to replay)\n")
        if self.empty_share_sources:
            empty = _plural(self.empty_share_sources, "empty __share_group_state partition")
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
            t.add_row(*_cells(*row))
        self.console.print(t)
        if self.text.groups:
            g = Table(title="per group", title_justify="left")
            for name in ("group", "type", "partitions", "total lag", "max lag", "no log"):
                g.add_column(name, justify="left" if name in ("group", "type") else "right")
            for x in self.text.groups:
                g.add_row(*_cells(x.group, x.group_type or "-", str(x.partitions),
                                  str(x.total_lag), _s(x.max_lag),
                                  str(x.partitions_without_log)))
            self.console.print(g)
        self.text.err.flush()
