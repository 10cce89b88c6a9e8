"""The original preset (docs/rulebooks/003-original.txt): every rule, named after the rule
(docs/rules.md, "Original")."""

from __future__ import annotations

from collections import Counter

import pytest
from enginekit import Table, refused

import mafia_engine as me
from mafia_engine.presets.original import BASE, EXPANSION

# p1 mafia, p2 godfather, p3 investigator, p4..p8 citizens
EIGHT = ["mafia", "godfather", "police", "citizen", "citizen", "citizen", "citizen", "citizen"]


def original(roles=EIGHT, **options) -> Table:
    return Table(roles, preset="original", expansion=True, **options)


def night(t: Table, **acts) -> None:
    """From wherever: reach the night; ``acts``: player -> [(type, target), ...]; everyone else sleeps."""
    t.until("night")
    for pid, todo in acts.items():
        for typ, target in todo:
            t.act(typ, pid, target=target)
    for pid in t.ids:
        if t.kind != "night":
            break
        if t.alive(pid) and pid not in t.state["phase"]["done"]:
            t.act("sleep", pid)


def speeches(t: Table, **noms) -> None:
    """Every speaker of the day ends their turn, nominating ``noms[speaker]`` if given."""
    assert t.kind == "speech", t.kind
    while t.kind == "speech":
        sp = t.state["phase"]["speaker"]
        t.act("nominate", sp, target=noms.get(sp))


def defenses(t: Table) -> list[str]:
    order = []
    while t.kind == "defense":
        order.append(t.state["phase"]["accused"])
        t.act("endTurn", order[-1])
    return order


def vote(t: Table, **ballots) -> None:
    """One vote round: the ``ballots``, then the timer for whoever did not vote."""
    assert t.kind == "vote", t.kind
    seq = t.state["seq"]
    for pid, target in ballots.items():
        t.act("vote", pid, target=target)
    if t.state["seq"] == seq:
        t.timeout()


def to_day_two(t: Table, **night_two) -> None:
    night(t)
    speeches(t)
    night(t, **night_two)
    assert t.kind == "speech" and t.state["day"] == 2


# --- set-up --------------------------------------------------------------------------------------------
SEED_BASE = {
    8: (5, 1, 1, 1),
    9: (5, 1, 2, 1),
    10: (6, 1, 2, 1),
    11: (7, 1, 2, 1),
    12: (8, 1, 2, 1),
    13: (8, 1, 3, 1),
}
# citizen, investigator, doctor, immortal, judge, sheriff, mafia, godfather, ninja, yakuza, madman, werewolf, lawyer, corruptJudge
SEED_EXPANSION = {
    8: (5, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0),
    9: (5, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0),
    10: (6, 1, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0),
    11: (5, 1, 1, 0, 0, 0, 2, 1, 0, 0, 0, 1, 0, 0),
    12: (5, 1, 0, 1, 0, 1, 2, 1, 0, 0, 1, 0, 0, 0),
    13: (5, 1, 1, 1, 0, 1, 2, 1, 0, 0, 1, 0, 0, 0),
    14: (6, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0),
    15: (4, 1, 1, 1, 2, 1, 2, 1, 0, 0, 0, 0, 1, 1),
    16: (5, 1, 1, 1, 2, 1, 2, 1, 0, 0, 0, 0, 1, 1),
}
EXP_ROLES = (
    "citizen",
    "police",
    "doctor",
    "immortal",
    "judge",
    "sheriff",
    "mafia",
    "godfather",
    "ninja",
    "yakuza",
    "madman",
    "werewolf",
    "lawyer",
    "corruptJudge",
)


@pytest.mark.parametrize("n", sorted(SEED_BASE))
def test_original_base_setup_table_matches_the_seed(n: int) -> None:
    s = me.new_game([f"p{i}" for i in range(n)], {"preset": "original"}, seed=n)
    c = Counter(p["role"] for p in s["players"])
    assert (c["citizen"], c["police"], c["mafia"], c["godfather"]) == SEED_BASE[n]
    assert sum(c.values()) == n and set(c) <= {"citizen", "police", "mafia", "godfather"}
    assert BASE[n] == {
        k: v for k, v in zip(("citizen", "police", "mafia", "godfather"), SEED_BASE[n], strict=True)
    }


@pytest.mark.parametrize("n", sorted(SEED_EXPANSION))
def test_original_expansion_setup_table_matches_the_seed(n: int) -> None:
    s = me.new_game([f"p{i}" for i in range(n)], {"preset": "original", "expansion": True}, seed=n)
    c = Counter(p["role"] for p in s["players"])
    assert tuple(c[r] for r in EXP_ROLES) == SEED_EXPANSION[n]
    assert sum(SEED_EXPANSION[n]) == n and sum(EXPANSION[n].values()) == n


def test_original_base_game_is_for_8_to_13_and_the_expansion_8_to_16() -> None:
    refused(lambda: me.check_setup({"preset": "original"}, 7), "too_few_players")
    refused(lambda: me.check_setup({"preset": "original"}, 14), "too_many_players")
    me.check_setup({"preset": "original", "expansion": True}, 16)
    refused(lambda: me.check_setup({"preset": "original", "expansion": True}, 17), "too_many_players")


def test_original_presets_report_implemented_with_option_schema() -> None:
    p = me.presets()["original"]
    assert p["implemented"] and (p["minPlayers"], p["maxPlayers"]) == (8, 16)
    assert {o["key"] for o in p["options"]} >= {"expansion", "speechSeconds", "defenseSeconds", "untimed"}


# --- night ----------------------------------------------------------------------------------------------
def test_original_first_night_groups_plan_and_nobody_is_killed() -> None:
    t = original()
    t.timeout()
    assert t.kind == "night" and t.state["day"] == 1
    assert t.view("p1")["private"]["task"] == "sleep"
    refused(lambda: t.act("mafiaTarget", "p1", target="p4"), "not_your_role")
    t.act("chat", "p1", channel="mafia", text="p4 first, then p5")
    refused(lambda: t.act("chat", "p4", channel="mafia", text="hi"), "no_permission")
    assert [m["text"] for m in t.view("p2")["chat"] if m["channel"] == "mafia"] == ["p4 first, then p5"]
    assert all(m["channel"] != "mafia" for m in t.view("p4")["chat"])
    night(t, p2=[("godfatherCheck", "p3")])
    assert all(t.alive(p) for p in t.ids)
    speeches(t)
    t.until("night")
    refused(lambda: t.act("chat", "p1", channel="mafia", text="change of plan"), "no_permission")


