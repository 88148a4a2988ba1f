"""One renderer registry (kdump/render/registry.py): every family of results has a
renderer for every format, the classes exist, and no command picks a renderer itself."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

from kdump.render.registry import FORMATS, RENDERERS, make_renderer, renderer_class

CLI = Path(__file__).resolve().parent.parent / "kdump" / "cli"


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
