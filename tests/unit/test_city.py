"""The city preset (docs/rulebooks/001-city.txt): every rule, named after the rule (docs/rules.md,
"City")."""

from __future__ import annotations

import pytest
from enginekit import Table, refused

import mafia_engine as me

# seats: p1 p2 mafia, p3 police, p4 doctor, p5..p7 citizens
SEVEN = ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen"]


def city(roles=SEVEN, **options) -> Table:
    return Table(roles, preset="city", **options)


def night(t: Table, **acts) -> None:
    """From wherever: reach the night; ``acts`` maps player -> (type, target); the rest sleep."""
    t.until("night")
    for pid, (typ, target) in acts.items():
        t.act(typ, pid, target=target)
    for pid in t.ids:
        if t.kind != "night":
            break
        if t.alive(pid) and pid not in t.state["phase"]["acts"]:
            t.act("sleep", pid)


def vote(t: Table, ballots: dict[str, str]) -> None:
    """From the day: reach the vote; everyone in ``ballots`` votes; the rest abstain."""
    t.until("vote")
    for pid in t.ids:
        if t.kind != "vote":
            break
        if t.alive(pid) and pid not in t.state["phase"]["votes"]:
            t.act("vote", pid, target=ballots.get(pid, "abstain"))


# --- set-up ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n,mafia",
    [(5, 1), (6, 1), (7, 2), (8, 2), (9, 2), (10, 2), (11, 3), (12, 3), (13, 3), (14, 3), (15, 4), (16, 4)],
)
def test_city_auto_mafia_table(n: int, mafia: int) -> None:
    s = me.new_game([f"p{i}" for i in range(n)], {"preset": "city"}, seed=n)
    roles = [p["role"] for p in s["players"]]
    assert roles.count("mafia") == mafia
    assert roles.count("police") == 1 and roles.count("doctor") == 1
    assert roles.count("citizen") == n - mafia - 2


def test_city_player_count_is_five_to_sixteen() -> None:
    refused(lambda: me.check_setup({"preset": "city"}, 4), "too_few_players")
    refused(lambda: me.check_setup({"preset": "city"}, 17), "too_many_players")
    me.check_setup({"preset": "city"}, 5)
    me.check_setup({"preset": "city"}, 16)


def test_city_commissar_and_doctor_can_be_switched_off() -> None:
    s = me.new_game([f"p{i}" for i in range(8)], {"preset": "city", "police": False, "doctor": False})
    roles = sorted(p["role"] for p in s["players"])
    assert roles == ["citizen"] * 6 + ["mafia"] * 2
    s = me.new_game([f"p{i}" for i in range(8)], {"preset": "city", "doctor": False})
    assert "police" in [p["role"] for p in s["players"]]


def test_city_mafia_must_be_fewer_than_half_and_a_plain_citizen_remains() -> None:
    refused(lambda: me.check_setup({"preset": "city", "mafiaCount": 3}, 6), "bad_options")
    for n in range(5, 17):
        for m in range(1, 8):
            for police in (True, False):
                try:
                    opts = me.check_setup({"preset": "city", "mafiaCount": m, "police": police}, n)
                except me.InvalidAction as e:
                    assert e.code == "bad_options" and 2 * m >= n
                    continue
                s = me.new_game([f"p{i}" for i in range(n)], opts)
                roles = [p["role"] for p in s["players"]]
                assert roles.count("citizen") >= 1 and 2 * roles.count("mafia") < n


def test_city_presets_report_implemented_with_option_schema() -> None:
    p = me.presets()["city"]
    assert p["implemented"] and (p["minPlayers"], p["maxPlayers"]) == (5, 16)
    keys = {o["key"] for o in p["options"]}
    assert {"mafiaCount", "police", "doctor", "deathReveal", "untimed", "nightSeconds"} <= keys
    assert p["defaults"]["deathReveal"] == "none"


# --- night -----------------------------------------------------------------------------------------
def test_city_first_night_right_after_role_reveal() -> None:
    t = city()
    assert t.kind == "roleReveal"
    t.timeout()
    assert t.kind == "night" and t.state["day"] == 1


