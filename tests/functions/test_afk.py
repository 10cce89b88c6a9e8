"""Idle seats (docs/rules.md, "Idle seats"; functions/service/room/afk.py): a seat that misses
`afkLimit` required actions in a row is warned in its own view one miss before, then handed to
a bot or opened to a substitute; never eliminated for it. Every preset, through the real
handlers on the in-memory store, the clock stepped to each deadline and the phase timer fired."""

from __future__ import annotations

import json
import math

import pytest

import mafia_engine as me
from service.room import afk, substitutes

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

SIZES = {"classic": 7, "city": 6, "original": 8}
IDLE = "p2"  # the seat that never does what its phase asks (not the host)


def seat(api, pid):
    return next(p for p in api.state()["players"] if p["id"] == pid)


def room_seat(api, pid):
    return next(p for p in api.snapshot().room["players"] if p["id"] == pid)


def town_target(state, targets, avoid):
    """A target that keeps the game going: a town seat other than `avoid` when there is one."""
    town = [
        t
        for t in targets
        if t != avoid and me.team_of(next(p for p in state["players"] if p["id"] == t)["role"]) == "town"
    ]
    rest = [t for t in targets if t != avoid]
    return (town or rest or [None])[0]


def act_required(api, idle=IDLE):
    """Every living person but `idle` does what its phase requires (afk.REQUIRED); the mafia
    kill nobody, so the game lasts."""
    state = api.state()
    required = afk.REQUIRED[state["preset"]]
    bots = {p["id"] for p in api.snapshot().room["players"] if p.get("bot")}
    for p in state["players"]:
        pid = p["id"]
        if pid == idle or pid in bots or not p["alive"]:
            continue
        private = me.view(api.state(), pid).get("private") or {}
        task = private.get("task")
        if task not in required or me.phase_seq(api.state()) != me.phase_seq(state):
            continue
        if task == "sleep":
            frame = {"action": "sleep"}
        elif task in ("mafiaTarget", "nominate"):
            frame = {"action": task, "target": None}
        else:
            frame = {"action": task, "target": town_target(state, private.get("targets") or [], idle)}
        api.send(f"c{pid}", frame)


def next_phase(api, idle=IDLE):
    """Step the clock to the phase's deadline and fire its timer (unless it moved on already)."""
    seq = me.phase_seq(api.state())
    act_required(api, idle)
    if me.phase_seq(api.state()) != seq:
        return
    api.clock.t = max(api.clock.t, me.deadline(api.state()))
    api.fire(seq)
    assert me.phase_seq(api.state()) != seq or api.snapshot().room["status"] != "running"


def until(api, done, phases=40, idle=IDLE):
    for _ in range(phases):
        if done():
            return
        assert api.snapshot().room["status"] == "running", "the game ended first"
        next_phase(api, idle)
    raise AssertionError("never happened")


def misses(api, pid=IDLE):
    return (api.snapshot().room.get("afk") or {}).get(pid, 0)


def warned(api, pid=IDLE):
    api.send(f"c{pid}", {"action": "sync"})
    return (api.gw.last(f"c{pid}")["view"].get("you") or {}).get("afk")


@pytest.mark.parametrize("preset", ["classic", "city", "original"])
def test_an_idle_seat_is_warned_one_miss_before_then_a_bot_plays_it(api, preset):
    """afkLimit 3: after 2 missed required actions the seat's own view carries the warning
    (no other view does); at the 3rd the seat's socket is told `afk_replaced` and closed, its
    token stops working, and a bot plays the same character, alive: nobody is eliminated for
    idling, in any preset."""
    api.start(SIZES[preset], preset=preset, options={"afkLimit": 3})
    role = seat(api, IDLE)["role"]
    until(api, lambda: misses(api) == 1)
    assert warned(api) is None  # one miss: not yet
    until(api, lambda: misses(api) == 2)
    assert warned(api) == {"misses": 2, "limit": 3}
    for other in ("p1", "p3"):  # nobody else's view says anything of it
        api.send(f"c{other}", {"action": "sync"})
        assert "afk" not in api.gw.last(f"c{other}")["view"]["you"]
    assert api.connect("cspec") == 200
    api.send("cspec", {"action": "sync"})
    assert "afk" not in str(api.gw.last("cspec")["view"].get("you"))
    assert not room_seat(api, IDLE).get("bot")
    until(api, lambda: room_seat(api, IDLE).get("bot"))
    assert api.errors(f"c{IDLE}")[-1]["code"] == "afk_replaced"
    assert f"c{IDLE}" in api.gw.closed and f"c{IDLE}" not in api.snapshot().conns
    p = seat(api, IDLE)
    assert p["alive"] is True and p["role"] == role and p.get("diedBy") is None
    assert room_seat(api, IDLE)["tokenHash"] == ""
    assert api.connect("cback", IDLE) == 403  # the old token stops working
    notice = api.snapshot().room["substituted"][-1]
    assert notice["player"] == IDLE and notice["seat"] == p["seat"]
    assert misses(api) == 0


