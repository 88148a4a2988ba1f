"""``dump --format json --jobs N``: each file dumped and rendered to JSON Lines in a worker
process, spooled to a temporary file, and copied to the output in the walk's order.

A worker keeps one batch in memory, as a serial dump does; its text goes to a spool file
(``0600``) under a private temporary directory (:mod:`kdump.tempfiles`: ``$TMPDIR``,
never inside the inputs), removed on success, error and Ctrl-C.  The
problems a file has are sent back as objects, in their place between stretches of
spooled text, so the exit code and the closing summary see them as with ``--jobs 1``;
the output is the same, byte for byte.
"""

from __future__ import annotations

import codecs
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any, TextIO

from ..files.logdir import KafkaFile, walk
from ..findings import Problem
from ..ops.dump import DumpOptions, dump_file
from ..parallel import ordered_map
from ..tempfiles import private_dir, protect, remove
from .jsonl import JsonRenderer

_COPY = 1 << 20


@dataclass(frozen=True, slots=True)
class Spooled:
    """Text at ``[start, end)`` of a spool file; ``last``: the file can go after it."""

    path: str
    start: int
    end: int
    last: bool


class _Tell:
    """A text sink that counts the bytes written (UTF-8) into a binary file."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh
        self.pos = 0

    def write(self, text: str) -> int:
        data = text.encode("utf-8", "surrogateescape")
        self.fh.write(data)
        self.pos += len(data)
        return len(text)


def _dump_one(opts: DumpOptions, encoding: str, spool_dir: str, f: KafkaFile
              ) -> list[Spooled | Problem]:
    """One file dumped (a worker's unit of work)."""
    fd, path = tempfile.mkstemp(dir=spool_dir, suffix=".jsonl")
    pieces: list[Spooled | Problem] = []
    with os.fdopen(fd, "wb") as fh:
        sink = _Tell(fh)
        renderer = JsonRenderer(sink, payload_encoding=encoding)  # type: ignore[arg-type]
        start = 0
        for ev in dump_file(f, opts):
            if isinstance(ev, Problem):
                if sink.pos > start:
                    pieces.append(Spooled(path, start, sink.pos, False))
                    start = sink.pos
                pieces.append(ev)
                continue
            renderer.emit(ev)
    pieces.append(Spooled(path, start, sink.pos, True))
    return pieces


def dump_json_parallel(paths: Iterable[str], opts: DumpOptions, encoding: str, jobs: int
                       ) -> Iterator[object]:
    """The items for :class:`SpoolRenderer`, in the order a serial dump yields them."""
    paths = list(paths)
    for p in paths:
        protect(p)  # the spool directory is made before the walk names the inputs
    spool_dir = private_dir("kdump-spool-")
    try:
        work = partial(_dump_one, opts, encoding, spool_dir)
        # one file only: dumped here, streaming, with no spool (``| head`` stops it early)
        here = partial(_dump_here, opts)
        for item in ordered_map(work, walk(paths, verbose=opts.verbose), jobs, _is_file, inline=here):
            if isinstance(item, (list, _Here)):
                yield from item
            else:
                yield item
    finally:
        remove(spool_dir)


class _Here:
    """A file's events, dumped in this process."""

    def __init__(self, events: Iterator[object]) -> None:
        self.events = events

    def __iter__(self) -> Iterator[object]:
        return self.events


def _dump_here(opts: DumpOptions, f: KafkaFile) -> _Here:
    return _Here(iter(dump_file(f, opts)))


def _is_file(item: object) -> bool:
    return isinstance(item, KafkaFile)


class SpoolRenderer(JsonRenderer):
    """A :class:`JsonRenderer` that also copies spooled text to its output."""

    def __init__(self, out: TextIO, *, payload_encoding: str = "utf8") -> None:
        super().__init__(out, payload_encoding=payload_encoding)

    def emit(self, item: object) -> None:
        if not isinstance(item, Spooled):
            super().emit(item)
            return
        decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        with open(item.path, "rb") as fh:
            fh.seek(item.start)
            left = item.end - item.start
            while left > 0:
                data = fh.read(min(_COPY, left))
                if not data:
                    break
                left -= len(data)
                self.out.write(decoder.decode(data))
            self.out.write(decoder.decode(b"", final=True))
        if item.last:
            os.unlink(item.path)


__all__ = ["SpoolRenderer", "Spooled", "dump_json_parallel"]
