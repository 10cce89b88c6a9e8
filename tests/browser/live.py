"""Live rooms at a chosen phase for the browser tests: written by the offline stack
(``POST /_local/rooms``, local/rooms.py) instead of played there through the lobby and the
clock, then opened by a person's page with the seat's private link (web/js/session.js,
``#seat=ROOM.PLAYER.TOKEN``), as another device of that person would open it.

    room = live_room(stack, seats=[{"name": "Ann", "role": "police"}, *bots(3)],
                     options={"firstPhase": "night"}, until={"phase": "night"})
    ann = open_seat(browser, stack, room, "Ann", errors=console_errors)
"""

from __future__ import annotations

from playwright.sync_api import expect

from service.protocol.names import BOT_WORD  # the lobby's own bot names

from .ui import Player


def bots(n: int, first: int = 2, lang: str = "en") -> list[dict]:
    """`n` bot seats named as the lobby names them ("Bot 2", "Bot 3", ...)."""
    return [{"name": f"{BOT_WORD[lang]} {first + i}", "bot": True} for i in range(n)]


def live_room(stack, **spec) -> dict:
    """The room `spec` describes (local/rooms.py), written on `stack`."""
    return stack.room(spec)


def seat(room: dict, name: str) -> dict:
    return next(s for s in room["seats"] if s["name"] == name)


def seat_link(stack, room: dict, name: str) -> str:
    """The private link of `name`'s seat (what "Continue on another device" hands out)."""
    s = seat(room, name)
    code = room["roomCode"]
    return f"{stack.url}?room={code}#seat={code}.{s['playerId']}.{s['token']}&ws={room['wsUrl']}"


def open_seat(browser, stack, room: dict, name: str, *, wait: str = "#phase-banner", **player) -> Player:
    """A person's page on their seat of `room` (a fresh browser context): the page is in the
    game (`wait` visible), its own tile known (`Player.pid`)."""
    pl = Player(browser, stack.url, name, **player)
    goto_seat(pl, stack, room)
    expect(pl.page.locator(wait).first).to_be_visible(timeout=15_000)
    pl.pid = seat(room, name)["playerId"]
    return pl


def goto_seat(pl: Player, stack, room: dict) -> None:
    """`pl`'s page opens its seat's private link (the seat is then kept in this browser)."""
    pl.page.goto(seat_link(stack, room, pl.name))
