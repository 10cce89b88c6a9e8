"""A host and four guests play a classic game to the end through the web client only."""

from __future__ import annotations

from playwright.sync_api import expect

from .ui import DESKTOP, check_switch, has_class, play_classic, seat_everyone, start_and_learn_roles

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve"]


def actions_shape(pl) -> list[str]:
    """Tags and classes of the night box: what an onlooker could tell apart (host tools aside)."""
    return pl.page.evaluate(
        "() => [...document.querySelectorAll('#task-box, #task-box *')].map(e => e.tagName + '.' + e.className)"
    )


def test_five_players_play_a_classic_game_to_the_end(browser, timed_stack, console_errors, tmp_path):
    stack = timed_stack  # a moving clock: the page's countdown and nudge end the reveal and night
    players = seat_everyone(browser, stack.url, NAMES, console_errors, host_viewport=DESKTOP)
    host = players[0]
    by_role = start_and_learn_roles(players)
    assert sorted(by_role) == ["citizen", "doctor", "mafia", "police"], by_role
    mafia, doctor, police = by_role["mafia"][0], by_role["doctor"][0], by_role["police"][0]
    victim, survivor = by_role["citizen"]

    def hook(stage: str) -> None:
        if stage == "night":
            # The mafia chat tab is there for the mafioso only.
            expect(mafia.page.locator("#chat-tab-mafia")).to_be_visible()
            for pl in players:
                if pl is not mafia:
                    expect(pl.page.locator("#chat-tab-mafia")).to_have_count(0)
            mafia.say("mafia", "quiet night, right?")
            # Same night layout for every role; a citizen just waits.
            expect(survivor.page.locator("#task-text")).to_have_text("Night. Please wait.")
            expect(police.page.locator("#task-text")).to_have_text("Tonight: choose someone to investigate.")
            shapes = {pl.name: actions_shape(pl) for pl in players}
            assert len({tuple(s) for s in shapes.values()}) == 1, shapes
            # The citizen cannot write in the day chat at night.
            expect(survivor.page.locator("#chat-input")).to_be_disabled()
        elif stage == "night-chosen":
            # "Your choice" is the player's own pick.
            expect(mafia.page.locator("#task-choice")).to_have_text(f"Your choice: {victim.name}")
            expect(police.page.locator("#task-choice")).to_have_text(f"Your choice: {mafia.name}")
        elif stage == "day":
            for pl in players:
                expect(pl.page.locator(f'.tile[data-pid="{victim.pid}"]')).to_have_class(has_class("dead"))
            # The moderator's log tells the night's news in words.
            host.page.click("#chat-tab-system")
            expect(host.page.locator("#chat-log")).to_contain_text(f"{victim.name} was killed in the night.")
            # The police's finding: in the action panel, as a private line in the moderator's
            # log and as a mark on the checked tile, for the police only.
            expect(police.page.locator("#my-results")).to_contain_text(f"{mafia.name} — mafia")
            expect(police.page.locator(f'.tile[data-pid="{mafia.pid}"] .tile-check')).to_have_text(
                "checked: mafia"
            )
            police.page.click("#chat-tab-system")
            expect(police.page.locator("#chat-log .msg-private")).to_contain_text(f"{mafia.name} — mafia")
            for pl in (host, survivor, doctor, mafia):
                if pl is not police:
                    expect(pl.page.locator(".tile-check")).to_have_count(0)
                    expect(pl.page.locator("#my-results, .msg-private")).to_have_count(0)
            # The police's finding is on their role card.
            police.page.click("#my-role-btn")
            expect(police.page.locator(".role-results")).to_contain_text(mafia.name)
            police.page.locator(".overlay .btn").click()
            # A refresh restores the game in the same tab.
            survivor.page.reload()
            survivor.wait_phase("discussion")
            assert survivor.read_role() == "citizen"
            expect(survivor.page.locator(f'.tile[data-pid="{victim.pid}"]')).to_have_class(has_class("dead"))
            survivor.say("day", "I trust the police")
            for pl in players:
                pl.page.click("#chat-tab-day")  # the dead start on their own tab
                expect(pl.page.locator("#chat-log")).to_contain_text("I trust the police")
            expect(victim.page.locator("#chat-tab-dead")).to_be_visible()
            # A refused message says why (kid-safe chat blocks links).
            survivor.page.fill("#chat-input", "see http://example.com")
            survivor.page.press("#chat-input", "Enter")
            expect(survivor.page.locator("#chat-error")).to_have_text("Links are not allowed here.")
            # Unread marks follow each channel's own message numbers (ids "day:7")
            victim.page.click("#chat-tab-dead")
            expect(victim.page.locator("#chat-tab-day .unread")).to_have_count(0)
            mafia.say("day", "who did it?")
            expect(victim.page.locator("#chat-tab-day .unread")).to_have_count(1)
            victim.page.click("#chat-tab-day")
            expect(victim.page.locator("#chat-tab-day .unread")).to_have_count(0)
            expect(victim.page.locator("#chat-log")).to_contain_text("who did it?")
            # ±15 s once a day, announced to everyone.
            doctor.click("#plus15-btn")
            expect(doctor.page.locator("#plus15-btn")).to_be_disabled()
            expect(survivor.page.locator("#adjusted-by")).to_have_text(f"Time changed by: {doctor.name}")
            expect(mafia.page.locator("#chat-tab-mafia")).to_be_visible()
            for pl in (host, survivor, victim):
                assert pl.unnamed_controls() == [], pl.unnamed_controls()
            # Every visible word of the game screen follows the language picker.
            check_switch(survivor, "en", "ru")
            check_switch(survivor, "ru", "ko")
            survivor.page.select_option("#lang-select", "en")
        elif stage == "confirm":
            expect(host.page.locator(".vote-bars")).to_contain_text(mafia.name)
            expect(host.page.locator("#phase-sub")).to_contain_text(mafia.name)
        elif stage == "end":
            for pl in players:
                expect(pl.page.locator("#end-title")).to_have_text("The town wins!")
                expect(pl.page.locator("#end-roles li")).to_have_count(5)
                expect(pl.page.locator("#timeline li").first).to_be_visible()
            expect(host.page.locator(f'#end-roles li[data-pid="{mafia.pid}"] .end-role')).to_have_text(
                "Mafia"
            )
            expect(host.page.locator(f'#end-roles li[data-pid="{doctor.pid}"] .end-role')).to_have_text(
                "Doctor"
            )
            assert host.unnamed_controls() == [], host.unnamed_controls()
            # The execution is told once: the vote line carries the reveal, no second death line.
            timeline = host.page.locator("#timeline li")
            expect(
                timeline.filter(has_text=mafia.name).and_(host.page.locator('[data-kind="death"]'))
            ).to_have_count(0)
            expect(
                timeline.filter(has_text=mafia.name).and_(host.page.locator('[data-kind="confirm"]'))
            ).to_have_count(1)
            host.page.select_option("#lang-select", "ru")
            expect(host.page.locator("#end-roles")).to_contain_text("вне игры с 2-го дня")
            check_switch(host, "ru", "en")
            check_switch(host, "en", "ko")
            host.page.select_option("#lang-select", "en")
            for pl in players:
                assert pl.missing_keys() == [], pl.missing_keys()

    try:
        play_classic(players, by_role, hook)
    except BaseException:
        # Leave the evidence: every page as it looked when the test gave up.
        for pl in players:
            pl.page.screenshot(path=str(tmp_path / f"failed-{pl.name}.png"), full_page=True)
        print(f"screenshots of the pages: {tmp_path}; stack log: {stack.log_path}")
        raise
    for pl in players:
        pl.close()
