"""The beacons' stream with real processes on the real Redis: what the front accepts is
what the counting actor counts, exactly once, with a consumer killed mid-batch, two
consumers at once, and Redis restarted."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from dramatiq import Message

from models.ads.counting import Click, Impression
from models.ads.months import month_of
from models.clock import now_iso, utcnow
from models.tables import AdClickLog, AdImpressionDaily
from tests.factories import make_reservation
from tests.fixtures import TEST_REDIS_URL
from tests.workers.processes import free_port, kill, wait_for
from tests.workers.test_redis_faults import writes_blocked
from workers import beacons
from workers.broker import build_broker
from workers.redis_server import ensure_redis

pytestmark = pytest.mark.flow

BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/130", "Edge-IPCountry": "JP"}
# A consumer's entries are claimed by another after this long (AD_COUNTING_CLAIM_SECONDS).
CLAIM = {"AD_COUNTING_CLAIM_SECONDS": "2"}


def impressions(reservation_id) -> int:
    rows = AdImpressionDaily.select().where(AdImpressionDaily.ad_reservation == reservation_id)
    return sum(row.impressions for row in rows)


def counted_clicks(reservation_id) -> tuple[int, int]:
    """(logged, counted): every click row, and those the figures count."""
    rows = AdClickLog.select().where(AdClickLog.ad_reservation == reservation_id)
    return len(rows), sum(not (r.is_bot or r.is_repeat) for r in rows)


def count_beacons(redis_url: str, seconds: float) -> None:
    """Send the counting actor, as the scheduler does every minute."""
    broker = build_broker(redis_url)
    broker.enqueue(
        Message(
            queue_name="measure",
            actor_name="count_beacons",
            args=(),
            kwargs={"seconds": seconds},
            options={},
        )
    )
    broker.close()


def live():
    return make_reservation(status="active", start_month=month_of(utcnow()))


def impression(reservation) -> Impression:
    at = now_iso()
    return Impression(f"view:{uuid.uuid4()}", reservation.id, at[:10], "JP", at)


def test_what_the_front_accepts_is_counted_within_5_s(start_web, start_worker):
    # Given the front, and a worker whose counting actor is reading
    reservation = live()
    web = start_web()
    start_worker()
    count_beacons(TEST_REDIS_URL, 30)
    session = requests.Session()
    session.headers.update(BROWSER)
    # When 20 renders are seen, each posted twice, and each clicked twice
    accepted = {202: 0, 204: 0}
    for _ in range(20):
        served = session.get(
            f"{web}/api/ads/serve", params={"slot": "search-result-bottom", "country": "JP"}
        ).json()
        ad = served["positions"][0]["ad"]
        for _ in range(2):
            answer = session.post(web + ad["impressionUrl"][ad["impressionUrl"].index("/api/") :])
            accepted[answer.status_code] += 1
            click = session.get(
                web + ad["clickUrl"][ad["clickUrl"].index("/api/") :], allow_redirects=False
            )
            assert click.status_code == 302
    last = time.monotonic()
    # Then each render counts once and its second click is a repeat, within 5 s
    assert accepted == {202: 20, 204: 20}
    assert wait_for(
        lambda: impressions(reservation.id) == 20 and counted_clicks(reservation.id)[0] == 40,
        timeout=5,
    ), (impressions(reservation.id), counted_clicks(reservation.id))
    assert time.monotonic() - last <= 5
    assert counted_clicks(reservation.id) == (40, 20)


def test_a_consumer_killed_mid_batch_leaves_its_entries_to_the_next(start_worker, redis_client):
    reservation = live()
    events = [impression(reservation) for _ in range(50)]
    with writes_blocked():
        # Given a worker counting a batch whose transaction waits on the database
        first = start_worker(**CLAIM)
        count_beacons(TEST_REDIS_URL, 60)
        assert beacons.offer_many(events) == 50
        assert wait_for(lambda: beacons.pending(redis_client) == 50, timeout=30)
        # When it is killed (SIGKILL) holding them
        kill(first)
    assert impressions(reservation.id) == 0
    assert beacons.pending(redis_client) == 50
    # Then another worker, restarted, claims them after the timeout and counts them once
    start_worker(**CLAIM)
    count_beacons(TEST_REDIS_URL, 15)
    assert wait_for(lambda: impressions(reservation.id) == 50, timeout=30)
    assert wait_for(lambda: redis_client.xlen(beacons.STREAM) == 0, timeout=10)
    assert beacons.pending(redis_client) == 0
    assert impressions(reservation.id) == 50


def test_two_consumers_at_once_count_every_event_once(start_worker, redis_client):
    # Given two counting runs at once, in two worker processes
    reservation = live()
    start_worker(processes=2, threads=2, **CLAIM)
    count_beacons(TEST_REDIS_URL, 20)
    count_beacons(TEST_REDIS_URL, 20)
    # When 1,000 impressions and 400 clicks over 40 tokens come from 8 threads, each
    # impression offered twice (a replay)
    views = [impression(reservation) for _ in range(1_000)]
    at = now_iso()
    clicks = [
        Click(str(uuid.uuid4()), reservation.id, "JP", "Mozilla/5.0", at, f"tok{n % 40}")
        for n in range(400)
    ]
    with ThreadPoolExecutor(8) as pool:
        queued = sum(pool.map(lambda e: beacons.offer(e) is beacons.Handed.QUEUED, views * 2))
        queued += sum(pool.map(lambda e: beacons.offer(e) is beacons.Handed.QUEUED, clicks))
    assert queued == 1_400
    # Then every accepted event is counted once, and each token's first click counts
    assert wait_for(
        lambda: impressions(reservation.id) == 1_000 and counted_clicks(reservation.id)[0] == 400,
        timeout=30,
    ), (impressions(reservation.id), counted_clicks(reservation.id))
    assert wait_for(lambda: redis_client.xlen(beacons.STREAM) == 0, timeout=10)
    assert counted_clicks(reservation.id) == (400, 40)


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of this test's own (appendonly, as production runs it): (url, stop,
    start), to take it down and bring it back on its data. A test asks for it before
    start_worker, so that it stops after the worker: a worker whose Redis is gone does
    not stop within the 20 s its teardown waits."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    data = str(tmp_path / "redis")
    running = [ensure_redis(url, data_dir=data)]

    def stop():
        running[-1].terminate()
        running[-1].wait(timeout=10)

    def start():
        running.append(ensure_redis(url, data_dir=data))

    yield url, stop, start
    if running[-1].poll() is None:
        stop()


def test_redis_restarted_keeps_what_was_accepted_and_counts_it_once(
    own_redis, start_web, start_worker
):
    # Given the front and a worker on a Redis of their own
    url, stop, start = own_redis
    reservation = live()
    web = start_web(REDIS_URL=url)
    start_worker(REDIS_URL=url, **CLAIM)
    session = requests.Session()
    session.headers.update(BROWSER)

    def seen_once() -> int:
        served = session.get(
            f"{web}/api/ads/serve", params={"slot": "search-result-bottom", "country": "JP"}
        ).json()
        beacon = served["positions"][0]["ad"]["impressionUrl"]
        return session.post(web + beacon[beacon.index("/api/") :], timeout=5).status_code

    # Impressions accepted before the restart, while nothing reads the stream yet
    before = [seen_once() for _ in range(10)]
    # When Redis stops (its data kept), beacons arrive, and it starts again
    stop()
    during = [seen_once() for _ in range(5)]
    start()
    time.sleep(5)  # the front skips Redis for 5 s after a failure
    after = [seen_once() for _ in range(5)]
    count_beacons(url, 15)
    # Then the front counted those of the outage itself, and the counting run counts
    # the rest, each once
    assert (before, during, after) == ([202] * 10, [202] * 5, [202] * 5)
    assert wait_for(lambda: impressions(reservation.id) == 20, timeout=30), impressions(
        reservation.id
    )
    time.sleep(2)
    assert impressions(reservation.id) == 20
