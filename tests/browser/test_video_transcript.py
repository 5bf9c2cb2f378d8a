"""The video page's transcript with the embedded player: the query's words marked, a
timestamp seeks the player without reloading the page, and the cue the player is at is
marked as it plays. The player is a local fake speaking YouTube's postMessage protocol."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from models import ingest
from models.credits import unlock_video
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import keep_screenshot

CH = "UCtranscripttranscript01"
VIDEO = "transcript1"

# A stand-in for the YouTube embed: records every command the page sends, answers
# "listening", and reports the time it is told to report (window.report(seconds)).
FAKE_PLAYER = """<!doctype html><html><body style="background:#222;color:#fff">fake player
<script>
window.commands = [];
let parentOrigin = "*";
window.report = (seconds) => parent.postMessage(
  JSON.stringify({event: "infoDelivery", info: {currentTime: seconds}}), "*");
window.addEventListener("message", (event) => {
  const data = JSON.parse(event.data);
  window.commands.push(data);
  if (data.event === "command" && data.func === "seekTo") window.report(data.args[0]);
});
</script></body></html>"""


@pytest.fixture
def transcript(platform_files):
    said = ["こんにちは。", "今日は大阪で夜景を見ます。", "まずは駅から。", "夜景がきれいです。"]
    cues = [{"start": 30.0 * i, "end": 30.0 * i + 5, "text": t} for i, t in enumerate(said)]
    platform_files.channel(CH, [VIDEO], title="夜景のチャンネル")
    platform_files.video(
        VIDEO, CH, {"type": "manual", "language": "ja", "cues": cues}, title="大阪の夜景"
    )
    ingest.import_channel(CH)
    ingest.fetch_subtitles(VIDEO)


@pytest.mark.parametrize("width", [375, 1280])
def test_timestamps_seek_the_player_and_the_playing_cue_is_marked(
    page, site, transcript, violations, width
):
    user = make_user(email=f"viewer{width}@example.jp")
    unlock_video(user.id, VIDEO)
    embeds = []

    def fake_player(route):
        embeds.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body=FAKE_PLAYER)

    page.route("https://www.youtube-nocookie.com/embed/**", fake_player)
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, site, user.email)
    page.goto(f"{site}/videos/{VIDEO}?t=35&q=夜景")
    assert "enablejsapi=1" in embeds[0] and "start=35" in embeds[0]
    cues = page.locator("[data-cues] > li")
    starts = [
        float(s)
        for s in page.eval_on_selector_all(
            "[data-cues] > li", "items => items.map(i => i.dataset.start)"
        )
    ]
    assert len(starts) >= 3
    current = lambda seconds: max(i for i, s in enumerate(starts) if s <= seconds)  # noqa: E731
    # The words searched for are marked; the ?t= cue is current at load
    assert cues.locator("mark").count() == 2
    at_load = current(35)
    expect(cues.nth(at_load)).to_have_attribute("aria-current", "true")
    page.evaluate("window.stayed = true")
    expect(page.frame_locator("iframe[data-player]").locator("body")).to_contain_text("fake")
    frame = next(f for f in page.frames if f.url.startswith("https://www.youtube-nocookie.com"))
    last = len(starts) - 1
    link = cues.nth(last).locator("a.timestamp")
    link.scroll_into_view_if_needed()  # the ads below the player settle first
    link.click()
    assert page.evaluate("window.stayed") is True  # no reload
    expect(page).to_have_url(re.compile(rf"\?t={int(starts[last])}&q="))
    commands = frame.evaluate("window.commands")
    assert any(c.get("event") == "listening" for c in commands)
    seeks = [c for c in commands if c.get("func") == "seekTo"]
    assert seeks and seeks[-1]["args"] == [int(starts[last]), True]
    expect(cues.nth(last)).to_have_attribute("aria-current", "true")
    assert cues.nth(at_load).get_attribute("aria-current") is None
    # As the player plays on, it reports its time and the mark follows
    middle = 1 if at_load != 1 else 0
    frame.evaluate(f"window.report({starts[middle] + 0.5})")
    expect(cues.nth(middle)).to_have_attribute("aria-current", "true")
    expect(cues.nth(middle)).to_have_class("current-cue")
    assert cues.nth(last).get_attribute("aria-current") is None
    keep_screenshot(page, f"video-{width}")
    assert violations == []
    assert json.dumps(commands)  # every command was plain JSON the player could read


@pytest.mark.parametrize("width", [375, 1280])
def test_the_player_is_16_9_and_a_phone_reads_the_transcript_before_the_ads(
    page, site, transcript, width
):
    user = make_user(email=f"layout{width}@example.jp")
    unlock_video(user.id, VIDEO)
    page.route(
        "https://www.youtube-nocookie.com/embed/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body=FAKE_PLAYER),
    )
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, site, user.email)
    page.goto(f"{site}/videos/{VIDEO}")
    player = page.locator("iframe[data-player]").bounding_box()
    assert abs(player["width"] / player["height"] - 16 / 9) < 0.02
    assert player["width"] <= width
    if width == 375:
        assert player["width"] >= 320  # the phone's width, less the margins
    first_line = page.locator("[data-cues] > li").first.bounding_box()
    below_player = page.locator('[data-ad-slot="video-detail-below-player"]').bounding_box()
    if width < 768:
        # The transcript's first lines come right after the player, before the ads
        assert first_line["y"] < below_player["y"]
        assert first_line["y"] < 800  # on the first screen
    else:
        # A wide screen keeps the slot right under the player
        assert player["y"] + player["height"] <= below_player["y"] < first_line["y"]
    keep_screenshot(page, f"video-layout-{width}")
