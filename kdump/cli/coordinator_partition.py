"""``kdump coordinator-partition``."""

from __future__ import annotations

import click

from .exitcodes import ExitCode
from .options import format_option, renderer, run


@click.command("coordinator-partition")
@click.argument("ids", nargs=-1, required=True, metavar="GROUP_OR_TXN_ID...")
@click.option("--partitions", type=click.IntRange(min=1), default=50, show_default=True,
              help="offsets.topic.num.partitions (or transaction.state.log.num.partitions).")
@format_option()
def coordinator_partition_command(ids: tuple[str, ...], partitions: int,
                                  fmt: str | None) -> ExitCode:
    """Which __consumer_offsets / __transaction_state partition holds a consumer group
    or transactional id: abs(Java String.hashCode) modulo the partition count, as the
    group and transaction coordinators compute it, so the right directory can be
    dumped."""
    from ..decoders.consumer_offsets import coordinator_rows

    return run(coordinator_rows(ids, partitions), renderer("coordinator-partition", fmt))
