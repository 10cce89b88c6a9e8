"""docs/rulebooks/000-classic.txt §10: one test (at least) per line of the checklist, named after
the rule.

Sections of docs/rulebooks/000-classic.txt are cited as §n."""

from __future__ import annotations

import json

import pytest
from enginekit import Table, refused

import mafia_engine as me
from mafia_engine.presets.classic import AUTO_MAFIA
from mafia_engine.testing import random_game

EIGHT = ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"]


def night_first(roles: list[str], **options) -> Table:
    t = Table(roles, firstPhase="night", **options)
    t.timeout()  # role reveal -> night 1
    assert t.kind == "night"
    return t


# --- §4: set-up ----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(4, 13))
def test_auto_distribution_matches_table(n: int) -> None:
    s = me.new_game([f"p{i}" for i in range(n)], {"preset": "classic"}, seed=n, now=0)
    roles = [p["role"] for p in s["players"]]
    assert (
        roles.count("mafia") == AUTO_MAFIA[n] == {4: 1, 5: 1, 6: 2, 7: 2, 8: 2, 9: 3, 10: 3, 11: 3, 12: 3}[n]
    )
    assert roles.count("police") == 1 and roles.count("doctor") == 1
    assert roles.count("citizen") == n - AUTO_MAFIA[n] - 2


def test_extra_roles_replace_citizen_seats_only() -> None:
    s = me.new_game(
        [f"p{i}" for i in range(10)], {"extraRoles": ["soldier", "politician", "medium", "lovers"]}, seed=3
    )
    roles = sorted(p["role"] for p in s["players"])
    assert roles == sorted(
        ["mafia"] * 3 + ["police", "doctor", "soldier", "politician", "medium", "lover", "lover"]
    )
    s = me.new_game([f"p{i}" for i in range(5)], {"extraRoles": ["soldier"]}, seed=3)
    roles = [p["role"] for p in s["players"]]
    assert roles.count("citizen") == 1 and roles.count("soldier") == 1 and roles.count("mafia") == 1


def test_extra_roles_refused_when_citizen_seats_short() -> None:
    e = refused(lambda: me.check_setup({"extraRoles": ["lovers"]}, 4), "seats_short")
    assert "lovers" in str(e) and "needs 2" in str(e)
    refused(lambda: me.new_game(["a", "b", "c", "d"], {"extraRoles": ["lovers"]}), "seats_short")
    e = refused(
        lambda: me.check_setup({"extraRoles": ["soldier", "politician", "medium", "lovers"]}, 9),
        "seats_short",
    )
    assert "lovers" in str(e)


def test_roles_are_shuffled_with_the_seed() -> None:
    ids = [f"p{i}" for i in range(12)]
    deals = {tuple(p["role"] for p in me.new_game(ids, {}, seed=s)["players"]) for s in range(10)}
    assert len(deals) > 5
    assert me.new_game(ids, {}, seed=4) == me.new_game(ids, {}, seed=4)


def test_mafia_know_each_other_and_lovers_know_each_other() -> None:
    t = Table(["mafia", "mafia", "police", "lover", "lover", "citizen", "doctor", "citizen"])
    v = t.view("p1")
    assert v["you"]["allies"] == [{"id": "p2", "role": "mafia"}]
    assert [p["role"] for p in v["players"]] == ["mafia", "mafia", None, None, None, None, None, None]
    v = t.view("p4")
    assert v["you"]["allies"] == [{"id": "p5", "role": "lover"}]
    assert [p["id"] for p in v["players"] if p["role"]] == ["p4", "p5"]
    assert t.view("p3")["you"]["allies"] == []


def test_role_reveal_lasts_eight_seconds_then_first_phase() -> None:
    """§4.4 "역할 확인 화면 8초 후 `firstPhase`로 시작. 일차(day number)는 1부터." — the seed's 8 s
    is the option roleRevealSeconds: 8 (the default is a generous 60 s: docs/rules.md, Classic
    "Set-up")."""
    t = Table(EIGHT, roleRevealSeconds=8)
    assert t.kind == "roleReveal" and me.deadline(t.state) == 8.0 and t.state["day"] == 1
    t.timeout()
    assert t.kind == "greeting" and me.deadline(t.state) == 8.0 + 60


