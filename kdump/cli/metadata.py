"""``kdump metadata``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import click

from .exitcodes import ExitCode
from .options import (
    format_option,
    max_batch_bytes_option,
    renderer,
    resolve_format,
    stderr,
)


@click.command("metadata")
@click.argument("path", metavar="PATH")
@click.option("--at-offset", type=click.IntRange(min=0), default=None, metavar="N",
              help="The image as of offset N (records up to and including N).")
@click.option("--at-time", default=None, metavar="T",
              help="The image as of time T: epoch milliseconds or ISO-8601 "
              "(2024-05-01T09:14:00Z); the last record at or before T.")
@click.option("--history", "history", is_flag=False, flag_value="", default=None,
              metavar="[TOPIC[/PARTITION]|broker:ID|controller:ID|feature:NAME|config:RESOURCE]",
              help="The timeline of changes for that object (everything when no object is "
              "given), from the first record the files hold to the target: offset, time and "
              "what changed (leader 1 -> 3, isr [1,2,3] -> [1,3], fenced).  config:RESOURCE "
              "is config:NAME or config:TYPE/NAME (topic, broker, ...).")
@click.option("--diff", "diff", nargs=2, default=None, metavar="A B",
              help="What differs between the images at A and B: offsets (123), or times "
              "(@EPOCH_MS or ISO-8601).")
@max_batch_bytes_option
@format_option()
def metadata_command(path: str, at_offset: int | None, at_time: str | None,
                     history: str | None, diff: tuple[str, str] | None, max_batch_bytes: int,
                     fmt: str | None) -> ExitCode:
    """The KRaft cluster's metadata at any offset or time, and how it changed.

    PATH is a __cluster_metadata-0 directory, a log dir holding one, or a snapshot
    .checkpoint file.  The image is replayed the way the brokers build it: the latest
    snapshot at or before the target, then the log records after the snapshot's end
    offset, with Kafka's apply rules (a PartitionChangeRecord's leader -2 keeps the
    leader; a leader change bumps the leader epoch; every change bumps the partition
    epoch; records of a metadata transaction apply at its END record, or never).  The
    closing image object says which snapshot and segments were used, where they
    overlap, and which offsets are missing.  SCRAM credentials, delegation-token HMACs
    and password-like config values are never printed: they are marked redacted.

    Output: one object per feature, broker, controller, topic, partition, config,
    client quota, ACL, producer-id block, SCRAM user and delegation token, then the
    image object, which says whether the cluster was running or stopped: when every
    registered broker is fenced or in controlled shutdown, "the cluster was stopped at T
    (broker N fenced at offset X)" (also said as an info finding), and its partitions
    without a leader follow from the stop.  Exit 1 when records could not be applied
    (damage, gaps, unknown types or versions: reported as problems) or a partition has
    no leader while a broker is unfenced (partition-offline), 2 for usage or I/O errors.
    """
    from ..errors import KdumpError, UsageError
    from ..metadata import Replay, Target, find_sources, parse_point
    from ..timestamps import parse_timestamp

    if at_offset is not None and at_time is not None:
        raise click.UsageError("--at-offset and --at-time are exclusive")
    if diff is not None and (at_offset is not None or at_time is not None or history is not None):
        raise click.UsageError("--diff takes its own two points: no --at-offset, --at-time "
                               "or --history with it")
    f = resolve_format(fmt)
    try:
        target = Target(offset=at_offset,
                        time=None if at_time is None else parse_timestamp(at_time, "--at-time"))
        points = None if diff is None else (parse_point(diff[0]), parse_point(diff[1]))
        sources = find_sources(path)
        selector = None
        if history is not None:
            from ..metadata.output import Selector

            selector = Selector.parse(history)
    except UsageError as e:
        raise click.UsageError(str(e)) from None
    except KdumpError as e:
        stderr().write(f"kdump metadata: {e}\n")
        return ExitCode.ERROR
    out = renderer("metadata", f)

    def items() -> Iterator[Any]:
        from ..metadata.output import (
            diff_objects,
            diff_summary,
            history_summary,
            image_objects,
            image_summary,
        )

        quorum = _quorum_state(sources.quorum_state)
        if points is not None:
            a = Replay(sources, points[0], max_batch_bytes=max_batch_bytes).run()
            b = Replay(sources, points[1], max_batch_bytes=max_batch_bytes).run()
            diffs = diff_objects(a.image, b.image)
            yield from diffs
            yield diff_summary(a, b, len(diffs))
            yield from a.problems
            yield from (p for p in b.problems if p not in a.problems)
            return
        if selector is not None:
            sel = selector
            count = [0]

            def on_event(ev: Any) -> None:
                # entries go to the renderer as the replay makes them: memory stays
                # bounded by the image, whatever the number of changes
                for entry in sel.entries(ev):
                    count[0] += 1
                    out.emit(entry)

            r = Replay(sources, target, earliest=True, max_batch_bytes=max_batch_bytes,
                       on_event=on_event).run()
            yield history_summary(history or None, count[0], r)
            yield from r.problems
            return
        r = Replay(sources, target, max_batch_bytes=max_batch_bytes).run()
        yield from image_objects(r.image)
        yield image_summary(r, quorum_state=quorum)
        yield from r.problems
        # stopped or failing (kdump.metadata.health): the same findings kdump report gives
        yield from r.health().problems(sources.directory or sources.path, warnings=False)

    from .options import run

    return run(items(), out, progress=sources.paths, label="metadata")


def _quorum_state(path: str | None) -> Any:
    if path is None:
        return None
    from ..errors import KdumpError
    from ..files.text import read_json
    from ..source import FileSource

    try:
        with FileSource(path) as src:
            return {"file": path, "values": read_json(src)}
    except KdumpError as e:
        return {"file": path, "error": e.message}
