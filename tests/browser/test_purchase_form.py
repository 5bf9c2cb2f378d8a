"""The purchase form in a browser: the position it would assign, the full-slot notice,
and a submit button that waits for consent."""

from __future__ import annotations

from models.ads.months import add_months, month_of
from models.clock import utcnow
from tests.factories import make_profile, make_reservation, make_user

NEXT = add_months(month_of(utcnow()), 1)


def sign_in(page, site, email):
    page.goto(f"{site}/login")
    page.fill("input[name=email]", email)
    page.click("#dev-login button[type=submit]")
    page.wait_for_url(f"{site}/")


def test_the_form_shows_the_next_position_and_waits_for_consent(page, site):
    user = make_user(email="form@example.jp")
    make_profile(user)
    make_reservation(slot="search-result-midroll", position=1, start_month=NEXT, end_month=NEXT)
    sign_in(page, site, "form@example.jp")
    page.goto(f"{site}/ads/new")
    page.select_option("select[name=slot]", "search-result-midroll")
    inventory = page.locator("[data-inventory]")
    inventory.filter(has_text="割り当て予定の掲載位置: 2").wait_for()
    assert "¥50,000" in page.locator("[data-price]").inner_text()
    submit = page.locator("#ad-order button[type=submit]")
    assert submit.is_disabled()
    page.check("input[name=consent]")
    assert submit.is_enabled()
    page.uncheck("input[name=consent]")
    assert submit.is_disabled()


def test_the_form_says_when_the_slot_is_full(page, site):
    make_user(email="full@example.jp")
    for position in (1, 2, 3, 4):
        make_reservation(
            slot="search-result-bottom", position=position, start_month=NEXT, end_month=NEXT
        )
    sign_in(page, site, "full@example.jp")
    page.goto(f"{site}/ads/new")
    page.select_option("select[name=slot]", "search-result-bottom")
    page.locator("[data-inventory]").filter(has_text="満席").wait_for()
