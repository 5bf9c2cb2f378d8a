"""Serving, clicks and impressions over HTTP, with the worker."""

from __future__ import annotations

import logging
from dataclasses import asdict
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
import redis
from peewee import fn

from models import redis_client
from models.ads import measurement, view_tokens
from models.ads.delivery import clear_process_cache
from models.ads.measurement import prune_impression_events, record_impression
from models.ads.months import add_months, month_of
from models.ads.reservations import stop
from models.clock import iso, utcnow
from models.tables import AdClickLog, AdImpressionDaily, AdImpressionEvent
from tests.factories import (
    make_live_ad,
    make_subscription,
    make_user,
    sign_in,
)
from tests.fakes.ad_pages import PAGES
from tests.fixtures import drain_beacons, take_beacons, take_messages

MONTH = month_of(utcnow())
BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130 Safari/537.36"
SEEN = {"User-Agent": BROWSER, "Edge-IPCountry": "JP"}


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_process_cache()


@pytest.fixture
def ad():
    return make_live_ad(position=2, redirect_url="https://advertiser.example/landing?x=1")


def run_worker(stub_broker, stub_worker):
    stub_broker.join("measure", timeout=20_000)
    stub_worker.join()
    drain_beacons()  # the beacons' stream, as the counting actor reads it


def live(slot="video-detail-below-player", position=1, start=MONTH, end=MONTH):
    return make_live_ad(
        slot=slot,
        position=position,
        start_month=start,
        end_month=end,
        redirect_url="https://other.example/",
    )


def served(client, reservation, month=None):
    """The reservation's ad in a fresh serve answer (a new render)."""
    query = f"/api/ads/serve?slot={reservation.slot_id}&country=JP"
    body = client.get(query + (f"&month={month}" if month else "")).get_json()
    return body["positions"][reservation.position - 1]["ad"]


