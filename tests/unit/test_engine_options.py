"""Every option of docs/rulebooks/000-classic.txt §2 and §7: accepted values, refusals, and what it
changes."""

from __future__ import annotations

import json

import pytest
from enginekit import Table, refused

import mafia_engine as me

EIGHT = ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"]
IDS8 = [f"p{i}" for i in range(1, 9)]


def night_first(roles: list[str], **options) -> Table:
    t = Table(roles, firstPhase="night", **options)
    t.timeout()
    return t


def test_defaults_are_the_seed_defaults() -> None:
    d = me.check_setup({"preset": "classic"}, 8)
    assert d == {
        "preset": "classic",
        "mafiaCount": "auto",
        "extraRoles": [],
        "roleRevealSeconds": 60,  # not the seed's 8 s (docs/rules.md, Classic "Set-up")
        "firstPhase": "day",
        "noVoteDayOne": True,
        "discussionPerAlive": 15,
        "discussionMin": 60,
        "discussionMax": 180,
        "timeAdjust": True,
        "voteSeconds": 20,
        "defenseSeconds": 20,
        "confirmSeconds": 10,
        "nightSeconds": 30,
        "deathReveal": "team",
        "openVote": True,
        "doctorSelfHeal": True,
        "doctorRepeat": True,
        "mafiaMustKill": "noKill",
        "deadSeeAll": False,
        "kidSafeChat": True,
        "anonymous": False,  # a room option of every preset (docs/rules.md, "Anonymous games")
        "policeRevealRole": False,
        "substitutes": False,  # a host option beside the seed's, off (docs/rules.md, "Substitutes")
        "substituteApproval": True,  # the host approves each substitute (docs/rules.md, "Substitutes")
        "afkLimit": 0,  # idle seats are handed on only if the host asks (docs/rules.md, "Idle seats")
        "afkReplace": "bot",
        "public": False,  # listed for strangers (docs/rules.md, "Public rooms")
        "autoStart": 4,  # a public room starts by itself with this many people (docs/rules.md, "Public rooms")
        "autoStartBots": True,  # ... bots filling the seats a game needs
    }
    assert me.presets()["classic"]["defaults"] == d


@pytest.mark.parametrize("preset,n", [("classic", 6), ("city", 7), ("original", 9)])
def test_anonymous_is_an_option_of_every_preset_off_by_default_that_changes_no_rule(preset, n) -> None:
    """The engine only accepts `anonymous`; the room layer does the rest (functions/service/features/aliases.py)."""
    assert me.presets()[preset]["defaults"]["anonymous"] is False
    ids = [f"p{i}" for i in range(1, n + 1)]
    plain = me.new_game(players=ids, options={"preset": preset}, seed=11, now=0.0)
    anon = me.new_game(players=ids, options={"preset": preset, "anonymous": True}, seed=11, now=0.0)
    assert [p["role"] for p in me.dump(plain)["players"]] == [p["role"] for p in me.dump(anon)["players"]]
    strip = lambda v: {**v, "options": {k: x for k, x in v["options"].items() if k != "anonymous"}}  # noqa: E731
    assert strip(me.view(plain, "p1")) == strip(me.view(anon, "p1"))
    with pytest.raises(me.InvalidAction):
        me.new_game(players=ids, options={"preset": preset, "anonymous": "maybe"}, seed=11, now=0.0)


@pytest.mark.parametrize(
    "key,value",
    [
        ("mafiaCount", 5),
        ("mafiaCount", 0),
        ("mafiaCount", "two"),
        ("extraRoles", ["wizard"]),
        ("extraRoles", "soldier"),
        ("extraRoles", ["soldier", "soldier"]),
        ("firstPhase", "evening"),
        ("noVoteDayOne", "maybe"),
        ("discussionPerAlive", 12),
        ("discussionMin", 29),
        ("discussionMax", 301),
        ("timeAdjust", 1),
        ("voteSeconds", 9),
        ("voteSeconds", 61),
        ("defenseSeconds", 61),
        ("confirmSeconds", 4),
        ("confirmSeconds", 31),
        ("nightSeconds", 14),
        ("nightSeconds", 91),
        ("deathReveal", "all"),
        ("openVote", None),
        ("doctorSelfHeal", "yes"),
        ("doctorRepeat", 0),
        ("mafiaMustKill", "always"),
        ("deadSeeAll", []),
        ("kidSafeChat", "sometimes"),
        ("policeRevealRole", 2.5),
        ("voteSeconds", 20.5),
        ("voteSeconds", True),
    ],
)
def test_bad_option_values_refused_naming_the_key(key: str, value) -> None:
    e = refused(lambda: me.check_setup({key: value}, 8), "bad_options")
    assert key in str(e)
    refused(lambda: me.new_game(IDS8, {key: value}), "bad_options")