def test_original_mafia_and_godfather_know_each_other_but_not_lawyer_or_corrupt_judge() -> None:
    roles = ["mafia", "godfather", "lawyer", "corruptJudge", "judge", "judge", "police", "citizen"]
    t = original(roles)
    assert {p["id"] for p in t.view("p1")["players"] if p["role"]} == {"p1", "p2"}
    assert t.view("p2")["you"]["allies"] == [{"id": "p1", "role": "mafia"}]
    assert {p["id"] for p in t.view("p3")["players"] if p["role"]} == {"p3"}
    assert {p["id"] for p in t.view("p4")["players"] if p["role"]} == {"p4"}


def test_original_yakuza_and_ninja_know_each_other_and_not_the_mafia() -> None:
    roles = ["mafia", "godfather", "yakuza", "ninja", "police", "citizen", "citizen", "citizen"]
    t = original(roles)
    assert {p["id"] for p in t.view("p3")["players"] if p["role"]} == {"p3", "p4"}
    assert {p["id"] for p in t.view("p1")["players"] if p["role"]} == {"p1", "p2"}
    t.timeout()
    t.act("chat", "p4", channel="yakuza", text="plan")
    assert all(m["channel"] != "yakuza" for m in t.view("p1")["chat"])


def test_original_kill_needs_every_living_mafia_group_member_on_one_target() -> None:
    t = original()
    to_day_two(t, p1=[("mafiaTarget", "p4")], p2=[("mafiaTarget", "p5"), ("godfatherCheck", "p3")])
    assert t.alive("p4") and t.alive("p5")  # different players: the attempt fails
    speeches(t)
    night(t, p1=[("mafiaTarget", "p4")], p2=[("mafiaTarget", "p4")])
    assert not t.alive("p4") and t.p("p4")["diedBy"] == "mafia"
    speeches(t)
    night(t, p1=[("mafiaTarget", "p5")])  # the godfather sleeps: no agreement
    assert t.alive("p5")


def test_original_a_dead_member_no_longer_needs_to_agree() -> None:
    t = original()
    t.act("leave", "p1")
    to_day_two(t, p2=[("mafiaTarget", "p6")])
    assert not t.alive("p6")


def test_original_godfather_kills_and_checks_the_same_night() -> None:
    t = original()
    night(t)
    speeches(t)
    t.until("night")
    assert t.view("p2")["private"]["task"] == "mafiaTarget"
    t.act("mafiaTarget", "p2", target="p5")
    assert t.view("p2")["private"]["task"] == "godfatherCheck"
    t.act("godfatherCheck", "p2", target="p3")
    assert t.view("p2")["private"]["task"] == "done"
    refused(lambda: t.act("godfatherCheck", "p2", target="p4"), "already_confirmed")


def test_original_godfather_checks_investigator_or_ninja() -> None:
    roles = ["mafia", "godfather", "police", "ninja", "yakuza", "citizen", "citizen", "citizen"]
    t = original(roles)
    night(t, p2=[("godfatherCheck", "p3")])
    speeches(t)
    night(t, p2=[("godfatherCheck", "p4")])
    speeches(t)
    night(t, p2=[("godfatherCheck", "p6")])
    assert [r["result"] for r in t.view("p2")["private"]["results"]] == ["yes", "yes", "no"]
    assert [r["kind"] for r in t.view("p2")["private"]["results"]] == ["godfatherCheck"] * 3


def test_original_ninja_checks_investigator_or_mafia_group() -> None:
    roles = ["mafia", "godfather", "police", "ninja", "yakuza", "citizen", "lawyer", "citizen"] + [
        "citizen"
    ] * 4
    t = original(roles)
    night(t, p4=[("ninjaCheck", "p3")])
    speeches(t)
    night(t, p4=[("ninjaCheck", "p2")])
    speeches(t)
    night(t, p4=[("ninjaCheck", "p7")])
    assert [r["result"] for r in t.view("p4")["private"]["results"]] == ["yes", "yes", "no"]


def test_original_investigator_learns_criminal_or_not() -> None:
    roles = ["mafia", "godfather", "police", "madman", "yakuza", "citizen", "citizen", "citizen"]
    t = original(roles)
    night(t, p3=[("investigate", "p2")])
    speeches(t)
    night(t, p3=[("investigate", "p6")])
    speeches(t)
    night(t, p3=[("investigate", "p4")])
    assert [r["result"] for r in t.view("p3")["private"]["results"]] == [
        "criminal",
        "notCriminal",
        "criminal",
    ]