@pytest.mark.parametrize("preset", ["classic", "city", "original"])
def test_a_seat_that_does_what_its_phase_asks_starts_again_from_zero(api, preset):
    """A miss, then the required action: the count is back to 0 and no warning shows."""
    api.start(SIZES[preset], preset=preset, options={"afkLimit": 2})
    until(api, lambda: misses(api) == 1)
    assert warned(api) == {"misses": 1, "limit": 2}

    for _ in range(40):
        task = (me.view(api.state(), IDLE).get("private") or {}).get("task")
        if task in afk.REQUIRED[preset]:
            act_required(api, idle=None)
            break
        next_phase(api)
    else:
        raise AssertionError("the phase never asked the seat again")
    assert misses(api) == 0 and warned(api) is None
    assert not room_seat(api, IDLE).get("bot")


def test_idle_seats_are_off_by_default(api):
    """Without afkLimit nothing is counted and nobody is handed on, however long a seat idles."""
    api.start(6, preset="city")
    assert api.state()["options"]["afkLimit"] == 0
    for _ in range(8):
        next_phase(api)
    assert "afk" not in api.snapshot().room and not room_seat(api, IDLE).get("bot")
    assert warned(api) is None


def test_an_idle_seat_is_opened_to_a_substitute_then_a_bot_takes_it_if_nobody_comes(api):
    """afkReplace `substitute` (with substitutes on): at the limit the seat is open for
    VACANCY_SECONDS like a seat given up; nobody comes, and a bot plays it: the character
    stays alive (city's "leaving eliminates" is about a leave, docs/rulebooks/001-city.txt)."""
    api.start(
        6,
        preset="city",
        options={"afkLimit": 2, "afkReplace": "substitute", "substitutes": True, "substituteApproval": False},
    )
    until(api, lambda: IDLE in (api.snapshot().room.get("vacant") or {}))
    assert api.snapshot().room["vacant"][IDLE]["reason"] == "afk"
    assert api.errors(f"c{IDLE}")[-1]["code"] == "afk_replaced"
    api.send("cp1", {"action": "sync"})
    assert [s["player"] for s in api.gw.last("cp1")["view"]["room"]["openSeats"]] == [IDLE]
    api.clock.advance(substitutes.VACANCY_SECONDS + 1)
    api.fire_due()  # the room's wake for the bot's moment (inside the window)
    assert room_seat(api, IDLE).get("bot") is True
    assert seat(api, IDLE)["alive"] is True
    assert IDLE not in (api.snapshot().room.get("vacant") or {})


def test_an_idle_seat_opened_to_a_substitute_is_taken_whole(api):
    """Someone with the link takes the idle seat: a person plays it again, not a bot."""
    api.start(
        6,
        preset="city",
        options={"afkLimit": 2, "afkReplace": "substitute", "substitutes": True, "substituteApproval": False},
    )
    until(api, lambda: IDLE in (api.snapshot().room.get("vacant") or {}))
    assert api.connect("cs") == 200
    api.send("cs", {"action": "takeSeat", "seat": IDLE, "name": "Zed", "device": "a-new-device-key-0001"})
    assert api.errors("cs") == []
    assert api.snapshot().conns["cs"] == IDLE
    assert not room_seat(api, IDLE).get("bot") and room_seat(api, IDLE)["name"] == "Zed"


def test_an_idle_seat_becomes_a_bot_when_substitutes_are_off(api):
    """afkReplace `substitute` without substitutes on: a bot takes the seat at once."""
    api.start(6, preset="city", options={"afkLimit": 2, "afkReplace": "substitute"})
    until(api, lambda: room_seat(api, IDLE).get("bot"))
    assert seat(api, IDLE)["alive"] is True and "vacant" not in api.snapshot().room


