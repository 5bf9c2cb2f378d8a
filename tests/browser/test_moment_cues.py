"""Moments cue by cue, on a phone and on a desktop: a search result's snippet sets its
cues apart and opens the cue that matched, to the hundredth of a second; the video page
marks that very cue, shows one line per cue with its own time, and every moment links
to the video on the platform at that time."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from models import ingest
from models.credits import unlock_video
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import keep_screenshot

CH = "UCmomentcuesmomentcues01"
VIDEO = "momentCues1"
SAID = [
    (1.24, "どうも、大阪グルメ散歩です"),
    (6.93, "今日は大阪の天満に来ています"),
    (12.46, "天満はJRの駅の周りに飲み屋さんが並んでいます"),
    (20.4, "今日のお目当てはこちらの立ち飲み屋さん"),
    (81.5, "だし巻きは焼きたてで熱々です"),
    (87.84, "これで全部で1,200円ちょっと"),
    (93.1, "安くておいしいお店でした"),
]
PLAYER = "<!doctype html><html><body style='background:#222'></body></html>"


@pytest.fixture
def walk(platform_files):
    cues = [{"start": start, "end": round(start + 4.5, 2), "text": text} for start, text in SAID]
    platform_files.channel(CH, [VIDEO], title="大阪グルメ散歩")
    platform_files.video(
        VIDEO,
        CH,
        {"type": "manual", "language": "ja", "cues": cues},
        title="天満の立ち飲み屋",
        durationSeconds=113,
    )
    ingest.import_channel(CH)
    ingest.fetch_subtitles(VIDEO)


def watch(seconds: int) -> str:
    return f"https://www.youtube.com/watch?v={VIDEO}&t={seconds}s"


@pytest.mark.parametrize("width", [375, 1280])
def test_a_snippet_sets_its_cues_apart_and_opens_the_cue_that_matched(
    page, site, walk, violations, width
):
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/search?q=天満")
    moment = page.locator("li.moment").first
    snippet = moment.locator(".snippet")
    # Two cues, set apart, not one run-on sentence
    assert "来ています / 天満は" in snippet.inner_text()
    assert "来ています天満は" not in snippet.inner_text()
    assert snippet.locator(".cue").count() >= 2
    # Opened at the first cue holding the word, to the hundredth
    timestamp = moment.locator("a.timestamp")
    assert timestamp.inner_text() == "0:06"
    assert re.search(r"\?t=6\.93&q=", timestamp.get_attribute("href"))
    outside = moment.locator("a.platform-link")
    assert outside.get_attribute("href") == watch(6)
    assert outside.get_attribute("target") == "_blank"
    assert "noopener" in outside.get_attribute("rel")
    assert outside.is_visible()
    keep_screenshot(page, f"moment-cues-{width}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert violations == []


@pytest.mark.parametrize("width", [375, 1280])
def test_the_clicked_moment_is_the_cue_marked_on_the_video_page(
    page, site, walk, violations, width
):
    user = make_user(email=f"cues{width}@example.jp")
    unlock_video(user.id, VIDEO)
    embeds = []

    def fake_player(route):
        embeds.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body=PLAYER)

    page.route("https://www.youtube-nocookie.com/embed/**", fake_player)
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, site, user.email)
    page.goto(f"{site}/search?q=全部で")
    timestamp = page.locator("li.moment a.timestamp").first
    assert timestamp.inner_text() == "1:27"  # the cue's own time, not its window's (1:21)
    timestamp.click()
    page.wait_for_url(re.compile(r"/videos/momentCues1\?t=87\.84&q="))
    # The player starts at the whole second; the page marks the cue at 87.84, not 81.5
    assert "start=87" in embeds[-1]
    current = page.locator("[data-cues] > li[aria-current=true]")
    expect(current).to_have_count(1)
    assert current.get_attribute("data-start") == "87.84"
    assert "これで全部で" in current.inner_text()
    # Within the transcript's own scroll box (a phone's), the marked cue is in sight
    box, cue = page.locator("[data-cues]").bounding_box(), current.bounding_box()
    assert box["y"] <= cue["y"] and cue["y"] + cue["height"] <= box["y"] + box["height"]
    # One line per cue, each with its own time and its own link to the platform
    lines = page.locator("[data-cues] > li")
    assert lines.count() == len(SAID)
    assert [float(s) for s in lines.evaluate_all("ls => ls.map(l => l.dataset.start)")] == [
        start for start, _ in SAID
    ]
    assert lines.nth(1).locator("a.timestamp").inner_text() == "0:06"
    assert lines.nth(1).locator(".cue-text").inner_text() == SAID[1][1]
    assert lines.nth(5).locator("a.platform-link").get_attribute("href") == watch(87)
    # Minutes and seconds, not 1 分
    assert page.locator("[data-duration]").inner_text() == "1 分 53 秒"
    keep_screenshot(page, f"moment-video-{width}")
    assert violations == []
