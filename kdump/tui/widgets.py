"""Small pieces of ``kdump browse``'s screens: inert text, sizes, the hex view's lines,
and the modal screens (a prompt, the keys, a record in full)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..ops.browse import HexModel, RecordRow
from ..textsafe import inert

#: the styles fields take in turn in the hex view (bold/underline/reverse stay visible
#: with NO_COLOR, where the colours go)
FIELD_STYLES = ("bold cyan", "bold magenta", "underline green", "bold yellow",
                "underline blue", "bold red")
BAD_STYLE = "reverse bold red"


def safe(s: object, style: str = "") -> Text:
    """``s`` as inert text: escapes and controls visible, markup never interpreted."""
    return Text(inert(str(s)), style=style)


def human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


KEYS = """\
Tree
  /          filter partitions by name (Enter opens the first match)
  Enter      open the selected partition
Partition
  Tab        next pane (segments, batches, records)
  Enter      a record in full (records pane); a segment's batches (segments pane)
  g          go to an offset: its batch and record selected
  t          go to a time (ISO-8601 or epoch ms): the first record at or after it
  n / N      next / previous finding (verify-crc and verify-index)
  x          the selected batch's bytes: header fields named, first bad byte marked
Everywhere
  Escape     back
  ?          these keys
  q          quit
"""


class Prompt(ModalScreen[str | None]):
    """One line of input (an offset, a time); Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    Prompt { align: center middle; }
    Prompt > Vertical { width: 60; height: auto; border: round $accent; padding: 0 1;
                        background: $panel; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.question))
            yield Input(id="answer")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "close", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 78; max-height: 22; border: round $accent;
                                  background: $panel; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text(KEYS), id="keys")

    def action_close(self) -> None:
        self.dismiss(None)


class RecordScreen(ModalScreen[None]):
    """One record, key, value and headers in full (wrapped, inert)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter", "close", "Back")]
    DEFAULT_CSS = """
    RecordScreen > VerticalScroll { border: round $accent; background: $panel; }
    """

    def __init__(self, rec: RecordRow) -> None:
        super().__init__()
        self.rec = rec

    def compose(self) -> ComposeResult:
        r = self.rec
        t = Text()
        t.append(f"offset {r.offset}   {r.time}\n", style="bold")
        t.append("key: ", style="bold")
        t.append_text(safe(r.key))
        t.append("\nvalue: ", style="bold")
        t.append_text(safe(r.value))
        for k, v in r.headers:
            t.append("\nheader ", style="bold")
            t.append_text(safe(k))
            t.append(" = ")
            t.append_text(safe(v))
        if r.note:
            t.append("\nnote: ", style="bold")
            t.append_text(safe(r.note))
        with VerticalScroll():
            yield Static(t, id="record")

    def action_close(self) -> None:
        self.dismiss(None)


def hex_text(m: HexModel) -> Text:
    """The hex view: a legend of the header's fields (name, bytes, value) in the styles
    their bytes take below, the first bad byte and why, then 16 bytes a line with
    their ASCII; the bad byte is marked ``!`` (and reversed) so that it shows without
    colour too."""
    t = Text()
    t.append_text(safe(m.title, "bold"))
    t.append("\n")
    styles = {}
    for k, f in enumerate(m.fields):
        style = FIELD_STYLES[k % len(FIELD_STYLES)]
        styles[f.name] = style
        t.append(f"  {f.start:3d}-{f.end - 1:<3d} ")
        t.append(f"{f.name:<21}", style=style)
        t.append_text(safe(f.value))
        t.append("\n")
    if m.records_start is not None:
        t.append(f"  {m.records_start:3d}-    records area ({max(0, m.total - m.records_start)}"
                 " bytes)\n")
    if m.bad is not None:
        t.append("  first bad byte: ", style="bold")
        t.append(f"{m.bad} (file byte {m.position + m.bad}) ", style=BAD_STYLE)
        t.append_text(safe(m.bad_why))
        t.append("\n")
    if m.truncated:
        t.append(f"  (the first {len(m.data)} of {m.total} bytes shown)\n")
    data = m.data
    for line in range(0, len(data), 16):
        t.append(f"{m.position + line:08x} ", style="dim")
        chunk = data[line:line + 16]
        for j in range(16):
            i = line + j
            if j == 8:
                t.append(" ")
            if j >= len(chunk):
                t.append("   ")
                continue
            mark = "!" if i == m.bad else " "
            at = m.field_at(i)
            style = BAD_STYLE if i == m.bad else (styles[at.name] if at is not None else "")
            t.append(mark)
            t.append(f"{chunk[j]:02x}", style=style)
        t.append("  |")
        for j, b in enumerate(chunk):
            i = line + j
            ch = chr(b) if 0x20 <= b < 0x7F else "."
            t.append(ch, style=BAD_STYLE if i == m.bad else "")
        t.append("|\n")
    return t
