"""The account page in a browser: copy the referral code and its share link, read a
wrong code's refusal in Japanese, switch the page to English."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import keep_screenshots_at


def test_copy_claim_and_switch_to_english(page, site):
    user = make_user(email="account-browser@example.jp")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    sign_in(page, site, user.email)
    page.goto(f"{site}/account")
    keep_screenshots_at(page, "account")
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"the account page scrolls sideways at {width} px"
    page.set_viewport_size({"width": 1000, "height": 700})

    page.click(f"button[data-copy='{user.referral_code}']")
    status = page.locator("[data-copy-status]")
    expect(status).to_have_text("コピーしました")
    assert page.evaluate("navigator.clipboard.readText()") == user.referral_code
    page.evaluate("document.querySelector('[data-copy-status]').textContent = ''")
    page.locator("[data-share-link] + button[data-copy]").click()
    expect(status).to_have_text("コピーしました")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.endswith(f"/login?next=/account?ref%3D{user.referral_code}") or (
        f"ref%3D{user.referral_code}" in copied or f"ref={user.referral_code}" in copied
    )

    page.fill("#referral-claim input[name=code]", "NO-SUCH-CODE")
    page.click("#referral-claim button[type=submit]")
    message = page.locator("#referral-claim .message")
    expect(message).to_have_text("この紹介コードのユーザーはいません。")

    page.select_option("[data-preferences] select[name=locale]", "en")
    page.click("[data-preferences] button[type=submit]")
    page.wait_for_url(f"{site}/account")
    assert page.locator("h1").inner_text() == "Account"
    assert page.locator("[data-subscribe='plus']").inner_text() == "Subscribe to Plus"
    assert page.locator("[data-preferences] select[name=locale]").input_value() == "en"
    keep_screenshots_at(page, "account-en")


def test_the_404_page_in_japanese(page, site):
    page.goto(f"{site}/no-such-page")
    assert "このページは見つかりません。" in page.locator(".error-message").inner_text()
    keep_screenshots_at(page, "404")