# --- §5.3 nomination -------------------------------------------------------------------------------
def test_nomination_tie_means_no_execution() -> None:
    t = night_first(EIGHT)
    t.timeout()  # quiet night
    t.to_vote()
    for voter, target in [("p1", "p5"), ("p2", "p5"), ("p3", "p6"), ("p4", "p6")]:
        t.act("vote", voter, target=target)
    t.timeout()
    nom = t.events("nomination")[-1]
    assert nom["accused"] is None and nom["tally"] == {"p5": 2, "p6": 2}
    assert t.kind == "night" and all(t.alive(p) for p in t.ids)


def test_all_abstain_means_no_execution() -> None:
    t = night_first(EIGHT)
    t.timeout()
    t.to_vote()
    t.act("vote", "p1", target="abstain")
    t.act("vote", "p3", target="abstain")
    t.timeout()  # the rest did not vote: abstain
    assert t.events("nomination")[-1]["accused"] is None and t.kind == "night"


def test_politician_vote_counts_twice() -> None:
    roles = ["mafia", "mafia", "police", "doctor", "politician", "citizen", "citizen", "citizen"]
    t = night_first(roles)
    t.timeout()
    t.to_vote()
    t.act("vote", "p5", target="p6")  # politician: 2
    t.act("vote", "p1", target="p7")
    t.act("vote", "p7", target="p6")
    t.act("vote", "p2", target="p7")
    t.timeout()
    nom = t.events("nomination")[-1]
    assert nom["tally"] == {"p6": 3, "p7": 2} and nom["accused"] == "p6"
    assert t.kind == "defense" and t.state["phase"]["accused"] == "p6"


def test_politician_vote_breaks_a_tie() -> None:
    roles = ["mafia", "mafia", "police", "doctor", "politician", "citizen", "citizen", "citizen"]
    t = night_first(roles)
    t.timeout()
    t.to_vote()
    t.act("vote", "p5", target="p6")
    t.act("vote", "p1", target="p7")
    t.timeout()  # 2 vs 1: without the politician's second vote it would be a tie
    assert t.events("nomination")[-1]["accused"] == "p6"


def test_vote_is_changeable_until_the_deadline_and_self_vote_refused() -> None:
    t = night_first(EIGHT)
    t.timeout()
    t.to_vote()
    refused(lambda: t.act("vote", "p3", target="p3"), "self_target")
    t.act("vote", "p3", target="p5")
    t.act("vote", "p3", target="p6")
    t.timeout()
    assert t.events("nomination")[-1]["tally"] == {"p6": 1}


# --- §5.4 defense and confirmation -------------------------------------------------------------------
def test_confirm_tie_means_survival() -> None:
    t = night_first(EIGHT)
    t.timeout()
    t.nominate("p5")
    t.timeout()  # defense -> confirm
    assert t.kind == "confirm"
    t.act("confirm", "p1", choice="yes")
    t.act("confirm", "p2", choice="no")
    t.timeout()
    c = t.events("confirm")[-1]
    assert (c["yes"], c["no"], c["executed"]) == (1, 1, False)
    assert t.alive("p5") and t.kind == "night"


def test_confirm_yes_majority_executes_and_counts_only_are_public() -> None:
    t = night_first(EIGHT)
    t.timeout()
    t.nominate("p5")
    t.timeout()
    t.act("confirm", "p1", choice="yes")
    t.act("confirm", "p2", choice="yes")
    t.act("confirm", "p3", choice="no")
    refused(lambda: t.act("confirm", "p5", choice="no"), "accused_cannot_vote")
    t.timeout()  # non-voters are not counted
    assert not t.alive("p5") and t.p("p5")["diedBy"] == "vote"
    c = t.view(None)["votes"]["confirm"]
    assert c == {"accused": "p5", "yes": 2, "no": 1, "executed": True, "immune": False}
    assert "p1" not in json.dumps(t.events("confirm"))


def test_politician_accused_survives_confirm_and_is_revealed() -> None:
    roles = ["mafia", "mafia", "police", "doctor", "politician", "citizen", "citizen", "citizen"]
    t = night_first(roles)
    t.timeout()
    t.execute("p5")
    assert t.alive("p5")
    assert t.p("p5")["revealed"] == {"role": "politician", "team": "town"}
    assert t.events("politicianImmune")[-1]["player"] == "p5"
    assert t.view(None)["players"][4]["revealed"]["role"] == "politician"
    assert t.kind == "night"


def test_only_the_accused_may_chat_during_defense() -> None:
    t = night_first(EIGHT)
    t.timeout()
    t.nominate("p5")
    assert t.kind == "defense"
    t.act("chat", "p5", channel="day", text="it was not me")
    e = refused(lambda: t.act("chat", "p6", channel="day", text="liar"), "no_permission")
    assert "accused" in str(e)
    assert t.view("p6")["channels"]["write"] == []
    assert t.view("p5")["channels"]["write"] == ["day"]


