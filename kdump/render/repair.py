"""``kdump repair --format text``: what was kept and dropped, for people.

A block per partition: its line (kept, dropped), what Kafka's recovery would have lost
instead, a line per dropped region and per file left out, the notes; then the files of
the log dirs themselves that were left out, the inputs' custody and the end.  The op
names a partition's drops before its totals: they are held until its line, each by the
directory its file is in, so each stands under the partition (the broker's: its log
dir) it belongs to, and a log dir's own file (``.lock``) under its log dir, never under
a partition that happened to come next.  Files copied or rebuilt are counted, not
listed (``--format json`` lists them all, with their SHA-256).  Paths and details quote
the data: written through :class:`kdump.textsafe.InertLines`.
"""

from __future__ import annotations

import os
from typing import Any, TextIO

from .. import fs as kfs
from .common import plural
from .rows import ObjectRenderer


def _offsets(pair: list[int | None] | None) -> str:
    if not pair:
        return ""
    first, last = pair
    if last is None:
        return f"; offsets from {first} on missing"
    return f"; offset {first} missing" if first == last else f"; offsets {first}-{last} missing"


def _fill_line(d: dict[str, Any]) -> str:
    who = f"broker {d['replica_broker_id']} ({d['replica_log_dir']})"
    if not d["filled"]:
        return f"  not filled: offsets {d['first_offset']}-{d['last_offset']} from {who}: {d['detail']}\n"
    first, last = d["filled_offsets"]
    where = ", ".join(f"{s['file']} byte {s['position']} ({plural(s['length'], 'byte')})"
                      for s in d["sources"])
    return (f"  filled offsets {first}-{last} from {who}: "
            f"{plural(d['batches'], 'batch', 'batches')} byte for byte from {where}, into "
            f"{d['output']}\n")


