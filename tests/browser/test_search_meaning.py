"""Search by meaning in a browser: the switch and its strength used with the keyboard,
kept in the address (sr only when it counts), back after a reload, from the search
history and without script; moments found by meaning, and the notice when meaning cannot
be used; on a phone and a wide screen, nothing wider than the page."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from models import library
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import keep_screenshot
from tests.web.pages.test_search_meaning_page import AnsweredByMeaning
from tests.web.pages.test_search_page_filters import index_two_channels

SWITCH = "意味で探す"
STRENGTH = "キーワードと意味の比重"


@pytest.fixture
def channels(platform_files):
    index_two_channels(platform_files)


@pytest.fixture
def answer(monkeypatch):
    """answer(applied, unmarked=()) -> the site's searches answered so (the site runs in
    this process)."""

    def set_up(applied: bool, unmarked=()) -> None:
        engine = AnsweredByMeaning(applied, frozenset(unmarked))
        monkeypatch.setattr(library, "get_engine", lambda: engine)

    return set_up


def address(page) -> dict[str, list[str]]:
    """The search's words and its meaning fields in the address (the form sends its
    filters too, as test_search_filters shows)."""
    sent = parse_qs(urlsplit(page.url).query)
    return {key: sent[key] for key in ("q", "semantic", "sr") if key in sent}


def switch(page):
    return page.get_by_role("switch", name=SWITCH)


def strength(page):
    return page.get_by_role("slider", name=STRENGTH)


def said(page) -> str:
    return page.locator("[data-meaning-value]").inner_text()


def fits(page, width: int) -> None:
    """Nothing wider than the screen, and the meaning controls inside it."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for selector in (".meaning", ".search-box"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, selector


def search(page) -> None:
    """Send the form with the search box's button, as a person does."""
    with page.expect_navigation():
        page.get_by_role("button", name="検索", exact=True).click()


