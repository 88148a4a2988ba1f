"""Renderers for ``kdump retention``: text (lines for people and ``grep``: a partition's
summary, then a line per segment with its verdict, then the cleaner's view) and a rich
table per log dir that fits 100 columns.  JSON Lines is
:class:`~kdump.render.jsonl.JsonRenderer`."""

from __future__ import annotations

import os
from typing import Any, TextIO

from .common import iso_ms, plural
from .rows import ObjectRenderer, human

#: the configs a topic's line always shows (the others when not Kafka's default)
_ALWAYS = ("cleanup.policy", "retention.ms", "retention.bytes", "metadata.max.retention.ms",
           "metadata.max.retention.bytes")


def _who(d: dict[str, Any]) -> str:
    return f"broker {d['broker_id']}" if d.get("broker_id") is not None else "broker ?"


def _pin_text(p: dict[str, Any] | None) -> str:
    if not p:
        return ""
    b = p.get("batch")
    seg = os.path.basename(p["segment"])
    if b is None:
        return (f"held by {seg} ({p['reason']} {iso_ms(p['largest_timestamp'])})")
    pid = "none" if b["producer_id"] is None or b["producer_id"] < 0 else b["producer_id"]
    return (f"held by {seg}: the batch at position {b['position']}, offset {b['offset']}, "
            f"timestamp {iso_ms(b['timestamp'])} ({b['timestamp']}, {b['timestamp_type']}), "
            f"producer id {pid}")


def when_text(d: dict[str, Any], minute: bool = False) -> str:
    """When a segment goes, from its verdict: the one phrase the text, the table and the
    report show (``minute``: a date to the minute)."""
    at = d["deletable_at"]
    if d["deletable"]:
        return "now"
    if at is not None:
        return f"from {_minute(at) if minute else iso_ms(at)}"
    return d.get("until") or "no date"


def verdict_text(d: dict[str, Any]) -> str:
    """A segment's verdict in a few words."""
    at = d["deletable_at"]
    if d["deletable"]:
        return f"DELETABLE now: {d['rule']}" + (f" (since {iso_ms(at)})" if at is not None
                                                  else "")
    when = f"deletable {when_text(d)}" if at is not None else when_text(d)
    return f"kept: {d['reason']}, {when}"


def both(disk: int | None, apparent: int) -> str:
    """Bytes as the disk counts them (du), the apparent size (ls) beside; the apparent
    size alone where the input has no block counts (an object store)."""
    if disk is None:
        return f"{human(apparent)} apparent"
    return f"{human(disk)} ({human(apparent)} apparent)"


def _held(d: dict[str, Any]) -> str:
    disk = d.get("held_disk")
    return ", ".join(f"{k} {both(None if disk is None else disk.get(k, 0), v)}"
                     for k, v in d["held"].items()) or "nothing"


def _deletable(d: dict[str, Any], rolled: bool = True) -> str:
    """Deletable now, within 24 h and 7 days: what the disk gets back first."""
    text = (f"deletable now {both(d['deletable_disk_bytes'], d['deletable_bytes'])}, within "
            f"24 h {both(d['deletable_24h_disk_bytes'], d['deletable_24h_bytes'])}, within 7 "
            f"days {both(d['deletable_7d_disk_bytes'], d['deletable_7d_bytes'])}")
    if rolled and d.get("rolled_bytes"):
        text += (f" (deleting the active segment rolls a new one: its preallocated .index "
                 f"and .timeindex, {human(d['rolled_bytes'])} apparent, take no disk block)")
    return text


def held_dir_text(d: dict[str, Any]) -> str:
    """A renamed-aside partition directory in a line (its detail follows it in text)."""
    when = ""
    if d["state"] == "delete":
        when = ("; deleted by the broker no earlier than " + iso_ms(d["earliest_deletion"])
                if d["earliest_deletion"] is not None else "")
    elif d["state"] == "future" and d["current_replica"]:
        when = f"; the current replica {d['current_replica']} holds the same bytes"
    elif d["state"] == "stray":
        when = "; never deleted by the broker"
    return (f"{os.path.basename(d['directory'])} ({_who(d)}): "
            f"{both(d.get('disk_bytes'), d['bytes'])} in "
            f"{plural(d['files'], 'file')}, {d['held_by']}{when}")


