"""Ranked play's ratings, pure (functions/service/ranked/ratings.py; docs/rules.md, "Ranked play")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.ranked import ratings as rt
from service.ranked.ratings import Holder, Rating

TOWN, MAFIA = "town", "mafia"


def result(winner: str, sides: dict[str, str]) -> dict:
    return {
        "winner": winner,
        "players": [{"id": pid, "team": side, "won": side == winner} for pid, side in sides.items()],
    }


SIDES = {"p1": TOWN, "p2": TOWN, "p3": TOWN, "p4": TOWN, "p5": MAFIA}


def seats(**who: str) -> dict[str, list[Holder]]:
    return {pid: [Holder(entity, 1.0)] for pid, entity in who.items()}


TABLE = seats(p1="A", p2="B", p3="C", p4="D", p5="E")


def test_one_rate_call_rates_every_side_at_once(monkeypatch):
    calls = []
    real = rt._MODEL

    class Spy:
        def rating(self, **kw):
            return real.rating(**kw)

        def rate(self, teams, **kw):
            calls.append(teams)
            return real.rate(teams, **kw)

    monkeypatch.setattr(rt, "_MODEL", Spy())
    out = rt.rate_game(result(TOWN, SIDES), "classic", TABLE, {})
    assert len(calls) == 1 and len(calls[0]) == 2  # both teams in the one call
    assert out.ratings["A"].mu > rt.MU > out.ratings["E"].mu
    assert out.changes["A"]["won"] and not out.changes["E"]["won"]


def test_a_win_against_the_harder_side_moves_more():
    """A side's balance is a rated pseudo-player: beating a mafia that usually wins this setup
    moves the town more than beating an even one, and losing to it costs less."""
    mafia = rt.balance_entity("classic", 5, MAFIA)
    balanced = {mafia: Rating(mu=rt.MU, sigma=3.0, games=200)}  # as sure of an even setup
    hard = {mafia: Rating(mu=40.0, sigma=3.0, games=200)}
    even = rt.rate_game(result(TOWN, SIDES), "classic", TABLE, balanced)
    harder = rt.rate_game(result(TOWN, SIDES), "classic", TABLE, hard)
    gain_even = even.ratings["A"].mu - rt.MU
    gain_hard = harder.ratings["A"].mu - rt.MU
    assert gain_hard > gain_even > 0
    lost_even = rt.MU - rt.rate_game(result(MAFIA, SIDES), "classic", TABLE, balanced).ratings["A"].mu
    lost_hard = rt.MU - rt.rate_game(result(MAFIA, SIDES), "classic", TABLE, hard).ratings["A"].mu
    assert 0 < lost_hard < lost_even


def test_the_side_balance_is_learnt_from_results():
    out = rt.rate_game(result(MAFIA, SIDES), "classic", TABLE, {})
    assert out.ratings[rt.balance_entity("classic", 5, MAFIA)].mu > rt.MU
    assert out.ratings[rt.balance_entity("classic", 5, TOWN)].mu < rt.MU
    assert rt.balance_entity("classic", 5, MAFIA) not in out.changes  # no person's standing


def test_substitutes_are_weighted_by_their_share_of_the_game():
    table = {**TABLE, "p1": [Holder("A", 0.2), Holder("S", 0.8)]}
    out = rt.rate_game(result(TOWN, SIDES), "classic", table, {})
    assert out.ratings["S"].mu - rt.MU > out.ratings["A"].mu - rt.MU > 0


def test_bots_are_rated_entities_one_per_preset():
    table = {
        **TABLE,
        "p4": [Holder(rt.bot_entity("classic"), 1.0)],
        "p5": [Holder(rt.bot_entity("classic"), 1.0)],
    }
    out = rt.rate_game(result(TOWN, SIDES), "classic", table, {})
    bot = out.ratings[rt.bot_entity("classic")]
    assert bot.games == 1  # one entity, however many seats it held
    assert rt.bot_entity("classic") not in out.changes


def test_leaving_a_ranked_game_alive_is_a_loss():
    table = {**TABLE, "p1": [Holder("A", 0.5, left=True), Holder(rt.bot_entity("classic"), 0.5)]}
    out = rt.rate_game(result(TOWN, SIDES), "classic", table, {})  # the leaver's side won
    assert out.ratings["A"].mu < rt.MU and not out.changes["A"]["won"]
    assert out.ratings["A"].wins == 0 and out.ratings["B"].wins == 1


@pytest.mark.parametrize("winner", [TOWN, MAFIA])
def test_a_leaver_lifts_nobody_the_losing_side_still_loses_points(winner):
    """A town person left alive (nobody took the seat): whichever side won, those who stayed on
    the losing side lose points (they did not "beat" the leaver), the winners gain, the leaver
    loses."""
    table = {**TABLE, "p1": [Holder("A", 1.0, left=True)]}
    out = rt.rate_game(result(winner, SIDES), "classic", table, {})
    for entity, side in zip("BCDE", (TOWN, TOWN, TOWN, MAFIA), strict=True):
        assert (out.changes[entity]["delta"] > 0) == (side == winner), (entity, out.changes[entity])
        assert (out.ratings[entity].mu > rt.MU) == (side == winner)
    assert out.changes["A"]["delta"] < 0 and not out.changes["A"]["won"]


def test_a_draw_ranks_every_side_alike_and_counts_no_win():
    draw = {"winner": "draw", "players": [{**p, "won": False} for p in result(TOWN, SIDES)["players"]]}
    out = rt.rate_game(draw, "classic", TABLE, {})
    won = rt.rate_game(result(TOWN, SIDES), "classic", TABLE, {})
    assert all(out.ratings[e].wins == 0 and out.ratings[e].games == 1 for e in "ABCDE")
    assert out.ratings["A"].mu < won.ratings["A"].mu and out.ratings["E"].mu > won.ratings["E"].mu


def test_placement_shows_for_the_first_games_then_a_tier():
    assert rt.standing(Rating(games=0)) == {
        "points": 1000,
        "tier": "placement",
        "placementLeft": 5,
        "games": 0,
    }
    assert rt.standing(Rating(games=4))["placementLeft"] == 1
    assert rt.standing(Rating(mu=25.0, sigma=2.0, games=5))["tier"] == "platinum"  # 1000 + 40 * 19


def test_tiers_follow_points():
    assert [rt.tier_of(p) for p in (0, 1199, 1200, 1450, 1700, 1950, 5000)] == [
        "bronze", "bronze", "silver", "gold", "platinum", "diamond", "diamond"
    ]  # fmt: skip
    for lang in ("en", "ru", "ko"):
        assert set(rt.TIER_WORDS[lang]) == {"placement", *(t for t, _ in rt.TIERS)}


def test_a_season_is_a_utc_calendar_month():
    end = datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp()
    assert rt.season_of(end) == "2026-12"
    assert rt.season_of(end + 1) == "2027-01"


@pytest.mark.parametrize(
    ("leaves", "wait"),
    [
        ([], 0),
        ([(1000.0, False)], 600),
        ([(500.0, False), (1000.0, False)], 1800),
        ([(1000.0, True)], 0),  # a substitute or a bot took the seat at once
        ([(1000.5, False)], 600.5),  # the room's time ran a moment ahead of the clock: it counts
        ([(100.0, False), (200.0, False), (300.0, False), (1000.0, False), (900.0, False)], 86400),
    ],
)
def test_a_ranked_leave_waits_a_graded_cool_down(leaves, wait):
    until = rt.cooldown_until(leaves, 1000.0)
    assert max(0.0, until - 1000.0) == wait