@pytest.mark.parametrize("width", [375, 1280])
def test_the_switch_and_strength_go_into_the_address_and_come_back(page, site, channels, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{site}/search?q=醤油")
    # Off at first: the strength is not shown
    assert not switch(page).is_checked()
    assert not strength(page).is_visible()
    keep_screenshot(page, f"search-meaning-off-{width}")
    fits(page, width)
    # The switch is reached from the search box with the keyboard and turned on with Space
    page.get_by_role("searchbox").focus()
    page.keyboard.press("Tab")  # the search button
    page.keyboard.press("Tab")  # the query language's help
    assert page.evaluate("document.activeElement.getAttribute('popovertarget')") == "search-help"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "semantic"
    page.keyboard.press("Space")
    assert switch(page).is_checked()
    assert strength(page).is_visible()
    assert strength(page).input_value() == "0.5"
    assert said(page) == "キーワード 50%・意味 50%"
    # Moved with the arrow keys, the strength says its value in words, aloud too
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "sr"
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert strength(page).input_value() == "0.8"
    assert strength(page).get_attribute("aria-valuetext") == "キーワード 20%・意味 80%"
    assert said(page) == "キーワード 20%・意味 80%"
    keep_screenshot(page, f"search-meaning-on-{width}")
    fits(page, width)
    search(page)
    assert address(page) == {"q": ["醤油"], "semantic": ["1"], "sr": ["0.8"]}
    for _ in range(2):  # drawn from the address, and again after a reload
        assert switch(page).is_checked()
        assert strength(page).input_value() == "0.8"
        assert strength(page).get_attribute("aria-valuetext") == "キーワード 20%・意味 80%"
        assert said(page) == "キーワード 20%・意味 80%"
        assert page.locator("li.result").count() == 3
        page.reload()
    # Back at its default the strength leaves the address; so does all of it when off
    strength(page).focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    assert said(page) == "キーワード 50%・意味 50%"
    search(page)
    assert address(page) == {"q": ["醤油"], "semantic": ["1"]}
    strength(page).fill("1")  # dragged to the far end
    assert said(page) == "意味だけ"
    search(page)
    assert address(page) == {"q": ["醤油"], "semantic": ["1"], "sr": ["1"]}
    assert said(page) == "意味だけ"
    switch(page).uncheck()
    assert not strength(page).is_visible()
    search(page)
    assert address(page) == {"q": ["醤油"]}
    assert not switch(page).is_checked()


def test_a_search_from_the_history_comes_back_with_its_switch_and_strength(page, site, channels):
    user = make_user(email="meaning@example.jp")
    sign_in(page, site, user.email)
    page.goto(f"{site}/search?q=醤油")
    switch(page).check()
    strength(page).fill("0.3")
    search(page)
    assert address(page) == {"q": ["醤油"], "semantic": ["1"], "sr": ["0.3"]}
    # A plain search after it, so the history holds both
    switch(page).uncheck()
    search(page)
    assert address(page) == {"q": ["醤油"]}
    page.goto(f"{site}/account")
    history = page.locator("ul.history a")
    assert history.count() == 2
    by_meaning = page.locator('ul.history a[href*="semantic=1"]')
    plain = page.locator('ul.history a:not([href*="semantic"])')
    with page.expect_navigation():
        by_meaning.click()
    assert address(page) == {"q": ["醤油"], "semantic": ["1"], "sr": ["0.3"]}
    assert switch(page).is_checked()
    assert strength(page).input_value() == "0.3"
    assert said(page) == "キーワード 70%・意味 30%"
    keep_screenshot(page, "search-meaning-from-history")
    page.goto(f"{site}/account")
    with page.expect_navigation():
        plain.click()
    assert address(page) == {"q": ["醤油"]}
    assert not switch(page).is_checked() and not strength(page).is_visible()


def test_without_script_the_switch_and_strength_are_plain_fields(
    page_without_script, site, channels
):
    page = page_without_script
    page.goto(f"{site}/search?q=醤油")
    assert not strength(page).is_visible()
    switch(page).check()
    assert strength(page).is_visible()  # shown by the style sheet alone
    strength(page).fill("0.7")
    search(page)
    # The form sends both fields as they are, and the page reads them
    assert address(page) == {"q": ["醤油"], "semantic": ["1"], "sr": ["0.7"]}
    assert switch(page).is_checked()
    assert strength(page).input_value() == "0.7"
    assert said(page) == "キーワード 30%・意味 70%"
    # Turned off, the strength is still sent, and the page leaves it out of the address
    switch(page).uncheck()
    assert not strength(page).is_visible()
    search(page)
    assert address(page) == {"q": ["醤油"]}
    assert not switch(page).is_checked()
    assert page.locator("input[name=sr]").input_value() == "0.5"  # hidden, at rest


@pytest.mark.parametrize("width", [375, 1280])
def test_moments_found_by_meaning_and_the_notice_fit_the_screen(
    page, site, channels, answer, width
):
    page.set_viewport_size({"width": width, "height": 900})
    # Given udon's moment found by meaning alone
    answer(applied=True, unmarked={"udon001xxxx"})
    page.goto(f"{site}/search?q=醤油&semantic=1&sr=0.8")
    moment = page.locator('[data-video-id="udon001xxxx"] .moment')
    # Then it reads whole, says why it is there, and nothing in it is marked
    assert moment.locator(".moment-kind").inner_text() == "意味が近い"
    assert moment.locator("mark").count() == 0
    assert "醤油ラーメンも食べました。" in moment.locator(".snippet").inner_text()
    keep_screenshot(page, f"search-meaning-moments-{width}")
    fits(page, width)
    kind = moment.locator(".moment-kind").bounding_box()
    assert kind["x"] >= 0 and kind["x"] + kind["width"] <= width
    # When meaning could not be used, the page says so under the form
    answer(applied=False)
    page.reload()
    notice = page.get_by_role("status").filter(has_text="意味での検索は現在使えません")
    assert notice.is_visible()
    assert page.locator(".moment-kind").count() == 0
    keep_screenshot(page, f"search-meaning-unavailable-{width}")
    fits(page, width)
