"""The /search page in a browser, on a phone and on a desktop: one card per video with
its moments, the ads' columns, and nothing wider than the screen."""

from __future__ import annotations

import base64
import re

import pytest
from playwright.sync_api import expect

from models import ingest
from models.ads.delivery import MIDROLL_EVERY_HITS, clear_process_cache
from tests.fixtures import keep_screenshot

CH = "UCsearchpagesearchpage01"
# One video more than a midroll needs, so the first midroll fires.
VIDEO_IDS = [f"noodle{n:05d}" for n in range(MIDROLL_EVERY_HITS + 1)]
# A word with no break opportunity, longer than a phone's column.
LONG_WORD = "Supercalifragilisticexpialidocious" * 3


def cues(video_number: int) -> dict:
    """Four moments about ラーメン, each 40 s apart with other talk between."""
    said = []
    for n in range(4):
        said += [f"ラーメン{n}杯目は {LONG_WORD if n == 0 else '美味しい'} です。", "それで。"]
    if video_number == 0:
        said = ["うどんの話です。"]  # its title alone matches
    return {
        "type": "manual",
        "language": "ja",
        "cues": [
            {"start": 20.0 * i, "end": 20.0 * i + 4, "text": text} for i, text in enumerate(said)
        ],
    }


@pytest.fixture
def noodles(platform_files):
    platform_files.channel(CH, VIDEO_IDS, title="麺を食べ歩くチャンネル")
    for n, video_id in enumerate(VIDEO_IDS):
        platform_files.video(
            video_id,
            CH,
            cues(n),
            title="ラーメン屋めぐり" if n == 0 else f"とても長い動画のタイトル その {n} 回目の麺",
            publishedAt=f"2026-01-{n + 1:02d}T00:00:00.000Z",
        )
    ingest.import_channel(CH)
    for video_id in VIDEO_IDS:
        ingest.fetch_subtitles(video_id)
    clear_process_cache()


@pytest.mark.parametrize(("width", "columns"), [(375, 2), (1280, 4)])
def test_video_cards_with_moments_fit_the_screen(page, site, noodles, width, columns):
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/search?q=ラーメン&sort=oldest&perPage={len(VIDEO_IDS)}")
    cards = page.locator("li.result")
    assert cards.count() == len(VIDEO_IDS)
    # The title-only video first (oldest): a card without moments
    assert cards.first.locator(".moment").count() == 0
    assert "タイトルに一致" in cards.first.inner_text()
    # Every other video: three of its four moments, each a time and a highlight
    second = cards.nth(1)
    assert second.locator(".moment").count() == 3
    assert second.locator(".moment .timestamp").first.inner_text().count(":") == 1
    assert second.locator(".moment mark").first.inner_text() == "ラーメン"
    # The ads' columns: cards side by side, and the midroll after the 12th card
    rows = page.evaluate(
        "[...document.querySelectorAll('li.result')].map(c => c.getBoundingClientRect().top)"
    )
    assert len(set(rows[:columns])) == 1 and rows[columns] > rows[0]
    midroll = page.locator('[data-ad-slot="search-result-midroll"]').bounding_box()
    twelfth = cards.nth(MIDROLL_EVERY_HITS - 1).bounding_box()
    assert midroll["y"] >= twelfth["y"] + twelfth["height"]
    # Nothing sideways: neither the page nor any card is wider than the screen
    keep_screenshot(page, f"search-cards-{width}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for n in range(cards.count()):
        box = cards.nth(n).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width


@pytest.mark.parametrize("width", [375, 1280])
def test_thumbnails_that_cannot_load_give_way_to_a_drawn_placeholder(
    page, site, noodles, violations, width
):
    """The i.ytimg.com images are refused here (nothing leaves the machine), as offline:
    each card keeps a 16:9 placeholder with the title's first characters, no broken image."""
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/search?q=ラーメン&sort=oldest&perPage={len(VIDEO_IDS)}")
    cards = page.locator("li.result")
    first = cards.first
    expect(first.locator(".thumb")).to_have_class(re.compile("thumb-failed"))
    assert not first.locator("img[data-thumb]").is_visible()
    placeholder = first.locator(".thumb-placeholder")
    assert placeholder.is_visible()
    assert placeholder.inner_text().strip() == "ラー"
    box = placeholder.bounding_box()
    assert abs(box["width"] / box["height"] - 16 / 9) < 0.05
    # Moment links carry the query for the video page to highlight
    href = cards.nth(2).locator(".moment .timestamp").first.get_attribute("href")
    assert re.fullmatch(
        r"/videos/noodle00002\?(t=\d+(\.\d+)?&)?q=%E3%83%A9%E3%83%BC%E3%83%A1%E3%83%B3", href
    )
    keep_screenshot(page, f"search-{width}")
    assert violations == []


# A 1 x 1 PNG, served in place of the platform's thumbnails.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def test_thumbnails_that_load_cover_the_placeholder(page, site, noodles):
    page.route(
        "https://i.ytimg.com/**",
        lambda route: route.fulfill(status=200, content_type="image/png", body=PIXEL),
    )
    page.goto(f"{site}/search?q=ラーメン&sort=oldest&perPage={len(VIDEO_IDS)}")
    first = page.locator("li.result").first
    expect(first.locator("img[data-thumb]")).to_be_visible()
    assert "thumb-failed" not in (first.locator(".thumb").get_attribute("class") or "")


@pytest.mark.parametrize("width", [375, 1280])
def test_a_page_past_the_last_says_so_and_offers_the_last_page(page, site, noodles, width):
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/search?q=ラーメン&sort=oldest&perPage=5&page=9")
    assert page.locator("li.result").count() == 0
    beyond = page.locator(".beyond-results")
    assert "9 ページは検索結果の範囲外です" in beyond.inner_text()
    assert "見つかりませんでした" not in page.locator("main").inner_text()  # they were found
    last = beyond.locator("a[rel=last]")
    assert last.inner_text() == "最後のページ（3）へ"
    keep_screenshot(page, f"search-beyond-{width}")
    last.click()
    page.wait_for_url(re.compile(r"page=3"))
    assert page.locator("li.result").count() == len(VIDEO_IDS) - 10
    assert page.locator(".pagination").inner_text().count("3 / 3") == 1


@pytest.mark.parametrize("width", [375, 1280])
def test_a_single_result_uses_the_width_of_a_phone(page, site, noodles, width):
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/search?q=うどん")
    cards = page.locator("li.result")
    assert cards.count() == 1
    card, results = cards.first.bounding_box(), page.locator("ol.results").bounding_box()
    if width < 640:
        assert card["width"] >= results["width"] - 1  # not half the screen left empty
    else:
        assert card["width"] < results["width"] / 2  # a desktop keeps its columns
    keep_screenshot(page, f"search-single-{width}")
