"""The home page in a browser, on a phone and on a desktop: example searches and the
indexed channels fit the screen, and a channel's box searches inside that channel."""

from __future__ import annotations

import pytest

from models import library
from models.platform.fixture import FixturePlatform
from models.search import SearchQuery
from models.search.text import CJK_RUN
from tests.browser.test_first_run import sample  # noqa: F401  (the sample data, loaded)
from tests.factories import make_channel, make_user, make_video
from tests.fixtures import keep_screenshot, keep_screenshots_at


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


@pytest.mark.usefixtures("sample")
@pytest.mark.parametrize("width", [375, 1280])
def test_a_fresh_install_offers_real_words_from_the_sample(page, site, width):
    """Right after `subsearch sample load`: the channels at once (no empty answer kept),
    the sample's own example searches, Japanese first for a Japanese reader, each one a
    search that finds something."""
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/")
    assert page.locator(".home-channel").count() == len(FixturePlatform().channel_ids())
    examples = page.locator(".example-searches a").all_inner_texts()
    assert "たこ焼き" in examples
    assert not {"in", "for", "the"} & set(examples)
    assert all(len(words) >= 2 for words in examples)
    japanese = [bool(CJK_RUN.search(words)) for words in examples]
    assert japanese[0] and japanese == sorted(japanese, reverse=True)
    keep_screenshot(page, f"home-sample-{width}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator(".example-searches a", has_text="たこ焼き").click()
    page.wait_for_url("**/search?q=*")
    assert page.locator("li.result").count() >= 1
    assert page.locator("li.moment mark").first.inner_text() == "たこ焼き"


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_home_form_searches_by_meaning_with_filters_and_shows_its_help(
    page, site, started, violations, language
):
    """The home page's form is the search page's: the help, the meaning switch and its
    strength, the filters written into the words; a refused search answers with the box."""
    page.goto(f"{site}/")
    if language == "en":
        page.get_by_role("button", name="English").click()
        page.wait_for_load_state()
    help_name = "How to search" if language == "en" else "検索のしかた"
    page.get_by_role("button", name=help_name).first.click()
    assert page.locator("#search-help").is_visible()
    page.keyboard.press("Escape")
    page.locator("[data-meaning-switch]").check()
    assert page.locator("[data-meaning-strength]").is_visible()
    page.locator("details.search-filters summary").click()
    page.locator("select[name=type]").select_option("manual")
    box = page.locator("form.search-form input[name=q]")
    assert box.input_value() == "type:manual"  # the filter is written into the words
    box.fill("大阪 type:manual")
    keep_screenshots_at(page, f"home-form-{language}")
    box.press("Enter")
    page.wait_for_url("**/search?**")
    assert "semantic=1" in page.url
    assert page.locator("form.search-form input[name=q]").input_value() == "大阪 type:manual"
    # A search refused before it is read keeps the box, the reason beside it
    page.goto(f"{site}/")
    page.locator("form.search-form input[name=q]").fill("鹿 猫 犬")
    page.locator("form.search-form button[type=submit]").first.click()
    page.wait_for_url("**/search?**")
    assert page.locator("form.search-form input[name=q]").input_value() == "鹿 猫 犬"
    reason = page.locator("#query-problem").inner_text()
    if language == "en":
        assert "at most 2 words of a single kanji or kana" in reason
    else:
        assert "1文字の語は2つまでにしてください" in reason
    keep_screenshots_at(page, f"search-refused-{language}")
    assert violations == []