def local(url: str) -> str:
    """A served URL as a path for the test client."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def token_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["v"][0]


def deliver(stub_broker) -> int:
    """Count what the front handed on, the beacons' stream, as the counting actor reads
    it; returns how many events. The front queues no message per beacon."""
    assert take_messages(stub_broker, "measure") == []
    return drain_beacons()


def queue_down(redis_backend):
    """The hand-off to the beacons' stream fails: this test's Redis stops answering."""
    redis_backend.connected = False


def counted(reservation) -> int:
    total = (
        AdImpressionDaily.select(fn.SUM(AdImpressionDaily.impressions))
        .where(AdImpressionDaily.ad_reservation == reservation.id)
        .scalar()
    )
    return int(total or 0)


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
    click, seen = urlsplit(shown["clickUrl"]), urlsplit(shown["impressionUrl"])
    assert (click.path, seen.path) == (f"/api/ad-click/{ad.id}", f"/api/ad-impression/{ad.id}")
    assert token_of(shown["clickUrl"]) == token_of(shown["impressionUrl"])
    assert view_tokens.verify(token_of(shown["impressionUrl"]), ad.id).status == "valid"


def test_each_serve_answer_is_a_render_of_its_own_and_each_ad_has_its_own_token(client, ad):
    other = live(position=4)
    first = client.get("/api/ads/serve?slot=video-detail-below-player&country=JP").get_json()
    again = served(client, ad)
    [a, b] = [p["ad"] for p in first["positions"] if p["ad"]]
    assert (a["reservationId"], b["reservationId"]) == (ad.id, other.id)
    assert len({token_of(a["impressionUrl"]), token_of(b["impressionUrl"])}) == 2
    assert token_of(again["impressionUrl"]) != token_of(a["impressionUrl"])


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


def test_serve_without_a_country_takes_the_visitors_from_the_header(client, ad):
    # Given a visitor from Japan, and no country in the query
    # When the slot is served
    body = client.get(
        "/api/ads/serve?slot=video-detail-below-player", headers={"Edge-IPCountry": "JP"}
    ).get_json()
    # Then the ads are those sold for Japan, as on the pages
    assert body["country"] == "JP"
    assert body["positions"][1]["ad"]["reservationId"] == ad.id


def test_serve_with_a_country_in_the_query_ignores_the_header(client, ad):
    # Given a visitor from Japan asking for the United States' ads
    body = client.get(
        "/api/ads/serve?slot=video-detail-below-player&country=US",
        headers={"Edge-IPCountry": "JP"},
    ).get_json()
    # Then the query's country wins: the Japanese ad is not served
    assert body["country"] == "US"
    assert [p["ad"] for p in body["positions"]] == [None] * 4


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
    [click] = take_beacons()
    measurement.record_click(click)
    measurement.record_click(click)  # read twice
    [row] = AdClickLog.select()
    assert (row.ad_reservation_id, row.country, row.user_agent) == (ad.id, "JP", BROWSER)


def test_the_served_click_url_logs_its_view_token(client, ad, stub_broker):
    url = served(client, ad)["clickUrl"]
    response = client.get(local(url), headers=SEEN)
    assert response.headers["Location"] == "https://advertiser.example/landing?x=1"
    deliver(stub_broker)
    assert AdClickLog.get().view_token == token_of(url)


def test_every_click_is_logged_even_with_the_same_token(client, ad, stub_broker):
    url = local(served(client, ad)["clickUrl"])
    for _ in range(3):
        assert client.get(url, headers=SEEN).status_code == 302
    assert deliver(stub_broker) == 3
    assert AdClickLog.select().where(AdClickLog.view_token.is_null(False)).count() == 3


def test_a_click_with_an_expired_but_genuine_token_keeps_it(client, ad, stub_broker):
    an_hour_ago = utcnow() - timedelta(hours=1)
    token = view_tokens.make(ad.id, ad.position, view_tokens.new_render_id(), now=an_hour_ago)
    assert client.get(f"/api/ad-click/{ad.id}?v={token}", headers=SEEN).status_code == 302
    deliver(stub_broker)
    assert AdClickLog.get().view_token == token


@pytest.mark.parametrize("v", ["missing", "forged", "other", "garbage", "%00%FF", "x" * 44])
def test_a_click_without_a_genuine_token_is_logged_with_a_null_token(client, ad, stub_broker, v):
    other = live(position=4)
    token = token_of(served(client, ad)["clickUrl"])
    given = {
        "missing": None,
        "forged": token[:-2] + ("AA" if not token.endswith("AA") else "BB"),
        "other": token_of(served(client, other)["clickUrl"]),
        "garbage": "'\"<script>",
    }.get(v, v)
    url = f"/api/ad-click/{ad.id}" + ("" if given is None else f"?v={given}")
    response = client.get(url, headers=SEEN)
    assert response.status_code == 302
    deliver(stub_broker)
    [row] = AdClickLog.select()
    assert row.view_token is None


@pytest.mark.parametrize(
    "agent",
    [
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "SomeCrawler/1.0",
        "",
        None,  # no User-Agent header at all
    ],
)
def test_a_bot_click_is_redirected_and_logged_as_a_bot(client, ad, stub_broker, agent):
    # Given a click from a bot, through the URL this service served
    url = local(served(client, ad)["clickUrl"])
    if agent is None:
        client.environ_base.pop("HTTP_USER_AGENT")  # the test client's own "Werkzeug/..."
    headers = {"Edge-IPCountry": "JP"} | ({} if agent is None else {"User-Agent": agent})
    # When it arrives
    response = client.get(url, headers=headers)
    # Then the bot still goes on to the advertiser, and the click is logged, marked
    assert response.status_code == 302
    assert response.headers["Location"] == "https://advertiser.example/landing?x=1"
    assert deliver(stub_broker) == 1
    [row] = AdClickLog.select()
    assert row.is_bot is True


def test_a_browser_click_is_not_logged_as_a_bot(client, ad, stub_broker):
    client.get(local(served(client, ad)["clickUrl"]), headers=SEEN)
    deliver(stub_broker)
    assert AdClickLog.get().is_bot is False


def test_a_click_from_an_unusable_country_is_stored_as_unknown(
    client, ad, stub_broker, stub_worker
):
    client.get(f"/api/ad-click/{ad.id}", headers={"Edge-IPCountry": "T1"})
    run_worker(stub_broker, stub_worker)
    assert AdClickLog.get().country == "unknown"


def test_clicks_on_unknown_or_inactive_ads_are_404_and_not_logged(client, ad, stub_broker):
    stop(ad.id, "違反", PAGES)
    assert client.get(f"/api/ad-click/{ad.id}").status_code == 404
    assert client.get("/api/ad-click/no-such-ad").status_code == 404
    assert take_beacons() == []


@pytest.mark.parametrize("when", ["before the start month", "after the end month"])
def test_a_click_outside_the_contract_period_redirects_and_logs_nothing(client, stub_broker, when):
    # Approved ahead of its start month, or still active until the daily expiry job runs.
    month = add_months(MONTH, 1 if when == "before the start month" else -1)
    reservation = live(start=month, end=month)
    url = served(client, reservation, month=month)["clickUrl"]
    response = client.get(local(url), headers=SEEN)
    assert response.status_code == 302
    assert response.headers["Location"] == "https://other.example/"
    assert take_beacons() == []
    assert AdClickLog.select().count() == 0


def test_a_click_without_the_queue_is_written_directly(client, ad, redis_backend):
    queue_down(redis_backend)
    url = served(client, ad)["clickUrl"]
    assert client.get(local(url)).status_code == 302
    assert AdClickLog.get().view_token == token_of(url)


def test_a_click_still_redirects_when_nothing_can_be_written(
    client, ad, monkeypatch, caplog, redis_backend
):
    def down(*_a, **_k):
        raise ConnectionError("down")

    queue_down(redis_backend)
    monkeypatch.setattr(measurement, "record_click", down)
    with caplog.at_level(logging.ERROR):
        response = client.get(f"/api/ad-click/{ad.id}")
    assert response.status_code == 302
    assert "record_click was neither queued nor done here (click_id=" in caplog.text
    assert f"reservation_id={ad.id})" in caplog.text


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
    url = local(served(client, ad)["impressionUrl"])
    response = client.post(url, headers={"User-Agent": agent})
    assert response.status_code == 204
    assert take_beacons() == []


def test_impressions_of_inactive_and_unknown_ads(client, ad, stub_broker):
    url = local(served(client, ad)["impressionUrl"])
    assert (
        client.post("/api/ad-impression/nope", headers={"User-Agent": BROWSER}).status_code == 404
    )
    stop(ad.id, "違反", PAGES)
    assert client.post(url, headers={"User-Agent": BROWSER}).status_code == 204
    assert take_beacons() == []


def test_an_impression_is_accepted_and_counted_once(client, ad, stub_broker):
    for country in ("JP", "JP", "XX"):
        url = local(served(client, ad)["impressionUrl"])  # three renders
        response = client.post(url, headers={"User-Agent": BROWSER, "Edge-IPCountry": country})
        assert response.status_code == 202
    events = take_beacons()
    for event in events + events[:1]:  # the first one read twice
        record_impression(**asdict(event))
    rows = {(r.country, r.date): r.impressions for r in AdImpressionDaily.select()}
    today = utcnow().date().isoformat()
    assert rows == {("JP", today): 2, ("unknown", today): 1}
    assert AdImpressionEvent.select().count() == 3


def test_a_token_posted_ten_times_counts_once(client, ad, stub_broker):
    url = local(served(client, ad)["impressionUrl"])
    answers = [client.post(url, headers=SEEN).status_code for _ in range(10)]
    assert answers == [202] + [204] * 9
    deliver(stub_broker)
    assert counted(ad) == 1


def test_without_the_redis_filter_the_database_still_counts_a_token_once(
    client, ad, stub_broker, monkeypatch
):
    url = local(served(client, ad)["impressionUrl"])
    real = redis_client.get_redis()

    class FilterFails:
        """The filter is the hand-off's script now (workers/beacons.py): it fails."""

        def __getattr__(self, name):
            return getattr(real, name)

        def register_script(self, *_a, **_k):
            def run(*_a, **_k):
                raise redis.ConnectionError("down")

            return run

    monkeypatch.setattr(redis_client, "get_redis", lambda: FilterFails())
    answers = [client.post(url, headers=SEEN).status_code for _ in range(10)]
    # Nothing to filter with, and Redis counted as down: each is written here, once.
    assert answers == [202] * 10
    deliver(stub_broker)
    assert counted(ad) == 1


