"""Alerts in a browser (issue 49), against the real API: the search page's 通知 control
saves the search being looked at by keyboard, past the plan's limit offers the plans,
and signed out leads to sign-in and back; the account page lists the alerts with their
news, gives a feed a new address and deletes an alert without a reload, focus kept in
place. Nothing scrolls sideways on a phone, nothing is refused by the CSP, and the
screenshots (PAGE_SCREENSHOTS) show both pages at 375 and 1280 px in Japanese and
English."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from models import alerts
from models.tables import Alert, AlertMatch
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import keep_screenshots_at
from tests.web.pages.test_search_page_filters import RAMEN, index_two_channels

SEARCH = f"/search?q=醤油&channels={RAMEN}"


@pytest.fixture
def channels(platform_files):
    index_two_channels(platform_files)


def api_alerts(page, site) -> list[dict]:
    answer = page.request.get(f"{site}/api/alerts")
    assert answer.status == 200
    return answer.json()["alerts"]


def open_control(page):
    """Open the 通知 control by keyboard: its summary takes focus and Enter opens it."""
    summary = page.locator("details.alert-me > summary")
    summary.focus()
    page.keyboard.press("Enter")
    expect(page.locator("details.alert-me")).to_have_attribute("open", "")


def no_sideways_scroll(page) -> None:
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll <= inner, f"{page.url}: {scroll} px wide at {inner}"


def test_a_member_saves_the_search_by_keyboard(page, site, channels, violations):
    user = make_user(email="alert-saver@example.jp")
    sign_in(page, site, user.email)
    page.goto(f"{site}{SEARCH}&semantic=1&sr=0.3")
    open_control(page)
    form = page.locator("[data-alert-form]")
    expect(form).to_be_visible()  # the script runs: no "needs JavaScript"
    expect(page.locator("[data-alert-no-script]")).to_have_count(0)
    box = page.locator("details.alert-me")
    expect(box).to_contain_text("「醤油」に当てはまる新しい動画")
    expect(box).to_contain_text("チャンネル: ラーメン研究所。意味でも探します。")
    # The frequency by arrow keys, then Tab to the button and Enter.
    page.get_by_role("radio", name="見つかるたびにすぐ").focus()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("radio", name="1日1回まとめて")).to_be_checked()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="通知を登録")).to_be_focused()
    page.keyboard.press("Enter")
    saved = page.locator("[data-alert-saved]")
    expect(saved).to_be_visible()
    expect(saved).to_be_focused()  # the button is gone; focus is on what says it is done
    expect(saved.get_by_role("link", name="通知を見る")).to_have_attribute(
        "href", "/account#alerts"
    )
    [alert] = api_alerts(page, site)
    assert (alert["query"], alert["semantic"], alert["sr"]) == ("醤油", True, 0.3)
    assert (alert["channels"], alert["frequency"]) == ([RAMEN], "daily")
    # Escape closes the control, focus back on its summary.
    page.keyboard.press("Escape")
    expect(page.locator("details.alert-me")).not_to_have_attribute("open", "")
    expect(page.locator("details.alert-me > summary")).to_be_focused()
    # Shown again, the page says the search is already an alert.
    page.reload()
    open_control(page)
    expect(page.locator("[data-alert-already]")).to_be_visible()
    expect(page.locator("[data-alert-form]")).to_have_count(0)
    assert violations == []


def test_past_the_plan_s_limit_the_control_offers_the_plans(page, site, channels):
    user = make_user(email="alert-limit@example.jp")
    for words in ("たこ焼き", "明石焼き", "お好み焼き"):
        alerts.create_alert(user.id, words, frequency="daily")
    sign_in(page, site, user.email)
    page.goto(f"{site}{SEARCH}")
    open_control(page)
    page.get_by_role("button", name="通知を登録").click()
    error = page.locator("[data-alert-error]")
    expect(error).to_contain_text("今のプランで登録できる数の通知をすでに登録しています。")
    expect(error.get_by_role("link", name="プランを見る")).to_have_attribute(
        "href", "/account#plans"
    )
    expect(error.get_by_role("link", name="通知を削除する")).to_have_attribute(
        "href", "/account#alerts"
    )
    expect(page.get_by_role("button", name="通知を登録")).to_be_visible()  # still there
    assert len(api_alerts(page, site)) == 3


def test_a_signed_out_visitor_signs_in_and_comes_back_to_the_search(page, site, channels):
    make_user(email="alert-visitor@example.jp")
    page.goto(f"{site}{SEARCH}")
    open_control(page)
    page.locator("[data-alert-sign-in]").click()
    page.wait_for_url(lambda url: "/login?next=" in url)
    page.fill("input[name=email]", "alert-visitor@example.jp")
    page.click("#dev-login button[type=submit]")
    page.wait_for_url(lambda url: url.startswith(f"{site}/search?"))
    open_control(page)
    expect(page.locator("[data-alert-form]")).to_be_visible()


def with_news(user) -> tuple[Alert, Alert]:
    """Two alerts of the member's, the older with a video heard of."""
    older = alerts.create_alert(user.id, "醤油", channels=[RAMEN], frequency="instant")
    AlertMatch.create(
        alert=older.id,
        video_id="ramen01xxxx",
        start_seconds=0.0,
        end_seconds=4.0,
        highlight="<mark>醤油</mark>ラーメンの話です。",
        found_at="2026-11-29T03:00:00.000Z",
    )
    newer = alerts.create_alert(user.id, "たこ焼き 大阪", semantic=True, frequency="daily")
    return older, newer