# --- §5.5 night ------------------------------------------------------------------------------------
def test_doctor_save_announced_without_name() -> None:
    t = night_first(EIGHT)
    t.act("mafiaTarget", "p1", target="p5")
    t.act("heal", "p4", target="p5")
    t.timeout()
    assert t.alive("p5")
    saved = t.events("saved")
    assert saved == [{"kind": "saved", "day": 1}]
    for viewer in [None, *t.ids]:
        v = t.view(viewer)
        assert not any(e["kind"] == "death" for e in v["events"])
        sys_text = " ".join(m["text"] for m in v["chat"] if m["channel"] == "system")
        assert "p5" not in sys_text


def test_doctor_self_heal_off_refused() -> None:
    t = night_first(EIGHT, doctorSelfHeal=False)
    refused(lambda: t.act("heal", "p4", target="p4"), "self_heal_off")
    assert "p4" not in t.view("p4")["private"]["targets"]
    t2 = night_first(EIGHT)
    t2.act("heal", "p4", target="p4")


def test_doctor_repeat_off_refused() -> None:
    t = night_first(EIGHT, doctorRepeat=False)
    t.act("heal", "p4", target="p5")
    t.timeout()
    t.to_night()
    refused(lambda: t.act("heal", "p4", target="p5"), "repeat_heal_off")
    assert "p5" not in t.view("p4")["private"]["targets"]
    t.act("heal", "p4", target="p6")
    t.timeout()
    t.to_night()
    t.act("heal", "p4", target="p5")  # not two nights running any more


def test_doctor_repeat_on_allows_same_target() -> None:
    t = night_first(EIGHT)
    t.act("heal", "p4", target="p5")
    t.timeout()
    t.to_night()
    t.act("heal", "p4", target="p5")


def test_soldier_survives_first_attack_and_is_revealed() -> None:
    roles = ["mafia", "mafia", "police", "doctor", "soldier", "citizen", "citizen", "citizen"]
    t = night_first(roles)
    t.act("mafiaTarget", "p1", target="p5")
    t.timeout()
    assert t.alive("p5") and t.p("p5")["soldierUsed"]
    assert t.events("soldierSurvived") == [{"kind": "soldierSurvived", "day": 1, "player": "p5"}]
    assert t.view(None)["players"][4]["revealed"] == {"role": "soldier", "team": "town"}


def test_soldier_dies_on_second_attack() -> None:
    roles = ["mafia", "mafia", "police", "doctor", "soldier", "citizen", "citizen", "citizen"]
    t = night_first(roles)
    t.act("mafiaTarget", "p1", target="p5")
    t.timeout()
    t.to_night()
    t.act("mafiaTarget", "p2", target="p5")
    t.timeout()
    assert not t.alive("p5") and t.p("p5")["diedBy"] == "mafia"


def test_doctor_save_comes_before_soldier_armour() -> None:
    roles = ["mafia", "mafia", "police", "doctor", "soldier", "citizen", "citizen", "citizen"]
    t = night_first(roles)
    t.act("mafiaTarget", "p1", target="p5")
    t.act("heal", "p4", target="p5")
    t.timeout()
    assert t.alive("p5") and not t.p("p5")["soldierUsed"] and t.p("p5")["revealed"] is None
    assert t.events("saved") and not t.events("soldierSurvived")


def test_last_mafia_pick_counts() -> None:
    t = night_first(EIGHT)
    t.act("mafiaTarget", "p1", target="p5")
    t.act("mafiaTarget", "p2", target="p6")
    v = t.view("p1")["private"]
    assert v["choice"] == "p6" and v["teamChoices"] == {"p1": "p5", "p2": "p6"}
    t.timeout()
    assert t.alive("p5") and not t.alive("p6")


def test_no_mafia_pick_with_nokill_means_no_death() -> None:
    t = night_first(EIGHT)
    t.act("mafiaTarget", "p1", target="p5")
    t.act("mafiaTarget", "p1", target=None)  # withdrawn
    t.timeout()
    assert all(t.alive(p) for p in t.ids)
    assert t.events("quietNight")


def test_police_changing_target_gets_only_last_result_at_night_end() -> None:
    t = night_first(EIGHT)
    for target in ("p5", "p1", "p6"):
        t.act("investigate", "p3", target=target)
        assert t.view("p3")["private"]["results"] == []
    assert t.view("p3")["private"]["choice"] == "p6"
    t.timeout()
    assert t.view("p3")["private"]["results"] == [
        {"day": 1, "kind": "investigate", "target": "p6", "result": "notMafia"}
    ]


