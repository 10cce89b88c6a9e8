"""The bots' phrasebook: short public lines by intent and language, and how to read them back.

A line is chosen by intent (``greet``, ``suspect``, ``sure``, ``trust``, ``notMe``, ``muse``
(small talk that names nobody), ``kill``, ``gg``) and language (``LANGS``), among several natural variants, with ``{name}`` filled by
the player's display name (the id when the view has no names or the chat filter refuses the
name). Lines that accuse or clear someone (``CLAIM_INTENTS``) are recognised again in the
chat, in every language, so bots (and the evidence model) understand each other.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterable

from ..chat import check_text
from ..errors import InvalidAction

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

# Lines that say something about the player they name, strongest first (the order in which
# ``claim_of`` tries them).
CLAIM_INTENTS = ("sure", "suspect", "trust")


def variants(intent: str, lang: str) -> tuple[str, ...]:
    """Every variant of ``intent`` in ``lang`` (English for a language the book lacks)."""
    by_lang = LINES[intent]
    return by_lang.get(lang) or by_lang[DEFAULT_LANG]


def line(
    intent: str,
    lang: str,
    pick: random.Random,
    names: Iterable[str] = (),
    kid_safe: bool = True,
    offset: int = 0,
) -> str | None:
    """One variant of ``intent`` in ``lang`` chosen by ``pick`` and shifted by ``offset``, with
    ``{name}`` filled by the first of ``names`` the chat filter accepts (lines without a name:
    ``names`` unused); None when the filter refuses every candidate. Seats that draw alike and
    shift by their seat number say different variants (as many as there are)."""
    options = variants(intent, lang)
    template = options[(pick.randrange(len(options)) + offset) % len(options)]
    candidates = [template.replace("{name}", n) for n in names] if "{name}" in template else [template]
    for text in candidates:
        try:
            return check_text(text, kid_safe)
        except InvalidAction:
            continue
    return None


def _claim_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    """One regex for every claim variant of every language: group ``c<i>`` holds the name."""
    alts = []
    kinds = {}
    i = 0
    for intent in CLAIM_INTENTS:
        for lang_lines in LINES[intent].values():
            for t in lang_lines:
                group = f"c{i}"
                kinds[group] = intent
                alts.append(re.escape(t).replace(re.escape("{name}"), f"(?P<{group}>.+?)"))
                i += 1
    return re.compile("|".join(f"(?:{a})" for a in alts), re.IGNORECASE), kinds


_CLAIM_RE, _CLAIM_KIND = _claim_pattern()


@functools.lru_cache(maxsize=4096)
def claim_of(text: str) -> tuple[str, str] | None:
    """(intent, the name as written) if ``text`` is one of the phrasebook's claim lines."""
    m = _CLAIM_RE.fullmatch(text.strip())
    if m is None or m.lastgroup is None:
        return None
    return _CLAIM_KIND[m.lastgroup], m.group(m.lastgroup)


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
