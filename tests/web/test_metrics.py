"""GET /metrics: never public (404 without METRICS_TOKEN, 401 without the right bearer),
and after a small flow its numbers moved as an operator expects: requests by route
template and status class, a search timed by engine, impressions and clicks accepted and
counted, a webhook outcome, a hold release, a monthly reset, the outbox, dead letters."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from dramatiq import Message
from prometheus_client.parser import text_string_to_metric_families

from models import ingest, platform_pause
from models.ads.delivery import clear_process_cache
from models.ads.months import month_of
from models.ads.reservations import approve
from models.clock import utcnow
from models.metrics import counter_values
from models.tables import IndexCheck, OutboxMessage
from scheduler.runner import tick_once
from scheduler.schedule import SCHEDULE
from tasks.ads import release_unpaid_ad_holds
from tasks.credits import batch_monthly_reset
from tests.factories import make_reservation, make_user, sign_in
from tests.fakes.platform_files import manual, pause_runs_out
from tests.fixtures import TEST_REDIS_URL, drain
from tests.web.api.test_payment_webhooks import AD, completed, post
from web.app import create_app
from web.cli.processes import where_to_look
from web.metrics import WaitingWork
from workers.broker import build_broker

TOKEN = "metrics-token-for-tests"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
SEEN = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/130 Safari/537.36"}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def metered(settings):
    app = create_app(replace(settings, metrics_token=TOKEN))
    app.config.update(TESTING=True)
    return app.test_client()


def scrape(client) -> dict[tuple[str, tuple], float]:
    """Every sample of a scrape by (name, sorted labels)."""
    answer = client.get("/metrics", headers=BEARER)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.get_data(as_text=True))
        for sample in family.samples
    }


def value(samples, name, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_without_a_token_configured_the_endpoint_does_not_exist(client):
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", headers=BEARER).status_code == 404


@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer "]
)
def test_a_wrong_or_missing_token_is_401(metered, authorization):
    headers = {"Authorization": authorization} if authorization else {}
    answer = metered.get("/metrics", headers=headers)
    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert answer.get_json()["error"]["code"] == "unauthenticated"
    assert "subsearch_http_requests" not in answer.get_data(as_text=True)


def test_the_numbers_move_with_a_small_flow(metered, platform_files, stub_broker, stub_worker):
    before = scrape(metered)

    # A search on the page, by its route template, timed on the embedded engine.
    platform_files.channel("UCmetricsmetricsmetrics01", ["metrics0001"])
    platform_files.video("metrics0001", "UCmetricsmetricsmetrics01", manual("ラーメンです。"))
    ingest.import_channel("UCmetricsmetricsmetrics01")
    ingest.fetch_subtitles("metrics0001")
    assert metered.get("/search?q=ラーメン").status_code == 200
    assert metered.get("/videos/no-such-video").status_code == 404

    # An impression and a click of a live ad: accepted by the web, counted by the worker.
    month = month_of(utcnow())
    ad = make_reservation(
        slot="video-detail-below-player",
        start_month=month,
        end_month=month,
        payment_intent_id="pi_metrics",
    )
    approve(ad.id)
    clear_process_cache()
    served = metered.get(f"/api/ads/serve?slot={ad.slot_id}&country=JP", headers=SEEN)
    placed = served.get_json()["positions"][ad.position - 1]["ad"]
    for url, method in ((placed["impressionUrl"], "post"), (placed["clickUrl"], "get")):
        parts = urlsplit(url)
        answer = getattr(metered, method)(f"{parts.path}?{parts.query}", headers=SEEN)
        assert answer.status_code in (202, 302)
    drain(stub_broker, stub_worker, queues=("measure",))

    # A paid ad checkout webhook, an expired unpaid hold released, the monthly reset.
    unpaid = make_reservation()
    assert post(metered, AD, completed(unpaid.id, "pi_flow")).status_code == 200
    make_reservation(position=3, created_at="2000-01-01T00:00:00.000Z")  # never paid
    release_unpaid_ad_holds()
    batch_monthly_reset("2099-01")
    batch_monthly_reset("2099-01")  # a redelivery finds the month done

    # Something waits in the outbox.
    OutboxMessage.create(
        id="metrics-outbox", actor="noop", args="[]", created_at="2000-01-01T00:00:00.000Z"
    )

    after = scrape(metered)

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    ok = {"route": "/search", "method": "GET", "status": "2xx"}
    assert moved("subsearch_http_requests_total", **ok) == 1
    assert (
        moved("subsearch_http_request_duration_seconds_count", route="/search", method="GET") == 1
    )
    missing = {"route": "/videos/<video_id>", "method": "GET", "status": "4xx"}
    assert moved("subsearch_http_requests_total", **missing) == 1
    assert not any("no-such-video" in str(key) for key in after)  # templates, not paths
    assert moved("subsearch_search_duration_seconds_count", engine="embedded", kind="videos") == 1
    for kind in ("impression", "click"):
        assert moved("subsearch_ad_events_total", kind=kind, stage="accepted") == 1, kind
        assert moved("subsearch_ad_events_total", kind=kind, stage="counted") == 1, kind
    assert moved("subsearch_webhook_events_total", endpoint="ad-checkout", outcome="paid") == 1
    assert moved("subsearch_ad_hold_releases_total", source="expiry") == 1
    assert moved("subsearch_monthly_reset_runs_total", outcome="ran") == 1
    assert moved("subsearch_monthly_reset_runs_total", outcome="already_ran") == 1
    assert value(after, "subsearch_outbox_waiting") >= 1
    assert value(after, "subsearch_outbox_oldest_age_seconds") > 365 * 86400


def test_dead_letters_are_counted_by_queue(redis_client):
    broker = build_broker(TEST_REDIS_URL)
    try:
        broker.declare_queue("metrics")
        message = Message(queue_name="metrics", actor_name="gone", args=(), kwargs={}, options={})
        broker.enqueue(message)
        consumer = broker.consume("metrics", prefetch=1, timeout=1000)
        taken = next(consumer)
        consumer.nack(taken)  # dead-lettered, as after its last retry
        consumer.close()
        families = {family.name: family for family in WaitingWork(lambda: broker).collect()}
        dead = {
            tuple(sample.labels.values()): sample.value
            for sample in families["subsearch_queue_messages"].samples
        }
        assert dead[("metrics", "dead")] == 1
        assert dead[("metrics", "ready")] == 0
    finally:
        broker.close()


WRITER = textwrap.dedent(
    """
    from models.metrics import REQUESTS
    REQUESTS.labels(route="/search", method="GET", status="2xx").inc({n})
    """
)


def test_processes_add_up_through_the_multiprocess_folder(tmp_path):
    """Two processes (as two gunicorn workers) record; a scrape reads their sum."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for n in (2, 3):
        subprocess.run(
            [sys.executable, "-c", WRITER.format(n=n)], cwd=ROOT, env=env, check=True, timeout=60
        )
    reader = "from models.metrics import exposition; print(exposition().decode())"
    shown = subprocess.run(
        [sys.executable, "-c", reader],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=60,
        capture_output=True,
        text=True,
    ).stdout
    line = re.search(
        r'^subsearch_http_requests_total\{[^}]*route="/search"[^}]*\} (\S+)$', shown, re.M
    )
    assert line and float(line.group(1)) == 5.0


