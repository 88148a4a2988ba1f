"""``kdump verify-crc``."""

from __future__ import annotations

import click

from .exitcodes import ExitCode
from .options import (
    F,
    cleanup_policies,
    cleanup_policy_option,
    format_option,
    jobs_option,
    max_batch_bytes_option,
    renderer,
    resolve_jobs,
    run,
)


def verify_crc_options(f: F) -> F:
    """--shallow and --strict, shared by verify-crc and spark verify-crc."""
    f = click.option("--strict", is_flag=True,
                     help="Stop reading a log at the first damaged batch instead of "
                     "resynchronising.")(f)
    return click.option("--shallow", is_flag=True,
                        help="Check checksums, framing and batch offsets only; skip "
                        "decompression and record-level consistency checks.")(f)


@click.command("verify-crc")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@verify_crc_options
@cleanup_policy_option
@format_option()
@max_batch_bytes_option
@jobs_option
def verify_crc_command(paths: tuple[str, ...], shallow: bool, strict: bool,
                       overrides: tuple[str, ...], fmt: str | None,
                       max_batch_bytes: int, jobs: int | None) -> ExitCode:
    """Find every damaged batch in every log under PATHS, to the byte.

    Checks each batch's checksum (v2 CRC-32C; v0/v1 CRC-32 of each message, including
    those inside compressed wrappers), decompresses it, and checks its records against
    its header.  After a batch that cannot be framed, reading resumes at the next intact
    batch and the unreadable byte range is reported.  Offsets the partition's witnesses
    (high watermark, recovery point, index entries, snapshot and segment names...) prove
    written that no batch holds are data lost (data-lost).  Exit 1 when anything is
    wrong.
    """
    from ..ops.verify_crc import VerifyOptions, verify_crc

    opts = VerifyOptions(deep=not shallow, max_batch_bytes=max_batch_bytes, resync=not strict,
                         policies=cleanup_policies(paths, overrides, max_batch_bytes))
    return run(verify_crc(paths, opts, resolve_jobs(jobs)), renderer("findings", fmt), progress=paths,
               label="verify-crc")
