"""The core stays free of presentation and big-data dependencies.

Every module under kdump/ except kdump/cli, kdump/render and kdump/spark must not import
click, rich or pyspark: not at module level, not inside a function, not under
``if TYPE_CHECKING`` and not through ``importlib.import_module("...")`` with a literal.
Nor may it reach them through kdump.cli / kdump.render / kdump.spark (``python -m kdump``,
kdump/__main__.py, is the one entry point allowed to import the command line).

And the floors (ARCHITECTURE.md): ``FLOORS`` below lists them bottom first; no module
imports from a floor above its own.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

KDUMP = Path(__file__).resolve().parent.parent / "kdump"
ALLOWED_DIRS = {"cli", "render", "spark"}
#: the HTML report's template engine and chart library belong to kdump/render too
FORBIDDEN = {"click", "rich", "pyspark", "jinja2", "pygal"}
#: ``python -m kdump``: the entry point may import the command line (nothing else may)
ENTRY_POINTS = {"__main__.py"}


def core_modules() -> list[Path]:
    out = []
    for p in sorted(KDUMP.rglob("*.py")):
        rel = p.relative_to(KDUMP)
        if rel.parts[0] in ALLOWED_DIRS:
            continue
        out.append(p)
    return out


def imported_names(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    """(line, top-level package) of every import in ``tree``, at any depth.

    ``module`` is the dotted name of the file (for resolving relative imports)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            # "from kdump import render" names a subpackage too
            found += [(node.lineno, f"{name}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if fname in ("import_module", "__import__") and node.args and isinstance(
                    node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def forbidden_imports(path: Path) -> list[str]:
    rel = path.relative_to(KDUMP.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = [*parts, "x"]  # relative imports resolve against the package itself
    module = ".".join(parts)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = []
    for line, name in imported_names(tree, module):
        top = name.split(".")[0]
        if top in FORBIDDEN:
            bad.append(f"{path.relative_to(KDUMP.parent)}:{line}: imports {name}")
        segs = name.split(".")
        if (top == "kdump" and len(segs) > 1 and segs[1] in ALLOWED_DIRS
                and path.name not in ENTRY_POINTS):
            bad.append(f"{path.relative_to(KDUMP.parent)}:{line}: imports {name}")
    return bad


def test_there_are_core_modules_to_check() -> None:
    names = {p.relative_to(KDUMP).as_posix() for p in core_modules()}
    assert {"records/v2.py", "records/file_records.py", "ops/dump.py", "files/index.py",
            "codecs.py", "source.py"} <= names


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: p.relative_to(KDUMP).as_posix())
def test_core_module_imports_no_click_rich_or_pyspark(path: Path) -> None:
    assert forbidden_imports(path) == []


def test_the_checker_catches_every_form(tmp_path: Path) -> None:
    src = (
        "import os\n"
        "def f():\n"
        "    import rich.console\n"
        "    from click import echo\n"
        "class C:\n"
        "    def g(self):\n"
        "        import pyspark.sql as ps\n"
        "import importlib\n"
        "importlib.import_module('rich.table')\n"
        "from ..render import text\n"
        "from kdump.cli import main\n"
    )
    tree = ast.parse(src)
    names = [n for _, n in imported_names(tree, "kdump.ops.x")]
    bad = [n for n in names if n.split(".")[0] in FORBIDDEN
           or (n.startswith("kdump.") and n.split(".")[1] in ALLOWED_DIRS)]
    assert sorted(bad) == ["click", "click.echo", "kdump.cli", "kdump.cli.main", "kdump.render",
                           "kdump.render.text", "pyspark.sql", "rich.console", "rich.table"]


# ------------------------------------------------------------------ floors
#
# kdump is a house of floors (ARCHITECTURE.md): a module may import from its own floor and
# the floors below it, never from one above, whether at module level, inside a function or
# under ``if TYPE_CHECKING``.  Bottom first; a floor is a set of folders of kdump/, and
# "" stands for the single-file modules at kdump/'s top (errors.py, source.py, ...).

FLOORS: list[tuple[str, frozenset[str]]] = [
    ("ground", frozenset({""})),  # errors, findings, limits, layouts, fs, source, codecs, ...
    ("protocol", frozenset({"protocol"})),  # Kafka's generated message encoding
    ("records", frozenset({"records"})),  # batches and records in a byte buffer
    ("files", frozenset({"files"})),  # Kafka's files: logs, indexes, snapshots, checkpoints
    ("decoders", frozenset({"decoders"})),  # what record keys and values mean
    ("operations", frozenset({"ops", "metadata"})),  # one command's work, as objects
    ("render", frozenset({"render"})),  # objects to text, JSON, tables
    ("spark", frozenset({"spark"})),  # the same work on Spark
    ("cli", frozenset({"cli"})),  # options in, renderers out
]
#: the package's own ``__init__`` (the library API: its module-level imports are ground
#: floor only, checked below; the rest inside its functions) and ``python -m kdump``
TOP = {"__init__.py", "__main__.py"}


def floor_of_parts(parts: list[str]) -> int | None:
    """The floor of ``kdump.<parts>`` (a file's or an import's dotted path below kdump)."""
    if not parts:
        return None  # "kdump" itself: the package (see test_package_root_imports_ground_only)
    # a folder's name, or a top-level module's (or a name it holds: kdump._native.speedups)
    folder = parts[0] if (KDUMP / parts[0]).is_dir() else ""
    for i, (_, members) in enumerate(FLOORS):
        if folder in members:
            return i
    raise AssertionError(f"kdump/{'/'.join(parts)} is on no floor: add it to FLOORS")


def floor_of_file(path: Path) -> int | None:
    rel = path.relative_to(KDUMP)
    if rel.as_posix() in TOP:
        return None
    return floor_of_parts(list(rel.with_suffix("").parts))


def dotted(path: Path) -> str:
    parts = list(path.relative_to(KDUMP.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = [*parts, "x"]  # relative imports resolve against the package itself
    return ".".join(parts)


def upward_imports(path: Path, source: str | None = None) -> list[str]:
    """Every import in ``path`` of a module on a floor above the file's own."""
    own = floor_of_file(path)
    if own is None:
        return []
    text = source if source is not None else path.read_text(encoding="utf-8")
    bad = []
    for line, name in imported_names(ast.parse(text), dotted(path)):
        segs = name.split(".")
        if segs[0] != "kdump":
            continue
        target = floor_of_parts(segs[1:])
        if target is not None and target > own:
            bad.append(f"kdump/{path.relative_to(KDUMP).as_posix()}:{line}: floor "
                       f"{FLOORS[own][0]} imports {name} (floor {FLOORS[target][0]})")
    return bad


ALL_MODULES = sorted(KDUMP.rglob("*.py"))


def test_every_module_is_on_a_floor() -> None:
    folders = {p.relative_to(KDUMP).parts[0] for p in ALL_MODULES if p.parent != KDUMP}
    assert folders == set().union(*(m for _, m in FLOORS)) - {""}
    for p in ALL_MODULES:
        assert p.relative_to(KDUMP).as_posix() in TOP or floor_of_file(p) is not None


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: p.relative_to(KDUMP).as_posix())
def test_no_import_runs_up_a_floor(path: Path) -> None:
    assert upward_imports(path) == []


def test_package_root_imports_ground_only() -> None:
    """``import kdump`` (which every ``from kdump import x`` runs) loads the ground floor
    only; the API's functions import the floors above when called (and its type hints
    under ``if TYPE_CHECKING``, which run nothing)."""
    tree = ast.parse((KDUMP / "__init__.py").read_text(encoding="utf-8"))
    names = [n for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
             for _, n in imported_names(node, "kdump.x") if n.startswith("kdump.")]
    assert names and {floor_of_parts(n.split(".")[1:]) for n in names} == {0}


def test_the_floor_check_catches_an_upward_import() -> None:
    src = ("from __future__ import annotations\n"
           "from typing import TYPE_CHECKING\n"
           "from ..errors import KdumpError\n"  # down: fine
           "from .record import Record\n"  # same floor: fine
           "if TYPE_CHECKING:\n"
           "    from ..files.logdir import KafkaFile\n"
           "def f():\n"
           "    from ..protocol.control import decode_control_value\n"  # down: fine
           "    import kdump.ops.verify\n"
           "    from kdump import cli\n")
    assert upward_imports(KDUMP / "records" / "control.py", src) == [
        "kdump/records/control.py:6: floor records imports kdump.files.logdir (floor files)",
        "kdump/records/control.py:6: floor records imports kdump.files.logdir.KafkaFile "
        "(floor files)",
        "kdump/records/control.py:9: floor records imports kdump.ops.verify (floor operations)",
        "kdump/records/control.py:10: floor records imports kdump.cli (floor cli)",
    ]
    # the ground floor may import nothing above it; the CLI anything
    assert upward_imports(KDUMP / "source.py", "from .records import v2\n") == [
        "kdump/source.py:1: floor ground imports kdump.records (floor records)",
        "kdump/source.py:1: floor ground imports kdump.records.v2 (floor records)",
    ]
    assert upward_imports(KDUMP / "cli" / "verify.py", "from ..ops import verify\n") == []


# ------------------------------------------------------------------ rooms of a fair size

#: lines a module of kdump/ may have without a reason for its size
MAX_LINES = 600


def size_reason(path: Path) -> str | None:
    """The line of the module's docstring starting with ``Size:`` (why it is larger)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return next((line for line in doc.splitlines() if line.startswith("Size:")), None)


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: p.relative_to(KDUMP).as_posix())
def test_module_over_600_lines_says_why(path: Path) -> None:
    """No module of kdump/ over MAX_LINES lines without a ``Size:`` line in its docstring
    saying why it is one module (tests/ are exempt: tests/writer.py and the test files)."""
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES or size_reason(path) is not None, (
        f"kdump/{path.relative_to(KDUMP).as_posix()} has {lines} lines: split it by "
        "responsibility, or give the reason in a docstring line starting with 'Size:'")


def test_size_reason_is_read_from_the_docstring(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_text('"""A big room.\n\nSize: one table.\n"""\n' + "x = 1\n" * 700)
    assert size_reason(big) == "Size: one table."
    big.write_text('"""A big room."""\n# Size: in a comment does not count\n')
    assert size_reason(big) is None
