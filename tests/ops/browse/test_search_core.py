"""``kdump browse``'s search without Textual (issue 47, What 5): the core iterator
(kdump/ops/browse/search.py) over keys, values and headers, forward, backward and
wrapping, its bytes read bounded; the record renderings (kdump/ops/browse/renderings.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kdump.ops.browse import browse_tree
from kdump.ops.browse.renderings import key_text, render
from kdump.ops.browse.search import (
    SEARCH_CHUNK,
    Match,
    Place,
    Progress,
    QueryError,
    Search,
    parse_query,
)
from tests.support import writer as w

SEG = "00000000000000000000.log"


def partition(root: Path, name: str) -> Any:
    return next(p for ld in browse_tree([str(root)]) for p in ld.partitions if p.name == name)


def test_queries() -> None:
    q = parse_query("needle")
    assert (q.kind, q.needle, q.fold) == ("text", b"needle", True)
    assert parse_query("Needle").fold is False
    assert parse_query("hex:ff 00 01").needle == b"\xff\x00\x01"
    assert parse_query("hex:0xff00").needle == b"\xff\x00"
    assert parse_query("re:ne+dle").kind == "re"
    for bad, words in (("re:(", "not a regular expression: missing ), unterminated "
                                  "subpattern at position 0"),
                       ("hex:abc", "hex: needs pairs of hex digits, not 'abc'"),
                       ("hex:", "hex: needs at least one byte"), ("", "nothing to search for")):
        with pytest.raises(QueryError) as e:
            parse_query(bad)
        assert str(e.value) == words


def test_every_match_in_order_keys_values_headers_compressed(shop: Path) -> None:
    node = partition(shop, "orders-0")
    first = node.segments[0]
    data = Path(first.path).read_bytes()
    b1 = len(data) - len(w.v2_batch([w.Rec(key=b"eps", value=b"needle third",
                                           timestamp=w.TS0 + 5)], base_offset=5))
    got = list(Search(node.segments, parse_query("needle")).matches())
    assert [(m.segment, m.offset, m.field) for m in got] == [
        (0, 1, "header trace"), (0, 3, "value"), (0, 5, "value"), (1, 9, "value")]
    assert got[2].position == b1
    assert [m.offset for m in Search(node.segments, parse_query("Needle")).matches()] == []
    assert [m.offset for m in Search(node.segments, parse_query("NEEDLE")).matches()] == [9]
    assert [(m.offset, m.field) for m in
            Search(node.segments, parse_query("hex:ff0001")).matches()] == [(2, "key")]
    assert [m.offset for m in
            Search(node.segments, parse_query(r're:"n": [12]\}$')).matches()] == [0, 1]
    assert [m.offset for m in Search(node.segments, parse_query("re:^pl")).matches()] == [4]


def test_forward_backward_and_wrap(shop: Path) -> None:
    node = partition(shop, "orders-0")
    s = Search(node.segments, parse_query("needle"))

    def first(items: Any) -> Match | None:
        return next((i for i in items if isinstance(i, Match)), None)

    at3 = first(s.forward(Place(0, 0, 1)))
    assert at3 is not None and (at3.offset, at3.wrapped) == (3, False)
    m = first(s.forward(Place(at3.segment, at3.position, 3)))
    assert m is not None and m.offset == 5
    m = first(s.forward(Place(1, 0, 9)))  # the last: from the start again
    assert m is not None and (m.offset, m.wrapped) == (1, True)
    assert first(s.forward(Place(1, 0, 9), wrap=False)) is None
    m = first(s.backward(Place(at3.segment, at3.position, 3)))
    assert m is not None and (m.offset, m.wrapped) == (1, False)
    m = first(s.backward(Place(0, 0, 1)))  # the first: from the end again
    assert m is not None and (m.offset, m.wrapped) == (9, True)
    m = first(s.backward(Place(1, 0, 9)))
    assert m is not None and m.offset == 5
    sizes = [Path(x.path).stat().st_size for x in node.segments]
    none = Search(node.segments, parse_query("absent"))
    assert first(none.forward(Place(0, 0, 0), wrap=False)) is None
    assert none.bytes_read == sum(sizes)  # the partition once
    none = Search(node.segments, parse_query("absent"))
    assert first(none.forward(Place(0, 0, 0))) is None
    assert none.bytes_read == sum(sizes) + sizes[0]  # and the first segment's window again


def test_search_reads_to_the_match_and_no_more(big24: Path) -> None:
    node = partition(big24, "big-0")
    size = node.segments[0].size
    s = Search(node.segments, parse_query("k123456"), progress_bytes=1 << 20)
    items = list(s.forward(Place(0, 0, 0)))
    m = items[-1]
    assert isinstance(m, Match) and (m.offset, m.field) == (123456, "key")
    progress = [i for i in items if isinstance(i, Progress)]
    assert len(progress) == m.position >> 20  # one a MiB read
    assert all(p.total == size for p in progress)
    # streaming: the bytes up to the match's batch and at most the reader's window past it
    assert m.position < s.bytes_read <= m.position + 2 * SEARCH_CHUNK
    # from the match on: the bytes between, not the partition again
    s2 = Search(node.segments, parse_query("k123457"))
    items = list(s2.forward(Place(0, m.position, 123456)))
    assert isinstance(items[-1], Match) and items[-1].offset == 123457
    assert s2.bytes_read <= 2 * SEARCH_CHUNK
    # backwards: read back from the place in windows from the offset index, not from the
    # segment's start
    s4 = Search(node.segments, parse_query("k123400"))
    items = list(s4.backward(Place(0, m.position, 123456)))
    assert isinstance(items[-1], Match) and items[-1].offset == 123400
    assert s4.bytes_read <= 3 * SEARCH_CHUNK
    s5 = Search(node.segments, parse_query("re:k12(0|9)99[09]$"))
    items = list(s5.backward(Place(0, m.position, 123456)))
    assert isinstance(items[-1], Match) and items[-1].offset == 120999
    assert s5.bytes_read <= 4 * SEARCH_CHUNK  # 24 KB of batches back: the second window
    s6 = Search(node.segments, parse_query("re:^k5$"))
    items = list(s6.backward(Place(0, m.position, 123456)))
    assert isinstance(items[-1], Match) and (items[-1].offset, items[-1].wrapped) == (5, False)
    assert s6.bytes_read < m.position + 8 * SEARCH_CHUNK  # windows back to the start
    # a search that finds nothing reads the partition once, in windows (a batch a window
    # cuts is read again with the next: under 1%)
    s3 = Search(node.segments, parse_query("re:k9{7}"))
    assert not any(isinstance(i, Match) for i in s3.forward(Place(0, 0, 0), wrap=False))
    assert size <= s3.bytes_read < size + size // 100


def test_renderings() -> None:
    assert key_text(b"\xff\x00") == "0xff00" and key_text(b"ok") == "ok"
    assert key_text(None) == "null"
    v = b'{"a": [1, "x\\u001b"]}'
    assert render(v, "json") == '{\n  "a": [\n    1,\n    "x\\u001b"\n  ]\n}'
    assert render(b"\x00ab\xff", "text") == "\x00ab\\xff"
    assert render(b"\x00ab\xff", "auto") == "00000000  00 61 62 ff" + " " * 36 + "  |.ab.|"
    assert render(b"\x00ab\xff", "base64") == "AGFi/w=="
    assert render(b"nope", "json") == "not JSON: Expecting value: line 1 column 1 (char 0)"
    assert render(b"\xff", "json") == "not JSON: not UTF-8 (invalid start byte at byte 0)"
    assert render(None, "hex") == "null"
    assert render(b"x", "auto", "decoded") == "decoded"


# --- the screens ---------------------------------------------------------------------------


def test_json_of_a_binary_value_pretty_prints_dumps_decoding() -> None:
    assert render(b"\x00\x01", "json", '{"group": "g"}') == '{\n  "group": "g"\n}'
    assert render(b"\xff", "json", "plain words") == (
        "not JSON: not UTF-8 (invalid start byte at byte 0)")


def test_a_search_reads_past_damage(shop_damaged: dict[str, Any]) -> None:
    node = partition(shop_damaged["dir"], "orders-1")
    size = node.segments[0].size
    s = Search(node.segments, parse_query("zzz"))
    got = list(s.matches())
    assert [(m.offset, m.field) for m in got] == [(2, "value")]  # after the garbage
    assert s.scanned == size  # the damaged stretch counted as read
    assert [m.offset for m in Search(node.segments, parse_query("yyy")).matches()] == []
    crc = partition(shop_damaged["dir"], "orders-0")  # a batch failing its CRC is searched
    assert [m.offset for m in Search(crc.segments, parse_query("apple")).matches()] == [0]
