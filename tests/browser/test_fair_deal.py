"""A provably fair deal, as a player meets it (docs/rules.md, "A provably fair deal").

A person plays a game with bots on the offline stack, in Korean, Russian and English, and
the host ends it: the end screen says "deal verified" in the player's language after the
page hashed the revealed seed and salt itself (WebCrypto, web/js/game/fairness.js); every view
the page received from the start carried that commitment, none the seed or salt; and the
command the end screen offers (`python -m mafia_engine.verify`), run as printed, lists the
roles the end screen shows.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess

import pytest
from playwright.sync_api import expect

from .scripted import LOCALES
from .stack import REPO
from .test_table_round2 import add_bots
from .ui import MOBILE, Player, open_fold

HOSTS = {"ko": "민준", "ru": "Анна", "en": "Ann"}
VERIFIED = {"ko": "배분 검증됨", "ru": "Раздача проверена", "en": "Deal verified"}
TITLE = {"ko": "공정한 카드 배분", "ru": "Честная раздача", "en": "Fair deal"}
# SHA-256 of "mafia-deal-v1:" + "a1" * 32 + ":1234567891" (tests/unit/test_fairness.py, VECTOR)
VECTOR = "de54d52207530035d025ecc470ab88119c550fecd7a2d89f859a211298e4ec3d"
# a room's secret (64 hex digits, a JSON string in the preimage) and its commitment with "a1" * 32
HEX_SEED = "0123456789abcdef" * 4
HEX_VECTOR = hashlib.sha256(f'mafia-deal-v1:{"a1" * 32}:"{HEX_SEED}"'.encode()).hexdigest()


def play_to_end(browser, stack, lang: str, errors: list[str], viewport=MOBILE, before_end=None):
    """Create a room, add four bots, start, look at the role card, end the game as the host.
    Returns the player and the text of every WebSocket frame the page received."""
    host = Player(browser, stack.url, HOSTS[lang], viewport=viewport, locale=LOCALES[lang], errors=errors)
    frames: list[str] = []
    host.page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(str(data))))
    page = host.page
    host.create({"roleRevealSeconds": "30"})
    add_bots(host, 4)
    page.click("#start-btn")
    host.wait_phase("roleReveal", timeout=15_000)
    page.click("#reveal-role-btn")
    if before_end:
        before_end(host)
    host.dismiss_cards()
    open_fold(page, "#host-tools", "#end-game-btn")
    page.click("#end-game-btn")
    page.click("#end-game-btn")
    expect(page.locator("#end-title")).to_be_visible(timeout=15_000)
    return host, frames


def views(frames: list[str]) -> list[dict]:
    out = []
    for text in frames:
        frame = json.loads(text)
        if frame.get("type") == "view":
            out.append(frame["view"])
    return out


def run_shown_command(command: str) -> dict[str, str]:
    """The end screen's command, run as a player would from a copy of the project; its
    `seat N  pX  role` lines as {player id: role}."""
    env = {**os.environ, "PATH": f"{REPO / '.venv' / 'bin'}:{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        ["bash", "-c", command], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("commitment matches"), done.stdout
    return {
        m.group(1): m.group(2)
        for m in (re.fullmatch(r"seat\s+\d+\s+(\S+)\s+(\S+)(?:\s+lobby .*)?", x) for x in lines[1:])
        if m
    }


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_end_screen_verifies_the_deal_and_its_command_replays_the_roles(
    browser, stack, console_errors, lang
):
    host, frames = play_to_end(browser, stack, lang, console_errors)
    page = host.page
    status = page.locator("#fair-status")
    expect(status).to_have_attribute("data-status", "verified", timeout=10_000)
    expect(status).to_contain_text(VERIFIED[lang])
    expect(page.locator("#fair-title")).to_have_text(TITLE[lang])
    commitment = page.locator("#fair-commitment").inner_text()
    seed = json.loads(page.locator("#fair-seed").inner_text())
    salt = page.locator("#fair-salt").inner_text()
    # the game's secret: 256 bits as 64 hex digits (docs/rules.md, "Randomness")
    assert len(salt) == 64 and isinstance(seed, str) and len(seed) == 64 and int(seed, 16) >= 0
    ended_view = views(frames)[-1]
    seats = [p["id"] for p in sorted(ended_view["players"], key=lambda p: p["seat"])]
    game_text = json.dumps(
        {"options": ended_view["options"], "players": seats}, sort_keys=True, separators=(",", ":")
    )
    # the page drew a value in the lobby, committed to it and revealed it when the host started
    # (web/js/game/dealseed.js): the deal mixes it in (docs/rules.md, "Randomness"); bots give none
    f = ended_view["fairness"]
    assert f["scheme"] == "sha256/mafia-deal-v3" and len(f["contributions"]) == 1
    mine = f["contributions"][0]
    assert len(mine["value"]) == 64
    assert hashlib.sha256(f"mafia-deal-v3-client:{mine['value']}".encode()).hexdigest() == mine["commitment"]
    lobby = [v for v in views(frames) if v["phase"]["kind"] == "lobby" and v["room"].get("deal")]
    assert lobby and mine["commitment"] in lobby[-1]["room"]["deal"]["commitments"]
    assert not any(mine["value"] in json.dumps(v) for v in lobby)  # only its hash before the start
    parts = json.dumps([mine], sort_keys=True, separators=(",", ":"))
    v3 = f"mafia-deal-v3:{salt}:{json.dumps(seed)}:{game_text}:{parts}"
    assert hashlib.sha256(v3.encode()).hexdigest() == commitment
    server = hashlib.sha256(f"mafia-deal-v3-server:{salt}:{json.dumps(seed)}".encode()).hexdigest()
    assert all(v["room"]["deal"]["serverCommitment"] == server for v in lobby)
    expect(page.locator("#fair-mixed")).to_have_attribute("data-values", "1")

    # what the page received: the commitment in every view from the start, seed and salt
    # in none before the end
    game = [v for v in views(frames) if v["phase"]["kind"] != "lobby"]
    assert game and all(v["fairness"]["commitment"] == commitment for v in game)
    ended = next(i for i, text in enumerate(frames) if '"kind":"ended"' in text)
    assert not any(salt in text or seed in text for text in frames[:ended])
    assert all(v["fairness"]["seed"] is None for v in game if v["phase"]["kind"] != "ended")

    # the command a player can copy lists the roles the end screen shows
    page.locator(".fair-howto summary").click()
    expect(page.locator("#fair-command")).to_be_visible()
    replayed = run_shown_command(page.locator("#fair-command").inner_text())
    shown = dict(
        page.evaluate(
            "[...document.querySelectorAll('.end-player')]"
            ".map((li) => [li.dataset.pid, li.querySelector('.end-role').dataset.role])"
        )
    )
    assert len(shown) == 5 and replayed == shown
    # the command carries the end screen's roles, which verify compares with its replay
    assert "--roles " in page.locator("#fair-command").inner_text()
    # the unfolded command and the hex values wrap: a phone never scrolls sideways
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    host.check_no_keys()
    host.close()


def test_three_phones_values_mix_into_the_deal_and_every_end_screen_verifies_it(
    browser, stack, console_errors
):
    """Three people in one room (two bots beside them): each page draws its value, commits in
    the lobby and reveals when the host starts (web/js/game/dealseed.js); the game is dealt from
    the secret mixed with the three values (docs/rules.md, "Randomness"), and after the host
    ends it every page's end screen checks the whole record itself and says "verified", listing
    three values mixed and none dropped; the command it shows replays the roles."""
    host = Player(browser, stack.url, "Ann", errors=console_errors)
    code = host.create({"roleRevealSeconds": "30"})
    link = host.page.locator("#share-link").input_value()
    guests = [Player(browser, stack.url, name, errors=console_errors) for name in ("Bob", "Cat")]
    for g in guests:
        g.join(link)
    add_bots(host, 2)
    pages = [host, *guests]
    for pl in pages:  # each page drew a value and sent its commitment (before its ready mark)
        pl.page.wait_for_function("(code) => !!localStorage.getItem('mafia.dealValue.' + code)", arg=code)
    for g in guests:
        g.ready()
    host.page.click("#start-btn")
    host.wait_phase("roleReveal", timeout=15_000)
    open_fold(host.page, "#host-tools", "#end-game-btn")
    host.page.click("#end-game-btn")
    host.page.click("#end-game-btn")
    for pl in pages:
        expect(pl.page.locator("#end-title")).to_be_visible(timeout=15_000)
        status = pl.page.locator("#fair-status")
        expect(status).to_have_attribute("data-status", "verified", timeout=10_000)
        mixed = pl.page.locator("#fair-mixed")
        expect(mixed).to_have_attribute("data-values", "3")
        expect(mixed).to_have_attribute("data-dropped", "0")
    host.page.locator(".fair-howto summary").click()
    command = host.page.locator("#fair-command").inner_text()
    assert "--scheme sha256/mafia-deal-v3" in command
    replayed = run_shown_command(command)
    shown = dict(
        host.page.evaluate(
            "[...document.querySelectorAll('.end-player')]"
            ".map((li) => [li.dataset.pid, li.querySelector('.end-role').dataset.role])"
        )
    )
    assert len(shown) == 5 and replayed == shown
    for pl in pages:
        pl.close()


def test_a_commitment_other_than_the_one_seen_during_the_game_fails(browser, stack, console_errors):
    """The page keeps the commitments it saw while a game ran; an end revealing against
    another one (a server that swapped the deal and its hash) says so instead of "verified"."""

    def swap(host):
        room = host.page.locator("#room-chip").inner_text().strip()
        # what this page saw while the game ran is another commitment: the page keeps every
        # running view's (frames.js), so its later writes of the real one are dropped here
        host.page.evaluate(
            """(room) => {
              localStorage.setItem('mafia.dealCommitments', JSON.stringify({[room]: ['0'.repeat(64)]}));
              const set = Storage.prototype.setItem;
              Storage.prototype.setItem = function (key, value) {
                if (key !== 'mafia.dealCommitments') set.call(this, key, value);
              };
            }""",
            room,
        )

    host, _ = play_to_end(browser, stack, "en", console_errors, before_end=swap)
    status = host.page.locator("#fair-status")
    expect(status).to_have_attribute("data-status", "changed", timeout=10_000)
    expect(status).not_to_contain_text("Deal verified")
    host.close()


def test_the_clients_hash_is_the_engines_and_a_wrong_seed_fails(browser, stack, console_errors):
    """web/js/game/fairness.js hashes what mafia_engine/fairness.py hashes (the unit tests'
    vector), and refuses a seed, a salt or a scheme that is not the committed one."""
    host = Player(browser, stack.url, "Ann", locale="en-US", errors=console_errors)
    host.open()
    got = host.page.evaluate(
        """async ([vector, hexSeed, hexVector]) => {
      const m = await __import('./js/game/fairness.js');
      const salt = 'a1'.repeat(32);
      const f = (seed, s, scheme) => ({fairness: {scheme, commitment: vector, seed, salt: s}});
      const hex = (seed) => ({fairness: {scheme: 'sha256/mafia-deal-v1', commitment: hexVector, seed, salt}});
      return {
        hexHash: await m.sha256Hex(m.preimage(hexSeed, salt)),
        hexOk: await m.check(hex(hexSeed), 'NOPE'),
        hexOther: await m.check(hex(hexSeed.replace(/.$/, '0')), 'NOPE'),
        hash: await m.sha256Hex(m.preimage(1234567891, salt)),
        ok: await m.check(f(1234567891, salt, 'sha256/mafia-deal-v1'), 'NOPE'),
        seed: await m.check(f(1234567892, salt, 'sha256/mafia-deal-v1'), 'NOPE'),
        text: await m.check(f('1234567891', salt, 'sha256/mafia-deal-v1'), 'NOPE'),
        salt: await m.check(f(1234567891, 'b2'.repeat(32), 'sha256/mafia-deal-v1'), 'NOPE'),
        scheme: await m.check(f(1234567891, salt, 'md5/whatever'), 'NOPE'),
        before: await m.check({fairness: {commitment: vector, seed: null, salt: null}}, 'NOPE'),
      };
    }""",
        [VECTOR, HEX_SEED, HEX_VECTOR],
    )
    assert got == {
        "hexHash": HEX_VECTOR,
        "hexOk": "verified",
        "hexOther": "mismatch",
        "hash": VECTOR,
        "ok": "verified",
        "seed": "mismatch",
        "text": "mismatch",
        "salt": "mismatch",
        "scheme": "mismatch",
        "before": None,
    }
    host.close()


def test_the_badge_checks_the_seat_list_and_options_the_end_screen_shows(browser, stack, console_errors):
    """docs/rules.md, "A provably fair deal": the badge checked the secret's hash only. A v2 commitment binds the seat list
    in order and the options (mafia_engine/fairness.py): the page hashes the ones its view
    shows, so a rotated or reversed seat list, another option or preset is a mismatch."""
    import mafia_engine as me

    salt, seed = "a1" * 32, HEX_SEED
    ids = ["p1", "p2", "p3", "p4", "p5"]
    opts = me.check_setup({"preset": "classic"}, 5)
    state = me.new_game(ids, opts, seed=seed, salt=salt)
    commitment = state["fairness"]["commitment"]
    host = Player(browser, stack.url, "Ann", locale="en-US", errors=console_errors)
    host.open()
    got = host.page.evaluate(
        """async ([commitment, seed, salt, ids, options]) => {
      const m = await __import('./js/game/fairness.js');
      const view = (players, opts) => ({
        options: opts,
        players: players.map((id, i) => ({id, seat: i + 1})),
        fairness: {scheme: 'sha256/mafia-deal-v2', commitment, seed, salt},
      });
      const rotated = [...ids.slice(1), ids[0]];
      return {
        ok: await m.check(view(ids, options), 'NOPE'),
        shuffledKeys: await m.check(view(ids, Object.fromEntries(Object.entries(options).reverse())), 'NOPE'),
        rotated: await m.check(view(rotated, options), 'NOPE'),
        reversed: await m.check(view([...ids].reverse(), options), 'NOPE'),
        option: await m.check(view(ids, {...options, deathReveal: 'none'}), 'NOPE'),
        preset: await m.check(view(ids, {...options, preset: 'city'}), 'NOPE'),
        asV1: await m.check({...view(ids, options), fairness: {scheme: 'sha256/mafia-deal-v1', commitment, seed, salt}}, 'NOPE'),
      };
    }""",
        [commitment, seed, salt, ids, opts],
    )
    assert got == {
        "ok": "verified",
        "shuffledKeys": "verified",
        "rotated": "mismatch",
        "reversed": "mismatch",
        "option": "mismatch",
        "preset": "mismatch",
        "asV1": "mismatch",
    }
    host.close()


def test_the_badge_replays_the_deal_and_refuses_roles_that_are_not_it(browser, stack, console_errors):
    """The page replays the deal from the revealed seed (web/js/game/fairness.js `replayDeal`,
    the engine's rng in WebCrypto) and compares it with the roles the end screen shows
    (`check(view, room, {roles: true})`): the engine's deal for each preset, and a view whose
    roles of two seats are swapped fails (the hash alone cannot see it)."""
    import mafia_engine as me

    salt = "a1" * 32
    games = []
    for k, (preset, options) in enumerate(
        [
            ("classic", {"preset": "classic", "extraRoles": ["soldier", "politician"]}),
            ("city", {"preset": "city"}),
            ("original", {"preset": "original", "expansion": True}),
        ]
    ):
        n = me.presets()[preset]["maxPlayers"]
        ids = [f"p{i}" for i in range(1, n + 1)]
        seed = f"{k + 5:064x}"
        state = me.new_game(ids, options, seed=seed, salt=salt)
        view = me.view(state, None)
        roles = [p["role"] for p in state["players"]]
        ended = {
            "options": view["options"],
            "roster": view["roster"],
            "players": [{"id": i, "seat": s + 1} for s, i in enumerate(ids)],
            "result": {"players": [{"id": i, "role": r} for i, r in zip(ids, roles, strict=True)]},
            "fairness": {**view["fairness"], "seed": seed, "salt": salt},
        }
        games.append([ended, roles])
    host = Player(browser, stack.url, "Ann", locale="en-US", errors=console_errors)
    host.open()
    got = host.page.evaluate(
        """async (games) => {
      const m = await __import('./js/game/fairness.js');
      const out = [];
      for (const [view, roles] of games) {
        const swapped = JSON.parse(JSON.stringify(view));
        const ps = swapped.result.players;
        const j = ps.findIndex((p) => p.role !== ps[0].role);
        [ps[0].role, ps[j].role] = [ps[j].role, ps[0].role];
        out.push({
          replayed: (await m.replayDeal(view.fairness.seed, view.roster)).join(',') === roles.join(','),
          ok: await m.check(view, 'NOPE', {roles: true}),
          swapped: await m.check(swapped, 'NOPE', {roles: true}),
          swappedHashOnly: await m.check(swapped, 'NOPE'),
        });
      }
      return out;
    }""",
        games,
    )
    assert (
        got
        == [{"replayed": True, "ok": "verified", "swapped": "mismatch", "swappedHashOnly": "verified"}] * 3
    )
    host.close()


def test_the_badge_checks_a_mixed_deal_and_refuses_a_changed_value(browser, stack, console_errors):
    """A v3 record (mafia_engine/fairness.py): the page checks the lobby's commitment to the
    secret, each revealed value against its commitment, the game's commitment, and replays the
    deal from the mixed secret (`mixedSeed`, the engine's `mix` in WebCrypto); a changed value,
    a value hidden as dropped, or another server commitment is a mismatch."""
    import mafia_engine as me

    salt, seed = "a1" * 32, HEX_SEED
    values = ["0f" * 32, "1e" * 16, "2d" * 24]
    parts = [{"commitment": me.fairness.client_commitment(v), "value": v} for v in values]
    parts.append({"commitment": me.fairness.client_commitment("3c" * 16), "value": None})  # dropped
    ids = [f"p{i}" for i in range(1, 8)]
    state = me.new_game(ids, {"preset": "classic"}, seed=seed, salt=salt, contributions=parts)
    view = me.view(state, None)
    roles = [p["role"] for p in state["players"]]
    ended = {
        "options": view["options"],
        "roster": view["roster"],
        "players": [{"id": i, "seat": s + 1} for s, i in enumerate(ids)],
        "result": {"players": [{"id": i, "role": r} for i, r in zip(ids, roles, strict=True)]},
        "fairness": {**view["fairness"], "seed": seed, "salt": salt},
    }
    host = Player(browser, stack.url, "Ann", locale="en-US", errors=console_errors)
    host.open()
    got = host.page.evaluate(
        """async ([view, mixed]) => {
      const m = await __import('./js/game/fairness.js');
      const copy = () => JSON.parse(JSON.stringify(view));
      const changed = copy();
      changed.fairness.contributions.find((c) => c.value).value = '99'.repeat(16);
      const hidden = copy();
      hidden.fairness.contributions.find((c) => c.value).value = null;
      const server = copy();
      server.fairness.serverCommitment = '0'.repeat(64);
      return {
        mixed: (await m.mixedSeed(view.fairness.seed, view.fairness.contributions)) === mixed,
        ok: await m.check(view, 'NOPE', {roles: true}),
        changed: await m.check(changed, 'NOPE', {roles: true}),
        hidden: await m.check(hidden, 'NOPE', {roles: true}),
        server: await m.check(server, 'NOPE', {roles: true}),
        command: m.verifyCommand(view),
      };
    }""",
        [ended, me.fairness.mix(seed, parts)],
    )
    command = got.pop("command")
    assert got == {
        "mixed": True,
        "ok": "verified",
        "changed": "mismatch",
        "hidden": "mismatch",
        "server": "mismatch",
    }
    assert "--scheme sha256/mafia-deal-v3" in command and "--server-commitment " in command
    assert "--roles " + ",".join(roles) in command
    replayed = run_shown_command(command)
    assert replayed == dict(zip(ids, roles, strict=True))
    host.close()


def test_without_webcrypto_the_end_screen_says_it_cannot_check(browser, stack, console_errors):
    """`crypto.subtle` exists only on secure pages (https://, localhost): on a plain http://
    address the end screen must not claim a check it could not make."""

    def no_subtle(host):
        host.page.evaluate("Object.defineProperty(window.crypto, 'subtle', {get: () => undefined})")

    host, _ = play_to_end(browser, stack, "en", console_errors, before_end=no_subtle)
    status = host.page.locator("#fair-status")
    expect(status).to_have_attribute("data-status", "unavailable", timeout=10_000)
    expect(status).to_contain_text("cannot check")
    host.close()
