"""Property tests over random games of every preset, played through the public API.

Games come from ``mafia_engine.testing.random_game`` (a seeded random legal-action player);
hypothesis picks the preset, the seed, the table size and the options. Per preset oracles
(phase graph, chat audience, who may know whose role, night abilities) live in ``ORACLES``.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mafia_engine as me
from mafia_engine import rng
from mafia_engine.actions import CORE_TYPES
from mafia_engine.game import clone
from mafia_engine.presets import PRESETS
from mafia_engine.tasks import names
from mafia_engine.testing import random_game

NEXT_CLASSIC = {
    "roleReveal": {"greeting", "night"},
    "greeting": {"night", "ended"},
    "discussion": {"vote"},
    "vote": {"defense", "night", "ended"},
    "defense": {"confirm"},
    "confirm": {"night", "ended"},
    "night": {"discussion", "ended"},
}
NEXT_CITY = {
    "roleReveal": {"night"},
    "night": {"discussion", "ended"},
    "discussion": {"vote"},
    "vote": {"defense", "night", "ended"},
    "defense": {"vote"},
}

classic_options_st = st.fixed_dictionaries(
    {},
    optional={
        "extraRoles": st.lists(st.sampled_from(["soldier", "politician", "medium", "lovers"]), unique=True),
        "firstPhase": st.sampled_from(["day", "night"]),
        "deathReveal": st.sampled_from(["none", "team", "role"]),
        "openVote": st.booleans(),
        "doctorSelfHeal": st.booleans(),
        "doctorRepeat": st.booleans(),
        "mafiaMustKill": st.sampled_from(["noKill", "random"]),
        "deadSeeAll": st.booleans(),
        "policeRevealRole": st.booleans(),
        "timeAdjust": st.booleans(),
    },
)
city_options_st = st.fixed_dictionaries(
    {"preset": st.just("city")},
    optional={
        "mafiaCount": st.sampled_from(["auto", 1, 2, 3]),
        "police": st.booleans(),
        "doctor": st.booleans(),
        "deathReveal": st.sampled_from(["none", "team", "role"]),
        "openVote": st.booleans(),
        "untimed": st.booleans(),
    },
)

original_options_st = st.fixed_dictionaries(
    {"preset": st.just("original")},
    optional={"expansion": st.booleans(), "untimed": st.booleans()},
)
NEXT_ORIGINAL = {
    "roleReveal": {"night"},
    "night": {"speech", "ended"},
    "speech": {"speech", "defense", "night"},
    "defense": {"defense", "vote", "lastWord", "night", "ended"},
    "vote": {"vote", "allOrNone", "lastWord", "night", "ended"},
    "allOrNone": {"lastWord", "night", "ended"},
    "lastWord": {"lastWord", "night"},
}
ORIGINAL_NIGHT = {
    "lawyer": {"lawyerPeek"},
    "mafia": {"mafiaTarget"},
    "godfather": {"mafiaTarget", "godfatherCheck"},
    "yakuza": {"yakuzaTarget"},
    "ninja": {"yakuzaTarget", "ninjaCheck"},
    "madman": {"madmanKill"},
    "sheriff": {"arrest"},
    "police": {"investigate"},
    "doctor": {"heal"},
}
MAFIA_CORE = {"mafia", "godfather"}
YAKUZA_CORE = {"yakuza", "ninja"}

game_st = st.one_of(
    st.tuples(st.integers(0, 2**31), st.integers(4, 12), classic_options_st),
    st.tuples(st.integers(0, 2**31), st.integers(5, 16), city_options_st),
    st.tuples(st.integers(0, 2**31), st.integers(8, 16), original_options_st),
).filter(lambda g: _fits(g[1], g[2]))


def _group(s: dict, p: dict) -> str | None:
    if p["role"] in MAFIA_CORE:
        return "mafia"
    if p["role"] in YAKUZA_CORE:
        return "yakuza"
    return s["extra"]["werewolf"] if p["role"] == "werewolf" else None


def _preset(s: dict) -> str:
    return s["preset"]


def _night_types(s: dict, role: str) -> set[str]:
    """The night action types a role may send in this game (besides ``sleep``)."""
    if _preset(s) == "classic":
        night = me.ROLES[role].night
        return {night} if night else set()
    if _preset(s) == "city":
        return {{"mafia": "mafiaTarget", "police": "investigate", "doctor": "heal"}.get(role)} - {None}
    if role == "werewolf":
        joined = s["extra"]["werewolf"]
        return {"mafia": {"mafiaTarget"}, "yakuza": {"yakuzaTarget"}, None: set()}[joined]
    return ORIGINAL_NIGHT.get(role, set())


def _may_know(s: dict, viewer: dict, other: dict) -> bool:
    """May ``viewer`` see ``other``'s role while the game runs?"""
    if _preset(s) == "classic":
        dead_all = not viewer["alive"] and s["options"]["deadSeeAll"]
        return dead_all or me.team_of(viewer["role"]) == "mafia" or viewer["role"] == "lover"
    if _preset(s) == "city":
        return viewer["role"] == "mafia" and other["role"] == "mafia"
    group = _group(s, viewer)
    core = {"mafia": MAFIA_CORE, "yakuza": YAKUZA_CORE}.get(group, set())
    return other["role"] in core


