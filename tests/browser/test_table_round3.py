"""A real table, round three, each item in the language it was found in, from a
scripted state: the engine plays a game with chosen roles (tests/browser/scripted.py `Scripted`) and
the real client modules draw one seat's view. The Join and the substitute's landing need the
server's answers, so they are played on the offline stack (tests/browser/test_substitutes.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from mafia_engine import fairness

from .scripted import UPDATE, Scripted, draw, name, page_in
from .ui import foreign_words, screen_keys

CLASSIC_SIX = ["mafia", "mafia", "police", "doctor", "citizen", "citizen"]


def classic_parity_by_vote() -> Scripted:
    """Classic, 2 mafia of 6: night 1 kills p5, day 1 executes p6: 2 mafia against 2 others
    alive, the mafia win at once after the vote (docs/rulebooks/000-classic.txt §6's own example)."""
    g = Scripted("classic", CLASSIC_SIX)
    g.until("night")
    g.act("mafiaTarget", "p1", target="p5")
    g.act("mafiaTarget", "p2", target="p5")
    g.act("investigate", "p3", target="p4")
    g.act("heal", "p4", target="p3")
    g.until("vote")
    for voter in ("p1", "p2", "p3", "p4"):
        g.act("vote", voter, target="p6")
    g.until("confirm")
    for pid in g.living():
        if pid != "p6":
            g.act("confirm", pid, choice="yes")
    g.until("ended")
    assert g.s["result"]["winner"] == "mafia" and g.s["result"]["cause"] == "vote"
    return g


# ---------------------------------------------------------------- item 4: goals and the cause
GOALS = {
    # (preset, roles, viewer): the rulebook's words the card must carry, per language
    ("classic", "p1"): {
        "ko": "살아 있는 마피아 수가 살아 있는 비마피아 수 이상이 되면 마피아 팀이 승리합니다.",
        "ru": "Мафия побеждает, когда живых мафиози не меньше, чем живых остальных.",
        "en": "The mafia wins when the living mafia are as many as the living others, or more.",
    },
    ("classic", "p5"): {
        "ko": "살아 있는 마피아가 0명이 되면 시민 팀이 승리합니다.",
        "ru": "Мирные побеждают, когда живых мафиози не осталось.",
        "en": "The town wins when no mafia is left alive.",
    },
}


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_every_role_card_states_its_sides_goal(browser, stack, console_errors, lang):
    g = Scripted("classic", CLASSIC_SIX)
    assert g.kind == "roleReveal"
    pl = page_in(browser, stack, lang, console_errors)
    for (_, viewer), words in GOALS.items():
        view = g.view(viewer)
        draw(pl.page, "game", view)
        pl.page.click("#reveal-role-btn")
        pl.page.evaluate(UPDATE, view)  # the app redraws after the tap
        expect(pl.page.locator("#role-goal")).to_contain_text(words[lang])
        pl.page.evaluate("() => __import('./js/game/phases.js').then((m) => m.resetPhaseMemory())")
    assert foreign_words(pl.page, lang) == set()
    assert pl.missing_keys() == []
    pl.close()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_original_madman_card_says_he_wins_alone(browser, stack, console_errors, lang):
    roles = ["mafia", "godfather", "police", "madman", "citizen", "citizen", "citizen", "citizen", "citizen"]
    g = Scripted("original", roles, expansion=True)
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", g.view("p4"))
    pl.page.evaluate("(v) => __import('./js/game/overlays.js').then((m) => m.showRoleCard(v))", g.view("p4"))
    words = {
        "ko": "오직 마지막 1명으로 살아남아야 승리합니다",
        "en": "you win only by surviving as the last one alive",
    }
    expect(pl.page.locator(".overlay #role-goal")).to_contain_text(words[lang])
    pl.close()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_end_names_the_winning_side_and_the_cause(browser, stack, console_errors, lang):
    """ "The mafia wins!" with two citizens alive: the end now says it was parity, after the vote."""
    g = classic_parity_by_vote()
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "end", g.view("p3"))
    expect(pl.page.locator("#end-title")).to_have_text(
        {"ko": "마피아 팀 승리!", "ru": "Победила мафия!", "en": "The mafia wins!"}[lang]
    )
    cause = {
        "ko": "투표 후 동수: 살아 있는 마피아 2명, 나머지 2명.",
        "ru": "Равенство после голосования: живы мафиози — 2, остальные — 2.",
        "en": "Parity after the vote: alive are 2 mafia and 2 of the rest.",
    }[lang]
    expect(pl.page.locator("#end-cause")).to_have_text(cause)
    assert foreign_words(pl.page, lang) == set()
    assert screen_keys(pl.page) == set()
    pl.close()


