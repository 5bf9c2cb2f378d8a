"""Subscribing with the keyboard alone: from the account page to the local checkout and
back, paying or leaving, and on to the billing portal. Every stop of Tab is on the
screen with a focus ring, the plans come in the order they are shown, and what the
provider confirms is said in the page's live region."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.accessibility import audit, keep_in_report, not_allowed
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import drain, keep_screenshots_at

# Where the keyboard's focus is, whether it can be seen, and whether it is marked: an
# outline of 2 px or more, or a box shadow.
FOCUSED = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const r = e.getBoundingClientRect();
  const s = getComputedStyle(e);
  const words = (e.getAttribute("aria-label") || e.textContent || e.value || "").trim();
  return {
    what: `${e.tagName.toLowerCase()} "${words.replace(/\\s+/g, " ").slice(0, 40)}"`,
    seen: r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0
      && r.top < innerHeight && r.left < innerWidth && s.visibility !== "hidden",
    ring: (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2)
      || (s.boxShadow !== "" && s.boxShadow !== "none"),
    inMain: !!e.closest("main"),
  };
}"""

# Whether the focused element comes after the one marked earlier in the document.
AFTER_MARKED = """() => {
  const before = window.lastStop, now = document.activeElement;
  window.lastStop = now;
  return !before || !document.contains(before)
    || !!(before.compareDocumentPosition(now) & Node.DOCUMENT_POSITION_FOLLOWING);
}"""


def tab_to(page, selector: str, key: str = "Tab", limit: int = 60) -> list[str]:
    """Press KEY until the focus is on SELECTOR, checking at every stop that the focused
    element is on the screen with a visible focus indicator, and (going forward) that
    the stops in the main part follow the document's order. The stops, in order."""
    stops = []
    page.evaluate("window.lastStop = null")
    for _ in range(limit):
        page.keyboard.press(key)
        focused = page.evaluate(FOCUSED)
        assert focused, f"{key} left the focus nowhere after {stops}"
        stops.append(focused["what"])
        assert focused["seen"], f"focused but not on the screen: {focused['what']}"
        assert focused["ring"], f"focused without a focus indicator: {focused['what']}"
        if key == "Tab" and focused["inMain"]:
            assert page.evaluate(AFTER_MARKED), f"out of order: {stops}"
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return stops
    raise AssertionError(f"{selector} not reached with {key}: {stops}")


def audited(page, name: str) -> None:
    """axe on a state of the page the audit's page list does not reach."""
    findings = audit(page, name)
    keep_in_report(findings)
    refused = not_allowed(findings)
    assert not refused, "\n".join(finding.line() for finding in refused)


def focused_matches(page, selector: str) -> bool:
    return page.evaluate("(s) => document.activeElement.matches(s)", selector)


def choose_plan_with_keys(page, site, plan: str) -> list[str]:
    """On the account page, Tab to the plan's subscribe button and press Enter; on the
    checkout page when it returns. The stops on the way."""
    page.goto(f"{site}/account")
    stops = tab_to(page, f"[data-subscribe='{plan}']")
    page.keyboard.press("Enter")
    page.wait_for_url("**/_local-payments/checkout/**")
    return stops


@pytest.mark.parametrize("width", [375, 1280])
def test_a_member_subscribes_with_the_keyboard_and_hears_it_confirmed(
    page, site, stub_broker, stub_worker, width
):
    make_user(email="keys-subscribe@example.jp")
    sign_in(page, site, "keys-subscribe@example.jp")
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/account")
    keep_screenshots_at(page, "keys-account", widths=(width,))

    # the plans are reached in the order they are shown: Plus, then Pro at once
    stops = tab_to(page, "[data-subscribe='plus']")
    assert not any("プロ" in stop for stop in stops), stops
    page.keyboard.press("Tab")
    assert focused_matches(page, "[data-subscribe='pro']")
    page.keyboard.press("Shift+Tab")
    assert focused_matches(page, "[data-subscribe='plus']")
    page.keyboard.press("Enter")
    page.wait_for_url("**/_local-payments/checkout/**")
    keep_screenshots_at(page, "keys-checkout", widths=(width,))

    # on the checkout: Pay, then Cancel; back to Pay and pay with the space bar
    tab_to(page, "form[action$='/complete'] button")
    page.keyboard.press("Tab")
    assert focused_matches(page, "form[action$='/cancel'] button")
    page.keyboard.press("Shift+Tab")
    assert focused_matches(page, "form[action$='/complete'] button")
    stub_worker.pause()  # the provider's webhook is on its way
    page.keyboard.press("Space")
    page.wait_for_url("**/account?subscribed=plus")

    # the page says "confirming" in a polite live region, and the same region then says
    # the plan is confirmed
    status = page.locator("[data-subscription-status]")
    expect(status).to_contain_text("確認中")
    assert status.get_attribute("role") == "status"
    page.evaluate("window.statusRegion = document.querySelector('[data-subscription-status]')")
    audited(page, f"/account?subscribed=plus (confirming, {width} px)")
    stub_worker.resume()
    drain(stub_broker, stub_worker)
    expect(status).to_contain_text("プラスへの登録が確認できました", timeout=30_000)
    assert page.evaluate("window.statusRegion.isConnected"), "the region was replaced"
    assert page.evaluate("window.statusRegion.textContent").count("確認できました") == 1

    # and the plan's management, shown without a reload, is in the keyboard's reach
    tab_to(page, "[data-portal]")
    keep_screenshots_at(page, "keys-confirmed", widths=(width,))


def test_leaving_the_checkout_with_the_keyboard_says_nothing_was_charged(page, site):
    make_user(email="keys-leave@example.jp")
    sign_in(page, site, "keys-leave@example.jp")
    choose_plan_with_keys(page, site, "pro")
    tab_to(page, "form[action$='/cancel'] button")
    page.keyboard.press("Enter")
    page.wait_for_url("**/account?cancelled=pro")

    left = page.locator("[data-checkout-left]")
    expect(left).to_have_text(
        "お支払いをせずに手続きを中止しました。料金はかかっておらず、プランもそのままです。"
    )
    assert left.get_attribute("role") == "status"
    assert page.locator("[data-plan]").get_attribute("data-plan") == "free"
    audited(page, "/account?cancelled=pro")
    # the plans are offered again, in reach of the keyboard
    tab_to(page, "[data-subscribe='pro']")
    keep_screenshots_at(page, "keys-left-checkout")


def test_the_billing_portal_works_with_the_keyboard(page, site, stub_broker, stub_worker):
    make_user(email="keys-portal@example.jp")
    sign_in(page, site, "keys-portal@example.jp")
    choose_plan_with_keys(page, site, "plus")
    tab_to(page, "form[action$='/complete'] button")
    page.keyboard.press("Enter")
    page.wait_for_url("**/account?subscribed=plus")
    drain(stub_broker, stub_worker)

    page.goto(f"{site}/account")
    tab_to(page, "[data-portal]")
    page.keyboard.press("Enter")
    page.wait_for_url("**/_local-payments/portal/**")
    keep_screenshots_at(page, "keys-portal")

    # the changes come in the order shown: Pro's, then cancelling, then the test button
    tab_to(page, "[data-change-plan='pro']")
    tab_to(page, "[data-cancel]")
    page.keyboard.press("Enter")
    expect(page.locator("[data-portal-cancels]")).to_contain_text("に解約されます")
    audited(page, "portal (cancelled at the period end)")
    tab_to(page, "[data-resume]")  # undoing it is in reach, and named in words
    tab_to(page, "[data-portal-return]")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{site}/account")
    expect(page.locator("[data-cancels-on]")).to_contain_text("に解約されます")
