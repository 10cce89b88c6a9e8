"""Chat messages: length, rate limit, the kid-safe filter, and the bounded window in the state.

Channel permissions are the preset's (``Preset.write_channels`` / ``read_channels``); this
module checks everything else and appends. The state keeps only a window of recent messages
per channel (``WINDOW`` messages, ``WINDOW_BYTES`` of text) so it stays small (DynamoDB items are capped at 400 KB); the room
layer archives the full log elsewhere if it wants one.
"""

from __future__ import annotations

import re
import unicodedata

from .errors import InvalidAction

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


def check_rate(player: dict, now: float) -> None:
    last = player.get("lastChatAt")
    if last is not None and now - last < MIN_INTERVAL - 1e-9:
        raise InvalidAction("rate_limited", f"one message per {MIN_INTERVAL} s, please wait a moment")


def append(s: dict, channel: str, sender: str | None, text: str, now: float) -> None:
    """Add a message and drop the oldest of its channel beyond the window.

    Each channel counts its own messages: the id is ``"<channel>:<n>"``, so the ids a viewer
    reads never show how many messages went to channels they cannot read (docs/rules.md,
    "Chat (§5.6)", a section of docs/rulebooks/000-classic.txt). The counters dict is replaced,
    never changed, as ``clone`` shares it; a state saved before per-channel ids (no
    ``chatSeqs``) starts counting here.
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
            "text": text,
            "at": float(now),
            "day": s["day"],
        }
    )
    limit = WINDOW.get(channel, 30)
    budget = WINDOW_BYTES.get(channel, 4_000)
    mine = [i for i, m in enumerate(chat) if m["channel"] == channel]
    drop = max(0, len(mine) - limit)
    size = sum(len(chat[i]["text"].encode()) for i in mine[drop:])
    while size > budget and drop < len(mine) - 1:
        size -= len(chat[mine[drop]]["text"].encode())
        drop += 1
    for i in reversed(mine[:drop]):
        del chat[i]
