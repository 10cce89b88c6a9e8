"""The bots' phrasebook: every intent in every language, names filled, claims read back."""

from __future__ import annotations

import random

import pytest

from mafia_engine.bots import phrases


@pytest.mark.parametrize("lang", phrases.LANGS)
def test_every_intent_has_natural_variants_in_every_language(lang):
    for intent, by_lang in phrases.LINES.items():
        assert len(by_lang[lang]) >= 2, (intent, lang)
        named = {"{name}" in t for t in by_lang[lang]}
        assert len(named) == 1, f"{intent}/{lang}: every variant names a player, or none does"


@pytest.mark.parametrize("lang", phrases.LANGS)
def test_a_claim_line_names_the_player_and_is_read_back_in_every_language(lang):
    for intent in phrases.CLAIM_INTENTS:
        for seed in range(6):
            text = phrases.line(intent, lang, random.Random(seed), ["Мария Ким"], kid_safe=False)
            assert text is not None and "Мария Ким" in text
            assert phrases.claim_of(text) == (intent, "Мария Ким")


def test_a_name_the_chat_filter_refuses_falls_back_to_the_next_one():
    text = phrases.line("suspect", "en", random.Random(1), ["shit", "p3"], kid_safe=True)
    assert text is not None and "p3" in text and "shit" not in text


def test_an_unknown_language_speaks_english():
    assert phrases.variants("gg", "xx") == phrases.LINES["gg"]["en"]
