"""The advertiser and admin pages in the reader's words: no slot ids, status codes or
raw months on them, and the admin tables fit a phone (issue 13)."""

from __future__ import annotations

from models.clock import utcnow
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_admin, make_reservation, make_user
from tests.fixtures import keep_screenshot

CODES = ("search-result-bottom", "search-result-midroll", "pending_review", "active", "2027-01")


def shoot(page, name, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(100)
    keep_screenshot(page, f"{name}-{width}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} is wider than {width} px"


def test_the_advertiser_and_admin_pages_show_words_not_codes(page, site, violations):
    owner = make_user(email="words@example.jp")
    make_reservation(owner, status="pending_review", slot="search-result-bottom")
    make_reservation(owner, status="active", slot="search-result-midroll", position=2)
    make_admin(email="words-admin@example.jp")
    sign_in(page, site, "words@example.jp")
    for path, name in [("/ads/new", "ads-new"), ("/ads", "ads-list")]:
        page.goto(f"{site}{path}")
        main = page.locator("main").inner_text()
        for code in CODES:
            assert code not in main, (path, code)
        for width in (375, 1280):
            shoot(page, name, width)
    # The approved ad of 2027-01 is not running before its month: scheduled until then.
    delivery = "配信予定" if utcnow().strftime("%Y-%m") < "2027-01" else "配信中"
    assert "入金確認中" in main and delivery in main and "2027年1月" in main

    page.goto("about:blank")  # no answer of the last page sets the session again
    page.context.clear_cookies()
    sign_in(page, site, "words-admin@example.jp")
    page.goto(f"{site}/admin/ads")
    table = page.locator("[data-reservations]").inner_text()
    for code in CODES:
        assert code not in table, code
    assert "審査待ち" in table and "検索結果" in table and "日本" in table
    for width in (375, 1280):
        shoot(page, "admin-ads", width)
    assert violations == []
