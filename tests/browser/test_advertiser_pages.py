"""What someone thinking of advertising reads, at a phone's and a desktop's width: the
advertising terms (/terms), reached from every page's footer, and the public page for
advertisers (/advertise): the price of a slot-month, a picture of where each slot
appears, the rules, and the way on to sign in and buy."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from models.settings import get_settings
from tests.browser.test_page_widths import problems_at
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import keep_screenshots_at

WIDTHS = (375, 1280)
SLOT_NAMES = ("検索結果の途中", "検索結果下部", "動画プレイヤー下", "字幕ビューア下")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_terms_say_what_is_refused_and_what_follows(page, site, width):
    assert problems_at(page, f"{site}/terms", width) == []
    assert page.locator("h1").inner_text() == "広告掲載規約"
    headings = page.locator("main h2").all_inner_texts()
    for heading in [
        "掲載できない広告",
        "管理者による掲載停止",
        "返金",
        "アカウントの停止",
        "お問い合わせ",
    ]:
        assert heading in headings
    text = page.locator("main").inner_text()
    # The creative rules the form enforces, and the spec's content policy, in words.
    for rule in ["30 文字", "広告", "公式", "http://", "法令", "誤解", "返金しません"]:
        assert rule in text, rule
    contact = page.locator(f'main a[href="mailto:{get_settings().support_email}"]')
    assert contact.inner_text() == get_settings().support_email
    keep_screenshots_at(page, "terms")


def test_every_page_links_the_terms_from_its_footer(page, site):
    page.goto(f"{site}/")
    page.locator("footer").get_by_role("link", name="広告掲載規約").click()
    page.wait_for_url(f"{site}/terms")
    assert page.locator("h1").inner_text() == "広告掲載規約"


@pytest.mark.parametrize("width", WIDTHS)
def test_the_advertiser_page_shows_each_slot_its_picture_and_price(page, site, width):
    assert problems_at(page, f"{site}/advertise", width) == []
    slots = page.locator("[data-slot-offer]")
    assert slots.count() == 4
    for index, name in enumerate(SLOT_NAMES):
        slot = slots.nth(index)
        assert slot.locator("h3").inner_text() == name
        picture = slot.locator("img")
        assert picture.evaluate("img => img.complete && img.naturalWidth > 0")
        assert picture.bounding_box()["width"] >= min(width - 60, 240)
        assert picture.get_attribute("alt")
        # The local provider's price for Japan: 50,000 JPY a slot-month.
        assert "¥50,000" in slot.locator("[data-slot-price]").inner_text()
    text = page.locator("main").inner_text()
    assert "ミッドロール" not in text and "search-result" not in text
    assert page.locator('main a[href="/terms"]').count() >= 1
    keep_screenshots_at(page, "advertise")


def test_a_visitor_signs_in_and_lands_on_the_purchase_form(page, site):
    make_user(email="advertiser@example.jp")
    page.goto(f"{site}/advertise")
    apply = page.get_by_role("link", name="ログインして申し込む").first
    target = urlsplit(apply.evaluate("a => a.href"))
    assert (target.path, parse_qs(target.query)["next"]) == ("/login", ["/ads/new"])
    apply.click()
    page.fill("input[name=email]", "advertiser@example.jp")
    page.click("#dev-login button[type=submit]")
    page.wait_for_url(f"{site}/ads/new")
    assert page.locator("select[name=slot]").is_visible()


def test_a_member_goes_straight_to_the_purchase_form(page, site):
    make_user(email="member-advertiser@example.jp")
    sign_in(page, site, "member-advertiser@example.jp")
    page.goto(f"{site}/advertise")
    assert page.get_by_role("link", name="ログインして申し込む").count() == 0
    page.get_by_role("link", name="申し込む", exact=True).first.click()
    page.wait_for_url(f"{site}/ads/new")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_pages_fit_in_english_too(page, site, width):
    page.goto(f"{site}/terms")
    page.locator("footer").get_by_role("button", name="English").click()
    page.wait_for_load_state("load")
    for path in ["/advertise", "/terms"]:
        assert problems_at(page, f"{site}{path}", width) == []
        assert page.evaluate("document.documentElement.lang") == "en"
    assert "¥50,000 for one position a month" in page.goto(f"{site}/advertise").text()
    keep_screenshots_at(page, "advertise-en")