def disk_text(d: dict[str, Any]) -> str:
    """A log dir's bytes, added up: allocated (what du says) where the input has block
    counts, the apparent total beside; apparent alone in an object store."""
    known = d["disk_bytes"] is not None
    sfx = "_disk" if known else ""
    parts = [f"segments judged {human(d['segment' + sfx + '_bytes'])}"]
    parts += [f"{k} files {human(v)}" for k, v in d["leftover" + sfx + "_bytes"].items()]
    parts += [f"{k} dirs {human(v)}" for k, v in d["held_dir" + sfx + "_bytes"].items()]
    parts.append(f"other {human(d['other' + sfx + '_bytes'])}")
    other = ", ".join(f"{k} {human(v)}" for k, v in d["other" + sfx].items())
    head = (f"{human(d['disk_bytes'])} ({human(d['bytes'])} apparent)" if known
            else f"{human(d['bytes'])} apparent (no block counts)")
    return (f"on disk {d['log_dir']} ({_who(d)}): {head} in "
            f"{plural(d['files'], 'file')} = " + " + ".join(parts)
            + (f" (other: {other})" if other else ""))


class RetentionTextRenderer(ObjectRenderer):
    """Lines as the module docstring says; findings on stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        super().__init__(out, err)
        self.configs: list[dict[str, Any]] = []
        self.logdir: str | None = None

    def _line(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def row(self, d: dict[str, Any]) -> None:
        t = d["type"]
        if t == "retention_run":
            self._line(f"retention at {iso_ms(d['now'])} ({d['now_source']}); Kafka "
                       f"{d['kafka_version']} rules ({d['kafka_version_source']})")
            self._line(f"configs: metadata {d['metadata'] or 'none'}"
                       + "".join(f"; server.properties {s['file']}"
                                 for s in d["server_properties"])
                       + "".join(f"; --config {o}" for o in d["overrides"]))
            for n in d["notes"]:
                self._line(f"note: {n}")
        elif t == "retention_config":
            self.configs.append(d)
        elif t == "retention_segment":
            self._segment(d)
        elif t == "retention_partition":
            self._logdir(d)
            self._topic_configs()
            self._partition(d)
        elif t == "retention_compaction":
            self._compaction(d)
        elif t == "retention_total":
            self._total(d)
        elif t == "retention_held_dir":
            self._logdir(d)
            self._line(f"held dir {held_dir_text(d)}")
            self._line(f"    {d['detail']}")
        elif t == "retention_disk":
            self._logdir(d)
            self._line(disk_text(d))
            for n in d["notes"]:
                self._line(f"    {n}")

    def _logdir(self, d: dict[str, Any]) -> None:
        if d["log_dir"] != self.logdir:
            self.logdir = d["log_dir"]
            self._line()
            self._line(f"log dir {d['log_dir']} ({_who(d)})")

    def _topic_configs(self) -> None:
        if not self.configs:
            return
        c = self.configs
        self.configs = []
        shown = [x for x in c if x["name"] in _ALWAYS or not x["source"].startswith("default")]
        self._line(f"topic {c[0]['topic']} ({_who(c[0])}): "
                   + "; ".join(f"{x['name']}={x['value']} [{x['source']}]" for x in shown))

    def _segment(self, d: dict[str, Any]) -> None:
        self._line(f"  {os.path.basename(d['file'])} {d['size']} bytes, largest timestamp "
                   f"{iso_ms(d['largest_timestamp'])} ({d['timestamp_source']}): "
                   f"{verdict_text(d)}")
        self._line(f"    {d['detail']}")
        if d["timestamp_note"]:
            self._line(f"    timestamp: {d['timestamp_note']}")
        pin = _pin_text(d["pinned_by"])
        if pin:
            self._line(f"    {pin}")

    def _partition(self, d: dict[str, Any]) -> None:
        self._line(
            f"{d['topic']}-{d['partition']} ({_who(d)}): log start {d['log_start_offset']}, "
            f"log end {d['log_end_offset']}, high watermark {d['high_watermark']} "
            f"({d['high_watermark_source']}), {plural(d['segments'], 'segment')}, "
            f"{both(d['disk_bytes'], d['bytes'])}; {_deletable(d)}; held: {_held(d)}"
            + (f"; next deletion {iso_ms(d['next_deletion'])}" if d["next_deletion"] else "")
            + (f"; .deleted files {human(d['pending_delete_bytes'])}"
               if d["pending_delete_bytes"] else "")
            + "".join(f"; {k} files {human(v)}" for k, v in d["leftover_bytes"].items()
                      if k != "deleted" or v != d["pending_delete_bytes"]))

    def _compaction(self, d: dict[str, Any]) -> None:
        if d["dirty_ratio"] is None:
            self._line(f"  compaction: nothing below the first uncleanable offset "
                       f"{d['first_uncleanable_offset']} ({d['uncleanable_because']}): "
                       "the cleaner passes this log over")
            self._compaction_tail(d)
            return
        ratio = f"{d['dirty_ratio']:.3f}"
        verdict = "cleanable now" if d["cleanable"] else "not cleanable now"
        due = "; max.compaction.lag.ms passed" if d["compaction_due"] else ""
        self._line(
            f"  compaction: cleaner checkpoint "
            f"{d['cleaner_checkpoint'] if d['cleaner_checkpoint'] is not None else 'none'}, "
            f"first dirty {d['first_dirty_offset']}, first uncleanable "
            f"{d['first_uncleanable_offset']} ({d['uncleanable_because']}); dirty "
            f"{human(d['dirty_bytes'])} of {human(d['clean_bytes'] + d['dirty_bytes'])}, "
            f"ratio {ratio} against min.cleanable.dirty.ratio "
            f"{d['min_cleanable_dirty_ratio']}{due}: {verdict}")
        self._compaction_tail(d)

    def _compaction_tail(self, d: dict[str, Any]) -> None:
        for what in ("tombstones", "markers"):
            m = d[what]
            if m["count"]:
                nxt = f", next horizon {iso_ms(m['next_horizon'])}" if m["next_horizon"] else ""
                self._line(f"  {what}: {m['count']} ({m['past_horizon']} past their delete "
                           f"horizon: dropped at the next cleaning; {m['waiting']} waiting"
                           f"{nxt}; {m['no_horizon']} not through a cleaning yet: kept "
                           f"delete.retention.ms={d['delete_retention_ms']} after it)")
        for t in d["open_transactions"]:
            self._line(f"  open transaction: producer id {t['producer_id']} from offset "
                       f"{t['first_offset']} ({t['source']}): holds the last stable offset")
        for e in d["evidence"]:
            self._line(f"  cleaner: {e}")
        for n in d["notes"]:
            self._line(f"  note: {n}")

    def _total(self, d: dict[str, Any]) -> None:
        what = (f"topic {d['topic']}" if d["scope"] == "topic"
                else f"log dir {d['log_dir']}")
        self._line(f"total {what} ({_who(d)}): {plural(d['partitions'], 'partition')}, "
                   f"{both(d['disk_bytes'], d['bytes'])}; {_deletable(d, False)}; held: {_held(d)}"
                   + (f"; .deleted files {human(d['pending_delete_bytes'])}"
                      if d["pending_delete_bytes"] else ""))


class RetentionTableRenderer(ObjectRenderer):
    """A table of segments per log dir (partition, base offset, bytes, largest timestamp,
    the verdict) that fits 100 columns, the cleaner's view and the totals as lines under
    it (``--format text`` says everything, configs and details included)."""

    def __init__(self, out: TextIO, err: TextIO, *, width: int | None = None) -> None:
        from .table import make_console

        super().__init__(out, err)
        self.console = make_console(out, width)
        self.segments: list[dict[str, Any]] = []
        self.lines: list[str] = []
        self.logdir: str | None = None

    def row(self, d: dict[str, Any]) -> None:
        t = d["type"]
        if t == "retention_run":
            self.console.print(_text(
                f"retention at {iso_ms(d['now'])} ({d['now_source']}); Kafka "
                f"{d['kafka_version']} rules ({d['kafka_version_source']})"))
            for n in d["notes"]:
                self.console.print(_text(f"note: {n}"))
        elif t == "retention_segment":
            if self.logdir is not None and d["log_dir"] != self.logdir:
                self._flush()
            self.logdir = d["log_dir"]
            self.segments.append(d)
        elif t == "retention_compaction":
            ratio = "-" if d["dirty_ratio"] is None else f"{d['dirty_ratio']:.3f}"
            self.lines.append(
                f"{d['topic']}-{d['partition']} compaction: dirty ratio {ratio} (min "
                f"{d['min_cleanable_dirty_ratio']}), first uncleanable "
                f"{d['first_uncleanable_offset']} ({d['uncleanable_because']}), "
                f"{'cleanable now' if d['cleanable'] else 'not cleanable now'}; tombstones "
                f"{d['tombstones']['count']}, markers {d['markers']['count']}, open "
                f"transactions {len(d['open_transactions'])}")
        elif t == "retention_total":
            what = f"topic {d['topic']}" if d["scope"] == "topic" else "log dir"
            self.lines.append(
                f"total {what}: {both(d['disk_bytes'], d['bytes'])}; {_deletable(d, False)}; held: "
                f"{_held(d)}")
        elif t == "retention_held_dir":
            self.lines.append(f"held dir {held_dir_text(d)}")
        elif t == "retention_disk":
            self.lines.append(disk_text(d))

    def _flush(self) -> None:
        from rich.table import Table

        if self.segments:
            first = self.segments[0]
            t = Table(title=f"{first['log_dir']} ({_who(first)})", title_justify="left")
            for name, justify in (("partition", "left"), ("segment", "right"),
                                  ("on disk", "right"), ("largest timestamp", "left")):
                t.add_column(name, justify=justify)  # type: ignore[arg-type]
            t.add_column("verdict", overflow="fold", ratio=1)
            for d in self.segments:
                t.add_row(*_cells(f"{d['topic']}-{d['partition']}", str(d["base_offset"]),
                                  human(d["bytes"] if d["disk_bytes"] is None
                                        else d["disk_bytes"]), _minute(d["largest_timestamp"]),
                                  _short_verdict(d)))
            self.console.print(t)
        for line in self.lines:
            self.console.print(_text(line))
        self.segments, self.lines = [], []

    def close(self) -> None:
        self._flush()
        super().close()


def _minute(ms: int | None) -> str:
    """``2025-06-15 14:06``: a table's timestamp, to the minute (text and JSON say more)."""
    s = iso_ms(ms)
    return s[:10] + " " + s[11:16] if len(s) >= 16 and s[10] == "T" else s


