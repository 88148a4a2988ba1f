"""Small pieces of ``kdump browse``'s screens: inert text, sizes, tables sized from their
rows, the hex view's lines and screen, and the modal screens (a prompt, the keys, a text
in full: a finding, a batch, a record)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Static

from ..ops.browse import HexModel, RecordRow
from ..textsafe import inert

#: the styles fields take in turn in the hex view (bold/underline/reverse stay visible
#: with NO_COLOR, where the colours go)
FIELD_STYLES = ("bold cyan", "bold magenta", "underline green", "bold yellow",
                "underline blue", "bold red")
BAD_STYLE = "reverse bold red"
#: a finding's severity as a style (errors red, warnings yellow, information dim)
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}
#: characters of a value the record view shows
FULL_CHARS = 64 << 10


def safe(s: object, style: str = "") -> Text:
    """``s`` as inert text: escapes and controls visible, markup never interpreted."""
    return Text(inert(str(s)), style=style)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 record``, ``2 records``, ``1,234 records``."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


#: characters of a key, value or headers shown in the records table (Enter shows all)
CELL_CHARS = 200
#: what a search's match looks like in a table's cell
MATCH_STYLE = "bold black on yellow"


def cell(s: str) -> Text:
    """A table cell of data: inert, and cut (a value may be megabytes)."""
    t = safe(s[: CELL_CHARS * 2])
    if len(t) > CELL_CHARS:
        t = t[:CELL_CHARS]
        t.append("…", style="dim")
    return t


def set_rows(table: DataTable[Any], labels: Sequence[str], rows: Sequence[Sequence[Text]]
             ) -> None:
    """Fill ``table`` with ``rows`` under columns ``labels``, each column as wide as its
    widest cell in these rows (never a digit cut: Textual measures auto-width columns
    only when idle, and a row drawn before that is cut to the old width)."""
    widths = [max([len(label)] + [r[i].cell_len for r in rows]) for i, label in enumerate(labels)]
    table.clear(columns=True)
    for label, width in zip(labels, widths, strict=True):
        table.add_column(Text(label), width=width, key=label)
    for i, r in enumerate(rows):
        table.add_row(*r, key=str(i))


def fits(table: DataTable[Any], rows: Sequence[Sequence[Text]]) -> bool:
    """Whether every cell of ``rows`` fits its column of ``table`` as it is."""
    cols = table.ordered_columns
    return all(c.cell_len <= col.width for r in rows for c, col in zip(r, cols, strict=False))


#: what a status line cut to its lines ends with
CUT_HINT = " … (Enter: in full)"


def fit_lines(console: Any, text: Text, width: int, lines: int = 2,
              hint: str = CUT_HINT) -> Text:
    """``text`` as it fits ``lines`` lines of ``width`` cells; when it does not, cut,
    ending in ``hint`` (never a silent cut: Enter, or the key it names, shows it whole)."""
    width = max(len(hint) + 10, width)
    wrapped = text.wrap(console, width)
    if len(wrapped) <= lines:
        return text
    kept = list(wrapped)[:lines]
    last = kept[-1]
    last.rstrip()
    last.truncate(width - len(hint))
    last.rstrip()
    last.append(hint, style="dim")
    return Text("\n").join(kept)


def human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


KEYS = """\
Tree
  /          filter partitions by name (Enter opens the first match)
  Enter      open the selected partition; a finding in full
  e          only partitions with errors or warnings (again: all)
  s          sort by name, size, findings (in turn)
  j / k      down / up
  T          the selected partition's timeline
