"""``kdump timeline``: what happened, when, across the whole cluster."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from .exitcodes import ExitCode
from .options import (
    format_option,
    kafka_version_option,
    max_batch_bytes_option,
    renderer,
    run,
)

F = TypeVar("F", bound=Callable[..., Any])

_DURATION = re.compile(r"^\s*(\d+)\s*(ms|s|m|h|d)?\s*$")
_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


class Duration(click.ParamType):
    """``10m``, ``30s``, ``2h``, ``500ms``, ``1d`` (a bare number: milliseconds)."""

    name = "DURATION"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> Any:
        if isinstance(value, int):
            return value
        m = _DURATION.match(str(value))
        if not m:
            self.fail(f"{value!r} is not a duration (e.g. 10m, 30s, 2h, 500ms)", param, ctx)
        return int(m.group(1)) * _UNITS[m.group(2) or "ms"]


def timeline_options(f: F) -> F:
    """The options ``kdump timeline`` and ``kdump spark timeline`` share (filters,
    --summary, --tz)."""
    for option in reversed([
        click.option("--from", "start", default=None, metavar="T",
                     help="Only events at or after T: epoch milliseconds or ISO-8601."),
        click.option("--to", "end", default=None, metavar="T",
                     help="Only events at or before T: epoch milliseconds or ISO-8601."),
        click.option("--around", default=None, metavar="T",
                     help="Only events within --window of T (epoch milliseconds or "
                     "ISO-8601)."),
        click.option("--window", type=Duration(), default="10m", show_default=True,
                     help="With --around: how far either side of T (10m, 30s, 2h, 500ms)."),
        click.option("--topic", "topics", multiple=True, metavar="TOPIC",
                     help="Only events about this topic (repeatable); other replicas are "
                     "not read."),
        click.option("--partition", "partitions", multiple=True, type=click.IntRange(min=0),
                     metavar="N", help="Only events about partition N (repeatable)."),
        click.option("--broker", "brokers", multiple=True, type=int, metavar="ID",
                     help="Only events about broker ID (a partition change naming it among "
                     "the replicas, ISR or leader included) or read from its log dirs "
                     "(repeatable)."),
        click.option("--group", "groups", multiple=True, metavar="GROUP",
                     help="Only events of this consumer group (repeatable)."),
        click.option("--kind", "kinds", multiple=True, metavar="KIND",
                     help="Only events of this kind (repeatable): a kind (broker-fenced) or "
                     "its family (broker, txn, group, epoch ...).  docs/timeline.md lists "
                     "them."),
        click.option("--summary", is_flag=True,
                     help="Count the events per kind per minute instead of listing them."),
        click.option("--tz", default=None, metavar="ZONE",
                     help="Write times in this IANA time zone (Europe/Paris) with its "
                     "offset; default UTC."),
    ]):
        f = option(f)
    return f


def timeline_opts(start: str | None, end: str | None, around: str | None, window: int,
                  topics: tuple[str, ...], partitions: tuple[int, ...],
                  brokers: tuple[int, ...], groups: tuple[str, ...], kinds: tuple[str, ...],
                  summary: bool, tz: str | None, max_batch_bytes: int,
                  kafka_version: str | None) -> Any:
    """The TimelineOptions the command line asks for (UsageError: it asks for the
    impossible)."""
    from ..errors import UsageError
    from ..ops.timeline import TimelineOptions
    from ..timestamps import parse_timestamp

    if around is not None and (start is not None or end is not None):
        raise UsageError("--around replaces --from and --to: give one or the other")
    lo = parse_timestamp(start, "--from") if start is not None else None
    hi = parse_timestamp(end, "--to") if end is not None else None
    if around is not None:
        t = parse_timestamp(around, "--around")
        lo, hi = t - window, t + window
    if tz is not None:
        from ..render.timeline import zone

        try:
            zone(tz)
        except (KeyError, ValueError, OSError):
            raise UsageError(f"--tz {tz!r} is not a time zone (e.g. UTC, Europe/Paris)") \
                from None
    return TimelineOptions(start=lo, end=hi, topics=topics, partitions=partitions,
                           brokers=brokers, groups=groups, kinds=kinds, summary=summary,
                           max_batch_bytes=max_batch_bytes, kafka_version=kafka_version)


@click.command("timeline")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@timeline_options
@format_option()
@max_batch_bytes_option
@kafka_version_option
def timeline_command(paths: tuple[str, ...], start: str | None, end: str | None,
                     around: str | None, window: int, topics: tuple[str, ...],
                     partitions: tuple[int, ...], brokers: tuple[int, ...],
                     groups: tuple[str, ...], kinds: tuple[str, ...], summary: bool,
                     tz: str | None, fmt: str | None, max_batch_bytes: int,
                     kafka_version: str | None) -> ExitCode:
    """What happened, when, across the whole cluster, from its log dirs alone.

    PATHS are the log dirs of one or more brokers (and controllers).  One time-ordered
    stream of events: from the KRaft metadata log (brokers registered, fenced,
    unfenced, in controlled shutdown; quorum leaders; topics and partitions created and
    deleted; leader, ISR and ELR changes; configs and features), from each replica's
    batch headers and files (leader-epoch starts, segment rolls, the log start,
    producer epoch bumps, transactions begun, committed, aborted or still open, damage,
    each log dir's clean or unclean last stop), from __consumer_offsets (group
    rebalances, members, offset commits summarised per group and partition, deletions)
    and from __transaction_state (each transactional id's state).  Each event says its
    time, whose clock that is (controller, producer, broker, coordinator), '~' when the
    time is an estimate, its object, what changed, and the file and byte position it
    was read from; events that explain each other say so (related).  Data topics are
    read by batch headers only; memory stays bounded whatever the size.  A log dir with
    no metadata log (ZooKeeper era) gives what its files hold and says so.  Exit 1 when
    damage is found (findings of error severity), 2 for usage or I/O errors.
    """
    from ..ops.timeline import timeline

    opts = timeline_opts(start, end, around, window, topics, partitions, brokers, groups,
                         kinds, summary, tz, max_batch_bytes, kafka_version)
    with fewer_collections():
        return run(timeline(paths, opts), renderer("timeline", fmt, tz=tz), progress=paths,
                   label="timeline")


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The garbage collector's youngest generation collected every 50,000 allocations, not
    700, while the run lasts: a busy metadata log makes and drops an event and its parts
    per change (millions), which die young or wait in bounded heaps; collecting them
    every 700 cost 5% of ``kdump timeline`` (bench/README.md).  Restored after."""
    import gc

    old = gc.get_threshold()
    gc.set_threshold(max(old[0], 50_000), max(old[1], 20), max(old[2], 100))
    try:
        yield
    finally:
        gc.set_threshold(*old)
