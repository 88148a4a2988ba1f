"""``kdump spark size-report | verify-crc | export``: the same work, on Spark.

Nothing here imports pyspark: :mod:`kdump.spark` does, when a subcommand runs, so
``kdump --help`` stays fast and works without it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..limits import SPLIT_BYTES
from .exitcodes import ExitCode
from .options import (
    DECODER_CHOICES,
    cleanup_policies,
    cleanup_policy_option,
    format_option,
    kafka_version_option,
    max_batch_bytes_option,
    renderer,
    run,
    size_text,
    top_option,
)
from .timeline import timeline_options, timeline_opts
from .verify_crc import verify_crc_options

F = TypeVar("F", bound=Callable[..., Any])


def _parse_conf(values: tuple[str, ...]) -> dict[str, str]:
    conf = {}
    for v in values:
        key, eq, value = v.partition("=")
        if not eq or not key.strip():
            raise click.BadParameter(f"{v!r} is not KEY=VALUE", param_hint="--conf")
        conf[key.strip()] = value
    return conf


def spark_options(f: F) -> F:
    f = click.option("--ship/--no-ship", default=True, show_default=True,
                     help="On a cluster, send this kdump to the executors as a zip.  --no-ship "
                     "when kdump is installed on the nodes: they then use that install, with "
                     "its native speed-ups (a zip cannot carry them).")(f)
    f = click.option("-v", "--verbose", is_flag=True,
                     help="Show Spark's own log (WARN and above) on stderr.  By default it goes "
                     "to a temporary file, named in the message when something fails.")(f)
    f = click.option("--conf", "conf", multiple=True, metavar="KEY=VALUE",
                     help="A Spark setting, as spark-submit --conf (repeatable), e.g. "
                     "spark.executor.memory=4g.")(f)
    f = click.option("--master", default=None, metavar="URL",
                     help="Spark master: local[*] (the default: all cores of this machine, "
                     "nothing to set up), local[N], spark://host:7077, yarn, k8s://...  Under "
                     "spark-submit, spark-submit's own --master applies.")(f)
    return f


def check_inputs(paths: tuple[str, ...]) -> None:
    """When no input exists, say so before Spark starts (13 s) only to fail: one line,
    exit 2.  With some inputs present, the missing ones are findings as in the local
    command.  URLs (``s3://`` ...) are left to the job."""
    import os

    from ..errors import InputError

    missing = [p for p in paths if "://" not in p and not os.path.lexists(p)]
    if missing and len(missing) == len(paths):
        raise InputError("no such file or directory", path=missing[0])


def _spark_job(master: str | None, conf: tuple[str, ...], verbose: bool, ship: bool,
               body: Callable[[Any], ExitCode], paths: tuple[str, ...] = ()) -> ExitCode:
    """Start (or borrow) a session, run ``body(session)``, stop what was started.
    A failed Spark job is one line naming the cause (exit 2), not a JVM stack trace."""
    from ..errors import KdumpError
    from ..spark.session import relay_starvation, start

    check_inputs(paths)
    ks = start(master, conf=_parse_conf(conf), verbose=verbose, ship=ship)
    ok = False
    try:
        with relay_starvation(ks, lambda line: click.echo(f"kdump: note: {line}", err=True)):
            rc = body(ks)
        ok = True
        return rc
    except KdumpError:
        raise
    except Exception as e:
        if e.__class__.__module__.split(".")[0] not in ("pyspark", "py4j"):
            raise
        where = f"; Spark's log: {ks.log_path}" if ks.owned and ks.log_path and not verbose else ""
        raise KdumpError(f"the Spark job failed: {_spark_error(e)}{where}") from None
    finally:
        ks.stop(keep_log=not ok)


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)(: |$)")


def _spark_error(e: Exception) -> str:
    """The line of a Spark error that says what went wrong: the exception line that
    ends a Python traceback from a worker, else the first line of the message."""
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    if not lines:
        return e.__class__.__name__
    if any("Traceback (most recent call last)" in ln for ln in lines):
        for ln in reversed(lines):
            if _EXCEPTION_LINE.match(ln):
                return ln
    return lines[0]


