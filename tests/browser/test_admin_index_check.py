"""The admin page's search index check as an admin reads it on a phone and a desktop:
in Japanese, in Tokyo time, what it found standing out, the example videos linked, and
nothing wider than the screen or a label broken inside a word."""

from __future__ import annotations

import json

from tests.browser.test_page_widths import LABELS_ON_ONE_LINE, TOO_WIDE
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_admin
from tests.fixtures import keep_screenshots_at
from tests.web.api.test_index_check_admin import make_check

MISSING = [f"vidMissing{n:02d}" for n in range(10)]  # as many as a check keeps


def a_check_with_problems() -> None:
    make_check(
        engine="meilisearch",
        videos=128_450,
        missing=1_234,
        extra=0,
        stale=57,
        examples=json.dumps({"missing": MISSING, "extra": [], "stale": ["vidStale001"]}),
    )


def assert_it_fits(page, section) -> None:
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        scroll, inner = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        assert scroll <= inner, f"{scroll} px wide at {width}: {page.evaluate(TOO_WIDE)}"
        assert page.evaluate(LABELS_ON_ONE_LINE) == [], width
        # The table keeps to the screen by itself, not by scrolling inside .scroll.
        table = section.locator("table").evaluate("t => t.getBoundingClientRect().right")
        assert table <= width, width


def test_a_check_that_found_problems_fits_a_phone_and_a_desktop(page, site, violations):
    a_check_with_problems()
    make_admin(email="index-check-admin@example.jp")
    sign_in(page, site, "index-check-admin@example.jp")
    page.goto(f"{site}/admin/")
    section = page.locator("[data-index-check]")
    assert_it_fits(page, section)

    text = section.inner_text()
    assert page.locator("h2", has_text="検索インデックスの点検").count() == 1
    assert "2026/11/24 18:16 JST" in text
    assert "meilisearch" in text and "128,450" in text
    assert [row.split("\t")[0] for row in section.locator("tbody tr").all_inner_texts()] == [
        "欠落",
        "余分",
        "古い",
    ]
    assert "修復していません。" in text
    assert "subsearch search verify --repair" in text
    standing_out = section.locator("strong.error").all_inner_texts()
    assert standing_out == ["1,234", "57"]
    links = section.locator("a[href^='/videos/']")
    assert links.count() == len(MISSING) + 1
    assert links.first.get_attribute("href") == f"/videos/{MISSING[0]}"
    keep_screenshots_at(page, "admin-index-check")
    assert violations == []


def test_in_english_it_fits_too_and_shows_utc(page, site):
    """English labels are longer and break only at spaces."""
    a_check_with_problems()
    page.context.set_extra_http_headers({"Accept-Language": "en"})
    make_admin(email="index-check-english@example.jp", locale="en")
    sign_in(page, site, "index-check-english@example.jp")
    page.goto(f"{site}/admin/")
    section = page.locator("[data-index-check]")
    assert_it_fits(page, section)
    text = section.inner_text()
    assert "Nov 24, 2026 09:16 UTC" in text and "Not repaired." in text
    assert page.locator("h2", has_text="Search index check").count() == 1
    keep_screenshots_at(page, "admin-index-check-en")