def test_police_result_says_mafia() -> None:
    t = night_first(EIGHT)
    t.act("investigate", "p3", target="p2")
    t.timeout()
    assert t.view("p3")["private"]["results"][0]["result"] == "mafia"


def test_actions_of_players_killed_that_night_still_count() -> None:
    t = night_first(EIGHT)
    t.act("investigate", "p3", target="p1")
    t.act("heal", "p4", target="p6")
    t.act("mafiaTarget", "p1", target="p3")
    t.timeout()
    assert not t.alive("p3")
    assert t.view("p3")["private"]["results"][0]["result"] == "mafia"


def test_mafia_cannot_target_mafia_and_only_roles_act() -> None:
    t = night_first(EIGHT)
    refused(lambda: t.act("mafiaTarget", "p1", target="p2"), "bad_target")
    refused(lambda: t.act("investigate", "p5", target="p1"), "not_your_role")
    refused(lambda: t.act("investigate", "p3", target="p3"), "self_target")
    refused(lambda: t.act("heal", "p1", target="p1"), "not_your_role")


def test_medium_peeks_a_dead_role_at_night_end() -> None:
    roles = ["mafia", "mafia", "police", "doctor", "medium", "citizen", "citizen", "citizen"]
    t = night_first(roles, deathReveal="none")
    refused(lambda: t.act("mediumPeek", "p5", target="p6"), "target_alive")
    t.act("mafiaTarget", "p1", target="p4")
    t.timeout()
    t.to_night()
    assert t.view("p5")["private"]["targets"] == ["p4"]
    t.act("mediumPeek", "p5", target="p4")
    assert t.view("p5")["private"]["results"] == []
    t.timeout()
    assert t.view("p5")["private"]["results"] == [
        {"day": 2, "kind": "mediumPeek", "target": "p4", "result": "doctor"}
    ]


# --- §6 wins -----------------------------------------------------------------------------------
def test_mafia_wins_immediately_when_execution_makes_parity() -> None:
    t = night_first(["mafia", "mafia", "citizen", "police", "doctor"])
    t.timeout()  # quiet night
    t.execute("p3")
    assert t.kind == "ended" and t.state["winner"] == "mafia"
    assert not any(e["kind"] == "morning" for e in t.events()[-3:])
    r = me.result(t.state)
    assert r["winner"] == "mafia" and r["days"] == 2
    assert [p["won"] for p in r["players"]] == [True, True, False, False, False]
    assert r["ranking"][:2] == ["p1", "p2"]


def test_town_wins_when_last_mafia_is_executed_with_mvp() -> None:
    t = night_first(["mafia", "police", "doctor", "citizen", "citizen"])
    t.timeout()
    t.nominate("p1", voters=["p2", "p3", "p4"])
    t.timeout()
    for pid in ("p2", "p3", "p4", "p5"):
        t.act("confirm", pid, choice="yes")
    t.timeout()
    r = me.result(t.state)
    assert r["winner"] == "town" and r["mvp"] == "p2" and "Town wins" in r["summary"]
    assert r["ranking"] == ["p2", "p3", "p4", "p5", "p1"]
    assert {p["id"]: p["diedBy"] for p in r["players"]}["p1"] == "vote"


def test_mafia_wins_after_morning_announcement() -> None:
    t = night_first(["mafia", "police", "citizen", "doctor"])
    t.act("mafiaTarget", "p1", target="p3")
    t.timeout()  # 1 vs 2: continues
    assert t.kind == "discussion"
    t.execute("p2")  # wrong execution: 1 vs 1
    assert t.state["winner"] == "mafia"


def test_dead_team_members_win_too() -> None:
    t = night_first(["mafia", "mafia", "police", "doctor", "citizen", "citizen"])
    t.timeout()
    t.execute("p1")
    t.night(mafia=("p2", "p5"))
    t.execute("p3")
    t.night(mafia=("p2", "p4"))
    assert t.state["winner"] == "mafia"
    assert {p["id"]: p["won"] for p in me.result(t.state)["players"]}["p1"] is True


# --- §5.6 chat ---------------------------------------------------------------------------------
def test_citizen_day_chat_refused_at_night() -> None:
    t = night_first(EIGHT)
    refused(lambda: t.act("chat", "p5", channel="day", text="hello"), "no_permission")


