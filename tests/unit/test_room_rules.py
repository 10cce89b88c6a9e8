"""Host-level room rules the engine applies for every preset: pause/resume, endGame, leave."""

from __future__ import annotations

import pytest
from enginekit import Table, refused

import mafia_engine as me

GAMES = {
    "classic": ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"],
    "city": ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"],
    "original": ["mafia", "godfather", "police", "citizen", "citizen", "citizen", "citizen", "citizen"],
}
PRESETS = [p for p in GAMES if me.presets()[p]["implemented"]]


def table(preset: str) -> Table:
    return Table(GAMES[preset], preset=preset)


@pytest.mark.parametrize("preset", PRESETS)
def test_pause_freezes_the_deadline_and_resume_gives_back_the_time_left(preset: str) -> None:
    t = table(preset)
    ends = me.deadline(t.state)
    t.act("pause", "p1")  # 1 s after the start
    assert me.deadline(t.state) is None and t.view(None)["paused"] is True
    refused(lambda: t.act("pause", "p1"), "already_paused")
    t.now += 500
    refused(lambda: t.do({"type": "phaseTimeout", "phase": t.state["seq"]}), "paused")
    t.act("resume", "p1")
    assert me.deadline(t.state) == pytest.approx(t.now + (ends - 1.0))
    assert t.view(None)["paused"] is False
    refused(lambda: t.act("resume", "p1"), "not_paused")
    assert [e["kind"] for e in t.events()][-2:] == ["paused", "resumed"]


@pytest.mark.parametrize("preset", PRESETS)
def test_paused_game_refuses_game_actions(preset: str) -> None:
    t = table(preset)
    t.until("night")
    t.act("pause", "p1")
    typ, actor, target = ("investigate", "p3", "p1") if preset == "original" else ("mafiaTarget", "p1", "p5")
    refused(lambda: t.act(typ, actor, target=target), "paused")
    t.act("resume", "p1")
    t.act(typ, actor, target=target)


@pytest.mark.parametrize("preset", PRESETS)
def test_end_game_ends_without_a_winner_and_shows_every_role(preset: str) -> None:
    t = table(preset)
    t.act("pause", "p1")
    t.act("endGame", "p1")
    r = me.result(t.state)
    assert t.kind == "ended" and r["winner"] == "none" and not any(p["won"] for p in r["players"])
    assert t.events()[-1] == {"kind": "end", "day": t.state["day"], "winner": "none", "cause": "host"}
    assert all(p["role"] for p in t.view(None)["players"]) and t.view(None)["paused"] is False
    refused(lambda: t.act("endGame", "p1"), "game_over")


@pytest.mark.parametrize("preset", PRESETS)
def test_leave_eliminates_the_character_at_once(preset: str) -> None:
    t = table(preset)
    t.act("leave", "p5")
    assert not t.alive("p5") and t.p("p5")["diedBy"] == "left"
    assert t.events("death")[-1]["player"] == "p5"
    before = me.dump(t.state)
    t.act("leave", "p5")  # leaving again changes nothing
    assert me.dump(t.state) == before


@pytest.mark.parametrize("preset", PRESETS)
def test_leave_can_decide_the_game_at_once(preset: str) -> None:
    t = table(preset)
    for pid in ("p1", "p2"):
        t.act("leave", pid)
    r = me.result(t.state)
    assert t.kind == "ended" and r["winner"] == "town"


def test_leave_of_the_last_unconfirmed_player_ends_the_city_night() -> None:
    t = table("city")
    t.until("night")
    for pid in t.ids[:-1]:
        t.act("sleep", pid)
    t.act("leave", "p8")
    assert t.kind == "discussion"


def test_leave_of_the_classic_accused_ends_the_day() -> None:
    t = table("classic")
    t.nominate("p5")
    assert t.kind == "defense"
    t.act("leave", "p5")
    assert t.kind == "night"