@pytest.mark.parametrize("lang", ["en", "ru", "ko"])
def test_a_host_ended_game_loses_nobody_and_credits_the_replaced_player(browser, stack, console_errors, lang):
    """ "Nobody wins: the host ended the game" with every row "lost": now no row says lost, the
    cause is the host, and a substitute's seat names who played it first (item 3)."""
    g = Scripted("city", ["mafia", "police", "doctor", "citizen", "citizen", "citizen"], substitutes=True)
    g.until("night")
    g.act("endGame", "p1")
    view = g.view("p2")
    view["room"]["substituted"] = [{"seat": 3, "player": "p3", "at": 1.0, "was": "Zed"}]
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "end", view)
    expect(pl.page.locator("#end-cause")).to_have_text(
        {
            "ko": "어느 팀도 이기기 전에 방장이 게임을 끝냈습니다.",
            "ru": "Организатор завершил партию раньше, чем победила какая-либо сторона.",
            "en": "The host ended the game before any side had won.",
        }[lang]
    )
    fates = pl.page.locator(".end-fate").all_inner_texts()
    lost = {"ko": "패배", "ru": "поражение", "en": "lost"}[lang]
    assert fates and not any(lost in f for f in fates), fates
    assert all({"ko": "승자 없음", "ru": "без победителя", "en": "no winner"}[lang] in f for f in fates), (
        fates
    )
    credit = {"ko": "처음 플레이어: Zed", "ru": "до замены — Zed", "en": "played first by Zed"}[lang]
    expect(pl.page.locator('.end-player[data-pid="p3"] .end-subbed')).to_have_text(credit)
    expect(pl.page.locator('.end-player[data-pid="p3"] .pname')).to_have_text(name("p3"))
    pl.close()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_rules_sheet_says_how_each_side_wins(browser, stack, console_errors, lang):
    pl = page_in(browser, stack, lang, console_errors)
    for preset, roles, words in (
        (
            "city",
            CLASSIC_SIX,
            {
                "ko": "30번째 밤",
                "ru": "Город побеждает, когда не осталось живой мафии.",
                "en": "or 30 nights: a draw",
            },
        ),
        ("classic", CLASSIC_SIX, {"ko": "무승부는 없습니다", "ru": "Ничьей нет", "en": "There is no draw"}),
    ):
        g = Scripted(preset, roles)
        view = g.view("p5")
        draw(pl.page, "game", view)
        pl.page.evaluate("(v) => __import('./js/game/rules.js').then((m) => m.showRules(v))", view)
        sides = pl.page.locator("#rules-sides li")
        expect(sides).to_have_count(4)  # town, mafia, the draw rule, the host's end
        expect(pl.page.locator("#rules-sides")).to_contain_text(words[lang])
        pl.page.click("#rules-close")
    assert foreign_words(pl.page, lang) == set()
    pl.close()