@click.group("spark")
def spark_group() -> None:
    """The same work on Spark, for whole fleets of log dirs: size-report, verify-crc and
    export (records to Parquet).

    The driver lists the files; executors read them, each task its own segments, in
    chunks, with kdump's readers; only small results come back.  --master local[*] (the
    default) uses every core of this machine; any Spark master URL scales it out.  Paths
    must be readable at the same place from every executor (a shared mount).  Needs
    pip install 'kdump[spark]' and Java 17+; see docs/spark.md.
    """


@spark_group.command("size-report")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--by", type=click.Choice(["topic", "partition", "segment"]), default="partition",
              show_default=True, help="One row per topic, partition or segment.")
@top_option
@click.option("--shallow", is_flag=True,
              help="Batch headers only: no decompression, no per-record sizes.")
@cleanup_policy_option
@format_option()
@max_batch_bytes_option
@spark_options
def spark_size_report(paths: tuple[str, ...], by: str, top: int | None, shallow: bool,
                      overrides: tuple[str, ...], fmt: str | None, max_batch_bytes: int,
                      master: str | None, conf: tuple[str, ...], verbose: bool,
                      ship: bool) -> ExitCode:
    """kdump size-report on Spark: the same rows and numbers, segments read in parallel.

    Each segment (its .log, indexes and snapshot) is read by one task; the driver
    merges the per-segment rows exactly as the local command does.
    """
    from ..ops.size_report import SizeOptions

    # the cleanup policies are read here, on the driver (the executors are given what
    # they decide: kdump.spark.jobs), as the local command reads them
    opts = SizeOptions(by=by, top=top, deep=not shallow, max_batch_bytes=max_batch_bytes,
                       policies=cleanup_policies(paths, overrides, max_batch_bytes))
    out = renderer("size-report", fmt)

    def body(ks: Any) -> ExitCode:
        from ..spark.jobs import size_report

        return run(size_report(ks, paths, opts), out)

    return _spark_job(master, conf, verbose, ship, body, paths)


@spark_group.command("verify-crc")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@verify_crc_options
@cleanup_policy_option
@format_option()
@max_batch_bytes_option
@spark_options
def spark_verify_crc(paths: tuple[str, ...], shallow: bool, strict: bool,
                     overrides: tuple[str, ...], fmt: str | None, max_batch_bytes: int,
                     master: str | None, conf: tuple[str, ...], verbose: bool,
                     ship: bool) -> ExitCode:
    """kdump verify-crc on Spark: the same findings and summary, logs checked in parallel
    (one task per log).  Exit 1 when anything is wrong."""
    from ..ops.verify_crc import VerifyOptions

    opts = VerifyOptions(deep=not shallow, max_batch_bytes=max_batch_bytes, resync=not strict,
                         policies=cleanup_policies(paths, overrides, max_batch_bytes))
    out = renderer("findings", fmt)

    def body(ks: Any) -> ExitCode:
        from ..spark.jobs import verify_crc

        return run(verify_crc(ks, paths, opts), out)

    return _spark_job(master, conf, verbose, ship, body, paths)


@spark_group.command("timeline")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@timeline_options
@format_option()
@max_batch_bytes_option
@kafka_version_option
@spark_options
def spark_timeline(paths: tuple[str, ...], start: str | None, end: str | None,
                   around: str | None, window: int, topics: tuple[str, ...],
                   partitions: tuple[int, ...], brokers: tuple[int, ...],
                   groups: tuple[str, ...], kinds: tuple[str, ...], summary: bool,
                   tz: str | None, fmt: str | None, max_batch_bytes: int,
                   kafka_version: str | None, master: str | None, conf: tuple[str, ...],
                   verbose: bool, ship: bool) -> ExitCode:
    """kdump timeline on Spark: the same events, each partition's replicas (and each
    coordinator partition) read on the executors, the metadata log replayed and the
    streams merged on the driver.  Exit 1 when damage is found."""
    opts = timeline_opts(start, end, around, window, topics, partitions, brokers, groups,
                         kinds, summary, tz, max_batch_bytes, kafka_version)
    out = renderer("timeline", fmt, tz=tz)

    def body(ks: Any) -> ExitCode:
        from ..spark.jobs import timeline

        return run(timeline(ks, paths, opts), out)

    return _spark_job(master, conf, verbose, ship, body, paths)


