"""The README, the docs, the man pages and --help say what kdump does, and stay true.

- every ``<!-- tour -->`` example in README.md and in every docs/*.md page is run
  against the sample log dir and must print exactly what the page shows;
- docs/json-schema.md's JSON Lines schema is the generated one, and every object kdump
  writes uses only documented fields (and has every field not marked optional);
- the man pages in man/ are what the current CLI generates;
- the README keeps exactly two set-up commands and .ci/run runs the test one, stays
  short (at most 400 lines) and links to a docs page of every command;
- every relative link of README.md, ARCHITECTURE.md and docs/*.md names a file that
  exists, and every ``#anchor`` a heading of its target.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kdump.cli.manpages import render_all
from kdump.model import SCHEMA, fields_of, markdown

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
#: the pages whose examples are run: the README, then docs/ in name order
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
BIN = Path(sys.executable).parent

TOUR = re.compile(r"<!-- tour -->\n```console\n\$ (?P<cmd>[^\n]+)\n(?P<out>.*?)```", re.S)


@pytest.fixture(scope="module")
def sample_cwd(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("tour")
    subprocess.run([sys.executable, str(ROOT / "tests" / "writer.py"), "sample", str(d / "sample")],
                   check=True)
    # the schema registry's tour (needs the schemas extra, in the test extra)
    subprocess.run([sys.executable, str(ROOT / "tests" / "writer.py"), "schemas",
                    str(d / "schemas")], check=True)
    # three brokers' KRaft log dirs with a story (docs/timeline.md)
    subprocess.run([sys.executable, str(ROOT / "tests" / "writer.py"), "cluster",
                    str(d / "cluster")], check=True)
    return d


def _run(cmd: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", COLUMNS="100")
    env.pop("KDUMP_FORMAT", None)
    return subprocess.run(["bash", "-c", f"{{ {cmd} ; }} 2>&1"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _page_name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


#: (page, command, output) of every example that shows output, in page order
TOUR_CASES = [(_page_name(page), m["cmd"], m["out"]) for page in PAGES
              for m in TOUR.finditer(page.read_text(encoding="utf-8"))]


def test_the_docs_have_a_tour_of_every_command() -> None:
    commands = {name for _, c, _ in TOUR_CASES for name in re.findall(r"\bkdump (\S+)", c)}
    assert {"dump", "verify-crc", "verify-index", "find-offset", "find-time", "size-report",
            "coordinator-partition", "repair", "retention", "schemas", "export"} <= commands
    readme_commands = {name for page, c, _ in TOUR_CASES if page == "README.md"
                       for name in re.findall(r"\bkdump (\S+)", c)}
    assert {"dump", "verify-crc", "find-offset", "size-report"} <= readme_commands
    for name in ("dump", "verify-crc", "verify-index", "find-offset", "find-time",
                 "size-report", "spark", "coordinator-partition"):
        assert f"kdump {name}" in README
    # every docs page with examples has them run (a page added with examples counts)
    assert {p for p, _, _ in TOUR_CASES} >= {
        "README.md", "docs/dump.md", "docs/verify-crc.md", "docs/verify-index.md",
        "docs/repair.md", "docs/find.md", "docs/size-report.md", "docs/retention.md",
        "docs/coordinator-partition.md", "docs/schemas.md", "docs/export.md"}


@pytest.mark.parametrize(("page", "cmd", "expected"), TOUR_CASES,
                         ids=[f"{p}: {c}" for p, c, _ in TOUR_CASES])
def test_docs_tour_output_is_real(page: str, cmd: str, expected: str,
                                  sample_cwd: Path) -> None:
    got = _run(cmd, sample_cwd).stdout
    assert got == expected, f"{page} example `{cmd}` prints something else now:\n{got}"


def test_docs_schema_is_the_generated_one() -> None:
    doc = (DOCS / "json-schema.md").read_text(encoding="utf-8")
    start = doc.index("<!-- json-schema:start -->\n") + len("<!-- json-schema:start -->\n")
    end = doc.index("<!-- json-schema:end -->")
    assert doc[start:end] == markdown()


def test_readme_is_short_and_every_command_has_a_docs_page() -> None:
    """README.md says what kdump is, how to set it up and a short tour; each command's
    whole story is its docs page, linked from README.md and docs/README.md."""
    from kdump.cli import cli

    assert len(README.splitlines()) <= 400
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    headings = {p.name: re.findall(r"^#{1,2} .*$", FENCE.sub("", p.read_text(encoding="utf-8")),
                                   re.M) for p in DOCS.glob("*.md")}
    for name in cli.list_commands(None):  # type: ignore[arg-type]
        pages = sorted(n for n, hs in headings.items()
                       if any(f"`kdump {name}`" in h for h in hs))
        assert pages, f"no docs page has a heading on `kdump {name}`"
        assert f"(docs/{pages[0]})" in README, (name, pages)
        assert f"]({pages[0]})" in index, (name, pages)
    # every page is in the index
    assert sorted(n for n in headings if n != "README.md" and f"]({n})" not in index) == []


FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation but - and _ dropped,
    spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6} +(.+?) *#*$", text, re.M):
        base = _slug(m[1])
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def _links(path: Path) -> list[str]:
    text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", path.read_text(encoding="utf-8")))
    return [m[1] for m in LINK.finditer(text)]


def test_slug_is_githubs() -> None:
    assert _slug("`kdump dump`: everything in every file") == "kdump-dump-everything-in-every-file"
    assert _slug("Remote data: s3://, gs://, abfs://, hdfs://") == "remote-data-s3-gs-abfs-hdfs"
    assert _slug("`--jobs`") == "--jobs"
    assert _slug("A standalone cluster (what the tests run)") == \
        "a-standalone-cluster-what-the-tests-run"


@pytest.mark.parametrize("page", [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted(DOCS.glob("*.md"))],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves(page: Path) -> None:
    """A relative link names a file or folder of the repository; an anchor, a heading of
    the page it points into."""
    broken = []
    for target in _links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        if not dest.exists() or ROOT not in (dest, *dest.parents):
            broken.append(f"{target}: no {file}")
        elif anchor and (dest.suffix != ".md" or anchor not in _anchors(dest)):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert broken == []


def test_spark_columns_in_the_docs_are_the_generated_ones() -> None:
    """docs/spark.md's column tables come from the output model, as the Spark schema
    does; a column named like a JSON batch or record field holds that field."""
    from kdump.model import SPARK_COLUMNS, spark_markdown
    from kdump.spark.segments import BATCH_FIELDS, RECORD_FIELDS

    doc = (ROOT / "docs" / "spark.md").read_text(encoding="utf-8")
    start = doc.index("<!-- spark-columns:start -->\n") + len("<!-- spark-columns:start -->\n")
    assert doc[start:doc.index("<!-- spark-columns:end -->")] == spark_markdown()
    assert RECORD_FIELDS == [(n, t) for n, t, _ in SPARK_COLUMNS["record"]]
    json_fields = {n.rstrip("?") for kind in ("batch", "record") for n, _ in fields_of(kind)}
    own = {"topic", "partition", "segment", "position", "batch_size"}
    for name, _ in BATCH_FIELDS + RECORD_FIELDS:
        assert name in json_fields or name in own, name


def test_readme_keeps_exactly_two_setup_commands() -> None:
    section = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)\n```", section, re.S)
    assert len(blocks) == 2
    install_sample, install_tests = blocks
    assert "kdump dump" in install_sample and "pip install" in install_sample
    assert "pytest" in install_tests
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert install_tests in ci, ".ci/run must call the README's test command"
    assert "ruff check" in ci and "mypy" in ci


def test_docs_option_blocks_are_current() -> None:
    """Each command's options are on its docs page as `kdump CMD --help` prints them,
    made by kdump.cli.manpages from the same Click definitions as --help and the man
    pages; one block per command, all of them current."""
    from kdump.cli.manpages import OPTIONS_BLOCK, options_text, refresh_options

    options = options_text()
    seen: dict[str, list[str]] = {}
    stale = []
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in OPTIONS_BLOCK.finditer(text):
            seen.setdefault(m["cmd"], []).append(page.name)
        if refresh_options(text, options) != text:
            stale.append(page.name)
    assert stale == [], f"option blocks out of date in {stale}: run " \
        "`python -m kdump.cli.manpages man`"
    assert {c: pages for c, pages in seen.items() if len(pages) > 1} == {}
    assert sorted(set(options) - set(seen)) == []
    assert "--print-data-log" in options["dump"] and "Usage: kdump spark export" in \
        options["spark export"]


def test_manpages_command_refreshes_what_docs_pages_generate() -> None:
    """`python -m kdump.cli.manpages man` makes stale option blocks and sections whole
    again, and leaves the rest of a page as it is."""
    from kdump.cli.manpages import options_block, options_text, refresh_options, refresh_sections
    from kdump.findings import kinds_markdown

    page = ("# p\n\nprose\n<!-- kinds:start -->\n| old |\n<!-- kinds:end -->\nmore\n"
            "<!-- options:start verify-crc -->\n```text\nold\n```\n<!-- options:end -->\n")
    got = refresh_sections(refresh_options(page))
    assert got == ("# p\n\nprose\n<!-- kinds:start -->\n" + kinds_markdown()
                   + "<!-- kinds:end -->\nmore\n"
                   + options_block("verify-crc", options_text()["verify-crc"]) + "\n")
    with pytest.raises(KeyError, match="no kdump command: 'verify-nothing'"):
        refresh_options("<!-- options:start verify-nothing -->\n<!-- options:end -->")


def test_man_pages_are_current() -> None:
    pages = render_all()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "man").glob("*.1")}
    stale = sorted(n for n in pages if on_disk.get(n) != pages[n])
    extra = sorted(set(on_disk) - set(pages))
    diff = "".join(
        line for n in stale for line in difflib.unified_diff(
            on_disk.get(n, "").splitlines(True), pages[n].splitlines(True), n, "generated"))
    assert not stale and not extra, (
        f"man pages out of date: {stale} {extra}; run `python -m kdump.cli.manpages man`\n"
        + diff)


def test_every_subcommand_has_help_and_a_man_page() -> None:
    from click.testing import CliRunner

    from kdump.cli import cli

    runner = CliRunner()
    pages = render_all()
    for name in cli.list_commands(None):  # type: ignore[arg-type]
        r = runner.invoke(cli, [name, "--help"])
        assert r.exit_code == 0, r.output
        assert f"kdump-{name}.1" in pages


COMMANDS = [
    ["dump", "sample", "--print-data-log", "--format", "json"],
    ["dump", "sample", "--index-sanity-check", "--format", "json"],
    ["verify-crc", "sample", "--format", "json"],
    ["verify-index", "sample", "--format", "json"],
    ["size-report", "sample", "--by", "segment", "--format", "json"],
    ["size-report", "sample", "--by", "topic", "--format", "json"],
    ["find-offset", "sample/orders-0", "130", "--print-data-log", "--format", "json"],
    ["find-offset", "sample/orders-0", "100000", "--format", "json"],
    ["find-time", "sample/orders-0", "1700000020000", "--format", "json"],
    ["coordinator-partition", "g", "--format", "json"],
    ["compare-replicas", "sample", "sample-copy", "--print-data-log", "--format", "json"],
    ["schemas", "schemas", "--format", "json"],
    ["dump", "schemas", "--print-data-log", "--format", "json"],
    ["retention", "sample", "--now", "2023-11-21T22:13:35Z", "--format", "json"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a[:2]) for a in COMMANDS])
def test_json_objects_use_documented_fields(args: list[str], sample_cwd: Path,
                                            tmp_path: Path) -> None:
    if "sample-copy" in args:
        import shutil  # a second broker's copy of the sample: replicas that agree

        shutil.copytree(sample_cwd / "sample", tmp_path / "sample-copy")
        args = [str(tmp_path / a) if a == "sample-copy" else a for a in args]
    r = subprocess.run([str(BIN / "kdump"), *args], cwd=sample_cwd, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    seen = 0
    for line in r.stdout.splitlines():
        obj = json.loads(line)
        kind = obj["type"]
        assert kind in SCHEMA, f"undocumented object type {kind}"
        documented = {n.rstrip("?") for n, _ in fields_of(kind)} | {"type"}
        required = {n for n, _ in fields_of(kind) if not n.endswith("?")}
        if kind == "problem":
            assert required <= set(obj), (kind, required - set(obj))
            continue  # kind-specific extras are documented as "...?"
        assert set(obj) <= documented, (kind, set(obj) - documented)
        assert required <= set(obj), (kind, required - set(obj))
        seen += 1
    assert seen


def test_every_object_kdump_shapes_is_documented() -> None:
    """Each literal kind given to kdump.model.shape names a documented object type, so no
    writer can meet an undocumented one at run time (the Spark export answer did)."""
    import ast

    kinds = set()
    for path in (ROOT / "kdump").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "shape" \
                    and node.args and isinstance(node.args[0], ast.Constant):
                kinds.add(node.args[0].value)
    assert len(kinds) > 15
    assert sorted(k for k in kinds if k not in SCHEMA) == []


def test_shape_orders_fields_and_refuses_drift() -> None:
    from kdump.model import shape

    got = shape("index_entry", {"position": 7, "offset": 3, "slot": 0, "file": "a.index"})
    assert list(got.items()) == [("type", "index_entry"), ("file", "a.index"), ("slot", 0),
                                 ("offset", 3), ("position", 7)]
    # optional fields appear only when given; the same input shape twice gives the same
    head = {"file": "f", "position": 1, "base_offset": 0, "last_offset": 0, "count": 1,
            "size": 70, "magic": 2, "compression": "none", "timestamp_type": "CreateTime",
            "max_timestamp": 5, "crc": 9, "crc_valid": True, "attributes": 0}
    assert "producer_id" not in shape("batch", head)
    assert list(shape("batch", {"producer_id": -1, **head}))[-3:] == \
        ["crc_valid", "producer_id", "attributes"]
    with pytest.raises(KeyError, match="without its field 'slot'"):
        shape("index_entry", {"position": 7, "offset": 3, "file": "a.index"})
    with pytest.raises(KeyError, match="undocumented fields \\['colour'\\]"):
        shape("index_entry", {"position": 7, "offset": 3, "slot": 0, "file": "x", "colour": 1})
    assert list(shape("record", {"file": "f", "topic": None, "partition": None,
                                 "batch_position": 0, "producer_id": -1, "producer_epoch": -1,
                                 "is_transactional": False, "is_control": False},
                      upto="offset"))[-1] == "is_control"