def test_unknown_option_key_refused() -> None:
    e = refused(lambda: me.check_setup({"wolfCount": 2}, 8), "bad_options")
    assert "wolfCount" in str(e)


def test_unknown_preset_refused() -> None:
    assert "preset" in str(refused(lambda: me.check_setup({"preset": "chess"}, 8), "bad_options"))
    refused(lambda: me.new_game(IDS8, {"preset": 3}), "bad_options")


def test_on_off_strings_are_accepted_for_switches() -> None:
    assert me.check_setup({"openVote": "off", "deadSeeAll": "on"}, 8)["openVote"] is False


def test_mafia_count_manual_must_be_below_half() -> None:
    s = me.new_game(IDS8, {"mafiaCount": 3}, seed=1)
    assert [p["role"] for p in s["players"]].count("mafia") == 3
    e = refused(lambda: me.check_setup({"mafiaCount": 4}, 8), "bad_options")
    assert "mafiaCount" in str(e)
    refused(lambda: me.check_setup({"mafiaCount": 2}, 4), "bad_options")
    me.check_setup({"mafiaCount": 2}, 5)


def test_extra_roles_option_is_canonical_order() -> None:
    assert me.check_setup({"extraRoles": ["lovers", "soldier"]}, 12)["extraRoles"] == ["soldier", "lovers"]


def test_first_phase_night_starts_with_night_after_role_reveal() -> None:
    t = Table(EIGHT, firstPhase="night")
    t.timeout()
    assert t.kind == "night" and t.state["day"] == 1
    t.timeout()
    assert t.kind == "discussion" and t.state["day"] == 2


def test_first_phase_day_is_a_60_second_greeting_without_vote() -> None:
    t = Table(EIGHT)
    t.timeout()
    assert t.kind == "greeting" and me.deadline(t.state) - t.now == 60
    refused(lambda: t.act("vote", "p1", target="p2"), "wrong_phase")
    t.act("chat", "p1", channel="day", text="hello all")
    t.timeout()
    assert t.kind == "night"


def test_no_vote_day_one_mirrors_first_phase() -> None:
    assert me.check_setup({"noVoteDayOne": False}, 8)["firstPhase"] == "night"
    assert me.check_setup({"noVoteDayOne": True}, 8)["firstPhase"] == "day"
    assert me.check_setup({"firstPhase": "night"}, 8)["noVoteDayOne"] is False
    refused(lambda: me.check_setup({"noVoteDayOne": True, "firstPhase": "night"}, 8), "bad_options")


@pytest.mark.parametrize("per,expected", [(10, 80), (15, 120), (20, 160)])
def test_discussion_per_alive(per: int, expected: int) -> None:
    t = night_first(EIGHT, discussionPerAlive=per)
    t.timeout()
    assert me.deadline(t.state) - t.now == expected


def test_discussion_min_and_max_clamp() -> None:
    t = night_first(EIGHT, discussionMax=90)
    t.timeout()
    assert me.deadline(t.state) - t.now == 90
    t = night_first(EIGHT, discussionMin=200, discussionMax=300)
    t.timeout()
    assert me.deadline(t.state) - t.now == 200
    e = refused(lambda: me.check_setup({"discussionMin": 200, "discussionMax": 100}, 8), "bad_options")
    assert "discussionMin" in str(e)


def test_time_adjust_off_refused() -> None:
    t = night_first(EIGHT, timeAdjust=False)
    t.timeout()
    refused(lambda: t.act("adjustTime", "p1", delta=15), "time_adjust_off")


@pytest.mark.parametrize(
    "key,kind", [("voteSeconds", "vote"), ("defenseSeconds", "defense"), ("confirmSeconds", "confirm")]
)
def test_phase_seconds_options(key: str, kind: str) -> None:
    t = night_first(EIGHT, **{key: 17})
    t.timeout()
    t.to_vote()
    if kind != "vote":
        t.act("vote", "p1", target="p5")
        t.timeout()
        if kind == "confirm":
            t.timeout()
    assert t.kind == kind and me.deadline(t.state) - t.now == 17


def test_night_seconds_option() -> None:
    t = Table(EIGHT, firstPhase="night", nightSeconds=45)
    t.timeout()
    assert me.deadline(t.state) - t.now == 45


@pytest.mark.parametrize(
    "mode,revealed",
    [("none", None), ("team", {"team": "mafia"}), ("role", {"role": "mafia", "team": "mafia"})],
)
def test_death_reveal(mode: str, revealed) -> None:
    t = night_first(EIGHT, deathReveal=mode)
    t.timeout()
    t.execute("p1")
    assert t.view(None)["players"][0]["revealed"] == revealed
    assert t.events("death")[-1]["revealed"] == revealed
    assert t.view("p5")["players"][0]["role"] is None


