"""``kdump report``."""

from __future__ import annotations

import sys

import click

from .exitcodes import ExitCode
from .options import (
    cleanup_policy_option,
    jobs_option,
    kafka_version_option,
    max_batch_bytes_option,
    renderer,
    resolve_jobs,
    run,
)


@click.command("report")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="The HTML file to write (required unless --format json).  Written under a "
              "temporary name in its directory and renamed when complete; never inside an "
              "input.")
@click.option("--format", "fmt", type=click.Choice(["html", "json"]), default="html",
              show_default=True,
              help="html: one self-contained page (--output); json: the report's objects as "
              "JSON Lines on stdout, the same objects the page shows.")
@click.option("--top", type=click.IntRange(min=1), default=20, show_default=True,
              help="Rows shown per table before the rest is folded away (one click to open).")
@cleanup_policy_option
@max_batch_bytes_option
@jobs_option
@kafka_version_option
def report_command(paths: tuple[str, ...], output: str | None, fmt: str, top: int,
                   overrides: tuple[str, ...], max_batch_bytes: int, jobs: int | None,
                   kafka_version: str | None) -> ExitCode:
    """One incident report over PATHS: a self-contained HTML page that opens offline.

    Chain of custody first (kdump's version, the command line, start and end time in UTC,
    and the size, modification time and SHA-256 of every file found); the KRaft metadata
    image and its history when a __cluster_metadata log is present (brokers with their
    cordoned log dirs, partitions with ELR and last-known ELR, ClearElr in the history);
    per log dir and
    partition the log start and end offsets, bytes, records, timestamps and segments,
    with charts of bytes per topic and broker and records over time; replicas compared
    where several log dirs hold a partition; every finding of verify-crc and
    verify-index with its file and byte position; consumer groups and lag, by group type
    (classic, consumer, streams, share), with members and assignments, share-partitions
    and streams topologies; open and hanging transactions; the schema registry's
    subjects (versions, ids, types, soft- and hard-deleted, references, records per id
    and per topic) when a _schemas partition is among or beside PATHS.  A cluster copied
    after it was stopped (every registered broker fenced) is said to be stopped, as
    information, with the partitions its stop left without a leader; the "At a glance"
    box, the Errors and Warnings cards and the findings list count one list.  The page needs
    no network and no JavaScript (tables and charts are in the HTML; a small inline
    script adds sorting and filtering), and prints well.  Exit 1 when anything is wrong,
    2 for usage or I/O errors.
    """
    from ..errors import UsageError
    from ..ops.report import PASSES, ReportOptions, check_output, report
    from ..ops.verdict import check_overrides

    check_overrides(overrides)  # a bad --config: exit 2 before anything is read
    if fmt == "html":
        if not output:
            raise click.UsageError("--output FILE is required for the HTML report "
                                   "(or give --format json)")
        try:
            check_output(list(paths), output)
        except UsageError as e:
            raise click.UsageError(str(e)) from None
    elif output:
        raise click.UsageError("--output is for the HTML report; --format json writes to stdout")
    out = renderer("report", fmt, output=output, top=top)
    opts = ReportOptions(max_batch_bytes=max_batch_bytes, jobs=resolve_jobs(jobs),
                         argv=("kdump", *sys.argv[1:]) if sys.argv else (),
                         kafka_version=kafka_version, overrides=overrides)
    return run(report(paths, opts), out, progress=paths, label="report", passes=PASSES)