def test_two_renders_of_the_same_ad_count_two(client, ad, stub_broker):
    for _ in range(2):
        url = local(served(client, ad)["impressionUrl"])
        assert client.post(url, headers=SEEN).status_code == 202
        assert client.post(url, headers=SEEN).status_code == 204
    deliver(stub_broker)
    assert counted(ad) == 2


@pytest.mark.parametrize(
    "v", ["missing", "empty", "forged", "expired", "other", "garbage", "%00%FF", "x" * 44]
)
def test_an_impression_without_a_valid_token_is_204_and_counts_nothing(client, ad, stub_broker, v):
    other = live(position=4)
    token = token_of(served(client, ad)["impressionUrl"])
    half_an_hour_ago = utcnow() - view_tokens.TTL - timedelta(seconds=1)
    given = {
        "missing": None,
        "empty": "",
        "forged": token[:-2] + ("AA" if not token.endswith("AA") else "BB"),
        "expired": view_tokens.make(ad.id, ad.position, b"r" * 12, now=half_an_hour_ago),
        "other": token_of(served(client, other)["impressionUrl"]),
        "garbage": "'\"<script>",
    }.get(v, v)
    url = f"/api/ad-impression/{ad.id}" + ("" if given is None else f"?v={given}")
    assert client.post(url, headers=SEEN).status_code == 204
    assert take_beacons() == []
    assert counted(ad) == 0


