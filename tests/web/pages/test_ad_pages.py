"""Ads on the pages: the /search page limit, zero hits, the video page, the audience."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from models import ingest
from models.ads import view_tokens
from models.ads.delivery import clear_process_cache
from models.ads.months import month_of
from models.ads.reservations import approve
from models.clock import utcnow
from models.tables import AdImpressionDaily
from tests.factories import make_reservation, make_subscription, make_user, sign_in
from tests.fakes.platform_files import manual
from web.pages import own_ads

CH = "UCadpagesadpagesadpages1"
MONTH = month_of(utcnow())
JP = {"Edge-IPCountry": "JP"}


@pytest.fixture
def page_with_hits(platform_files):
    ids = [f"ramen{n:06d}" for n in range(30)]
    platform_files.channel(CH, ids)
    for video_id in ids:
        platform_files.video(video_id, CH, manual("ラーメンを食べました。"))
    ingest.import_channel(CH)
    for video_id in ids:
        ingest.fetch_subtitles(video_id)
    clear_process_cache()


def live(slot, position=1, name="広告主"):
    reservation = make_reservation(
        slot=slot,
        position=position,
        start_month=MONTH,
        end_month=MONTH,
        payment_intent_id="pi",
        advertiser_name=name,
    )
    approve(reservation.id)
    return reservation


def test_the_bottom_slot_and_the_first_midroll_show_direct_ads_later_firings_do_not(
    client, page_with_hits
):
    mid = live("search-result-midroll", name="中ほど")
    bottom = live("search-result-bottom", name="下")
    html = client.get("/search?q=ラーメン&perPage=30&target=subtitle", headers=JP).get_data(
        as_text=True
    )
    assert html.count('data-ad-slot="search-result-midroll"') == 2  # after 12 and 24 hits
    assert html.count(f'data-reservation-id="{mid.id}"') == 1
    assert html.count(f'data-reservation-id="{bottom.id}"') == 1
    assert html.count('data-network-slot="search-result-midroll"') == 3 + 4
    assert html.index('data-ad-slot="search-result-bottom"') < html.index('class="pagination"')
    assert "広告" in html and "ads.js" in html


def test_zero_hits_show_one_midroll_row_and_no_bottom_slot(client, page_with_hits):
    mid = live("search-result-midroll")
    live("search-result-bottom", name="下")
    html = client.get("/search?q=存在しない", headers=JP).get_data(as_text=True)
    assert 'class="ad-slot ad-row" data-ad-slot="search-result-midroll"' in html
    assert f'data-reservation-id="{mid.id}"' in html
    assert 'data-ad-slot="search-result-bottom"' not in html


def test_an_unusable_country_shows_only_the_network(client, page_with_hits):
    mid = live("search-result-midroll")
    html = client.get("/search?q=ラーメン", headers={"Edge-IPCountry": "XX"}).get_data(as_text=True)
    assert f'data-reservation-id="{mid.id}"' not in html
    assert 'data-network-slot="search-result-midroll"' in html


@pytest.mark.parametrize(("plan", "shown"), [(None, True), ("plus", False), ("pro", False)])
def test_paying_viewers_see_no_ads_at_all(client, page_with_hits, plan, shown):
    live("search-result-bottom")
    user = make_user()
    if plan:
        make_subscription(user, plan=plan)
    sign_in(client, user)
    html = client.get("/search?q=ラーメン", headers=JP).get_data(as_text=True)
    assert ("ad-slot" in html) is shown


def test_the_video_page_has_its_two_slots(client, page_with_hits):
    below_player = live("video-detail-below-player", name="プレイヤー下")
    html = client.get("/videos/ramen000001", headers=JP).get_data(as_text=True)
    assert html.count('data-ad-slot="video-detail-below-player"') == 1
    assert html.count('data-ad-slot="video-detail-below-subtitle"') == 1
    assert f'data-reservation-id="{below_player.id}"' in html
    # In the page the transcript comes first (a phone reads it before the ads); a wide
    # screen shows the slot under the player (tests/browser/test_video_transcript.py).
    subtitles = html.index('class="subtitles"')
    assert subtitles < html.index("video-detail-below-player")
    assert html.index("video-detail-below-player") < html.index("video-detail-below-subtitle")


def test_english_readers_see_advertisement(client, page_with_hits):
    live("video-detail-below-player")
    html = client.get(
        "/videos/ramen000001", headers={**JP, "Accept-Language": "en-US,en;q=0.9"}
    ).get_data(as_text=True)
    assert "Advertisement" in html


def _urls(html, reservation):
    """The (click, impression) URLs of the reservation's card on a rendered page."""
    card = re.search(
        rf'<a class="ad-card ad-direct" href="([^"]+)"[^>]*data-reservation-id="{reservation.id}"'
        rf'\s+data-impression-url="([^"]+)"',
        html,
    )
    assert card, "no card for the reservation"
    return card.group(1), card.group(2)


