"""The administrator's review in a browser: /admin/ads shows each ad's image, where a
click goes and who bought it, and opens the reservation's own page, where the
administrator approves and stops it as on the list; an approved ad for next month reads
scheduled, not running, to both sides. Nothing scrolls sideways on a phone."""

from __future__ import annotations

import pytest

from models.ads.images import store_ad_image
from models.ads.months import add_months, month_of
from models.clock import utcnow
from models.tables import AdReservation
from tests.browser.test_page_widths import problems_at
from tests.browser.test_purchase_form import sign_in
from tests.factories import image_bytes, make_admin, make_profile, make_reservation, make_user
from tests.fixtures import keep_screenshots_at

NEXT = add_months(month_of(utcnow()), 1)


@pytest.fixture
def advertiser():
    return make_user(email="review-advertiser@example.jp")


@pytest.fixture
def waiting(advertiser):
    """Paid, in review, for next month: its landing page is not on the name's site."""
    profile = make_profile(
        advertiser,
        business_legal_name="株式会社レビュー商事",
        contact_name="確認太郎",
        contact_email="review-contact@example.jp",
        business_category="finance",
    )
    return make_reservation(
        advertiser,
        profile,
        start_month=NEXT,
        end_month=add_months(NEXT, 1),
        payment_intent_id="pi_review_waiting",
        advertiser_name="公式ネット銀行",
        image_url=store_ad_image(advertiser.id, image_bytes()).url,
        redirect_url="https://official-bank.example.net/" + "campaign/" * 6 + "?ref=ad",
    )


@pytest.fixture
def scheduled(advertiser):
    """Paid and approved, for next month."""
    return make_reservation(
        advertiser,
        slot="search-result-midroll",
        position=2,
        status="active",
        start_month=NEXT,
        end_month=NEXT,
        payment_intent_id="pi_review_scheduled",
        advertiser_name="来月の書店",
        image_url=store_ad_image(advertiser.id, image_bytes()).url,
    )


def test_the_admin_reviews_on_the_reservations_page_approves_and_stops(page, site, waiting):
    sign_in(page, site, make_admin(email="review-admin@example.jp").email)
    page.goto(f"{site}/admin/ads")
    row = page.locator(f'tr[data-reservation-id="{waiting.id}"]')
    assert row.locator("[data-redirect-host]").inner_text() == "official-bank.example.net"
    assert row.locator("img").evaluate("img => img.complete && img.naturalWidth > 0")
    row.get_by_role("link", name="公式ネット銀行").click()
    page.wait_for_url(f"{site}/ads/{waiting.id}")

    review = page.locator("section.review")
    assert "株式会社レビュー商事" in review.inner_text() and "金融" in review.inner_text()
    assert review.locator("[data-status]").inner_text().startswith("審査待ち · 配信予定")
    review.get_by_role("button", name="承認", exact=True).click()
    page.locator("[data-result]").filter(has_text="「公式ネット銀行」を承認しました。").wait_for()
    assert AdReservation.get_by_id(waiting.id).status == "active"
    assert review.locator("[data-status]").inner_text().startswith("承認済み · 配信予定")
    assert page.locator("[data-payment-status]").inner_text().strip() == "配信予定"
    assert page.evaluate("document.activeElement.dataset.stop") == waiting.id

    page.keyboard.press("Enter")
    page.locator("#stop-dialog textarea[name=reason]").fill(
        "リンク先が表示名の会社のものではありません。"
    )
    page.locator("#stop-dialog").get_by_role("button", name="停止する").click()
    notice = page.locator("#notice-dialog")
    notice.wait_for(state="visible")
    assert (
        "リンク先が表示名の会社のものではありません。"
        in notice.locator("[data-notice-body]").inner_text()
    )
    assert AdReservation.get_by_id(waiting.id).status == "stopped"
    notice.get_by_role("button", name="閉じる").click()
    assert review.locator("[data-status]").inner_text().startswith("停止")


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_pages_fit_a_phone_and_say_scheduled_for_both_sides(
    page, site, advertiser, waiting, scheduled, language
):
    admin = make_admin(email=f"review-shots-{language}@example.jp")
    expected = {"ja": "配信予定", "en": "Scheduled"}[language]
    for who, email in [("advertiser", advertiser.email), ("admin", admin.email)]:
        # Away from the last page first: an answer still on its way (a poll refreshing
        # the session) would set the cookie again after it is cleared.
        page.goto("about:blank")
        page.context.clear_cookies()
        sign_in(page, site, email)
        if language == "en":
            page.get_by_role("button", name="English").click()
            page.wait_for_load_state("load")
        paths = {"ads": "/ads", "ad": f"/ads/{scheduled.id}", "review": f"/ads/{waiting.id}"}
        if who == "admin":
            paths["admin-ads"] = "/admin/ads"
        for name, path in paths.items():
            assert problems_at(page, f"{site}{path}", 375) == [], (who, path)
            assert page.evaluate("document.documentElement.scrollWidth") <= 375, (who, path)
            main = page.locator("main").inner_text()
            # The scheduled ad is on its page, the advertiser's list and the admin's.
            if name == "ad" or (name, who) in {("ads", "advertiser"), ("admin-ads", "admin")}:
                assert expected in main, (who, path)
            keep_screenshots_at(page, f"{name}-{who}-{language}")
        page.goto(f"{site}/ads/{scheduled.id}")
        assert page.locator("[data-payment-status]").inner_text().strip() == expected
