"""Coming back from a plan checkout: the account page says what the provider has
confirmed. While the provider's webhook is on its way it says 確認中 and offers no
subscribe button; it follows the confirmation without a reload and then shows the new
plan, its credits (in the header too) and the subscription's management. A checkout
that is refused (409) is said in words."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import drain, keep_screenshots_at, no_sideways_scroll

MEMBER = "returning-subscriber@example.jp"


def pay_for_plus(page, site):
    page.goto(f"{site}/account")
    page.click("[data-subscribe='plus']")
    page.wait_for_url("**/_local-payments/checkout/**")
    page.click("button:text-is('支払う')")
    page.wait_for_url("**/account?subscribed=plus")


@pytest.mark.parametrize("width", [375, 1280])
def test_the_return_page_says_confirming_then_follows_the_confirmation(
    page, site, stub_broker, stub_worker, width
):
    make_user(email=MEMBER)
    sign_in(page, site, MEMBER)
    page.set_viewport_size({"width": width, "height": 800})
    stub_worker.pause()  # the provider's webhook is on its way
    pay_for_plus(page, site)

    status = page.locator("[data-subscription-status]")
    expect(status).to_be_visible()
    expect(status).to_contain_text("確認中")
    expect(page.locator("[data-plan]")).to_contain_text("確認中")
    expect(page.locator("[data-plan]")).not_to_contain_text("無料")
    # among the plans, the one being confirmed is marked so
    yours = page.locator("[data-plan-offer='plus'] [data-plan-yours]")
    expect(yours).to_have_text("確認中")
    assert page.locator("[data-subscribe]:visible").count() == 0
    expect(page.locator(".site-header [data-header-credits]")).to_have_text("50")
    keep_screenshots_at(page, f"subscription-confirming-{width}", widths=(width,))
    page.evaluate("window.stillTheSamePage = true")

    stub_worker.resume()
    drain(stub_broker, stub_worker)
    plan = page.locator("[data-plan]")
    expect(plan).to_have_attribute("data-plan", "plus", timeout=30_000)
    expect(plan).to_have_text("プラス（毎月 500 クレジット）")
    expect(status).to_contain_text("プラス")
    expect(status).not_to_contain_text("確認中")
    expect(yours).to_have_text("現在のプラン")
    expect(page.locator("[data-credit-balance]")).to_have_text("500")
    expect(page.locator(".site-header [data-header-credits]")).to_have_text("500")
    assert page.locator("[data-subscribe]:visible").count() == 0
    expect(page.locator("[data-portal]")).to_be_visible()
    assert page.evaluate("window.stillTheSamePage") is True  # followed without a reload
    keep_screenshots_at(page, f"subscription-confirmed-{width}", widths=(width,))
    page.set_viewport_size({"width": width, "height": 800})
    no_sideways_scroll(page)


def test_a_confirmation_that_does_not_come_is_said_after_a_while(
    page, site, stub_broker, stub_worker
):
    make_user(email=MEMBER)
    sign_in(page, site, MEMBER)
    stub_worker.pause()
    page.clock.install()
    pay_for_plus(page, site)
    status = page.locator("[data-subscription-status]")
    expect(status).to_contain_text("確認中")
    asked = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/api/me") else None)
    for _ in range(40):  # ten simulated minutes, in steps the page's fetches can follow
        page.clock.run_for(15_000)
        page.wait_for_timeout(25)
    expect(status).to_contain_text("再読み込み")
    count = len(asked)
    assert 3 <= count <= 30, f"asked {count} times"  # backed off, and stopped
    page.clock.run_for(600_000)
    page.wait_for_timeout(100)
    assert len(asked) == count
    stub_worker.resume()
    drain(stub_broker, stub_worker)


@pytest.mark.parametrize("width", [375, 1280])
def test_a_second_checkout_at_once_is_refused_in_words(page, site, width):
    make_user(email=MEMBER)
    sign_in(page, site, MEMBER)
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/account")
    page.click("[data-subscribe='plus']")
    page.wait_for_url("**/_local-payments/checkout/**")
    page.go_back()
    page.wait_for_url(f"{site}/account")
    page.click("[data-subscribe='pro']")
    error = page.locator("[data-subscribe-error]")
    expect(error).to_be_visible()
    expect(error).to_contain_text("手続き")
    assert "checkout_open" not in error.inner_text()
    assert "409" not in error.inner_text()
    keep_screenshots_at(page, f"subscription-refused-{width}", widths=(width,))
