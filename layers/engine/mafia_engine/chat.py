"""Chat messages: length, rate limit, the kid-safe filter, phrases, and the bounded window in the state.

A message is free text (``text``, checked by ``check_text``) or a phrase (``phrase``, ``args``,
``variant``, checked by ``check_phrase``): an id from ``PHRASES`` and the players it names, which
every phone draws in its own language (web/js/game/bot-lines.js, from the phrasebook of
``bots/phrases.py``). Bots speak in phrases only; people may too (the chat box's quick phrases),
so a phrase line marks no one (docs/rules.md, "Anonymous games").

Channel permissions are the preset's (``Preset.write_channels`` / ``read_channels``); this
module checks everything else and appends. The state keeps only a window of recent messages
per channel (``WINDOW`` messages, ``WINDOW_BYTES`` of text) so it stays small (DynamoDB items are capped at 400 KB); the room
layer archives the full log elsewhere if it wants one.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from .errors import InvalidAction, quoted

MAX_CHARS = 200
MIN_INTERVAL = 0.7  # seconds between two messages of one player
# The window per channel: at most this many messages and this many UTF-8 bytes of text
# (200 Korean characters are 600 bytes), so a full game stays under 64 KB of UTF-8 JSON.
WINDOW = {"day": 60, "system": 40, "mafia": 30, "yakuza": 30, "dead": 30, "lovers": 20}
WINDOW_BYTES = {
    "day": 12_000,
    "system": 5_000,
    "mafia": 6_000,
    "yakuza": 6_000,
    "dead": 6_000,
    "lovers": 4_000,
}

# Small on purpose: the filter is a speed bump for a kids' game, not a moderation system.
_WORDS_EN = (
    "fuck",
    "shit",
    "bitch",
    "asshole",
    "cunt",
    "motherfucker",
    "bastard",
    "dickhead",
    "slut",
    "whore",
    "nigger",
    "faggot",
)
_WORDS_KO = (
    "씨발",
    "시발",
    "씨바",
    "ㅅㅂ",
    "ㅆㅂ",
    "병신",
    "ㅂㅅ",
    "개새끼",
    "개세끼",
    "좆",
    "지랄",
    "니애미",
    "느금마",
    "염병",
    "썅",
)
_WORDS_RU = (
    "блять",
    "блядь",
    "бля",
    "сука",
    "хуй",
    "хуе",
    "хуя",
    "пизд",
    "ебат",
    "ебан",
    "ёбан",
    "наху",
    "мудак",
    "мудил",
    "залуп",
    "гандон",
    "шлюх",
)
_EN_RE = re.compile(r"(?<![a-z])(?:" + "|".join(_WORDS_EN) + r")(?:s|es|ed|ing|er|ers)?(?![a-z])")
_LINK_RE = re.compile(
    r"(?:https?://|www\.|\b[a-z0-9][a-z0-9-]*\.(?:com|net|org|io|kr|ru|gg|me|ly|co|xyz|app|dev|info|biz|su|рф)\b)",
    re.IGNORECASE,
)
_PHONE_RE = re.compile(r"(?:\+?\d[\d\s().-]{6,}\d)")


def _squash(text: str) -> str:
    # lower case, fold look-alikes, drop spaces and punctuation that split a word ("씨 발", "f.u.c.k")
    t = unicodedata.normalize("NFKC", text).lower().replace("ё", "е")
    return "".join(ch for ch in t if ch.isalnum())


def kid_safe_refusal(text: str) -> tuple[str, str] | None:
    """(code, reason) if the kid-safe filter blocks ``text``, else None."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    if _LINK_RE.search(lowered):
        return "blocked_link", "links are not allowed in chat"
    for m in _PHONE_RE.finditer(lowered):
        if sum(ch.isdigit() for ch in m.group()) >= 8:
            return "blocked_phone", "phone numbers are not allowed in chat"
    if _EN_RE.search(lowered):
        return "blocked_word", "that word is not allowed in chat"
    squashed = _squash(text)
    for w in _WORDS_KO + _WORDS_RU:
        if w.replace("ё", "е") in squashed:
            return "blocked_word", "that word is not allowed in chat"
    if any(w in squashed for w in ("fuck", "motherfuck")):
        return "blocked_word", "that word is not allowed in chat"
    return None


def check_text(text: str, kid_safe: bool) -> str:
    """The text to store, or InvalidAction with the reason it is refused."""
    t = text.strip()
    if not t:
        raise InvalidAction("empty_message", "the message is empty")
    if len(t) > MAX_CHARS:
        raise InvalidAction(
            "too_long", f"messages are limited to {MAX_CHARS} characters (this one has {len(t)})"
        )
    if kid_safe:
        refusal = kid_safe_refusal(t)
        if refusal:
            raise InvalidAction(*refusal)
    return t


