"""``kdump schemas``: the schema registry's subjects, from its own storage."""

from __future__ import annotations

import click

from .exitcodes import ExitCode
from .options import format_option, max_batch_bytes_option, renderer, run, stderr


@click.command("schemas")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--schemas", "schemas", multiple=True, type=click.Path(), metavar="PATH",
              help="Where else the schemas are: a copy of the registry's _schemas partition, "
              "or a folder of schema files named by id.  Repeatable.")
@click.option("--schemas-topic", default="_schemas", show_default=True, metavar="NAME",
              help="The schema registry's topic (kafkastore.topic).")
@click.option("--no-count", is_flag=True,
              help="Do not read the data topics to count the records using each id.")
@click.option("--export", "export_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write every schema (hard-deleted ones included) to DIR as <id>.avsc, "
              "<id>.proto or <id>.json, with registry.json listing subjects, versions, "
              "references and deleted state: what re-registering them needs, and what "
              "--schemas DIR reads back.")
@format_option()
@max_batch_bytes_option
def schemas_command(paths: tuple[str, ...], schemas: tuple[str, ...], schemas_topic: str,
                    no_count: bool, export_dir: str | None, fmt: str | None,
                    max_batch_bytes: int) -> ExitCode:
    """List the schema registry's subjects, versions, ids, types and deleted state, read
    from its own topic (_schemas) with no registry running.

    The topic is found among PATHS or beside them (in the same log dirs).  Soft-deleted
    schemas (deleted: true) and hard-deleted ones (a tombstone follows the schema
    record, which stays on disk until the log cleaner compacts it) are listed as such.
    Unless --no-count, the data topics under PATHS are read to count the records whose
    key or value names each id.
    """
    from .. import fs as kfs
    from ..errors import InputError
    from ..files.logdir import refuse_not_kafka_data
    from ..schemaregistry.storage import load
    from ..schemaregistry.subjects import export, schema_rows

    for p in (*paths, *schemas):
        if not kfs.exists(p):  # a typo is not "no schemas": exit 2, as every command
            raise InputError("no such file or directory", path=p)
    refuse_not_kafka_data(paths)  # nor is a text file given as PATH
    reg = load(paths, schemas_topic, schemas, max_batch_bytes)
    if export_dir is not None:
        written = export(reg, export_dir, list(paths) + list(schemas))
        stderr().write(f"kdump: {len(written) - 1} schemas and {len(reg.versions)} subject "
                       f"versions written to {click.format_filename(export_dir)}\n")
    return run(schema_rows(paths, topic=schemas_topic, extra=schemas, count=not no_count,
                           max_batch_bytes=max_batch_bytes, registry=reg),
               renderer("schemas", fmt), progress=paths, label="schemas")