def _next(s: dict) -> dict:
    return {"classic": NEXT_CLASSIC, "city": NEXT_CITY, "original": NEXT_ORIGINAL}[_preset(s)]


def _check_winner(s: dict) -> None:
    """The end agrees with the preset's win rules (an oracle written apart from the engine)."""
    alive = [p for p in s["players"] if p["alive"]]
    roles = [p["role"] for p in alive]
    w = s["winner"]
    if _preset(s) != "original":
        mafia = roles.count("mafia")
        if w == "draw":
            assert _preset(s) == "city" and mafia and mafia < len(alive) - mafia
        else:
            assert w == ("town" if mafia == 0 else "mafia")
        if w == "mafia":
            assert mafia >= len(alive) - mafia
        return
    # the werewolf is a citizen until it joins a group, then a member of that group
    joined = s["extra"]["werewolf"]
    ww = roles.count("werewolf")
    town = sum(me.team_of(r) == "town" for r in roles) + (ww if joined is None else 0)
    mafia_group = sum(r in MAFIA_CORE for r in roles) + (ww if joined == "mafia" else 0)
    mafia_side = mafia_group + sum(r in ("lawyer", "corruptJudge") for r in roles)
    yakuza = sum(r in YAKUZA_CORE for r in roles) + (ww if joined == "yakuza" else 0)
    if w == "town":
        assert town == len(alive) > 0
    elif w == "mafia":
        assert mafia_side and mafia_side >= town
    elif w == "yakuza":
        assert yakuza and not mafia_group and not town
    elif w in ("madman", "werewolf"):
        assert roles == [w]
    else:
        assert w == "draw"
        assert s["day"] >= 30 or not alive


def _fits(n: int, options: dict) -> bool:
    try:
        me.check_setup(options, n)
        return True
    except me.InvalidAction:
        return False


# every targeted night duty (mafia_engine.tasks: the core ones and each built-in preset's own,
# declared there once the preset is loaded)
NIGHT_TYPES = names(night=True) if list(PRESETS.values()) else frozenset()

SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)


def _play(seed: int, n: int, options: dict, presence: bool = True):
    return list(random_game(n, seed, options, presence=presence, max_steps=600, leaves=presence))


def _oracle_read(s: dict, viewer: str | None) -> set[str]:
    if _preset(s) == "original":
        if s["phase"]["kind"] == "ended":
            return {"day", "system", "mafia", "yakuza", "dead"}
        if viewer is None:
            return {"day", "system"}
        p = next(q for q in s["players"] if q["id"] == viewer)
        group = _group(s, p)
        ph = s["phase"]
        # the executed, speaking or queued for a last word, read no dead chat until they are done
        last_word = ph["kind"] == "lastWord" and viewer in (ph["player"], *ph["queue"])
        dead = not p["alive"] and not last_word
        return {"day", "system"} | ({group} if group else set()) | ({"dead"} if dead else set())
    if _preset(s) == "city":
        if s["phase"]["kind"] == "ended":
            return {"day", "system", "dead"}
        if viewer is None:
            return {"day", "system"}
        p = next(q for q in s["players"] if q["id"] == viewer)
        return {"day", "system"} | ({"dead"} if not p["alive"] else set())
    if s["phase"]["kind"] == "ended":
        return {"day", "system", "mafia", "dead", "lovers"}
    if viewer is None:
        return {"day", "system"}
    p = next(q for q in s["players"] if q["id"] == viewer)
    out = {"day", "system"}
    dead = not p["alive"]
    if p["role"] == "mafia" or (dead and s["options"]["deadSeeAll"]):
        out.add("mafia")
    if dead or (p["role"] == "medium" and s["phase"]["kind"] == "night"):
        out.add("dead")
    if p["role"] == "lover":
        out.add("lovers")
    return out


