"""Times as a user types them: epoch milliseconds or ISO-8601, to Kafka's epoch
milliseconds (``find-time``'s target, ``metadata --at-time`` and ``--diff`` points).

On the ground floor: the metadata replay (``--diff`` points) and the command line both
parse them, and neither floor has to reach into another's module for it.
"""

from __future__ import annotations

from .errors import UsageError

#: bare numbers in this range are epoch seconds of 2001-2286 but milliseconds of
#: 1970-01-12 to 1973-03-03: refused as ambiguous (an ISO time says either)
SECONDS_LOOKALIKE = (10**9, 10**11)


def parse_timestamp(text: str, what: str = "find-time") -> int:
    """Epoch milliseconds, or ISO-8601 (``2024-05-01T09:14:00Z``, ``+02:00`` offsets
    allowed; no offset means UTC).  ``what`` names the command or option in errors."""
    from datetime import datetime, timezone

    t = text.strip()
    if t.lstrip("-").isdigit():
        try:
            n = int(t)
        except ValueError:  # past 4300 digits, or digits int() does not take ('²')
            raise UsageError(f"{text[:40]!r} is not a timestamp in epoch milliseconds") from None
        if SECONDS_LOOKALIKE[0] <= n < SECONDS_LOOKALIKE[1]:
            iso = datetime.fromtimestamp(n, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            raise UsageError(
                f"{n} looks like epoch seconds ({iso}); {what} takes epoch milliseconds: "
                f"use {n * 1000} or {iso} (as milliseconds it would be "
                f"{datetime.fromtimestamp(n / 1000, tz=timezone.utc):%Y-%m-%dT%H:%M:%S}Z; "
                "give that ISO time to mean it)")
        return n
    iso = t[:-1] + "+00:00" if t.endswith(("Z", "z")) else t
    try:
        dt = datetime.fromisoformat(iso)
    except ValueError:
        raise UsageError(f"{text!r} is neither epoch milliseconds nor an ISO-8601 time "
                         "(e.g. 2024-05-01T09:14:00Z)") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    # whole milliseconds, computed exactly (no float rounding)
    delta = dt - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def iso_ms(ms: int | None, unknown: str = "an unknown time") -> str:
    """Epoch milliseconds as ISO-8601 UTC to the millisecond (``2023-11-14T22:13:20.049Z``);
    ``unknown`` for None or a negative time (Kafka's -1: none)."""
    import time

    if ms is None or ms < 0:
        return unknown
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


__all__ = ["SECONDS_LOOKALIKE", "iso_ms", "parse_timestamp"]