def test_open_vote_off_shows_counts_only() -> None:
    t = night_first(EIGHT, openVote=False)
    t.timeout()
    t.nominate("p5", voters=["p1", "p2"])
    nom = t.view(None)["votes"]["nomination"]
    assert nom["ballots"] is None and nom["tally"] == {"p5": 2}
    assert '"p1"' not in json.dumps(t.events("nomination"))


def test_open_vote_on_shows_who_voted_whom_after_close() -> None:
    t = night_first(EIGHT)
    t.timeout()
    t.to_vote()
    t.act("vote", "p1", target="p5")
    assert t.view(None)["votes"] is None  # nothing while the vote runs
    assert t.view("p2")["private"]["choice"] is None and t.view("p1")["private"]["choice"] == "p5"
    t.timeout()
    assert t.view(None)["votes"]["nomination"]["ballots"]["p1"] == "p5"
    assert t.view(None)["votes"]["nomination"]["ballots"]["p2"] == "abstain"


def test_mafia_must_kill_random_picks_a_living_non_mafia() -> None:
    victims = set()
    for seed in range(8):
        t = Table(EIGHT, seed=seed, firstPhase="night", mafiaMustKill="random")
        t.timeout()
        t.timeout()
        dead = [p for p in t.ids if not t.alive(p)]
        assert len(dead) == 1 and dead[0] not in ("p1", "p2")
        victims.add(dead[0])
    assert len(victims) > 1


def test_mafia_must_kill_random_still_respects_doctor() -> None:
    t = Table(["mafia", "police", "doctor", "citizen"], firstPhase="night", mafiaMustKill="random", seed=3)
    t.timeout()
    state = t.state
    outcomes = set()
    for heal in ("p2", "p3", "p4"):
        t.state = state
        t.act("heal", "p3", target=heal)
        t.timeout()
        outcomes.add(bool(t.events("saved")))
    assert outcomes == {True, False}


def test_dead_see_all_shows_roles_and_mafia_chat_to_the_dead() -> None:
    for on in (True, False):
        t = night_first(EIGHT, deadSeeAll=on)
        t.act("chat", "p1", channel="mafia", text="kill p5")
        t.act("mafiaTarget", "p1", target="p5")
        t.timeout()
        v = t.view("p5")
        blob = json.dumps(v)
        assert ("kill p5" in blob) is on
        assert (v["players"][0]["role"] == "mafia") is on
        assert ("mafia" in v["channels"]["read"]) is on
        assert "kill p5" not in json.dumps(t.view("p6"))


def test_kid_safe_chat_blocks_and_off_allows() -> None:
    t = Table(EIGHT, kidSafeChat=True)
    t.timeout()
    refused(lambda: t.act("chat", "p1", channel="day", text="what the fuck"), "blocked_word")
    refused(lambda: t.act("chat", "p2", channel="day", text="see https://x.io"), "blocked_link")
    refused(lambda: t.act("chat", "p3", channel="day", text="call 010-1234-5678"), "blocked_phone")
    t2 = Table(EIGHT, kidSafeChat=False)
    t2.timeout()
    t2.act("chat", "p1", channel="day", text="what the fuck")
    t2.act("chat", "p2", channel="day", text="see https://x.io")


def test_police_reveal_role_gives_exact_role() -> None:
    t = night_first(EIGHT, policeRevealRole=True)
    t.act("investigate", "p3", target="p4")
    t.timeout()
    assert t.view("p3")["private"]["results"][0]["result"] == "doctor"


def test_presets_describe_every_option() -> None:
    p = me.presets()
    assert set(p) == {"classic", "city", "original"}
    c = p["classic"]
    assert (c["minPlayers"], c["maxPlayers"], c["implemented"]) == (4, 12, True)
    keys = [o["key"] for o in c["options"]]
    assert set(keys) == set(c["defaults"]) - {"preset"}
    by = {o["key"]: o for o in c["options"]}
    assert by["voteSeconds"] == {"key": "voteSeconds", "type": "int", "default": 20, "min": 10, "max": 60}
    assert by["mafiaCount"]["choices"] == ["auto", 1, 2, 3, 4]
    assert by["extraRoles"]["type"] == "multi"
    assert (p["city"]["minPlayers"], p["city"]["maxPlayers"], p["city"]["implemented"]) == (5, 16, True)
    assert (p["original"]["minPlayers"], p["original"]["maxPlayers"]) == (8, 16)
    for name in ("city", "original"):
        if p[name]["implemented"]:
            assert {o["key"] for o in p[name]["options"]} == set(p[name]["defaults"]) - {"preset"}
    json.dumps(p)
