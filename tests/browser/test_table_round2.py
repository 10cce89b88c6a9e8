"""What a table hit in its first games, round two, done again as the players did it.

Two kinds of test. Where a screen needs a whole game first (a second tie, the yakuza's chat,
a defense with several suspects, the city's revote), the engine plays a scripted game and
the real client modules draw that seat's real view (the room layer's names merged in), as
`review_shots.py` does; where the path between screens matters (the greeting, Create and
Start, the end, a new game, long names), a person plays against the offline stack."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .scripted import UPDATE, Scripted, draw, name, page_in
from .ui import MOBILE, Link, Player, end_phase, foreign_words, has_class, open_fold, screen_keys

SMALL = {"width": 320, "height": 640}


# ---------------------------------------------------------------- scripted games, drawn
CITY_SIX = ["mafia", "police", "doctor", "citizen", "citizen", "citizen"]


def city_second_tie() -> Scripted:
    """City, day 1: p4 and p5 tie, both defend, tie again: nobody leaves, night 2 falls."""
    g = Scripted("city", CITY_SIX)
    g.until("night")
    for pid in g.living():
        g.act("sleep", pid)
    g.until("discussion")
    g.timeout()
    assert g.kind == "vote"
    for voter, target in (("p1", "p4"), ("p2", "p4"), ("p3", "p5"), ("p4", "p5")):
        g.act("vote", voter, target=target)
    g.timeout()
    assert g.kind == "defense", g.kind
    g.timeout()
    assert g.kind == "vote" and g.s["phase"]["round"] == 2
    return g


@pytest.mark.parametrize("lang", ["ru", "ko", "en"])
def test_a_second_tie_says_nobody_leaves(browser, stack, console_errors, lang):
    g = city_second_tie()
    for voter, target in (("p1", "p4"), ("p2", "p4"), ("p3", "p5"), ("p6", "p5")):
        g.act("vote", voter, target=target)
    g.timeout()
    assert g.kind == "night" and all(p["alive"] for p in g.s["players"])  # nobody left: the rule
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", g.view("p6"))
    pl.page.click("#chat-tab-system")
    lines = pl.page.locator('#chat-log li[data-kind="voteResult"] .msg-text')
    expect(lines).to_have_count(2)
    first, second = lines.all_inner_texts()
    again = {"ru": "Снова ничья", "ko": "다시 동률", "en": "Another tie"}[lang]
    nobody = {"ru": "никто не выбывает", "ko": "아무도 떠나지 않습니다", "en": "nobody leaves"}[lang]
    assert again not in first and again in second and nobody in second, (first, second)
    assert {"ru": "голосует снова", "ko": "다시 투표", "en": "votes again"}[lang] not in second
    assert foreign_words(pl.page, lang) == set()
    assert pl.missing_keys() == []
    pl.close()


@pytest.mark.parametrize("lang", ["ru", "ko", "en"])
def test_city_revote_labels_the_first_rounds_bars_as_closed(browser, stack, console_errors, lang):
    g = city_second_tie()
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", g.view("p6"))  # p6: not a candidate, votes in round 2
    votes = pl.page.locator("#actions .votes")
    expect(votes).to_have_attribute("data-round", "past")
    expect(votes.locator("h3")).to_have_text({"ru": "Первый тур (закрыт)", "ko": "1차 투표 (마감)", "en": "First round (closed)"}[lang])
    # no live-looking tally on the tiles from the closed round
    expect(pl.page.locator(".tile-votes")).to_have_count(0)
    expect(pl.page.locator(".tile.selectable")).to_have_count(2)  # the two candidates
    assert foreign_words(pl.page, lang) == set()
    pl.close()


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_city_discussion_counts_who_is_ready_to_vote(browser, stack, console_errors, lang):
    g = Scripted("city", CITY_SIX)
    g.until("night")
    for pid in g.living():
        g.act("sleep", pid)
    g.until("discussion")
    g.act("readyEarly", "p2")
    g.act("readyEarly", "p3")
    g.act("readyEarly", "p6")
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", g.view("p1"))
    text = {"ru": "Готовы к голосованию: 3 из 6", "en": "3 of 6 ready to vote"}[lang]
    expect(pl.page.locator("#ready-count")).to_have_text(text)
    pl.close()


EXPANSION_14 = [
    "yakuza", "ninja", "mafia", "godfather", "police", "sheriff", "immortal", "doctor",
    "citizen", "citizen", "citizen", "citizen", "citizen", "citizen",
]


@pytest.mark.parametrize("lang", ["ru", "ko", "en"])
def test_the_yakuza_and_the_ninja_see_their_chat_tab_named(browser, stack, console_errors, lang):
    g = Scripted("original", EXPANSION_14, expansion=True)
    g.until("night")
    pl = page_in(browser, stack, lang, console_errors)
    for pid in ("p1", "p2"):  # the yakuza, the ninja
        view = g.view(pid)
        assert "yakuza" in view["channels"]["read"]
        draw(pl.page, "game", view)
        expect(pl.page.locator("#chat-tab-yakuza")).to_have_text({"ru": "Якудза", "ko": "야쿠자", "en": "Yakuza"}[lang])
        assert screen_keys(pl.page) == set()
        assert foreign_words(pl.page, lang) == set()
    assert pl.missing_keys() == []
    pl.close()


ORIGINAL_EIGHT = ["mafia", "godfather", "police", "citizen", "citizen", "citizen", "citizen", "citizen"]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_original_defense_says_whose_turn_it_is_and_what_the_others_may_do(browser, stack, console_errors, lang):
    g = Scripted("original", ORIGINAL_EIGHT, expansion=True)
    g.until("speech")
    while g.kind == "speech":  # day 1: no trial
        g.act("endTurn", g.s["phase"]["speaker"])
    g.until("night")
    for pid in g.living():
        if g.kind == "night" and pid not in g.s["phase"]["done"]:
            g.act("sleep", pid)
    g.until("speech")
    noms = {"p4": "p6", "p5": "p7"}
    while g.kind == "speech":
        sp = g.s["phase"]["speaker"]
        g.act("nominate", sp, target=noms.get(sp))
    assert g.kind == "defense" and g.s["phase"]["accused"] == "p6" and g.s["phase"]["suspects"] == ["p6", "p7"]
    words = {
        "ru": ("Ваша очередь", f"Сейчас защищается {name('p6')}. Вы тоже", f"Сейчас защищается {name('p6')}. Писать"),
        "en": ("Your turn", f"{name('p6')} is defending now. You are on trial too", f"{name('p6')} is defending now. Only"),
    }[lang]
    pl = page_in(browser, stack, lang, console_errors)
    for viewer, expected in zip(("p6", "p7", "p3"), words, strict=True):
        draw(pl.page, "game", g.view(viewer))
        hint = pl.page.locator("#phase-hint")
        expect(hint).to_contain_text(expected)
        # the waiting suspect is not told to defend now
        assert "Defend yourself in the chat" not in hint.inner_text() or viewer == "p6"
        assert "Вас обвиняют" not in hint.inner_text()
    expect(pl.page.locator('.tile[data-pid="p6"]')).to_have_class(has_class("accused"))
    pl.close()


@pytest.mark.parametrize("lang", ["ru", "ko"])
def test_pause_resume_and_removal_at_night_read_night(browser, stack, console_errors, lang):
    g = Scripted("city", CITY_SIX)
    g.until("night")
    g.act("pause", "p1")
    g.act("resume", "p1")
    g.act("remove", "p6")
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", g.view("p2"))
    pl.page.click("#chat-tab-system")
    night = {"ru": "Ночь 1", "ko": "1일차 밤"}[lang]
    for kind in ("paused", "resumed", "death"):
        expect(pl.page.locator(f'#chat-log li[data-kind="{kind}"] .msg-from')).to_have_text(night)
    removed = pl.page.locator('#chat-log li[data-kind="death"] .msg-text').inner_text()
    if lang == "ru":  # the host removes a player: the organiser, as the removed player reads it
        assert removed.startswith("Организатор") and "Ведущий" not in removed
    words = pl.page.evaluate(
        """async () => { const m = await __import('./js/i18n.js'); return [m.t('review.day', {n: 2}), m.t('banner.day', {n: 2})]; }"""
    )
    if lang == "ko":  # the review names a day as the game screen does
        assert words[0] == words[1] == "2일차 낮"
    pl.close()


def test_the_vote_brings_the_tiles_into_view_on_a_small_phone(browser, stack, console_errors):
    """At 320x640 the player reads the chat at the bottom when the vote starts: the tiles to
    vote on come into view, below the sticky banner."""
    g = Scripted("city", CITY_SIX)
    g.until("night")
    for pid in g.living():
        g.act("sleep", pid)
    g.until("discussion")
    for i in range(12):
        g.act("chat", g.living()[i % 6], channel="day", text=f"line {i}: who is it, then?")
    pl = page_in(browser, stack, "en", console_errors, viewport=SMALL)
    page = pl.page
    draw(page, "game", g.view("p4"))
    page.locator("#chat-input").scroll_into_view_if_needed()
    assert page.evaluate("window.scrollY") > 200
    g.timeout()
    assert g.kind == "vote"
    page.evaluate(UPDATE, g.view("p4"))
    box = page.evaluate(
        """() => { const b = document.querySelector('#phase-banner').getBoundingClientRect();
                   const t = document.querySelector('.tile.selectable').getBoundingClientRect();
                   return {banner: b.bottom, top: t.top, bottom: t.bottom, h: innerHeight}; }"""
    )
    assert box["top"] >= box["banner"] - 1 and box["bottom"] <= box["h"], box
    pl.close()


def test_the_action_panel_keeps_its_nodes_when_the_next_view_comes(browser, stack, console_errors):
    """The same panel drawn again keeps its nodes (web/js/dom.js patchChildren): the focused
    button is the same element and keeps the focus, the scroll stays put, the words that changed
    are written and nothing else is; the kept button answers with the new view's listener."""
    g = Scripted("city", CITY_SIX)
    g.until("night")
    for pid in g.living():
        g.act("sleep", pid)
    g.until("discussion")
    for i in range(12):
        g.act("chat", g.living()[i % 6], channel="day", text=f"line {i}: who is it, then?")
    pl = page_in(browser, stack, "en", console_errors, viewport=SMALL)
    page = pl.page
    draw(page, "game", g.view("p1"))
    page.focus("#ready-early-btn")
    page.evaluate("window.scrollBy(0, 120); window.__kept = document.activeElement")
    scrolled = page.evaluate("window.scrollY")
    assert scrolled > 0
    expect(page.locator("#ready-count")).to_have_text("0 of 6 ready to vote")

    g.act("readyEarly", "p2")
    page.evaluate(UPDATE, g.view("p1"))
    expect(page.locator("#ready-count")).to_have_text("1 of 6 ready to vote")
    kept = page.evaluate(
        """() => { const b = document.querySelector('#ready-early-btn');
                   return {same: b === window.__kept, focused: document.activeElement === b}; }"""
    )
    assert kept == {"same": True, "focused": True}
    assert page.evaluate("window.scrollY") == scrolled

    # The same view again writes nothing into the panel.
    writes = page.evaluate(
        """(view) => { const o = new MutationObserver(() => {});
                       o.observe(document.querySelector('#actions'), {subtree: true, childList: true, attributes: true, characterData: true});
                       window.__screen.update(view);
                       const n = o.takeRecords().length; o.disconnect(); return n; }""",
        g.view("p1"),
    )
    assert writes == 0

    # The kept button runs the listener of the view it was drawn with last.
    page.click("#ready-early-btn")
    page.evaluate(UPDATE, g.view("p1"))
    expect(page.locator("#ready-early-btn")).to_be_disabled()
    assert page.evaluate("document.querySelector('#ready-early-btn') === window.__kept")
    assert pl.missing_keys() == []
    pl.close()