def test_city_role_reveal_ends_when_everyone_has_read_the_card() -> None:
    t = city()
    for pid in t.ids:
        assert t.kind == "roleReveal"
        t.act("readyEarly", pid)
    assert t.kind == "night"


def test_city_every_living_player_confirms_and_night_ends_when_all_confirmed() -> None:
    t = city()
    t.until("night")
    t.act("mafiaTarget", "p1", target="p5")
    t.act("mafiaTarget", "p2", target="p5")
    t.act("investigate", "p3", target="p1")
    t.act("heal", "p4", target="p6")
    t.act("sleep", "p5")
    t.act("sleep", "p6")
    assert t.kind == "night"
    t.act("sleep", "p7")
    assert t.kind == "discussion" and not t.alive("p5")


def test_city_citizens_confirm_sleep_and_have_no_night_action() -> None:
    t = city()
    t.until("night")
    assert t.view("p5")["private"]["task"] == "sleep"
    refused(lambda: t.act("mafiaTarget", "p5", target="p6"), "not_your_role")
    refused(lambda: t.act("investigate", "p1", target="p6"), "not_your_role")
    t.act("sleep", "p5")
    assert t.view("p5")["private"]["task"] == "done"


def test_city_unreceived_night_actions_are_skips() -> None:
    t = city()
    t.until("night")
    t.act("mafiaTarget", "p1", target="p5")
    t.timeout()  # p2 never confirmed: one of two is not more than half
    assert t.kind == "discussion" and t.alive("p5")


def test_city_mafia_kill_needs_more_than_half() -> None:
    roles = ["mafia", "mafia", "mafia", "police", "doctor"] + ["citizen"] * 6
    t = city(roles)
    night(t, p1=("mafiaTarget", "p6"), p2=("mafiaTarget", "p6"), p3=("mafiaTarget", "p7"))
    assert not t.alive("p6") and t.alive("p7")  # 2 of 3 is more than half
    vote(t, {})
    night(t, p1=("mafiaTarget", "p7"), p2=("mafiaTarget", "p8"), p3=("mafiaTarget", None))
    assert t.alive("p7") and t.alive("p8")  # no target has more than half


def test_city_two_mafiosi_split_means_no_kill() -> None:
    t = city()
    night(t, p1=("mafiaTarget", "p5"), p2=("mafiaTarget", "p6"))
    assert t.alive("p5") and t.alive("p6")
    assert t.events()[-2]["kind"] == "quietNight"


def test_city_mafia_see_teammates_confirmed_choices() -> None:
    t = city()
    t.until("night")
    assert t.view("p2")["private"]["teamChoices"] == {}
    t.act("mafiaTarget", "p1", target="p5")
    assert t.view("p2")["private"]["teamChoices"] == {"p1": "p5"}
    assert t.view("p2")["private"]["task"] == "mafiaTarget"
    for pid in ("p3", "p4", "p5", None):
        v = t.view(pid)
        assert v["private"] is None or v["private"]["teamChoices"] == {}
        assert "p5" not in str(v["phase"])


def test_city_confirmed_choice_cannot_change() -> None:
    t = city()
    t.until("night")
    t.act("mafiaTarget", "p1", target="p5")
    refused(lambda: t.act("mafiaTarget", "p1", target="p6"), "already_confirmed")
    t.act("sleep", "p5")
    refused(lambda: t.act("sleep", "p5"), "already_confirmed")


def test_city_mafia_choose_among_the_other_residents() -> None:
    t = city()
    t.until("night")
    refused(lambda: t.act("mafiaTarget", "p1", target="p2"), "bad_target")
    refused(lambda: t.act("investigate", "p3", target="p3"), "self_target")
    assert "p2" not in t.view("p1")["private"]["targets"]


def test_city_commissar_result_at_dawn_even_if_killed() -> None:
    t = city()
    t.until("night")
    t.act("investigate", "p3", target="p1")
    assert t.view("p3")["private"]["results"] == []
    night(t, p1=("mafiaTarget", "p3"), p2=("mafiaTarget", "p3"))
    assert not t.alive("p3")
    assert t.view("p3")["private"]["results"] == [
        {"day": 1, "kind": "investigate", "target": "p1", "result": "mafia"}
    ]
    assert t.view("p5")["private"]["results"] == []


