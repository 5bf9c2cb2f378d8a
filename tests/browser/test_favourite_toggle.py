"""The favourite toggle (☆/★) in a browser, on the search results: a click adds the
channel to the member's favourites without a reload, another removes it; every card of
that channel flips, and a signed-out visitor sees no toggle."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from models import library
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.web.pages.test_search_page_filters import RAMEN, UDON, index_two_channels


@pytest.fixture
def channels(platform_files):
    index_two_channels(platform_files)


def api_favourites(page, site) -> list[str]:
    answer = page.request.get(f"{site}/api/favorites")
    assert answer.status == 200
    return [f["channelId"] for f in answer.json()["favorites"]]


def toggles(page, channel_id):
    return page.locator(f'li.result [data-favourite-channel="{channel_id}"]')


def states(page, channel_id) -> list[tuple[str, str, str]]:
    return page.eval_on_selector_all(
        f'li.result [data-favourite-channel="{channel_id}"]',
        "buttons => buttons.map(b => [b.getAttribute('aria-pressed'), b.textContent.trim(),"
        " b.getAttribute('aria-label')])",
    )


def test_the_star_adds_and_removes_the_favourite_without_a_reload(page, site, channels, violations):
    user = make_user(email="stars@example.jp")
    sign_in(page, site, user.email)
    page.goto(f"{site}/search?q=醤油")
    page.evaluate("window.notReloaded = true")
    add = "ラーメン研究所 をお気に入りに追加"
    remove = "ラーメン研究所 をお気に入りから外す"
    assert states(page, RAMEN) == [["false", "☆", add]] * 2
    # Click: the star fills on both ramen cards, and the favourite exists
    page.locator(
        f'li.result[data-video-id="ramen01xxxx"] [data-favourite-channel="{RAMEN}"]'
    ).click()
    for n in range(2):
        expect(toggles(page, RAMEN).nth(n)).to_have_attribute("aria-pressed", "true")
    assert states(page, RAMEN) == [["true", "★", remove]] * 2
    assert states(page, UDON) == [["false", "☆", "うどん通信 をお気に入りに追加"]]
    assert api_favourites(page, site) == [RAMEN]
    assert library.favorite_channel_ids(user.id) == {RAMEN}
    # Click again (on the other card): removed
    page.get_by_role("button", name=remove).last.click()
    for n in range(2):
        expect(toggles(page, RAMEN).nth(n)).to_have_attribute("aria-pressed", "false")
    assert states(page, RAMEN) == [["false", "☆", add]] * 2
    assert api_favourites(page, site) == []
    assert page.evaluate("window.notReloaded") is True
    # The next page load shows the state the server keeps
    page.get_by_role("button", name="うどん通信 をお気に入りに追加").click()
    expect(toggles(page, UDON)).to_have_attribute("aria-pressed", "true")
    page.reload()
    assert states(page, UDON) == [["true", "★", "うどん通信 をお気に入りから外す"]]
    assert violations == []


def test_a_signed_out_visitor_sees_no_toggle(page, site, channels):
    page.goto(f"{site}/search?q=醤油&channels={RAMEN}")
    assert page.locator("li.result").count() == 2
    assert page.locator("[data-favourite-channel]").count() == 0


def test_a_refused_change_leaves_the_star_and_says_why(page, site, channels):
    user = make_user(email="refused@example.jp")
    sign_in(page, site, user.email)
    page.goto(f"{site}/search?q=醤油")
    # The session ended elsewhere: the API answers 401 in the contract's format
    page.route(
        "**/api/favorites/**",
        lambda route: route.fulfill(
            status=401,
            content_type="application/json",
            body='{"error": {"code": "unauthenticated", "message": "ログインし直してください。"}}',
        ),
    )
    toggles(page, UDON).click()
    # The API's code in the reader's words (i18n.js), not the API's own message
    alert = page.get_by_role("alert").filter(has_text="続けるにはログインしてください。")
    expect(alert).to_be_visible()
    assert states(page, UDON) == [["false", "☆", "うどん通信 をお気に入りに追加"]]
    assert library.favorite_channel_ids(user.id) == set()
