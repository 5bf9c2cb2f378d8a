"""Unsold positions are house ads: a labelled card inviting advertisers to /advertise,
in the element the network's tag fills (data-network-slot), never an empty box; the
cards of a slot each say something else."""

from __future__ import annotations

import re

import pytest

from models import ingest
from models.ads.delivery import clear_process_cache
from tests.factories import make_live_ad
from tests.fakes.platform_files import manual

CH = "UChouseadshouseadshouse1"
JP = {"Edge-IPCountry": "JP"}
INVITATION = "この枠に広告を掲載しませんか"
KINDS = ["places", "price", "apply", "audience"]


@pytest.fixture
def videos(platform_files):
    ids = [f"house{n:06d}" for n in range(3)]
    platform_files.channel(CH, ids)
    for video_id in ids:
        platform_files.video(video_id, CH, manual("ラーメンを食べました。"))
    ingest.import_channel(CH)
    for video_id in ids:
        ingest.fetch_subtitles(video_id)
    clear_process_cache()


def network_cards(html: str, slot: str) -> list[str]:
    return re.findall(
        rf'<div class="[^"]*ad-network[^"]*"[^>]*data-network-slot="{slot}">.*?</div>',
        html,
        flags=re.S,
    )


def test_every_unsold_position_is_a_labelled_invitation_to_advertise(client, videos):
    html = client.get("/search?q=ラーメン", headers=JP).get_data(as_text=True)
    cards = network_cards(html, "search-result-bottom")
    assert len(cards) == 4
    for card in cards:
        assert '<span class="ad-label">広告</span>' in card
        assert 'href="/advertise' in card
    kinds = [re.search(r'data-house-card="(\w+)"', card).group(1) for card in cards]
    assert sorted(kinds) == sorted(KINDS)
    assert sum(INVITATION in card for card in cards) == 1
    assert sum("1\u00a0か月 ¥50,000" in card for card in cards) == 1


def test_a_sold_position_shows_its_ad_and_the_others_invite(client, videos):
    sold = make_live_ad(position=2, advertiser_name="ラーメン太郎")
    html = client.get("/videos/house000001", headers=JP).get_data(as_text=True)
    assert f'data-reservation-id="{sold.id}"' in html
    cards = network_cards(html, "video-detail-below-player")
    assert [re.search(r'data-position="(\d)"', c).group(1) for c in cards] == ["1", "3", "4"]
    assert all('href="/advertise' in card for card in cards)
    assert len(network_cards(html, "video-detail-below-subtitle")) == 4


def test_an_unusable_country_gets_house_cards_too(client, videos):
    html = client.get("/search?q=存在しない", headers={"Edge-IPCountry": "XX"}).get_data(
        as_text=True
    )
    cards = network_cards(html, "search-result-midroll")
    assert len(cards) == 4
    assert all('href="/advertise' in card for card in cards)
    # No price is sold for an unknown country: the price card says so without one.
    assert not any("¥" in card for card in cards)
    assert any("どの位置も同じ料金" in card for card in cards)


def test_english_readers_are_invited_in_english(client, videos):
    html = client.get(
        "/videos/house000001", headers={**JP, "Accept-Language": "en-US,en;q=0.9"}
    ).get_data(as_text=True)
    cards = "".join(network_cards(html, "video-detail-below-player"))
    assert '<span class="ad-label">Advertisement</span>' in cards
    assert "Advertise in this space" in cards
    assert "¥50,000 a month" in cards
    assert 'href="/advertise' in cards
