"""Options shared by several subcommands, and the loop that feeds a renderer."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO, TypeVar

import click

from .exitcodes import ExitCode

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("text", "json", "table")
_SIZE = re.compile(r"^\s*(\d+)\s*([kKmMgG]?)(i?[bB])?\s*$")


def parse_size(value: str | int | None) -> int | None:
    """``1048576``, ``64M``, ``1GiB`` -> bytes."""
    if value is None or isinstance(value, int):
        return value
    m = _SIZE.match(value)
    if not m:
        raise click.BadParameter(f"{value!r} is not a size (e.g. 1048576, 64M, 1G)")
    n = int(m.group(1))
    return n << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]


class SizeType(click.ParamType):
    name = "SIZE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int):
            return value
        try:
            return parse_size(value)
        except click.BadParameter as e:
            self.fail(e.message, param, ctx)


SIZE = SizeType()


def format_option(default_text: bool = False) -> Callable[[F], F]:
    help_default = (
        "text" if default_text
        else "table on a terminal, text otherwise"
    )
    return click.option(
        "--format", "fmt", type=click.Choice(FORMATS), default=None,
        help=f"Output: text, json (JSON Lines) or table (rich).  Default: {help_default}; "
        "the KDUMP_FORMAT environment variable overrides the default.",
    )


def payload_encoding_option(f: F) -> F:
    return click.option(
        "--payload-encoding", type=click.Choice(["utf8", "base64", "hex"]), default="utf8",
        show_default=True,
        help="How --format json writes keys, values and header values.  utf8 writes valid "
        "UTF-8 as is and anything else as base64, saying which in key_encoding/"
        "value_encoding (null stays null).",
    )(f)


def max_batch_bytes_option(f: F) -> F:
    return click.option(
        "--max-batch-bytes", type=SIZE, default="16M", show_default=True,
        help="Most bytes one batch may take, decompressed (or as stored, uncompressed); "
        "a larger one is reported (batch-too-large) and its records skipped, so neither a "
        "decompression bomb nor a huge batch can exhaust memory (at the default, peak RSS "
        "stays under 300 MB whatever the input; printing records costs up to about five "
        "times this bound).",
    )(f)


def resolve_format(fmt: str | None, *, default_text: bool = False) -> str:
    if fmt:
        return fmt
    env = os.environ.get("KDUMP_FORMAT", "").strip().lower()
    if env in FORMATS:
        return env
    if default_text:
        return "text"
    return "table" if sys.stdout.isatty() else "text"


def rows_renderer(fmt: str | None, *, table: str, text: str) -> object:
    """JSON Lines, or the ``table``/``text`` renderer class of :mod:`kdump.render.rows`
    (named, so the module is imported only when used)."""
    f = resolve_format(fmt)
    if f == "json":
        from ..render.jsonl import JsonRenderer

        return JsonRenderer(stdout())
    from ..render import rows

    cls = getattr(rows, table if f == "table" else text)
    return cls(stdout(), stderr())


def run(items: Iterable[object], renderer: Any, *, progress: Iterable[str] = (),
        label: str = "kdump") -> ExitCode:
    """Feed ``items`` to ``renderer``; the exit code follows from the problems seen.
    ``progress``: the input paths, for a progress bar on stderr during long runs."""
    from ..findings import Problem
    from .progress import ProgressBar

    io_error = problems = False
    try:
        with ProgressBar(progress, label):
            for item in items:
                renderer.emit(item)
                if isinstance(item, Problem):
                    if item.kind == "unreadable-file" and item.severity == "error":
                        io_error = True
                    elif item.is_failure:
                        problems = True
    except BrokenPipeError:
        raise  # the reader went away (``| head``): no closing summaries on stderr
    except BaseException:
        renderer.close()
        raise
    renderer.close()
    if io_error:
        return ExitCode.ERROR
    return ExitCode.PROBLEMS if problems else ExitCode.OK


def stdout() -> TextIO:
    return sys.stdout


def stderr() -> TextIO:
    return sys.stderr


def jobs_option(f: F) -> F:
    """``--jobs N``: files processed in N worker processes (output identical for any N)."""
    return click.option(
        "--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
        help="Process files in N worker processes; the output is the same for any N "
        "(results come in the walk's order).  Default: the number of cores.",
    )(f)


def resolve_jobs(jobs: int | None) -> int:
    if jobs is not None:
        return jobs
    from ..parallel import default_jobs

    return default_jobs()
