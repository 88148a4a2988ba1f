"""Write the index files Kafka would rebuild, into a directory of the user's choosing.

Layout: ``DIR/<partition directory name>/<base offset>.index|.timeindex|.txnindex``,
byte-exact with what LogSegment.recover writes (offset index entries of relative
offset and position; time index entries of timestamp and relative offset; 34-byte
aborted-transaction entries of version 0).
"""

from __future__ import annotations

import os

from .. import layouts as L
from ..errors import InputError


def _target(out_dir: str, log_path: str, base: int, suffix: str) -> str:
    part = os.path.basename(os.path.dirname(os.path.abspath(log_path)))
    d = os.path.join(out_dir, part)
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create directory: {e.strerror}", path=d) from None
    target = os.path.join(d, f"{base:0{L.OFFSET_DIGITS}d}{suffix}")
    if os.path.exists(target) and os.path.samefile(os.path.dirname(target),
                                                  os.path.dirname(os.path.abspath(log_path))):
        raise InputError("refusing to overwrite an input file", path=target)
    return target


def _write(target: str, data: bytes) -> None:
    tmp = target + ".kdump-tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except OSError as e:
        raise InputError(f"cannot write: {e.strerror}", path=target) from None


def write_rebuilt(out_dir: str, log_path: str, base: int, suffix: str,
                  entries: list[tuple[int, int]]) -> str:
    """``entries``: (offset, position) for ``.index``, (timestamp, offset) for
    ``.timeindex``; offsets absolute."""
    target = _target(out_dir, log_path, base, suffix)
    if suffix == L.INDEX_SUFFIX:
        data = b"".join(L.OFFSET_INDEX_ENTRY.pack(o - base, p) for o, p in entries)
    else:
        data = b"".join(L.TIME_INDEX_ENTRY.pack(t, o - base) for t, o in entries)
    _write(target, data)
    return target


def write_rebuilt_txn(out_dir: str, log_path: str, base: int,
                      entries: list[tuple[int, int, int, int]]) -> str:
    target = _target(out_dir, log_path, base, L.TXN_INDEX_SUFFIX)
    _write(target, b"".join(L.TXN_INDEX_ENTRY.pack(0, pid, first, last, lso)
                            for pid, first, last, lso in entries))
    return target