def test_single_device_defense_lists_and_buttons_follow_one_order(browser, stack, console_errors):
    """Korean, one phone: the defense screen names the suspects in one order and its buttons
    come in the same order (they came in seat order)."""
    pl = page_in(browser, stack, "ko", console_errors)
    page = pl.page
    order = page.evaluate(
        """async () => {
          const s = await __import('./js/device/screens.js');
          const view = {players: [{id: 'p1', name: '도윤'}, {id: 'p2', name: '서연'}], phase: {kind: 'defense', suspects: ['p2', 'p1']}};
          const el = s.defense(view, ['p1', 'p2'], {onFinished() {}});
          return [el.querySelector('p').textContent, [...el.querySelectorAll('.device-finished')].map((b) => b.dataset.pid)];
        }"""
    )
    assert order == ["서연, 도윤", ["p2", "p1"]], order
    # The chosen name is filled like a chosen tile (not a thin ring); the narrator toggle,
    # which is no choice, gets no ring once tapped.
    looks = page.evaluate(
        """() => {
          const box = Object.assign(document.createElement('div'), {className: 'device-options'});
          const pick = Object.assign(document.createElement('button'), {className: 'btn device-option', textContent: '서연'});
          const other = Object.assign(document.createElement('button'), {className: 'btn device-option', textContent: '도윤'});
          const voice = Object.assign(document.createElement('button'), {className: 'btn btn-small btn-quiet', textContent: 'x'});
          pick.setAttribute('aria-pressed', 'true'); other.setAttribute('aria-pressed', 'false');
          voice.setAttribute('aria-pressed', 'true');
          box.append(pick, other, voice); document.querySelector('#main').append(box);
          const probe = Object.assign(document.createElement('span'), {style: 'color: var(--select)'});
          box.append(probe);
          const cs = (e) => getComputedStyle(e);
          const out = {pick: cs(pick).backgroundColor, other: cs(other).backgroundColor, select: cs(probe).color,
                       voiceOutline: cs(voice).outlineStyle};
          box.remove();
          return out;
        }"""
    )
    assert looks["pick"] == looks["select"] != looks["other"], looks
    assert looks["voiceOutline"] == "none", looks
    pl.close()