def test_signed_in_pages_are_counted_by_template_too(metered):
    user = make_user(email="metrics-member@example.jp")
    sign_in(metered, user)
    before = scrape(metered)
    assert metered.get("/account").status_code == 200
    after = scrape(metered)
    labels = {"route": "/account", "method": "GET", "status": "2xx"}
    assert (
        value(after, "subsearch_http_requests_total", **labels)
        - value(before, "subsearch_http_requests_total", **labels)
        == 1
    )


def test_make_run_says_where_metrics_and_logs_are(settings):
    shown = "\n".join(where_to_look(replace(settings, metrics_token=TOKEN), 8000))
    assert "http://127.0.0.1:8000/metrics" in shown and "Bearer $METRICS_TOKEN" in shown
    assert TOKEN not in shown  # the token itself is never printed
    assert "http://127.0.0.1:9191/" in shown and "standard error" in shown
    off = "\n".join(where_to_look(replace(settings, metrics_token=None), 8000))
    assert "set METRICS_TOKEN" in off


def test_the_alert_rules_name_only_metrics_that_exist(metered, redis_client):
    """deploy/prometheus/alerts.yml (docs/operating.md, What to alert on) watches these
    names: a renamed metric would leave an alert silently never firing."""
    rules = yaml.safe_load((Path(ROOT) / "deploy" / "prometheus" / "alerts.yml").read_text())
    expressions = [rule["expr"] for group in rules["groups"] for rule in group["rules"]]
    wanted = {name for expr in expressions for name in re.findall(r"subsearch_\w+", expr)}
    IndexCheck.create(  # its gauges are left out until a check has run
        engine="embedded",
        started_at="2026-11-24T09:10:00.000Z",
        finished_at="2026-11-24T09:16:00.000Z",
        videos=1,
        missing=0,
        extra=0,
        stale=0,
        repaired=False,
        examples="{}",
    )
    platform_pause.pause("ip_blocked")  # its "since" is left out while fetching
    broker = build_broker(TEST_REDIS_URL)
    try:
        broker.declare_queue("metrics")
        families = [
            *text_string_to_metric_families(
                metered.get("/metrics", headers=BEARER).get_data(as_text=True)
            ),
            *WaitingWork(lambda: broker).collect(),
        ]
    finally:
        broker.close()
    known = {family.name for family in families}
    known |= {f"{name}_{suffix}" for name in known for suffix in ("total", "count", "sum")}
    assert wanted and wanted <= known, sorted(wanted - known)