def test_the_bot_that_took_an_idle_seat_plays_its_next_required_action(api):
    """The bot is planned in at once: in the next phase that asks the seat for something, the
    bot does it (its count stays 0 and the phase records its action)."""
    api.start(6, preset="city", options={"afkLimit": 2})
    until(api, lambda: room_seat(api, IDLE).get("bot"))

    def bot_acted():
        task = (me.view(api.state(), IDLE).get("private") or {}).get("task")
        return task == "done"

    for _ in range(20):
        if bot_acted():
            break
        seq = me.phase_seq(api.state())
        act_required(api)
        # the bots act when the room's wakes are delivered: each one due before the deadline
        for _ in range(100):
            wake, deadline = api.next_wake(), me.deadline(api.state())
            if (
                bot_acted()
                or me.phase_seq(api.state()) != seq
                or None in (wake, deadline)
                or wake >= deadline
            ):
                break
            api.clock.t = max(api.clock.t, wake)
            api.fire_due()
        if bot_acted() or me.phase_seq(api.state()) != seq:
            continue
        next_phase(api)
    assert bot_acted()


def test_an_idle_host_passes_the_room_to_the_next_person(api):
    """The host's seat handed on to a bot: the room passes to the next person (a bot is never
    the host), as on a leave."""
    api.start(6, preset="city", options={"afkLimit": 2})
    until(api, lambda: room_seat(api, "p1").get("bot"), idle="p1")
    assert api.snapshot().room["host"] == "p2"
    assert seat(api, "p1")["alive"] is True


def next_phase_by_its_page(api, idle=IDLE):
    """The phase's end as an idle page makes it: its own automatic frames (a ping, a sync) and
    then its `nudge` at the deadline end the phase, the seat doing nothing the phase asks."""
    seq = me.phase_seq(api.state())
    act_required(api, idle)
    if me.phase_seq(api.state()) != seq:
        return
    api.clock.t = max(api.clock.t, me.deadline(api.state()))
    api.send(f"c{idle}", {"action": "ping"})
    api.send(f"c{idle}", {"action": "sync"})
    api.send(f"c{idle}", {"action": "nudge", "phase": seq})
    assert me.phase_seq(api.state()) != seq or api.snapshot().room["status"] != "running"


@pytest.mark.parametrize("preset", ["classic", "city", "original"])
def test_idle_means_idle_a_pages_own_nudges_pings_and_syncs_never_count_as_acting(api, preset):
    """docs/rules.md, "Public rooms", "Idle means idle": a page left open and untouched sends `nudge` at each
    phase's end (and pings, syncs); the phase it ends is still a miss for its seat, which is
    warned and then handed to a bot, in each preset."""
    api.start(SIZES[preset], preset=preset, options={"afkLimit": 2})
    for _ in range(40):
        if room_seat(api, IDLE).get("bot"):
            break
        assert api.snapshot().room["status"] == "running", "the game ended first"
        before = misses(api)
        next_phase_by_its_page(api)
        assert misses(api) >= before or room_seat(api, IDLE).get("bot")  # never reset by its own frames
    assert room_seat(api, IDLE).get("bot"), "the idle page kept its seat"
    assert api.errors(f"c{IDLE}")[-1]["code"] == "afk_replaced"


def idle_until(api, done, phases=20):
    """Nobody acts: step to each deadline and fire its timer until `done()`."""
    for _ in range(phases):
        if done():
            return
        assert api.snapshot().room["status"] == "running", "the game ended first"
        seq = me.phase_seq(api.state())
        api.clock.t = max(api.clock.t, me.deadline(api.state()))
        api.fire(seq)
    raise AssertionError("never happened")