# ---------------------------------------------------------------- item 1: the leave dialog
@pytest.mark.parametrize("lang", ["ru", "ko", "en"])
def test_the_leave_dialog_with_substitutes_says_the_seat_stays_open(browser, stack, console_errors, lang):
    """Found in classic and city, in Russian: it said the character is eliminated at once, but
    the seat stays open a minute for a substitute."""
    pl = page_in(browser, stack, lang, console_errors)
    for preset in ("city", "classic"):
        g = Scripted(preset, CLASSIC_SIX, substitutes=True)
        g.until("night")
        draw(pl.page, "game", g.view("p5"), seated=True)
        pl.page.evaluate("() => { document.querySelector('#seat-tools').open = true; }")
        pl.page.click("#leave-game-btn")
        what = pl.page.locator("#leave-what")
        expect(what).to_contain_text(
            {"ru": "место будет свободно минуту", "ko": "1분 동안 비어", "en": "stays open for a minute"}[
                lang
            ]
        )
        expect(pl.page.locator("#leave-expiry")).to_contain_text(
            {"ru": "Если за это время", "ko": "아무도 맡지 않으면", "en": "If nobody takes it"}[lang]
        )
        assert {"ru": "выбывает сразу", "ko": "즉시 탈락", "en": "eliminated at once"}[
            lang
        ] not in what.inner_text()
        assert foreign_words(pl.page, lang) == set()
        pl.page.click("#leave-cancel")
    # without the option the rulebook's words stay
    g = Scripted("city", CLASSIC_SIX)
    g.until("night")
    draw(pl.page, "game", g.view("p5"), seated=True)
    pl.page.evaluate("() => { document.querySelector('#seat-tools').open = true; }")
    pl.page.click("#leave-game-btn")
    expect(pl.page.locator("#leave-expiry")).to_have_count(0)
    pl.close()


# ---------------------------------------------------------------- item 3: classic's ready state
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_classic_end_discussion_shows_the_seat_already_ready(browser, stack, console_errors, lang):
    """A substitute lands on a seat that already pressed "End discussion": the button says so
    and is off, instead of answering "you are already ready" when tapped."""
    g = Scripted("classic", CLASSIC_SIX)
    g.until("discussion")
    g.act("readyEarly", "p5")
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", g.view("p5"))
    btn = pl.page.locator("#ready-early-btn")
    expect(btn).to_be_disabled()
    expect(btn).to_have_text({"ru": "Ждём остальных…", "en": "Waiting for the others…"}[lang])
    draw(pl.page, "game", g.view("p6"))  # a seat that has not pressed it
    expect(pl.page.locator("#ready-early-btn")).to_be_enabled()
    pl.close()


# ---------------------------------------------------------------- item 7: the sticky header
ORIGINAL_TWELVE = ["mafia", "godfather", "mafia", "police"] + ["citizen"] * 8


def original_many_suspects() -> Scripted:
    """Original, 12 seats, day 2: the speakers nominate seven different players."""
    g = Scripted("original", ORIGINAL_TWELVE)
    g.until("speech")
    while g.kind == "speech":  # day 1: no trial
        g.act("endTurn", g.s["phase"]["speaker"])
    g.until("night")
    for pid in g.living():
        if g.kind == "night" and pid not in g.s["phase"]["done"]:
            g.act("sleep", pid)
    g.until("speech")
    targets = iter(["p5", "p6", "p7", "p8", "p9", "p10", "p11"])
    while g.kind == "speech":
        sp = g.s["phase"]["speaker"]
        nominated = (
            set(g.s["phase"].get("nominations", {}).values())
            if isinstance(g.s["phase"].get("nominations"), dict)
            else set()
        )
        target = next((t for t in targets if t != sp and t not in nominated), None)
        g.act("nominate", sp, target=target)
    assert g.kind == "defense" and len(g.s["phase"]["suspects"]) >= 7, g.s["phase"]
    return g


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_sticky_header_stays_one_line_with_many_suspects(browser, stack, console_errors, lang):
    g = original_many_suspects()
    n = len(g.s["phase"]["suspects"])
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", g.view("p1"))
    sub = pl.page.locator("#phase-sub")
    expect(sub).to_have_text(
        {"ko": f"용의자 {n}명", "ru": f"Подозреваемых: {n}", "en": f"{n} suspects"}[lang]
    )
    one_line = pl.page.evaluate(
        """() => { const e = document.querySelector('#phase-sub'); const cs = getComputedStyle(e);
        const line = parseFloat(cs.lineHeight) || 1.3 * parseFloat(cs.fontSize);
        return e.getBoundingClientRect().height <= 1.6 * line; }"""
    )
    assert one_line, sub.inner_text()
    # every suspect is still named, behind the disclosure in the panel
    pl.page.locator("#suspects-list summary").click()
    listed = pl.page.locator("#suspects-list p").inner_text()
    assert all(name(pid) in listed for pid in g.s["phase"]["suspects"]), listed
    assert foreign_words(pl.page, lang) == set()
    pl.close()


