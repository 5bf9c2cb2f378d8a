"""The advertiser's own ads: a stopped ad says it was stopped, why, the notice an
administrator sends and whom to ask, with no days left; the list names each ad and shows
its image."""

from __future__ import annotations

from models.ads.images import store_ad_image
from models.ads.months import month_of
from models.ads.reservations import stop
from models.clock import utcnow
from models.settings import get_settings
from tests.browser.test_purchase_form import sign_in
from tests.factories import image_bytes, make_reservation, make_user
from tests.fakes.ad_pages import PAGES
from tests.fixtures import keep_screenshots_at, sideways_overflow

REASON = "リンク先のページが表示名と異なる商品を販売していたため"


def running_ad(user, name, position=1):
    image = store_ad_image(user.id, image_bytes())
    this_month = month_of(utcnow())
    return make_reservation(
        user=user,
        advertiser_name=name,
        image_url=image.url,
        start_month=this_month,
        end_month=this_month,
        position=position,
        status="active",
        payment_intent_id=f"pi_{name}",
    )


def test_a_stopped_ad_says_why_with_the_notice_and_the_contact(page, site):
    user = make_user(email="stopped@example.jp")
    reservation = running_ad(user, "山田商店")
    sign_in(page, site, user.email)
    _, notice = stop(reservation.id, REASON, PAGES)

    page.goto(f"{site}/ads/{reservation.id}")
    stopped = page.locator("[data-stopped]")
    assert "この広告は掲載を停止しました" in stopped.inner_text()
    assert stopped.locator("[data-stopped-reason]").inner_text() == REASON
    assert stopped.locator("[data-notice-subject]").inner_text() == notice.subject
    assert stopped.locator("[data-notice-body]").inner_text() == notice.body
    support = get_settings().support_email
    assert support and stopped.locator(f"a[href='mailto:{support}']").inner_text() == support
    assert page.locator("[data-days-left]").count() == 0
    assert "残り日数" not in page.locator("main").inner_text()
    keep_screenshots_at(page, "ad-stopped")


def test_the_list_names_each_ad_with_its_image(page, site):
    user = make_user(email="list@example.jp")
    running_ad(user, "山田商店")
    running_ad(user, "鈴木書店", position=2)
    sign_in(page, site, user.email)
    page.goto(f"{site}/ads")
    rows = page.locator("[data-own-reservations] tbody tr")
    names = sorted(rows.locator("[data-own-ad-name]").all_inner_texts())
    assert names == ["山田商店", "鈴木書店"]
    first = rows.first
    assert "検索結果下部 × 2 × 日本" in first.inner_text()  # kept as secondary text
    thumbnail = first.locator("[data-own-ad] img")
    thumbnail.scroll_into_view_if_needed()
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=thumbnail.element_handle()
    )
    keep_screenshots_at(page, "ads-list")


def test_on_a_phone_each_ad_is_a_card_with_its_status_in_view(page, site):
    user = make_user(email="list-phone@example.jp")
    running_ad(user, "山田商店")
    sign_in(page, site, user.email)
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{site}/ads")
    row = page.locator("[data-own-reservations] tbody tr").first
    status = row.locator("td.payment-status")
    box = status.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375
    # Each fact is named beside it, as the table's heading named it on a desktop.
    assert status.inner_text().strip() == "配信中"
    label = status.evaluate("cell => getComputedStyle(cell, '::before').content")
    assert label == '"状態"'
    keep_screenshots_at(page, "ads-list-phone", widths=(375,))
    assert sideways_overflow(page) <= 0
