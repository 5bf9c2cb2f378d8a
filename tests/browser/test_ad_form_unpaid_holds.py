"""The purchase form of a member at the limit of unpaid holds (issue 42): a refusal that
says, in Japanese, to pay an earlier reservation or wait for its checkout to lapse, and
leads to them; and on the next visit the same said before anything is typed."""

from __future__ import annotations

from models.ads.months import add_months, month_of
from models.clock import utcnow
from tests.browser.test_purchase_form import fill_required, sign_in
from tests.factories import make_profile, make_reservation, make_user
from tests.fixtures import keep_screenshots_at

NEXT = add_months(month_of(utcnow()), 1)


def test_a_member_at_the_limit_is_told_to_pay_or_wait(page, site):
    # Given a member holding one unpaid reservation, on the purchase form
    user = make_user(email="holds@example.jp")
    profile = make_profile(user)
    make_reservation(user, profile, slot="search-result-midroll", start_month=NEXT, end_month=NEXT)
    sign_in(page, site, "holds@example.jp")
    page.goto(f"{site}/ads/new")
    assert page.locator("[data-holds-full]").count() == 0
    page.locator("[data-inventory]").filter(has_text="割り当て予定の掲載位置").wait_for()
    # When a second hold is made meanwhile (another tab) and this order is sent
    make_reservation(
        user, profile, slot="video-detail-below-player", start_month=NEXT, end_month=NEXT
    )
    fill_required(page)
    page.check("input[name=consent]")
    page.click("#ad-order button[type=submit]")
    # Then the form says why in Japanese, and links to the reservations to pay
    errors = page.locator("[data-errors]")
    errors.filter(has_text="支払い待ちの予約が").wait_for()
    text = errors.inner_text()
    assert "上限に達しています" in text and "支払いを済ませる" in text
    assert "too_many_unpaid_holds" not in text
    link = errors.locator("a")
    assert (link.inner_text(), link.get_attribute("href")) == ("支払い待ちの予約を見る", "/ads")
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    keep_screenshots_at(page, "ad-form-unpaid-holds")

    # And the next visit says it at the top, before anything is typed
    page.goto(f"{site}/ads/new")
    notice = page.locator("[data-holds-full]")
    assert "支払い待ちの予約が 2 件あり" in notice.inner_text()
    assert "60 分" in notice.inner_text()
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    keep_screenshots_at(page, "ad-form-unpaid-holds-notice")
