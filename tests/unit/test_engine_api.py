"""The public API: purity, refusals with codes, timeouts, dump/load, results, views after the end."""

from __future__ import annotations

import copy
import json

import pytest
from enginekit import Table, refused

import mafia_engine as me
from mafia_engine.chat import WINDOW, kid_safe_refusal

EIGHT = ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"]
IDS = [f"p{i}" for i in range(1, 9)]


def test_apply_never_mutates_its_input() -> None:
    t = Table(EIGHT, firstPhase="night")
    t.timeout()
    before = copy.deepcopy(t.state)
    after = me.apply(t.state, {"type": "mafiaTarget", "player": "p1", "target": "p5"}, 3.0)
    after = me.apply(after, {"type": "chat", "player": "p1", "channel": "mafia", "text": "p5"}, 4.0)
    after = me.apply(after, {"type": "phaseTimeout"}, 100.0)
    assert t.state == before and after != before


@pytest.mark.parametrize(
    "action",
    [
        "vote",
        {"player": "p1"},
        {"type": "fly", "player": "p1"},
        {"type": "vote", "player": "p1"},
        {"type": "vote", "player": "p1", "target": "p2", "extra": 1},
        {"type": "vote", "player": 1, "target": "p2"},
        {"type": "adjustTime", "player": "p1", "delta": 10},
        {"type": "adjustTime", "player": "p1", "delta": "15"},
        {"type": "confirm", "player": "p1", "choice": "maybe"},
        {"type": "chat", "player": "p1", "channel": "shout", "text": "x"},
        {"type": "phaseTimeout", "phase": "3"},
        {"type": "presence", "player": "p1", "connected": "yes"},
    ],
)
def test_malformed_actions_refused_as_bad_action(action) -> None:
    t = Table(EIGHT)
    refused(lambda: t.do(action), "bad_action")


def test_bad_now_refused() -> None:
    s = me.new_game(IDS, {}, seed=1)
    refused(lambda: me.apply(s, {"type": "phaseTimeout"}, float("nan")), "bad_action")
    refused(lambda: me.apply(s, {"type": "phaseTimeout"}, "9"), "bad_action")


def test_phase_timeout_stale_early_and_after_end() -> None:
    t = Table(EIGHT, roleRevealSeconds=8)
    seq = me.phase_seq(t.state)
    refused(lambda: t.do({"type": "phaseTimeout", "phase": seq}, dt=1.0), "too_early")
    t.now = 8.0
    refused(lambda: t.do({"type": "phaseTimeout", "phase": seq + 1}, dt=0), "stale_timeout")
    t.do({"type": "phaseTimeout", "phase": seq}, dt=0)
    assert me.phase_seq(t.state) == seq + 1
    t.now += 60
    refused(lambda: t.do({"type": "phaseTimeout", "phase": seq}, dt=0), "stale_timeout")  # duplicate delivery
    t.do({"type": "phaseTimeout"}, dt=0)  # without phase: the current one
    assert t.kind == "night"


def test_phase_seq_increases_at_every_phase_change() -> None:
    t = Table(EIGHT)
    seqs = [me.phase_seq(t.state)]
    for _ in range(8):
        t.timeout()
        seqs.append(me.phase_seq(t.state))
    assert seqs == sorted(set(seqs))


def test_actions_after_the_end_refused_game_over() -> None:
    t = Table(["mafia", "police", "doctor", "citizen"], firstPhase="night")
    t.timeout()
    t.timeout()
    t.execute("p1")
    assert t.kind == "ended" and me.deadline(t.state) is None
    refused(lambda: t.timeout(), "game_over")
    refused(lambda: t.do({"type": "phaseTimeout"}), "game_over")
    refused(lambda: t.act("vote", "p2", target="p3"), "game_over")
    t.act("chat", "p1", channel="day", text="gg")  # post-game chat, everyone
    t.act("presence", "p1", connected=False)


def test_wrong_phase_dead_and_unknown_players_refused() -> None:
    t = Table(EIGHT, firstPhase="night")
    refused(lambda: t.act("vote", "p1", target="p2"), "wrong_phase")
    t.timeout()
    refused(lambda: t.act("mafiaTarget", "p9", target="p2"), "unknown_player")
    refused(lambda: t.act("mafiaTarget", "p1", target="p42"), "unknown_player")
    t.act("mafiaTarget", "p1", target="p5")
    t.timeout()
    t.to_vote()
    refused(lambda: t.act("vote", "p5", target="p1"), "dead_player")
    refused(lambda: t.act("vote", "p1", target="p5"), "target_dead")
    refused(lambda: me.view(t.state, "p42"), "unknown_player")


