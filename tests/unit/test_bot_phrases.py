"""The bots' phrasebook: every intent in every language, names filled, claims read back."""

from __future__ import annotations

import re

import pytest

import mafia_engine as me
from mafia_engine import bots
from mafia_engine.bots import phrases


@pytest.mark.parametrize("lang", phrases.LANGS)
def test_every_intent_has_natural_variants_in_every_language(lang):
    for intent, by_lang in phrases.LINES.items():
        assert len(by_lang[lang]) >= 2, (intent, lang)
        named = {"{name}" in t for t in by_lang[lang]}
        assert len(named) == 1, f"{intent}/{lang}: every variant names a player, or none does"


@pytest.mark.parametrize("lang", phrases.LANGS)
def test_a_claim_phrase_names_the_player_in_every_language(lang):
    for intent in phrases.CLAIM_INTENTS:
        for variant in range(phrases.VARIANTS):
            m = {"phrase": intent, "args": {"target": "p3"}, "variant": variant}
            text = phrases.render(m, lang, {"p3": "Мария Ким"})
            assert "Мария Ким" in text and text in [t.replace("{name}", "Мария Ким") for t in phrases.LINES[intent][lang]]


def test_a_phrase_renders_by_variant_modulo_the_languages_wordings():
    for lang in phrases.LANGS:
        options = phrases.LINES["muse"][lang]
        for variant in (0, 1, 7, 59):
            assert phrases.render({"phrase": "muse", "args": {}, "variant": variant}, lang, {}) == options[
                variant % len(options)
            ]
    assert phrases.render({"text": "hi"}, "ru", {}) == "hi"


def test_an_unknown_language_speaks_english():
    assert phrases.variants("gg", "xx") == phrases.LINES["gg"]["en"]


SCRIPT = {"ru": re.compile(r"[А-Яа-яЁё]"), "ko": re.compile(r"[가-힣]")}
RAW_ID = re.compile(r"(?<![0-9A-Za-z_])p\d+(?![0-9A-Za-z_])")


@pytest.mark.parametrize("lang", sorted(SCRIPT))
def test_every_variant_is_written_in_its_languages_script(lang):
    """Bot lines in the room's language (docs/architecture.md, "Bots"): no English word in a Korean
    or Russian line."""
    for intent, by_lang in phrases.LINES.items():
        for text in by_lang[lang]:
            bare = text.replace("{name}", "")
            assert SCRIPT[lang].search(bare), (intent, text)
            assert not re.search(r"[A-Za-z]", bare), (intent, text)


@pytest.mark.parametrize("lang", phrases.LANGS)
def test_each_language_has_its_own_variants_not_one_line(lang):
    for intent, by_lang in phrases.LINES.items():
        assert len(set(by_lang[lang])) == len(by_lang[lang]) >= 2, (intent, lang)
        picked = {phrases.render({"phrase": intent, "args": {"target": "p1"}, "variant": v}, lang, {}) for v in range(40)}
        assert len(picked) == len(by_lang[lang]), (intent, lang, picked)


NAMES = {"p1": "Анна", "p2": "Борис", "p3": "Вера", "p4": "Глеб", "p5": "Дина", "p6": "Егор", "p7": "Жанна"}


@pytest.mark.parametrize("lang", ["ru", "ko"])
def test_the_room_loop_says_phrases_never_prose_whatever_the_rooms_language(lang):
    """A bot's line is a phrase (an id, the player it names by id, a variant), the same
    whatever the room's language: each phone draws it in its own (chat.PHRASES)."""
    ids = list(NAMES)
    said: dict[str, list[dict]] = {}
    for room_lang in (lang, "en"):
        lines = said.setdefault(room_lang, [])
        for seed in range(3):
            now = 0.0
            state = me.new_game(ids, {"preset": "classic", "kidSafeChat": True}, seed=seed, now=now)
            stored = bots.plan_room(state, ids, seed, now, room_lang, NAMES)
            for _ in range(3000):
                if state["phase"]["kind"] == "ended" and not stored["due"]:
                    break
                wake, ends = bots.wake_at(stored), me.deadline(state)
                if wake is None and ends is None:
                    break
                now = max(now, wake if wake is not None and (ends is None or wake < ends) else ends)
                state, stored, applied, dropped = bots.drain(state, stored, now, ids, seed, room_lang, NAMES)
                assert dropped == []
                lines += [a for _, _, a in applied if a["type"] == "chat"]
                ends = me.deadline(state)
                if ends is not None and now >= ends:
                    state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, now)
                    stored = bots.plan_room(state, ids, seed, now, room_lang, NAMES)
    lines = said[lang]
    assert len(lines) > 10
    assert all("text" not in a and a["phrase"] in phrases.LINES for a in lines)
    assert [a for a in lines if a["args"].get("target") in NAMES], "some line names a player, by id"
    assert said[lang] == said["en"], "the room's language does not shape a line"


# Names are never declined (a bot cannot know "Бот 2" → "Бота 2", "Анна" → "Анну"), so a Russian
# line may put a name only where the nominative is right: first, as the subject of the
# sentence, or after a colon or a dash, as a label. "Я подозреваю {name}" (accusative),
# "Я доверяю {name}" (dative), "Сегодня берём {name}" read wrong for almost every name.
RU_NAME_SLOT = re.compile(r"(^|: | — )\{name\}")
# Names the test fills in: declinable nouns of both genders, a bot's name, a Latin name.
ANY_NAMES = ["Бот 2", "Анна", "Игорь", "Ann", "김민지", "봇 3"]


def test_russian_lines_put_a_name_only_where_the_nominative_is_right():
    for intent, by_lang in phrases.LINES.items():
        for template in by_lang["ru"]:
            if "{name}" not in template:
                continue
            assert template.count("{name}") == 1, template
            assert RU_NAME_SLOT.search(template), f"{intent}: {template!r} declines the name"


@pytest.mark.parametrize("name", ANY_NAMES)
def test_every_russian_line_with_any_name_avoids_the_old_ungrammatical_forms(name):
    """ "Я подозреваю Бот 2" was the bug: every variant of every intent, filled with any name."""
    for intent, by_lang in phrases.LINES.items():
        for template in by_lang["ru"]:
            text = template.replace("{name}", name)
            # the old pattern: the name straight after a verb or a preposition that governs it
            assert not re.search(r"[а-яё]+ " + re.escape(name), text, re.IGNORECASE), (intent, text)
            assert name in text or "{name}" not in template


def test_russian_lines_do_not_say_anyones_gender():
    """A bot's name ("Бот 2", "Анна") says nothing about gender: no "я уверен", "проверял",
    "подозрительный"; present tense and nouns read right for everyone."""
    gendered = {"уверен", "уверена", "проверял", "проверяла", "подозрительный", "подозрительная"}
    for intent, by_lang in phrases.LINES.items():
        for template in by_lang["ru"]:
            words = set(re.findall(r"[а-яё]+", template.lower()))
            assert not words & gendered, (intent, template)


def test_korean_lines_put_the_particle_on_nim_never_on_the_name():
    """Whether a name ends in a consonant decides 이/가, 을/를, 은/는, (으)로; the lines put the
    honorific 님 after every name, so the particle follows 님 and is right for any name."""
    for intent, by_lang in phrases.LINES.items():
        for template in by_lang["ko"]:
            if "{name}" in template:
                assert re.search(r"\{name\} 님(이|을|은|으로|\s|$)", template), (intent, template)
                for name in ANY_NAMES:
                    text = template.replace("{name}", name)
                    assert not re.search(re.escape(name) + r"(이|가|을|를|은|는|로|으로)\b", text), text
