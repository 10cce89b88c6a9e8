"""The pipeline's own values, without a room: the attempt's copy of the stored room document
(`pipeline.own_copy`) and the sum of effects (`change.Effects`), which every request makes."""

from __future__ import annotations

import math

from service.room.change import NO_EFFECTS, Effects
from service.room.pipeline import own_copy


def test_the_attempts_room_is_an_exact_copy_that_shares_nothing():
    room = {
        "code": "ABCD",
        "players": [{"id": "p1", "ready": True, "n": 1, "at": 1.0, "zero": -0.0, "none": None}],
        "scores": {"p1": 2},
        "big": 2**70,
        "nan": math.nan,
    }
    got = own_copy(room)
    assert repr(got) == repr(room)  # True, 1 and 1.0 each as itself, -0.0 and NaN kept
    assert [type(v) for v in got["players"][0].values()] == [type(v) for v in room["players"][0].values()]
    got["players"][0]["ready"] = False
    got["scores"]["p2"] = 1
    assert room["players"][0]["ready"] is True and room["scores"] == {"p1": 2}


def test_a_room_with_an_object_marshal_cannot_write_is_copied_all_the_same():
    class Mark(str):
        pass

    room = {"mark": Mark("x"), "list": [1]}
    got = own_copy(room)
    assert got == room and type(got["mark"]) is Mark and got["list"] is not room["list"]


def test_adding_no_effects_gives_the_same_effects():
    e = Effects(puts={"c1": "p1"}, deletes=("c2", "c2"), replies={"c1": b"x"}, full_view="c1")
    assert e + NO_EFFECTS == e == NO_EFFECTS + e
    both = e + Effects(deletes=("c2", "c3"), last={"c1": b"y"})
    assert both.deletes == ("c2", "c2", "c3") and dict(both.last) == {"c1": b"y"} and both.full_view == "c1"
    assert (
        type(both.puts).__name__ == "mappingproxy"
        and type(Effects(puts={"a": None}).puts).__name__ == "mappingproxy"
    )
