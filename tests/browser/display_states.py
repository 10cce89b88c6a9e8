"""Scripted games for the room's screen (web/js/display/): the engine plays them with chosen
roles, and `states()` gives the spectator's view at each moment the screen must draw (a display
connection's view is the spectator's: tests/functions/test_display.py), with the room block
the room layer adds (functions/service/protocol/views.py `room_block`)."""

from __future__ import annotations

from mafia_engine import fairness

from . import review_shots
from .scripted import Scripted

ORIGINAL = ["mafia", "godfather", "police", "citizen", "doctor", "citizen", "citizen", "citizen"]
SALT = "5a17" * 8
CLASSIC = ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"]


class Game(Scripted):
    # the night (acts, then everyone else sleeps) and the speeches, as review_shots plays them
    night = review_shots.Game.night
    speeches = review_shots.Game.speeches

    def screen(self, lang: str = "en", narrator: bool = False, viewer: str | None = None) -> dict:
        """The display's view (the spectator's) with the room block's screen facts; `viewer`:
        a seat's view with the same room block instead (the leak test's comparison)."""
        v = self.view(viewer)
        v["room"].update(
            {"narrator": narrator, "lang": lang, "status": "ended" if self.kind == "ended" else "running"}
        )
        # the deal's commitment as the room layer's game has it (functions/service/features/fairness.py)
        v["fairness"] = fairness.gate({"fairness": fairness.record(5, SALT), "phase": self.s["phase"]})
        return v


def states(lang: str = "en", narrator: bool = False, viewer: str | None = None) -> dict[str, dict]:
    """name -> the screen's view: speech (day 1), night (before and after the night's acts),
    dawn (day 2's first speaker, with the night's news), defense, ended, and classic's open
    vote while it runs (`voting`) and once its ballots are public (`vote`). `viewer`: that
    seat's view at each instead (the leak test's comparison)."""
    out: dict[str, dict] = {}
    g = Game("original", ORIGINAL, expansion=True)
    g.until("speech")
    out["speech"] = g.screen(lang, narrator, viewer)
    g.speeches()
    g.until("night")
    out["night"] = g.screen(lang, narrator, viewer)
    for pid, typ, target in (
        ("p1", "mafiaTarget", "p4"),
        ("p2", "mafiaTarget", "p4"),
        ("p3", "investigate", "p1"),
    ):
        g.act(typ, pid, target=target)
    out["nightActed"] = g.screen(lang, narrator, viewer)
    g.night()  # everyone else sleeps
    g.until("speech")
    out["dawn"] = g.screen(lang, narrator, viewer)
    g.speeches(p2="p8", p3="p1")
    assert g.kind == "defense", g.kind
    out["defense"] = g.screen(lang, narrator, viewer)
    while g.kind == "defense":
        g.act("endTurn", g.s["phase"]["accused"])
    for voter, target in (("p2", "p8"), ("p3", "p1"), ("p5", "p8"), ("p6", "p8"), ("p7", "p1"), ("p8", "p1")):
        g.act("vote", voter, target=target)
    g.act("vote", "p1", target="p8")
    if g.kind == "lastWord":
        g.act("endTurn", "p8")
    g.night(p1=[("mafiaTarget", "p3")], p2=[("mafiaTarget", "p3")], p5=[("heal", "p3")])
    g.speeches(p3="p1", p5="p2")
    while g.kind == "defense":
        g.act("endTurn", g.s["phase"]["accused"])
    for voter in ("p2", "p3", "p5", "p6", "p7"):
        g.act("vote", voter, target="p1")
    g.act("vote", "p1", target="p2")
    if g.kind == "lastWord":
        g.act("endTurn", "p1")
    g.night(p2=[("mafiaTarget", "p6")])
    g.speeches(p3="p2")
    while g.kind == "defense":
        g.act("endTurn", g.s["phase"]["accused"])
    assert g.kind == "ended", g.kind
    out["ended"] = g.screen(lang, narrator, viewer)

    c = Game("classic", CLASSIC)
    c.until("vote")
    for voter, target in (("p3", "p1"), ("p4", "p1"), ("p5", "p2"), ("p6", "p1")):
        c.act("vote", voter, target=target)
    out["voting"] = c.screen(lang, narrator, viewer)
    c.timeout()  # the open vote's ballots are public once it closes
    out["vote"] = c.screen(lang, narrator, viewer)
    return out
