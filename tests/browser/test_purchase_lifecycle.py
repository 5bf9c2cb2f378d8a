"""The purchase walked in a browser: reserve, cancel the checkout, reserve the same
position again at once, leave without paying, pay later from /ads, and an admin
approves."""

from __future__ import annotations

from models.tables import AdReservation
from tests.browser.test_purchase_form import sign_in
from tests.factories import image_bytes, make_admin, make_profile, make_user
from tests.fixtures import REAL_BROWSER_UA, drain

BUYER = "buyer@example.jp"


def order_and_go_to_checkout(page, site):
    page.goto(f"{site}/ads/new")
    page.select_option("select[name=slot]", "search-result-bottom")
    page.locator("[data-inventory]").filter(has_text="割り当て予定の掲載位置: 1").wait_for()
    page.fill("input[name=advertiserName]", "山田商店")
    page.set_input_files(
        "input[name=image]",
        files=[{"name": "ad.png", "mimeType": "image/png", "buffer": image_bytes()}],
    )
    page.locator("[data-image-preview]").wait_for(state="visible")  # the upload answered
    page.fill("input[name=redirectUrl]", "https://example.jp/shop")
    page.check("input[name=consent]")
    page.click("#ad-order button[type=submit]")
    page.wait_for_url("**/_local-payments/checkout/**")


def test_reserve_cancel_reserve_again_pay_later_and_approve(
    page, browser, site, stub_broker, stub_worker
):
    make_profile(make_user(email=BUYER))
    admin = make_admin(email="admin@example.jp")
    sign_in(page, site, BUYER)

    # reserve, then cancel on the checkout page: the position is free at once
    order_and_go_to_checkout(page, site)
    page.click("button:text-is('キャンセル')")
    page.wait_for_url("**/ads/new?cancelled=*")
    drain(stub_broker, stub_worker)
    assert page.locator("[data-cancelled]").is_visible()
    assert AdReservation.select().count() == 0

    # reserve again: the same position, then leave the checkout without paying
    order_and_go_to_checkout(page, site)
    drain(stub_broker, stub_worker)
    page.goto(f"{site}/ads")
    row = page.locator("[data-own-reservations] tbody tr").first
    assert "支払い待ち" in row.inner_text()
    assert "審査待ち" not in row.inner_text()

    # pay later from /ads
    row.locator("button:has-text('お支払いへ進む')").click()
    page.wait_for_url("**/_local-payments/checkout/**")
    page.click("button:text-is('支払う')")
    page.wait_for_url("**/ads/*?paid=1")
    drain(stub_broker, stub_worker)
    reservation = AdReservation.get()
    assert (reservation.position, reservation.status) == (1, "pending_review")
    assert reservation.payment_intent_id is not None
    page.goto(f"{site}/ads")
    assert "審査待ち" in page.locator("[data-own-reservations] tbody tr").first.inner_text()

    # an admin approves it
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, user_agent=REAL_BROWSER_UA
    )
    admin_page = context.new_page()
    sign_in(admin_page, site, admin.email)
    admin_page.goto(f"{site}/admin/ads")
    admin_page.click(f"[data-approve='{reservation.id}']")
    # approving answers in place: the result is announced, no page is loaded
    admin_page.wait_for_function("() => document.querySelector('[data-result]').textContent.trim()")
    assert AdReservation.get_by_id(reservation.id).status == "active"
    context.close()