def test_city_commissar_result_not_mafia() -> None:
    t = city()
    night(t, p3=("investigate", "p5"))
    assert t.view("p3")["private"]["results"][0]["result"] == "notMafia"


def test_city_doctor_never_same_target_two_nights_running() -> None:
    t = city()
    night(t, p4=("heal", "p5"))
    vote(t, {})
    t.until("night")
    refused(lambda: t.act("heal", "p4", target="p5"), "repeat_heal")
    assert "p5" not in t.view("p4")["private"]["targets"]
    night(t, p4=("heal", "p6"))
    vote(t, {})
    night(t, p4=("heal", "p5"))  # not two nights running any more
    assert t.state["lastHeal"] == {"night": 3, "target": "p5"}


def test_city_doctor_self_protection_only_once_per_game() -> None:
    t = city()
    night(t, p1=("mafiaTarget", "p4"), p2=("mafiaTarget", "p4"), p4=("heal", "p4"))
    assert t.alive("p4")
    vote(t, {})
    night(t, p4=("heal", "p5"))
    vote(t, {})
    t.until("night")
    refused(lambda: t.act("heal", "p4", target="p4"), "self_heal_used")


def test_city_doctor_protection_works_even_if_the_doctor_is_gone() -> None:
    t = city()
    t.until("night")
    t.act("heal", "p4", target="p5")
    t.act("leave", "p4")
    night(t, p1=("mafiaTarget", "p5"), p2=("mafiaTarget", "p5"))
    assert t.alive("p5") and not t.alive("p4")


def test_city_protection_saves_from_the_night_only() -> None:
    t = city()
    night(t, p4=("heal", "p5"))
    vote(t, {pid: "p5" for pid in ("p1", "p2", "p3")})
    assert not t.alive("p5")


def test_city_night_without_death_does_not_say_why() -> None:
    saved = city()
    night(saved, p1=("mafiaTarget", "p5"), p2=("mafiaTarget", "p5"), p4=("heal", "p5"))
    nokill = city()
    night(nokill, p4=("heal", "p5"))
    a, b = saved.view(None), nokill.view(None)
    assert a["events"] == b["events"] and [m["text"] for m in a["chat"]] == [m["text"] for m in b["chat"]]
    assert [e["kind"] for e in a["events"]] == ["quietNight", "morning"]


def test_city_night_view_has_one_shape_and_tells_nobody_who_acted() -> None:
    t = city()
    t.until("night")
    t.act("investigate", "p3", target="p1")
    shapes = {(tuple(t.view(p)), tuple(t.view(p)["private"]), tuple(t.view(p)["phase"])) for p in t.ids}
    assert len(shapes) == 1
    assert t.view(None)["phase"] == t.view("p5")["phase"]
    assert set(t.view(None)["phase"]) == {"kind", "endsAt", "seq"}


# --- day -------------------------------------------------------------------------------------------
def test_city_ready_to_vote_starts_the_vote_when_all_are_ready() -> None:
    t = city()
    night(t)
    for pid in t.ids:
        assert t.kind == "discussion"
        t.act("readyEarly", pid)
    assert t.kind == "vote"
    refused(lambda: t.act("readyEarly", "p1"), "wrong_phase")


def test_city_discussion_timer_starts_the_vote() -> None:
    t = city()
    night(t)
    t.act("readyEarly", "p1")
    refused(lambda: t.act("readyEarly", "p1"), "already_ready")
    t.timeout()
    assert t.kind == "vote"


def test_city_votes_are_secret_until_the_result_and_cannot_change() -> None:
    t = city()
    night(t)
    t.until("vote")
    t.act("vote", "p5", target="p1")
    refused(lambda: t.act("vote", "p5", target="p2"), "already_voted")
    for viewer in (None, "p1", "p2", "p6"):
        assert "p5" not in str(t.view(viewer)["votes"]) and t.view(viewer)["votes"] is None
    assert t.view("p5")["private"]["choice"] == "p1"
    vote(t, {"p6": "p1", "p7": "p1"})
    rounds = t.view(None)["votes"]["rounds"]
    assert rounds[0]["tally"] == {"p1": 3} and rounds[0]["ballots"]["p5"] == "p1"


