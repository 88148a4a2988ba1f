"""Man pages generated from the Click definitions: ``man/kdump.1`` and one page per
subcommand (``man/kdump-dump.1``, ``man/kdump-spark-size-report.1`` ...), and the
options block of each command's docs page (``docs/dump.md`` ...), from the same
definitions ``--help`` prints.

Regenerate with ``python -m kdump.cli.manpages man``: it refreshes, in the ``docs``
folder beside ``man``, the pages' option blocks and generated sections too (the JSON
Lines schema, the problem kinds, the Spark columns); a test fails when the checked-in
pages differ from what the current code would generate.
"""

from __future__ import annotations

import os
import re
import sys

import click

from ..findings import ARGUED_FROM, KINDS
from ..model import (
    ENCODING_NOTES,
    METADATA_SCHEMA,
    SCHEMA,
    TYPE_NOTES,
    describe_fields,
    fields_of,
)
from ..version import __version__

DATE = "2026"  # fixed: pages must not change with the day they are generated


def esc(text: str) -> str:
    """Escape text for roff."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def _paragraphs(help_text: str) -> list[str]:
    text = click.unstyle(help_text or "").replace("\b\n", "")
    paras = [" ".join(p.split()) for p in text.split("\n\n")]
    return [p for p in paras if p]


def _opt_line(p: click.Parameter, ctx: click.Context) -> tuple[str, str]:
    rec = p.get_help_record(ctx) if isinstance(p, click.Option) else None
    if rec is None:
        return "", ""
    names, help_text = rec
    return names, help_text


Page = tuple[list[str], click.Command, click.Context]


def _commands(group: click.Group, ctx: click.Context, prefix: list[str]) -> list[Page]:
    out: list[Page] = []
    for name in sorted(group.list_commands(ctx)):
        cmd = group.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        sub = click.Context(cmd, info_name=name, parent=ctx)
        out.append(([*prefix, name], cmd, sub))
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, sub, [*prefix, name]))
    return out


def command_page(path: list[str], cmd: click.Command, ctx: click.Context) -> str:
    title = "kdump-" + "-".join(path)
    full = "kdump " + " ".join(path)
    lines = [
        f'.TH "{title.upper()}" "1" "{DATE}" "kdump {__version__}" "kdump manual"',
        ".SH NAME",
        f"{esc(title)} \\- {esc(cmd.get_short_help_str(200))}",
        ".SH SYNOPSIS",
        f".B {esc(full)}",
        esc(" ".join(cmd.collect_usage_pieces(ctx))),
        ".SH DESCRIPTION",
    ]
    for para in _paragraphs(cmd.help or ""):
        lines += [esc(para), ".PP"]
    if lines[-1] == ".PP":
        lines.pop()
    if isinstance(cmd, click.Group):
        lines.append(".SH COMMANDS")
        for name in sorted(cmd.list_commands(ctx)):
            sub = cmd.get_command(ctx, name)
            if sub is None:
                continue
            lines += [".TP", f".B {esc(name)}", esc(sub.get_short_help_str(200))]
    opts = [(p, *_opt_line(p, ctx)) for p in cmd.get_params(ctx)]
    opts = [o for o in opts if o[1]]
    if opts:
        lines.append(".SH OPTIONS")
        for _, names, help_text in opts:
            lines += [".TP", f".B {esc(names)}", esc(" ".join(help_text.split()))]
    lines += [
        ".SH EXIT STATUS",
        "0: clean; 1: problems found in the data; 2: usage error, or an input that cannot "
        "be read.",
        ".SH SEE ALSO",
        ".BR kdump (1)",
        "",
    ]
    return "\n".join(lines)


def main_page(cli: click.Group, ctx: click.Context) -> str:
    lines = [
        f'.TH "KDUMP" "1" "{DATE}" "kdump {__version__}" "kdump manual"',
        ".SH NAME",
        "kdump \\- read Apache Kafka's on\\-disk data with no broker and no JVM",
        ".SH SYNOPSIS",
        ".B kdump",
        "[\\-\\-version] [\\-\\-help] COMMAND [ARGS]...",
        ".SH DESCRIPTION",
    ]
    for para in _paragraphs(cli.help or ""):
        lines += [esc(para), ".PP"]
    lines.append(".SH COMMANDS")
    for path, cmd, _ in _commands(cli, ctx, []):
        lines += [".TP", f".B kdump {esc(' '.join(path))}", esc(cmd.get_short_help_str(200)),
                  f"See \\fBkdump\\-{esc('-'.join(path))}\\fR(1)."]
    lines += [".SH OUTPUT FORMATS",
              esc("--format text: for dump, exactly the lines Kafka's DumpLogSegments prints "
                  "(kafka-dump-log.sh); for the other commands one line per finding or row. "
                  "--format json: JSON Lines, one object per line, each with a type field "
                  "(schema below). --format table: rich tables for people at a terminal."),
              ".SH JSON LINES SCHEMA"]
    for kind, (what, _) in SCHEMA.items():
        names = describe_fields(fields_of(kind), code="")
        lines += [".TP", f".B {esc(kind)}", esc(f"{what}. Fields: {names}.")]
    lines += [".PP", esc("kdump metadata writes objects of its own:")]
    for kind, (what, _) in METADATA_SCHEMA.items():
        names = describe_fields(fields_of(kind, METADATA_SCHEMA), code="")
        lines += [".TP", f".B {esc(kind)}", esc(f"{what}. Fields: {names}.")]
    lines += [".PP", esc(TYPE_NOTES + " " + ENCODING_NOTES)]
    lines.append(".SH PROBLEM KINDS")
    for kind, what in KINDS.items():
        lines += [".TP", f".B {esc(kind)}", esc(f"{what}. Argued from: {ARGUED_FROM[kind]}.")]
    lines += [
        ".SH ENVIRONMENT",
        ".TP", ".B KDUMP_FORMAT", esc("Default output format (text, json, table)."),
        ".TP", ".B KDUMP_DEBUG", esc("Show a Python traceback for an internal error."),
        ".TP", ".B KDUMP_REMOTE_TIMEOUT", esc("The most one request to an object store may "
                                             "take, in seconds (--remote-timeout)."),
        ".TP", ".B KDUMP_PURE_PYTHON", esc("Use the pure-Python readers even when the native "
                                          "speed-ups are built."),
        ".SH EXIT STATUS",
        "0: clean; 1: problems found in the data; 2: usage error, or an input that cannot "
        "be read.",
        ".SH SEE ALSO",
        ", ".join(f"\\fBkdump\\-{esc('-'.join(p))}\\fR(1)" for p, _, _ in _commands(cli, ctx, [])),
        "",
    ]
    return "\n".join(lines)


def render_all() -> dict[str, str]:
    """File name -> content of every page."""
    from . import cli

    ctx = click.Context(cli, info_name="kdump", **cli.context_settings)
    pages = {"kdump.1": main_page(cli, ctx)}
    for path, cmd, sub in _commands(cli, ctx, []):
        pages[f"kdump-{'-'.join(path)}.1"] = command_page(path, cmd, sub)
    return pages


#: a docs page's generated block of one command's options: ``<!-- options:start CMD -->``,
#: the options as ``kdump CMD --help`` prints them, ``<!-- options:end -->``
OPTIONS_BLOCK = re.compile(r"<!-- options:start (?P<cmd>[a-z -]+) -->\n.*?<!-- options:end -->",
                           re.S)
OPTIONS_WIDTH = 88  # fixed: pages must not change with the terminal they are made on


def options_text() -> dict[str, str]:
    """Command path (``dump``, ``spark export``) -> its options as ``--help`` prints
    them (Click's own formatter, at a fixed width)."""
    from . import cli

    ctx = click.Context(cli, info_name="kdump", **cli.context_settings)
    out = {}
    for path, cmd, sub in _commands(cli, ctx, []):
        formatter = click.HelpFormatter(width=OPTIONS_WIDTH)
        cmd.format_usage(sub, formatter)
        cmd.format_options(sub, formatter)
        text = "\n".join(line.rstrip() for line in formatter.getvalue().splitlines())
        out[" ".join(path)] = text.strip("\n") + "\n"
    return out


def options_block(command: str, text: str) -> str:
    return (f"<!-- options:start {command} -->\n```text\n{text}```\n"
            "<!-- options:end -->")


def refresh_options(page: str, options: dict[str, str] | None = None) -> str:
    """A docs page with each options block made again from the current CLI."""
    current = options_text() if options is None else options

    def block(m: re.Match[str]) -> str:
        cmd = m["cmd"]
        if cmd not in current:
            raise KeyError(f"an options block names no kdump command: {cmd!r}")
        return options_block(cmd, current[cmd])
    return OPTIONS_BLOCK.sub(block, page)


def generated_sections() -> dict[str, str]:
    """Marker name -> the Markdown a docs page holds between ``<!-- NAME:start -->`` and
    ``<!-- NAME:end -->``: the JSON Lines schema (docs/json-schema.md), the problem kinds
    (docs/findings.md), the Spark columns (docs/spark.md)."""
    from ..findings import kinds_markdown
    from ..model import markdown, spark_markdown

    return {"json-schema": markdown(), "kinds": kinds_markdown(),
            "spark-columns": spark_markdown()}


def refresh_sections(page: str, sections: dict[str, str] | None = None) -> str:
    """A docs page with each generated section made again."""
    for name, text in (generated_sections() if sections is None else sections).items():
        start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
        if start in page and end in page:
            a = page.index(start) + len(start)
            page = page[:a] + text + page[page.index(end, a):]
    return page


def write_docs(directory: str) -> list[str]:
    """Refresh the options blocks and generated sections of the Markdown pages in
    DIRECTORY; the pages changed."""
    options = options_text()
    sections = generated_sections()
    written = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".md"):
            continue
        target = os.path.join(directory, name)
        with open(target, encoding="utf-8") as fh:
            text = fh.read()
        new = refresh_sections(refresh_options(text, options), sections)
        if new != text:
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(new)
            written.append(target)
    return written


def write_all(directory: str) -> list[str]:
    os.makedirs(directory, exist_ok=True)
    written = []
    pages = render_all()
    for name in os.listdir(directory):
        if name.endswith(".1") and name not in pages:
            os.remove(os.path.join(directory, name))
    for name, text in pages.items():
        target = os.path.join(directory, name)
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(text)
        written.append(target)
    return written


if __name__ == "__main__":  # python -m kdump.cli.manpages man
    MAN = sys.argv[1] if len(sys.argv) > 1 else "man"
    for path in write_all(MAN):
        print(path)
    DOCS = os.path.join(os.path.dirname(os.path.abspath(MAN)), "docs")
    if os.path.isdir(DOCS):
        for path in write_docs(DOCS):
            print(path)