@spark_group.command("export")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--output", required=True, metavar="DIR",
              help="Where to write the Parquet dataset (topic=T/partition=P/ directories): a "
              "path every executor can write to, or any URI Spark writes to (hdfs://, s3a://) "
              "when the cluster is set up for it.")
@click.option("--level", type=click.Choice(["record", "batch"]), default="record",
              show_default=True, help="One row per record, or one per batch.")
@click.option("--decoder", type=click.Choice(DECODER_CHOICES),
              default=None,
              help="Add key_decoded/value_decoded/decode_error columns, decoded as dump "
              "--decoder does: auto picks the internal-topic decoder from the partition "
              "directory name and string elsewhere (and decodes schema-registry payloads "
              "when the registry's _schemas partition is among or beside PATHS); a simple "
              "decoder applies to keys and values; avro, protobuf, json-schema and "
              "schema-registry decode values with the registry's schemas.")
@click.option("--schemas", "schemas", multiple=True, type=click.Path(), metavar="PATH",
              help="With --decoder: where else the schema registry's schemas are (a "
              "_schemas partition copy, a folder of exported schema files).  Repeatable.")
@kafka_version_option
@click.option("--verify", is_flag=True, help="Add a crc_valid column (batch checksum).")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC",
              help="Only this topic (repeatable).")
@click.option("--mode", type=click.Choice(["errorifexists", "overwrite", "append"]),
              default="errorifexists", show_default=True,
              help="What to do when the output already exists.")
@click.option("--split-bytes", type=str, default=size_text(SPLIT_BYTES), show_default=True,
              metavar="SIZE",
              help="Segments larger than this are read by several tasks, cut at batch "
              "boundaries found with their .index.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default=None,
              help="text (default) or json (JSON Lines: problems, then an export object).")
@max_batch_bytes_option
@spark_options
def spark_export(paths: tuple[str, ...], output: str, level: str, decoder: str | None,
                 schemas: tuple[str, ...], kafka_version: str | None, verify: bool,
                 topics: tuple[str, ...], mode: str, split_bytes: str,
                 fmt: str | None, max_batch_bytes: int, master: str | None,
                 conf: tuple[str, ...], verbose: bool, ship: bool) -> ExitCode:
    """Records of every segment under PATHS to Parquet, partitioned by topic and partition.

    Columns: topic, partition, segment, file, position (of the batch), offset,
    timestamp (epoch ms), timestamp_type, key and value (binary), headers
    (array<struct<key string, value binary>>), sequence, and the batch's fields
    (base_offset, last_offset, batch_size, magic, compression, partition_leader_epoch,
    producer_id, producer_epoch, base_sequence, is_transactional, is_control, crc).
    Damaged stretches are skipped (kdump spark verify-crc lists them), and so are
    damaged batches (a checksum that fails, records that do not read), as kdump export
    skips them, unless --verify: their rows are then written, crc_valid false.
    """
    import os

    from ..errors import UsageError
    from .options import parse_size

    if mode == "errorifexists" and "://" not in output and os.path.exists(output):
        raise UsageError(f"{output} already exists (--mode overwrite or append to write there)")
    # without --verify, no row comes from a damaged batch, as in kdump export (the two
    # datasets read back the same); with it, their rows stay, flagged by crc_valid
    options = {"level": level, "verify": str(verify).lower(),
               "skip_damaged": str(not verify).lower(),
               "split_bytes": str(parse_size(split_bytes)),
               "max_batch_bytes": str(max_batch_bytes)}
    if decoder is not None:
        options["decoder"] = decoder
    if schemas:
        options["schemas"] = ",".join(os.path.abspath(p) if "://" not in p else p
                                      for p in schemas)
    if topics:
        options["topics"] = ",".join(topics)
    if kafka_version is not None:
        options["kafka_version"] = kafka_version
    out = renderer("spark-export", fmt, default_text=True)

    def body(ks: Any) -> ExitCode:
        from ..spark.jobs import export

        return run(export(ks, paths, output, options=options, mode=mode), out)

    return _spark_job(master, conf, verbose, ship, body, paths)
