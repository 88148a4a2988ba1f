"""Typed columns of decoded payloads (placeholder until the typed columns land)."""

from __future__ import annotations

from typing import Any


def typed_columns(topic: str | None, decoder: Any, read: Any, s: Any) -> list[tuple[Any, Any]]:
    return []