def test_city_vote_for_another_living_player_or_abstain() -> None:
    t = city()
    night(t, p1=("mafiaTarget", "p7"), p2=("mafiaTarget", "p7"))
    t.until("vote")
    refused(lambda: t.act("vote", "p5", target="p5"), "self_target")
    refused(lambda: t.act("vote", "p5", target="p7"), "target_dead")
    refused(lambda: t.act("vote", "p7", target="p1"), "dead_player")
    t.act("vote", "p5", target="abstain")


def test_city_abstentions_do_not_count_and_unique_leader_leaves() -> None:
    t = city()
    night(t)
    vote(t, {"p5": "p1"})
    assert not t.alive("p1")
    assert t.state["votes"]["rounds"][0]["eliminated"] == "p1" and t.kind == "night"


def test_city_no_votes_means_nobody_leaves() -> None:
    t = city()
    night(t)
    vote(t, {})
    assert all(t.alive(p) for p in t.ids if p != "p0") and t.kind == "night"
    assert t.state["day"] == 2


def test_city_tie_gives_defense_then_revote_only_between_leaders() -> None:
    t = city()
    night(t)
    vote(t, {"p5": "p1", "p6": "p2"})
    assert t.kind == "defense" and t.view(None)["phase"]["suspects"] == ["p1", "p2"]
    refused(lambda: t.act("chat", "p5", channel="day", text="hi"), "no_permission")
    t.act("chat", "p1", channel="day", text="not me")
    t.act("endTurn", "p1")
    t.act("endTurn", "p2")
    assert t.kind == "vote" and t.view(None)["phase"]["candidates"] == ["p1", "p2"]
    assert t.view(None)["phase"]["round"] == 2
    refused(lambda: t.act("vote", "p5", target="p6"), "not_a_candidate")
    vote(t, {"p5": "p1", "p6": "p1", "p7": "p2"})
    assert not t.alive("p1") and t.alive("p2")


def test_city_second_tie_means_nobody_leaves() -> None:
    t = city()
    night(t)
    vote(t, {"p5": "p1", "p6": "p2"})
    t.timeout()
    vote(t, {"p5": "p1", "p6": "p2"})
    assert t.kind == "night" and t.alive("p1") and t.alive("p2")
    assert [r["round"] for r in t.state["votes"]["rounds"]] == [1, 2]


def test_city_vote_ends_when_everyone_has_voted_or_at_the_timer() -> None:
    t = city()
    night(t)
    t.until("vote")
    t.act("vote", "p5", target="p1")
    t.timeout()  # the rest abstain
    assert not t.alive("p1")


# --- wins and draws ----------------------------------------------------------------------------------
def test_city_town_wins_when_no_mafia_is_alive_and_every_townsperson_wins() -> None:
    t = city(["mafia", "police", "doctor", "citizen", "citizen"])
    night(t, p1=("mafiaTarget", "p4"))
    assert not t.alive("p4")
    vote(t, {"p2": "p1", "p3": "p1"})
    r = me.result(t.state)
    assert r["winner"] == "town" and t.kind == "ended"
    assert {p["id"]: p["won"] for p in r["players"]} == {
        "p1": False,
        "p2": True,
        "p3": True,
        "p4": True,
        "p5": True,
    }


def test_city_mafia_wins_when_as_many_as_the_others() -> None:
    t = city(["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen"])
    night(t, p1=("mafiaTarget", "p5"), p2=("mafiaTarget", "p5"))
    vote(t, {"p1": "p6", "p2": "p6"})
    night(t, p1=("mafiaTarget", "p7"), p2=("mafiaTarget", "p7"))
    assert me.result(t.state)["winner"] == "mafia"
    assert me.result(t.state)["days"] == 2


def test_city_draw_after_six_results_in_a_row_without_elimination() -> None:
    t = city()
    for _ in range(2):
        night(t)  # results 1, 3
        vote(t, {"p5": "p1", "p6": "p2"})  # tie → defense → revote tie: one result (2, 4)
        t.timeout()
        vote(t, {"p5": "p1", "p6": "p2"})
    night(t)  # 5
    assert t.kind == "discussion"
    vote(t, {})  # 6
    assert me.result(t.state)["winner"] == "draw"
    assert all(not p["won"] for p in me.result(t.state)["players"])