def test_dead_day_chat_refused() -> None:
    t = night_first(EIGHT)
    t.act("mafiaTarget", "p1", target="p5")
    t.timeout()
    refused(lambda: t.act("chat", "p5", channel="day", text="it was p1!"), "no_permission")
    t.act("chat", "p5", channel="dead", text="boo")
    assert not any(m["text"] == "boo" for m in t.view("p6")["chat"])


def test_chat_rate_limit_refused() -> None:
    t = night_first(EIGHT)
    t.timeout()
    t.act("chat", "p5", channel="day", text="one")
    t.now += 0.0
    e = refused(
        lambda: t.do({"type": "chat", "player": "p5", "channel": "day", "text": "two"}, dt=0.3),
        "rate_limited",
    )
    assert "0.7" in str(e)
    t.do({"type": "chat", "player": "p5", "channel": "day", "text": "two"}, dt=0.7)


# --- §8.3 leaks ----------------------------------------------------------------------------------
SECRET = {"mafia": "SECRET-MAFIA-7", "dead": "SECRET-DEAD-7", "lovers": "SECRET-LOVERS-7"}


def _leak_table() -> Table:
    roles = [
        "mafia",
        "mafia",
        "police",
        "doctor",
        "medium",
        "lover",
        "lover",
        "citizen",
        "citizen",
        "citizen",
    ]
    t = night_first(roles)
    t.act("mafiaTarget", "p1", target="p9")
    t.act("investigate", "p3", target="p1")
    t.act("heal", "p4", target="p8")
    t.act("chat", "p1", channel="mafia", text=SECRET["mafia"])
    t.act("chat", "p6", channel="lovers", text=SECRET["lovers"])
    t.timeout()  # p9 dies
    t.act("chat", "p9", channel="dead", text=SECRET["dead"])
    return t


def _assert_clean(v: dict, viewer_role: str | None) -> None:
    # the rules' catalogue names every task (public, the same in every view): the rest may not
    blob = json.dumps({k: x for k, x in v.items() if k != "rules"})
    for text in SECRET.values():
        assert text not in blob
    you = v["you"]["id"] if v["you"] else None
    for p in v["players"]:
        assert p["role"] is None or p["id"] == you
    assert '"mafiaTarget"' not in blob.replace('"task": "mafiaTarget"', "")
    if v["private"]:
        assert v["private"]["teamChoices"] == {}
        if viewer_role == "citizen":
            assert v["private"]["results"] == []


def test_citizen_and_spectator_views_leak_nothing() -> None:
    t = _leak_table()
    for _ in range(6):
        _assert_clean(t.view("p10"), "citizen")
        _assert_clean(t.view(None), None)
        assert t.view(None)["you"] is None and t.view(None)["private"] is None
        t.timeout()
        if t.kind == "night":
            t.act("chat", "p2", channel="mafia", text=SECRET["mafia"])
            t.act("heal", "p4", target="p8")


def test_medium_gets_no_dead_chat_by_day() -> None:
    t = _leak_table()
    assert t.kind == "discussion"
    assert SECRET["dead"] not in json.dumps(t.view("p5"))
    assert "dead" not in t.view("p5")["channels"]["read"]
    t.to_night()
    v = t.view("p5")
    assert SECRET["dead"] in json.dumps(v) and "dead" in v["channels"]["write"]


def test_night_view_shape_identical_for_all_roles() -> None:
    t = _leak_table()
    t.to_night()

    def shape(x):
        if isinstance(x, dict):
            return {k: shape(v) for k, v in x.items()} if len(x) > 3 or "task" in x else type(x).__name__
        if isinstance(x, list):
            return "list"
        return type(x).__name__ if x is not None else "null"

    views = {pid: t.view(pid) for pid in t.ids if t.alive(pid)}
    keys = {tuple(v) for v in views.values()}
    assert len(keys) == 1
    priv = {tuple(v["private"]) for v in views.values()}
    assert priv == {("task", "targets", "choice", "teamChoices", "results")}
    for v in views.values():
        assert isinstance(v["private"]["targets"], list) and isinstance(v["private"]["results"], list)
        assert set(v["phase"]) == {"kind", "endsAt", "seq"}
    assert views["p8"]["private"]["task"] == "sleep" and views["p8"]["private"]["targets"] == []
    assert views["p3"]["private"]["task"] == "investigate"


