"""``kdump repair``."""

from __future__ import annotations

from typing import Any

import click

from . import cli
from .exitcodes import ExitCode
from .options import SIZE, format_option, max_batch_bytes_option, renderer, run


@cli.command("repair")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--into", "into", required=True, type=click.Path(file_okay=False),
              help="Where the copy goes: an absent or empty directory outside every input. "
              "One log dir alone is copied as DIR itself; otherwise each log dir goes to "
              "DIR/<broker-N or its name> and each partition to DIR/<its directory name>.")
@click.option("--dry-run", is_flag=True,
              help="Read everything and print the manifest (what would be kept, dropped and "
              "written, with the SHA-256 of every file it would write); write nothing.")
@click.option("--index-interval-bytes", type=SIZE, default=None,
              help="The topics' index.interval.bytes for the rebuilt indexes.  Default: "
              "inferred per partition from its .index files (the value that reproduces "
              "them), else Kafka's 4096.")
@format_option()
@max_batch_bytes_option
def repair_command(paths: tuple[str, ...], into: str, dry_run: bool,
                   index_interval_bytes: int | None, fmt: str | None,
                   max_batch_bytes: int) -> ExitCode:
    """Copy damaged partitions or log dirs into DIR so that a broker loads them, keeping
    every intact batch byte for byte, also past the damage.

    PATHS are partition directories or log dirs; they are only read, never written.
    Every batch whose framing and checksum hold is copied as it is (no re-encoding), in
    offset order, gaps kept; damaged stretches are left out and named (file, byte,
    length, offsets, why), and reading resumes at the next intact batch.  Indexes and
    leader-epoch-checkpoint are rebuilt, the log dir's checkpoints set to the copy's
    offsets, no .kafka_cleanshutdown written (the broker re-checks the copy's last
    segments and rebuilds producer state).  The manifest (--format json: JSON Lines;
    also DIR/kdump-repair-manifest.jsonl, written last: its presence marks a complete
    copy) lists every input's SHA-256 before and after, every output's SHA-256, every
    region dropped, and what Kafka's own recovery would have truncated instead.
    Records under a bad checksum cannot be recovered.  Exit 0 when nothing had to be
    dropped, 1 when damage was found and repaired around, 2 on a usage or I/O error
    (the partial copy removed).
    """
    from ..ops.repair import Repair, RepairOptions

    opts = RepairOptions(into=into, dry_run=dry_run, max_batch_bytes=max_batch_bytes,
                         index_interval_bytes=index_interval_bytes)
    job = Repair(list(paths), opts)
    ended: list[dict[str, Any]] = []

    def items() -> Any:
        for obj in job:
            if obj.get("type") == "repair_end":
                ended.append(obj)
            yield obj

    try:
        code = run(items(), renderer("repair", fmt), progress=paths, label="repair")
    finally:
        job.close()
    if code != ExitCode.OK:
        return code
    return ExitCode.OK if ended and ended[-1]["clean"] else ExitCode.PROBLEMS
