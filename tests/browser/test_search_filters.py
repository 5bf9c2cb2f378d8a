"""The search page's filters in a browser: choose channels (narrowing the list by typing),
targets and sort; the address holds them, a reload keeps them, the results obey them;
and on a phone the open filters fit the screen."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from models import library
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import keep_screenshot
from tests.web.pages.test_search_page_filters import QUIET, RAMEN, UDON, index_two_channels


@pytest.fixture
def channels(platform_files):
    index_two_channels(platform_files)


def cards(page) -> list[str]:
    return page.eval_on_selector_all("li.result", "cards => cards.map(c => c.dataset.videoId)")


def checkbox(page, name):
    return page.get_by_role("checkbox", name=name, exact=True)


def visible_channels(page) -> list[str]:
    return page.eval_on_selector_all(
        "[data-channel-title]",
        "items => items.filter(i => i.offsetParent !== null)"
        ".map(i => i.querySelector('input').value)",
    )


def test_choosing_channels_targets_and_sort_puts_them_in_the_address(page, site, channels):
    user = make_user(email="filters@example.jp")
    library.add_favorite(user.id, UDON)
    sign_in(page, site, user.email)
    page.goto(f"{site}/search?q=醤油")
    assert sorted(cards(page)) == ["ramen01xxxx", "ramen02xxxx", "udon001xxxx"]
    page.locator(".search-filters summary").click()
    # The favourite comes first; typing narrows the channel list
    assert visible_channels(page) == [UDON, RAMEN, QUIET]
    page.get_by_label("チャンネル名で探す").fill("らーめん")  # no match: hiragana
    assert visible_channels(page) == []
    assert page.locator("[data-channel-none]").is_visible()
    page.get_by_label("チャンネル名で探す").fill("ラーメン")
    assert visible_channels(page) == [RAMEN]
    page.get_by_label("チャンネル名で探す").press("Enter")  # narrows only, sends nothing
    assert urlsplit(page.url).query == "q=%E9%86%A4%E6%B2%B9"
    checkbox(page, "ラーメン研究所").check()
    checkbox(page, "説明").uncheck()
    page.get_by_label("並び順", exact=True).select_option("newest")
    page.get_by_role("button", name="この条件で検索").click()
    page.wait_for_url("**channels=**")
    # The address: the API's names and formats
    assert parse_qs(urlsplit(page.url).query) == {
        "q": ["醤油"],
        "channels": [RAMEN],
        "target": ["subtitle,title"],
        "sort": ["newest"],
    }
    # The results obey: ramen's title hit (March) before its subtitle hit (January)
    assert cards(page) == ["ramen02xxxx", "ramen01xxxx"]
    for _ in range(2):  # and a reload keeps everything
        assert checkbox(page, "ラーメン研究所").is_checked()
        assert not checkbox(page, "うどん通信").is_checked()
        assert checkbox(page, "字幕").is_checked() and checkbox(page, "タイトル").is_checked()
        assert not checkbox(page, "説明").is_checked()
        assert page.get_by_label("並び順", exact=True).input_value() == "newest"
        assert cards(page) == ["ramen02xxxx", "ramen01xxxx"]
        page.reload()
    # Two channels at once, by views, descriptions only
    checkbox(page, "うどん通信").check()
    checkbox(page, "字幕").uncheck()
    checkbox(page, "タイトル").uncheck()
    checkbox(page, "説明").check()
    page.get_by_label("並び順", exact=True).select_option("views")
    page.get_by_role("button", name="この条件で検索").click()
    page.wait_for_url("**sort=views**")
    assert parse_qs(urlsplit(page.url).query) == {
        "q": ["醤油"],
        "channels": [f"{RAMEN},{UDON}"],
        "target": ["description"],
        "sort": ["views"],
    }
    assert cards(page) == ["udon001xxxx"]


@pytest.mark.parametrize("width", [375, 1280])
def test_the_open_filters_fit_the_screen(page, site, channels, width):
    user = make_user(email=f"narrow{width}@example.jp")
    library.add_favorite(user.id, UDON)
    sign_in(page, site, user.email)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{site}/search?q=醤油&channels={RAMEN}")
    filters = page.locator(".search-filters")
    assert filters.get_attribute("open") is not None  # narrowed: open from the start
    keep_screenshot(page, f"search-filters-{width}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for selector in (".search-filters", ".filter-channels", ".channel-choices", ".filter-targets"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, selector
    # Every control can be reached and used with a thumb: tall enough to tap
    for label in ("字幕", "ラーメン研究所"):
        assert checkbox(page, label).locator("xpath=..").bounding_box()["height"] >= 32


def test_without_script_the_filters_are_a_plain_form_with_the_same_address(
    page_without_script, site, channels
):
    page = page_without_script
    page.goto(f"{site}/search?q=醤油")
    page.locator(".search-filters summary").click()
    assert not page.get_by_label("チャンネル名で探す").is_visible()  # needs the script
    assert visible_channels(page) == [UDON, RAMEN, QUIET]  # by title
    checkbox(page, "ラーメン研究所").check()
    checkbox(page, "うどん通信").check()
    checkbox(page, "字幕").uncheck()
    page.get_by_label("並び順", exact=True).select_option("oldest")
    page.get_by_role("button", name="この条件で検索").click()
    page.wait_for_url("**sort=oldest**")
    assert parse_qs(urlsplit(page.url).query) == {
        "q": ["醤油"],
        "channels": [f"{RAMEN},{UDON}"],
        "target": ["description,title"],
        "sort": ["oldest"],
    }
    assert cards(page) == ["udon001xxxx", "ramen02xxxx"]
