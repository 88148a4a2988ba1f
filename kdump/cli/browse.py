"""``kdump browse``: the interactive view (the ``kdump[tui]`` extra, Textual)."""

from __future__ import annotations

import os
import sys

import click

from .exitcodes import ExitCode
from .options import cleanup_policy_option, max_batch_bytes_option

INSTALL_HINT = ("kdump browse needs Textual: pip install 'kdump[tui]'")


@click.command("browse")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--no-check", is_flag=True,
              help="Do not read each partition in the background to count its records and "
                   "findings (verify-crc and verify-index; n/N still reads the partition "
                   "it is pressed in).")
@cleanup_policy_option
@max_batch_bytes_option
def browse_command(paths: tuple[str, ...], no_check: bool, overrides: tuple[str, ...],
                   max_batch_bytes: int) -> ExitCode:
    """Explore log dirs interactively, from a partition down to the damaged byte.

    A tree of the log dirs under PATHS (broker id), their topics and partitions, each
    with its disk bytes, records and findings counted by severity; a partition's
    segments, its batches (damaged regions are rows of their own) and the records of
    the selected batch, decoded as dump decodes them; a batch's bytes with its header
    fields named and the first bad byte marked.  Read-only.

    \b
    Search and tools:
           /  (a partition) search keys, values, headers: text, re:REGEX, hex:BYTES
           n / N  next / previous match, once searched; Escape stops a search
           f  every finding of the partition or log dir, sortable; Enter jumps
           v  (a record) rendering: auto, text, JSON, hex, base64
           y  copy offset, key, value or position (OSC 52)
           r  re-read a live directory (sizes, new segments, findings)

    \b
    Keys:  /  filter the tree by name (Enter opens the first match)
           Enter  open a partition / a record in full / a segment's batches
           g  go to an offset      t  go to a time (ISO-8601 or epoch ms)
           n / N  next / previous finding (verify-crc, verify-index)
           x  the selected batch's bytes       Escape  back
           Home/gg  End/G  first / last batch    j/k  down / up
           e  errors/warnings only     s  sort by name, size, findings
           T  the partition's timeline (every replica given, the metadata
              log; Enter on a batch's event: that batch; Escape stops)
           ?  the keys                          q, Ctrl+C  quit

    End/G on a segment with no offset index entry near its end reads it in the
    background with a progress line (Escape stops); a partition the log dir's
    checkpoints name with no directory is a row of the tree with its data-lost finding.
    Each partition is judged as verify-crc judges it given the same PATHS and --config
    (the KRaft metadata among PATHS, cleaner-offset-checkpoint, Kafka's defaults).

    Needs the tui extra (pip install 'kdump[tui]') and a terminal; exit 0 when you
    quit, 2 (one line, the terminal restored) if it stops on an internal error.
    """
    try:
        import textual  # noqa: F401
    except ImportError:
        click.echo(f"kdump: {INSTALL_HINT}", err=True)
        return ExitCode.ERROR
    from ..ops.verdict import check_overrides

    check_overrides(overrides)  # a bad --config: exit 2, said before anything is drawn
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        click.echo("kdump: browse is interactive: it needs a terminal (for a listing, use "
                   "dump, verify-crc or report)", err=True)
        return ExitCode.ERROR
    missing = [p for p in paths if "://" not in p and not os.path.exists(p)]
    if missing:
        click.echo(f"kdump: {missing[0]}: no such file or directory", err=True)
        return ExitCode.ERROR
    from ..tui.app import BrowseApp

    try:
        app = BrowseApp(paths, max_batch_bytes=max_batch_bytes, check=not no_check,
                        overrides=overrides)
        app.run()
    except Exception as e:  # the terminal could not be driven, the tree not walked
        click.echo(f"kdump: browse: {type(e).__name__}: {e}".splitlines()[0], err=True)
        return ExitCode.ERROR
    # 0 only when the user quit (q, Ctrl+C); an internal error has printed its one line
    return ExitCode.OK if app.return_code == 0 else ExitCode.ERROR
