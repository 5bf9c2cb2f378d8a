"""Unsold positions in a real browser: a readable house card inviting advertisers,
labelled 広告, at least 300 px high, whose link leads to the purchase form."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from models import ingest
from models.ads.delivery import clear_process_cache
from tests.factories import make_user
from tests.fakes.platform_files import manual
from tests.fixtures import settled_click

CH = "UChousebrowserhousebrow1"
INVITATION = "この枠に広告を掲載しませんか"


@pytest.fixture
def video(platform_files):
    platform_files.channel(CH, ["houseVideo1"])
    platform_files.video("houseVideo1", CH, manual("ハウス広告のテストです。"))
    ingest.import_channel(CH)
    ingest.fetch_subtitles("houseVideo1")
    clear_process_cache()
    return "houseVideo1"


@pytest.mark.parametrize("width", [375, 1280])
def test_unsold_positions_show_a_labelled_invitation(page, site, video, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{site}/videos/{video}")
    cards = page.locator('[data-ad-slot="video-detail-below-player"] .ad-network')
    assert cards.count() == 4
    for index in range(4):
        card = cards.nth(index)
        if not card.is_visible():
            continue
        box = card.bounding_box()
        assert box["height"] >= 300
        assert card.locator(".ad-label").inner_text() == "広告"
        assert INVITATION in card.inner_text()
        link = card.get_by_role("link")
        assert urlsplit(link.evaluate("a => a.href")).path == "/ads/new"


def test_the_invitation_leads_to_the_purchase_form(page, site, video):
    make_user(email="house@example.jp")  # a free member still sees ads
    page.goto(f"{site}/login")
    page.fill("input[name=email]", "house@example.jp")
    page.click("#dev-login button[type=submit]")
    page.wait_for_url(f"{site}/")
    page.goto(f"{site}/videos/{video}")
    settled_click(page.locator('[data-ad-slot="video-detail-below-player"] .ad-network a').first)
    page.wait_for_url(f"{site}/ads/new")
    assert page.locator("select[name=slot]").is_visible()