def _short_verdict(d: dict[str, Any]) -> str:
    if d["deletable"]:
        return f"DELETABLE now ({d['rule']})"
    return f"{d['reason']}; {when_text(d, minute=True)}"


def _text(s: str) -> Any:
    from rich.text import Text

    from ..textsafe import inert

    return Text(inert(s))


def _cells(*cells: str) -> list[Any]:
    return [_text(c) for c in cells]


__all__ = ["RetentionTableRenderer", "RetentionTextRenderer", "both", "disk_text",
           "held_dir_text", "verdict_text", "when_text"]


#: the holds the report's table of held segments shows (the others are the configured
#: behaviour: within retention, compact policy ...)
NOTABLE_HOLDS = ("future-timestamp", "pinned", "high-watermark", "not-copied-to-remote",
                 "cleaner-disabled")


class RetentionPage:
    """``kdump report``'s retention section: the objects kept (bounded like every table
    of the page) and the chart of bytes by reason."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.run: dict[str, Any] | None = None
        self.partitions: list[dict[str, Any]] = []
        self.held_segments: list[dict[str, Any]] = []
        self.compactions: list[dict[str, Any]] = []
        self.logdirs: list[dict[str, Any]] = []
        #: renamed-aside partition directories, and each log dir's bytes added up
        self.held_dirs: list[dict[str, Any]] = []
        self.disks: list[dict[str, Any]] = []
        self.dropped = 0
        #: bytes by reason over every log dir (deletable now, then each hold)
        self.by_reason: dict[str, int] = {}

    def add(self, d: dict[str, Any]) -> None:
        t = d.get("type")
        if t == "retention_run":
            self.run = d
        elif t == "retention_partition":
            self._keep(self.partitions, d)
        elif t == "retention_segment" and not d["deletable"] and d["reason"] in NOTABLE_HOLDS:
            # the report's "Deletable from": the phrase the text and the table show
            self._keep(self.held_segments, {**d, "when": when_text(d)})
        elif t == "retention_compaction":
            self._keep(self.compactions, d)
        elif t == "retention_total" and d["scope"] == "log_dir":
            # what the disk gets back (allocated bytes), apparent ones without block counts
            self.logdirs.append(d)
            known = d["disk_bytes"] is not None
            self._count("deletable now", d["deletable_disk_bytes"] if known
                        else d["deletable_bytes"])
            for k, v in (d["held_disk"] if known else d["held"]).items():
                self._count(k, v)
        elif t == "retention_held_dir":
            self._keep(self.held_dirs, d)
            self._count(d["held_by"], d["bytes"] if d["disk_bytes"] is None else d["disk_bytes"])
        elif t == "retention_disk":
            self.disks.append(d)
            left = d["leftover_bytes"] if d["disk_bytes"] is None else d["leftover_disk_bytes"]
            self._count("leftover files", sum(left.values()))

    def _keep(self, rows: list[dict[str, Any]], d: dict[str, Any]) -> None:
        if len(rows) < self.keep:
            rows.append(d)
        else:
            self.dropped += 1

    def _count(self, k: str, v: int) -> None:
        if v:
            self.by_reason[k] = self.by_reason.get(k, 0) + v

    @property
    def stray_bytes(self) -> int:
        """Bytes in -stray directories: kept by the broker, deleted by no release."""
        return self.by_reason.get("stray-replica", 0)

    @property
    def notable_bytes(self) -> int:
        return sum(v for k, v in self.by_reason.items() if k in NOTABLE_HOLDS)

    def chart(self) -> str:
        """Horizontal bars: bytes deletable now, then bytes held by each reason, largest
        first (every log dir's segments, on disk, and what lies outside them: renamed-aside
        partition directories by held_by, leftover files)."""
        if not self.by_reason:
            return ""
        from .charts import bar_chart

        now = self.by_reason.get("deletable now", 0)
        held = sorted(((k, v) for k, v in self.by_reason.items() if k != "deletable now"),
                      key=lambda kv: (-kv[1], kv[0]))
        return bar_chart("bytes", ([("deletable now", now)] if now else []) + held)
