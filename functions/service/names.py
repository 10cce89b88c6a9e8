"""The player-name rule, one place for every seat (REST creates and joins, bot seats).

A name is stored normalized (NFKC, runs of white space made one space, trimmed), 1 to
`NAME_MAX` characters, and refused (`bad_name`) when it holds control or format characters
(tabs, new lines, RTL overrides, zero-width spaces, lone surrogates), when nothing visible is
left, or when the kid-safe chat filter would block it as a message. Two names are the same
name when their `key`s are equal: case-folded, with Cyrillic and Greek letters that look like
Latin ones read as those ("Host" and "Нost" with a Cyrillic Н are one name).

Plain functions: the WebSocket side checks `addBot` names with them in its pydantic frame
(`frames.AddBot`, an `AfterValidator`), REST in its body models (`models.Body`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from mafia_engine.chat import kid_safe_refusal

from .errors import ServiceError

NAME_MAX = 24
BAD_NAME = "bad_name"
# control, format (RTL overrides, zero-width), surrogate, private use, unassigned; line breaks
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# letters and symbols that render as nothing (Hangul fillers, the blank Braille pattern)
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_SPACES = re.compile(r"\s+")
# Letters drawn like Latin ones (Unicode TR39 confusables, the common Cyrillic/Greek part),
# after case folding.
_SKELETON = str.maketrans(
    {
        **dict(zip("авсеёһіјкмнорԛѕтуԝхүӏ", "abceehijkmhopqstywxyl", strict=True)),
        **dict(zip("αβεηικνορτυχω", "abenikvoptuxw", strict=True)),
        "0": "o",
        "1": "l",
    }
)


def _refuse(message: str) -> ServiceError:
    return ServiceError(BAD_NAME, message)


def clean(raw: Any) -> str:
    """The name to store, or ServiceError(`bad_name`) saying why it is refused."""
    if not isinstance(raw, str):
        raise _refuse("a name is a string")
    if len(raw) > 4 * NAME_MAX:  # before any work on it
        raise _refuse(f"a name has at most {NAME_MAX} characters")
    for ch in raw:
        if unicodedata.category(ch) in _REFUSED_CATEGORIES:
            raise _refuse(f"a name cannot hold control or invisible characters (U+{ord(ch):04X})")
    name = _SPACES.sub(" ", unicodedata.normalize("NFKC", raw)).strip()
    if not name:
        raise _refuse("a name cannot be empty")
    if len(name) > NAME_MAX:
        raise _refuse(f"a name has at most {NAME_MAX} characters")
    if not any(unicodedata.category(ch)[0] in "LNPS" and ch not in _INVISIBLE for ch in name):
        raise _refuse("a name needs a visible letter, digit or symbol")
    if kid_safe_refusal(name):
        raise _refuse("that name is not allowed (the kid-safe filter blocks it)")
    return name


def key(name: str) -> str:
    """What two names are compared by: case-folded, look-alike letters read as Latin ones."""
    return unicodedata.normalize("NFKC", name).casefold().translate(_SKELETON)
