"""The view frame is serialised once (`views.render`, `server_frames.view_frame`): its bytes
are the ones the declared models write, `encode(ViewFrame(view=Clocked(...)))`, for a lobby, a
night, an ended game and a spectator; the fingerprint is the one of the view's own bytes."""

from __future__ import annotations

import enum
import hashlib
import json
import math

import pytest
from viewsamples import samples

from service.infra import clock
from service.protocol import server_frames, views

SAMPLES = samples()


def models_frame(view: dict, version: int, now: float, rate: float) -> bytes:
    """The frame as the models alone write it: the view validated, the clocked view and the
    frame validated too (every key, in the models' order)."""
    m = server_frames.View.model_validate(view)
    frame = server_frames.ViewFrame.model_validate(
        {"type": "view", "version": version, "view": {**dict(m), "serverNow": now, "clockRate": rate}}
    )
    return server_frames.encode(frame)


@pytest.fixture
def fixed_clock(monkeypatch):
    monkeypatch.setattr(clock, "now", lambda: 1796124229.92849)
    monkeypatch.setattr(clock, "rate", lambda: 2)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_view_frame_bytes_are_the_models_bytes(name, fixed_clock):
    view = SAMPLES[name]
    sent = views.frame(view, 7)
    assert sent == models_frame(view, 7, 1796124229.928, 2.0)
    assert views.frame(views.render(view), 7) == sent  # viewframes.frames_for's path: rendered once
    assert json.loads(sent)["view"]["serverNow"] == 1796124229.928


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_fingerprint_is_the_views_own_bytes(name):
    view = SAMPLES[name]
    own = server_frames.encode(server_frames.View.model_validate(view))
    assert views.render(view).body == own
    assert views.digest(view) == hashlib.blake2b(own, digest_size=8).hexdigest()


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_views_parts_are_its_keys_each_as_the_model_writes_it_and_join_to_its_bytes(name):
    view = SAMPLES[name]
    rendered = views.render(view)
    own = json.loads(server_frames.encode(server_frames.View.model_validate(view)))
    keys = [k for k, _ in rendered.parts]
    assert keys == list(own), keys  # every key once, in the body's order
    for key, raw in rendered.parts:
        assert json.loads(raw) == {key: own[key]}, key
    assert b"{" + b",".join(raw[1:-1] for _, raw in rendered.parts) + b"}" == rendered.body


def test_samples_cover_lobby_night_ended_and_spectators():
    kinds = {name: v["phase"]["kind"] for name, v in SAMPLES.items()}
    assert set(kinds.values()) == {"lobby", "night", "ended"}
    assert any(v["you"] is None for v in SAMPLES.values())
    # keys beyond the declared ones (rules, review) go after the clock, as Clocked writes them
    assert any(set(v) - server_frames._VIEW_FIELDS for v in SAMPLES.values())


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_number_is_never_sent(bad, monkeypatch):
    view = dict(SAMPLES["night"])
    with pytest.raises(ValueError):
        views.render({**view, "private": {"x": bad}})
    with pytest.raises(ValueError):
        views.render({**view, "review": bad})  # an extra key
    monkeypatch.setattr(clock, "now", lambda: bad)
    with pytest.raises(ValueError):
        views.frame(view, 1)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_view_rendered_from_shared_parts_is_the_same_bytes(name):
    """`views.render` with the parts already rendered (`views.PARTS`, as frames_for passes it):
    the same parts and body as the view's model writes, whether the parts are new or taken
    from what another view left (every sample rendered once before, into the same dict)."""
    shared: dict = {}
    for other in SAMPLES.values():
        views.render(other, shared)
    alone = views.render(SAMPLES[name])
    assert views.render(SAMPLES[name], shared) == alone
    assert views.render(SAMPLES[name], {}) == alone


def test_a_shared_part_is_taken_only_for_the_same_json_never_for_an_equal_value():
    """True == 1 == 1.0 and {"a", "b"} == {"b", "a"} in Python, not in JSON: a part kept for
    one is never the bytes of another (each as its own model writes it)."""
    view = SAMPLES["night"]
    shared: dict = {}
    for value in ({"x": 1}, {"x": True}, {"x": 1.0}, {"x": -0.0}, {"x": 0.0}, {"a": 1, "b": 2}, {"b": 2, "a": 1}):
        for key in ("private", "review"):  # a declared key, an extra one
            got = views.render({**view, key: value}, shared)
            assert got == views.render({**view, key: value}), (key, value)
            assert json.loads(dict(got.parts)[key])[key] == value
            assert dict(got.parts)[key] == json.dumps({key: value}, separators=(",", ":")).encode()
    # a scalar part is kept by its type and itself (no fingerprint): the same strictness
    for value in (1, True, 1.0, 0, False, -0.0, 0.0, "1", None):
        got = views.render({**view, "review": value}, shared)
        assert got == views.render({**view, "review": value}), value
        assert dict(got.parts)["review"] == json.dumps({"review": value}, separators=(",", ":")).encode()
    with pytest.raises(ValueError):
        views.render({**view, "private": {"x": math.nan}}, shared)  # never shared past the check
    # a subclass of a built-in type (an enum member, a str subclass) is never fingerprinted:
    # rendered by the model each time, never taken for the plain value's part or given as one
    for value in ({"x": Seat.ONE}, {"x": 1}, {"x": Word("a")}, {"x": "a"}):
        got = views.render({**view, "review": value}, shared)
        assert got == views.render({**view, "review": value}), value
    assert views._fingerprint({"x": Seat.ONE}) is None and views._fingerprint([Word("a")]) is None


class Seat(enum.IntEnum):
    ONE = 1


class Word(str):
    pass


def test_the_kept_parts_are_bounded(monkeypatch):
    monkeypatch.setattr(views, "PARTS_KEPT", 5)
    shared: dict = {}
    for i in range(40):
        views.render({**SAMPLES["night"], "private": {"n": i}}, shared)
        assert len(shared) <= 5


@pytest.mark.parametrize("kind", ["night", "ended"])
def test_one_changes_views_write_each_shared_part_once_and_the_same_bytes(kind, monkeypatch):
    """A change's fan-out (`viewframes.frames_for`): every viewer's view made at once
    (`views.game_views`, their public part the same objects) and rendered with one `seen`
    gives each viewer the bytes of its view made and rendered alone; a public part (the rules,
    the events) is fingerprinted for the first viewer only."""
    from viewsamples import IDS, room, states

    from service.room import viewframes

    state = states()[kind]
    connected = set(IDS[:6])
    who = [None, *IDS]
    alone = {v: views.render(viewframes.view_of(room(), state, connected, v)) for v in who}
    calls: list = []
    real = views._marshal

    def counting(value):
        calls.append(value)
        return real(value)

    monkeypatch.setattr(views, "_marshal", counting)
    bases = views.game_views(state, who)
    seen: dict = {}
    for v in who:
        view = viewframes.view_of(room(), state, connected, v, None, None, bases[v])
        assert views.render(view, {}, seen) == alone[v], v
    assert sum(1 for c in calls if c is bases[None]["rules"]) == 1
    assert sum(1 for c in calls if c is bases[None]["events"]) == 1
    assert sum(1 for c in calls if isinstance(c, list) and c and isinstance(c[0], dict) and "seat" in c[0]) == len(who)