def test_check_setup_codes() -> None:
    assert me.check_setup({}, 4)["preset"] == "classic"
    assert me.check_setup(None, 12)["mafiaCount"] == "auto"
    refused(lambda: me.check_setup({}, 3), "too_few_players")
    refused(lambda: me.check_setup({}, 13), "too_many_players")
    refused(lambda: me.check_setup({"extraRoles": ["lovers", "soldier"]}, 5), "seats_short")
    refused(lambda: me.check_setup("classic", 5), "bad_options")


def test_new_game_refuses_bad_players() -> None:
    refused(lambda: me.new_game(["a", "a", "b", "c"], {}), "bad_players")
    refused(lambda: me.new_game(["a", "", "b", "c"], {}), "bad_players")
    refused(lambda: me.new_game(["a", "abstain", "b", "c"], {}), "bad_players")
    refused(lambda: me.new_game(["a", "b", "c"], {}), "too_few_players")


def test_dump_load_round_trip_and_json() -> None:
    t = Table(EIGHT, firstPhase="night")
    t.timeout()
    t.act("mafiaTarget", "p1", target="p5")
    t.act("chat", "p1", channel="mafia", text="hi")
    d = me.dump(t.state)
    assert json.loads(json.dumps(d)) == d
    assert me.load(d) == t.state
    assert me.load(json.loads(json.dumps(d))) == t.state
    assert {"players", "phase", "day", "winner"} <= set(d)
    assert {"id", "role", "alive"} <= set(d["players"][0])
    refused(lambda: me.load({"players": []}), "bad_state")
    refused(lambda: me.load({**d, "v": 99}), "state_too_new")  # a newer release saved it (test_state_upgrades.py)
    refused(lambda: me.load({**d, "v": "1"}), "bad_state")


def test_same_seed_same_game() -> None:
    a = me.new_game(IDS, {}, seed="room-ABCD")
    b = me.new_game(IDS, {}, seed="room-ABCD")
    assert a == b


def test_result_is_none_while_running_then_the_seed_shape() -> None:
    t = Table(["mafia", "police", "doctor", "citizen"], firstPhase="night")
    assert me.result(t.state) is None
    t.timeout()
    t.timeout()
    t.execute("p1")
    r = me.result(t.state)
    assert set(r) == {"winner", "cause", "days", "players", "ranking", "summary", "mvp"}
    assert set(r["players"][0]) == {"id", "role", "team", "alive", "diedDay", "diedBy", "won"}
    assert r["winner"] == "town" and sorted(r["ranking"]) == sorted(t.ids)


def test_after_the_end_everything_is_revealed() -> None:
    t = Table(["mafia", "police", "doctor", "lover", "lover"], firstPhase="night")
    t.timeout()
    t.act("chat", "p1", channel="mafia", text="secret plan")
    t.act("chat", "p4", channel="lovers", text="love note")
    t.timeout()
    t.execute("p1")
    for viewer in [None, "p2"]:
        v = t.view(viewer)
        assert [p["role"] for p in v["players"]] == ["mafia", "police", "doctor", "lover", "lover"]
        texts = {m["text"] for m in v["chat"]}
        assert {"secret plan", "love note"} <= texts
        assert v["result"]["winner"] == "town"


def test_spectator_never_gets_roles_while_running() -> None:
    t = Table(EIGHT, firstPhase="night")
    for _ in range(6):
        v = t.view(None)
        assert all(p["role"] is None for p in v["players"]) and v["you"] is None and v["private"] is None
        assert v["channels"] == {"read": ["day", "system"], "write": []}
        t.timeout()


def test_every_view_has_the_same_top_level_keys() -> None:
    t = Table(EIGHT)
    keys = {
        "preset",
        "options",
        "day",
        "phase",
        "players",
        "you",
        "private",
        "votes",
        "chat",
        "channels",
        "voice",
        "events",
        "result",
        "paused",
        "rules",
        "roster",
        "review",
        "fairness",
    }
    for _ in range(5):
        for viewer in [None, *t.ids]:
            assert set(t.view(viewer)) == keys
        t.timeout()


