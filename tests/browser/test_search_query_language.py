"""The query language in a browser, on a phone and on a desktop: the filter panel writes
its filter into the search words and typing one sets the panel; the filters in use
are taken out one by one; the help opens and closes from the keyboard; and nothing
makes the page scroll sideways."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from models.search import query as query_language
from tests.fixtures import keep_screenshot
from tests.web.pages.test_search_query_language_page import index_kitchen
from web.pages import search as search_page
from web.pages.search import SUBTITLE_KINDS

WIDTHS = [375, 1280]


@pytest.fixture
def kitchen(platform_files):
    index_kitchen(platform_files)


def cards(page) -> list[str]:
    return page.eval_on_selector_all("li.result", "cards => cards.map(c => c.dataset.videoId)")


def box(page):
    return page.get_by_role("searchbox", name="検索語")


def choose(page, label: str, option: str) -> None:
    page.get_by_label(label, exact=True).select_option(label=option)


def fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", WIDTHS)
def test_the_panel_and_the_search_words_say_the_same(page, site, kitchen, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{site}/search?q=醤油")
    page.locator(".search-filters summary").click()
    # A control writes its filter into the box at once, at the end
    choose(page, "長さ", "長い（20分超）")
    assert box(page).input_value() == "醤油 duration:long"
    choose(page, "字幕の言語", "英語")
    page.get_by_label("この日から").fill("2024-01-01")
    assert box(page).input_value() == "醤油 duration:long lang:en after:2024-01-01"
    # "Any" takes it out, the rest stays as typed
    choose(page, "長さ", "指定なし")
    assert box(page).input_value() == "醤油 lang:en after:2024-01-01"
    # Typing filters sets the controls
    box(page).fill("醤油  type:auto lang:ko duration:>20m before:2024-03 -ラーメン")
    assert page.get_by_label("字幕の種類", exact=True).input_value() == "auto"
    assert page.get_by_label("字幕の言語", exact=True).input_value() == "ko"
    assert page.get_by_label("字幕の言語", exact=True).locator("option:checked").inner_text() == (
        "韓国語"
    )
    assert page.get_by_label("長さ", exact=True).input_value() == "typed"
    assert page.get_by_label("この日まで").input_value() == "2024-03-31"
    assert page.get_by_label("この日から").input_value() == ""
    # A class chosen replaces the length typed, where it stands
    choose(page, "長さ", "短い（4分未満）")
    assert box(page).input_value() == (
        "醤油  type:auto lang:ko duration:short before:2024-03 -ラーメン"
    )
    choose(page, "字幕の言語", "日本語")
    page.get_by_role("button", name="この条件で検索").click()
    page.wait_for_url("**lang*ja**")
    # The address holds the words alone: the controls are in them
    sent = parse_qs(urlsplit(page.url).query)
    assert sent["q"] == ["醤油  type:auto lang:ja duration:short before:2024-03 -ラーメン"]
    assert not {"after", "before", "duration", "type", "lang", "shown"} & set(sent)
    assert cards(page) == ["shortauto01"]
    assert page.get_by_label("長さ", exact=True).input_value() == "short"
    assert page.get_by_label("この日まで").input_value() == "2024-03-31"
    fits(page, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_filters_in_use_are_taken_out_one_by_one(page, site, kitchen, width):
    page.set_viewport_size({"width": width, "height": 900})
    q = "醤油 -ラーメン after:2023-01-01 duration:<15m type:auto lang:ja views:<1000"
    page.goto(f"{site}/search?" + urlencode({"q": q}))
    chips = page.get_by_role("list", name="適用中の絞り込み").locator("li > span")
    assert chips.all_inner_texts() == [
        "除外: ラーメン",
        "2023-01-01 以降",
        "15分未満",
        "自動字幕",
        "日本語",
        "再生 1,000 回未満",
    ]
    assert cards(page) == ["shortauto01"]
    keep_screenshot(page, f"search-query-chips-{width}")
    fits(page, width)
    page.get_by_role("link", name="自動字幕 を外す").click()
    page.wait_for_url(lambda url: "type" not in parse_qs(urlsplit(url).query)["q"][0])
    assert box(page).input_value() == (
        "醤油 -ラーメン after:2023-01-01 duration:<15m lang:ja views:<1000"
    )
    assert page.get_by_label("字幕の種類", exact=True).input_value() == ""
    page.get_by_role("link", name="除外: ラーメン を外す").click()
    page.wait_for_url(lambda url: "-ラーメン" not in parse_qs(urlsplit(url).query)["q"][0])
    assert box(page).input_value() == "醤油 after:2023-01-01 duration:<15m lang:ja views:<1000"
    assert cards(page) == ["shortauto01"]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_help_opens_and_closes_from_the_keyboard(page, site, kitchen, width):
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/search?q=醤油")
    help_button = page.get_by_role("button", name="検索のしかた")
    help_box = page.get_by_role("dialog", name="検索のしかた")
    assert not help_box.is_visible()
    help_button.focus()
    page.keyboard.press("Enter")
    assert help_box.is_visible()
    assert "after:2024-01-01" in help_box.inner_text()
    assert "この日以降に公開" in help_box.inner_text()
    shown = help_box.bounding_box()
    assert shown["x"] >= 0 and shown["x"] + shown["width"] <= width
    fits(page, width)
    keep_screenshot(page, f"search-query-help-{width}")
    # Escape closes it and the focus is back on the button
    page.keyboard.press("Escape")
    assert not help_box.is_visible()
    assert page.evaluate("document.activeElement.title") == "検索のしかた"
    # Opened again, its own close button closes it, from the keyboard too
    page.keyboard.press("Enter")
    assert help_box.is_visible()
    help_box.get_by_role("button", name="閉じる").focus()
    page.keyboard.press("Enter")
    assert not help_box.is_visible()
    assert page.evaluate("document.activeElement.title") == "検索のしかた"


@pytest.mark.parametrize("width", WIDTHS)
def test_the_open_panel_with_filters_fits_the_screen(page, site, kitchen, width):
    page.set_viewport_size({"width": width, "height": 900})
    q = "醤油 -カップ after:2024-01-01 before:2024-12 duration:>20m type:manual lang:it"
    page.goto(f"{site}/search?" + urlencode({"q": q}))
    page.locator(".search-filters summary").click()
    assert page.get_by_label("長さ", exact=True).locator("option:checked").inner_text() == (
        "検索欄の指定のとおり"
    )
    assert page.get_by_label("字幕の言語", exact=True).input_value() == "it"
    keep_screenshot(page, f"search-query-panel-{width}")
    fits(page, width)
    for selector in (".filter-dates", ".filter-length", ".filter-language", ".applied-parts"):
        shown = page.locator(selector).bounding_box()
        assert shown["x"] >= 0 and shown["x"] + shown["width"] <= width, selector


def test_the_panel_follows_the_rules_the_server_reads_by(page, site, kitchen, monkeypatch):
    """search-query.js holds no rule of its own: a subtitle kind and the languages the
    server's query language is given are the ones the panel follows as one types."""
    # Given the server takes one more subtitle kind, and no longer Korean
    monkeypatch.setattr(query_language, "SUBTITLE_TYPES", ("manual", "auto", "dubbed"))
    monkeypatch.setattr(search_page, "SUBTITLE_TYPES", ("manual", "auto", "dubbed"))
    monkeypatch.setitem(SUBTITLE_KINDS, "dubbed", "吹き替え字幕")
    codes = query_language.language_codes() - {"ko"}
    monkeypatch.setattr(query_language, "language_codes", lambda: codes)
    page.goto(f"{site}/search?q=醤油")
    page.locator(".search-filters summary").click()
    # When one types them, then the panel says what the server would read
    box(page).fill("醤油 type:dubbed lang:ko")
    assert page.get_by_label("字幕の種類", exact=True).input_value() == "dubbed"
    assert page.get_by_label("字幕の言語", exact=True).input_value() == ""
    # A language the short list does not hold is added, named as the server names it
    box(page).fill("醤油 lang:it")
    assert page.get_by_label("字幕の言語", exact=True).input_value() == "it"
    assert page.get_by_label("字幕の言語", exact=True).locator("option:checked").inner_text() == (
        "イタリア語"
    )


