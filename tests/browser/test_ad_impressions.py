"""Viewable impressions in a real browser: half the card in view for one second counts
once; leaving earlier counts nothing."""

from __future__ import annotations

import pytest

from models import ingest
from models.ads.delivery import clear_process_cache
from models.ads.months import month_of
from models.ads.reservations import approve
from models.clock import utcnow
from models.tables import AdImpressionDaily
from tests.factories import make_reservation
from tests.fakes.platform_files import manual
from tests.fixtures import drain

CH = "UCbrowserbrowserbrowser1"
MONTH = month_of(utcnow())


@pytest.fixture
def video(platform_files):
    platform_files.channel(CH, ["browserVid1"])
    platform_files.video("browserVid1", CH, manual("ブラウザのテストです。"))
    ingest.import_channel(CH)
    ingest.fetch_subtitles("browserVid1")
    clear_process_cache()
    return "browserVid1"


def live(slot, name):
    reservation = make_reservation(
        slot=slot,
        position=1,
        start_month=MONTH,
        end_month=MONTH,
        payment_intent_id="pi",
        advertiser_name=name,
    )
    approve(reservation.id)
    return reservation


def counted(reservation) -> int:
    return sum(
        r.impressions
        for r in AdImpressionDaily.select().where(
            AdImpressionDaily.ad_reservation == reservation.id
        )
    )


def test_one_second_in_view_counts_once_and_a_glance_counts_nothing(
    page, site, video, stub_broker, stub_worker
):
    seen = live("video-detail-below-player", "じっくり見る広告")
    glanced = live("video-detail-below-subtitle", "ちらっと見る広告")
    answers = []
    page.on(
        "response",
        lambda r: answers.append((r.url, r.status)) if "/api/ad-impression/" in r.url else None,
    )
    page.goto(f"{site}/videos/{video}")
    page.evaluate("window.scrollTo(0, 0)")

    first = page.locator(f'[data-reservation-id="{seen.id}"]')
    first.scroll_into_view_if_needed()
    page.wait_for_timeout(1600)
    first.and_(page.locator('[data-impression-sent="true"]')).wait_for()
    page.wait_for_timeout(300)  # let the beacon reach the server

    second = page.locator(f'[data-reservation-id="{glanced.id}"]')
    second.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(1500)
    first.scroll_into_view_if_needed()  # back in view: the same render counts only once
    page.wait_for_timeout(1300)

    drain(stub_broker, stub_worker, queues=("measure",))
    assert counted(seen) == 1
    assert counted(glanced) == 0
    assert [status for url, status in answers if seen.id in url] == [202]
    assert not [url for url, _ in answers if glanced.id in url]


def test_the_card_shows_its_label_and_fills_four_positions(page, site, video):
    live("video-detail-below-player", "表示名")
    page.goto(f"{site}/videos/{video}")
    slot = page.locator('[data-ad-slot="video-detail-below-player"]')
    assert slot.locator(".ad-card").count() == 4
    assert slot.locator(".ad-direct .ad-label").inner_text() == "広告"
    box = slot.locator(".ad-card").first.bounding_box()
    assert box["height"] >= 300  # AD_CARD_MIN_HEIGHT
    columns = page.evaluate(
        "getComputedStyle(document.querySelector('.ad-slot')).gridTemplateColumns.split(' ').length"
    )
    assert columns == 4  # 1000 px wide: one row of four


def test_each_render_of_the_page_counts_once(page, site, video, stub_broker, stub_worker):
    seen = live("video-detail-below-player", "二回見る広告")
    answers = []
    page.on(
        "response",
        lambda r: answers.append(r.status) if f"/api/ad-impression/{seen.id}" in r.url else None,
    )
    card = f'[data-reservation-id="{seen.id}"]'
    for _ in range(2):
        page.goto(f"{site}/videos/{video}")
        page.locator(card).scroll_into_view_if_needed()
        # A locator, not wait_for_function: the page's CSP forbids evaluating strings.
        page.locator(f'{card}[data-impression-sent="true"]').wait_for()
        page.wait_for_timeout(300)  # let the beacon reach the server
    # The second render's beacon, sent again by hand, is a replay.
    replay = page.evaluate(
        f"fetch(document.querySelector('{card}').dataset.impressionUrl, {{method: 'POST'}})"
        ".then(r => r.status)"
    )

    drain(stub_broker, stub_worker, queues=("measure",))
    assert answers[:2] == [202, 202]
    assert replay == 204
    assert counted(seen) == 2