def test_every_viewer_gets_the_same_public_rules() -> None:
    """The view's ``rules`` are the preset's public facts: identical for every seat and spectators."""
    for name, info in me.presets_info().items():
        n = info["minPlayers"]
        ids = [f"p{i}" for i in range(1, n + 1)]
        state = me.new_game(ids, {"preset": name}, seed=3)
        views = [me.view(state, v)["rules"] for v in [None, *ids]]
        assert all(r == info["rules"] for r in views)


def test_views_share_nothing_with_the_state() -> None:
    t = Table(EIGHT, firstPhase="night")
    t.timeout()
    t.timeout()
    t.execute("p5")
    before = copy.deepcopy(t.state)
    v = t.view("p1")

    def scribble(x):
        if isinstance(x, dict):
            for k in list(x):
                scribble(x[k])
            x["scribbled"] = 1
        elif isinstance(x, list):
            for y in x:
                scribble(y)
            x.append("scribbled")

    scribble(v)
    assert t.state == before


def test_team_of_roles() -> None:
    assert me.team_of("mafia") == "mafia" and me.team_of("doctor") == "town" and me.team_of("lover") == "town"
    assert set(me.ROLES) >= {
        "godfather",
        "corruptJudge",
        "werewolf",
        "lawyer",
        "ninja",
        "yakuza",
        "madman",
        "sheriff",
    }
    with pytest.raises(ValueError):
        me.team_of("wizard")


# --- chat details (docs/rulebooks/000-classic.txt §5.6) -------------------------------------------
def test_chat_length_and_empty_refused() -> None:
    t = Table(EIGHT)
    t.timeout()
    refused(lambda: t.act("chat", "p1", channel="day", text="   "), "empty_message")
    refused(lambda: t.act("chat", "p1", channel="day", text="x" * 201), "too_long")
    t.act("chat", "p1", channel="day", text="x" * 200)


def test_system_channel_is_server_only() -> None:
    t = Table(EIGHT)
    t.timeout()
    refused(lambda: t.act("chat", "p1", channel="system", text="I am the moderator"), "no_permission")


def test_mafia_chat_only_at_night_and_dead_mafia_read_only() -> None:
    t = Table(EIGHT, firstPhase="night")
    refused(lambda: t.act("chat", "p1", channel="mafia", text="hi"), "no_permission")  # role reveal
    t.timeout()
    t.act("chat", "p1", channel="mafia", text="plan")
    refused(lambda: t.act("chat", "p3", channel="mafia", text="hi"), "no_permission")
    t.timeout()
    refused(lambda: t.act("chat", "p1", channel="mafia", text="by day"), "no_permission")
    assert "plan" in json.dumps(t.view("p2"))  # history readable by the mafia at any time
    t.execute("p1")
    t.to_night()
    refused(lambda: t.act("chat", "p1", channel="mafia", text="ghost"), "no_permission")
    assert "mafia" in t.view("p1")["channels"]["read"]


def test_lovers_chat_at_night_only_between_lovers() -> None:
    t = Table(["mafia", "police", "doctor", "lover", "lover", "citizen"], firstPhase="night")
    t.timeout()
    t.act("chat", "p4", channel="lovers", text="xo")
    refused(lambda: t.act("chat", "p6", channel="lovers", text="me too"), "no_permission")
    assert "xo" in json.dumps(t.view("p5")) and "xo" not in json.dumps(t.view("p6"))
    t.timeout()
    refused(lambda: t.act("chat", "p4", channel="lovers", text="by day"), "no_permission")


def test_medium_writes_dead_chat_at_night() -> None:
    t = Table(["mafia", "police", "doctor", "medium", "citizen", "citizen"], firstPhase="night")
    t.timeout()
    t.act("chat", "p4", channel="dead", text="anyone there?")
    refused(lambda: t.act("chat", "p5", channel="dead", text="me"), "no_permission")
    t.timeout()
    refused(lambda: t.act("chat", "p4", channel="dead", text="by day"), "no_permission")


