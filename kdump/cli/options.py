"""Options shared by several subcommands, and the loop that feeds a renderer."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO, TypeVar

import click

from .exitcodes import ExitCode

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("text", "json", "table")
_SIZE = re.compile(r"^\s*(\d+)\s*([kKmMgG]?)(i?[bB])?\s*$")


def parse_size(value: str | int | None) -> int | None:
    """``1048576``, ``64M``, ``1GiB`` -> bytes."""
    if value is None or isinstance(value, int):
        return value
    m = _SIZE.match(value)
    if not m:
        raise click.BadParameter(f"{value!r} is not a size (e.g. 1048576, 64M, 1G)")
    n = int(m.group(1))
    return n << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]


def size_text(n: int) -> str:
    """Bytes as a user types a size (``128M``): the largest unit that divides ``n``."""
    for shift, unit in ((30, "G"), (20, "M"), (10, "K")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


class SizeType(click.ParamType):
    name = "SIZE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int):
            return value
        try:
            return parse_size(value)
        except click.BadParameter as e:
            self.fail(e.message, param, ctx)


SIZE = SizeType()


def format_option(default_text: bool = False) -> Callable[[F], F]:
    help_default = (
        "text" if default_text
        else "table on a terminal, text otherwise"
    )
    return click.option(
        "--format", "fmt", type=click.Choice(FORMATS), default=None,
        help=f"Output: text, json (JSON Lines) or table (rich).  Default: {help_default}; "
        "the KDUMP_FORMAT environment variable overrides the default.",
    )


def payload_encoding_option(f: F) -> F:
    return click.option(
        "--payload-encoding", type=click.Choice(["utf8", "base64", "hex"]), default="utf8",
        show_default=True,
        help="How --format json writes keys, values and header values.  utf8 writes valid "
        "UTF-8 as is and anything else as base64, saying which in key_encoding/"
        "value_encoding (null stays null).",
    )(f)


def max_batch_bytes_option(f: F) -> F:
    return click.option(
        "--max-batch-bytes", type=SIZE, default="16M", show_default=True,
        help="Most bytes one batch may take, decompressed (or as stored, uncompressed); "
        "a larger one is reported (batch-too-large) and its records skipped, so neither a "
        "decompression bomb nor a huge batch can exhaust memory (at the default, peak RSS "
        "stays under 300 MB whatever the input; printing records costs up to about five "
        "times this bound).",
    )(f)


def cleanup_policy_option(f: F) -> F:
    """``--config TOPIC:cleanup.policy=compact``: whether a topic's gaps between
    segments are the cleaner's (information) or lost data (kdump.ops.witnesses)."""
    return click.option(
        "--config", "overrides", multiple=True, metavar="TOPIC:cleanup.policy=POLICY",
        help="A topic's cleanup.policy (compact, delete or compact,delete), above the KRaft "
        "metadata among the inputs and Kafka's default (delete): a compacted topic's gaps "
        "between segments are the cleaner's (information), a delete-policy topic's are "
        "data lost.  Repeatable.")(f)


def cleanup_policies(paths: Iterable[str], overrides: tuple[str, ...],
                     max_batch_bytes: int) -> Any:
    """The topics' cleanup.policy for the witnesses' verdicts (kdump.ops.witnesses), or
    None (Kafka's own compacted topics and cleaner-offset-checkpoint entries, else
    delete) when no --config is given and no KRaft metadata is among the inputs."""
    from ..ops.verdict import CleanupPolicies

    return CleanupPolicies.for_inputs(list(paths), overrides, max_batch_bytes)


def top_option(f: F) -> F:
    """--top N for size-report and spark size-report alike."""
    return click.option("--top", type=click.IntRange(min=0), default=None,
                        help="Only the N largest rows, largest first.")(f)


def resolve_format(fmt: str | None, *, default_text: bool = False) -> str:
    if fmt:
        return fmt
    raw = os.environ.get("KDUMP_FORMAT", "")
    env = raw.strip().lower()
    if env in FORMATS:
        return env
    if env:
        from ..errors import UsageError

        raise UsageError(f"KDUMP_FORMAT={raw[:40]!r} is not one of {', '.join(FORMATS)} "
                         "(unset it, or give --format)")
    if default_text:
        return "text"
    return "table" if sys.stdout.isatty() else "text"


