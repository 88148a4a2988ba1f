"""The core stays free of presentation and big-data dependencies.

Every module under kdump/ except kdump/cli, kdump/render and kdump/spark must not import
click, rich or pyspark: not at module level, not inside a function, not under
``if TYPE_CHECKING`` and not through ``importlib.import_module("...")`` with a literal.
Nor may it reach them through kdump.cli / kdump.render / kdump.spark (``python -m kdump``,
kdump/__main__.py, is the one entry point allowed to import the command line).
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
