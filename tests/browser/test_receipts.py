"""Receipts in a browser (issue 48): the local provider's invoice page (a qualified
invoice, 適格請求書) of an ad and of a plan, at a phone's and a desktop's width and in
print, and the account's list of the plan's receipts. With PAGE_SCREENSHOTS set the
pages are saved as receipts-*.png."""

from __future__ import annotations

from models.ads.reservations import reserve
from models.billing import start_subscription_checkout
from models.payments import get_provider
from models.tables import AdCheckout, SubscriptionCheckout
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_order, make_profile, make_user
from tests.fakes.ad_pages import PAGES
from tests.fixtures import drain, keep_screenshots_at
from web.devtools.local_payments.events import send
from web.devtools.local_payments.tables import LocalInvoice


def switch_language(page, name):
    page.get_by_role("button", name=name).click()
    page.wait_for_load_state()


def paid_ad_invoice(user, months=3) -> str:
    """An ad bought by card through the local checkout; the path of its invoice page."""
    profile = make_profile(
        user,
        business_legal_name="株式会社とても長い名前の老舗書店ホールディングス",
        invoice_registration_number="T9876543210987",
    )
    order = make_order(
        user, profile, slot="video-detail-below-player", months=months, advertiser_name="老舗書店"
    )
    reservation = reserve(user.id, order, PAGES).reservation
    session_id = AdCheckout.get_by_id(reservation.id).checkout_session_id
    send(get_provider().complete(session_id))
    invoice = LocalInvoice.get(LocalInvoice.checkout_session_id == session_id)
    return f"/_local-payments/invoices/{invoice.id}"


def paid_plan_invoices(user, site, renewals=2) -> list[str]:
    """A plus subscription paid at checkout and renewed; its invoice pages' paths."""
    start_subscription_checkout(user.id, "plus", site)
    session_id = SubscriptionCheckout.get_by_id(user.id).session_id
    provider = get_provider()
    events = provider.complete(session_id)
    subscription_id = provider.checkout(session_id).subscription_id
    for _ in range(renewals):
        events += provider.end_period(subscription_id)
    send(events)
    return [
        f"/_local-payments/invoices/{row.id}"
        for row in LocalInvoice.select().where(LocalInvoice.subscription_id == subscription_id)
    ]


def test_the_ad_invoice_page_reads_and_prints(page, site, stub_broker, stub_worker):
    user = make_user(email="receipts-ad@example.jp")
    path = paid_ad_invoice(user)
    drain(stub_broker, stub_worker)
    page.goto(f"{site}{path}")
    heading = page.locator("h1")
    assert heading.inner_text() == "適格請求書（領収書）"
    assert "株式会社とても長い名前の老舗書店ホールディングス 御中" in page.inner_text(
        "[data-buyer]"
    )
    # 150,000 × 10 / 110 = 13,636.36, rounded half up
    assert page.inner_text("[data-tax]") == "¥13,636"
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        # Nothing wider than the window: the page never scrolls sideways.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    keep_screenshots_at(page, "receipts-ad-invoice")
    # In English, the same invoice in the reader's words (the buyer's name as written)
    switch_language(page, "English")
    assert page.locator("h1").inner_text() == "Qualified invoice (receipt)"
    assert "御中" in page.inner_text("[data-buyer]")
    assert page.inner_text("[data-tax]") == "¥13,636"
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        # The amounts in view at a phone's width: the table does not scroll sideways.
        table = page.locator("table.invoice-lines")
        assert table.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth")
    keep_screenshots_at(page, "receipts-ad-invoice-en")
    page.emulate_media(media="print")
    assert not page.locator(".site-header").is_visible()
    assert not page.locator(".site-footer").is_visible()
    assert page.locator("[data-issuer-registration]").is_visible()
    page.emulate_media(media="screen")


def test_the_reports_receipt_link_opens_the_invoice(page, site, stub_broker, stub_worker):
    user = make_user(email="receipts-report@example.jp")
    path = paid_ad_invoice(user, months=1)
    drain(stub_broker, stub_worker)  # the webhook records the payment
    reservation_id = AdCheckout.get(
        AdCheckout.checkout_session_id == LocalInvoice.get().checkout_session_id
    ).ad_reservation_id
    sign_in(page, site, user.email)
    page.goto(f"{site}/ads/{reservation_id}")
    link = page.locator("[data-receipt] a")
    assert link.inner_text() == "領収書（適格請求書）"
    link.click()
    page.wait_for_url(f"{site}{path}")
    assert page.inner_text("[data-tax]") == "¥4,545"


def test_the_account_lists_the_plans_receipts(page, site, stub_broker, stub_worker):
    user = make_user(email="receipts-plan@example.jp", name="山田花子")
    invoices = paid_plan_invoices(user, site)
    drain(stub_broker, stub_worker)
    sign_in(page, site, user.email)
    page.goto(f"{site}/account")
    rows = page.locator("[data-receipt-row]")
    assert rows.count() == 3
    assert "税込" in rows.first.inner_text()
    section = page.locator("[data-receipts]")
    section.scroll_into_view_if_needed()
    keep_screenshots_at(page, "receipts-account")
    switch_language(page, "English")
    section = page.locator("[data-receipts]")
    assert "Receipts" in section.inner_text() and "tax included" in section.inner_text()
    section.scroll_into_view_if_needed()
    keep_screenshots_at(page, "receipts-account-en")
    switch_language(page, "日本語")
    page.locator("[data-receipt-link]").first.click()
    page.wait_for_url(f"**{invoices[-1]}")
    assert "山田花子 様" in page.inner_text("[data-buyer]")
    keep_screenshots_at(page, "receipts-plan-invoice")
