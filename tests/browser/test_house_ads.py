"""Unsold positions in a real browser: readable house cards inviting advertisers,
labelled 広告, at least 300 px high, that vary (the places, the price, how to apply)
and never show the same card twice side by side, whose links lead to the public page
for advertisers (/advertise), not to a sign-in."""

from __future__ import annotations

import itertools
from urllib.parse import urlsplit

import pytest

from models import ingest
from models.ads.delivery import MIDROLL_EVERY_HITS, clear_process_cache
from tests.factories import make_user
from tests.fakes.platform_files import manual
from tests.fixtures import keep_screenshots_at, settled_click

CH = "UChousebrowserhousebrow1"
VIDEO_IDS = [f"houseVideo{n:02d}" for n in range(MIDROLL_EVERY_HITS + 2)]
SEARCH = f"/search?q=ハウス広告&perPage={len(VIDEO_IDS)}"

# Each visible house card as a person sees it, in page order, with where it is drawn.
VISIBLE_CARDS = """() => [...document.querySelectorAll(".ad-house")]
  .filter(card => card.getClientRects().length)
  .map(card => { const box = card.getBoundingClientRect();
    return {slot: card.closest("[data-ad-slot]").dataset.adSlot,
            text: card.innerText.trim(), label: card.querySelector(".ad-label").innerText,
            href: card.querySelector("a").getAttribute("href"),
            top: Math.round(box.top + scrollY), left: Math.round(box.left),
            height: box.height}; })"""


@pytest.fixture
def videos(platform_files):
    platform_files.channel(CH, VIDEO_IDS)
    for video_id in VIDEO_IDS:
        platform_files.video(video_id, CH, manual("ハウス広告のテストです。"))
    ingest.import_channel(CH)
    for video_id in VIDEO_IDS:
        ingest.fetch_subtitles(video_id)
    clear_process_cache()
    return VIDEO_IDS


def side_by_side(cards: list[dict]) -> list[tuple[dict, dict]]:
    """Pairs of cards next to each other: in one row of a slot (same top), or one above
    the other in the same column of a slot."""
    pairs = []
    for a, b in itertools.pairwise(cards):
        if a["slot"] == b["slot"]:
            pairs.append((a, b))
    by_column: dict[tuple[str, int], list[dict]] = {}
    for card in cards:
        by_column.setdefault((card["slot"], card["left"]), []).append(card)
    for column in by_column.values():
        column.sort(key=lambda card: card["top"])
        for a, b in itertools.pairwise(column):
            if b["top"] - (a["top"] + a["height"]) < 40:
                pairs.append((a, b))
    return pairs


def check_house_cards(cards: list[dict]) -> None:
    assert cards, "no house card is shown"
    for card in cards:
        assert card["height"] >= 300
        assert card["label"] == "広告"
        assert urlsplit(card["href"]).path == "/advertise"
    for a, b in side_by_side(cards):
        assert a["text"] != b["text"], f"the same card twice side by side: {a['text']!r}"
    texts = {card["text"] for card in cards}
    assert len(texts) >= 3, texts
    joined = "\n".join(texts)
    # The places, the price (the local provider's price for Japan), and how to apply.
    for subject in ["4\u00a0つの枠", "¥50,000", "申し込み"]:
        assert subject in joined, subject


@pytest.mark.parametrize("width", [375, 1280])
def test_the_video_page_shows_varied_house_cards(page, site, videos, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{site}/videos/{videos[0]}")
    cards = page.evaluate(VISIBLE_CARDS)
    assert len(cards) == 8
    check_house_cards(cards)
    keep_screenshots_at(page, "house-cards-video")


@pytest.mark.parametrize("width", [375, 1280])
def test_the_search_page_shows_varied_house_cards(page, site, videos, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{site}{SEARCH}")
    cards = page.evaluate(VISIBLE_CARDS)
    # The midroll after the first 12 results, and the bottom slot.
    assert {card["slot"] for card in cards} == {"search-result-midroll", "search-result-bottom"}
    check_house_cards(cards)
    keep_screenshots_at(page, "house-cards-search")


def test_a_house_card_leads_a_visitor_to_the_advertiser_page(page, site, videos):
    page.goto(f"{site}/videos/{videos[0]}")
    settled_click(page.locator('[data-ad-slot="video-detail-below-player"] .ad-house a').first)
    page.wait_for_url(f"{site}/advertise*")
    assert page.locator("[data-slot-offer]").count() == 4


def test_a_member_also_reaches_the_advertiser_page(page, site, videos):
    make_user(email="house@example.jp")  # a free member still sees ads
    page.goto(f"{site}/login")
    page.fill("input[name=email]", "house@example.jp")
    page.click("#dev-login button[type=submit]")
    page.wait_for_url(f"{site}/")
    page.goto(f"{site}/videos/{videos[0]}")
    settled_click(page.locator('[data-ad-slot="video-detail-below-subtitle"] .ad-house a').first)
    page.wait_for_url(f"{site}/advertise*")
    page.get_by_role("link", name="申し込む", exact=True).first.click()
    page.wait_for_url(f"{site}/ads/new")
