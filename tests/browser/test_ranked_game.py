"""A whole ranked game in the browser (docs/rules.md, "Ranked play"): four people sign in with
passkeys (Chromium's virtual authenticator, one browser context each), press "Play ranked" and
land in one anonymous ranked lobby, a bot fills the fifth seat, and the game is played to its end
on the manual clock. One of them leaves alive at the start and meets the cool-down when pressing
"Play ranked" again (the code, and the words saying until when); another signs in on a second
device with the same passkey and is refused a second ranked seat while the game runs; the three
who stayed see their tier move on the end screen, up for a win and down for a loss.

Ranked play opens after 3 finished casual games (a smurf costs time). The offline stack cannot
give four people 3 casual games each cheaply (twelve more whole games), so the test writes the
person record's own `casualGames` count (identity/played.py: "an operator's adjustment", counted
with the finished games) through `Store.update_person` on the stack's own table, found as the ops
tools find it (`GET /_local/env`, offline stack only; `python -m ops.persons --local`): the
server's real path from there on, nothing on the client's side bypassed."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from service.ranked import ratings as rt

from .stack import stack_store
from .test_leave_taken import T
from .test_passkeys import AUTHENTICATOR, site
from .test_presets import answer_once
from .test_public_home import ASKS_JS, IDLE_CHECKS
from .test_seats import open_seat_tools
from .ui import Player

LANG, LOCALE = "ko", "ko-KR"
NAMES = ("Ann", "Bob", "Cat", "Dee")  # Dee leaves alive at the start
PLAY_SECONDS = 240  # a wedge guard on the game's real time (a loaded machine: ~30 s idle, ~2 min under load)


def authenticator(pl: Player) -> tuple[object, str]:
    cdp = pl.page.context.new_cdp_session(pl.page)
    cdp.send("WebAuthn.enable")
    return cdp, cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})["authenticatorId"]


def close_sheet(page) -> None:
    page.keyboard.press("Escape")
    expect(page.locator("#account-sheet")).to_have_count(0)


def person_of(page) -> str:
    """The person id the page keeps after signing in (screens/account.js `keep`)."""
    return page.evaluate("() => JSON.parse(localStorage.getItem('mafia.signIn')).person")


def play_ranked(pl: Player) -> dict:
    """Press "Play ranked"; the REST answer (status and body) the page got."""
    page = pl.page
    page.fill("#play-name", pl.name)
    with page.expect_response(lambda r: r.url.endswith("/quickplay") and r.request.method == "POST") as got:
        page.click("#ranked-btn")
    res = got.value
    return {"status": res.status, **res.json()}


def refusal_logged(pl: Player, errors: list[str], status: str) -> None:
    """The console line Chromium writes for a refused request (the refusal this test asks for:
    not a page error); taken off the list of console errors, which must stay empty."""
    line = f"{pl.name}: Failed to load resource: the server responded with a status of {status}"
    for _ in range(100):
        if line in errors:
            errors.remove(line)
            return
        pl.page.wait_for_timeout(100)
    raise AssertionError(f"no console line {line!r}: {errors}")


@pytest.mark.whole_game
def test_four_people_play_a_ranked_game_to_its_end_a_leaver_waits_and_a_second_seat_is_refused(
    stack, browser, console_errors
):
    started = time.monotonic()
    store = stack_store(stack.url)
    everyone = [Player(browser, site(stack), name, locale=LOCALE, errors=console_errors) for name in NAMES]
    players = list(everyone)
    try:
        cdps = []
        for pl in players:  # each signs up with a passkey of their own, on their own device
            cdps.append(authenticator(pl))
            pl.open()
            pl.page.click("#account-btn")
            pl.page.click("#account-create")
            expect(pl.page.locator("#account-status")).to_be_visible(timeout=20_000)
            pl.pid = person_of(pl.page)
            assert store.update_person(pl.pid, {"casualGames": rt.RANKED_AFTER_CASUAL})
            close_sheet(pl.page)
            expect(pl.page.locator("#ranked-btn")).to_be_visible()
        codes = []
        for n, pl in enumerate(players):
            answer = play_ranked(pl)
            assert answer["status"] == 201, answer
            expect(pl.page.locator(".lobby-player")).to_have_count(n + 1, timeout=20_000)
            codes.append(answer["roomCode"])
        assert len(set(codes)) == 1, codes  # one lobby: similar ratings (all newcomers), one table
        code = codes[0]
        host = players[0].page  # the lobby's maker hosts it: a bot for the fifth seat, then start
        expect(host.locator("#ranked-band")).to_be_visible()
        host.click("#add-bot-btn")
        expect(host.locator(".lobby-player")).to_have_count(5)
        for pl in players[1:]:
            pl.page.click("#ready-btn")
            expect(pl.page.locator("#ready-btn")).to_have_attribute("aria-pressed", "true")
        host.click("#start-btn")
        for pl in players:
            expect(pl.page.locator("#phase-banner")).to_be_visible(timeout=30_000)

        # Dee leaves alive at once: her seat is not handed on (a ranked seat is nobody's over a
        # socket), so the leave costs her a loss and the first step of the cool-down
        dee = players[3]
        open_seat_tools(dee)
        dee.page.click("#leave-game-btn")
        dee.page.click("#leave-confirm")
        expect(dee.page.locator("#ranked-btn")).to_be_visible(timeout=20_000)
        refused = play_ranked(dee)
        assert refused["status"] == 429 and refused["error"]["code"] == "ranked_cooldown", refused
        assert "UTC" in refused["error"]["message"] and 0 < refused["error"]["retryAfter"] <= rt.COOLDOWN_STEPS[0] + 1
        refusal_logged(dee, console_errors, "429 (Too Many Requests)")
        error = dee.page.locator("#ranked-error")
        expect(error).to_contain_text(re.compile(r"\d{1,2}:\d{2}"))  # until when, on the page
        words = dee.page.evaluate(T, ["ranked.cooldown", {"time": "@"}]).split("@")[0]
        expect(error).to_contain_text(words)
        players = players[:3]

        # Ann's second device: her passkey (synced, as a platform's are) signs her in there, and
        # "Play ranked" is refused while her seat of the running game holds her
        cred = cdps[0][0].send("WebAuthn.getCredentials", {"authenticatorId": cdps[0][1]})["credentials"][0]
        second = Player(browser, site(stack), "Ann", locale=LOCALE, errors=console_errors)
        everyone.append(second)
        cdp2, auth2 = authenticator(second)
        cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": cred})
        second.open()
        second.page.click("#account-btn")
        second.page.click("#account-signin")
        expect(second.page.locator("#account-status")).to_be_visible(timeout=20_000)
        assert person_of(second.page) == players[0].pid
        close_sheet(second.page)
        twice = play_ranked(second)
        assert twice["status"] == 409 and twice["error"]["code"] == "ranked_seated", twice
        said = second.page.evaluate(T, ["err.ranked_seated", {}])
        expect(second.page.locator("#ranked-error")).to_have_text(said)  # in words, the page's language
        refusal_logged(second, console_errors, "409 (Conflict)")
        # ...and a second socket of hers, watching the game, cannot take Dee's open seat: a socket
        # names no person, so a ranked game's seat is never taken over one (the seat stays open)
        second.page.goto(f"{site(stack)}?room={code}")
        second.watch()
        seat = second.page.locator("#sub-seats button")
        expect(seat).to_have_count(1, timeout=20_000)
        second.page.fill("#sub-name", "Ann")
        seat.click()
        refused_seat = second.page.evaluate(T, ["err.sign_in_required", {}])
        expect(second.page.locator("#toast")).to_have_text(refused_seat, timeout=15_000)
        expect(second.page.locator(".tile.me")).to_have_count(0)
        expect(seat).to_have_count(1)  # still open: nobody took it
        assert second.missing_keys() == []

        # the game, to its end: each page does what it asks; when none has anything to do, game
        # time steps to the next Scheduler delivery (this room's bots and deadlines, or others')
        idle = 0
        deadline = time.monotonic() + PLAY_SECONDS
        while True:
            asks = [pl.page.evaluate(ASKS_JS) for pl in players]
            if all(a == "end" for a in asks):
                break
            assert time.monotonic() < deadline, f"no end screen in {PLAY_SECONDS} s: {asks}"
            acted = False
            for pl, ask in zip(players, asks, strict=True):
                if ask == "act" and answer_once(pl) is not None:
                    acted = True
            if acted:
                idle = 0
                continue
            idle += 1
            if idle < IDLE_CHECKS:
                players[0].page.wait_for_timeout(100)
                continue
            idle = 0
            stack.step_on()

        # each who stayed sees their move: up for a win, down for a loss (placement: 1 of 5 played)
        for pl in players:
            move = pl.page.locator("#ranked-move")
            expect(move).to_be_visible(timeout=20_000)
            delta = int(move.get_attribute("data-delta"))
            assert move.get_attribute("data-tier") == "placement"
            mine = pl.page.locator(".pname", has_text=re.compile(rf" · {pl.name}$"))
            won = pl.page.locator("#end-roles .end-player").filter(has=mine)
            expect(won).to_have_count(1)
            assert (delta > 0) == ("won" in (won.get_attribute("class") or "")), (pl.name, delta)
            assert pl.missing_keys() == []
        print(f"ranked game {code}: {time.monotonic() - started:.1f} s in the browser")
    finally:
        for pl in everyone:
            pl.close()