def renderer(family: str, fmt: str | None, *, default_text: bool = False,
             **options: Any) -> Any:
    """The renderer of a family of results (kdump.render.registry) in the format
    ``--format``/``KDUMP_FORMAT``/the terminal asks for, on stdout and stderr."""
    from ..render.registry import make_renderer

    return make_renderer(family, resolve_format(fmt, default_text=default_text), stdout(),
                         stderr(), **options)


def run(items: Iterable[object], renderer: Any, *, progress: Iterable[str] = (),
        label: str = "kdump", passes: int = 1) -> ExitCode:
    """Feed ``items`` to ``renderer``; the exit code follows from the problems seen.
    ``progress``: the input paths, for a progress bar on stderr during long runs;
    ``passes``: how many times the work reads them (the bar's 100%)."""
    from ..findings import Problem
    from .progress import ProgressBar

    io_error = problems = False
    try:
        with ProgressBar(progress, label, renderer, passes=passes):
            for item in items:
                renderer.emit(item)
                if isinstance(item, Problem):
                    if item.kind == "unreadable-file" and item.severity == "error":
                        io_error = True
                    elif item.is_failure:
                        problems = True
    except BrokenPipeError:
        raise  # the reader went away (``| head``): no closing summaries on stderr
    except BaseException:
        renderer.close()
        raise
    renderer.close()
    if io_error:
        return ExitCode.ERROR
    return ExitCode.PROBLEMS if problems else ExitCode.OK


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def raw_option(f: F) -> F:
    """``--raw``: text as the data holds it even on a terminal."""
    return click.option(
        "--raw", is_flag=True,
        help="On a terminal, print text lines as the data holds them.  Without it, control "
        "and bidi characters from the data are shown as escapes (\\x1b, \\u202e) when "
        "stdout is a terminal; piped output is always DumpLogSegments' bytes.")(f)


def stdout() -> TextIO:
    return sys.stdout


def stderr() -> TextIO:
    return sys.stderr


# --- payload decoders: one option set for dump, find-offset, find-time, spark export ---
#: internal-topic decoder names (kdump.decoders.INTERNAL), spelled out so --help needs no
#: import of the decoders
INTERNAL_DECODERS = ("cluster-metadata", "offsets", "remote-log-metadata", "share-group-state",
                     "transaction-log")
#: simple decoders, for keys and values alike (kdump.decoders.SIMPLE)
SIMPLE_DECODERS = ("string", "hex", "base64", "json", "int", "long", "none")
#: schema-registry decoders, for keys and values (kdump.schemaregistry.formats.MODES): dump
SCHEMA_DECODERS = ("avro", "protobuf", "json-schema", "schema-registry")
#: what --decoder accepts, everywhere (the Spark data source's ``decoder`` names too)
DECODER_CHOICES = ["auto", *SIMPLE_DECODERS, *INTERNAL_DECODERS, *SCHEMA_DECODERS]


class DecoderName(click.ParamType):
    """A simple decoder name, or a DumpLogSegments Java class name."""

    name = "DECODER"

    def __init__(self, schemas: bool = False) -> None:
        #: the schema-registry decoders are accepted too (avro, protobuf ...)
        self.schemas = schemas

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from ..decoders import JAVA_CLASSES

        v = str(value)
        if v in SIMPLE_DECODERS or (self.schemas and v in SCHEMA_DECODERS):
            return v
        if v in JAVA_CLASSES:
            return JAVA_CLASSES[v]
        self.fail(
            f"{v!r} is not a decoder: use one of "
            f"{', '.join(SIMPLE_DECODERS + (SCHEMA_DECODERS if self.schemas else ()))} (or a Kafka "
            "decoder class name: org.apache.kafka.tools.api.StringDecoder, IntegerDecoder, "
            "LongDecoder, DefaultDecoder)", param, ctx)


