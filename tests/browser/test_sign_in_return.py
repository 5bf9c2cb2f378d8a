"""Signing in from a page comes back to that page with its whole address: the moment
(`t`) and the search words (`q`) of a video page are kept through the sign-in."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from tests.factories import make_user, make_video
from tests.fixtures import REAL_BROWSER_UA, keep_screenshot


@pytest.mark.parametrize("width", [375, 1280])
def test_the_header_sign_in_comes_back_to_the_moment_and_the_search(page, site, width):
    user = make_user(email="returning@example.jp")
    video = make_video()
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/videos/{video.id}?t=87&q=大阪")
    sign_in_link = page.locator(".site-header a", has_text="ログイン")
    expect(sign_in_link).to_be_visible()
    sign_in_link.click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/login")
    keep_screenshot(page, f"sign-in-from-video-{width}")
    page.fill("input[name=email]", user.email)
    page.click("#dev-login button[type=submit]")
    page.wait_for_url(lambda url: urlsplit(url).path == f"/videos/{video.id}")
    assert parse_qs(urlsplit(page.url).query) == {"t": ["87"], "q": ["大阪"]}
    expect(page.locator(".site-header")).to_contain_text("アカウント")


def test_the_sign_in_page_keeps_its_own_target_in_the_header_link(page, site):
    page.goto(f"{site}/login?next=/search%3Fq%3D%E5%A4%A7%E9%98%AA")
    href = page.locator(".site-header a", has_text="ログイン").get_attribute("href")
    assert parse_qs(urlsplit(href).query) == {"next": ["/search?q=大阪"]}


def test_the_sign_in_form_cannot_be_sent_before_its_script_handles_it(browser, site):
    """Before login.js runs (slow, or off), the button is disabled: a click would
    otherwise send the form as a GET, the e-mail address in the URL and the logs."""
    context = browser.new_context(user_agent=REAL_BROWSER_UA, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{site}/login")
        page.fill("input[name=email]", "early@example.jp")
        # a disabled default button also blocks the submission by Enter (HTML's rule)
        expect(page.locator("#dev-login button[type=submit]")).to_be_disabled()
    finally:
        context.close()