def test_a_query_that_cannot_be_read_is_said_beside_the_box(page, site, kitchen):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{site}/search?" + urlencode({"q": "醤油 lang:japanese"}))
    keep_screenshot(page, "search-query-problem-375")
    fits(page, 375)
    problem = page.get_by_role("alert")
    assert "「lang:japanese」（4 文字目）" in problem.inner_text()
    assert box(page).input_value() == "醤油 lang:japanese"
    assert box(page).get_attribute("aria-invalid") == "true"
    box(page).fill("醤油 lang:ja")
    box(page).press("Enter")
    page.wait_for_url("**lang*ja**")
    assert sorted(cards(page)) == ["longja00001", "shortauto01"]


def test_without_script_the_panel_is_folded_into_the_words(page_without_script, site, kitchen):
    page = page_without_script
    page.goto(f"{site}/search?" + urlencode({"q": "醤油 lang:ja"}))
    page.locator(".search-filters summary").click()
    # The box edited by hand and a control changed, sent together
    box(page).fill("醤油 lang:ja duration:<15m")
    choose(page, "字幕の種類", "自動字幕")
    page.get_by_role("button", name="この条件で検索").click()
    page.wait_for_url("**type*auto**")
    sent = parse_qs(urlsplit(page.url).query)
    assert sent["q"] == ["醤油 lang:ja duration:<15m type:auto"]
    assert not {"after", "before", "duration", "type", "lang", "shown"} & set(sent)
    assert cards(page) == ["shortauto01"]
    assert page.get_by_label("字幕の種類", exact=True).input_value() == "auto"
    # "Any" takes the filter out of the words
    page.locator(".search-filters summary").click()
    choose(page, "字幕の言語", "指定なし")
    page.get_by_role("button", name="この条件で検索").click()
    page.wait_for_url(lambda url: "lang" not in url)
    assert parse_qs(urlsplit(page.url).query)["q"] == ["醤油 duration:<15m type:auto"]
