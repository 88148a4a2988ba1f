"""``kdump verify-index``."""

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
)


@click.command("verify-index")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--sanity-only", is_flag=True,
              help="Only the checks the broker runs at startup (sizes, last entries, txn index "
              "offsets, snapshot CRCs); the logs are not read.")
@click.option("--rebuild-into", type=click.Path(file_okay=False), default=None,
              help="Write the .index, .timeindex and .txnindex files Kafka would rebuild into "
              "DIR/<log dir>/<partition>/ (one subdirectory per input log dir: broker-<id> or the "
              "log dir's name; never in or through an input, never replacing a file without "
              "--force) and report how they differ from those on disk.")
@click.option("--force", is_flag=True,
              help="With --rebuild-into: replace index files already in DIR (never an input).")
@click.option("--index-interval-bytes", type=click.IntRange(min=0), default=4096, show_default=True,
              help="The topic's index.interval.bytes, for rebuilding.")
@click.option("--strict", is_flag=True,
              help="Stop reading a log at the first damaged batch instead of resynchronising.")
@cleanup_policy_option
@format_option()
@max_batch_bytes_option
@jobs_option
def verify_index_command(paths: tuple[str, ...], sanity_only: bool, rebuild_into: str | None,
                         force: bool, index_interval_bytes: int, strict: bool,
                         overrides: tuple[str, ...], fmt: str | None,
                         max_batch_bytes: int, jobs: int | None) -> ExitCode:
    """Check indexes, snapshots and checkpoints against the logs.

    Offset and time indexes entry by entry against the batches (as DumpLogSegments
    --verify-index-only does) plus the broker's sanity checks; .txnindex against the
    transaction markers; producer snapshots against each producer's last batch;
    leader-epoch-checkpoint against the batches' leader epochs; the log dir's
    checkpoint files against the partitions that exist.  Exit 1 when anything is wrong.
    """
    from ..ops.verify_index import VerifyIndexOptions, verify_index

    if rebuild_into:
        from ..ops.rebuild import plan_rebuild

        # every target checked against every input before anything is written
        plan_rebuild(list(paths), rebuild_into, force=force)
    elif force:
        raise click.UsageError("--force only applies to --rebuild-into")
    opts = VerifyIndexOptions(sanity_only=sanity_only, rebuild_into=rebuild_into,
                              index_interval_bytes=index_interval_bytes,
                              max_batch_bytes=max_batch_bytes, strict=strict,
                              policies=cleanup_policies(paths, overrides, max_batch_bytes))
    return run(verify_index(paths, opts, resolve_jobs(jobs)), renderer("findings", fmt), progress=paths,
               label="verify-index")
