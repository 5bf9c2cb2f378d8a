"""docs/examples/cors-search.html, served from a second local origin as another site
would serve it, searches the live service: with its origin in CORS_ORIGINS it lists the
results, from an origin not there the browser refuses it the answer and it says so."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from models import ingest
from tests.factories import make_user
from tests.fakes.http import serve
from tests.fixtures import REAL_BROWSER_UA

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "cors-search.html"
CHANNEL = "UCcorsexamplecorsexampl"
VIDEO = "corsExampl1"


def example_site(environ, start_response):
    """The example page, as a static file server of another site serves it."""
    if environ.get("PATH_INFO") != "/cors-search.html":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found"]
    start_response("200 OK", [("Content-Type", "text/html; charset=utf-8")])
    return [EXAMPLE.read_bytes()]


@pytest.fixture
def allowed_origin():
    with serve(example_site) as url:
        yield url


@pytest.fixture
def other_origin():
    with serve(example_site) as url:
        yield url


@pytest.fixture
def settings(settings, allowed_origin):
    """The live server (the `site` fixture) allows the first example origin only."""
    return replace(settings, cors_origins=(allowed_origin,))


@pytest.fixture
def library(site, platform_files):
    platform_files.channel(CHANNEL, [VIDEO], title="別サイトから読むチャンネル")
    platform_files.video(
        VIDEO,
        CHANNEL,
        {
            "type": "manual",
            "language": "ja",
            "cues": [{"start": 42.0, "end": 46.0, "text": "<b>たこ焼き</b>を焼きました。"}],
        },
        title="大阪の旅",
    )
    ingest.import_channel(CHANNEL)
    ingest.fetch_subtitles(VIDEO)


@pytest.fixture
def browser_page(browser, site, allowed_origin, other_origin):
    """A browser that reaches the live service and the two example origins, nothing else."""
    local = {urlsplit(url).netloc for url in (site, allowed_origin, other_origin)}
    context = browser.new_context(user_agent=REAL_BROWSER_UA, locale="ja-JP")
    context.route(
        "**/*",
        lambda route: (
            route.continue_() if urlsplit(route.request.url).netloc in local else route.abort()
        ),
    )
    yield context.new_page()
    context.close()


def search_from(page, origin, site, words):
    page.goto(f"{origin}/cors-search.html?api={site}")
    page.fill("input[name=q]", words)
    page.click("button[type=submit]")


def test_the_example_page_of_an_allowed_site_lists_the_results(
    browser_page, site, allowed_origin, library
):
    search_from(browser_page, allowed_origin, site, "たこ焼き")
    status = browser_page.locator("[data-status]")
    expect(status).to_have_text("1 件見つかりました。")
    result = browser_page.locator("[data-results] li")
    expect(result).to_have_count(1)
    assert " ".join(result.inner_text().split()) == (
        "大阪の旅 — 別サイトから読むチャンネル 42 秒: <b>たこ焼き</b>を焼きました。"
    )
    assert result.locator("b").count() == 0  # the subtitle's text stays text
    assert result.locator("a").get_attribute("href").startswith("https://")


def test_the_example_page_of_another_site_is_refused_the_answer(
    browser_page, site, other_origin, library
):
    refused = []
    browser_page.on("console", lambda message: refused.append(message.text))
    search_from(browser_page, other_origin, site, "たこ焼き")
    status = browser_page.locator("[data-status]")
    expect(status).to_contain_text("検索できませんでした")
    expect(browser_page.locator("[data-results] li")).to_have_count(0)
    assert any("CORS policy" in text for text in refused), refused


# A call of the allowed page that sends the member's cookie (the two origins are one site:
# SameSite=Lax lets the cookie go), as a page would that forgot `credentials: "omit"`.
WITH_COOKIES = """async (url) => {
  try {
    const response = await fetch(url, {credentials: "include"});
    return `read ${response.status}`;
  } catch (error) {
    return "refused";
  }
}"""


def test_a_call_with_a_member_cookie_is_a_visitor_s_and_not_handed_to_the_page(
    browser_page, site, allowed_origin, library
):
    member = make_user(email="cors-member@example.jp")
    browser_page.goto(f"{site}/login")
    browser_page.fill("input[name=email]", member.email)
    browser_page.click("#dev-login button[type=submit]")
    browser_page.wait_for_url(f"{site}/")
    browser_page.goto(f"{allowed_origin}/cors-search.html")
    outcome = browser_page.evaluate(WITH_COOKIES, f"{site}/api/search?q=たこ焼き")
    assert outcome == "refused"
    # the search was a visitor's: nothing in the member's history
    browser_page.goto(f"{site}/account")
    expect(browser_page.locator(".history")).to_contain_text("まだ検索していません。")
