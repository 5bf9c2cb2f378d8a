"""The account page and the local payment pages as a screen reader meets them: every
control has a name of its own (in Japanese and English), each copy button says what it
copies and its "copied" is announced every time, refusals are alerts tied to what they
are about, and a refused request leaves the keyboard's focus where it was."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.test_keyboard_subscribe import audited
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_subscription, make_user
from tests.fixtures import drain, keep_screenshots_at

# The roles a reader operates; each needs a name to be told apart.
CONTROLS = {"button", "link", "textbox", "combobox", "checkbox", "radio", "searchbox"}

COPY_NAMES = {
    "ja": ["紹介コードをコピー", "共有リンクをコピー"],
    "en": ["Copy the referral code", "Copy the share link"],
}


def controls(page) -> list[tuple[str, str]]:
    """(role, accessible name) of every control Chromium exposes to assistive technology."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    found = []
    for node in nodes:
        role = (node.get("role") or {}).get("value")
        if node.get("ignored") or role not in CONTROLS:
            continue
        found.append((role, ((node.get("name") or {}).get("value") or "").strip()))
    return found


def check_names(page, where: str) -> list[str]:
    """Every control is named, and no two buttons share a name. The buttons' names."""
    found = controls(page)
    assert found, where
    unnamed = [role for role, name in found if not name]
    assert not unnamed, f"{where}: controls without a name: {unnamed}"
    buttons = [name for role, name in found if role == "button"]
    twice = sorted({name for name in buttons if buttons.count(name) > 1})
    assert not twice, f"{where}: buttons that share a name: {twice}"
    return buttons


@pytest.mark.parametrize("language", ["ja", "en"])
def test_every_control_has_a_name_of_its_own(page, site, stub_broker, stub_worker, language):
    make_user(email=f"names-{language}@example.jp", locale=language)
    sign_in(page, site, f"names-{language}@example.jp")
    page.goto(f"{site}/account")
    buttons = check_names(page, "account")
    for name in COPY_NAMES[language]:
        assert name in buttons, buttons
    # the language menu names each language in its own language
    assert page.locator("select[name=locale] option[value=en]").get_attribute("lang") == "en"
    assert page.locator("select[name=locale] option[value=ja]").get_attribute("lang") == "ja"

    page.click("[data-subscribe='plus']")
    page.wait_for_url("**/_local-payments/checkout/**")
    check_names(page, "checkout")
    page.click("form[action$='/complete'] button")
    page.wait_for_url("**/account?subscribed=plus")
    drain(stub_broker, stub_worker)
    page.goto(f"{site}/account")
    check_names(page, "account, subscribed")
    page.click("[data-portal]")
    page.wait_for_url("**/_local-payments/portal/**")
    check_names(page, "portal")


# Every text the region has shown, in order, from the moment this is run.
WATCH = """(selector) => {
  const region = document.querySelector(selector);
  window.shown = [];
  new MutationObserver(() => window.shown.push(region.textContent))
    .observe(region, {childList: true, characterData: true, subtree: true});
}"""


def test_copying_is_announced_every_time(page, site):
    user = make_user(email="copy-announced@example.jp")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    sign_in(page, site, user.email)
    page.goto(f"{site}/account")
    status = page.locator("[data-copy-status]")
    # the live region is in the page, empty, before anything is copied
    assert status.get_attribute("role") == "status"
    assert status.inner_text() == ""
    page.evaluate(WATCH, "[data-copy-status]")

    page.get_by_role("button", name="紹介コードをコピー").focus()
    page.keyboard.press("Enter")
    expect(status).to_have_text("コピーしました")
    assert page.evaluate("navigator.clipboard.readText()") == user.referral_code
    page.get_by_role("button", name="共有リンクをコピー").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.shown.filter((w) => w === 'コピーしました').length >= 2")
    assert page.evaluate("navigator.clipboard.readText()").endswith(f"ref={user.referral_code}")

    # the same words twice are two changes of the region, with a silence between them
    shown = page.evaluate("window.shown")
    changes = [words for i, words in enumerate(shown) if i == 0 or words != shown[i - 1]]
    assert changes[-3:] == ["コピーしました", "", "コピーしました"], shown


def test_refusals_are_alerts_tied_to_what_they_are_about(page, site):
    friend = make_user(email="alerts-friend@example.jp")
    make_user(email="alerts@example.jp")
    sign_in(page, site, "alerts@example.jp")
    page.goto(f"{site}/account")
    error = page.locator("[data-claim-error]")
    done = page.locator("[data-claim-status]")
    code = page.locator("#referral-claim input[name=code]")
    # both regions are in the page, empty, before anything is said
    assert error.get_attribute("role") == "alert" and error.inner_text() == ""
    assert done.get_attribute("role") == "status" and done.inner_text() == ""

    code.fill("NO-SUCH-CODE")
    code.press("Enter")
    expect(error).to_have_text("この紹介コードのユーザーはいません。")
    expect(code).to_have_attribute("aria-invalid", "true")
    expect(code).to_have_accessible_description("この紹介コードのユーザーはいません。")
    assert done.inner_text() == ""
    keep_screenshots_at(page, "claim-refused")
    audited(page, "/account (a code refused)")

    code.fill(friend.referral_code)
    code.press("Enter")
    expect(done).to_have_text("紹介コードを適用しました。")
    expect(error).to_have_text("")
    expect(code).to_have_attribute("aria-invalid", "false")

    # a second checkout at once is refused in an alert that was there before
    page.goto(f"{site}/account")
    refused = page.locator("[data-subscribe-error]")
    assert refused.get_attribute("role") == "alert" and refused.inner_text() == ""
    page.click("[data-subscribe='plus']")
    page.wait_for_url("**/_local-payments/checkout/**")
    page.go_back()
    page.wait_for_url(f"{site}/account")
    page.get_by_role("button", name="プロに登録").focus()
    page.keyboard.press("Enter")
    expect(refused).to_contain_text("手続き")
    assert page.evaluate("document.activeElement.dataset.subscribe") == "pro"
    keep_screenshots_at(page, "subscribe-refused")


def test_a_refused_portal_says_why_and_keeps_the_focus(page, site):
    member = make_user(email="portal-refused@example.jp")
    make_subscription(member)
    sign_in(page, site, member.email)
    # the provider has just ended the subscription: the API refuses the portal
    page.route(
        "**/api/billing/portal",
        lambda route: route.fulfill(
            status=409,
            content_type="application/json",
            body=json.dumps({"error": {"code": "no_subscription", "message": "none"}}),
        ),
    )
    page.goto(f"{site}/account")
    error = page.locator("[data-portal-error]")
    assert error.get_attribute("role") == "alert" and error.inner_text() == ""
    manage = page.get_by_role("button", name="契約を管理する")
    manage.focus()
    page.keyboard.press("Enter")
    expect(error).to_have_text("管理する契約がありません。先にプランに登録してください。")
    # the focus is still on the button, which can be pressed again
    assert page.evaluate("document.activeElement.hasAttribute('data-portal')")
    expect(manage).to_have_attribute("aria-disabled", "false")
    expect(manage).to_be_enabled()
