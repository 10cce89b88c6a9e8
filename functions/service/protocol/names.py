"""The player-name rule, one place for every seat (REST creates and joins, bot seats).

A name is stored normalized (NFKC, default-ignorable and invisible characters removed, runs
of white space made one space, trimmed), 1 to `NAME_MAX` characters, and refused (`bad_name`)
when it holds control or format characters (tabs, new lines, RTL overrides, zero-width
spaces, lone surrogates), when nothing visible is left, or when the kid-safe chat filter would
block it as a message. Two names are the same name when they share a key (`keys`): the Unicode
TR39 confusable skeleton (`confusables.skeleton`), case-folded, read both ways round (skeleton
then case, case then skeleton) and with small capitals read as letters: "Host", "host",
"Ηost" (Greek Η), "Нost" (Cyrillic), "ʜost" (small capital) and "Host" + a Hangul filler are
one name. docs/protocol.md, "Names", lists what is refused.

Plain functions: the WebSocket side checks `addBot` names with them in its pydantic frame
(`frames.AddBot`, an `AfterValidator`), REST in its body models (`models.Body`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from mafia_engine.chat import kid_safe_refusal

from ..infra.errors import ServiceError
from .confusables import skeleton

NAME_MAX = 24
BAD_NAME = "bad_name"
# a bot seat's default name is "<word> N" in the room's language (one word per room language;
# the client reads it back in the viewer's language: web/js/game/shared-constants.js)
BOT_WORD = {"en": "Bot", "ko": "봇", "ru": "Бот"}
# control, format (RTL overrides, zero-width), surrogate, private use, unassigned; line breaks
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# letters and symbols that render as nothing (Hangul fillers, the blank Braille pattern)
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Default_Ignorable_Code_Point (Unicode 15.0 DerivedCoreProperties.txt): drawn as nothing
# when a font lacks them. The format (Cf) ones are refused above; the rest (combining
# grapheme joiner U+034F, Hangul fillers, Khmer inherent vowels U+17B4-5, Mongolian and
# other variation selectors) are removed from the name before it is shown or compared.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
# Latin small capitals, read as their letters once case no longer counts: TR39's prototypes
# for Cyrillic в к м н т are these (a lower-case "н" is drawn as a small capital H).
_SMALL_CAPITALS = str.maketrans(
    dict(zip("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡʏᴢ", "abcdefghijklmnopqrstuvwyz", strict=True))
)
_SPACES = re.compile(r"\s+")


def invisible(ch: str) -> bool:
    """Drawn as nothing: default-ignorable (Unicode) or one of the blank letters/symbols."""
    o = ord(ch)
    return ch in _INVISIBLE or any(a <= o <= b for a, b in _DEFAULT_IGNORABLE)


def strip_invisible(s: str) -> str:
    """`s` without the characters drawn as nothing (before a name is shown or compared)."""
    return "".join(ch for ch in s if not invisible(ch))


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
    name = _SPACES.sub(" ", strip_invisible(unicodedata.normalize("NFKC", raw))).strip()
    if not name:
        raise _refuse("a name cannot be empty")
    if len(name) > NAME_MAX:
        raise _refuse(f"a name has at most {NAME_MAX} characters")
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):
        raise _refuse("a name needs a visible letter, digit or symbol")
    if kid_safe_refusal(name):
        raise _refuse("that name is not allowed (the kid-safe filter blocks it)")
    return name


def keys(name: str) -> frozenset[str]:
    """What two names are compared by: they are the same name when they share a key. The
    TR39 skeleton is case-sensitive (Greek Η is drawn as H, its lower case η as n; Latin I
    as l), so it is taken before case folding (Η → H → h) and after it (I → i), the small
    capitals it leads to read as letters (Cyrillic н → ʜ → h)."""
    s = strip_invisible(unicodedata.normalize("NFKC", name))
    return frozenset(
        skeleton(skeleton(skeleton(form).casefold()).translate(_SMALL_CAPITALS)) for form in (s, s.casefold())
    )


def same(a: str, b: str) -> bool:
    """Whether two names are one name (`keys`)."""
    return not keys(a).isdisjoint(keys(b))


def key(name: str) -> str:
    """One canonical key of a name (its first `keys`, sorted): for logs and maps, not for
    deciding whether two names are the same (`same`)."""
    return min(keys(name))