# ---------------------------------------------------------------- item 6: the device's end
DEVICE_END = """async (view) => {
  const m = await __import('./js/device/screens.js');
  const main = document.querySelector('#main');
  main.replaceChildren(m.end(view, {onAgain() {}, onFinish() {}}));
}"""


@pytest.mark.parametrize("lang", ["ru", "ko", "en"])
def test_the_single_device_end_shows_the_cause_and_the_fair_deal(browser, stack, console_errors, lang):
    """The one-phone end showed the last three events only: now the cause and the fair-deal
    block too, as the online end screen does."""
    g = classic_parity_by_vote()
    g.s["fairness"] = fairness.record(5, "ab" * 16)  # as a room deals it, with a salt
    view = g.view(None)  # the device's shared screens draw public data only
    assert view["fairness"]["seed"] == 5
    pl = page_in(browser, stack, lang, console_errors)
    pl.page.evaluate(DEVICE_END, view)
    expect(pl.page.locator("#device-cause")).to_have_text(
        {
            "ko": "투표 후 동수: 살아 있는 마피아 2명, 나머지 2명.",
            "ru": "Равенство после голосования: живы мафиози — 2, остальные — 2.",
            "en": "Parity after the vote: alive are 2 mafia and 2 of the rest.",
        }[lang]
    )
    expect(pl.page.locator("#device-end #fair-deal")).to_be_visible()
    expect(pl.page.locator("#fair-status")).to_have_attribute("data-status", "verified")
    expect(pl.page.locator("#fair-commitment")).to_have_text(view["fairness"]["commitment"])
    assert foreign_words(pl.page, lang) == set()
    assert pl.missing_keys() == []
    pl.close()


# ---------------------------------------------------------------- item 5: one name per seat
ALIASES = {
    "p3": {"ko": "재빠른 물범", "ru": "Ловкий Тюлень", "en": "Nimble Seal"},
    "p4": {"ko": "용감한 여우", "ru": "Смелый Лис", "en": "Brave Fox"},
}


def city_day_with_lines(lines: list[tuple[str, str]]) -> Scripted:
    g = Scripted("city", ["mafia", "police", "doctor", "citizen", "citizen", "citizen"])
    g.until("night")
    for pid in g.living():
        g.act("sleep", pid)
    g.until("discussion")
    for pid, text in lines:
        g.act("chat", pid, channel="day", text=text)
    return g


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_every_phone_shows_the_same_seat_beside_an_alias(browser, stack, console_errors, lang):
    """An anonymous game: "재빠른 물범", «Ловкий Тюлень» and "Nimble Seal" are one seat; its number
    and colour beside the alias on the tile and on its chat line are the same on every phone."""
    g = city_day_with_lines([("p3", "I suspect Brave Fox")])
    view = g.view("p1")
    view["room"]["anonymous"] = True
    for p in view["players"]:
        p["alias"] = ALIASES.get(p["id"], {k: f"{k}-{p['id']}" for k in ("ko", "ru", "en")})
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", view, named=True)
    line = pl.page.locator('#chat-log li.msg[data-id="day:1"] .msg-from')
    expect(line).to_contain_text(ALIASES["p3"][lang])
    mark = line.locator(".seat-mark")
    expect(mark).to_have_text("3")
    tile_seat = pl.page.locator('.tile[data-pid="p3"] .tile-seat')
    expect(tile_seat).to_have_text("3")
    assert mark.get_attribute("data-colour") == tile_seat.get_attribute("data-colour") == "2"
    pl.close()