class KafkaVersionParam(click.ParamType):
    """``--kafka-version X.Y``: a Kafka release line kdump has record definitions for
    (``retention``: whose retention rules, 3.0 on), parsed by
    :class:`kdump.decoders.release.KafkaVersion` like every release kdump reads."""

    name = "X.Y"

    def __init__(self, retention: bool = False) -> None:
        self.retention = retention

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from ..errors import UsageError
        from ..protocol.messages import SchemaError

        try:
            if self.retention:
                from ..ops.retention import check_release as check_rules

                return check_rules(str(value))
            from ..decoders.release import check_release

            return check_release(str(value))
        except (SchemaError, UsageError) as e:
            self.fail(e.message if isinstance(e, UsageError) else str(e), param, ctx)


KAFKA_VERSION_HELP = ("The Kafka release (3.9, 4.0, 4.1, 4.2, 4.3, 4.4) that wrote the "
                      "internal topics: their records are read with that release's layouts, "
                      "where releases differ at the same version (share groups: 3.9 and 4.0, "
                      "4.0 and 4.1), and printed as its DumpLogSegments does (4.1+: "
                      "__transaction_state as JSON).  Default: the log dir's own "
                      "metadata.version (__cluster_metadata, bootstrap.checkpoint), 3.9 for a "
                      "ZooKeeper-era log dir, else the one layout that reads each record "
                      "exactly.  Later releases read as 4.4.")


DECODER_HELP = ("Payload decoder.  auto picks the internal-topic decoder from the partition "
                "directory name (__consumer_offsets, __transaction_state, __cluster_metadata, "
                "...) and string elsewhere; a simple decoder (hex, json, int ...) applies to "
                "keys and values, and so does avro, protobuf, json-schema or schema-registry "
                "(Confluent-framed payloads decoded with the registry's schemas).")


def kafka_version_option(f: F) -> F:
    """``--kafka-version X.Y`` (every command that decodes internal topics' records)."""
    return click.option("--kafka-version", "kafka_version", type=KafkaVersionParam(), default=None,
                        help=KAFKA_VERSION_HELP)(f)


def decoder_option(f: F) -> F:
    return click.option("--decoder", "decoder", type=click.Choice(DECODER_CHOICES),
                        default="auto", show_default=True, help=DECODER_HELP)(f)


#: dump's (and find-offset's, find-time's) --decoder auto, beside DECODER_HELP
SCHEMA_AUTO_HELP = ("  auto also decodes payloads framed by Confluent's serializers (Avro, "
                    "Protobuf, JSON Schema) when the schema registry's topic is among or "
                    "beside the inputs and the id is known, and shows a data topic's key of "
                    "exactly 8 or 4 bytes that is not text as the big-endian int64 / int32 "
                    "it holds, saying so.")


def schema_decoder_option(f: F) -> F:
    """``--decoder`` of the commands that decode schema-registry payloads too."""
    return click.option("--decoder", "decoder", type=click.Choice(DECODER_CHOICES),
                        default="auto", show_default=True,
                        help=DECODER_HELP + SCHEMA_AUTO_HELP)(f)


def key_value_decoder_options(f: F) -> F:
    """``--key-decoder`` / ``--value-decoder`` (simple and schema-registry decoders, Kafka's
    decoder class names), as dump, find-offset and find-time have them."""
    f = click.option("--value-decoder", "--value-decoder-class", "value_decoder",
                     type=DecoderName(schemas=True), default=None,
                     help="How to print payloads (same choices as --key-decoder).  Implies "
                     "--print-data-log.")(f)
    return click.option("--key-decoder", "--key-decoder-class", "key_decoder",
                        type=DecoderName(schemas=True), default=None,
                        help=KEY_DECODER_HELP)(f)


KEY_DECODER_HELP = ("How to print keys: string (default), hex, base64, json, int, long, none; "
                    "avro, protobuf, json-schema or schema-registry (any of the three) decode "
                    "Confluent-framed payloads with the schemas of the registry's storage "
                    "(see --schemas); Kafka decoder class names are accepted.  Implies "
                    "--print-data-log.")