# phrase id -> the arguments it takes (each a player id of the game). The phrasebook
# (bots/phrases.py LINES) has a text for each in every language.
PHRASES: dict[str, tuple[str, ...]] = {
    "greet": (),
    "suspect": ("target",),
    "sure": ("target",),
    "trust": ("target",),
    "notMe": (),
    "muse": (),
    "kill": ("target",),
    "gg": (),
}
MAX_VARIANT = 99  # a phrase's variant index (each phone takes it modulo the variants it has)
PHRASE_BYTES = 40  # what a phrase counts against the window's byte budget


def check_phrase(s: dict, phrase: str, args: dict | None, variant: int | None) -> dict:
    """The stored fields of a phrase message (``phrase``, ``args``, ``variant``), or
    InvalidAction: ``unknown_phrase`` for an id not in ``PHRASES``, ``bad_phrase_args`` for
    missing, extra or unknown-player arguments or a variant out of range."""
    if phrase not in PHRASES:
        raise InvalidAction("unknown_phrase", f"there is no phrase {quoted(phrase)}")
    args = dict(args or {})
    want = PHRASES[phrase]
    if set(args) != set(want):
        need = ", ".join(want) or "no arguments"
        raise InvalidAction("bad_phrase_args", f"the phrase {quoted(phrase)} takes {need}")
    ids = {p["id"] for p in s["players"]}
    for k in want:
        if args[k] not in ids:
            raise InvalidAction("bad_phrase_args", f"there is no player {quoted(args[k])} in this game")
    v = 0 if variant is None else variant
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_VARIANT:
        raise InvalidAction("bad_phrase_args", f"a phrase variant is a number from 0 to {MAX_VARIANT}")
    return {"phrase": phrase, "args": {k: args[k] for k in want}, "variant": v}


def check_message(s: dict, a: Any, kid_safe: bool) -> dict:
    """A chat action's stored content: ``{"text"}`` or the phrase fields (one form only)."""
    if a.phrase is not None:
        if a.text is not None:
            raise InvalidAction("bad_phrase_args", "a message is either text or a phrase, not both")
        return check_phrase(s, a.phrase, a.args, a.variant)
    if a.args is not None or a.variant is not None:
        raise InvalidAction("bad_phrase_args", "args and variant go with a phrase")
    return {"text": check_text(a.text or "", kid_safe)}


def size(m: dict) -> int:
    """What a message counts against its channel's byte budget."""
    return len(m["text"].encode()) if "text" in m else PHRASE_BYTES


def check_rate(player: dict, now: float) -> None:
    last = player.get("lastChatAt")
    if last is not None and now - last < MIN_INTERVAL - 1e-9:
        raise InvalidAction("rate_limited", f"one message per {MIN_INTERVAL} s, please wait a moment")


def append(s: dict, channel: str, sender: str | None, text: str | dict, now: float) -> None:
    """Add a message and drop the oldest of its channel beyond the window.

    Each channel counts its own messages: the id is ``"<channel>:<n>"``, so the ids a viewer
    reads never show how many messages went to channels they cannot read (docs/rules.md,
    "Chat (§5.6)", a section of docs/rulebooks/000-classic.txt). The counters dict is replaced,
    never changed, as ``clone`` shares it; a state saved before per-channel ids (no
    ``chatSeqs``) starts counting here. ``text`` is the text, or a phrase's fields
    (``check_message``), stored in place of ``text``.
    """
    seqs = s.get("chatSeqs") or {}
    n = seqs.get(channel, 0) + 1
    s["chatSeqs"] = {**seqs, channel: n}
    chat = s["chat"]
    chat.append(
        {
            "id": f"{channel}:{n}",
            "channel": channel,
            "from": sender,
            **({"text": text} if isinstance(text, str) else text),
            "at": float(now),
            "day": s["day"],
        }
    )
    limit = WINDOW.get(channel, 30)
    budget = WINDOW_BYTES.get(channel, 4_000)
    mine = [i for i, m in enumerate(chat) if m["channel"] == channel]
    drop = max(0, len(mine) - limit)
    used = sum(size(chat[i]) for i in mine[drop:])
    while used > budget and drop < len(mine) - 1:
        used -= size(chat[mine[drop]])
        drop += 1
    for i in reversed(mine[:drop]):
        del chat[i]
