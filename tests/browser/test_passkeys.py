"""Passkey sign-in in the browser (docs/rules.md, "Ranked play"; screens/account.js): Chromium's
virtual authenticator (CDP `WebAuthn`) makes a real passkey that the REST function verifies;
sign out, sign in again. Then the account sheet's words in ko, ru and en."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .ui import Player

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}
# A passkey's RP id must be a domain: the page is opened on localhost, not 127.0.0.1.
LOCALES = {"en": "en-US", "ko": "ko-KR", "ru": "ru-RU"}
TITLES = {"en": "Your account", "ko": "내 계정", "ru": "Ваш аккаунт"}
ENTRIES = {"en": "Sign in", "ko": "로그인", "ru": "Войти"}


def site(stack) -> str:
    return re.sub(r"//127\.0\.0\.1:", "//localhost:", stack.url)


def test_a_passkey_is_made_signs_out_and_signs_in_again(browser, stack, console_errors):
    pl = Player(browser, site(stack), "Ann", errors=console_errors)
    page = pl.page
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    auth = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})["authenticatorId"]
    pl.open()
    page.click("#account-btn")
    page.click("#account-create")
    expect(page.locator("#account-status")).to_be_visible()
    expect(page.locator("#account-passkeys li")).to_have_count(1)
    creds = cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth})["credentials"]
    assert len(creds) == 1 and creds[0]["isResidentCredential"] and creds[0]["rpId"] == "localhost"
    expect(page.locator("#account-btn")).to_have_text("Account")
    page.click("#account-signout")
    expect(page.locator("#account-signin")).to_be_visible()
    expect(page.locator("#account-btn")).to_have_text("Sign in")
    page.click("#account-signin")
    expect(page.locator("#account-status")).to_be_visible()
    expect(page.locator("#account-passkeys li")).to_have_count(1)
    assert cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth})["credentials"][0]["signCount"] >= 1
    pl.context.close()


@pytest.mark.parametrize("lang", ["ko", "ru", "en"])
def test_the_account_sheet_in_each_language(browser, stack, console_errors, lang):
    pl = Player(browser, site(stack), "Ann", locale=LOCALES[lang], errors=console_errors)
    page = pl.page
    pl.open()
    expect(page.locator("#account-btn")).to_have_text(ENTRIES[lang])
    page.click("#account-btn")
    expect(page.locator("#account-sheet h2")).to_have_text(TITLES[lang])
    for sel in ("#account-signin", "#account-create"):
        text = page.locator(sel).inner_text()
        assert text and "account." not in text  # a word, not a missing key
    pl.context.close()