def schema_options(f: F) -> F:
    """``--schemas``, ``--schemas-topic``, ``--validate-json-schema``: where the schema
    registry's storage is, for the commands that print payloads."""
    f = click.option("--validate-json-schema", is_flag=True,
                     help="Check JSON Schema payloads against their schema (a note when one "
                     "does not validate).")(f)
    f = click.option("--schemas-topic", default="_schemas", show_default=True, metavar="NAME",
                     help="The schema registry's topic (kafkastore.topic), looked for among "
                     "and beside the inputs.")(f)
    return click.option(
        "--schemas", "schemas", multiple=True, type=click.Path(), metavar="PATH",
        help="Where else the schemas are: a copy of the registry's _schemas partition (from "
        "another broker), or a folder of schema files named by id (17.avsc, 18.proto, "
        "19.json, as kdump schemas --export writes them; a .proto's imports are found in "
        "the folder by relative path).  Repeatable.")(f)


def payload_options(decoder: str, key_decoder: str | None, value_decoder: str | None, *,
                    schemas: tuple[str, ...] = (), schemas_topic: str = "_schemas",
                    validate: bool = False, roots: tuple[str, ...] = (),
                    max_batch_bytes: int = 256 << 20) -> dict[str, Any]:
    """The decoder fields of :class:`~kdump.ops.dump.DumpOptions` from the options dump,
    find-offset, find-time and compare-replicas share (``decoder``: --decoder, or the
    internal-topic flag chosen): one way to pick a record's decoder for every command."""
    from ..decoders import KEY_VALUE
    from ..schemaregistry.source import SchemaSource

    if (key_decoder or value_decoder) and decoder == "auto":
        decoder = "string"
    if (decoder in SIMPLE_DECODERS and decoder != "string") or decoder in SCHEMA_DECODERS:
        # a simple or schema decoder named by --decoder: keys and values alike
        key_decoder, value_decoder = key_decoder or decoder, value_decoder or decoder
        decoder = "string"
    return {"decoder": KEY_VALUE if decoder == "string" else decoder,
            "key_decoder": key_decoder or "string", "value_decoder": value_decoder or "string",
            "schema": SchemaSource(schemas=schemas, topic=schemas_topic, validate=validate,
                                   roots=roots, max_batch_bytes=max_batch_bytes)}


def jobs_option(f: F) -> F:
    """``--jobs N``: files processed in N worker processes (output identical for any N)."""
    return click.option(
        "--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
        help=JOBS_HELP,
    )(f)


JOBS_HELP = ("Process files in N worker processes; the output is the same for any N "
             "(results come in the walk's order; verify-crc and size-report read a large "
             "segment as ranges in several workers).  Default: one per idle core (cores less the "
             "load average).  Never "
             "more workers than files or ranges to read, nor than 4 per core (a larger N is "
             "lowered, with a note).")


def resolve_jobs(jobs: int | None) -> int:
    """``--jobs`` as given (the cores when not), lowered to the machine's bound with a
    note on stderr."""
    from ..parallel import JOBS_PER_CORE, cap_jobs, cores, default_jobs

    if jobs is None:
        return default_jobs()
    capped = cap_jobs(jobs)
    if capped < jobs:
        n = cores()
        click.echo(f"kdump: note: --jobs {jobs} lowered to {capped} ({JOBS_PER_CORE} per core, "
                   f"{n} core{'s' if n != 1 else ''})", err=True)
    return capped


# --- remote reads: a bounded total time per request ---------------------------------------
def _set_remote_timeout(ctx: click.Context, param: click.Parameter, value: float | None) -> None:
    from ..fs import REMOTE_TIMEOUT, set_remote_timeout

    set_remote_timeout(REMOTE_TIMEOUT if value is None else value)


def remote_timeout_option() -> click.Option:
    """``--remote-timeout SECONDS`` (every command: kdump/cli/__init__.py adds it)."""
    return click.Option(
        ["--remote-timeout"], type=click.FloatRange(min=0.1, max=86400), default=None,
        metavar="SECONDS", envvar="KDUMP_REMOTE_TIMEOUT", expose_value=False,
        is_eager=True, callback=_set_remote_timeout,
        help="For URLs (s3://, gs://, abfs:// ...): the most one request to the store may "
        "take, retries included, before kdump gives up on it with one line naming the URL "
        "(default 60; the KDUMP_REMOTE_TIMEOUT environment variable sets it too).  S3's "
        "connect and read timeouts (10 and 30 s, or less) and attempts (2, unless "
        "AWS_MAX_ATTEMPTS or the profile's max_attempts says otherwise) fit inside it.")
