"""The purchase form after a refusal and after a cancelled checkout: each reason beside
its field in the reader's words (never a raw field name nor a blanket 内容を確認して
ください), the terms linked from the consent, and on the way back from a cancelled
checkout the position free now and everything typed still there."""

from __future__ import annotations

from playwright.sync_api import expect

from models.ads.months import month_of
from models.clock import utcnow
from models.tables import AdReservation
from tests.browser.test_purchase_form import NEXT, fill_required, sign_in
from tests.factories import make_profile, make_user
from tests.fixtures import drain, keep_screenshots_at

BLANKET = "内容を確認してください"


def open_filled_form(page, site, email):
    """A member with a saved profile at the purchase form, its required fields filled."""
    make_profile(make_user(email=email))
    sign_in(page, site, email)
    page.goto(f"{site}/ads/new")
    page.locator("[data-inventory]").filter(has_text="割り当て予定の掲載位置").wait_for()
    fill_required(page)


def test_each_refusal_is_said_beside_its_field(page, site):
    open_filled_form(page, site, "words@example.jp")
    page.fill("input[name=advertiserName]", "山田広告店")
    page.fill("input[name=redirectUrl]", "example.jp/shop")
    page.check("input[name=consent]")
    page.click("#ad-order button[type=submit]")

    name_error = page.locator("[data-field-error=advertiserName]")
    name_error.wait_for()
    assert "広告を示す言葉は使えません" in name_error.inner_text()
    url_error = page.locator("[data-field-error=redirectUrl]")
    assert "http:// または https:// で始め" in url_error.inner_text()
    assert page.locator("input[name=advertiserName]").get_attribute("aria-invalid") == "true"
    form = page.locator("#ad-order").inner_text()
    assert "redirectUrl" not in form and "advertiserName" not in form
    assert BLANKET not in form
    keep_screenshots_at(page, "ad-form-errors")

    # a new name clears its message; the next refusal names the next rule
    page.fill("input[name=advertiserName]", "山田商店 公式")
    assert page.locator("[data-field-error=advertiserName]").count() == 0
    page.fill("input[name=redirectUrl]", "https://example.jp/shop")
    page.click("#ad-order button[type=submit]")
    name_error.wait_for()
    assert "提携を示す言葉は使えません" in name_error.inner_text()
    assert page.locator("[data-field-error=redirectUrl]").count() == 0

    page.fill("input[name=advertiserName]", "subsearch 山田")
    page.click("#ad-order button[type=submit]")
    page.locator("[data-field-error=advertiserName]").filter(
        has_text="このサービスの名前は使えません"
    ).wait_for()


def test_a_refusal_naming_a_number_or_a_month_says_it_in_japanese(page, site):
    open_filled_form(page, site, "numbers@example.jp")
    # 31 characters, past the field's own maxlength, and 13 months
    page.eval_on_selector(
        "input[name=advertiserName]", "input => { input.value = 'あ'.repeat(31); }"
    )
    page.fill("input[name=months]", "13")
    page.check("input[name=consent]")
    page.click("#ad-order button[type=submit]")
    name_error = page.locator("[data-field-error=advertiserName]")
    name_error.wait_for()
    assert name_error.inner_text() == "30 文字以内で入力してください"
    assert page.locator("[data-field-error=months]").inner_text() == "12 以下で入力してください"

    # a first month already begun names the first month that may be bought
    page.fill("input[name=advertiserName]", "山田商店")
    page.fill("input[name=months]", "1")
    page.fill("input[name=startMonth]", month_of(utcnow()))
    page.click("#ad-order button[type=submit]")
    month_error = page.locator("[data-field-error=startMonth]")
    month_error.wait_for()
    assert month_error.inner_text() == f"来月（{NEXT}）以降を選んでください"


def test_the_consent_links_to_the_terms(page, site):
    make_profile(make_user(email="terms@example.jp"))
    sign_in(page, site, "terms@example.jp")
    page.goto(f"{site}/ads/new")
    link = page.locator("label.consent a[data-terms-link]")
    # It reads 利用規約, and says to a screen reader that it opens in a new tab
    assert link.inner_text().splitlines()[0] == "利用規約"
    expect(link).to_have_accessible_name("利用規約 （新しいタブで開きます）")
    assert link.get_attribute("target") == "_blank"
    assert link.get_attribute("href") == "/terms"


def test_back_from_a_cancelled_checkout_the_form_keeps_what_was_typed_and_the_free_position(
    page, site, stub_broker, stub_worker
):
    make_profile(make_user(email="cancel@example.jp"))
    sign_in(page, site, "cancel@example.jp")
    page.goto(f"{site}/ads/new")
    page.select_option("select[name=slot]", "search-result-bottom")
    page.locator("[data-inventory]").filter(has_text="割り当て予定の掲載位置: 1").wait_for()
    page.fill("input[name=months]", "3")
    page.dispatch_event("input[name=months]", "change")
    fill_required(page)
    page.fill("input[name=advertiserName]", "山田商店 本店")
    page.check("input[name=consent]")
    page.click("#ad-order button[type=submit]")
    page.wait_for_url("**/_local-payments/checkout/**")

    stub_worker.pause()  # the provider's expired event has not arrived
    page.click("button:text-is('キャンセル')")
    page.wait_for_url("**/ads/new?cancelled=*")
    assert page.locator("[data-cancelled]").is_visible()
    assert AdReservation.select().count() == 0  # released by the way back itself
    inventory = page.locator("[data-inventory]")
    inventory.filter(has_text="割り当て予定の掲載位置: 1").wait_for()
    assert page.locator("select[name=slot]").input_value() == "search-result-bottom"
    assert page.locator("input[name=months]").input_value() == "3"
    assert page.locator("input[name=advertiserName]").input_value() == "山田商店 本店"
    assert page.locator("input[name=redirectUrl]").input_value() == "https://example.jp/shop"
    assert page.locator("[data-image-preview]").is_visible()  # the upload is kept
    assert "前にアップロードした画像" in page.locator("[data-image-notes]").inner_text()
    assert page.locator("#ad-order button[type=submit]").is_enabled()
    keep_screenshots_at(page, "ad-form-after-cancel")

    stub_worker.resume()
    drain(stub_broker, stub_worker)
    # buying again at once gets position 1
    page.click("#ad-order button[type=submit]")
    page.wait_for_url("**/_local-payments/checkout/**")
    assert AdReservation.get().position == 1