@pytest.mark.parametrize(
    "text,code",
    [
        ("씨발 진짜", "blocked_word"),
        ("이 병 신아", "blocked_word"),
        ("ты сука", "blocked_word"),
        ("БЛЯТЬ", "blocked_word"),
        ("f u c k", "blocked_word"),
        ("Shit happens", "blocked_word"),
        ("go to www.example.com", "blocked_link"),
        ("discord.gg/abc", "blocked_link"),
        ("+7 912 345 67 89", "blocked_phone"),
        ("010 1234 5678", "blocked_phone"),
    ],
)
def test_kid_safe_filter_catches(text: str, code: str) -> None:
    assert kid_safe_refusal(text)[0] == code


@pytest.mark.parametrize(
    "text",
    ["I think p3 is mafia", "shitake? no, shiitake", "vote 3 then 4", "안녕하세요", "привет всем", "Dickens"],
)
def test_kid_safe_filter_lets_ordinary_chat_through(text: str) -> None:
    assert kid_safe_refusal(text) is None


def test_chat_window_keeps_state_bounded() -> None:
    t = Table(EIGHT)
    t.timeout()
    for i in range(200):
        t.act("chat", f"p{i % 8 + 1}", channel="day", text=f"message {i} " + "x" * 180)
    days = [m for m in t.state["chat"] if m["channel"] == "day"]
    assert len(days) == WINDOW["day"] and days[-1]["text"].startswith("message 199")
    assert len(json.dumps(t.state)) < 64 * 1024


def test_presence_is_accepted_in_every_phase_and_changes_no_view() -> None:
    t = Table(EIGHT)
    for _ in range(4):
        views = [t.view(v) for v in [None, *t.ids]]
        t.act("presence", "p3", connected=False)
        t.act("presence", "p3", connected=True)
        assert views == [t.view(v) for v in [None, *t.ids]]
        t.timeout()


def test_action_schema_lists_every_action_type() -> None:
    schema = me.action_schema()
    tags = [d["properties"]["type"]["enum"] for d in schema["$defs"].values()]
    assert all(len(t) == 1 for t in tags)
    assert sorted(t[0] for t in tags) == sorted(me.ACTION_TYPES)
    assert schema["discriminator"]["propertyName"] == "type"
    assert set(schema["discriminator"]["mapping"]) == set(me.ACTION_TYPES)
    assert all(d["additionalProperties"] is False for d in schema["$defs"].values())
    assert all("type" in d["required"] for d in schema["$defs"].values())


def test_state_stays_under_64_kb_with_every_channel_full_of_korean() -> None:
    roles = [
        "mafia",
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
        "soldier",
    ]
    t = Table(roles, firstPhase="night")
    t.timeout()
    text = "가" * 200
    t.act("mafiaTarget", "p1", target="p9")
    t.timeout()
    for _day in range(4):
        t.to_vote()
        for _ in range(8):
            for pid in t.ids:
                if t.alive(pid):
                    t.do({"type": "chat", "player": pid, "channel": "day", "text": text}, dt=0.1)
            t.now += 0.7
        t.to_night()
        for _ in range(12):
            t.do({"type": "chat", "player": "p1", "channel": "mafia", "text": text}, dt=0.7)
            t.do({"type": "chat", "player": "p7", "channel": "lovers", "text": text}, dt=0.0)
            t.do({"type": "chat", "player": "p6", "channel": "dead", "text": text}, dt=0.0)
            t.do({"type": "chat", "player": "p9", "channel": "dead", "text": text}, dt=0.0)
        t.timeout()
    size = len(json.dumps(me.dump(t.state), ensure_ascii=False).encode())
    assert size <= 64 * 1024, size
    assert {m["channel"] for m in t.state["chat"]} == {"day", "mafia", "lovers", "dead", "system"}


def test_every_task_a_preset_hands_out_is_one_it_declares() -> None:
    """``Preset.tasks`` is the declaration bots and clients read: random games never show another."""
    from mafia_engine.presets import PRESETS
    from mafia_engine.tasks import TASKS
    from mafia_engine.testing import random_game

    for name, preset in PRESETS.items():
        assert preset.tasks <= set(TASKS), name
        n = preset.min_players + 2
        for seed in range(4):
            for _a, _now, state in random_game(n=n, seed=seed, options={"preset": name}, chat=False):
                for pid in (p["id"] for p in state["players"]):
                    task = me.view(state, pid)["private"]["task"]
                    assert task in preset.tasks, (name, state["phase"]["kind"], task)
