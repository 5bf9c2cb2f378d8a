"""Serving, clicks and impressions over HTTP, with the worker."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest

from models.ads.delivery import clear_process_cache
from models.ads.measurement import prune_impression_events, record_impression
from models.ads.months import month_of
from models.ads.reservations import approve, stop
from models.clock import iso, utcnow
from models.tables import AdClickLog, AdImpressionDaily, AdImpressionEvent
from tests.conftest import take_messages
from tests.factories import make_reservation, make_subscription, make_user, sign_in

MONTH = month_of(utcnow())
BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130 Safari/537.36"


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_process_cache()


@pytest.fixture
def ad():
    reservation = make_reservation(
        slot="video-detail-below-player",
        position=2,
        start_month=MONTH,
        end_month=MONTH,
        payment_intent_id="pi",
        redirect_url="https://advertiser.example/landing?x=1",
    )
    approve(reservation.id)
    return reservation


def run_worker(stub_broker, stub_worker):
    stub_broker.join("measure", timeout=20_000)
    stub_worker.join()


def test_serve_answers_the_contract(client, ad):
    body = client.get("/api/ads/serve?slot=video-detail-below-player&country=JP").get_json()
    assert (body["slot"], body["country"], body["month"], body["adsEnabled"]) == (
        "video-detail-below-player",
        "JP",
        MONTH,
        True,
    )
    assert [p["position"] for p in body["positions"]] == [1, 2, 3, 4]
    assert [p["ad"] is not None for p in body["positions"]] == [False, True, False, False]
    shown = body["positions"][1]["ad"]
    assert shown["reservationId"] == ad.id
    assert shown["advertiserName"] == ad.advertiser_name
    assert shown["clickUrl"].endswith(f"/api/ad-click/{ad.id}")
    assert shown["impressionUrl"].endswith(f"/api/ad-impression/{ad.id}")


@pytest.mark.parametrize("country", ["XX", "T1", "ZZ", "jpn"])
def test_serve_for_an_unusable_country_is_four_nulls(client, ad, country):
    body = client.get(f"/api/ads/serve?slot=video-detail-below-player&country={country}")
    assert [p["ad"] for p in body.get_json()["positions"]] == [None] * 4


@pytest.mark.parametrize(("plan", "enabled"), [(None, True), ("plus", False), ("pro", False)])
def test_serve_by_audience(client, ad, plan, enabled):
    user = make_user()
    if plan:
        make_subscription(user, plan=plan)
    sign_in(client, user)
    body = client.get("/api/ads/serve?slot=video-detail-below-player&country=JP").get_json()
    assert body["adsEnabled"] is enabled
    assert len(body["positions"]) == (4 if enabled else 0)


def test_serve_validates(client):
    response = client.get("/api/ads/serve?slot=nowhere&month=2026-1")
    assert response.status_code == 400
    assert set(response.get_json()["error"]["fields"]) == {"slot", "month"}


def test_a_click_is_logged_once_and_redirected(client, ad, stub_broker):
    response = client.get(
        f"/api/ad-click/{ad.id}", headers={"Edge-IPCountry": "JP", "User-Agent": BROWSER}
    )
    assert response.status_code == 302
    assert response.headers["Location"] == "https://advertiser.example/landing?x=1"
    [message] = take_messages(stub_broker, "measure")
    from tasks.ads import record_click

    record_click(*message["args"])
    record_click(*message["args"])  # redelivered
    [row] = AdClickLog.select()
    assert (row.ad_reservation_id, row.country, row.user_agent) == (ad.id, "JP", BROWSER)


def test_a_click_from_an_unusable_country_is_stored_as_unknown(
    client, ad, stub_broker, stub_worker
):
    client.get(f"/api/ad-click/{ad.id}", headers={"Edge-IPCountry": "T1"})
    run_worker(stub_broker, stub_worker)
    assert AdClickLog.get().country == "unknown"


def test_clicks_on_unknown_or_inactive_ads_are_404_and_not_logged(client, ad, stub_broker):
    stop(ad.id, "違反")
    assert client.get(f"/api/ad-click/{ad.id}").status_code == 404
    assert client.get("/api/ad-click/no-such-ad").status_code == 404
    assert take_messages(stub_broker, "measure") == []


def test_a_click_without_the_queue_is_written_directly(client, ad, monkeypatch):
    from tasks.ads import record_click

    def down(*_a, **_k):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(record_click, "send", down)
    assert client.get(f"/api/ad-click/{ad.id}").status_code == 302
    assert AdClickLog.select().count() == 1


def test_a_click_still_redirects_when_nothing_can_be_written(client, ad, monkeypatch, caplog):
    from models.ads import measurement
    from tasks.ads import record_click

    def down(*_a, **_k):
        raise ConnectionError("down")

    monkeypatch.setattr(record_click, "send", down)
    monkeypatch.setattr(measurement, "record_click", down)
    with caplog.at_level(logging.ERROR):
        response = client.get(f"/api/ad-click/{ad.id}")
    assert response.status_code == 302
    assert "was not logged" in caplog.text


@pytest.mark.parametrize(
    "agent",
    [
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
        "SomeCrawler/1.0",
        "my-spider",
        "facebookexternalhit/1.1",
        "",
    ],
)
def test_bots_are_answered_204_and_not_counted(client, ad, stub_broker, agent):
    response = client.post(f"/api/ad-impression/{ad.id}", headers={"User-Agent": agent})
    assert response.status_code == 204
    assert take_messages(stub_broker, "measure") == []


def test_impressions_of_inactive_and_unknown_ads(client, ad, stub_broker):
    assert (
        client.post("/api/ad-impression/nope", headers={"User-Agent": BROWSER}).status_code == 404
    )
    stop(ad.id, "違反")
    assert (
        client.post(f"/api/ad-impression/{ad.id}", headers={"User-Agent": BROWSER}).status_code
        == 204
    )
    assert take_messages(stub_broker, "measure") == []


def test_an_impression_is_accepted_and_counted_once(client, ad, stub_broker):
    for country in ("JP", "JP", "XX"):
        response = client.post(
            f"/api/ad-impression/{ad.id}",
            headers={"User-Agent": BROWSER, "Edge-IPCountry": country},
        )
        assert response.status_code == 202
    messages = take_messages(stub_broker, "measure")
    from tasks.ads import record_impression as actor

    for message in messages + messages[:1]:  # the first one delivered twice
        actor(*message["args"])
    rows = {(r.country, r.date): r.impressions for r in AdImpressionDaily.select()}
    today = utcnow().date().isoformat()
    assert rows == {("JP", today): 2, ("unknown", today): 1}
    assert AdImpressionEvent.select().count() == 3


def test_an_impression_without_the_queue_is_counted_directly(client, ad, monkeypatch):
    from tasks.ads import record_impression as actor

    monkeypatch.setattr(actor, "send", lambda *a, **k: (_ for _ in ()).throw(OSError("down")))
    assert (
        client.post(f"/api/ad-impression/{ad.id}", headers={"User-Agent": BROWSER}).status_code
        == 202
    )
    assert AdImpressionDaily.get().impressions == 1


def test_old_event_ids_are_pruned(ad):
    now = utcnow()
    record_impression("old", ad.id, "2026-01-01", "JP", at=iso(now - timedelta(days=8)))
    record_impression("new", ad.id, "2026-01-01", "JP", at=iso(now - timedelta(days=6)))
    assert prune_impression_events(now) == 1
    assert [e.id for e in AdImpressionEvent.select()] == ["new"]
    assert AdImpressionDaily.get().impressions == 2  # counts stay


def test_with_redis_unreachable_clicks_and_impressions_are_written_directly(
    client, ad, monkeypatch
):
    from dramatiq.brokers.redis import RedisBroker

    from tasks.ads import record_click, record_impression

    nowhere = RedisBroker(url="redis://127.0.0.1:1/0", socket_connect_timeout=0.2)
    monkeypatch.setattr(record_click, "broker", nowhere)
    monkeypatch.setattr(record_impression, "broker", nowhere)
    click = client.get(f"/api/ad-click/{ad.id}", headers={"Edge-IPCountry": "JP"})
    assert click.status_code == 302
    assert AdClickLog.select().count() == 1
    seen = client.post(f"/api/ad-impression/{ad.id}", headers={"User-Agent": BROWSER})
    assert seen.status_code == 202
    assert AdImpressionDaily.get().impressions == 1
    nowhere.close()
