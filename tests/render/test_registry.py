"""One renderer registry (kdump/render/registry.py): every family of results has a
renderer for every format, the classes exist, and no command picks a renderer itself."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

from kdump.render.registry import FORMATS, RENDERERS, make_renderer, renderer_class

CLI = Path(__file__).resolve().parents[2] / "kdump" / "cli"


@pytest.mark.parametrize("family", sorted(RENDERERS))
def test_every_family_renders_every_format(family: str) -> None:
    formats = RENDERERS[family]
    # dump --jobs N with JSON output: the spooling JSON writer only; kdump report: its
    # page (html) or its objects (json)
    expected = {"dump-spooled": {"json"}, "report": {"json", "html"}}.get(family, set(FORMATS))
    assert set(formats) == expected
    for fmt in formats:
        cls = renderer_class(family, fmt)
        assert callable(getattr(cls, "emit", None)) and callable(getattr(cls, "close", None))


def test_make_renderer_passes_each_renderer_its_options() -> None:
    out, err = io.StringIO(), io.StringIO()
    r = make_renderer("dump", "json", out, err, payload_encoding="hex", deep=True,
                      skip_record_metadata=True)
    assert r.format == "json" and r.encoding == "hex"  # type: ignore[attr-defined]
    t = make_renderer("dump", "text", out, err, payload_encoding="hex",
                      skip_record_metadata=True)
    assert t.format == "text" and t.err is not None  # type: ignore[attr-defined]


def test_no_command_constructs_a_renderer() -> None:
    """The CLI names families (options.renderer); only the registry builds renderers."""
    found = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and "render" in node.module:
                names = [a.name for a in node.names if a.name.endswith("Renderer")]
                if names:
                    found.append(f"{path.name}:{node.lineno} imports {names}")
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name.endswith("Renderer") or name == "Table":
                    found.append(f"{path.name}:{node.lineno} calls {name}")
    assert found == []


def test_every_command_picks_its_renderer_from_the_registry() -> None:
    """Each command that writes results (every leaf but the man-page writer and the
    interactive browse) names its family to options.renderer, and every family it names
    is in the registry."""
    import inspect
    import re

    import click

    from kdump.cli import cli

    def leaves(group: click.Group, path: list[str]) -> list[tuple[str, click.Command]]:
        out = []
        for name in group.list_commands(None):  # type: ignore[arg-type]
            cmd = group.get_command(None, name)  # type: ignore[arg-type]
            assert cmd is not None
            if isinstance(cmd, click.Group):
                out += leaves(cmd, [*path, name])
            else:
                out.append((" ".join([*path, name]), cmd))
        return out

    commands = leaves(cli, [])
    assert len(commands) >= 12
    named = set()
    for name, cmd in commands:
        assert cmd.callback is not None
        if name == "browse":
            continue  # interactive: it draws with kdump/tui and writes no results
        module = inspect.getsource(inspect.getmodule(cmd.callback))  # type: ignore[arg-type]
        source = inspect.getsource(cmd.callback)
        calls = re.findall(r"\brenderer\(\s*\"([a-z-]+)\"", module)
        helper = re.findall(r"\b(_\w*renderer)\(", source)
        assert "renderer(" in source or helper, f"kdump {name} picks no renderer"
        named |= set(calls)
    assert named <= set(RENDERERS), named - set(RENDERERS)
    assert named == set(RENDERERS), set(RENDERERS) - named
