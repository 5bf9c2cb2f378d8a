"""One click URL opened 200 times counts one verified click in the advertiser's figures
(issue 26, finding 4), through HTTP and the measure queue."""

from __future__ import annotations

import uuid

import pytest

from models.ads.delivery import clear_process_cache
from models.ads.months import month_of
from models.ads.reservations import approve
from models.clock import utcnow
from models.tables import AdClickLog, AdImpressionDaily
from tests.factories import make_reservation, make_user, sign_in
from tests.web.api.test_ad_delivery_api import SEEN, deliver, local, served

MONTH = month_of(utcnow())


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_process_cache()


@pytest.fixture
def owner():
    return make_user()


@pytest.fixture
def ad(owner):
    reservation = make_reservation(
        owner,
        slot="video-detail-below-player",
        position=2,
        start_month=MONTH,
        end_month=MONTH,
        payment_intent_id="pi",
        redirect_url="https://advertiser.example/landing",
    )
    approve(reservation.id)
    return reservation


def test_two_hundred_clicks_on_one_click_url_show_one_click_to_the_advertiser(
    client, app, ad, owner, stub_broker
):
    # Given an ad seen 301 times, and one of its click URLs opened 200 times
    AdImpressionDaily.create(
        id=str(uuid.uuid4()),
        ad_reservation=ad,
        date=utcnow().date().isoformat(),
        country="JP",
        impressions=301,
    )
    url = local(served(client, ad)["clickUrl"])
    for _ in range(200):
        assert client.get(url, headers=SEEN).status_code == 302
    assert deliver(stub_broker) == 200
    # When the advertiser reads their reservation
    advertiser = app.test_client()
    sign_in(advertiser, owner)
    [listed] = advertiser.get("/api/ads/reservations").get_json()["reservations"]
    # Then every click is in the log, but one counts, and the CTR is made from it
    assert AdClickLog.select().count() == 200
    assert (listed["impressions"], listed["clicks"]) == (301, 1)
    assert listed["ctr"] == pytest.approx(1 / 301)


def test_a_second_render_of_the_ad_gives_a_click_that_counts_again(
    client, app, ad, owner, stub_broker
):
    for _ in range(2):
        url = local(served(client, ad)["clickUrl"])  # a new serve answer: a new token
        client.get(url, headers=SEEN)
        client.get(url, headers=SEEN)
    deliver(stub_broker)
    advertiser = app.test_client()
    sign_in(advertiser, owner)
    [listed] = advertiser.get("/api/ads/reservations").get_json()["reservations"]
    assert listed["clicks"] == 2