def test_leave_of_the_last_player_not_ready_opens_the_classic_vote() -> None:
    t = table("classic")
    t.until("discussion")
    for pid in t.ids[:-1]:
        t.act("readyEarly", pid)
    assert t.kind == "discussion"
    t.act("leave", "p8")
    assert t.kind == "vote"


def test_leave_of_a_city_suspect_ends_the_defense_once_the_other_is_done() -> None:
    t = table("city")
    t.until("vote")
    for pid in t.ids:  # a tie, four votes each: p1 and p5 defend themselves
        t.act("vote", pid, target="p1" if pid in ("p2", "p3", "p4", "p5") else "p5")
    assert t.kind == "defense" and sorted(t.state["phase"]["suspects"]) == ["p1", "p5"]
    t.act("endTurn", "p1")
    assert t.kind == "defense"
    t.act("leave", "p5")
    assert t.kind != "defense" and not t.alive("p5")


def test_leave_while_paused_keeps_the_new_phase_frozen() -> None:
    t = table("city")
    t.until("night")
    for pid in t.ids[:-1]:
        t.act("sleep", pid)
    t.act("pause", "p1")
    t.act("leave", "p8")
    assert t.kind == "discussion" and me.deadline(t.state) is None
    t.act("resume", "p1")
    assert me.deadline(t.state) == pytest.approx(t.now + t.state["options"]["discussionSeconds"], abs=2)


def test_leave_of_the_original_speaker_or_accused_moves_the_day_on() -> None:
    t = table("original")
    t.until("night")
    for pid in t.ids:
        if t.kind == "night":
            t.act("sleep", pid)
    assert t.kind == "speech" and t.state["phase"]["speaker"] == "p1"
    t.act("leave", "p1")
    assert t.kind == "speech" and t.state["phase"]["speaker"] == "p2"
    while t.kind == "speech":
        t.act("endTurn", t.state["phase"]["speaker"])
    for pid in t.ids:
        if t.kind == "night" and t.alive(pid):
            t.act("sleep", pid)
    for sp in ("p2", "p3", "p4"):
        t.act("nominate", sp, target={"p2": "p5", "p3": "p6", "p4": None}[sp])
    while t.kind == "speech":
        t.act("endTurn", t.state["phase"]["speaker"])
    assert t.kind == "defense" and t.state["phase"]["accused"] == "p5"
    t.act("leave", "p5")
    assert t.kind == "defense" and t.state["phase"]["accused"] == "p6"
    t.act("endTurn", "p6")
    assert not t.alive("p6")  # the one suspect left is executed after the defense


def test_leave_of_the_last_voter_closes_the_city_vote() -> None:
    t = table("city")
    t.until("vote")
    for pid in t.ids[:-1]:
        t.act("vote", pid, target="abstain" if pid != "p3" else "p1")
    t.act("leave", "p8")
    assert not t.alive("p1") and t.kind == "night"


@pytest.mark.parametrize("preset", PRESETS)
def test_host_removes_a_player_mid_game_like_a_leave(preset: str) -> None:
    """docs/rulebooks/003-original.txt 「정말 필요하다면 그 플레이어를 게임에서 제외할 수도 있습니다」,
    docs/rulebooks/000-classic.txt §9 (host kick): the character leaves the game as with ``leave``
    (same win check); a public "removed" line."""
    t = table(preset)
    t.until("night")
    t.act("pause", "p1")
    t.act("remove", "p5")  # accepted while paused, like leave
    assert not t.alive("p5") and t.p("p5")["diedBy"] == "removed"
    death = t.events("death")[-1]
    assert death["player"] == "p5" and death["by"] == "removed"
    assert "removed" in t.view(None)["chat"][-1]["text"]
    t.act("resume", "p1")
    for pid in ("p3", "p4", "p6"):
        if t.kind != "ended":
            t.act("remove", pid)
    assert me.result(t.state)["winner"] == "mafia"  # the same win check as a leave
