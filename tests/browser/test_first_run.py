"""The README's "first ten minutes", walked in a browser on the sample data that
`make run` loads: search on a phone and a desktop, a video with its subtitles, the
purchase form and the demo advertiser's report with its chart.

With DOCS_SCREENSHOTS set to a folder (`make screenshots` sets docs/screenshots), the
pictures the README shows are written there; otherwise they go to a temporary folder
and are only checked to show something (not a blank page)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image, ImageStat

from models import ingest
from models.ads.delivery import clear_process_cache
from models.ads.reports import advertiser_reservations
from models.platform.fixture import FixturePlatform
from models.settings import get_settings
from models.tables import User, Video
from tests.browser.test_purchase_form import sign_in
from tests.fixtures import settled_click
from web.app import create_app
from web.devtools.demo import ADVERTISER_EMAIL, load_demo
from web.urls import AD_PAGES


@pytest.fixture
def sample(site):
    """What `subsearch sample load` makes, worked through as its queue would: the
    bundled channels, their videos and subtitles, and the demo advertiser with its ads
    and history."""
    for channel_id in FixturePlatform().channel_ids():
        ingest.import_channel(channel_id)
    for video in Video.select().where(Video.subtitle_status == "pending"):
        ingest.fetch_subtitles(video.id)
    # The site's own settings (its address): create_app uses them again.
    with create_app(get_settings()).test_request_context():
        load_demo(AD_PAGES)
    clear_process_cache()
    assert Video.select().where(Video.subtitle_status == "completed").count() > 10


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("DOCS_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def snap(page, folder: Path, name: str, width: int, whole: bool = False) -> Path:
    """The page at `width`: what a screen shows, or the `whole` page top to bottom."""
    page.set_viewport_size({"width": width, "height": 900 if width > 500 else 780})
    page.reload()
    page.wait_for_load_state("load")
    if whole:  # a window as tall as the page (a full-page shot misplaces the player)
        height = page.evaluate("document.documentElement.scrollHeight")
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate(
            "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )
    path = folder / f"{name}-{width}.png"
    page.screenshot(path=str(path))
    with Image.open(path) as picture:
        assert picture.width == width
        # Something is drawn: a blank or single-colour page has no spread of tones.
        assert max(ImageStat.Stat(picture.convert("L")).stddev) > 20, path
    return path


# The embedded player stands in for YouTube's, which this machine cannot reach.
PLAYER = """<!doctype html><html><body style="margin:0;background:#111;color:#eee;
font:16px sans-serif;display:grid;place-items:center;height:100vh">&#9654;</body></html>"""


def test_the_first_ten_minutes(page, site, sample, shots, violations):
    page.route(
        "https://www.youtube-nocookie.com/embed/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body=PLAYER),
    )
    # 1. Search what was said, on a phone and on a desktop: results by video, with
    # their moments, and the demo advertiser's ad below them.
    page.goto(f"{site}/search?q=大阪")
    assert page.locator("li.result").count() >= 2
    assert page.locator("li.moment mark").first.inner_text() == "大阪"
    assert page.locator(".ad-slot[data-ad-slot='search-result-bottom'] .ad-card").count() >= 1
    # A moment's cues are set apart, each with its own time.
    assert page.locator("li.moment .cue-sep").count() >= 1
    snap(page, shots, "search", 375)
    snap(page, shots, "search", 1280, whole=True)

    # 2. A video, signed in: the balance in the header, the cost before unlocking, and
    # what it cost after.
    sign_in(page, site, ADVERTISER_EMAIL)
    page.goto(f"{site}/search?q=大阪")
    assert page.locator("[data-header-credits]").inner_text() == "50"
    page.locator("li.moment a.timestamp").first.click()
    page.wait_for_url("**/videos/**")
    page.wait_for_load_state("load")
    settled_click(page.locator("[data-unlock]"))
    page.locator("ol.segments li").first.wait_for()
    assert page.locator("[data-unlocked]").is_visible()
    left = int(page.locator("[data-header-credits]").inner_text())
    assert 0 <= left < 50
    snap(page, shots, "video", 375)
    snap(page, shots, "video", 1280, whole=True)

    # 3. For advertisers: the public page with prices and places, the purchase form,
    # and 4. the demo advertiser's report with its chart.
    page.goto(f"{site}/advertise")
    snap(page, shots, "advertise", 1280)
    page.goto(f"{site}/ads/new")
    page.locator("select[name=slot]").wait_for()
    snap(page, shots, "ads-new", 1280)
    advertiser = User.get(User.email == ADVERTISER_EMAIL)
    live = next(
        r.reservation
        for r in advertiser_reservations(advertiser.id)
        if r.reservation.status == "active"
    )
    page.goto(f"{site}/ads/{live.id}")
    page.locator(".chart canvas").first.wait_for()
    snap(page, shots, "ad-report", 1280)
    assert violations == []
