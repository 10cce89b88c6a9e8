"""The scripted-state tests' reused pages (scripted.py, `page_in`): the page a test closed comes
to the module's next test as a boot leaves a page, with nothing of the last test left on it."""

from __future__ import annotations

from playwright.sync_api import expect

from .scripted import Scripted, page_in, show

# What a test could see of an earlier one: where the page is, its language, its storage, an
# open dialog or sheet, what the live region and the voice bar last said.
LOOK_JS = """() => ({
  url: location.href,
  lang: document.documentElement.lang,
  picker: document.querySelector('#lang-select').value,
  screen: document.body.dataset.screen,
  heading: document.querySelector('#main h1')?.textContent,
  stored: localStorage.length + sessionStorage.length,
  dialogs: document.querySelectorAll('dialog[open], .overlay').length,
  announced: document.querySelector('#announcer').textContent,
  voiceShown: Boolean(document.querySelector('#voice-bar') && !document.querySelector('#voice-bar').hidden),
  toast: !document.querySelector('#toast') || document.querySelector('#toast').hidden,
  missing: window.__i18nMissing ? window.__i18nMissing.size : 0,
})"""


def test_a_reused_page_is_reset_as_a_boot_leaves_a_page(browser, stack, console_errors):
    pl = page_in(browser, stack, "ko", console_errors)
    page = pl.page
    booted = page.evaluate(LOOK_JS)
    assert booted["screen"] == "home" and booted["lang"] == "ko"

    # a test that leaves everything behind: another language, a game, its rules open, storage
    g = Scripted("classic", ["mafia", "doctor", "police", "citizen", "citizen", "citizen"])
    g.until("night")
    page.select_option("#lang-select", "ru")
    show(page, g.view("p2"))
    expect(page.locator("#phase-banner")).to_have_attribute("data-kind", "night")
    page.click("#rules-btn")
    page.evaluate("() => { localStorage.setItem('mafia.left', '1'); sessionStorage.setItem('x', '1'); }")
    assert page.evaluate(LOOK_JS) != booted
    pl.close()

    again = page_in(browser, stack, "ko", console_errors)
    assert again.page is page  # the same page, not a new boot
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    assert page.evaluate(LOOK_JS) == booted
    again.close()