def test_original_lawyer_reads_as_citizen() -> None:
    roles = ["mafia", "godfather", "police", "lawyer", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    night(t, p3=[("investigate", "p4")])
    assert t.view("p3")["private"]["results"][0]["result"] == "notCriminal"


def test_original_lawyer_wakes_first_and_learns_an_identity() -> None:
    roles = ["mafia", "godfather", "police", "lawyer", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    t.until("night")
    assert t.view("p4")["private"]["task"] == "lawyerPeek"
    night(t, p4=[("lawyerPeek", "p3")])
    assert t.view("p4")["private"]["results"] == [
        {"day": 1, "kind": "lawyerPeek", "target": "p3", "result": "police"}
    ]


def test_original_dead_investigator_changes_nothing_in_the_night() -> None:
    alive, dead = original(), original()
    for t in (alive, dead):
        t.timeout()
    dead.act("leave", "p3")
    a, b = alive.view("p5"), dead.view("p5")
    assert a["phase"] == b["phase"] and a["private"] == b["private"]
    # the night ends when every living player has confirmed, never waiting for the dead
    night(dead)
    assert dead.kind == "speech"


def test_original_yakuza_group_kills_after_the_mafia_from_night_two() -> None:
    roles = ["mafia", "godfather", "yakuza", "ninja", "police", "citizen", "citizen", "citizen"] + [
        "citizen"
    ] * 4
    t = original(roles)
    t.until("night")
    assert t.view("p3")["private"]["task"] == "sleep" and t.view("p4")["private"]["task"] == "ninjaCheck"
    night(t)
    speeches(t)
    night(
        t,
        p1=[("mafiaTarget", "p6")],
        p2=[("mafiaTarget", "p6")],
        p3=[("yakuzaTarget", "p7")],
        p4=[("yakuzaTarget", "p7"), ("ninjaCheck", "p5")],
    )
    assert not t.alive("p6") and not t.alive("p7")
    assert t.p("p7")["diedBy"] == "yakuza"
    refused(
        lambda: me.apply(t.state, {"type": "yakuzaTarget", "player": "p1", "target": "p5"}, t.now),
        "wrong_phase",
    )


def test_original_two_attacks_on_one_player_are_one_death() -> None:
    roles = ["mafia", "godfather", "yakuza", "ninja", "police", "citizen", "citizen", "citizen"]
    t = original(roles)
    night(t)
    speeches(t)
    night(
        t,
        p1=[("mafiaTarget", "p6")],
        p2=[("mafiaTarget", "p6")],
        p3=[("yakuzaTarget", "p6")],
        p4=[("yakuzaTarget", "p6")],
    )
    assert [e["player"] for e in t.events("death")] == ["p6"]


def test_original_sheriff_is_only_identified_on_night_one_then_arrests() -> None:
    roles = ["mafia", "godfather", "sheriff", "police", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    t.until("night")
    assert t.view("p3")["private"]["task"] == "sleep"
    refused(lambda: t.act("arrest", "p3", target="p1"), "not_your_role")
    night(t)
    speeches(t)
    night(t, p3=[("arrest", "p1")])
    assert not t.alive("p1") and t.p("p1")["diedBy"] == "arrest"


def test_original_madman_kills_every_night() -> None:
    roles = ["mafia", "godfather", "madman", "police", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    night(t, p3=[("madmanKill", "p5")])
    assert not t.alive("p5") and t.p("p5")["diedBy"] == "madman"
    speeches(t)
    night(t, p3=[("madmanKill", "p1")])
    assert not t.alive("p1")


def test_original_doctor_protection_is_resolved_first_but_not_against_arrest() -> None:
    roles = ["mafia", "godfather", "doctor", "sheriff", "madman", "citizen", "citizen", "citizen"]
    t = original(roles)
    night(t, p3=[("heal", "p6")], p5=[("madmanKill", "p6")])
    assert t.alive("p6")
    speeches(t)
    night(
        t, p1=[("mafiaTarget", "p3")], p2=[("mafiaTarget", "p3")], p3=[("heal", "p3")], p4=[("arrest", "p7")]
    )
    assert t.alive("p3")  # the doctor may protect themself
    speeches(t)
    night(t, p3=[("heal", "p5")], p4=[("arrest", "p5")])
    assert not t.alive("p5")


def test_original_immortal_cannot_be_killed_at_night_only_executed() -> None:
    roles = ["mafia", "godfather", "immortal", "sheriff", "madman", "citizen", "citizen", "citizen"]
    t = original(roles)
    night(t, p5=[("madmanKill", "p3")])
    speeches(t)
    night(t, p1=[("mafiaTarget", "p3")], p2=[("mafiaTarget", "p3")], p4=[("arrest", "p3")])
    assert t.alive("p3")
    assert t.events()[-2]["kind"] == "quietNight"
    speeches(t, p1="p3")
    defenses(t)
    assert not t.alive("p3") and t.p("p3")["diedBy"] == "vote"


def test_original_night_actions_are_final_and_every_living_player_confirms() -> None:
    t = original()
    t.until("night")
    t.act("investigate", "p3", target="p1")
    refused(lambda: t.act("investigate", "p3", target="p2"), "already_confirmed")
    for pid in t.ids[:-1]:
        if pid != "p3":
            t.act("sleep", pid)
    assert t.kind == "night"
    t.act("sleep", "p8")
    assert t.kind == "speech"


# --- werewolf ---------------------------------------------------------------------------------------------
def test_original_werewolf_joins_a_wiped_out_group_and_takes_its_kill_turn() -> None:
    roles = [
        "mafia",
        "godfather",
        "werewolf",
        "police",
        "doctor",
        "citizen",
        "citizen",
        "citizen",
        "citizen",
        "citizen",
    ]
    t = original(roles)
    t.until("night")
    assert t.view("p3")["private"]["task"] == "sleep"
    night(t, p4=[("investigate", "p3")])
    assert t.view("p4")["private"]["results"][-1]["result"] == "notCriminal"  # still a "citizen"
    t.act("leave", "p1")
    speeches(t)
    night(t, p4=[("investigate", "p3")])
    speeches(t, p5="p2")
    defenses(t)
    assert not t.alive("p2") and t.kind == "lastWord"
    t.timeout()
    assert t.view("p3")["private"]["results"][-1]["result"] == "mafia"
    assert t.view("p3")["private"]["task"] == "mafiaTarget"
    refused(lambda: t.act("godfatherCheck", "p3", target="p4"), "not_your_role")
    night(t, p3=[("mafiaTarget", "p6")], p4=[("investigate", "p3")])
    assert not t.alive("p6")
    assert t.view("p4")["private"]["results"][-1]["result"] == "criminal"


# --- day ------------------------------------------------------------------------------------------------------
def test_original_night_report_then_speeches_in_seat_order() -> None:
    t = original()
    night(t)
    assert [e["kind"] for e in t.events()][-2:] == ["quietNight", "morning"]
    order = []
    while t.kind == "speech":
        order.append(t.view(None)["phase"]["speaker"])
        assert t.view(order[-1])["private"]["task"] == "nominate"
        t.timeout()
    assert order == t.ids


def test_original_no_trial_on_day_one() -> None:
    t = original()
    night(t)
    refused(lambda: t.act("nominate", "p1", target="p3"), "no_trial_today")
    speeches(t)
    assert t.kind == "night" and all(t.alive(p) for p in t.ids)


def test_original_only_the_speaker_speaks() -> None:
    t = original()
    night(t)
    t.act("chat", "p1", channel="day", text="I am a citizen")
    refused(lambda: t.act("chat", "p2", channel="day", text="liar"), "no_permission")
    refused(lambda: t.act("nominate", "p2", target=None), "not_your_turn")


def test_original_first_speaker_carries_over_or_passes_to_the_next_living_seat() -> None:
    t = original()
    night(t)
    assert t.state["phase"]["speaker"] == "p1"
    speeches(t)
    night(t)
    assert t.state["phase"]["speaker"] == "p1"
    t.act("leave", "p1")
    assert t.state["phase"]["speaker"] == "p2"
    speeches(t)
    night(t)
    assert t.state["phase"]["speaker"] == "p2"


def test_original_each_speaker_may_nominate_one_suspect() -> None:
    t = original()
    to_day_two(t)
    refused(lambda: t.act("nominate", "p1", target="p1"), "self_target")
    t.act("nominate", "p1", target="p4")
    refused(lambda: t.act("nominate", "p2", target="p4"), "already_suspect")
    t.act("nominate", "p2", target="p5")
    assert t.view(None)["phase"]["nominations"] == [
        {"by": "p1", "target": "p4"},
        {"by": "p2", "target": "p5"},
    ]


def test_original_single_suspect_defends_then_is_executed() -> None:
    t = original()
    to_day_two(t)
    speeches(t, p4="p1")
    assert t.kind == "defense" and t.view(None)["phase"]["accused"] == "p1"
    refused(lambda: t.act("chat", "p4", channel="day", text="guilty"), "no_permission")
    t.timeout()
    assert not t.alive("p1") and t.kind == "lastWord"


def test_original_suspects_defend_in_nomination_order() -> None:
    t = original()
    to_day_two(t)
    speeches(t, p1="p3", p3="p8", p6="p1")
    assert defenses(t) == ["p3", "p8", "p1"]
    assert t.kind == "vote" and t.view(None)["phase"]["candidates"] == ["p3", "p8", "p1"]


def test_original_defenses_keep_who_nominated_each_suspect_public() -> None:
    """Every seat and a spectator read, through all the defenses, who nominated whom (the room's
    screen shows it while the suspects defend)."""
    t = original()
    to_day_two(t)
    speeches(t, p1="p3", p3="p8", p6="p1")
    expected = [{"by": "p1", "target": "p3"}, {"by": "p3", "target": "p8"}, {"by": "p6", "target": "p1"}]
    seen = []
    while t.kind == "defense":
        for viewer in (None, *t.ids):
            assert t.view(viewer)["phase"]["nominations"] == expected
        seen.append(t.state["phase"]["accused"])
        t.act("endTurn", seen[-1])
    assert seen == ["p3", "p8", "p1"] and t.kind == "vote"


def test_a_defense_saved_before_version_4_goes_on_with_no_nominations() -> None:
    t = original()
    to_day_two(t)
    speeches(t, p1="p3", p3="p8")
    old = {**t.state, "v": 3, "phase": {k: v for k, v in t.state["phase"].items() if k != "nominations"}}
    state = me.load(old)
    assert state["phase"]["nominations"] == [] and state["phase"]["suspects"] == ["p3", "p8"]
    assert me.view(state, None)["phase"]["nominations"] == []


def test_original_every_living_player_votes_and_no_vote_counts_for_the_last_suspect() -> None:
    t = original()
    to_day_two(t)
    speeches(t, p1="p3", p3="p8", p6="p1")
    defenses(t)
    assert set(t.view(None)["phase"]["voters"]) == set(t.ids)
    refused(lambda: t.act("vote", "p4", target="p5"), "not_a_candidate")
    t.act("vote", "p4", target="p3")
    t.act("vote", "p5", target="p3")
    t.act("vote", "p6", target="abstain")
    refused(lambda: t.act("vote", "p4", target="p8"), "already_voted")
    t.timeout()  # p1 p2 p3 p7 p8 did not vote: 5 + 1 abstention for p1, the last suspect
    assert not t.alive("p1") and t.alive("p3")
    rnd = t.state["votes"]["rounds"][0]
    assert rnd["tally"] == {"p3": 2, "p1": 6}


def test_original_tie_gives_a_revote_between_the_tied() -> None:
    t = original()
    to_day_two(t)
    speeches(t, p1="p3", p3="p8", p6="p1")
    defenses(t)
    vote(t, p1="p3", p2="p3", p4="p3", p5="p8", p6="p8", p7="p8", p3="p1", p8="p1")
    assert t.kind == "vote" and t.view(None)["phase"] == {
        **t.view(None)["phase"],
        "round": 2,
        "candidates": ["p3", "p8"],
    }
    vote(t, p1="p3", p2="p3", p4="p3", p5="p3", p6="p8", p7="p8", p3="p8", p8="p3")
    assert not t.alive("p3") and t.alive("p8")


def test_original_second_tie_the_others_vote_all_or_none() -> None:
    t = original()
    to_day_two(t)
    speeches(t, p1="p3", p3="p8")
    defenses(t)
    split = dict(p1="p3", p2="p3", p4="p3", p5="p8", p6="p8", p7="p8", p3="p8", p8="p3")
    vote(t, **split)
    vote(t, **split)
    assert t.kind == "allOrNone" and t.view(None)["phase"]["suspects"] == ["p3", "p8"]
    refused(lambda: t.act("confirm", "p3", choice="yes"), "not_a_voter")
    for pid in ("p1", "p2", "p4", "p5"):
        t.act("confirm", pid, choice="yes")
    t.act("confirm", "p6", choice="no")
    t.timeout()
    assert not t.alive("p3") and not t.alive("p8")
    assert t.state["votes"]["allOrNone"] == {"suspects": ["p3", "p8"], "yes": 4, "no": 1, "executed": True}


def test_original_all_or_none_without_a_majority_executes_nobody() -> None:
    t = original()
    to_day_two(t)
    speeches(t, p1="p3", p3="p8")
    defenses(t)
    split = dict(p1="p3", p2="p3", p4="p3", p5="p8", p6="p8", p7="p8", p3="p8", p8="p3")
    vote(t, **split)
    vote(t, **split)
    for pid, c in (("p1", "yes"), ("p2", "yes"), ("p4", "no"), ("p5", "no"), ("p6", "no"), ("p7", "yes")):
        t.act("confirm", pid, choice=c)
    assert t.kind == "night" and t.alive("p3") and t.alive("p8")


def test_original_executed_roles_are_not_revealed() -> None:
    t = original()
    to_day_two(t)
    speeches(t, p4="p1")
    defenses(t)
    assert not t.alive("p1")
    row = next(p for p in t.view("p5")["players"] if p["id"] == "p1")
    assert row["revealed"] is None and row["role"] is None
    assert t.events("death")[-1]["revealed"] is None


def test_original_only_judges_vote_and_are_announced_on_day_one() -> None:
    roles = ["mafia", "godfather", "judge", "corruptJudge", "judge", "police", "citizen", "citizen"]
    t = original(roles)
    night(t)
    rows = {p["id"]: p for p in t.view(None)["players"]}
    assert rows["p3"]["revealed"] == rows["p4"]["revealed"] == rows["p5"]["revealed"] == {"judge": True}
    assert t.events("judges")[0]["players"] == ["p3", "p4", "p5"]
    speeches(t)
    night(t)
    speeches(t, p1="p6", p2="p7")
    defenses(t)
    assert t.view(None)["phase"]["voters"] == ["p3", "p4", "p5"]
    refused(lambda: t.act("vote", "p1", target="p6"), "not_a_voter")
    assert t.view("p1")["private"]["task"] == "none"
    vote(t, p3="p7", p4="p7", p5="p6")
    assert not t.alive("p7")


def test_original_when_no_judge_is_left_everyone_votes() -> None:
    roles = ["mafia", "godfather", "judge", "corruptJudge", "judge", "police", "citizen", "citizen"]
    t = original(roles)
    for pid in ("p3", "p4", "p5"):
        t.act("leave", pid)
    to_day_two(t)
    speeches(t, p1="p6", p2="p7")
    defenses(t)
    assert set(t.view(None)["phase"]["voters"]) == {"p1", "p2", "p6", "p7", "p8"}


# --- wins ------------------------------------------------------------------------------------------------------
def test_original_citizens_win_when_no_criminal_is_left() -> None:
    roles = ["mafia", "godfather", "lawyer", "police", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    t.act("leave", "p1")
    t.act("leave", "p2")
    assert t.kind != "ended"  # the lawyer is a criminal too
    t.act("leave", "p3")
    r = me.result(t.state)
    assert r["winner"] == "town" and {p["id"] for p in r["players"] if p["won"]} == {
        "p4",
        "p5",
        "p6",
        "p7",
        "p8",
    }


def test_original_criminals_without_the_yakuza_win_at_parity_with_the_citizens() -> None:
    roles = [
        "mafia",
        "godfather",
        "yakuza",
        "ninja",
        "police",
        "citizen",
        "citizen",
        "lawyer",
        "citizen",
        "citizen",
    ]
    t = original(roles)
    t.act("leave", "p5")
    assert t.kind != "ended"
    t.act("leave", "p6")  # mafia 2 + lawyer 1 >= citizens 3, the yakuza not counted
    r = me.result(t.state)
    assert r["winner"] == "mafia"
    assert {p["id"] for p in r["players"] if p["won"]} == {"p1", "p2", "p8"}


def test_original_yakuza_wins_when_the_mafia_group_and_citizens_are_gone() -> None:
    roles = ["mafia", "godfather", "yakuza", "ninja", "police", "citizen", "citizen", "corruptJudge"]
    t = original(roles)
    for pid in ("p8", "p1", "p2", "p5", "p6"):  # a living corrupt judge would give the mafia parity
        t.act("leave", pid)
    assert t.kind != "ended"
    t.act("leave", "p7")
    r = me.result(t.state)
    assert r["winner"] == "yakuza" and {p["id"] for p in r["players"] if p["won"]} == {"p3", "p4", "p8"}


def test_original_madman_wins_as_the_last_one_alive() -> None:
    roles = ["mafia", "godfather", "madman", "police", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    for pid in ("p1", "p2", "p4", "p5", "p6", "p7"):
        t.act("leave", pid)
    assert t.kind != "ended"  # the madman is a criminal: the citizens have not won
    night(t, p3=[("madmanKill", "p8")])
    r = me.result(t.state)
    assert r["winner"] == "madman" and [p["id"] for p in r["players"] if p["won"]] == ["p3"]


def test_original_werewolf_wins_only_as_the_last_one_alive() -> None:
    """「늑대인간은 ... 오직 마지막 1명으로써 게임에서 살아남아야 승리합니다」"""
    roles = ["werewolf", "madman", "police", "citizen", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    for pid in ("p3", "p4", "p5", "p6", "p7", "p8"):
        t.act("leave", pid)
    assert t.kind != "ended"  # the werewolf passes for a citizen; the madman is a criminal
    night(t)
    speeches(t)
    night(t)
    speeches(t, p1="p2")
    defenses(t)
    r = me.result(t.state)
    assert r["winner"] == "werewolf" and [p["id"] for p in r["players"] if p["won"]] == ["p1"]


def test_original_lawyer_and_corrupt_judge_win_with_either_group() -> None:
    roles = ["mafia", "godfather", "yakuza", "ninja", "lawyer", "corruptJudge"] + ["citizen"] * 6
    town = [f"p{i}" for i in range(7, 13)]
    # with the lawyer or the corrupt judge alive the criminals reach parity first (rule 4), so
    # the yakuza case removes them too: they win with the group, dead or alive
    for winner, leavers in (("mafia", town), ("yakuza", ["p1", "p2", "p5", "p6", *town])):
        t = original(roles)
        for pid in leavers:
            if t.kind != "ended":
                t.act("leave", pid)
        r = me.result(t.state)
        assert r["winner"] == winner
        won = {p["id"] for p in r["players"] if p["won"]}
        assert won == {"p5", "p6", *(("p1", "p2") if winner == "mafia" else ("p3", "p4"))}


# --- untimed and views --------------------------------------------------------------------------------------------
def test_original_untimed_game_moves_on_confirmations() -> None:
    t = original(untimed=True)
    assert me.deadline(t.state) is None
    for pid in t.ids:
        t.act("readyEarly", pid)
    assert t.kind == "night" and me.deadline(t.state) is None
    night(t)
    speeches(t)
    night(t)
    speeches(t, p4="p1", p5="p2")
    defenses(t)
    vote(t, **{pid: "p1" for pid in t.ids if pid != "p1"}, p1="p2")
    assert not t.alive("p1")


def test_original_night_views_have_one_shape() -> None:
    roles = ["lawyer", "godfather", "yakuza", "ninja", "police", "madman", "doctor", "sheriff", "mafia"]
    t = original(roles)
    t.until("night")
    views = [t.view(p) for p in t.ids]
    assert len({(tuple(v), tuple(v["private"]), tuple(v["phase"])) for v in views}) == 1
    assert set(views[0]["phase"]) == {"kind", "endsAt", "seq"}


def test_original_a_night_confirmation_changes_no_other_players_view() -> None:
    roles = [
        "lawyer",
        "godfather",
        "yakuza",
        "ninja",
        "police",
        "madman",
        "doctor",
        "sheriff",
        "mafia",
        "citizen",
    ]
    t = original(roles)
    night(t)
    speeches(t)
    t.until("night")
    moves = [
        ("p1", "lawyerPeek", "p5"),
        ("p2", "mafiaTarget", "p10"),
        ("p3", "yakuzaTarget", "p10"),
        ("p5", "investigate", "p2"),
        ("p6", "madmanKill", None),
        ("p8", "arrest", "p6"),
        ("p10", "sleep", None),
    ]
    for actor, typ, target in moves:
        before = {v: t.view(v) for v in [None, *t.ids]}
        t.act(typ, actor, **({} if typ == "sleep" else {"target": target}))
        for v, old in before.items():
            if v != actor:
                assert t.view(v) == old, (actor, v)


# --- rulebook fidelity: groups, the expansion, last words -----------------------------------------
def test_original_werewolf_counts_as_a_citizen_until_it_joins_a_group() -> None:
    """「사회자는 늑대인간을 선량한 시민처럼 대우하다가, 어떤 범죄자 그룹 중 한 그룹이 전멸하면 그 때부터 …
    해당 범죄자 그룹으로 간주합니다」 with 「범죄자그룹의 수가 시민의 수와 같거나 많아지면」."""
    # 3 mafia against 3 citizens + an unjoined werewolf: 3 against 4, play goes on
    roles = ["mafia", "mafia", "godfather", "werewolf", "police", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    t.act("leave", "p9")
    assert t.kind != "ended"
    t.act("leave", "p8")  # 3 criminals against police, two citizens and the werewolf
    assert t.kind != "ended"
    t.act("leave", "p7")  # 3 against 3
    assert me.result(t.state)["winner"] == "mafia"
    # the yakuza's check: an unjoined werewolf is a citizen still standing
    roles = ["yakuza", "ninja", "werewolf", "police", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    for pid in ("p4", "p5", "p6", "p7"):
        t.act("leave", pid)
    assert t.kind != "ended"
    t.act("leave", "p8")  # no mafia group in this game: the werewolf never joins and is a citizen
    assert t.kind != "ended" and t.state["extra"]["werewolf"] is None
    # after joining, a member of that group in its parity (it still wins only as the last one)
    roles = ["mafia", "godfather", "werewolf", "police", "citizen", "citizen", "citizen", "citizen"]
    t = original(roles)
    t.act("leave", "p1")
    t.act("leave", "p2")
    assert t.state["extra"]["werewolf"] == "mafia" and t.kind != "ended"
    for pid in ("p4", "p5", "p6"):
        t.act("leave", pid)
    assert t.kind != "ended"
    t.act("leave", "p7")  # the joined werewolf against one citizen: parity
    r = me.result(t.state)
    assert r["winner"] == "mafia" and {p["id"] for p in r["players"] if p["won"]} == {"p1", "p2"}


def test_original_criminal_parity_counts_the_lawyer_and_the_corrupt_judge() -> None:
    """「야쿠자그룹을 제외한 범죄자그룹의 수가 시민의 수와 같거나 많아지면」: the lawyer and the corrupt judge
    count without a living mafioso or godfather."""
    roles = ["mafia", "godfather", "lawyer", "corruptJudge", "police", "citizen", "citizen", "citizen"]
    t = original(roles)
    for pid in ("p1", "p2", "p5"):
        t.act("leave", pid)
    assert t.kind != "ended"  # lawyer + corrupt judge against three citizens
    t.act("leave", "p6")  # ... against two citizens
    r = me.result(t.state)
    assert r["winner"] == "mafia"
    assert {p["id"] for p in r["players"] if p["won"]} == {"p1", "p2", "p3", "p4"}


def test_original_night_report_does_not_name_the_killer() -> None:
    """「6번 플레이어가 지난밤에 잔인하게 살해당했습니다 … 안타까운 사실은 목격자가 없다는 것입니다」"""
    roles = ["mafia", "godfather", "madman", "sheriff", "yakuza", "ninja", "police", "citizen"] + [
        "citizen"
    ] * 4
    t = original(roles)
    night(t, p3=[("madmanKill", "p8")])
    speeches(t)
    night(
        t,
        p1=[("mafiaTarget", "p9")],
        p2=[("mafiaTarget", "p9")],
        p5=[("yakuzaTarget", "p10")],
        p6=[("yakuzaTarget", "p10")],
        p4=[("arrest", "p11")],
    )
    deaths = t.events("death")
    assert [e["player"] for e in deaths] == ["p8", "p9", "p10", "p11"]
    assert {e["by"] for e in deaths} == {"night"}
    assert [t.p(p)["diedBy"] for p in ("p8", "p9", "p10", "p11")] == ["madman", "mafia", "yakuza", "arrest"]
    for viewer in [None, *t.ids]:
        v = t.view(viewer)
        text = " ".join(m["text"] for m in v["chat"])
        assert "arrest" not in text and "madman" not in text and "yakuza" not in text
        assert v["review"] is None
    # the killer is in the review once the game is over
    t.act("endGame", "p1")
    causes = {
        it["player"]: it["cause"]
        for st in me.review(t.state)["steps"]
        for it in st["items"]
        if it["kind"] == "death"
    }
    assert causes == {"p8": "madman", "p9": "mafia", "p10": "yakuza", "p11": "arrest"}


def test_original_second_tie_the_untied_decide_and_only_untied_judges_where_there_are_any() -> None:
    """「그들을 제외한 모든 플레이어는 그들을 모두 처형할지 아니면 아무도 처형하지 않을지를 정합니다」 read with
    「판사가 포함된 게임에서는, 오직 판사만 투표를 할 수 있습니다」."""
    roles = ["mafia", "godfather", "judge", "corruptJudge", "judge", "police", "citizen", "citizen"]
    # every living judge among the tied: every other living player decides
    t = original(roles, untimed=True)
    for pid in t.ids:
        t.act("readyEarly", pid)
    t.act("leave", "p5")
    night(t)
    speeches(t)
    night(t)
    speeches(t, p1="p3", p2="p4")
    defenses(t)
    vote(t, p3="p4", p4="p3")
    vote(t, p3="p4", p4="p3")
    assert t.kind == "allOrNone" and t.view(None)["phase"]["voters"] == ["p1", "p2", "p6", "p7", "p8"]
    refused(lambda: t.act("confirm", "p3", choice="yes"), "not_a_voter")
    for pid in ("p1", "p2", "p6"):
        t.act("confirm", pid, choice="yes")
    t.act("confirm", "p7", choice="no")
    t.act("confirm", "p8", choice="no")
    assert not t.alive("p3") and not t.alive("p4")
    # living judges outside the tie: only those judges decide
    t = original(roles)
    t.act("leave", "p5")
    to_day_two(t)
    speeches(t, p1="p6", p2="p7")
    defenses(t)
    vote(t, p3="p6", p4="p7")
    vote(t, p3="p6", p4="p7")
    assert t.kind == "allOrNone" and t.view(None)["phase"]["voters"] == ["p3", "p4"]
    refused(lambda: t.act("confirm", "p1", choice="yes"), "not_a_voter")
    t.act("confirm", "p3", choice="yes")
    t.act("confirm", "p4", choice="yes")
    assert not t.alive("p6") and not t.alive("p7")


def test_original_executed_player_leaves_a_last_word() -> None:
    """「그 플레이어는 최후의 한 마디를 남기고 게임에서 떠나게 되며」 and 「이때 처형된 플레이어의 캐릭터 카드를
    공개하지 않습니다」."""
    t = original(lastWordSeconds=20)
    to_day_two(t)
    speeches(t, p4="p6")
    defenses(t)
    assert not t.alive("p6") and t.kind == "lastWord"
    ph = t.view(None)["phase"]
    assert ph["player"] == "p6" and ph["endsAt"] == t.now + 20
    assert t.view("p6")["private"]["task"] == "endTurn" and t.view("p6")["channels"]["write"] == ["day"]
    assert t.view("p5")["private"]["task"] == "none" and "day" not in t.view("p5")["channels"]["write"]
    refused(lambda: t.act("chat", "p5", channel="day", text="bye"), "no_permission")
    refused(lambda: t.act("endTurn", "p5"), "not_your_turn")
    refused(lambda: t.act("chat", "p6", channel="dead", text="psst"), "no_permission")
    for line in ("I was a citizen", "p1 is lying", "good luck"):
        t.act("chat", "p6", channel="day", text=line)
    refused(lambda: t.act("chat", "p6", channel="day", text="one more"), "no_permission")
    for viewer in (None, "p1", "p5"):  # everyone reads it, spectators too; the card stays hidden
        v = t.view(viewer)
        assert [m["text"] for m in v["chat"] if m["from"] == "p6"][-3:] == [
            "I was a citizen",
            "p1 is lying",
            "good luck",
        ]
        row = next(p for p in v["players"] if p["id"] == "p6")
        assert row["role"] is None and row["revealed"] is None
    t.act("endTurn", "p6")  # done: the night comes at once
    assert t.kind == "night" and t.state["day"] == 3
    # without "done", the timer ends it
    speeches_night = original()
    to_day_two(speeches_night)
    speeches(speeches_night, p4="p7")
    defenses(speeches_night)
    speeches_night.timeout()
    assert speeches_night.kind == "night"


def test_original_the_executed_neither_read_nor_write_the_dead_chat_before_their_last_word() -> None:
    """「그 플레이어는 최후의 한 마디를 남기고 게임에서 떠나게 되며」: the last word is spoken to the living
    before the player leaves the game, so it cannot carry what the dead said. **Reading:** while
    the phase is `lastWord`, the executed player speaking and everyone queued for a last word
    neither read nor write the dead chat; it opens to each once their last word is over."""
    t = original([*EIGHT, "citizen"])
    to_day_two(t, p1=[("mafiaTarget", "p9")], p2=[("mafiaTarget", "p9")])
    assert not t.alive("p9")
    t.act("chat", "p9", channel="dead", text="I saw p1 at night")
    speeches(t, p1="p3", p3="p8")
    defenses(t)
    split = dict(p1="p3", p2="p3", p4="p3", p8="p3", p5="p8", p6="p8", p7="p8", p3="p8")
    vote(t, **split)
    vote(t, **split)
    for pid in ("p1", "p2", "p4", "p5", "p6", "p7"):
        t.act("confirm", pid, choice="yes")
    assert t.kind == "lastWord" and t.state["phase"]["player"] == "p3" and t.state["phase"]["queue"] == ["p8"]

    def dead_chat(pid: str) -> list[str]:
        return [m["text"] for m in t.view(pid)["chat"] if m["channel"] == "dead"]

    for pid in ("p3", "p8"):  # speaking now, and queued
        assert "dead" not in t.view(pid)["channels"]["read"] and dead_chat(pid) == []
        assert "dead" not in t.view(pid)["channels"]["write"]
        refused(lambda pid=pid: t.act("chat", pid, channel="dead", text="what did you see?"), "no_permission")
    assert dead_chat("p9") == ["I saw p1 at night"]  # the dead who are done still talk
    t.act("chat", "p3", channel="day", text="I was a citizen")
    t.act("endTurn", "p3")
    assert t.kind == "lastWord" and t.state["phase"]["player"] == "p8"
    assert dead_chat("p3") == ["I saw p1 at night"] and dead_chat("p8") == []
    t.act("endTurn", "p8")
    assert t.kind == "night" and dead_chat("p8") == ["I saw p1 at night"]
    t.act("chat", "p8", channel="dead", text="now I know")


@pytest.mark.parametrize("how", ["leave", "remove"])
def test_original_executed_player_leaving_during_an_untimed_last_word_moves_the_game_on(how: str) -> None:
    """「그 플레이어는 최후의 한 마디를 남기고 게임에서 떠나게 되며」. **Reading:** an executed player who
    leaves (or is removed by the host) during the last words has said their last word: the
    next queued one speaks, or the night comes; one still queued is taken out of the queue.
    Without it an untimed game (one device, no timer) waited forever for their "done"."""
    t = original(untimed=True)
    for pid in t.ids:
        t.act("readyEarly", pid)
    to_day_two(t)
    speeches(t, p4="p6")
    defenses(t)
    assert t.kind == "lastWord" and t.state["phase"]["player"] == "p6" and me.deadline(t.state) is None
    t.act(how, "p6")
    assert t.kind == "night" and t.state["day"] == 3
    # two executed: the queued one leaves first, then the one speaking
    t = original([*EIGHT, "citizen"], untimed=True)
    for pid in t.ids:
        t.act("readyEarly", pid)
    to_day_two(t, p1=[("mafiaTarget", "p9")], p2=[("mafiaTarget", "p9")])
    speeches(t, p1="p3", p3="p8")
    defenses(t)
    split = dict(p1="p3", p2="p3", p4="p3", p8="p3", p5="p8", p6="p8", p7="p8", p3="p8")
    vote(t, **split)
    vote(t, **split)
    for pid in ("p1", "p2", "p4", "p5", "p6", "p7"):
        t.act("confirm", pid, choice="yes")
    assert t.kind == "lastWord" and t.state["phase"]["queue"] == ["p8"]
    t.act(how, "p8")
    assert t.kind == "lastWord" and t.state["phase"]["player"] == "p3" and t.state["phase"]["queue"] == []
    t.act(how, "p3")
    assert t.kind == "night"


def test_original_all_tied_executed_each_leave_a_last_word_and_a_deciding_execution_has_none() -> None:
    """「그 플레이어는 최후의 한 마디를 남기고 게임에서 떠나게 되며」 for each executed suspect; 「처형 이후,
    승리 조건을 만족한 팀이 있다면 사회자는 반드시 이를 알려주어야 합니다」: a deciding execution ends the game."""
    t = original()
    to_day_two(t)
    speeches(t, p1="p3", p3="p8")
    defenses(t)
    split = dict(p1="p3", p2="p3", p4="p3", p5="p8", p6="p8", p7="p8", p3="p8", p8="p3")
    vote(t, **split)
    vote(t, **split)
    for pid in ("p1", "p2", "p4", "p5", "p6"):
        t.act("confirm", pid, choice="yes")
    t.timeout()
    assert t.kind == "lastWord" and t.view(None)["phase"]["player"] == "p3"
    t.act("endTurn", "p3")
    assert t.kind == "lastWord" and t.view(None)["phase"]["player"] == "p8"
    t.act("endTurn", "p8")
    assert t.kind == "night"
    # the last mafioso executed: the citizens have won, no last word
    t = original(["mafia", "police", "citizen", "citizen", "citizen", "citizen", "citizen", "citizen"])
    to_day_two(t)
    speeches(t, p2="p1")
    defenses(t)
    assert me.result(t.state)["winner"] == "town"


def test_original_host_may_remove_a_player_mid_game() -> None:
    """「정말 필요하다면 그 플레이어를 게임에서 제외할 수도 있습니다」: the character leaves (same win check as
    ``leave``); everyone sees "removed by the host", never the role."""
    t = original()
    night(t)
    t.act("remove", "p4")
    assert not t.alive("p4") and t.p("p4")["diedBy"] == "removed"
    assert t.events("death")[-1] == {
        "kind": "death",
        "day": 1,
        "player": "p4",
        "by": "removed",
        "revealed": None,
        "phase": "speech",  # a removal names its phase ("Day 1", not a night's death)
    }
    assert t.view(None)["chat"][-1]["text"] == "p4 was removed from the game by the host."
    row = next(p for p in t.view("p5")["players"] if p["id"] == "p4")
    assert row["role"] is None and row["revealed"] is None
    t.act("remove", "p1")  # the speaker: the next speaker's turn
    assert t.state["phase"]["speaker"] == "p2"
    t.act("remove", "p1")  # already out: nothing changes
    for pid in ("p3", "p5", "p6", "p7"):
        t.act("remove", pid)
    assert me.result(t.state)["winner"] == "mafia"
    refused(lambda: t.act("remove", "p8"), "game_over")


def test_original_full_post_game_review() -> None:
    """After the end everyone may step through the whole game (docs/rules.md, "Post-game review"):
    each night's choices and check results, each ballot, the private chats in order, the last
    words, every death with its cause; refused before the end (「이때 처형된 플레이어의 캐릭터 카드를
    공개하지 않습니다」 holds until then)."""
    t = original()
    refused(lambda: me.review(t.state), "game_not_ended")
    t.timeout()
    t.act("chat", "p1", channel="mafia", text="p4 first")
    night(t, p3=[("investigate", "p1")], p2=[("godfatherCheck", "p3")])
    speeches(t)
    night(t, p1=[("mafiaTarget", "p4")], p2=[("mafiaTarget", "p4"), ("godfatherCheck", "p5")])
    speeches(t, p3="p1")
    defenses(t)
    t.act("chat", "p1", channel="day", text="you will regret it")
    refused(lambda: me.review(t.state), "game_not_ended")
    assert all(t.view(v)["review"] is None for v in [None, *t.ids])
    t.act("endTurn", "p1")
    night(t, p2=[("mafiaTarget", "p5")])
    speeches(t, p3="p2")
    defenses(t)
    assert t.kind == "ended"
    r = me.review(t.state)
    assert r == t.view(None)["review"] == t.view("p4")["review"]
    assert r["winner"] == "town" and {p["id"]: p["role"] for p in r["players"]}["p2"] == "godfather"
    steps = [(st["day"], st["part"]) for st in r["steps"]]
    assert steps == [(1, "night"), (2, "night"), (2, "day"), (3, "night"), (3, "day")]
    by = {k: st["items"] for k, st in zip(steps, r["steps"], strict=True)}
    assert {"kind": "act", "player": "p3", "action": "investigate", "target": "p1"} in by[(1, "night")]
    assert {
        "kind": "result",
        "player": "p3",
        "action": "investigate",
        "target": "p1",
        "result": "criminal",
    } in by[(1, "night")]
    chat = [it for it in by[(1, "night")] if it["kind"] == "chat"]
    assert [(c["channel"], c["from"], c["text"]) for c in chat] == [("mafia", "p1", "p4 first")]
    assert {"kind": "death", "player": "p4", "cause": "mafia"} in by[(2, "night")]
    kinds = [it["kind"] for it in by[(2, "day")]]
    assert kinds == ["death", "lastWord"]  # a single suspect is executed after the defense
    assert by[(2, "day")][1] == {"kind": "lastWord", "player": "p1", "lines": ["you will regret it"]}
    assert {"kind": "death", "player": "p5", "cause": "mafia"} in by[(3, "night")]
    assert {"kind": "death", "player": "p2", "cause": "vote"} in by[(3, "day")]
    # deterministic: the same seed and action log give the same review
    again = me.new_game(t.ids, {"preset": "original", "expansion": True, "kidSafeChat": False}, seed=1)
    for p, role in zip(again["players"], EIGHT, strict=True):
        p["role"] = role
    for action, now in t.log:
        again = me.apply(again, action, now)
    assert me.review(again) == r


def test_original_review_shows_every_ballot_of_a_trial() -> None:
    """「사회자는 각 용의자의 득표수를 기록합니다」 and the all-or-none decision: every ballot in the review."""
    t = original()
    to_day_two(t)
    speeches(t, p1="p3", p3="p8")
    defenses(t)
    split = dict(p1="p3", p2="p3", p4="p3", p5="p8", p6="p8", p7="p8", p3="p8", p8="p3")
    vote(t, **split)
    vote(t, **split)
    t.act("confirm", "p1", choice="no")
    t.act("endGame", "p1")
    items = me.review(t.state)["steps"][-1]["items"]
    votes = [it for it in items if it["kind"] == "vote"]
    assert [v["round"] for v in votes] == [1, 2] and votes[0]["ballots"] == split
    assert items[-1] == {"kind": "allOrNone", "suspects": ["p3", "p8"], "ballots": {"p1": "no"}}