def test_city_an_elimination_restarts_the_draw_count() -> None:
    t = city()
    night(t)
    vote(t, {})
    night(t)
    vote(t, {})
    night(t)
    vote(t, {"p5": "p6"})  # elimination after 5 dry results
    for _ in range(2):
        night(t)
        vote(t, {})
    assert t.kind == "night"


def test_city_draw_after_thirty_nights() -> None:
    t = city()
    t.until("night")
    t.state["day"] = 30
    night(t, p1=("mafiaTarget", "p5"), p2=("mafiaTarget", "p5"))
    r = me.result(t.state)
    assert r["winner"] == "draw" and "thirty" in r["summary"]


def test_city_eliminated_roles_hidden_by_default_all_shown_at_the_end() -> None:
    t = city()
    night(t, p1=("mafiaTarget", "p5"), p2=("mafiaTarget", "p5"))
    assert next(p for p in t.view("p6")["players"] if p["id"] == "p5")["revealed"] is None
    assert next(p for p in t.view("p6")["players"] if p["id"] == "p5")["role"] is None
    t.act("endGame", "p1")
    assert all(p["role"] for p in t.view(None)["players"])


def test_city_death_reveal_option_shows_the_role() -> None:
    t = city(deathReveal="role")
    night(t, p1=("mafiaTarget", "p5"), p2=("mafiaTarget", "p5"))
    assert next(p for p in t.view(None)["players"] if p["id"] == "p5")["revealed"] == {
        "role": "citizen",
        "team": "town",
    }


# --- chat -------------------------------------------------------------------------------------------
def test_city_chat_by_day_for_the_living_dead_chat_for_the_eliminated_no_night_chat() -> None:
    t = city()
    t.until("night")
    for pid in ("p1", "p5"):
        for ch in ("day", "mafia", "dead"):
            refused(lambda pid=pid, ch=ch: t.act("chat", pid, channel=ch, text="psst"), "no_permission")
    night(t, p1=("mafiaTarget", "p5"), p2=("mafiaTarget", "p5"))
    t.act("chat", "p6", channel="day", text="who?")
    refused(lambda: t.act("chat", "p5", channel="day", text="it was p1"), "no_permission")
    t.act("chat", "p5", channel="dead", text="rip")
    assert [m["text"] for m in t.view("p6")["chat"] if m["channel"] == "dead"] == []
    assert t.view("p6")["channels"]["read"] == ["day", "system"]
    assert [m["text"] for m in t.view("p5")["chat"] if m["channel"] == "dead"] == ["rip"]


# --- untimed -----------------------------------------------------------------------------------------
def test_city_untimed_has_no_deadline_and_ends_phases_on_confirmation() -> None:
    t = city(untimed=True)
    assert me.deadline(t.state) is None
    refused(lambda: t.timeout(), "no_deadline")
    for pid in t.ids:
        t.act("readyEarly", pid)
    assert t.kind == "night" and me.deadline(t.state) is None
    night(t)
    for pid in t.ids:
        t.act("readyEarly", pid)
    assert t.kind == "vote" and me.deadline(t.state) is None
    vote(t, {"p5": "p1", "p6": "p2"})
    assert t.kind == "defense"
    t.act("endTurn", "p1")
    refused(lambda: t.act("endTurn", "p1"), "already_ready")
    refused(lambda: t.act("endTurn", "p5"), "not_your_turn")
    t.act("endTurn", "p2")
    assert t.kind == "vote"


def test_city_a_night_confirmation_changes_no_other_players_view() -> None:
    t = city()
    t.until("night")
    moves = [
        ("p3", "investigate", "p1"),
        ("p4", "heal", "p4"),
        ("p5", "sleep", None),
        ("p1", "mafiaTarget", "p6"),
    ]
    for actor, typ, target in moves:
        before = {v: t.view(v) for v in [None, *t.ids]}
        t.act(typ, actor, **({} if typ == "sleep" else {"target": target}))
        for v, old in before.items():
            if v != actor and not (actor == "p1" and v == "p2"):  # the mafia mate sees confirmed picks
                assert t.view(v) == old, (actor, v)
