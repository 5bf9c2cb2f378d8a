"""/admin/ads as an administrator meets it: at a desktop's width every column, the
approve and stop buttons included, is in sight without scrolling, and the country
filter's hint is readable; on a phone the table scrolls inside its own box."""

from __future__ import annotations

import pytest

from models.ads.months import add_months, month_of
from models.clock import utcnow
from tests.browser.test_page_widths import problems_at
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_admin, make_profile, make_reservation, make_user
from tests.fixtures import keep_screenshots_at
from web.i18n import LOCALE_COOKIE

NEXT = add_months(month_of(utcnow()), 1)

# How much of the filter's hint fits: its text drawn in the input's font, against the
# room inside the input.
HINT_FITS = """input => {
  const style = getComputedStyle(input);
  const canvas = document.createElement("canvas").getContext("2d");
  canvas.font = style.font;
  const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return canvas.measureText(input.placeholder).width <= room + 0.5;
}"""


@pytest.fixture
def reservations():
    advertiser = make_user(email="layout-advertiser@example.jp")
    profile = make_profile(
        advertiser,
        business_legal_name="株式会社とても長い名前の広告主ホールディングス",
        contact_email="a-very-long-contact-address@advertiser-example.co.jp",
    )
    waiting = make_reservation(
        advertiser,
        profile,
        slot="video-detail-below-subtitle",
        start_month=NEXT,
        end_month=add_months(NEXT, 11),
        payment_intent_id="pi_layout_1",
        advertiser_name="審査を待っているとても長い表示名の広告",
    )
    unpaid = make_reservation(
        advertiser,
        profile,
        slot="search-result-midroll",
        position=2,
        start_month=NEXT,
        end_month=NEXT,
        advertiser_name="支払いを待っている広告",
    )
    return waiting, unpaid


def test_every_column_is_in_sight_at_a_desktop_width(page, site, reservations):
    waiting, _ = reservations
    admin = make_admin(email="layout-admin@example.jp")
    sign_in(page, site, admin.email)
    assert problems_at(page, f"{site}/admin/ads", 1280) == []
    headings = page.locator("table[data-reservations] thead th")
    for index in range(headings.count()):
        box = headings.nth(index).bounding_box()
        assert box["x"] + box["width"] <= 1280, headings.nth(index).inner_text()
    row = page.locator(f'tr[data-reservation-id="{waiting.id}"]')
    for name in ["承認", "停止"]:
        button = row.get_by_role("button", name=name, exact=True)
        box = button.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 1280, name
    country = page.locator("form.filters input[name=country]")
    assert country.get_attribute("placeholder")
    assert country.evaluate(HINT_FITS)
    keep_screenshots_at(page, "admin-ads")


def test_a_phone_scrolls_the_table_in_its_box(page, site, reservations):
    waiting, _ = reservations
    admin = make_admin(email="layout-phone@example.jp")
    sign_in(page, site, admin.email)
    assert problems_at(page, f"{site}/admin/ads", 375) == []
    assert page.locator("form.filters input[name=country]").evaluate(HINT_FITS)
    stop = page.locator(f'tr[data-reservation-id="{waiting.id}"] [data-stop]')
    stop.scroll_into_view_if_needed()
    box = stop.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375


def test_the_words_are_plain_japanese(page, site, reservations):
    admin = make_admin(email="layout-words@example.jp")
    sign_in(page, site, admin.email)
    for path in ["/admin/ads", "/admin/ads/report"]:
        page.goto(f"{site}{path}")
        text = page.locator("main").inner_text()
        for jargon in ["ミッドロール", "トークン", "search-result-", "video-detail-"]:
            assert jargon not in text, (path, jargon)
        assert "CTR" not in text.replace("（CTR）", ""), path
        assert "クリック率" in text, path


@pytest.mark.parametrize("language", ["ja", "en"])
def test_nothing_scrolls_the_page_sideways_on_a_phone(page, site, reservations, language):
    # Given what advertisers really type: long names in one word, long addresses
    advertiser = make_user(email="layout-long@example.jp")
    profile = make_profile(
        advertiser,
        business_legal_name="SuperLongTradingCompanyNameWithoutAnySpacesHoldingsKK",
        contact_email="extremely-long-contact-address-for-invoices@subsidiary.advertiser-example.co.jp",
    )
    make_reservation(
        advertiser,
        profile,
        slot="search-result-bottom",
        status="stopped",
        start_month=NEXT,
        end_month=add_months(NEXT, 2),
        payment_intent_id="pi_layout_long",
        advertiser_name="SupercalifragilisticexpialidociousBooks",
        redirect_url="https://example.jp/" + "landing-page-with-a-very-long-path/" * 4,
    )
    page.context.add_cookies([{"name": LOCALE_COOKIE, "value": language, "url": site}])
    sign_in(
        page, site, make_admin(email=f"layout-long-{language}@example.jp", locale=language).email
    )
    # When the page is read at a phone's width, then it is no wider than the phone
    assert problems_at(page, f"{site}/admin/ads", 375) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # and every reservation, its actions included, is read without scrolling sideways
    region = page.locator("div.scroll").filter(has=page.locator("[data-reservations]"))
    assert region.evaluate("r => r.scrollWidth <= r.clientWidth")
    for cell in page.locator("[data-reservations] td").all():
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375, cell.inner_text()
    keep_screenshots_at(page, f"admin-ads-long-{language}")