@pytest.mark.parametrize("when", ["before the start month", "after the end month"])
def test_an_impression_outside_the_contract_period_is_204_and_counts_nothing(
    client, stub_broker, when
):
    month = add_months(MONTH, 1 if when == "before the start month" else -1)
    reservation = live(start=month, end=month)
    url = local(served(client, reservation, month=month)["impressionUrl"])
    assert client.post(url, headers=SEEN).status_code == 204
    assert take_beacons() == []
    assert counted(reservation) == 0


def test_an_impression_without_the_queue_is_counted_directly(client, ad, redis_backend):
    queue_down(redis_backend)
    url = local(served(client, ad)["impressionUrl"])
    assert client.post(url, headers={"User-Agent": BROWSER}).status_code == 202
    # Redis counts as down now, so no cheap filter: the database still counts it once.
    client.post(url, headers={"User-Agent": BROWSER})
    assert AdImpressionDaily.get().impressions == 1


def test_an_impression_that_can_be_neither_queued_nor_counted_answers_500(
    client, ad, monkeypatch, redis_backend
):
    """The impression's policy is RUN_INLINE: unlike a click, whose visitor must go on,
    the beacon is told that nothing was counted (docs/operating.md, Faults and
    recovery)."""

    def down(*_a, **_k):
        raise ConnectionError("down")

    queue_down(redis_backend)
    monkeypatch.setattr(measurement, "record_impression", down)
    url = local(served(client, ad)["impressionUrl"])
    assert client.post(url, headers={"User-Agent": BROWSER}).status_code == 500
    assert AdImpressionDaily.select().count() == 0


def test_old_event_ids_are_pruned(ad):
    now = utcnow()
    record_impression("old", ad.id, "2026-01-01", "JP", at=iso(now - timedelta(days=8)))
    record_impression("new", ad.id, "2026-01-01", "JP", at=iso(now - timedelta(days=6)))
    assert prune_impression_events(now) == 1
    assert [e.id for e in AdImpressionEvent.select()] == ["new"]
    assert AdImpressionDaily.get().impressions == 2  # counts stay


def test_with_redis_unreachable_clicks_and_impressions_are_written_directly(
    client, ad, monkeypatch, real_redis_attempts
):

    served_ad = served(client, ad)
    nowhere = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)
    monkeypatch.setattr(redis_client, "get_redis", lambda: nowhere)
    click = client.get(local(served_ad["clickUrl"]), headers={"Edge-IPCountry": "JP"})
    assert click.status_code == 302
    assert AdClickLog.select().count() == 1
    seen = client.post(local(served_ad["impressionUrl"]), headers={"User-Agent": BROWSER})
    assert seen.status_code == 202
    assert AdImpressionDaily.get().impressions == 1
    assert ("127.0.0.1", 1) in real_redis_attempts  # the sends did go to the dead Redis
    nowhere.close()


def test_a_beacons_access_line_is_at_debug_and_a_pages_at_info(client, ad, caplog):
    # Given the access log at INFO, as production runs it
    url = local(served(client, ad)["impressionUrl"])
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="web.request_log"):
        # When an impression and a click arrive
        assert client.post(url, headers=SEEN).status_code == 202
        assert client.get(f"/api/ad-click/{ad.id}", headers=SEEN).status_code == 302
        assert client.get("/api/ping").status_code == 200
    # Then only the other request has an access line: the beacons log theirs at DEBUG
    assert [r.getMessage() for r in caplog.records if r.name == "web.request_log"] == [
        "GET /api/ping 200"
    ]
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="web.request_log"):
        client.post(url, headers=SEEN)
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("DEBUG", "POST /api/ad-impression/<reservation_id> 204")
    ]


def test_the_beacon_addresses_follow_the_script_root_and_each_render(client, ad):
    """Each reservation's addresses are built once and reused: an app served under a
    path prefix still gets its own, and each render its own token."""
    plain = served(client, ad)
    prefixed = client.get(
        "/api/ads/serve?slot=video-detail-below-player&country=JP",
        environ_overrides={"SCRIPT_NAME": "/subsearch"},
    ).get_json()
    [under_prefix] = [p["ad"] for p in prefixed["positions"] if p["ad"]]
    assert urlsplit(plain["clickUrl"]).path == f"/api/ad-click/{ad.id}"
    assert urlsplit(under_prefix["clickUrl"]).path == f"/subsearch/api/ad-click/{ad.id}"
    assert urlsplit(under_prefix["impressionUrl"]).path == (f"/subsearch/api/ad-impression/{ad.id}")
    assert token_of(under_prefix["clickUrl"]) != token_of(plain["clickUrl"])
    assert view_tokens.verify(token_of(under_prefix["clickUrl"]), ad.id).status == "valid"
