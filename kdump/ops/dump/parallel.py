"""``dump --jobs N`` with JSON output: each file dumped, and rendered by the caller's
renderer, in a worker process; the text spooled to a temporary file and given back in
the walk's order, so the output is the same as ``--jobs 1``'s, byte for byte.

The operation runs the walk, the pool (:func:`kdump.parallel.ordered_map`) and the spool
files; the caller says how a file's events become text (``render``: a picklable factory
of a renderer writing to a text stream, e.g. ``functools.partial(JsonRenderer,
payload_encoding="utf8")``), and renders what this operation yields: the events it
yields as a serial dump does, and :class:`Rendered` text, written as it is.

A worker keeps one batch in memory, as a serial dump does; its text goes to a spool file
(``0600``) under a private temporary directory (:mod:`kdump.tempfiles`: ``$TMPDIR``,
never inside the inputs), read back in chunks and removed as soon as it has been given
back, the directory removed on success, error and Ctrl-C.  The problems a file has come
back as objects, in their place between stretches of text, so the exit code and the
closing summary see them as with ``--jobs 1``.  One file only: dumped here, streaming,
with no spool (``| head`` stops it early).
"""

from __future__ import annotations

import codecs
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Protocol

from ...files.logdir import KafkaFile, walk
from ...findings import Problem
from ...parallel import ordered_map
from ...tempfiles import private_dir, protect
from ...tempfiles import remove as remove_dir
from ..verdict import LostTracker
from . import DumpOptions, dump_file

#: bytes of spooled text given back at a time
CHUNK = 1 << 20


class Emitter(Protocol):
    """What ``render`` makes: writes each item it is given (at once: it is not closed)."""

    def emit(self, item: object) -> None: ...


class TextSink(Protocol):
    def write(self, text: str) -> int: ...


#: a picklable callable making the renderer of one file's events on a text stream
RenderFile = Callable[[TextSink], Emitter]


@dataclass(frozen=True, slots=True)
class Rendered:
    """Text a worker's renderer wrote, in its place in the output: write it as it is."""

    text: str


@dataclass(frozen=True, slots=True)
class _Spooled:
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


def dump_parallel(paths: Iterable[str], opts: DumpOptions, jobs: int, render: RenderFile
                  ) -> Iterator[object]:
    """What :func:`kdump.ops.dump.dump` yields, in its order, with each file's events
    rendered by ``render`` in a worker as :class:`Rendered` text (its problems still
    objects, in their place)."""
    paths = list(paths)
    for p in paths:
        protect(p)  # the spool directory is made before the walk names the inputs
    if not opts.schema.roots:
        opts.schema.roots = tuple(paths)
    if opts.wants_registry:
        # as dump() does: what could not be read of the registry's storage, once, first
        # (read with a copy: each worker reads its own, as it does its decoders)
        yield from replace(opts.schema).problems(forced=opts.forced_schema)
    spool_dir = private_dir("kdump-spool-")
    try:
        work = partial(_dump_one, opts, render, spool_dir)
        here = partial(_dump_here, opts)
        for item in ordered_map(work, walk(paths, verbose=opts.verbose), jobs, _is_file,
                                inline=here):
            if isinstance(item, _Here):
                yield from item
            elif isinstance(item, list):
                for piece in item:
                    if isinstance(piece, _Spooled):
                        yield from _read_back(piece)
                    else:
                        yield piece
            else:
                yield item
        # as dump() ends: the partitions the log dirs' checkpoints name with no directory
        yield from LostTracker.for_log_dirs(paths, opts.max_batch_bytes).missing_partitions()
    finally:
        remove_dir(spool_dir)


def _dump_one(opts: DumpOptions, render: RenderFile, spool_dir: str, f: KafkaFile
              ) -> list[_Spooled | Problem]:
    """One file dumped and rendered into a spool file (a worker's unit of work)."""
    fd, path = tempfile.mkstemp(dir=spool_dir, suffix=".jsonl")
    pieces: list[_Spooled | Problem] = []
    with os.fdopen(fd, "wb") as fh:
        sink = _Tell(fh)
        renderer = render(sink)
        start = 0
        for ev in dump_file(f, opts):
            if isinstance(ev, Problem):
                if sink.pos > start:
                    pieces.append(_Spooled(path, start, sink.pos, False))
                    start = sink.pos
                pieces.append(ev)
                continue
            renderer.emit(ev)
    pieces.append(_Spooled(path, start, sink.pos, True))
    return pieces


def _read_back(piece: _Spooled) -> Iterator[Rendered]:
    """The text of ``piece``, in chunks; its spool file removed after its last piece."""
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    with open(piece.path, "rb") as fh:
        fh.seek(piece.start)
        left = piece.end - piece.start
        while left > 0:
            data = fh.read(min(CHUNK, left))
            if not data:
                break
            left -= len(data)
            text = decoder.decode(data)
            if text:
                yield Rendered(text)
        tail = decoder.decode(b"", final=True)
        if tail:
            yield Rendered(tail)
    if piece.last:
        os.unlink(piece.path)


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


__all__ = ["CHUNK", "Emitter", "RenderFile", "Rendered", "TextSink", "dump_parallel"]
