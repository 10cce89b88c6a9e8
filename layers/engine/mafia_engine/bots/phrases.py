"""The phrasebook: the wordings of each chat phrase (``chat.PHRASES``) in every language.

A phrase (``greet``, ``suspect``, ``sure``, ``trust``, ``notMe``, ``muse`` (small talk that
names nobody), ``kill``, ``gg``) is sent and stored as its id, the player it names (an id) and
a variant number, never as text (``chat.check_message``); each phone draws it in its own
language with ``{name}`` as that phone shows the player (web/js/game/bot-phrases.js is a
generated copy of ``LINES``). Bots speak only in phrases and people may use them too, so a
line marks no one, and nobody parses prose back into an intent (docs/rules.md, "Anonymous
games").
"""

from __future__ import annotations

import functools
import re

from ..chat import PHRASES

LANGS = ("en", "ko", "ru")
DEFAULT_LANG = "en"

# intent -> language -> variants. ``{name}``: the player the line is about.
LINES: dict[str, dict[str, tuple[str, ...]]] = {
    "greet": {
        "en": ("Hi all!", "Hello everyone", "Hi! Good luck.", "Hey everyone, good luck!", "Evening, all."),
        "ko": ("안녕하세요!", "다들 반가워요", "잘 부탁해요!", "모두 즐거운 게임 해요!"),
        "ru": ("Всем привет!", "Привет всем", "Удачи всем!", "Добрый вечер, город!"),
    },
    "suspect": {
        "en": ("I suspect {name}.", "{name} looks suspicious to me.", "Something about {name} feels off."),
        "ko": ("{name} 님이 수상해요.", "저는 {name} 님을 의심해요.", "{name} 님 좀 이상하지 않아요?"),
        "ru": (
            "Подозреваю: {name}.",
            "{name} вызывает у меня подозрения.",
            "{name} странно себя ведёт.",
        ),
    },
    "sure": {
        "en": ("{name} is mafia, I'm sure.", "I know it: {name} is mafia."),
        "ko": ("{name} 님은 마피아예요. 확실해요.", "{name} 님이 마피아인 게 확실해요."),
        "ru": ("{name} — мафия, без сомнений.", "Точно говорю: {name} — мафия."),
    },
    "trust": {
        "en": ("I trust {name}.", "{name} is on the town's side, I checked."),
        "ko": ("{name} 님은 믿을 수 있어요.", "{name} 님은 시민이 맞아요."),
        "ru": ("{name} вне подозрений.", "{name} — мирный житель, проверено."),
    },
    "notMe": {
        "en": ("I'm not mafia!", "It's not me, I promise.", "Wait, I'm on the town's side!"),
        "ko": ("저 마피아 아니에요!", "저는 아니에요, 정말이에요.", "억울해요, 저 시민이에요!"),
        "ru": ("Я не мафия!", "Это не я, честно.", "Я мирный житель, поверьте!"),
    },
    "muse": {
        "en": (
            "Hard to say yet.",
            "Let's hear from everyone.",
            "Anyone noticed anything?",
            "I'm still thinking.",
        ),
        "ko": (
            "아직 잘 모르겠어요.",
            "다들 의견 들어봐요.",
            "뭐 눈치챈 사람 있어요?",
            "조금 더 생각해 볼게요.",
        ),
        "ru": (
            "Пока сложно сказать.",
            "Давайте послушаем всех.",
            "Кто-нибудь что-то заметил?",
            "Я ещё думаю.",
        ),
    },
    "kill": {
        "en": ("Let's take {name} tonight.", "How about {name} tonight?"),
        "ko": ("오늘 밤은 {name} 님으로 해요.", "오늘은 {name} 님 어때요?"),
        "ru": ("Цель на эту ночь: {name}.", "Может, сегодня наша цель — {name}?"),
    },
    "gg": {
        "en": ("Good game!", "GG, well played!", "That was fun, good game."),
        "ko": ("수고하셨습니다!", "재밌었어요, 수고하셨어요!"),
        "ru": ("Хорошая игра!", "Спасибо за игру!"),
    },
}

# Phrases that say something about the player they name (the evidence model's claims).
CLAIM_INTENTS = ("sure", "suspect", "trust")

# A phrase's variant is a number below this, the same for every language: each phone takes it
# modulo the wordings its language has (every count of wordings above divides it).
VARIANTS = 60

assert set(LINES) == set(PHRASES), "every phrase id has wordings, and every wording an id"
assert all(VARIANTS % len(v) == 0 for by in LINES.values() for v in by.values())


def variants(intent: str, lang: str) -> tuple[str, ...]:
    """Every variant of ``intent`` in ``lang`` (English for a language the book lacks)."""
    by_lang = LINES[intent]
    return by_lang.get(lang) or by_lang[DEFAULT_LANG]


def render(m: dict, lang: str, names: dict[str, str]) -> str:
    """A chat message as read in ``lang``: its text, or its phrase's wording with ``{name}``
    as ``names`` shows the player (the id when it has none). What each phone does in
    web/js/game/bot-lines.js; the server keeps phrases as they are and renders only for tests
    and tools."""
    if m.get("phrase") is None:
        return m.get("text") or ""
    options = variants(m["phrase"], lang)
    text = options[int(m.get("variant") or 0) % len(options)]
    target = (m.get("args") or {}).get("target")
    return text.replace("{name}", names.get(target, target)) if target is not None else text


@functools.lru_cache(maxsize=64)
def _mention_re(keys: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    alts = "|".join(re.escape(k) for k, _ in sorted(keys, key=lambda kv: len(kv[0]), reverse=True))
    return re.compile(r"(?<![0-9a-z_])(?:" + alts + r")(?![0-9a-z_])")


@functools.lru_cache(maxsize=8192)
def mentions(text: str, keys: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The players ``text`` names (ids or names in ``keys``: (lower-case key, id)), in order, each once."""
    table = dict(keys)
    out: list[str] = []
    for k in _mention_re(keys).findall(text.lower()):
        pid = table[k]
        if pid not in out:
            out.append(pid)
    return tuple(out)
