"""A real table, round three, at the lowest tier: every role of every preset has its
side's goal in words (web/js/game/sides.js `goalKey`), every way the engine ends a game has a cause
in words (`causeText`), and the result says that cause (presets/shared.py `finish_game`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_i18n_keys import LANGS, dictionaries

import mafia_engine as me
from mafia_engine.presets import PRESETS

ENGINE = Path(me.__file__).parent
# the presets the client has words for (a test-only preset registered by another test has none)
PLAYED = ("classic", "city", "original")


def goal_key(d: dict, preset: str, role: str, team: str) -> str | None:
    """web/js/game/sides.js goalKey, read the same way."""
    return next(
        (k for k in (f"goal.{preset}.{role}", f"goal.{preset}.{team}", f"goal.{team}") if k in d), None
    )


@pytest.mark.parametrize("lang", LANGS)
def test_every_role_card_states_its_sides_goal(lang: str) -> None:
    d = dictionaries()[lang]
    missing = [
        (name, role.id)
        for name in PLAYED
        for role in PRESETS[name].roles
        if goal_key(d, name, role.id, role.team) is None
    ]
    assert missing == []
    # the preset's own words win over the generic line
    assert goal_key(d, "city", "police", "town") == "goal.city.town"
    assert goal_key(d, "original", "madman", "solo") == "goal.original.madman"


def engine_endings() -> set[tuple[str, str]]:
    """(winner, cause) pairs the engine can finish a game with, read from its source: the
    summaries' tables and the explicit `finish(g, "draw", "nights")`-style calls."""
    src = "\n".join(p.read_text(encoding="utf-8") for p in (ENGINE / "presets").rglob("*.py"))
    pairs = set(re.findall(r'\("(\w+)", "(\w+)"\): "', src))
    pairs |= set(re.findall(r'finish\(g, "(\w+)", "(\w+)"\)', src))
    causes = set(re.findall(r'(?:check_win|_check_end|_check_draw)\(g, "(\w+)"\)', src))
    # original: any side may win after any of its check moments
    pairs |= {(w, c) for w in ("town", "mafia", "yakuza", "madman", "werewolf", "draw") for c in causes}
    return pairs


def cause_key(d: dict, preset: str, winner: str, cause: str) -> str | None:
    """web/js/game/sides.js causeText's key, read the same way."""
    leftish = "left" if cause == "disconnect" and f"end.cause.{winner}.disconnect" not in d else cause
    keys = (
        f"end.cause.{preset}.{winner}.{cause}",
        f"end.cause.{preset}.{winner}",
        f"end.cause.{winner}.{cause}",
        f"end.cause.{winner}.{leftish}",
        f"end.cause.{winner}",
    )
    return next((k for k in keys if k in d), None)


def test_the_engine_endings_are_read() -> None:
    pairs = engine_endings()
    for pair in (
        ("mafia", "vote"),
        ("draw", "dry"),
        ("draw", "nights"),
        ("none", "host"),
        ("yakuza", "night"),
    ):
        assert pair in pairs, pair


@pytest.mark.parametrize("lang", LANGS)
def test_every_way_a_game_ends_has_a_cause_in_words(lang: str) -> None:
    d = dictionaries()[lang]
    missing = sorted((p, w, c) for p in PLAYED for w, c in engine_endings() if cause_key(d, p, w, c) is None)
    assert missing == []
    assert cause_key(d, "classic", "mafia", "vote") == "end.cause.mafia.vote"
    assert cause_key(d, "original", "mafia", "vote") == "end.cause.original.mafia"


@pytest.mark.parametrize(
    ("preset", "action", "cause"),
    [
        ("classic", {"type": "endGame", "player": "p1"}, "host"),
        ("city", {"type": "endGame", "player": "p1"}, "host"),
    ],
)
def test_the_result_names_its_cause(preset: str, action: dict, cause: str) -> None:
    s = me.new_game([f"p{i}" for i in range(1, 7)], {"preset": preset}, seed=3)
    s = me.apply(s, action, 1.0)
    assert s["result"]["winner"] == "none" and s["result"]["cause"] == cause
    assert all(p["won"] is False for p in s["result"]["players"])


def test_a_parity_win_names_the_vote_as_its_cause() -> None:
    """docs/rulebooks/000-classic.txt §6: after the day's execution the mafia equal the others: the mafia win at once,
    and the result says why (the vote) for the end screen's line."""
    from mafia_engine.testing import random_game

    for seed in range(60):
        *_, (_, _, s) = random_game(6, seed=seed, chat=False)
        r = s["result"]
        assert r["cause"] in ("vote", "night", "left", "disconnect"), r
        if r["winner"] == "mafia" and r["cause"] == "vote":
            alive = [p for p in r["players"] if p["alive"]]
            mafia = sum(p["team"] == "mafia" for p in alive)
            assert mafia >= len(alive) - mafia
            return
    raise AssertionError("no parity after a vote in 60 games")


def _bot_day():
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[2] / "bench" / "bot_day.py"
    spec = importlib.util.spec_from_file_location("bench_bot_day", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_original_bots_speak_briefly_and_end_their_turn_early() -> None:
    """Bots used 22-38 s of a 60 s speech turn (7 bots: about 4 minutes a day).
    A bot now says at most two lines at once and ends its turn by a quarter of it; measured on the
    game's clock (deterministic), printed for the record."""
    figures = _bot_day().play(seed=0)
    print(json.dumps(figures))
    turn = figures["turnSeconds"]
    assert figures["days"], figures
    for day in figures["days"]:
        assert day["turns"] >= 7
        # ends at the first public tick after a quarter of the turn (ticks are 1/8 of it)
        assert day["longestTurn"] <= turn * 0.25 + turn / 8, day
        assert day["seconds"] <= day["turns"] * (turn * 0.25 + turn / 8), day


def test_the_clients_phrasebook_is_the_engines() -> None:
    """web/js/game/bot-phrases.js is the engine's phrasebook (bots/phrases.py LINES): the client
    reads bots' lines back with it and says them in the viewer's language
    (`python -m tests.browser.bot_phrases` rewrites it)."""
    import sys

    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from tests.browser.bot_phrases import TARGET, render

    assert TARGET.read_text(encoding="utf-8") == render()