# --- §8.5 disconnects ------------------------------------------------------------------------------
def test_two_absent_days_eliminate_player() -> None:
    t = Table(EIGHT)  # greeting day 1
    t.act("presence", "p6", connected=False)
    t.timeout()
    assert t.kind == "greeting"
    t.timeout()  # end of day 1: absent once
    assert t.alive("p6") and t.p("p6")["absentDays"] == 1
    t.timeout()  # night 1
    t.until("night")  # day 2 passes without p6
    assert not t.alive("p6") and t.p("p6")["diedBy"] == "disconnect"
    assert t.events("death")[-1] == {
        "kind": "death",
        "day": 2,
        "player": "p6",
        "by": "disconnect",
        "revealed": {"team": "town"},
    }


def test_reconnecting_during_a_day_resets_absence() -> None:
    t = Table(EIGHT)
    t.act("presence", "p6", connected=False)
    t.timeout()
    t.timeout()  # day 1 absent
    t.timeout()  # night
    t.act("presence", "p6", connected=True)
    t.act("presence", "p6", connected=False)
    t.until("night")
    assert t.alive("p6") and t.p("p6")["absentDays"] == 0


def test_disconnect_elimination_can_end_the_game() -> None:
    t = Table(["mafia", "police", "doctor", "citizen", "citizen"])
    t.act("presence", "p1", connected=False)
    t.until("night")
    t.timeout()
    t.until("ended")
    assert t.state["winner"] == "town" and t.p("p1")["diedBy"] == "disconnect"
    assert "left" in me.result(t.state)["summary"]


# --- §5.2 time adjustment ------------------------------------------------------------------------
def test_time_adjust_once_per_player_per_day() -> None:
    t = night_first(EIGHT)
    t.timeout()
    ends = me.deadline(t.state)
    t.act("adjustTime", "p5", delta=15)
    assert me.deadline(t.state) == ends + 15
    refused(lambda: t.act("adjustTime", "p5", delta=-15), "already_adjusted")
    assert t.view(None)["phase"]["adjustedBy"] == ["p5"]


def test_time_adjust_never_below_five_seconds() -> None:
    t = night_first(EIGHT)
    t.timeout()
    t.now = me.deadline(t.state) - 12
    t.act("adjustTime", "p5", delta=-15)  # at 11 s left
    assert me.deadline(t.state) == t.now + 5
    ends = me.deadline(t.state)
    t.now = ends - 2
    t.act("adjustTime", "p6", delta=-15)  # 1 s left: unchanged, never extended by a cut
    assert me.deadline(t.state) == ends


def test_discussion_length_is_clamped_alive_times_per_alive() -> None:
    t = night_first(EIGHT)
    t.timeout()
    assert me.deadline(t.state) - t.now == 8 * 15
    t = night_first(["mafia", "police", "doctor", "citizen"])
    t.timeout()
    assert me.deadline(t.state) - t.now == 60  # 4 x 15 = 60, the minimum


def test_ready_early_ends_discussion_when_all_living_are_ready() -> None:
    t = night_first(["mafia", "police", "doctor", "citizen"])
    t.timeout()
    for pid in ("p1", "p2", "p3"):
        t.act("readyEarly", pid)
        assert t.kind == "discussion"
    refused(lambda: t.act("readyEarly", "p1"), "already_ready")
    t.act("readyEarly", "p4")
    assert t.kind == "vote"


# --- §8.4 replay -------------------------------------------------------------------------------
def test_replay_same_seed_and_log_gives_same_result() -> None:
    log = []
    first = None
    for action, now, s in random_game(
        10, seed=11, options={"extraRoles": ["lovers", "medium"], "mafiaMustKill": "random"}
    ):
        if action is None:
            first = s
        else:
            log.append((action, now))
        last = s
    again = first
    again = me.new_game(
        [f"p{i}" for i in range(1, 11)],
        {"extraRoles": ["lovers", "medium"], "mafiaMustKill": "random"},
        seed=11,
    )
    assert again == first
    for action, now in log:
        again = me.apply(again, action, now)
    assert me.dump(again) == me.dump(last) and me.result(again) == me.result(last)
    assert any(a["type"] == "chat" for a, _ in log)


def test_connecting_only_at_night_does_not_count_as_present() -> None:
    t = Table(EIGHT)
    t.act("presence", "p6", connected=False)
    t.until("night")  # day 1 absent
    t.act("presence", "p6", connected=True)
    t.act("presence", "p6", connected=False)  # gone again before the day starts
    t.timeout()
    t.until("night")  # day 2 absent
    assert not t.alive("p6") and t.p("p6")["diedBy"] == "disconnect"
