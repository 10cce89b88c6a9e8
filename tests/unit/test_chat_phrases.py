"""Chat phrases: a line sent as a phrase id, the players it names and a variant, which every
phone draws in its own language (mafia_engine/chat.py ``PHRASES``; docs/protocol.md, "Chat
messages"; docs/rules.md, "Anonymous games"). Anyone may send one, bots and people alike, so a
phrase line marks no one; a refused phrase leaves the state unchanged (``Table.do`` checks)."""

from __future__ import annotations

import pytest
from enginekit import Table, refused
from test_original import defenses, original, speeches, to_day_two

import mafia_engine as me
from mafia_engine import chat, migrations
from mafia_engine.bots import phrases
from mafia_engine.bots.evidence import Seat

ROLES = ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"]


def day() -> Table:
    t = Table(ROLES, seed=2)
    t.to_night()
    t.timeout()
    assert t.kind == "discussion"
    return t


def test_a_phrase_is_stored_as_its_id_arguments_and_variant_never_as_text():
    t = day()
    t.act("chat", "p5", channel="day", phrase="suspect", args={"target": "p3"}, variant=7)
    m = t.state["chat"][-1]
    assert {k: m[k] for k in ("channel", "from", "phrase", "args", "variant")} == {
        "channel": "day",
        "from": "p5",
        "phrase": "suspect",
        "args": {"target": "p3"},
        "variant": 7,
    }
    assert "text" not in m
    for viewer in (None, "p1", "p3", "p5"):  # the same line in every view: no language in it
        (line,) = [x for x in t.view(viewer)["chat"] if x["id"] == m["id"]]
        assert line == m


def test_a_phrase_without_arguments_takes_none_and_its_variant_defaults_to_0():
    t = day()
    t.act("chat", "p4", channel="day", phrase="greet")
    m = t.state["chat"][-1]
    assert (m["phrase"], m["args"], m["variant"]) == ("greet", {}, 0)


def test_every_phrase_has_wordings_in_every_language_and_every_wording_an_id():
    assert set(chat.PHRASES) == set(phrases.LINES)
    for pid, args in chat.PHRASES.items():
        for lang in phrases.LANGS:
            named = {"{name}" in w for w in phrases.LINES[pid][lang]}
            assert named == {bool(args)}, (pid, lang)


def test_an_unknown_phrase_id_is_refused_with_its_code():
    t = day()
    before = list(t.state["chat"])
    e = refused(lambda: t.act("chat", "p5", channel="day", phrase="insult", args={}), "unknown_phrase")
    assert "insult" in e.message
    assert t.state["chat"] == before


@pytest.mark.parametrize(
    "payload",
    [
        {"phrase": "suspect", "args": {}},  # the player it names is missing
        {"phrase": "suspect"},
        {"phrase": "suspect", "args": {"target": "p99"}},  # no such player
        {"phrase": "suspect", "args": {"target": "p3", "extra": "p4"}},
        {"phrase": "greet", "args": {"target": "p3"}},  # names nobody
        {"phrase": "muse", "args": {}, "variant": -1},
        {"phrase": "muse", "args": {}, "variant": chat.MAX_VARIANT + 1},
        {"phrase": "muse", "args": {}, "text": "hi"},  # one form or the other
        {"text": "hi", "args": {"target": "p3"}},
        {"text": "hi", "variant": 2},
    ],
)
def test_bad_phrase_arguments_are_refused_with_a_clear_code(payload):
    t = day()
    before = list(t.state["chat"])
    e = refused(lambda: t.act("chat", "p5", channel="day", **payload), "bad_phrase_args")
    assert e.message
    assert t.state["chat"] == before and t.p("p5").get("lastChatAt") is None


def test_a_phrase_obeys_the_channel_rules_and_the_rate_limit_like_text():
    t = Table(ROLES, seed=2)
    t.to_night()
    refused(lambda: t.act("chat", "p5", channel="mafia", phrase="kill", args={"target": "p3"}), "no_permission")
    t.act("chat", "p1", channel="mafia", phrase="kill", args={"target": "p3"})
    t.timeout()
    t.now += 1.0
    t.act("chat", "p5", channel="day", phrase="muse")
    refused(
        lambda: t.do({"type": "chat", "player": "p5", "channel": "day", "phrase": "greet"}, dt=0.1),
        "rate_limited",
    )


def test_free_text_still_passes_the_kid_safe_filter():
    t = Table(ROLES, seed=2, kidSafeChat=True)
    t.to_night()
    t.timeout()
    refused(lambda: t.act("chat", "p5", channel="day", text="visit www.example.com"), "blocked_link")
    refused(lambda: t.act("chat", "p5", channel="day"), "empty_message")
    t.act("chat", "p5", channel="day", text="hello")
    assert t.state["chat"][-1]["text"] == "hello" and "phrase" not in t.state["chat"][-1]


def test_a_persons_phrase_counts_as_the_claim_it_makes_and_text_only_as_a_mention():
    t = day()
    t.act("chat", "p5", channel="day", phrase="sure", args={"target": "p1"})
    t.act("chat", "p6", channel="day", text="I trust p2.")
    seat = Seat(t.view("p7"), 1)
    claims = seat.claims()
    assert ("p5", "sure", "p1") in claims
    assert ("p6", "mention", "p2") in claims and ("p6", "trust", "p2") not in claims


def test_phrases_count_against_the_channels_window():
    t = day()
    for i in range(chat.WINDOW["day"] + 5):
        t.act("chat", f"p{4 + i % 5}", channel="day", phrase="muse", variant=i % 10)
    day_lines = [m for m in t.state["chat"] if m["channel"] == "day"]
    assert len(day_lines) == chat.WINDOW["day"]


def test_a_last_word_said_as_a_phrase_is_kept_for_the_review():
    t = original(lastWordSeconds=20)
    to_day_two(t)
    speeches(t, p4="p6")
    defenses(t)
    assert t.kind == "lastWord"
    t.act("chat", "p6", channel="day", phrase="notMe", variant=2)
    t.act("chat", "p6", channel="day", text="good luck")
    assert t.state["phase"]["lines"] == [{"phrase": "notMe", "args": {}, "variant": 2}, "good luck"]


def test_a_version_5_state_loads_as_version_6_with_its_text_lines_unchanged():
    t = day()
    t.act("chat", "p5", channel="day", text="hello")
    saved = {**me.dump(t.state), "v": 5}
    loaded = me.load(saved)
    assert loaded["v"] == migrations.STATE_VERSION == 6
    assert loaded["chat"] == t.state["chat"]
    newer = {**me.dump(t.state), "v": 7}
    refused(lambda: me.load(newer), "state_too_new")


def test_a_bot_with_no_one_to_name_says_nothing_rather_than_a_bad_phrase():
    from mafia_engine.bots import policy

    t = day()
    seat = Seat(t.view("p5"), 1)
    assert policy._say(seat, "day", "suspect", "x", "en", None) is None
    assert policy._say(seat, "day", "greet", "x", "en", "p3") is None
    line = policy._say(seat, "day", "suspect", "x", "en", "p3")
    assert line is not None and line["args"] == {"target": "p3"}
    t.act("chat", "p5", **{k: v for k, v in line.items() if k != "type"})
