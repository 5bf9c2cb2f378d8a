"""The admin page's second subscriptions to settle as an admin reads them on a phone and a
desktop: provider ids, a long e-mail address and the provider's answer wrap inside their
tables, nothing is wider than the screen and no label breaks inside a word."""

from __future__ import annotations

from tests.browser.test_page_widths import LABELS_ON_ONE_LINE, TOO_WIDE
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_admin, make_user
from tests.fixtures import keep_screenshots_at
from tests.web.pages.test_admin_duplicate_subscriptions import make_duplicate

# As long as the provider's own ids and answers get.
SECOND = "sub_1QZx7fLkdIwHu7ixYq3TmB9c"
LATER = "sub_1QZyA2LkdIwHu7ixQ0pW4nXe"
ANSWER = (
    "The provider refused: Charge ch_3QZx7gLkdIwHu7ix0f1D2e3F has been charged back; "
    "cannot issue a refund."
)

TABLES_RIGHT = """() => Math.max(...[...document.querySelectorAll("[data-duplicate]")]
  .map(t => t.getBoundingClientRect().right))"""


def two_to_settle() -> None:
    member = make_user(email="a.very.long.member.address+billing@example-university.ac.jp")
    make_duplicate(
        member,
        payment_subscription_id=SECOND,
        kept_subscription_id="sub_1QYw2bLkdIwHu7ixKk8sZr1M",
        detail=ANSWER,
    )
    make_duplicate(
        make_user(email="hanako@example.jp"),
        payment_subscription_id=LATER,
        kept_subscription_id="sub_1QYw9cLkdIwHu7ixPp2tUv3N",
        plan="plus",
        detail="The provider refused: This PaymentIntent's payment method does not support "
        "refunds.",
        created_at="2026-11-25T01:02:00.000Z",
    )


def assert_it_fits(page) -> None:
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        scroll, inner = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        assert scroll <= inner, f"{scroll} px wide at {width}: {page.evaluate(TOO_WIDE)}"
        assert page.evaluate(LABELS_ON_ONE_LINE) == [], width
        # Each table keeps to the screen by itself, not by scrolling inside .scroll.
        assert page.evaluate(TABLES_RIGHT) <= width, width


def test_duplicates_to_settle_fit_a_phone_and_a_desktop(page, site, violations):
    two_to_settle()
    make_admin(email="duplicates-admin@example.jp")
    sign_in(page, site, "duplicates-admin@example.jp")
    page.goto(f"{site}/admin/")
    assert_it_fits(page)
    section = page.locator("[data-duplicates]")
    assert page.locator("h2", has_text="要対応の二重契約").count() == 1
    tables = section.locator("table[data-duplicate]")
    assert [t.get_attribute("data-duplicate") for t in tables.all()] == [SECOND, LATER]
    first = tables.first.inner_text()
    assert "a.very.long.member.address+billing@example-university.ac.jp" in first.replace("\n", "")
    assert "2026/11/24 18:16 JST" in first and "プロ" in first
    keep_screenshots_at(page, "admin-duplicates")
    assert violations == []


def test_in_english_it_fits_too(page, site):
    """English labels are longer and break only at spaces."""
    two_to_settle()
    page.context.set_extra_http_headers({"Accept-Language": "en"})
    make_admin(email="duplicates-english@example.jp", locale="en")
    sign_in(page, site, "duplicates-english@example.jp")
    page.goto(f"{site}/admin/")
    assert_it_fits(page)
    assert page.locator("h2", has_text="Second subscriptions to settle").count() == 1
    keep_screenshots_at(page, "admin-duplicates-en")


def test_with_none_to_settle_it_says_none(page, site):
    make_admin(email="duplicates-none@example.jp")
    sign_in(page, site, "duplicates-none@example.jp")
    page.goto(f"{site}/admin/")
    assert page.locator("[data-no-duplicates]").inner_text() == "なし"
    keep_screenshots_at(page, "admin-duplicates-none")