class RepairTextRenderer(ObjectRenderer):
    def __init__(self, out: TextIO, err: TextIO) -> None:
        super().__init__(out, err)
        self.outputs = 0
        self.changed: list[str] = []
        #: lines held until their partition's line comes, by the directory of their file
        #: (a partition directory, or a log dir for its own files), in arrival order
        self.pending: dict[str, list[str]] = {}

    def row(self, d: dict[str, Any]) -> None:
        kind = d.get("type")
        w = self.out.write
        if kind == "repair":
            what = "dry run: nothing is written" if d["dry_run"] else f"into {d['into']}"
            w(f"repair of {', '.join(d['inputs'])} ({what})\n")
        elif kind == "repair_dropped":
            offs = ""
            if d["first_offset"] is not None:
                offs = f" (header offsets {d['first_offset']}" + (
                    f"-{d['last_offset']})" if d["last_offset"] is not None else ")")
            sev = "" if d["severity"] == "error" else f" [{d['severity']}]"
            self._hold(d["file"],
                f"  dropped {d['file']}: position {d['position']}, "
                f"{plural(d['length'], 'byte')}: {d['reason']}{sev}: {d['detail']}{offs}"
                f"{_offsets(d['missing_offsets'])}\n")
        elif kind == "repair_fill":
            part = (os.path.join(d["log_dir"], f"{d['topic']}-{d['partition']}")
                    if d["log_dir"] else None)
            self.pending.setdefault(_norm(part) if part else "", []).append(_fill_line(d))
        elif kind == "repair_file":
            if d["output"] is not None:
                self.outputs += 1
            else:
                self._hold(d["file"], f"  left out {d['file']}: {d['detail']}\n")
        elif kind == "repair_partition":
            self._partition(d)
        elif kind == "repair_absent":
            self._absent(d)
        elif kind == "repair_input":
            self._flush("files of the log dir")
            if not d["unchanged"]:
                self.changed.append(d["file"])
        elif kind == "repair_end":
            self._flush("files of the log dir")
            self._end(d)

    def _hold(self, file: str | None, line: str) -> None:
        self.pending.setdefault(_dir_of(file), []).append(line)

    def _flush(self, heading: str) -> None:
        """What is still held: the log dirs' own files (and any whose partition never
        came), under one heading per directory."""
        for where, lines in self.pending.items():
            self.out.write(f"{heading} {where}:\n" if where else f"{heading}:\n")
            self.out.writelines(lines)
        self.pending.clear()

    def _partition(self, d: dict[str, Any]) -> None:
        w = self.out.write
        where = f" ({d['log_dir']})" if d["log_dir"] else ""
        target = "nothing written" if d["output"] is None else (d["output"] or ".")
        w(f"{d['topic']}-{d['partition']}{where} -> {target}: kept "
          f"{plural(d['batches'], 'batch', 'batches')} ({plural(d['records'], 'record')}, "
          f"{plural(d['bytes'], 'byte')}) in {plural(d['segments'], 'segment')}, log end offset "
          f"{d['log_end_offset']}")
        if d["regions_dropped"]:
            w(f"; dropped {plural(d['regions_dropped'], 'region')} "
              f"({plural(d['bytes_dropped'], 'byte')})")
        w("\n")
        k = d["kafka"]
        if k["bytes_removed"] or k["intact_batches_lost"]:
            w(f"  Kafka's own recovery, {k['recovery']}, would remove "
              f"{plural(k['bytes_removed'], 'byte')}, losing "
              f"{plural(k['intact_batches_lost'], 'intact batch', 'intact batches')} "
              f"({plural(k['intact_records_lost'], 'record')}); log end offset "
              f"{k['log_end_offset']}\n")
        if d.get("reserved_offsets"):
            first, last = d["reserved_offsets"]
            w(f"  reserved offsets {first}-{last}: next offset {last + 1}, proved written by "
              f"{'; '.join(d['witnesses'])}\n")
        self.out.writelines(self.pending.pop(_norm(d["input"]), []))
        if d.get("lost_offsets"):
            ranges = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in d["lost_offsets"])
            w(f"  data lost: offsets {ranges} (written, and in no batch of the copy)\n")
        for note in dict.fromkeys(d["notes"]):  # each note once
            w(f"  {note}\n")

    def _absent(self, d: dict[str, Any]) -> None:
        """A replica assigned here with no directory: the verdict's words, then what the
        copy does about it."""
        w = self.out.write
        sev = "" if d["severity"] == "error" else f" [{d['severity']}]"
        target = "no directory" if d["output"] is None else d["output"]
        w(f"{d['topic']}-{d['partition']} ({d['log_dir']}) -> {target}: {d['kind']}{sev}: "
          f"{d['detail']}\n")
        if d["lost_offsets"]:
            ranges = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in d["lost_offsets"])
            w(f"  data lost: offsets {ranges} (written on this replica, and in no batch of the "
              "copy)\n")
        for note in d["notes"]:
            w(f"  {note}\n")

    def _end(self, d: dict[str, Any]) -> None:
        w = self.out.write
        inputs = (f"{plural(d['inputs'], 'input file')} unchanged (SHA-256, size and mtime)"
                  if d["inputs_unchanged"] else
                  f"INPUTS CHANGED during the run: {', '.join(self.changed)}")
        w(f"{inputs}\n")
        if d["dry_run"]:
            w(f"dry run: {plural(self.outputs, 'file')} would be written; nothing was\n")
        else:
            w(f"{plural(d['outputs'], 'file')} written; manifest: {d['into']}/{d['manifest']}\n")
        w(f"{plural(d['partitions'], 'partition')}, "
          f"{plural(d['damaged_partitions'], 'damaged partition')}: kept "
          f"{plural(d['batches'], 'batch', 'batches')} ({plural(d['records'], 'record')}), "
          f"dropped {plural(d['regions_dropped'], 'region')} "
          f"({plural(d['bytes_dropped'], 'byte')}); saved from Kafka's recovery: "
          f"{plural(d['saved_batches'], 'batch', 'batches')} "
          f"({plural(d['saved_records'], 'record')}, {plural(d['saved_bytes'], 'byte')})"
          + (f"; {plural(d['absent_replicas'], 'replica')} assigned here and absent"
             if d.get("absent_replicas") else "") + "\n")


def _norm(path: str) -> str:
    return path.rstrip("/") if kfs.is_url(path) else os.path.normpath(path or ".")


def _dir_of(path: str | None) -> str:
    """The directory holding ``path`` (as the op names it), normalised."""
    return _norm(kfs.dirname(path)) if path else ""


__all__ = ["RepairTextRenderer"]
