"""Copies of JSON-shaped data: views, results and records never share mutable parts with
the state they come from (one helper for the view gate, the review and the reducer)."""

from __future__ import annotations

from typing import Any


def jcopy(v: Any) -> Any:
    """A copy of JSON-shaped data (dicts and lists copied all the way down, scalars shared)."""
    if isinstance(v, dict):
        return {k: jcopy(x) if isinstance(x, dict | list) else x for k, x in v.items()}
    if isinstance(v, list):
        return [jcopy(x) if isinstance(x, dict | list) else x for x in v]
    return v
