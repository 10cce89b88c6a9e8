"""The room's screen through each rulebook's day, defense, vote and end (docs/rules.md, "A screen for the room"): scripted
engine games (classic, city, original) and the display's view at each moment, which is the
spectator's (display_states.py: its game's `screen`). The screen must show, at each, who is accused
and by whom, what is being voted and why the game ended."""

from __future__ import annotations

from .display_states import CLASSIC, ORIGINAL, Game

CITY = ["mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"]
MOMENTS = ("day", "defense", "vote", "end")


def sleep_all(g: Game) -> None:
    for pid in g.living():
        if g.kind == "night" and pid not in g.s["phase"]["done"]:
            g.act("sleep", pid)


def play_out(g: Game, mafia: tuple[str, ...]) -> None:
    """To the town's win: every vote on the first living mafia, every confirm a yes, the
    nights slept through."""
    for _ in range(60):
        if g.kind == "ended":
            return
        living = g.living()
        target = next((m for m in mafia if m in living), None)
        ph = g.s["phase"]
        if g.kind == "vote":
            for voter in living:
                if g.kind == "vote" and voter != target and voter not in (ph.get("votes") or {}):
                    g.act("vote", voter, target=target)
        elif g.kind == "confirm":
            for voter in living:
                if g.kind == "confirm" and voter != ph.get("accused"):
                    g.act("confirm", voter, choice="yes")
        if g.kind not in ("ended",) and g.s["phase"] is ph:
            g.timeout()
        elif g.kind not in ("ended",) and g.s["phase"].get("seq", None) == ph.get("seq"):
            g.timeout()
    raise AssertionError(f"no end: {g.kind}")


def original(lang: str, viewer: str | None = None) -> dict[str, dict]:
    """Day 2 of the original: Ann nominates Hal, Bob nominates Ann (the nominations on the
    screen mid-speeches); Hal and Ann defend in turn; the vote between them; the town wins."""
    out: dict[str, dict] = {}
    g = Game("original", ORIGINAL, expansion=True)
    g.until("speech")
    g.speeches()
    g.until("night")
    g.night(p1=[("mafiaTarget", "p4")], p2=[("mafiaTarget", "p4")])
    g.until("speech")
    g.act("nominate", "p1", target="p8")
    g.act("nominate", "p2", target="p1")
    out["day"] = g.screen(lang, viewer=viewer)
    g.speeches()
    assert g.kind == "defense", g.kind
    out["defense"] = g.screen(lang, viewer=viewer)
    while g.kind == "defense":
        g.act("endTurn", g.s["phase"]["accused"])
    assert g.kind == "vote", g.kind
    for voter, target in (("p3", "p1"), ("p5", "p1"), ("p6", "p1")):
        g.act("vote", voter, target=target)
    out["vote"] = g.screen(lang, viewer=viewer)
    for voter in ("p7", "p8"):
        g.act("vote", voter, target="p1")
    g.act("vote", "p1", target="p8")
    g.act("vote", "p2", target="p8")
    if g.kind == "lastWord":
        g.act("endTurn", "p1")
    g.night(p2=[("mafiaTarget", "p6")])
    g.until("speech")
    g.speeches(p3="p2")
    while g.kind == "defense":
        g.act("endTurn", g.s["phase"]["accused"])
    for voter in g.living():
        if g.kind == "vote":
            g.act("vote", voter, target="p2" if voter != "p2" else "p3")
    if g.kind == "lastWord":
        g.act("endTurn", "p2")
    while g.kind != "ended":
        g.timeout()
    out["end"] = g.screen(lang, viewer=viewer)
    return out


def classic(lang: str, viewer: str | None = None) -> dict[str, dict]:
    """Classic: the day's discussion, Ann nominated and defending, the confirm vote (who is on
    trial and the question), and the end."""
    out: dict[str, dict] = {}
    g = Game("classic", CLASSIC)
    out["start"] = g.screen(lang, viewer=viewer)  # the game's first view: the role reveal
    g.until("discussion")
    out["day"] = g.screen(lang, viewer=viewer)
    g.until("vote")
    for voter, target in (("p3", "p1"), ("p4", "p1"), ("p5", "p2"), ("p6", "p1")):
        g.act("vote", voter, target=target)
    g.timeout()
    assert g.kind == "defense", g.kind
    out["defense"] = g.screen(lang, viewer=viewer)
    g.timeout()
    assert g.kind == "confirm", g.kind
    for voter in ("p3", "p4", "p5"):
        g.act("confirm", voter, choice="yes")
    out["vote"] = g.screen(lang, viewer=viewer)
    for voter in ("p2", "p6", "p7", "p8"):
        g.act("confirm", voter, choice="yes")
    while g.kind != "night":  # Ann executed (her last word), then the night
        g.timeout()
    out["night"] = g.screen(lang, viewer=viewer)
    play_out(g, mafia=("p1", "p2"))
    out["end"] = g.screen(lang, viewer=viewer)
    return out


def city(lang: str, viewer: str | None = None) -> dict[str, dict]:
    """City: the day's discussion, a tied vote's defense (marked as a tie), the revote between
    the tied, and the end."""
    out: dict[str, dict] = {}
    g = Game("city", CITY)
    g.until("discussion")
    out["day"] = g.screen(lang, viewer=viewer)
    g.until("vote")
    for voter, target in (("p1", "p4"), ("p2", "p4"), ("p3", "p5"), ("p6", "p5")):
        g.act("vote", voter, target=target)
    g.timeout()
    assert g.kind == "defense", g.kind
    out["defense"] = g.screen(lang, viewer=viewer)
    g.timeout()
    assert g.kind == "vote", g.kind
    for voter, target in (("p2", "p4"), ("p3", "p4"), ("p6", "p4")):
        g.act("vote", voter, target=target)
    out["vote"] = g.screen(lang, viewer=viewer)
    g.timeout()
    play_out(g, mafia=("p1",))
    out["end"] = g.screen(lang, viewer=viewer)
    return out


def stories(lang: str = "en", viewer: str | None = None) -> dict[str, dict[str, dict]]:
    """rulebook -> moment (day, defense, vote, end, and the narrator's `start`, `night`,
    `executed`) -> the screen's view; `viewer`: that seat's view instead (p1 is the mafia in
    each: what the mafia knows that a spectator does not)."""
    return {"original": original(lang, viewer), "classic": classic(lang, viewer), "city": city(lang, viewer)}
