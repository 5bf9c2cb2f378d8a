"""A member sees their credits in the header of every page: the monthly credits and the
bonus credits, at a phone's width and a desktop's, with a link to the account page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user, make_video
from tests.fixtures import keep_screenshot, sideways_overflow

WIDTHS = (375, 1280)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_balance_is_in_the_header_of_every_page(page, site, width):
    user = make_user(email="balance@example.jp", credit_balance=48, bonus_credit=100)
    video = make_video()
    sign_in(page, site, user.email)
    page.set_viewport_size({"width": width, "height": 800})
    for path in ("/", "/search?q=大阪", f"/videos/{video.id}", "/ads", "/account"):
        page.goto(f"{site}{path}")
        balance = page.locator(".site-header [data-header-balance]")
        expect(balance).to_be_visible()
        expect(balance.locator("[data-header-credits]")).to_have_text("48")
        expect(balance.locator("[data-header-bonus]")).to_have_text("100")
        shown = balance.inner_text()
        assert "クレジット" in shown, shown
        box = balance.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"cut off at {width} px"
        assert sideways_overflow(page) <= 0, f"{path} scrolls sideways at {width} px"
    page.goto(f"{site}/")
    keep_screenshot(page, f"header-balance-{width}")
    header = page.locator(".site-header").bounding_box()
    if width == 375:
        assert header["height"] <= 120, "the header takes too much of a phone's screen"
    page.locator(".site-header [data-header-balance]").click()
    page.wait_for_url(f"{site}/account")
    # A screen reader names both amounts, at every width
    expect(page.locator(".site-header [data-header-balance]")).to_have_accessible_name(
        re.compile(r"クレジット\s*48\s*\+\s*ボーナス\s*100")
    )


def test_a_member_without_bonus_credits_sees_the_monthly_ones(page, site):
    user = make_user(email="nobonus@example.jp", credit_balance=50, bonus_credit=0)
    sign_in(page, site, user.email)
    balance = page.locator(".site-header [data-header-balance]")
    expect(balance.locator("[data-header-credits]")).to_have_text("50")
    expect(balance).not_to_contain_text("ボーナス", use_inner_text=True)  # no "bonus 0" noise


def test_a_visitor_sees_no_balance(page, site):
    page.goto(f"{site}/")
    expect(page.locator(".site-header")).to_contain_text("ログイン")
    assert page.locator("[data-header-balance]").count() == 0


def test_the_plans_anchor_leads_to_the_plans(page, site):
    user = make_user(email="anchor@example.jp")
    sign_in(page, site, user.email)
    page.goto(f"{site}/account#plans")
    plans = page.locator("#plans")
    expect(plans).to_be_visible()
    expect(plans.locator("[data-subscribe='plus']")).to_be_visible()
    assert plans.evaluate("e => e.getBoundingClientRect().top") < 200  # scrolled to it