def test_the_account_renews_a_feed_and_deletes_an_alert(page, site, channels, violations):
    user = make_user(email="alert-account@example.jp")
    older, _newer = with_news(user)
    sign_in(page, site, user.email)
    page.goto(f"{site}/account#alerts")
    page.evaluate("window.notReloaded = true")
    items = page.locator("[data-alert-id]")
    expect(items).to_have_count(2)
    # (the two were saved in the same moment, so which is listed first is not fixed)
    first = page.locator(f'[data-alert-id="{older.id}"]')
    expect(first.locator(".alert-news a")).to_have_attribute(
        "href", f"/videos/ramen01xxxx?q={'%E9%86%A4%E6%B2%B9'}"
    )
    expect(first.locator(".snippet mark")).to_have_text("醤油")
    # A new feed address, confirmed in the browser's dialog: the old one stops.
    old_url = first.locator("[data-feed-url]").input_value()
    page.once("dialog", lambda dialog: dialog.accept())
    first.get_by_role("button", name="「醤油」のフィードの URL を新しくする").click()
    expect(page.locator("[data-alerts-said]")).to_have_text("フィードの URL を新しくしました。")
    new_url = first.locator("[data-feed-url]").input_value()
    assert new_url != old_url
    assert new_url == alerts.feed_url(Alert.get_by_id(older.id).feed_token)
    assert first.locator("button.copy").get_attribute("data-copy") == new_url
    assert page.request.get(old_url).status == 404
    assert page.request.get(new_url).headers["content-type"].startswith("application/atom+xml")
    # Delete by keyboard: the alert goes, focus moves to the next alert's delete button.
    delete_newer = page.get_by_role("button", name="通知「たこ焼き 大阪」を削除")
    delete_newer.focus()
    page.keyboard.press("Enter")
    expect(items).to_have_count(1)
    expect(page.get_by_role("button", name="通知「醤油」を削除")).to_be_focused()
    expect(page.locator("[data-alerts-said]")).to_have_text("通知「たこ焼き 大阪」を削除しました。")
    # The last one: the section says there are none, focus on its heading.
    page.keyboard.press("Enter")
    expect(items).to_have_count(0)
    expect(page.locator("[data-alerts-none]")).to_be_visible()
    expect(page.locator("#alerts-title")).to_be_focused()
    assert api_alerts(page, site) == []
    assert page.evaluate("window.notReloaded") is True
    assert violations == []


def test_a_renewal_not_confirmed_changes_nothing(page, site, channels):
    user = make_user(email="alert-keep@example.jp")
    older, _newer = with_news(user)
    token = Alert.get_by_id(older.id).feed_token
    sign_in(page, site, user.email)
    page.goto(f"{site}/account")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="「醤油」のフィードの URL を新しくする").click()
    assert Alert.get_by_id(older.id).feed_token == token


def test_the_pages_fit_a_phone_and_are_shown_in_both_languages(page, site, channels, violations):
    user = make_user(email="alert-shots@example.jp")
    older, _newer = with_news(user)
    Alert.update(
        paused_at="2026-11-29T03:00:00.000Z", paused_reason="550 5.1.1 mailbox unavailable"
    ).where(Alert.id == older.id).execute()
    sign_in(page, site, user.email)
    for language in ("ja", "en"):
        page.goto(f"{site}/search?q=たこ焼き")
        if language == "en":
            page.get_by_role("button", name="English").click()
            page.wait_for_load_state("load")
            assert page.evaluate("document.documentElement.lang") == "en"
        for width in (375, 1280):
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{site}{SEARCH}")  # saved already: says so
            open_control(page)
            no_sideways_scroll(page)
            page.goto(f"{site}{SEARCH}&semantic=1")  # not yet: the form
            open_control(page)
            no_sideways_scroll(page)
            page.goto(f"{site}/account#alerts")
            no_sideways_scroll(page)
        page.goto(f"{site}{SEARCH}&semantic=1")
        open_control(page)
        keep_screenshots_at(page, f"search-alert-{language}")
        page.goto(f"{site}/account#alerts")
        keep_screenshots_at(page, f"account-alerts-{language}")
    assert violations == []


def test_a_refused_alert_names_the_field(page, site, channels):
    """A hand-made address with a channel nobody knows: the API refuses the alert and
    the control says which part, in the reader's words."""
    user = make_user(email="alert-refused@example.jp")
    sign_in(page, site, user.email)
    page.goto(f"{site}/search?q=醤油&channels=UCnobodyknowsthischannel")
    open_control(page)
    page.get_by_role("button", name="通知を登録").click()
    expect(page.locator("[data-alert-error]")).to_contain_text("チャンネル: ")
    assert api_alerts(page, site) == []


def test_a_paused_alert_is_resumed_from_the_account_page(page, site, channels, violations):
    user = make_user(email="alert-resume@example.jp")
    older, _newer = with_news(user)
    Alert.update(
        paused_at="2026-11-29T03:00:00.000Z", paused_reason="550 5.1.1 mailbox unavailable"
    ).where(Alert.id == older.id).execute()
    sign_in(page, site, user.email)
    page.goto(f"{site}/account#alerts")
    page.get_by_role("button", name="「醤油」のメールを再開する").click()
    expect(page.locator("[data-alerts-said]")).to_contain_text("この通知のメールを再開しました")
    expect(page.locator("[data-alert-paused]")).to_have_count(0)
    assert Alert.get_by_id(older.id).paused_at is None
    page.reload()
    expect(page.locator("[data-alert-paused]")).to_have_count(0)
    assert violations == []