@SETTINGS
@given(game=game_st)
def test_random_games_keep_invariants(game) -> None:
    seed, n, options = game
    steps = _play(seed, n, options)
    first = steps[0][2]
    roles = sorted(p["role"] for p in first["players"])
    prev = first
    for action, _now, s in steps[1:]:
        assert sorted(p["role"] for p in s["players"]) == roles
        assert [p["id"] for p in s["players"]] == [p["id"] for p in prev["players"]]
        for a, b in zip(prev["players"], s["players"], strict=True):
            assert a["alive"] or not b["alive"], "nobody comes back"
        assert s["day"] >= prev["day"]
        k0, k1 = prev["phase"]["kind"], s["phase"]["kind"]
        if s["seq"] != prev["seq"]:
            if action["type"] == "leave":  # it may end the phase that waited for the leaver, and more
                assert k1 in PRESETS[_preset(s)].phases
            else:
                assert k1 in _next(s)[k0], (k0, k1)
                assert s["seq"] == prev["seq"] + 1
            if _preset(s) == "classic":
                assert action["type"] in ("phaseTimeout", "readyEarly", "seenRole", "leave")
        else:
            assert k0 == k1
        assert (s["winner"] is not None) == (k1 == "ended")
        if action["type"] not in ("phaseTimeout", "presence", "chat"):
            actor = next(p for p in prev["players"] if p["id"] == action["player"])
            last_word = k0 == "lastWord" and prev["phase"]["player"] == actor["id"]
            assert actor["alive"] or (last_word and action["type"] == "endTurn")
            if action["type"] in NIGHT_TYPES:
                assert action["type"] in _night_types(s, actor["role"])
        prev = s
    last = steps[-1][2]
    if last["winner"]:
        _check_winner(last)
        assert len(json.dumps(last)) <= 64 * 1024


