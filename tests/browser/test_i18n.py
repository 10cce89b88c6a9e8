"""Languages: the three dictionaries have the same keys and placeholders, a language switch
redraws every visible string, and kid wording swaps the words for executions and kills."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from . import review_shots
from .scripted import draw, lobby_view, show
from .ui import MOBILE, Player, check_switch, foreign_words, open_fold

LOCALES = {"ko": "ko-KR", "ru": "ru-RU"}

DICTS_JS = """async () => {
  const m = await __import('./js/i18n.js');
  return Object.fromEntries(await Promise.all(m.LANGS.map(async (lang) => [lang, await m.loadLang(lang)])));
}"""

ROLES = [
    "mafia",
    "godfather",
    "police",
    "doctor",
    "citizen",
    "soldier",
    "politician",
    "medium",
    "lover",
    "immortal",
    "judge",
    "corruptJudge",
    "sheriff",
    "yakuza",
    "ninja",
    "madman",
    "werewolf",
    "lawyer",
]


def is_variant(key: str) -> bool:
    return "@" in key or bool(re.match(r"role\.\w+\.(classic|city|original)$", key))


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_no_missing_translation_keys(browser, stack, console_errors):
    pl = Player(browser, stack.url, "Ann", errors=console_errors)
    pl.open()
    dicts = pl.page.evaluate(DICTS_JS)
    assert sorted(dicts) == ["en", "ko", "ru"]
    # Variants are optional: kid wording (`key@kid`) and a preset's own word (`role.police.city`).
    base = {lang: {k for k in d if not is_variant(k)} for lang, d in dicts.items()}
    for lang in ("ko", "ru"):
        assert base[lang] - base["en"] == set(), f"{lang} has keys English lacks"
        assert base["en"] - base[lang] == set(), f"{lang} lacks keys"
    for lang, d in dicts.items():
        for key, text in d.items():
            assert text.strip(), f"{lang}:{key} is empty"
            root = key.split("@")[0]
            if is_variant(root):
                root = root.rsplit(".", 1)[0]
            assert root in base[lang], f"{lang}:{key} is a variant of a missing key"
            assert placeholders(text) == placeholders(dicts["en"][root]), f"{lang}:{key} placeholders"
        for role in ROLES:
            assert f"role.{role}" in d and f"roledesc.{role}" in d, f"{lang}: role {role}"
    # The words the rulebooks use.
    assert dicts["ko"]["role.police"] == "경찰"
    assert dicts["ru"]["role.police"] == "Комиссар"
    assert dicts["en"]["role.police"] == "Police"
    assert dicts["ko"]["role.police.original"] == "수사관"
    assert dicts["ko"]["role.godfather"] == "대부"
    pl.close()


def test_russian_words_fit_any_name_and_buttons_say_what_they_do(browser, stack, console_errors):
    """A name says nothing of its owner's gender and is never declined: no "убит(а)" or
    "выбыл(а)", and a name after a noun that governs it ("Последнее слово {name}") gets the
    word "игрок" in between. The ready toggle reads as an action, not a status."""
    pl = Player(browser, stack.url, "Ann", errors=console_errors)
    pl.open()
    ru = pl.page.evaluate(DICTS_JS)["ru"]
    gendered = {k: v for k, v in ru.items() if re.search(r"\((а|ла|на)\)", v)}
    assert gendered == {}, gendered
    for key in ("lobby.imReady", "lobby.cancelReady", "act.ready", "act.readyEarly", "act.endTurn"):
        first = ru[key].split()[0]
        assert re.fullmatch(r"[А-Я][а-яё]+(ть|ться)", first), f"{key}: {ru[key]!r} is not an action"
    assert ru["lobby.cancelReady"] != "Ещё не готов"
    pl.close()


def test_language_switch_changes_every_visible_string(browser, stack, console_errors):
    host = Player(browser, stack.url, "Ann", viewport=MOBILE, errors=console_errors)
    host.open()
    expect(host.page.locator("#create-btn")).to_be_visible()
    open_fold(host.page, ".home-details", ".home-options .hint")
    assert host.unnamed_controls() == [], host.unnamed_controls()
    check_switch(host, "en", "ru")
    check_switch(host, "ru", "ko")
    check_switch(host, "ko", "en")
    host.page.select_option("#lang-select", "en")
    lobby = lobby_view("classic", ["Ann"])  # the host alone: too few (a scripted state)
    assert show(host.page, lobby) == "lobby"
    expect(host.page.locator("#setup-error")).to_be_visible()  # one player: too few
    assert host.unnamed_controls() == [], host.unnamed_controls()
    check_switch(host, "en", "ko")
    check_switch(host, "ko", "ru")
    expect(host.page.locator("#start-btn")).to_have_text("Начать игру")
    # The choice is remembered.
    host.open()
    show(host.page, lobby)
    expect(host.page.locator("#start-btn")).to_have_text("Начать игру")
    host.page.select_option("#lang-select", "en")
    host.close()


def test_language_follows_the_browser_first(browser, stack, console_errors):
    pl = Player(browser, stack.url, "Ann", locale="ko-KR", errors=console_errors)
    pl.open()
    expect(pl.page.locator("#create-btn")).to_have_text("방 만들기")
    pl.close()
    pl = Player(browser, stack.url, "Ann", locale="ru-RU", errors=console_errors)
    pl.open()
    expect(pl.page.locator("#create-btn")).to_have_text("Создать комнату")
    pl.close()


def test_kid_wording_replaces_executions_and_kills(browser, stack, console_errors):
    pl = Player(browser, stack.url, "Ann", locale="ko-KR", errors=console_errors)
    pl.open()
    words = """async () => {
      const m = await __import('./js/i18n.js');
      const out = {};
      for (const kid of [false, true]) {
        m.setKid(kid);
        out[kid] = ['event.death.vote', 'event.death.mafia', 'task.mafiaTarget'].map(k => m.t(k, {name: 'A'}));
      }
      m.setKid(false);
      return out;
    }"""
    out = pl.page.evaluate(words)
    plain, kid = " ".join(out["false"]), " ".join(out["true"])
    assert "처형" in plain and "처치" in plain
    assert "처형" not in kid and "처치" not in kid
    assert "퇴장" in kid and "탈락" in kid
    # Korean labels break between words, never inside one.
    assert pl.page.evaluate("getComputedStyle(document.querySelector('#kid-label')).wordBreak") == "keep-all"
    # The toggle in the top bar switches it and redraws.
    pl.page.check("#kid-toggle")
    expect(pl.page.locator("#kid-toggle")).to_be_checked()
    pl.page.uncheck("#kid-toggle")
    pl.close()


@pytest.mark.parametrize("lang", ["ko", "ru"])
def test_last_word_and_review_read_in_the_players_language(browser, stack, console_errors, lang):
    """The original rules' last word (as a listener and as the executed player) and the end
    screen's review with every step open, drawn from a scripted engine game: no Latin word
    but the players' names and their own chat, no raw id, no missing key."""
    last_word, last_word_own, ended = review_shots.scripted()
    pl = Player(browser, stack.url, "Ann", viewport=MOBILE, locale=LOCALES[lang], errors=console_errors)
    pl.open()
    page = pl.page
    expect(page.locator("html")).to_have_attribute("lang", lang)
    draw(page, "game", last_word)
    expect(page.locator("#phase-banner")).to_have_attribute("data-kind", "lastWord")
    assert foreign_words(page, lang) == set()
    draw(page, "game", last_word_own)
    expect(page.locator("#last-word-done")).to_be_visible()
    assert foreign_words(page, lang) == set()
    steps = len(ended["review"]["steps"])
    draw(page, "end", ended)
    page.evaluate("(n) => { for (let i = 0; i < n; i++) document.querySelector(`#review-step-${i}`).open = true; }", steps)
    expect(page.locator("#review details[open]")).to_have_count(steps)
    # the last word and the dead's chat are in the review, as the players wrote them
    expect(page.locator("#review .review-lastWord .user-text").first).to_contain_text("plain citizen")
    expect(page.locator("#review .review-chat .user-text").first).to_be_visible()
    assert foreign_words(page, lang) == set()
    assert pl.missing_keys() == [], pl.missing_keys()
    pl.close()
