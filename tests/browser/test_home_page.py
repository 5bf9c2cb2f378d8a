"""The home page in a browser, on a phone and on a desktop: example searches and the
indexed channels fit the screen, and a channel's box searches inside that channel."""

from __future__ import annotations

import pytest

from models import library
from models.search import SearchQuery
from tests.factories import make_channel, make_user, make_video
from tests.fixtures import keep_screenshot


@pytest.fixture
def started():
    for title in ("大阪グルメ探訪チャンネル", "京都の散歩道", "TokyoWalkingTourWithAVeryLongName"):
        channel = make_channel(title=title)
        for n in range(3):
            make_video(channel, title=f"{title} {n}")
    searched = ["大阪 ラーメン"] * 3 + ["京都 紅葉"] * 2 + ["夜景"] * 2  # two members at least
    for n, words in enumerate(searched):
        library.record_search(make_user(email=f"home{n}@example.jp").id, SearchQuery(q=words))


@pytest.mark.parametrize("width", [375, 1280])
def test_home_page_offers_searches_and_channels(page, site, started, violations, width):
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/")
    examples = page.locator(".example-searches a")
    assert examples.all_inner_texts() == ["大阪 ラーメン", "京都 紅葉", "夜景"]
    channels = page.locator(".home-channel")
    assert channels.count() == 3
    assert "動画 3 本" in channels.first.inner_text()
    keep_screenshot(page, f"home-{width}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # A channel's own box starts a search narrowed to it
    kyoto = channels.filter(has_text="京都の散歩道")
    channel_id = kyoto.get_attribute("data-channel-id")
    kyoto.locator("input[type=search]").fill("散歩")
    kyoto.locator("button[type=submit]").click()
    page.wait_for_url(f"**/search?*channels={channel_id}*", timeout=5000)
    assert page.locator(".chosen-channels").inner_text().strip().startswith("京都の散歩道")
    # An example search is a link to its results
    page.goto(f"{site}/")
    examples.first.click()
    page.wait_for_url("**/search?q=*")
    assert page.locator("input[name=q]").first.input_value() == "大阪 ラーメン"
    assert violations == []
