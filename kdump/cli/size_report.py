"""``kdump size-report``."""

from __future__ import annotations

import click

from .exitcodes import ExitCode
from .options import (
    cleanup_policies,
    cleanup_policy_option,
    format_option,
    jobs_option,
    max_batch_bytes_option,
    renderer,
    resolve_jobs,
    run,
    top_option,
)


@click.command("size-report")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--by", type=click.Choice(["topic", "partition", "segment"]), default="partition",
              show_default=True, help="One row per topic, partition or segment.")
@top_option
@click.option("--shallow", is_flag=True,
              help="Batch headers only: no decompression, no per-record sizes (as fast as "
              "reading the headers allows).")
@cleanup_policy_option
@format_option()
@max_batch_bytes_option
@jobs_option
def size_report_command(paths: tuple[str, ...], by: str, top: int | None, shallow: bool,
                        overrides: tuple[str, ...], fmt: str | None, max_batch_bytes: int,
                        jobs: int | None) -> ExitCode:
    """What takes the space: bytes, batches, records, payload vs format overhead,
    compression per codec, offsets, times, producers, indexes.

    Batches are counted as Kafka's FileRecords counts them (an uncompressed v0/v1
    message is one batch).  Rows come sorted by name, or largest first with --top;
    a total closes the report.
    """
    from ..ops.size_report import SizeOptions, size_report

    opts = SizeOptions(by=by, top=top, deep=not shallow, max_batch_bytes=max_batch_bytes,
                       policies=cleanup_policies(paths, overrides, max_batch_bytes))
    return run(size_report(paths, opts, resolve_jobs(jobs)), renderer("size-report", fmt),
               progress=paths,
               label="size-report")
