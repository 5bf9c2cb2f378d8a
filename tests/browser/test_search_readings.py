"""Japanese by reading on the search page (issue 46), as a reader sees it: a word typed in
kana lists the video that says its kanji, with the kanji marked, and the search help
says so, in both languages."""

from __future__ import annotations

import pytest

from models import ingest
from tests.fakes.platform_files import manual
from tests.fixtures import keep_screenshots_at

CH = "UCreadingsReadingsReadin1"


@pytest.fixture
def kushikatsu(platform_files):
    platform_files.channel(CH, ["kushikatsu1"], title="大阪グルメ")
    platform_files.video(
        "kushikatsu1",
        CH,
        manual("大阪の串カツは二度づけ禁止です。", "ソースはたっぷりと。"),
        title="新世界で串カツを食べる",
    )
    ingest.import_channel(CH)
    ingest.fetch_subtitles("kushikatsu1")


@pytest.mark.parametrize(
    ("language", "help_line"),
    [("ja", "かなやローマ字"), ("en", "Kana or romaji also find the kanji")],
)
def test_kana_marks_the_kanji_it_reads_as(page, site, kushikatsu, language, help_line):
    page.goto(f"{site}/search?q=くしかつ")
    if language == "en":
        page.get_by_role("button", name="English").click()
        page.wait_for_load_state()
    assert page.evaluate("document.documentElement.lang") == language
    card = page.locator("li.result")
    assert card.count() == 1
    assert card.locator("mark", has_text="串カツ").count() >= 1
    keep_screenshots_at(page, f"search-reading-{language}")
    page.locator(".search-help-button").click()
    assert page.locator("#search-help").get_by_text(help_line).is_visible()
    keep_screenshots_at(page, f"search-reading-help-{language}")