# A Korean anonymous table (docs/rules.md, "Anonymous games"): bots at p3, p4, p6 (named "봇 N" by
# the server), people at p1, p2, p5. Every seat's alias in the three languages.
KO_BOTS = ("p3", "p4", "p6")
KO_PEOPLE = {"p1": "민준", "p2": "서연", "p5": "지호"}
KO_ALIASES = {
    "p1": {"ko": "조용한 부엉이", "ru": "Тихая Сова", "en": "Quiet Owl"},
    "p2": {"ko": "영리한 까마귀", "ru": "Умный Ворон", "en": "Clever Raven"},
    "p3": {"ko": "재빠른 물범", "ru": "Ловкий Тюлень", "en": "Nimble Seal"},
    "p4": {"ko": "용감한 여우", "ru": "Смелый Лис", "en": "Brave Fox"},
    "p5": {"ko": "졸린 곰", "ru": "Сонный Медведь", "en": "Sleepy Bear"},
    "p6": {"ko": "황금빛 스라소니", "ru": "Золотая Рысь", "en": "Golden Lynx"},
}
HANGUL = re.compile(r"[가-힣]")


def ko_anonymous(view: dict) -> dict:
    """``view`` as the room layer sends it at a Korean anonymous table: while the game runs,
    every seat's name is its alias in the room's language and no seat is marked a bot; at the
    end, the real names ("봇 3" for a bot) and the bot marks come back beside the aliases."""
    ended = view["phase"]["kind"] == "ended"
    view["room"].update(anonymous=True, lang="ko", host=None if not ended else "p1")
    for p in view["players"]:
        p["alias"] = KO_ALIASES[p["id"]]
        real = f"봇 {p['id'][1:]}" if p["id"] in KO_BOTS else KO_PEOPLE[p["id"]]
        p["name"] = real if ended else p["alias"]["ko"]
        p["bot"] = ended and p["id"] in KO_BOTS
        p["host"] = ended and p["id"] == "p1"
    return view


def ko_table_with_phrases() -> tuple[dict, Scripted]:
    """Classic, 2 mafia of 6 (classic_parity_by_vote's game): the bots talk on day 1 and at the
    end in phrases, people too (one the same phrase as a bot's) and in Korean free text.
    (p1's view of the day-1 discussion, the ended game)."""
    g = Scripted("classic", CLASSIC_SIX)
    g.until("night")
    g.act("mafiaTarget", "p1", target="p5")
    g.act("mafiaTarget", "p2", target="p5")
    g.act("investigate", "p3", target="p4")
    g.act("heal", "p4", target="p3")
    g.until("discussion")
    g.act("chat", "p3", channel="day", phrase="suspect", args={"target": "p4"}, variant=0)  # day:1
    g.act("chat", "p4", channel="day", phrase="greet", variant=1)  # day:2
    g.act("chat", "p6", channel="day", phrase="trust", args={"target": "p3"}, variant=1)  # day:3
    g.act("chat", "p2", channel="day", phrase="suspect", args={"target": "p4"}, variant=0)  # day:4, a person
    g.act("chat", "p1", channel="day", text="안녕하세요 여러분")  # day:5, a person's own words
    during = g.view("p1")
    g.until("vote")
    for voter in ("p1", "p2", "p3", "p4"):
        g.act("vote", voter, target="p6")
    g.until("confirm")
    for pid in g.living():
        if pid != "p6":
            g.act("confirm", pid, choice="yes")
    g.until("ended")
    g.act("chat", "p3", channel="day", phrase="gg", variant=3)
    g.act("chat", "p4", channel="day", phrase="sure", args={"target": "p1"}, variant=0)
    return during, g