@SETTINGS
@given(game=game_st, fuzz_seed=st.integers(0, 2**31))
def test_only_legal_actors_are_accepted(game, fuzz_seed) -> None:
    """Random (mostly illegal) actions: whatever the engine accepts obeys the rules."""
    seed, n, options = game
    r = rng.seed_state(fuzz_seed)
    types = [t for t in me.ACTION_TYPES if t not in CORE_TYPES]  # every game action
    for _action, now, s in _play(seed, n, options, presence=False)[::3]:
        ids = [p["id"] for p in s["players"]]
        for _ in range(4):
            r, ti = rng.below(r, len(types))
            r, pi = rng.below(r, len(ids))
            r, gi = rng.below(r, len(ids) + 1)
            typ, pid = types[ti], ids[pi]
            target = ids[gi] if gi < len(ids) else None
            act: dict = {"type": typ, "player": pid}
            if typ in ("vote", "nominate", *NIGHT_TYPES):
                act["target"] = target if (target or typ == "mafiaTarget") else "abstain"
                if typ != "vote" and act["target"] == "abstain":
                    act["target"] = ids[0]
                if typ == "nominate" and rng.below(r, 2)[1]:
                    act["target"] = None
            elif typ == "confirm":
                act["choice"] = "yes"
            elif typ == "adjustTime":
                act["delta"] = -15
            try:
                after = me.apply(s, act, now)
            except me.InvalidAction as e:
                assert e.code and str(e)
                continue
            kind = s["phase"]["kind"]
            actor = next(p for p in s["players"] if p["id"] == pid)
            assert kind != "ended"
            if kind == "lastWord" and typ == "endTurn":  # the executed player, out of the game
                assert s["phase"]["player"] == pid and not actor["alive"]
                continue
            assert actor["alive"]
            if typ in NIGHT_TYPES:
                assert kind == "night" and typ in _night_types(s, actor["role"])
                tgt = next((p for p in s["players"] if p["id"] == act["target"]), None)
                if typ == "mediumPeek":
                    assert not tgt["alive"]
                elif tgt is not None:
                    assert tgt["alive"]
                    if typ == "mafiaTarget":
                        assert tgt["role"] != "mafia"
            if _preset(s) == "city" and kind == "night":
                assert pid not in s["phase"]["acts"], "a confirmed night action is final"
            if _preset(s) == "original" and kind == "night":
                assert pid not in s["phase"]["done"], "a confirmed night is final"
                assert typ not in s["phase"]["acts"].get(pid, {}), "a confirmed night action is final"
            if typ == "vote":
                assert kind == "vote" and act["target"] != pid
                if _preset(s) != "classic":
                    assert pid not in s["phase"]["votes"], "a confirmed vote is final"
                    cands = s["phase"].get("candidates")
                    assert cands is None or act["target"] in [*cands, "abstain"]
                if _preset(s) == "original":
                    assert pid in s["phase"]["voters"]
                    judges = [
                        p for p in s["players"] if p["alive"] and p["role"] in ("judge", "corruptJudge")
                    ]
                    assert not judges or actor["role"] in ("judge", "corruptJudge")
            if typ == "confirm":
                if _preset(s) == "original":
                    assert kind == "allOrNone" and pid in s["phase"]["voters"]
                    assert pid not in s["phase"]["suspects"]
                else:
                    assert kind == "confirm" and s["phase"]["accused"] != pid
            if typ == "nominate":
                assert kind == "speech" and s["phase"]["speaker"] == pid
                assert act["target"] is None or s["day"] > 1
            if typ == "adjustTime":
                assert kind == "discussion"
            if typ == "readyEarly":
                assert kind in ("discussion", "roleReveal")
            if typ == "seenRole":
                assert kind == "roleReveal" and pid not in s["phase"]["ready"]
            if typ == "sleep":
                assert kind == "night" and _preset(s) != "classic"
            if typ == "endTurn":
                if _preset(s) == "original":
                    assert pid == s["phase"].get("speaker") or pid == s["phase"].get("accused")
                else:
                    assert kind == "defense" and pid in s["phase"]["suspects"]
            assert after is not s


@SETTINGS
@given(game=game_st)
def test_replay_is_deterministic_and_dump_load_round_trips(game) -> None:
    seed, n, options = game
    steps = _play(seed, n, options)
    state = me.new_game([f"p{i}" for i in range(1, n + 1)], options, seed=seed, now=0.0)
    for action, now, s in steps[1:]:
        before = json.dumps(state, sort_keys=True)
        prev, state = state, me.apply(state, action, now)
        assert json.dumps(prev, sort_keys=True) == before, "apply changed its input"
        assert me.load(me.dump(s)) == s
        assert me.load(json.loads(json.dumps(me.dump(s)))) == s
    assert me.dump(state) == me.dump(steps[-1][2])


def _swap_roles(s: dict, a: str, b: str) -> dict:
    t = clone(s)  # copies the players; enough for a role swap
    pa = next(p for p in t["players"] if p["id"] == a)
    pb = next(p for p in t["players"] if p["id"] == b)
    pa["role"], pb["role"] = pb["role"], pa["role"]
    return t


@SETTINGS
@given(game=game_st, pick=st.integers(0, 2**31))
def test_views_do_not_depend_on_roles_the_viewer_may_not_know(game, pick) -> None:
    seed, n, options = game
    r = rng.seed_state(pick)
    checked = 0
    for _action, _now, s in _play(seed, n, options)[::2]:
        by = {p["id"]: p for p in s["players"]}
        for viewer in [None, *by]:
            v = me.view(s, viewer)
            unknown = [
                p["id"]
                for p in v["players"]
                if p["role"] is None and p["revealed"] is None and p["id"] != viewer
            ]
            pairs = [
                (x, y)
                for i, x in enumerate(unknown)
                for y in unknown[i + 1 :]
                if by[x]["role"] != by[y]["role"]
            ]
            if not pairs:
                continue
            r, k = rng.below(r, len(pairs))
            a, b = pairs[k]
            assert me.view(_swap_roles(s, a, b), viewer) == v, (viewer, a, b, s["phase"]["kind"])
            checked += 1
    assert checked


