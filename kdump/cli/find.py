"""``kdump find-offset``, ``kdump find-time`` and ``kdump size-report``."""

from __future__ import annotations

import click

from . import cli
from .exitcodes import ExitCode
from .options import (
    format_option,
    jobs_option,
    max_batch_bytes_option,
    payload_encoding_option,
    resolve_format,
    resolve_jobs,
    rows_renderer,
    run,
    stderr,
    stdout,
)


def _find_renderer(fmt: str | None, print_data_log: bool, payload_encoding: str) -> object:
    fmt = resolve_format(fmt)
    if fmt == "json":
        from ..render.jsonl import FindJsonRenderer

        return FindJsonRenderer(stdout(), payload_encoding=payload_encoding,
                                print_data_log=print_data_log)
    from ..decoders import KeyValueDecoder
    from ..render.rows import FindTextRenderer

    # table: the same name/value lines (one answer needs no grid)
    return FindTextRenderer(stdout(), stderr(), print_data_log=print_data_log,
                            decoder=KeyValueDecoder() if print_data_log else None)


def _answer(result: object, renderer: object) -> ExitCode:
    code = run([result], renderer)
    if code != ExitCode.OK:
        return code
    return ExitCode.OK if getattr(result, "found", False) else ExitCode.PROBLEMS


@cli.command("find-offset")
@click.argument("path", type=click.Path())
@click.argument("offset", type=int)
@click.option("--print-data-log", is_flag=True, help="Print the record's key and payload.")
@format_option()
@payload_encoding_option
@max_batch_bytes_option
def find_offset_command(path: str, offset: int, print_data_log: bool, fmt: str | None,
                        payload_encoding: str, max_batch_bytes: int) -> ExitCode:
    """Where is OFFSET?  PATH is a partition directory or one .log segment.

    Picks the segment by base offset from the file names, looks the offset up in the
    segment's .index and scans forward from there only (a whole-segment scan when the
    index is missing or damaged, and it says so).  Prints the file, the position of the
    batch holding the offset, the batch and record, how it was found and the bytes
    read.  Exit 1 when the offset is below the log start, above its end or in a gap,
    naming the nearest offsets that exist.
    """
    from ..ops.find import find_offset

    result = find_offset(path, offset, deep=True, max_batch_bytes=max_batch_bytes)
    return _answer(result, _find_renderer(fmt, print_data_log, payload_encoding))


@cli.command("find-time")
@click.argument("path", type=click.Path())
@click.argument("timestamp")
@click.option("--print-data-log", is_flag=True, help="Print the record's key and payload.")
@format_option()
@payload_encoding_option
@max_batch_bytes_option
def find_time_command(path: str, timestamp: str, print_data_log: bool, fmt: str | None,
                      payload_encoding: str, max_batch_bytes: int) -> ExitCode:
    """The earliest offset whose timestamp is at or after TIMESTAMP.

    TIMESTAMP is epoch milliseconds or ISO-8601 (2024-05-01T09:14:00Z; +02:00 offsets
    allowed; no offset means UTC).  Same semantics as the broker's ListOffsets by
    timestamp: the .timeindex gives the starting point, batches whose max timestamp is
    below the target are skipped, and the first record at or after it wins.  Records of
    LogAppendTime batches carry the broker's append time; magic 0 data has no timestamps
    and never matches.  Exit 1 when no record is that late.
    """
    from ..ops.find import find_time, parse_timestamp

    result = find_time(path, parse_timestamp(timestamp), max_batch_bytes=max_batch_bytes)
    return _answer(result, _find_renderer(fmt, print_data_log, payload_encoding))


@cli.command("size-report")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--by", type=click.Choice(["topic", "partition", "segment"]), default="partition",
              show_default=True, help="One row per topic, partition or segment.")
@click.option("--top", type=click.IntRange(min=0), default=None,
              help="Only the N largest rows, largest first.")
@click.option("--shallow", is_flag=True,
              help="Batch headers only: no decompression, no per-record sizes (as fast as "
              "reading the headers allows).")
@format_option()
@max_batch_bytes_option
@jobs_option
def size_report_command(paths: tuple[str, ...], by: str, top: int | None, shallow: bool,
                        fmt: str | None, max_batch_bytes: int, jobs: int | None) -> ExitCode:
    """What takes the space: bytes, batches, records, payload vs format overhead,
    compression per codec, offsets, times, producers, indexes.

    Batches are counted as Kafka's FileRecords counts them (an uncompressed v0/v1
    message is one batch).  Rows come sorted by name, or largest first with --top;
    a total closes the report.
    """
    from ..ops.size_report import SizeOptions, size_report

    opts = SizeOptions(by=by, top=top, deep=not shallow, max_batch_bytes=max_batch_bytes)
    renderer = rows_renderer(fmt, table="SizeTableRenderer", text="SizeTextRenderer")
    return run(size_report(paths, opts, resolve_jobs(jobs)), renderer, progress=paths,
               label="size-report")
