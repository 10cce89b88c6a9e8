"""One options model for every preset: a table of option specs, validated generically.

Each preset lists its ``OptionSpec``s; ``normalise`` fills defaults and refuses unknown keys
and bad values with code ``bad_options`` and a message naming the key. ``schema`` turns the
table into the JSON the web client builds its options editor from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InvalidAction, quoted

_ON = {"on": True, "off": False}


@dataclass(frozen=True)
class OptionSpec:
    key: str
    type: str  # "bool" | "int" | "choice" | "multi"
    default: Any
    choices: tuple | None = None  # for choice / multi
    min: int | None = None  # for int
    max: int | None = None
    help: str = ""

    def check(self, value: Any) -> Any:
        """The normalised value, or InvalidAction(bad_options) naming the key."""
        bad = InvalidAction(
            "bad_options", f"option {self.key!r}: {quoted(value)} is not allowed ({self.describe()})"
        )
        if self.type == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value in _ON:
                return _ON[value]
            raise bad
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
                raise bad
            value = int(value)
            if not (self.min <= value <= self.max):
                raise bad
            return value
        if self.type == "choice":
            if isinstance(value, bool):
                raise bad
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if value not in self.choices:
                raise bad
            return value
        if self.type == "multi":
            if not isinstance(value, list | tuple):
                raise bad
            out = []
            for item in value:
                if not isinstance(item, str) or item not in self.choices or item in out:
                    raise bad
                out.append(item)
            # canonical order: the order of the spec, so equal sets compare equal
            return [c for c in self.choices if c in out]
        raise AssertionError(self.type)

    def describe(self) -> str:
        if self.type == "bool":
            return "true or false"
        if self.type == "int":
            return f"an integer from {self.min} to {self.max}"
        if self.type == "choice":
            return "one of " + ", ".join(map(str, self.choices))
        return "a list of distinct items from " + ", ".join(map(str, self.choices))

    def to_json(self) -> dict:
        out: dict[str, Any] = {"key": self.key, "type": self.type, "default": self.default}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.min is not None:
            out["min"] = self.min
            out["max"] = self.max
        if self.help:
            out["help"] = self.help
        return out


def normalise(specs: Sequence[OptionSpec], raw: Any, preset: str) -> dict:
    """Defaults filled, values checked; ``preset`` is kept as the first key."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidAction("bad_options", "options must be an object")
    by_key = {s.key: s for s in specs}
    for key in raw:
        if key != "preset" and key not in by_key:
            raise InvalidAction("bad_options", f"unknown option {quoted(key)} for preset {preset!r}")
    out: dict[str, Any] = {"preset": preset}
    for spec in specs:
        out[spec.key] = spec.check(raw[spec.key]) if spec.key in raw else spec.default
    return out


def schema(specs: Sequence[OptionSpec]) -> list[dict]:
    return [s.to_json() for s in specs]