@SETTINGS
@given(game=game_st)
def test_secret_chat_never_reaches_a_view_outside_its_audience(game) -> None:
    seed, n, options = game
    for _action, _now, s in _play(seed, n, options)[::2]:
        for viewer in [None, *[p["id"] for p in s["players"]]]:
            v = me.view(s, viewer)
            allowed = _oracle_read(s, viewer)
            assert set(v["channels"]["read"]) == allowed
            assert all(m["channel"] in allowed for m in v["chat"])
            if viewer is None:
                assert v["you"] is None and v["private"] is None
            if s["phase"]["kind"] != "ended":
                by = {q["id"]: q for q in s["players"]}
                for p in v["players"]:
                    if p["role"] is not None and p["id"] != viewer:
                        assert _may_know(s, by[viewer], by[p["id"]])


@SETTINGS
@given(game=game_st)
def test_views_made_at_once_are_each_viewers_own_view(game) -> None:
    """``me.views`` (the service's fan-out) is ``me.view`` per viewer, key order included, and
    what it shares between the views is shared with no state: editing every view leaves the
    state as it was."""
    seed, n, options = game
    played = _play(seed, n, options)
    for _action, _now, s in [*played[::8], played[-1]]:  # the last: an ended game's review too
        viewers = [None, *[p["id"] for p in s["players"]]]
        together = me.views(s, viewers)
        assert list(together) == viewers
        for viewer in viewers:
            alone = me.view(s, viewer)
            assert json.dumps(together[viewer]) == json.dumps(alone), (viewer, s["phase"]["kind"])
        before = json.dumps(s)
        for v in together.values():
            for value in v.values():
                if isinstance(value, dict):
                    value["scribbled"] = 1
                elif isinstance(value, list):
                    value.append("scribbled")
        assert json.dumps(s) == before


@SETTINGS
@given(game=game_st)
def test_night_views_have_one_shape_for_every_role(game) -> None:
    seed, n, options = game
    for _action, _now, s in _play(seed, n, options, presence=False):
        if s["phase"]["kind"] != "night":
            continue
        shapes = set()
        for p in s["players"]:
            if not p["alive"]:
                continue
            v = me.view(s, p["id"])
            shapes.add((tuple(v), tuple(v["private"]), tuple(v["phase"]), tuple(v["you"])))
            assert v["private"]["task"] in ("sleep", "done", *NIGHT_TYPES)
            assert set(v["phase"]) == {"kind", "endsAt", "seq"}
        assert len(shapes) == 1


@SETTINGS
@given(game=game_st)
def test_review_is_refused_before_the_end_and_reaches_no_view_until_then(game) -> None:
    """``review`` (docs/rules.md, "Post-game review"): refused with ``game_not_ended`` while the
    game runs, absent from every view until the end; after it, one review for everyone with every
    death and its cause."""
    seed, n, options = game
    steps = _play(seed, n, options)
    for _action, _now, s in steps[::3]:
        if s["phase"]["kind"] == "ended":
            continue
        try:
            me.review(s)
        except me.InvalidAction as e:
            assert e.code == "game_not_ended"
        else:
            raise AssertionError("review before the end")
        for viewer in [None, *[p["id"] for p in s["players"]]]:
            assert me.view(s, viewer)["review"] is None
    last = steps[-1][2]
    # public death events never name a killer: original says "night"; classic and city have
    # one night killer only (the mafia), so "mafia" there tells nothing new
    public = {"original": {"night"}, "classic": {"mafia"}, "city": {"mafia"}}[_preset(last)]
    for e in last["events"]:
        if e["kind"] == "death":
            assert e["by"] in public | {"vote", "left", "removed", "disconnect"}, e
    if last["phase"]["kind"] != "ended":
        return
    r = me.review(last)
    assert all(me.view(last, v)["review"] == r for v in [None, last["players"][0]["id"]])
    deaths = [it for st in r["steps"] for it in st["items"] if it["kind"] == "death"]
    dead = {p["id"]: p["diedBy"] for p in last["players"] if not p["alive"]}
    assert {d["player"]: d["cause"] for d in deaths} == dead
    assert [p["role"] for p in r["players"]] == [p["role"] for p in last["players"]]
    json.dumps(r)