# ---------------------------------------------------------------- against the offline stack
def add_bots(pl: Player, n: int) -> None:
    seats = pl.page.locator(".lobby-player")
    for _ in range(n):
        before = seats.count()
        pl.page.click("#add-bot-btn")
        expect(seats).to_have_count(before + 1)


def test_classic_greeting_offers_no_end_discussion_and_focus_follows_the_new_screen(browser, stack, console_errors):
    """The default classic game, in Korean: the greeting has no "end discussion" button (the
    server would refuse it), and after Create and Start the keyboard focus is on the new
    screen's heading; the options fold away so Tab goes from Start to the share link."""
    host = Player(browser, stack.url, "민준", locale="ko-KR", errors=console_errors)
    page = host.page
    link = Link(page)  # the test nudges as the page would, so the reveal ends at its deadline
    host.create({"roleRevealSeconds": "30"})
    expect(page.locator("#main h1")).to_be_focused()
    add_bots(host, 3)
    # folded options: none of their controls is on the Tab path from "Add a bot" onwards
    expect(page.locator("#lobby-options")).not_to_have_attribute("open", "")
    expect(page.locator("[id^=lobby-opt-]:visible")).to_have_count(0)
    page.locator("#add-bot-btn").focus()
    presses = 0
    while page.evaluate("!!document.activeElement.closest('#main')"):
        page.keyboard.press("Tab")
        presses += 1
        assert presses < 12, "Tab from 'Add a bot' passes through every option"
    page.click("#start-btn")
    host.wait_phase("roleReveal", timeout=15_000)
    expect(page.locator("#phase-title")).to_be_focused()
    # a bot's tile reads "4 · 봇 4": its name carries its seat number
    bots = page.evaluate(
        "[...document.querySelectorAll('.tile')].filter((t) => t.textContent.includes('봇'))"
        ".map((t) => [t.querySelector('.tile-seat').textContent, t.querySelector('.tile-name').textContent])"
    )
    assert bots == [["2", "봇 2"], ["3", "봇 3"], ["4", "봇 4"]], bots
    page.click("#reveal-role-btn")
    for _ in range(120):  # the bots' cards stay unread: the reveal ends at its deadline
        if host.phase() != "roleReveal":
            break
        link.advance(stack)
    host.wait_phase("greeting", timeout=30_000)
    expect(page.locator("#ready-early-btn")).to_have_count(0)
    expect(page.locator("#phase-hint-more")).to_have_text("인사 시간은 시간이 다 되면 저절로 끝납니다.")
    assert foreign_words(page, "ko") == set()
    host.close()


