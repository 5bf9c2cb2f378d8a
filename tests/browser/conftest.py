"""Headless Chromium (Debian's package) driven by Playwright, for what only a browser shows."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import sync_playwright

from tests.fixtures import REAL_BROWSER_UA

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium is needed at {CHROMIUM} (apt-get install chromium; see README)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, site):
    context = browser.new_context(
        viewport={"width": 1000, "height": 700},
        user_agent=REAL_BROWSER_UA,
        # A Japanese reader's browser: its own controls (month picker, file chooser)
        # and Intl formatting speak Japanese too.
        locale="ja-JP",
        timezone_id="Asia/Tokyo",
        extra_http_headers={"Edge-IPCountry": "JP", "Accept-Language": "ja"},
    )
    keep_to_site(context, site)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def page_without_script(browser, site):
    """A page of a browser with JavaScript turned off: what the plain HTML does alone."""
    context = browser.new_context(
        java_script_enabled=False,
        user_agent=REAL_BROWSER_UA,
        extra_http_headers={"Accept-Language": "ja"},
    )
    keep_to_site(context, site)
    page = context.new_page()
    yield page
    context.close()


def keep_to_site(context, site):
    """Nothing leaves the machine: every request but the site's (the player's iframe, the
    thumbnails' host) is refused."""
    local = urlsplit(site).netloc

    def only_this_site(route):
        if urlsplit(route.request.url).netloc == local:
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_this_site)


@pytest.fixture
def violations(page):
    """Every message the browser logs about a refused resource or script."""
    found = []
    page.on(
        "console",
        lambda message: (
            found.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return found
