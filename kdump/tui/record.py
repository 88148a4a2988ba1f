"""``kdump browse``'s record view (Enter on a record): key, value and headers whole, in
the rendering ``v`` cycles (auto, text, JSON, hex, base64: kdump/ops/browse/renderings.py),
and ``y`` to copy (:func:`copy_out`: OSC 52 through Textual, or a message saying why not
and showing what would have been copied)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..ops.browse.partition import RecordRow
from ..ops.browse.renderings import RENDERINGS, is_json, next_rendering, render
from ..textsafe import inert_lines
from .widgets import append_headers_and_note, safe

#: characters of a rendering the record view shows (kdump dump shows everything)
VIEW_CHARS = 256 << 10
#: bytes of a key or value rendered (hex and base64 of a 16 MiB value would take
#: seconds and hundreds of MB): the first ones, and how many are left
VIEW_BYTES = 32 << 10
#: ... except for JSON, which needs the whole text
JSON_BYTES = 4 << 20
#: most bytes sent through OSC 52 (terminals cap it: xterm and tmux near 100 kB)
COPY_MAX = 74_994


def lines(s: str, style: str = "") -> Text:
    """Data over several lines, inert (the line breaks of a rendering stay)."""
    return Text(inert_lines(s), style=style)


def copy_out(app: App[Any], what: str, text: str) -> Text:
    """Copy ``text`` (``what`` names it) to the clipboard with OSC 52 (Textual's
    ``copy_to_clipboard``); the message for the status line.  Where it cannot be sent
    (macOS Terminal, which ignores OSC 52; too large for a terminal to take) the message
    says so and shows the text, to be selected with the mouse."""
    why = None
    if os.environ.get("TERM_PROGRAM") == "Apple_Terminal":
        why = "macOS Terminal does not take OSC 52"
    elif len(text.encode("utf-8")) > COPY_MAX:
        why = f"{len(text.encode('utf-8'))} bytes is more than a terminal takes through OSC 52"
    if why is None:
        try:
            app.copy_to_clipboard(text)
        except Exception as e:  # a driver that cannot write: said, not raised
            why = f"the terminal could not be written to ({e})"
    if why is not None:
        t = Text(f"cannot copy the {what} here ({why}); it is: ", style="yellow")
        t.append_text(safe(text[:2000]))
        if len(text) > 2000:
            t.append(" …", style="dim")
        return t
    t = Text(f"copied the {what} ({len(text)} characters) to the clipboard (OSC 52; a "
             "terminal without it, or tmux without set-clipboard, copies nothing): ")
    t.append_text(safe(text[:200]))
    return t


class CopyMenu(ModalScreen[str | None]):
    """``y``: which field to copy, one key each; Escape copies nothing."""

    DEFAULT_CSS = """
    CopyMenu { align: center middle; }
    CopyMenu > Static { width: 64; height: auto; border: round $accent; padding: 0 1;
                        background: $panel; }
    """

    def __init__(self, choices: dict[str, str]) -> None:
        super().__init__()
        #: key -> what it copies ("o" -> "offset" ...)
        self.choices = choices

    def compose(self) -> ComposeResult:
        t = Text("Copy (OSC 52):\n", style="bold")
        for k, what in self.choices.items():
            t.append(f"  {k}", style="bold")
            t.append(f"  {what}\n")
        t.append("  Escape  nothing", style="dim")
        yield Static(t, id="copymenu")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if event.key == "escape":
            self.dismiss(None)
        elif event.character in self.choices:
            self.dismiss(event.character)


def copy_choices(rec: RecordRow | None, position: int | None) -> dict[str, str]:
    out = {}
    if rec is not None:
        out.update({"o": "offset", "k": "key", "v": "value"})
    if position is not None:
        out["p"] = "position"
    return out


class RecordView(ModalScreen[None]):
    """One record whole.  ``v`` cycles the rendering of key and value, ``y`` copies."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Back"),
        Binding("v", "cycle", "Rendering"),
        Binding("y", "copy", "Copy"),
        Binding("q", "app.quit_browse", "Quit"),
    ]
    DEFAULT_CSS = """
    RecordView > VerticalScroll { border: round $accent; background: $panel; height: 1fr; }
    RecordView > #recstatus { height: 2; }
    """

    def __init__(self, rec: RecordRow, position: int | None = None) -> None:
        super().__init__()
        self.rec = rec
        self.position = position
        self.mode = RENDERINGS[0]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="recscroll"):
            yield Static(self.body(), id="record")
        yield Static(self.legend(), id="recstatus")
        yield Footer()

    def legend(self) -> Text:
        t = Text("rendering: ")
        for m in RENDERINGS:
            t.append(f" {m} ", style="reverse bold" if m == self.mode else "dim")
        t.append("  (v cycles, y copies)", style="dim")
        return t

    def shown(self, raw: bytes | None, decoded: str, whole: bool = False) -> str:
        """A key or value in the current rendering (null, a tombstone: its words)."""
        if raw is None:
            return decoded
        if self.mode == "auto" and decoded is not None:
            return decoded
        cap = len(raw) if whole else JSON_BYTES if self.mode == "json" else VIEW_BYTES
        text = render(raw[:cap], self.mode, decoded if self.mode == "json" else None)
        if len(raw) > cap:
            text += f"\n… (the first {cap} of {len(raw)} bytes: kdump dump shows them all)"
        return text

    def body(self) -> Text:
        r = self.rec
        t = Text()
        t.append(f"offset {r.offset}   {r.time}", style="bold")
        if self.position is not None:
            t.append(f"   batch at byte {self.position}", style="dim")
        for name, raw, decoded in (("key", r.raw_key, r.key), ("value", r.raw_value, r.value)):
            text = self.shown(raw, decoded)
            size = "" if raw is None else f" ({len(raw)} bytes)"
            t.append(f"\n{name}{size}, {self.mode}", style="bold")
            if self.mode == "json" and raw is not None and len(raw) <= JSON_BYTES and \
                    not is_json(raw) and not text.startswith("not JSON"):
                t.append(" (dump's decoding: the bytes are not JSON)", style="dim")
            t.append(":\n", style="bold")
            t.append_text(lines(text[:VIEW_CHARS]))
            if len(text) > VIEW_CHARS:
                t.append(f" … ({len(text) - VIEW_CHARS} more characters: kdump dump shows "
                         "them all)", style="dim")
        return append_headers_and_note(r, t)

    def action_cycle(self) -> None:
        self.mode = next_rendering(self.mode)
        self.query_one("#record", Static).update(self.body())
        self.query_one("#recstatus", Static).update(self.legend())

    def action_copy(self) -> None:
        def done(choice: str | None) -> None:
            if choice is None:
                return
            r = self.rec
            what, text = {
                "o": ("offset", str(r.offset)),
                "k": ("key", self.shown(r.raw_key, r.key, whole=True)),
                "v": ("value", self.shown(r.raw_value, r.value, whole=True)),
                "p": ("position", str(self.position)),
            }[choice]
            self.query_one("#recstatus", Static).update(copy_out(self.app, what, text))

        self.app.push_screen(CopyMenu(copy_choices(self.rec, self.position)), done)

    def action_close(self) -> None:
        self.dismiss(None)