def test_an_anonymous_game_opens_an_idle_seat_before_a_bot_takes_it_at_a_private_moment(api):
    """An anonymous game with substitutes on, `afkReplace` left at `bot`: the idle seat opens to
    substitutes first, with no end shown; the room wakes at a moment drawn for it inside the
    window (never in a view), and the bot comes with that wake's delivery, which its notice
    carries; until then a person may still take it, whatever else the room does. A bot at
    once, with no window before its notice, would be named by it."""
    options = {"anonymous": True, "afkLimit": 2, "substitutes": True, "substituteApproval": False}
    api.start(6, preset="city", options=options)
    assert api.connect("cspec") == 200
    idle_until(api, lambda: api.snapshot().room.get("vacant"))
    vacant = api.snapshot().room["vacant"]
    pid, v = sorted(vacant.items())[0]
    opened = v["until"] - substitutes.VACANCY_SECONDS
    assert v["reason"] == "afk" and opened <= v["botAt"] < v["until"]
    assert len({v["botAt"] for v in vacant.values()}) == len(vacant), "each seat's moment is its own draw"
    api.send("cspec", {"action": "sync"})
    assert {"player": pid, "seat": seat(api, pid)["seat"], "until": None} in api.gw.last("cspec")["view"][
        "room"
    ]["openSeats"]
    assert str(v["botAt"]) not in str(api.gw.to("cspec"))
    api.clock.t = v["botAt"] + 0.2
    api.send("cspec", {"action": "sync"})  # a write after the moment: still open to a person
    assert not room_seat(api, pid).get("bot")
    api.clock.t = math.ceil(v["botAt"])
    api.fire_due()  # the room's private wake for that second: delivered now
    assert room_seat(api, pid).get("bot") is True and seat(api, pid)["alive"]
    api.send("cspec", {"action": "sync"})
    notice = next(n for n in api.gw.last("cspec")["view"]["room"]["substituted"] if n["player"] == pid)
    assert notice["at"] == api.clock.t


def test_an_anonymous_game_without_substitutes_shows_no_notice_while_it_runs(api):
    """Only a bot can take a seat there, so the notice "seat N has a new player" would name a
    bot: the table reads none until the end."""
    api.start(6, preset="city", options={"anonymous": True, "afkLimit": 2})
    assert api.connect("cspec") == 200
    idle_until(api, lambda: api.snapshot().room.get("substituted"))
    api.send("cspec", {"action": "sync"})
    assert api.gw.last("cspec")["view"]["room"]["substituted"] == []


def handover_frames(api, monkeypatch, tag: str, person: bool) -> list[str]:
    """An anonymous city table of six people who all idle, watched by a spectator; a newcomer
    connects once an idle seat opens, and at the second of the room's wake for that seat's
    bot either the wake is delivered (`person` False: the bot takes it) or the newcomer takes
    it (True). The spectator's frames from the opening to a sync after the take."""
    from test_anonymous import same_draws

    same_draws(monkeypatch)
    api.clock.t = 1_800_000_000.0
    options = {"anonymous": True, "afkLimit": 2, "substitutes": True, "substituteApproval": False}
    pids = api.lobby(6, options=options)
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    spectator = f"{tag}-spectator"
    assert api.connect(spectator) == 200
    idle_until(api, lambda: api.snapshot().room.get("vacant"))
    start = len(api.gw.sent)
    pid, v = min(api.snapshot().room["vacant"].items(), key=lambda kv: kv[1]["botAt"])
    assert api.connect(f"{tag}-newcomer") == 200
    wake = math.ceil(v["botAt"])
    assert wake < me.deadline(api.state()), "the moment falls inside the phase"
    api.clock.t = wake + 0.25  # the delivery, inside its minute
    if person:
        frame = {"action": "takeSeat", "seat": pid, "name": "Zed", "device": "a-new-device-key-0001"}
        api.send(f"{tag}-newcomer", frame)
    else:
        api.fire(me.phase_seq(api.state()), wake)
    assert bool(room_seat(api, pid).get("bot")) is not person
    api.send(spectator, {"action": "sync"})
    code = api.code
    return [
        json.dumps(f, sort_keys=True).replace(code, "CODE") for c, f in api.gw.sent[start:] if c == spectator
    ]


def test_a_bot_and_a_person_taking_an_idle_seat_at_the_same_moment_send_the_same_frames(api, monkeypatch):
    """Role swap: the same anonymous table twice, its idle seat taken at the same moment once by
    its bot (the room's wake delivered) and once by a newcomer. Every frame a spectator gets,
    from the seat's opening to a sync after the take (`openSeats`, the notice, the seat's
    presence and alias, the phase), is the same bytes: only when it happens could tell them
    apart, and that is drawn (`test_an_idle_seats_notice_does_not_name_a_bot`)."""
    by_bot = handover_frames(api, monkeypatch, "a", person=False)
    by_person = handover_frames(api, monkeypatch, "b", person=True)
    assert by_bot and by_bot == by_person