def test_end_screen_starts_at_its_top_and_host_cards_stay_on_the_game_screen(browser, stack, console_errors):
    host = Player(browser, stack.url, "Анна", locale="ru-RU", errors=console_errors)
    page = host.page
    host.create({"firstPhase": "night", "nightSeconds": "180"})
    link = page.locator("#share-link").input_value()
    guest = Player(browser, stack.url, "Борис", locale="ru-RU", errors=console_errors)
    guest.join(link)
    guest.ready()
    add_bots(host, 2)
    page.click("#start-btn")
    host.wait_phase("roleReveal")
    end_phase(stack, host, "roleReveal")
    host.wait_phase("night")
    page.locator("#host-tools summary").click()
    page.click("#pause-btn")
    expect(page.locator(".event-card")).to_have_count(1)
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("window.scrollY") > 100
    page.click("#end-game-btn")
    page.click("#end-game-btn")
    expect(page.locator("#end-title")).to_be_visible(timeout=15_000)
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate("document.querySelector('#end-title').getBoundingClientRect().top") < 844
    expect(page.locator(".event-card")).to_have_count(0)
    page.wait_for_timeout(4000)  # the cards' queue would have drawn its next card by now
    expect(page.locator(".event-card")).to_have_count(0)
    expect(guest.page.locator("#end-title")).to_be_visible(timeout=15_000)
    page.click("#new-game-btn")
    expect(guest.page.locator("#share-link")).to_be_visible(timeout=15_000)
    expect(guest.page.locator(".event-card")).to_have_count(0)
    expect(page.locator(".event-card")).to_have_count(0)
    guest.close()
    host.close()


