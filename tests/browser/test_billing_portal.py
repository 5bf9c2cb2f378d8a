"""The billing portal round trip in a browser, on the local provider: the account page's
button opens the portal, the member switches to pro, comes back to the account page and
sees the new plan and credits; then cancels and sees the end date."""

from __future__ import annotations

import pytest

from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import drain, keep_screenshots_at, no_sideways_scroll

MEMBER = "portal-browser@example.jp"


@pytest.fixture
def subscribed(page, site, stub_broker, stub_worker):
    make_user(email=MEMBER)
    sign_in(page, site, MEMBER)
    page.goto(f"{site}/account")
    page.click("[data-subscribe='plus']")
    page.wait_for_url("**/_local-payments/checkout/**")
    keep_screenshots_at(page, "checkout")
    no_sideways_scroll(page)
    page.click("button:text-is('支払う')")
    page.wait_for_url("**/account?subscribed=plus")
    drain(stub_broker, stub_worker)
    page.goto(f"{site}/account")
    return page


def test_account_page_to_portal_change_plan_and_back(subscribed, site, stub_broker, stub_worker):
    page = subscribed
    assert page.locator("[data-plan]").get_attribute("data-plan") == "plus"
    assert page.locator("[data-renews-on]").is_visible()
    keep_screenshots_at(page, "account-plus")
    no_sideways_scroll(page)

    page.click("[data-portal]")
    page.wait_for_url("**/_local-payments/portal/**")
    assert page.locator("[data-portal-plan]").get_attribute("data-portal-plan") == "plus"
    keep_screenshots_at(page, "portal-plus")
    no_sideways_scroll(page)

    page.click("[data-change-plan='pro']")
    page.wait_for_url("**/_local-payments/portal/**")
    drain(stub_broker, stub_worker)
    page.reload()
    assert page.locator("[data-portal-plan]").get_attribute("data-portal-plan") == "pro"

    page.click("[data-portal-return]")
    page.wait_for_url(f"{site}/account")
    assert page.locator("[data-plan]").get_attribute("data-plan") == "pro"
    assert page.locator("[data-credit-balance]").inner_text() == "2000"

    # cancel at the period end: the account page says when it ends
    page.click("[data-portal]")
    page.wait_for_url("**/_local-payments/portal/**")
    page.click("[data-cancel]")
    page.wait_for_url("**/_local-payments/portal/**")
    drain(stub_broker, stub_worker)
    page.reload()
    assert page.locator("[data-portal-cancels]").is_visible()
    keep_screenshots_at(page, "portal-cancelled")
    page.click("[data-portal-return]")
    page.wait_for_url(f"{site}/account")
    assert "に解約されます" in page.locator("[data-cancels-on]").inner_text()
    assert page.locator("[data-plan]").get_attribute("data-plan") == "pro"
    keep_screenshots_at(page, "account-cancelled")
    no_sideways_scroll(page)


def test_the_portal_button_shows_the_error_when_there_is_nothing_to_manage(
    subscribed, site, stub_broker, stub_worker
):
    page = subscribed
    page.click("[data-portal]")
    page.wait_for_url("**/_local-payments/portal/**")
    portal = page.url
    page.go_back()
    page.wait_for_url(f"{site}/account")
    # meanwhile the subscription ends in another tab
    other = page.context.new_page()
    other.goto(portal)
    other.click("[data-cancel]")
    other.wait_for_url(portal)
    other.click("[data-end-period]")
    other.wait_for_url(portal)
    assert other.locator("[data-portal-empty]").is_visible()
    other.close()
    drain(stub_broker, stub_worker)

    page.click("[data-portal]")  # enabled again after coming back
    error = page.locator("[data-portal-error]")
    error.wait_for(state="visible")  # the API's code, in the reader's words
    assert error.inner_text() == "管理する契約がありません。先にプランに登録してください。"