Partition
  Tab        next pane (segments, batches, records; the focused: »)
  Enter      the batch, its finding and its selected record in full
             (records pane: the record; segments pane: its batches)
  Home / gg  the partition's first batch
  End / G    the partition's last batch
  PgUp/PgDn  a page up / down (on into the next or previous segment)
  j / k      down / up
  g          go to an offset: its batch and record selected
  t          go to a time (ISO-8601 or epoch ms): first record at/after
  n / N      next / previous finding (verify-crc and verify-index)
  x          the batch's bytes: fields named, first bad byte marked
  /          search keys, values, headers: text, re:REGEX, hex:BYTES
  n / N      next / previous match (once searched); Escape stops it
  f          every finding, sortable; Enter jumps (tree: the log dir's)
  y          copy the offset, key, value or position (OSC 52)
  r          re-read: sizes, new segments, findings (tree: the log dirs)
  T          the partition's timeline (every replica given, the metadata log)
Timeline (T)
  Enter      an event of a batch of this partition: that batch; else in full
  i          the event in full
  Escape     stop reading, back
Record (Enter on a record)
  v          rendering: auto, text, JSON, hex, base64
  y          copy the offset, key, value or position
Everywhere
  Escape     back
  ?          these keys
  q, Ctrl+C  quit
"""


def pass_on(screen: Screen[Any], event: events.Key) -> bool:
    """A key that reached ``screen`` after another screen went on top of it (keys come in
    bursts over SSH and from tmux: the ones after ``g`` or Enter are already on their
    way): handed to the screen on top, as the app hands it keys.  True when passed on."""
    top = screen.app.screen
    if top is screen:
        return False
    event.stop()
    event.prevent_default()
    top._forward_event(events.Key(event.key, event.character))
    return True


class LineEditor:
    """One line typed at a screen that has the keys first (no Input widget: a burst of
    keys, as over SSH or from tmux, lands in the line even before a widget could take
    focus)."""

    def __init__(self) -> None:
        self.text = ""

    def key(self, event: events.Key) -> str | None:
        """Apply ``event``: "submit", "cancel", "edit", or None (not a line key)."""
        if event.key == "enter":
            return "submit"
        if event.key == "escape":
            return "cancel"
        if event.key in ("backspace", "ctrl+h"):
            self.text = self.text[:-1]
            return "edit"
        if event.key == "ctrl+u":
            self.text = ""
            return "edit"
        if event.character and event.is_printable and len(self.text) < 200:
            self.text += event.character
            return "edit"
        return None


class Prompt(ModalScreen[str | None]):
    """One line of input (an offset, a time): Enter answers, Escape cancels."""

    DEFAULT_CSS = """
    Prompt { align: center middle; }
    Prompt > Static { width: 64; height: auto; border: round $accent; padding: 0 1;
                      background: $panel; }
    """

    def __init__(self, question: str, shortcuts: dict[str, str] | None = None) -> None:
        super().__init__()
        self.question = question
        self.line = LineEditor()
        #: keys that answer at once while nothing is typed (``g`` after ``g``: "gg")
        self.shortcuts = shortcuts or {}

    def compose(self) -> ComposeResult:
        yield Static(self._text(), id="prompt")

    def _text(self) -> Text:
        t = Text(self.question + "\n", style="bold")
        t.append_text(safe(self.line.text))
        t.append("_", style="blink")
        return t

    def on_key(self, event: events.Key) -> None:
        if not self.line.text and event.character in self.shortcuts:
            event.stop()
            event.prevent_default()
            self.dismiss(self.shortcuts[event.character])
            return
        what = self.line.key(event)
        if what is None:
            return
        event.stop()
        event.prevent_default()
        if what == "submit":
            self.dismiss(self.line.text)
        elif what == "cancel":
            self.dismiss(None)
        else:
            self.query_one("#prompt", Static).update(self._text())


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark", "close", "Close"),
                                              Binding("q", "app.quit_browse", "Quit")]
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


class DetailScreen(ModalScreen[None]):
    """A text in full (a finding, a batch, a record): wrapped, scrolled, inert."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter", "close", "Back"),
                                              Binding("q", "app.quit_browse", "Quit")]
    DEFAULT_CSS = """
    DetailScreen > VerticalScroll { border: round $accent; background: $panel; }
    """

    def __init__(self, text: Text, title: str = "in full") -> None:
        super().__init__()
        self.text = text
        self.title_text = title

    def compose(self) -> ComposeResult:
        box = VerticalScroll()
        box.border_title = self.title_text
        box.border_subtitle = "Escape back"
        with box:
            yield Static(self.text, id="record")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)


def record_text(r: RecordRow, t: Text | None = None) -> Text:
    """A record, key, value and headers in full (at most FULL_CHARS of a value)."""
    t = Text() if t is None else t
    t.append(f"offset {r.offset}   {r.time}\n", style="bold")
    t.append("key: ", style="bold")
    t.append_text(safe(r.key))
    t.append("\nvalue: ", style="bold")
    t.append_text(safe(r.value[:FULL_CHARS]))
    if len(r.value) > FULL_CHARS:
        t.append(f" … ({len(r.value) - FULL_CHARS} more characters: kdump dump shows "
                 "them all)", style="dim")
    return append_headers_and_note(r, t)


def append_headers_and_note(r: RecordRow, t: Text) -> Text:
    """A record's headers, a line each, and its note, appended to ``t`` (inert)."""
    for k, v in r.headers:
        t.append("\nheader ", style="bold")
        t.append_text(safe(k))
        t.append(" = ")
        t.append_text(safe(v))
    if r.note:
        t.append("\nnote: ", style="bold")
        t.append_text(safe(r.note))
    return t


def bad_line(m: HexModel, text: Text) -> int | None:
    """The line of ``text`` (:func:`hex_text`'s) holding the first bad byte, if shown."""
    if m.bad is None or m.bad >= len(m.data):
        return None
    head = text.plain.count("\n") - (len(m.data) + 15) // 16
    return head + m.bad // 16


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


class HexScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self, text: Text, bad: int | None = None) -> None:
        super().__init__()
        self.text = text
        #: the line of the first bad byte: scrolled into view when the view opens
        self.bad = bad

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="hexscroll"):
            yield Static(self.text, id="hex")
        yield Footer()

    def on_mount(self) -> None:
        box = self.query_one("#hexscroll", VerticalScroll)
        box.focus()
        if self.bad is not None:
            bad = self.bad
            self.call_after_refresh(
                lambda: box.scroll_to(y=max(0, bad - box.size.height // 2), animate=False))

    def on_key(self, event: events.Key) -> None:
        pass_on(self, event)

    def action_back(self) -> None:
        self.app.pop_screen()
