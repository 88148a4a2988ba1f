"""``kdump timeline --summary``: the events counted per minute and kind, exactly, in
bounded memory.

An event can come after a later one (``late``: its source's times went back by more
than the reorder heap holds), so no minute is known to be complete before the stream
ends: counts written as the stream went would give a minute's kind a second row.  The
counts are held instead, one per (minute, kind) seen; past ``SUMMARY_KEYS`` of them they
are written, sorted, to a private spill file (:mod:`kdump.tempfiles`) and forgotten, and
at the end the spills and what is held are merged in (minute, kind) order, equal keys
added: each (minute, kind) once, whatever the lateness, and memory is ``SUMMARY_KEYS``
counts plus one line per spill.  Most runs never spill (a day of 60 kinds is 86,400
keys at most, and a busy cluster's events fall in far fewer).
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterator

from ... import tempfiles

#: (minute, kind) counts held before they are spilled, sorted, to a file
SUMMARY_KEYS = 100_000


class MinuteCounts:
    """Events counted per (minute, kind); iterate once, at the end, for the counts in
    order (the spills are then removed)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = SUMMARY_KEYS if limit is None else limit
        self.counts: dict[tuple[int, str], int] = {}
        #: the spill files, each sorted
        self.runs: list[str] = []
        self._dir: str | None = None

    def add(self, minute: int, kind: str) -> None:
        counts = self.counts
        key = (minute, kind)
        counts[key] = counts.get(key, 0) + 1
        if len(counts) > self.limit:
            self._spill()

    def _spill(self) -> None:
        if self._dir is None:
            self._dir = tempfiles.private_dir("kdump-timeline-summary-")
        path = os.path.join(self._dir, f"{len(self.runs)}.tsv")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(f"{m}\t{k}\t{n}\n" for (m, k), n in sorted(self.counts.items()))
        self.runs.append(path)
        self.counts.clear()

    def __iter__(self) -> Iterator[tuple[int, str, int]]:
        """(minute, kind, count) in (minute, kind) order, each key once."""
        files = []
        try:
            for path in self.runs:
                files.append(open(path, encoding="utf-8"))
            held = sorted(self.counts.items())
            self.counts = {}
            merged = heapq.merge(held, *(_read(f) for f in files))
            last: tuple[int, str] | None = None
            total = 0
            for key, n in merged:
                if key != last:
                    if last is not None:
                        yield last[0], last[1], total
                    last, total = key, 0
                total += n
            if last is not None:
                yield last[0], last[1], total
        finally:
            for f in files:
                f.close()
            tempfiles.remove(self._dir)
            self._dir = None
            self.runs = []


def _read(f: object) -> Iterator[tuple[tuple[int, str], int]]:
    for line in f:  # type: ignore[attr-defined]
        minute, kind, n = line.rstrip("\n").split("\t")
        yield (int(minute), kind), int(n)