def test_a_ru_phone_at_a_ko_anonymous_table_reads_every_bot_line_and_name_in_russian(browser, stack, console_errors):
    """Bots speak the viewer's language without being named: a bot's line comes as a phrase (an
    id, the seat it names, a variant), drawn on this Russian phone in Russian with the seat's
    Russian alias, exactly as a person's same phrase; default bot names ("봇 3") read "Бот 3" at
    the end. A person's free text stays as typed. Nothing on the page is drawn from a bot flag."""
    during, g = ko_table_with_phrases()
    pl = page_in(browser, stack, "ru", console_errors)
    draw(pl.page, "game", ko_anonymous(during), named=True)
    ru = {pid: a["ru"] for pid, a in KO_ALIASES.items()}
    for pid in KO_BOTS:
        expect(pl.page.locator(f'.tile[data-pid="{pid}"] .tile-name')).to_have_text(ru[pid])
    text = lambda i: pl.page.locator(f'#chat-log li.msg[data-id="day:{i}"] .msg-text')  # noqa: E731
    expect(text(1)).to_have_text(f"Подозреваю: {ru['p4']}.")
    expect(text(2)).to_have_text("Привет всем")
    expect(text(3)).to_have_text(f"{ru['p3']} — мирный житель, проверено.")
    expect(text(4)).to_have_text(f"Подозреваю: {ru['p4']}.")  # a person's phrase: drawn the same
    expect(text(5)).to_have_text("안녕하세요 여러분")
    shown = pl.page.locator("#chat-log li.msg").evaluate_all(
        "(ls) => ls.map((l) => [l.dataset.id, l.querySelector('.msg-from').textContent, l.querySelector('.msg-text').textContent])"
    )
    for mid, who, said in shown:
        if mid != "day:5":
            assert not HANGUL.search(who + said), (mid, who, said)
    # this phone's quick phrases send the same intent a bot sends
    pl.page.locator("#chat-phrases summary").click()
    pl.page.locator("#chat-phrase-target").select_option("p4")
    pl.page.locator('#chat-phrases [data-phrase="suspect"]').click()
    (action, payload), *_ = pl.page.evaluate("() => window.__sent.slice(-1)")
    assert action == "chat" and {k: payload[k] for k in ("channel", "phrase", "args")} == {
        "channel": "day",
        "phrase": "suspect",
        "args": {"target": "p4"},
    }
    assert payload["variant"] in range(60) and "text" not in payload
    expect(pl.page.locator('#chat-phrases [data-phrase="kill"]')).to_be_hidden()  # the team's, at night

    # the end: real names beside the aliases, a bot's default name in Russian, its lines too
    draw(pl.page, "game", ko_anonymous(g.view("p1")), named=True)
    expect(pl.page.locator('.tile[data-pid="p3"] .tile-name')).to_have_text(f"{ru['p3']} · Бот 3")
    gg = [m["id"] for m in g.s["chat"] if m["channel"] == "day" and m["from"] == "p3"][-1]
    expect(pl.page.locator(f'#chat-log li.msg[data-id="{gg}"] .msg-text')).to_have_text("Спасибо за игру!")
    expect(pl.page.locator(f'#chat-log li.msg[data-id="{gg}"] .msg-from')).to_contain_text("Бот 3")
    draw(pl.page, "end", ko_anonymous(g.view("p1")), named=True)
    roles = pl.page.locator("#end-roles")
    for pid in KO_BOTS:
        expect(roles).to_contain_text(f"{ru[pid]} · Бот {pid[1:]}")
    assert "봇" not in (roles.text_content() or "")  # people's own names stay as they chose them
    pl.close()


# ---------------------------------------------------------------- item 8: the smaller ones
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_toast_never_covers_the_chat_box_while_typing(browser, stack, console_errors, lang):
    g = city_day_with_lines([])
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", g.view("p2"))
    box = pl.page.locator("#chat-input")
    box.scroll_into_view_if_needed()
    box.focus()
    pl.page.evaluate(
        "() => { document.querySelector('#chat-error').textContent = 'Links are not allowed in the chat.'; }"
    )
    pl.page.evaluate(
        "() => __import('./js/toast.js').then((m) => m.toast('Links are not allowed in the chat.'))"
    )
    toast = pl.page.locator("#toast")
    expect(toast).to_be_visible()
    a, b = toast.bounding_box(), box.bounding_box()
    err = pl.page.locator("#chat-error").bounding_box()
    for other in (b, err):
        assert a and other, (a, b, err)
        overlap = not (a["y"] + a["height"] <= other["y"] or other["y"] + other["height"] <= a["y"])
        assert not overlap, (a, other)
    pl.close()


def test_the_korean_review_line_says_who_killed_whom(browser, stack, console_errors):
    """ "봇 3 (경찰) 님 탈락: 마피아" read as if the player was the mafia."""
    g = classic_parity_by_vote()
    pl = page_in(browser, stack, "ko", console_errors)
    draw(pl.page, "end", g.view("p3"))
    text = pl.page.locator("#main").text_content()
    assert "탈락 — 마피아에게 살해됨" in text and "탈락: 마피아" not in text, text
    assert "탈락 — 투표로 처형됨" in text
    pl.close()


