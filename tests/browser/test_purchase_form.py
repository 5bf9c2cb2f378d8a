"""The purchase form in a browser: the position it would assign, the full-slot notice,
and a submit button that waits for consent."""

from __future__ import annotations

from models.ads.months import add_months, month_of
from models.clock import utcnow
from tests.factories import image_bytes, make_profile, make_reservation, make_user

NEXT = add_months(month_of(utcnow()), 1)


def sign_in(page, site, email):
    page.goto(f"{site}/login")
    page.fill("input[name=email]", email)
    page.click("#dev-login button[type=submit]")
    page.wait_for_url(f"{site}/")


def fill_required(page):
    page.fill("input[name=advertiserName]", "山田商店")
    page.set_input_files(
        "input[name=image]",
        files=[{"name": "ad.png", "mimeType": "image/png", "buffer": image_bytes()}],
    )
    page.locator("[data-image-preview]").wait_for(state="visible")  # the upload answered
    page.fill("input[name=redirectUrl]", "https://example.jp/shop")


def test_the_form_shows_the_next_position_and_waits_for_consent(page, site):
    user = make_user(email="form@example.jp")
    make_profile(user)
    make_reservation(slot="search-result-midroll", position=1, start_month=NEXT, end_month=NEXT)
    sign_in(page, site, "form@example.jp")
    page.goto(f"{site}/ads/new")
    page.select_option("select[name=slot]", "search-result-midroll")
    inventory = page.locator("[data-inventory]")
    inventory.filter(has_text="割り当て予定の掲載位置: 2").wait_for()
    assert "¥50,000 / 月 × 1 か月" in page.locator("[data-price]").inner_text()
    submit = page.locator("#ad-order button[type=submit]")
    assert submit.is_disabled()
    assert submit.get_attribute("aria-disabled") == "true"
    page.check("input[name=consent]")
    assert submit.is_disabled()  # consent alone is not enough: no name, image or link yet
    fill_required(page)
    assert submit.is_enabled()
    assert submit.get_attribute("aria-disabled") == "false"
    page.uncheck("input[name=consent]")
    assert submit.is_disabled()
    page.check("input[name=consent]")
    page.fill("input[name=startMonth]", "")
    assert submit.is_disabled()  # no month


def test_the_price_counts_months_in_the_reader_language(page, site):
    make_profile(make_user(email="english@example.jp", locale="en"))
    sign_in(page, site, "english@example.jp")
    page.goto(f"{site}/ads/new")
    price = page.locator("[data-price]")
    price.filter(has_text="¥50,000 / month × 1 month = ¥50,000").wait_for()
    page.fill("input[name=months]", "3")
    page.dispatch_event("input[name=months]", "change")
    price.filter(has_text="¥50,000 / month × 3 months = ¥150,000").wait_for()


def test_the_price_follows_the_months_as_they_are_typed(page, site):
    make_profile(make_user(email="typing@example.jp"))
    sign_in(page, site, "typing@example.jp")
    page.goto(f"{site}/ads/new")
    price = page.locator("[data-price]")
    price.filter(has_text="× 1 か月").wait_for()
    months = page.locator("input[name=months]")
    # Typed, without leaving the field: the total for 3 months
    months.fill("")
    months.press_sequentially("3")
    price.filter(has_text="¥50,000 / 月 × 3 か月 = ¥150,000").wait_for()
    assert page.evaluate("document.activeElement.name") == "months"
    # Not a whole number from 1 to 12: no total, stale or new, but the range
    for typed in ["0", "13", "1.5"]:
        months.fill("")
        months.press_sequentially(typed)
        price.filter(has_text="12").wait_for()
        page.wait_for_load_state("networkidle")  # a late answer must not bring one back
        assert "¥" not in price.inner_text(), typed
    months.fill("")
    months.press_sequentially("2")
    price.filter(has_text="× 2 か月 = ¥100,000").wait_for()


def test_the_disabled_button_looks_disabled(page, site):
    make_profile(make_user(email="look@example.jp"))
    sign_in(page, site, "look@example.jp")
    page.goto(f"{site}/ads/new")
    submit = page.locator("#ad-order button[type=submit]")
    style = submit.evaluate(
        "b => { const s = getComputedStyle(b); return [s.cursor, s.backgroundColor]; }"
    )
    assert style == ["not-allowed", "rgb(201, 201, 209)"]  # greyed, as site.css draws it


def test_the_button_is_busy_while_sending_and_field_errors_read_in_japanese(page, site):
    make_user(email="newcomer@example.jp")  # no saved profile: the new profile's fields
    sign_in(page, site, "newcomer@example.jp")
    page.goto(f"{site}/ads/new")
    page.locator("[data-inventory]").filter(has_text="割り当て予定の掲載位置").wait_for()
    fill_required(page)
    page.check("input[name=consent]")
    submit = page.locator("#ad-order button[type=submit]")
    assert submit.is_enabled()
    seen = {}

    def slow(route):
        seen["text"] = submit.inner_text()
        seen["disabled"] = submit.is_disabled()
        route.continue_()

    page.route("**/api/ads/reservations", slow)
    submit.click()
    errors = page.locator("[data-errors]")
    errors.wait_for(state="visible")
    assert seen == {"text": "送信中…", "disabled": True}
    text = errors.inner_text()
    assert "所在地: 入力してください" in text
    assert "businessAddress" not in text and "required" not in text
    assert submit.is_enabled()
    assert submit.inner_text() == "お支払いへ進む"


def test_a_late_answer_about_the_first_slot_does_not_hide_the_chosen_one(page, site):
    """The page asks about its first slot on load; when the reader picks another before
    that answer comes back, the late answer must not replace the one for their choice."""
    make_user(email="late@example.jp")
    for position in (1, 2, 3, 4):
        make_reservation(
            slot="search-result-bottom", position=position, start_month=NEXT, end_month=NEXT
        )
    held = []
    page.route("**/api/ads/inventory?slot=search-result-midroll*", lambda r: held.append(r))
    sign_in(page, site, "late@example.jp")
    page.goto(f"{site}/ads/new")
    page.wait_for_function("document.querySelector('select[name=slot]') !== null")
    page.select_option("select[name=slot]", "search-result-bottom")
    full = page.locator("[data-inventory]").filter(has_text="満席")
    full.wait_for()
    assert held, "the first question was not held"
    for route in held:
        route.continue_()
    page.wait_for_load_state("networkidle")
    assert full.is_visible()


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