def test_the_scheduler_last_ticks_show_when_it_last_ran(metered, redis_client, stub_broker):
    """A stopped scheduler shows as its every-minute jobs' last tick growing old."""
    now = datetime(2026, 11, 25, 10, 30, tzinfo=UTC)
    tick_once(redis_client, stub_broker, now, SCHEDULE)
    tick_once(redis_client, stub_broker, now + timedelta(minutes=1), SCHEDULE)
    samples = scrape(metered)
    last = value(samples, "subsearch_scheduler_last_tick_timestamp_seconds", job="redrive-outbox")
    assert last == (now + timedelta(minutes=1)).timestamp()
    assert value(samples, "subsearch_scrape_errors", part="scheduler") == 0


def test_a_block_shows_as_the_pause_and_as_fetches_by_kind(metered, platform_files):
    # given a video whose fetch the platform refuses (the service's address)
    channel = "UCmetr0metr0metr0metr0m1"
    platform_files.channel(channel, ["metrVideo01"])
    platform_files.video("metrVideo01", channel, None, faults=["request_blocked"])
    ingest.import_channel(channel)
    before = counter_values("subsearch_subtitle_fetches", outcome="request_blocked")

    with pytest.raises(ingest.FetchLater):
        ingest.fetch_subtitles("metrVideo01")

    # then the scrape says fetching is paused since then, and the fetch counted its kind
    after = counter_values("subsearch_subtitle_fetches", outcome="request_blocked")
    assert sum(after.values()) == sum(before.values()) + 1
    text = metered.get("/metrics", headers=BEARER).get_data(as_text=True)
    assert "subsearch_platform_paused 1.0" in text
    since = re.search(r"^subsearch_platform_paused_since_timestamp_seconds (\S+)$", text, re.M)
    assert since and abs(float(since.group(1)) - datetime.now(UTC).timestamp()) < 60
    # and once the platform answers again, it is not
    platform_files.update("videos", "metrVideo01", subtitles=None)
    pause_runs_out()
    assert ingest.fetch_subtitles("metrVideo01") == "unavailable"
    text = metered.get("/metrics", headers=BEARER).get_data(as_text=True)
    assert "subsearch_platform_paused 0.0" in text
    assert "subsearch_platform_paused_since_timestamp_seconds" not in text