def _token(url):
    return parse_qs(urlsplit(url).query)["v"][0]


def _path(url):
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def test_search_page_ads_carry_view_tokens_of_one_render(client, page_with_hits, stub_broker):
    mid = live("search-result-midroll", name="中ほど")
    bottom = live("search-result-bottom", name="下")
    html = client.get("/search?q=ラーメン&perPage=30", headers=JP).get_data(as_text=True)
    verified = {}
    for reservation in (mid, bottom):
        click, impression = _urls(html, reservation)
        assert f"/api/ad-click/{reservation.id}?v=" in click
        assert f"/api/ad-impression/{reservation.id}?v=" in impression
        assert _token(click) == _token(impression)
        verified[reservation.id] = view_tokens.verify(_token(impression), reservation.id)
    assert {v.status for v in verified.values()} == {"valid"}
    # Both at position 1 of their slots and of one render, yet each its own identity.
    assert verified[mid.id].identity.split(":")[1] == verified[bottom.id].identity.split(":")[1]
    assert verified[mid.id].identity != verified[bottom.id].identity
    beacon = client.post(_path(_urls(html, bottom)[1]), headers={**JP, "User-Agent": "Mozilla/5.0"})
    assert beacon.status_code == 202


def test_video_page_ads_carry_view_tokens_and_each_render_its_own(client, page_with_hits):
    below_player = live("video-detail-below-player", name="プレイヤー下")
    first = client.get("/videos/ramen000001", headers=JP).get_data(as_text=True)
    again = client.get("/videos/ramen000001", headers=JP).get_data(as_text=True)
    click, impression = _urls(first, below_player)
    assert f"/api/ad-click/{below_player.id}?v=" in click
    assert view_tokens.verify(_token(impression), below_player.id).status == "valid"
    assert _token(_urls(again, below_player)[1]) != _token(impression)


def test_a_running_month_charts_the_days_so_far_not_zeros_to_come(client, monkeypatch):
    """Days that have not happened are left off the advertiser's chart: drawn as zeros
    they would read as an ad that stopped being shown."""
    owner = make_user(email="running@example.jp")
    sign_in(client, owner)
    reservation = make_reservation(owner, status="active")  # 2027-01
    AdImpressionDaily.create(
        id="imp-running",
        ad_reservation=reservation,
        date="2027-01-09",
        country="JP",
        impressions=40,
    )
    monkeypatch.setattr(own_ads, "utcnow", lambda: datetime(2027, 1, 10, 12, tzinfo=UTC))
    page = client.get(f"/ads/{reservation.id}").get_data(as_text=True)
    chart = json.loads(re.search(r"data-chart-data>(.*?)</script>", page, re.S).group(1))
    assert chart["days"][0] == "2027-01-01" and chart["days"][-1] == "2027-01-10"
    assert chart["impressions"][8] == 40
