"""``kdump coordinator-partition``."""

from __future__ import annotations

import click

from . import cli
from .exitcodes import ExitCode
from .options import format_option, resolve_format, stdout


@cli.command("coordinator-partition")
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
    from ..decoders.consumer_offsets import coordinator_partition, java_string_hashcode

    f = resolve_format(fmt)
    out = stdout()
    rows: list[dict[str, str | int]] = []
    for i in ids:
        p = coordinator_partition(i, partitions)
        rows.append({"type": "coordinator_partition", "id": i,
                     "hash_code": java_string_hashcode(i), "partitions": partitions,
                     "partition": p, "consumer_offsets_dir": f"__consumer_offsets-{p}",
                     "transaction_state_dir": f"__transaction_state-{p}"})
    if f == "json":
        from ..render.jsonl import JsonRenderer

        r = JsonRenderer(out)
        for row in rows:
            r.emit(row)
        r.close()
    elif f == "table":
        from rich.table import Table

        from ..render.table import make_console

        t = Table(title=f"coordinator partitions (of {partitions})", title_justify="left")
        for col in ("id", "hashCode", "partition", "directories"):
            t.add_column(col, overflow="fold")
        for row in rows:
            t.add_row(str(row["id"]), str(row["hash_code"]), str(row["partition"]),
                      f"{row['consumer_offsets_dir']}  {row['transaction_state_dir']}")
        make_console(out).print(t)
    else:
        for row in rows:
            out.write(f"{row['id']}\t{row['partition']}\t{row['consumer_offsets_dir']}\t"
                      f"{row['transaction_state_dir']}\n")
    return ExitCode.OK