@pytest.mark.parametrize("lang", ["ru", "ko"])
def test_the_dead_players_chat_tabs_fit_one_line(browser, stack, console_errors, lang):
    g = Scripted("classic", CLASSIC_SIX, deadSeeAll=True)
    g.until("night")
    g.act("mafiaTarget", "p1", target="p5")
    g.act("mafiaTarget", "p2", target="p5")
    g.until("discussion")
    assert not next(p for p in g.s["players"] if p["id"] == "p5")["alive"]
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", g.view("p5"))
    tabs = pl.page.locator(".chat-tab")
    assert tabs.count() >= 4
    tops = {round(tabs.nth(i).bounding_box()["y"]) for i in range(tabs.count())}
    assert len(tops) == 1, tops
    fits = pl.page.evaluate(
        "() => { const e = document.querySelector('.chat-tabs'); return e.scrollWidth <= e.clientWidth; }"
    )
    assert fits
    pl.close()


@pytest.mark.parametrize("lang", ["ko"])
def test_the_note_button_shows_on_a_picked_tile(browser, stack, console_errors, lang):
    g = city_day_with_lines([])
    g.until("vote")
    pl = page_in(browser, stack, lang, console_errors)
    g.act("vote", "p2", target="p4")  # picked: the tile turns green
    draw(pl.page, "game", g.view("p2"))
    expect(pl.page.locator(".tile.chosen")).to_have_count(1)
    colours = pl.page.evaluate(
        """() => { const b = document.querySelector('.tile-cell:has(.tile.chosen) .note-btn');
        const t = document.querySelector('.tile.chosen'); const cs = getComputedStyle(b);
        return [cs.backgroundColor, cs.color, getComputedStyle(t).backgroundColor]; }"""
    )
    bg, fg, tile = colours
    assert bg not in ("rgba(0, 0, 0, 0)", "transparent", tile), colours
    assert fg != bg, colours
    pl.close()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_away_digest_is_not_shown_when_nothing_happened(browser, stack, console_errors, lang):
    g = city_day_with_lines([])
    g.until("vote")
    view = g.view("p2")
    n = len(view["events"])
    view["you"]["away"] = {"since": 1, "back": 2, "events": [n, n], "results": [0, 0]}
    pl = page_in(browser, stack, lang, console_errors)
    draw(pl.page, "game", view)
    expect(pl.page.locator("#away-digest")).to_have_count(0)
    view["you"]["away"] = {"since": 1, "back": 3, "events": [0, n], "results": [0, 0]}  # something did
    draw(pl.page, "game", view)
    expect(pl.page.locator("#away-digest")).to_be_visible()
    pl.close()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_at_the_role_reveal_the_tap_comes_before_the_note_buttons(browser, stack, console_errors, lang):
    g = Scripted("classic", CLASSIC_SIX)
    pl = page_in(browser, stack, lang, console_errors)
    pl.page.evaluate("() => __import('./js/game/phases.js').then((m) => m.resetPhaseMemory())")
    draw(pl.page, "game", g.view("p4"))
    assert pl.page.locator(".note-btn").count() > 0
    first = pl.page.evaluate(
        """() => { const tap = document.querySelector('#reveal-role-btn');
        const note = document.querySelector('.note-btn');
        return Boolean(tap.compareDocumentPosition(note) & Node.DOCUMENT_POSITION_FOLLOWING); }"""
    )
    assert first
    # the panel still shows under the tiles on a phone (the grid places it)
    assert (
        pl.page.locator("#reveal-role-btn").bounding_box()["y"]
        > pl.page.locator(".tile").first.bounding_box()["y"]
    )
    g.until("night")
    pl.page.evaluate(UPDATE, g.view("p4"))  # after the reveal the usual order is back
    assert pl.page.evaluate(
        "() => document.querySelector('.players-panel').nextElementSibling === document.querySelector('.actions-panel')"
    )
    pl.close()