def test_lobby_says_when_the_expansion_changes_no_role(browser, stack, console_errors):
    """English original with the expansion: at 8 seats the host reads that it deals the base
    set; a ninth seat (the madman comes in) takes the note away."""
    host = Player(browser, stack.url, "Ann", errors=console_errors)
    page = host.page
    host.open()
    page.fill("#create-name", "Ann")
    page.select_option("#create-preset", "original")
    open_fold(page, ".home-details", "#home-opt-expansion")
    page.check("#home-opt-expansion")
    page.click("#create-btn")
    expect(page.locator(".lobby-player")).to_have_count(1, timeout=15_000)
    add_bots(host, 6)
    expect(page.locator(".idle-option")).to_have_count(0)  # 7 seats: too few to say
    add_bots(host, 1)
    note = page.locator('.idle-option[data-option="expansion"]')
    expect(note).to_have_text("With 8 players, “Expansion characters” deals the same roles as without it.")
    add_bots(host, 1)
    expect(note).to_have_count(0)
    host.close()


LONG = "대한민국서울특별시강남구역삼동의마피아왕"  # 20 letters, no space: the longest name


def sideways(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def test_a_twenty_letter_name_wraps_on_cards_tiles_and_the_timeline(browser, stack, console_errors):
    assert len(LONG) == 20
    host = Player(browser, stack.url, "민준", locale="ko-KR", errors=console_errors)
    page = host.page
    host.create({"firstPhase": "night", "nightSeconds": "180"})
    link = page.locator("#share-link").input_value()
    guest = Player(browser, stack.url, LONG, locale="ko-KR", errors=console_errors)
    guest.join(link)
    guest.ready()
    # 7 seats deal 2 mafiosi (docs/rulebooks/000-classic.txt §4): removing the guest, whatever
    # their role, never ends the game, so the removal card is shown on the game screen
    add_bots(host, 5)
    page.click("#start-btn")
    host.wait_phase("roleReveal")
    end_phase(stack, host, "roleReveal")
    host.wait_phase("night")
    for viewport in (MOBILE, SMALL):
        page.set_viewport_size(viewport)
        tile = page.locator(".tile-name", has_text=LONG)
        expect(tile).to_have_count(1)
        assert sideways(page) == 0, viewport
        # the whole name is on the tile: nothing clipped
        assert tile.evaluate("e => e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1"), viewport
    page.locator("#host-tools summary").click()
    pid = guest.my_pid()
    page.click(f'[data-key="remove-{pid}"]')
    page.click(f'[data-key="remove-{pid}"]')
    card = page.locator(".event-card")
    expect(card).to_contain_text(LONG[:10])
    for viewport in (SMALL, MOBILE):  # quick: the card closes by itself after a few seconds
        page.set_viewport_size(viewport)
        assert sideways(page) == 0, viewport
        close = card.locator("button").bounding_box()
        assert close and close["x"] + close["width"] <= viewport["width"], (viewport, close)
    page.set_viewport_size(MOBILE)
    page.click("#end-game-btn")
    page.click("#end-game-btn")
    expect(page.locator("#timeline")).to_contain_text(LONG[:10], timeout=15_000)
    for viewport in (MOBILE, SMALL):
        page.set_viewport_size(viewport)
        assert sideways(page) == 0, viewport
    guest.close()
    host.close()


def test_screen_keys_catches_a_key_on_screen(browser, stack, console_errors):
    """The suite's key check reads what it must: a raw key drawn on the page is found."""
    pl = page_in(browser, stack, "en", console_errors)
    pl.page.evaluate("document.querySelector('#main').append(Object.assign(document.createElement('p'), {id: 'probe', textContent: 'chat.channel.yakuza'}))")
    assert any("chat.channel.yakuza" in k for k in screen_keys(pl.page))
    assert any(re.search("chat.channel.yakuza", k) for k in foreign_words(pl.page, "en"))
    pl.page.evaluate("document.querySelector('#probe').remove()")
    pl.close()
