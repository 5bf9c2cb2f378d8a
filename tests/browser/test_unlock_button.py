"""The video page's unlock button in a browser: one click is one charge, however fast it
is clicked; a video without readable subtitles says why instead of offering it."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from playwright.sync_api import expect

from models.tables import User
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user, make_video
from tests.fixtures import come_to_rest, held_until, keep_screenshot, settled_click


def credits_of(user):
    row = User.get_by_id(user.id)
    return row.credit_balance + row.bonus_credit


def test_a_double_click_unlocks_once_and_shows_the_subtitles(page, site):
    user = make_user(email="unlock@example.jp", credit_balance=10)
    video = make_video(duration_seconds=1200)  # 2 credits
    sign_in(page, site, user.email)
    sent = []
    page.on(
        "request",
        lambda request: (
            sent.append(request.headers.get("idempotency-key"))
            if request.url.endswith("/unlock")
            else None
        ),
    )
    page.goto(f"{site}/videos/{video.id}")
    button = page.locator("[data-unlock]")
    assert button.inner_text() == "2 クレジットで解除"
    come_to_rest(button).dblclick()
    page.wait_for_selector("section.subtitles ol.segments")
    assert credits_of(user) == 8
    assert len(sent) == 1 and len(sent[0]) == 36  # one request, with a UUID for its click


def test_the_button_waits_for_the_answer_and_a_refusal_is_said_in_japanese(page, site):
    """Credits spent elsewhere (another tab) after the page was shown: the refusal says
    so in words, with the way to more credits."""
    user = make_user(email="poor@example.jp", credit_balance=1)
    video = make_video()
    sign_in(page, site, user.email)
    page.goto(f"{site}/videos/{video.id}")
    User.update(credit_balance=0).where(User.id == user.id).execute()
    # Hold the answer back to look at the button while its request runs
    held = []
    page.route("**/unlock", lambda route: held.append(route))
    settled_click(page.locator("[data-unlock]"))
    expect(page.locator("[data-unlock]")).to_be_disabled()
    assert page.locator("[data-unlock]").get_attribute("aria-busy") == "true"
    held_until(page, held)[0].continue_()
    error = page.locator("[data-unlock-error]")
    error.wait_for(state="visible")
    assert "クレジットが足りません" in error.inner_text()
    plans = page.locator("[data-unlock-plans] a")
    expect(plans).to_be_visible()
    assert plans.get_attribute("href") == "/account#plans"
    assert page.locator("[data-unlock]").is_enabled()


@pytest.mark.parametrize("width", [375, 1280])
def test_the_cost_and_balance_show_before_and_after_an_unlock(page, site, width):
    user = make_user(email=f"spend{width}@example.jp", credit_balance=7, bonus_credit=3)
    video = make_video(duration_seconds=1500)  # 3 credits
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, site, user.email)
    page.goto(f"{site}/videos/{video.id}?t=12&q=大阪")
    box = page.locator("[data-unlock-box]")
    assert "3 クレジット" in box.inner_text()
    assert page.locator("[data-balance]").inner_text() == "残高は 10 クレジットです。"
    keep_screenshot(page, f"unlock-before-{width}")
    settled_click(page.locator("[data-unlock]"))
    said = page.locator("[data-unlocked]")
    said.wait_for()
    # What it cost and what is left, read from the access row after the reload
    assert "3 クレジットで解除しました" in said.inner_text()
    assert "残りは 7 クレジットです。" in said.inner_text()
    assert credits_of(user) == 7
    # The address keeps the moment and the words; the notice is not said again
    expect(page).to_have_url(re.compile(r"\?t=12&q=%E5%A4%A7%E9%98%AA$"))
    keep_screenshot(page, f"unlock-after-{width}")
    page.reload()
    assert page.locator("[data-unlocked]").count() == 0


@pytest.mark.parametrize("width", [375, 1280])
def test_a_short_balance_says_so_and_links_to_the_plans(page, site, width):
    user = make_user(email=f"short{width}@example.jp", credit_balance=1)
    video = make_video(duration_seconds=1500)  # 3 credits
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, site, user.email)
    page.goto(f"{site}/videos/{video.id}")
    assert page.locator("[data-unlock]").count() == 0  # no button that cannot work
    short = page.locator("[data-short]")
    assert "3 クレジット必要" in short.inner_text()
    assert page.locator("[data-balance]").inner_text() == "残高は 1 クレジットです。"
    link = short.locator("a")
    assert link.get_attribute("href") == "/account#plans" and link.is_visible()
    keep_screenshot(page, f"unlock-short-{width}")


def test_a_signed_out_visitor_signs_in_to_this_very_address(page, site):
    video = make_video(duration_seconds=1500)
    page.goto(f"{site}/videos/{video.id}?t=87.84&q=大阪")
    assert "3 クレジット" in page.locator("section.subtitles").inner_text()
    href = page.locator("[data-sign-in]").get_attribute("href")
    [back] = parse_qs(urlsplit(href).query)["next"]
    assert unquote(back) == f"/videos/{video.id}?t=87.84&q=大阪"


def test_a_video_without_subtitles_says_why_and_offers_no_button(page, site):
    user = make_user(email="nosubs@example.jp", credit_balance=10)
    videos = {
        status: make_video(subtitle_status=status)
        for status in ("unavailable", "pending", "failed")
    }
    retrying = make_video(subtitle_status="failed", next_fetch_at="2026-11-24T03:00:00.000Z")
    sign_in(page, site, user.email)
    for status, video in videos.items():
        for width in (375, 1280):
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{site}/videos/{video.id}")
            assert page.locator("[data-unlock]").count() == 0
            notice = page.locator(f"[data-subtitle-status={status}]")
            assert notice.is_visible()
            assert "字幕" in notice.inner_text()
            keep_screenshot(page, f"video-{status}-{width}")
    page.goto(f"{site}/videos/{retrying.id}")
    # The retry time in the reader's zone (Asia/Tokyo for a Japanese reader)
    assert "2026/11/24 12:00" in page.locator("[data-subtitle-status=failed]").inner_text()
    assert credits_of(user) == 10
