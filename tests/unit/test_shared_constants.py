"""The client's copy of the server's shared constants (web/js/game/shared-constants.js) is
current, and the client keeps no other copy: a public room's defaults, the lobby countdown's
phase and the bot word are written once, in Python."""

from __future__ import annotations

import re

from scripts import shared_constants
from scripts.shared_constants import REPO, TARGET, render

WEB = REPO / "web" / "js"
STALE = "web/js/game/shared-constants.js is stale: run `.venv/bin/python -m scripts.shared_constants`"


def test_shared_constants_match_the_server():
    assert TARGET.read_text(encoding="utf-8") == render(), STALE


def test_a_changed_server_value_makes_the_copy_stale(monkeypatch):
    from service.room import setup

    monkeypatch.setattr(setup, "PUBLIC_DEFAULTS", {**setup.PUBLIC_DEFAULTS, "afkLimit": 4})
    assert '"afkLimit": 4' in render()
    assert TARGET.read_text(encoding="utf-8") != render()


def test_the_client_has_no_other_copy():
    """Only the generated module writes the values; the screens import them from it."""
    names = "|".join(shared_constants.constants())
    words = "|".join(map(re.escape, shared_constants.constants()["BOT_WORD"].values()))
    for path in sorted(WEB.rglob("*.js")):
        if path == TARGET or path.parent.name == "i18n":
            continue
        text = path.read_text(encoding="utf-8")
        code = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
        where = path.relative_to(REPO)
        assert not re.search(rf"\b(?:const|let|var)\s+(?:{names})\s*=", code), f"{where} defines a copy"
        assert not re.search(rf"(?:{words})\s*\|", code), f"{where} spells the bot words itself"
    assert 'from "../game/shared-constants.js"' in (WEB / "screens" / "public-list.js").read_text(
        encoding="utf-8"
    )
    assert 'from "./shared-constants.js"' in (WEB / "game" / "bot-lines.js").read_text(encoding="utf-8")


def test_every_language_names_a_bot_with_the_servers_word():
    """The client reads "Bot 5" back as "봇 5" (bot-lines.js localBotNames) with `bot.name`:
    each interface language's `bot.name` is its room language's bot word and the number."""
    words = shared_constants.constants()["BOT_WORD"]
    langs = {p.stem for p in (WEB / "i18n").glob("*.js")}
    assert langs == set(words)
    for lang, word in words.items():
        text = (WEB / "i18n" / f"{lang}.js").read_text(encoding="utf-8")
        assert f'"bot.name": "{word} {{n}}",' in text, lang
