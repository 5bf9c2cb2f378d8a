"""The ad's return page after the checkout tells only what the payment provider has
confirmed: 確認中 while the webhook is on its way (the page follows it without a
reload), 入金待ち with the konbini deadline and how to pay, a pay button only when the
checkout can still be opened, and a refused button said in words. Walked through the
local checkout page (card, konbini, abandon), with the worker delivering the webhooks."""

from __future__ import annotations

import re

from models.tables import AdReservation
from tests.browser.test_purchase_form import sign_in
from tests.browser.test_purchase_lifecycle import order_and_go_to_checkout
from tests.factories import make_profile, make_user
from tests.fixtures import drain, keep_screenshots_at

BUYER = "return@example.jp"
CONFIRMED_PAID = "お支払いを受け付けました"


def test_after_paying_by_card_the_page_says_confirming_until_the_webhook_then_in_review(
    page, site, stub_broker, stub_worker
):
    make_profile(make_user(email=BUYER))
    sign_in(page, site, BUYER)
    order_and_go_to_checkout(page, site)

    stub_worker.pause()  # the provider's event is on its way, not here yet
    page.click("button:text-is('支払う')")
    page.wait_for_url("**/ads/*?paid=1")
    status = page.locator("[data-payment-status]")
    assert status.inner_text().strip() == "入金確認中"
    news = page.locator("[data-payment-news-slot]")
    assert "決済事業者に確認しています" in news.inner_text()
    body = page.locator("main").inner_text()
    assert CONFIRMED_PAID not in body
    assert "支払い待ち" not in body and "残り" not in status.inner_text()
    assert page.locator("[data-resume-checkout]").count() == 0
    keep_screenshots_at(page, "ad-return-confirming")

    stub_worker.resume()  # the event arrives: the page follows without a reload
    page.locator("[data-payment-news='paid']").wait_for(timeout=15_000)
    assert CONFIRMED_PAID in news.inner_text()
    assert status.inner_text().strip() == "審査待ち"
    assert page.locator("[data-resume-checkout]").count() == 0
    keep_screenshots_at(page, "ad-return-paid")


def test_after_choosing_konbini_the_page_says_awaiting_payment_with_the_deadline(
    page, site, stub_broker, stub_worker
):
    make_profile(make_user(email=BUYER))
    sign_in(page, site, BUYER)
    order_and_go_to_checkout(page, site)
    checkout_url = page.url
    line = page.locator("[data-line-label]").inner_text()
    assert line.startswith("広告枠: 検索結果下部、日本、")  # what is bought, in words
    assert "price_local" not in page.locator("main").inner_text()
    keep_screenshots_at(page, "local-checkout-ad")

    page.click("button:text-is('コンビニ払い (後払い)')")
    page.locator("[data-status=awaiting_payment]").wait_for()
    drain(stub_broker, stub_worker)
    page.click("a:text-is('お店に戻る')")
    page.wait_for_url("**/ads/*?paid=1")

    main = page.locator("main").inner_text()
    assert CONFIRMED_PAID not in main
    assert page.locator("[data-payment-status]").inner_text().startswith("コンビニでの入金待ち")
    news = page.locator("[data-payment-news='payment_pending']")
    assert "まだ入金されていません" in news.inner_text()
    due = news.locator("[data-payment-due]").inner_text()
    assert re.fullmatch(r"\d{4}/\d{2}/\d{2} \d{2}:\d{2}", due), due
    assert "払込票" in news.inner_text()  # how to pay
    assert page.locator("[data-resume-checkout]").count() == 0  # it cannot be opened again
    keep_screenshots_at(page, "ad-return-konbini")

    # the list says the same, with no button that would answer 409
    page.goto(f"{site}/ads")
    row = page.locator("[data-own-reservations] tbody tr").first
    assert "コンビニでの入金待ち" in row.inner_text()
    assert row.locator("[data-resume-checkout]").count() == 0

    # paid at the shop: the reservation goes to review
    page.goto(checkout_url)
    page.click("button:text-is('入金する')")
    drain(stub_broker, stub_worker)
    page.goto(f"{site}/ads/{AdReservation.get().id}")
    assert page.locator("[data-payment-status]").inner_text().strip() == "審査待ち"


def test_a_refused_pay_button_says_why_in_words(page, site, stub_broker, stub_worker):
    """Paid by card, the event not yet here: /ads still offers the checkout, which the
    provider has closed; the 409 is said beside the button."""
    make_profile(make_user(email=BUYER))
    sign_in(page, site, BUYER)
    order_and_go_to_checkout(page, site)
    stub_worker.pause()
    page.click("button:text-is('支払う')")
    page.wait_for_url("**/ads/*?paid=1")
    page.goto(f"{site}/ads")
    row = page.locator("[data-own-reservations] tbody tr").first
    row.locator("button:has-text('お支払いへ進む')").focus()
    page.keyboard.press("Enter")
    error = row.locator("[data-checkout-error]")
    error.wait_for()
    assert "お支払い画面はもう開けません" in error.inner_text()
    assert error.get_attribute("role") == "alert"
    assert row.locator("[data-resume-checkout]").count() == 0
    # The keyboard user is not dropped to the top of the page: the focus is on the
    # words that say why the button went.
    assert page.evaluate("document.activeElement.matches('[data-checkout-error]')")
    keep_screenshots_at(page, "ad-list-refused")
    stub_worker.resume()
    drain(stub_broker, stub_worker)
