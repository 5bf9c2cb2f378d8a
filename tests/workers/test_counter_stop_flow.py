"""The beacon counter in a real worker process (issue 42): SIGTERM ends it within 10 s,
even while it waits on Redis, and what it had read but not committed is counted once
after a restart; a Redis frozen for seconds neither fails it nor dead-letters it."""

from __future__ import annotations

import os
import signal
import time
import uuid

import pytest
import redis

from models.ads.counting import Impression
from models.ads.months import month_of
from models.clock import now_iso, utcnow
from models.tables import AdImpressionDaily
from tests.factories import make_reservation
from tests.fixtures import TEST_REDIS_URL
from tests.workers.processes import free_port, wait_for
from tests.workers.test_beacon_flow import count_beacons
from tests.workers.test_redis_faults import writes_blocked
from workers import beacons
from workers.redis_server import ensure_redis

pytestmark = pytest.mark.flow

CLAIM = {"AD_COUNTING_CLAIM_SECONDS": "2"}


def live():
    return make_reservation(status="active", start_month=month_of(utcnow()))


def impressions_of(reservation, count: int) -> list[Impression]:
    at = now_iso()
    return [
        Impression(f"view:{uuid.uuid4()}", reservation.id, at[:10], "JP", at) for _ in range(count)
    ]


def counted(reservation) -> int:
    rows = AdImpressionDaily.select().where(AdImpressionDaily.ad_reservation == reservation.id)
    return sum(row.impressions for row in rows)


def reading(client: redis.Redis) -> bool:
    """Whether a counting run is blocked reading the stream (Redis makes a group's
    consumer only once it is given an entry, so the blocked XREADGROUP is the sign)."""
    return any(c["cmd"] == "xreadgroup" and "b" in c["flags"] for c in client.client_list())


def dead_letters(client: redis.Redis) -> int:
    return int(client.zcard("dramatiq:measure.XQ"))


def stopped_within(process, seconds: float) -> float:
    """SIGTERM the worker (its main process passes it on, as a platform's stop does)
    and how long it took to exit; fails past `seconds`."""
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=seconds)
    return time.monotonic() - started


def test_sigterm_while_the_counter_waits_to_read_stops_the_worker_within_10_s(
    start_worker, redis_client
):
    # Given a worker whose counting run would read for 65 s, waiting on an empty stream
    worker = start_worker()
    count_beacons(TEST_REDIS_URL, 65)
    assert wait_for(lambda: reading(redis_client), timeout=30)
    time.sleep(1)
    # When the platform stops it
    took = stopped_within(worker, 10)
    # Then it is gone within 10 s, and the run is not counted as failed
    assert took < 10
    assert dead_letters(redis_client) == 0


def test_sigterm_mid_batch_loses_nothing_and_counts_nothing_twice(start_worker, redis_client):
    reservation = live()
    events = impressions_of(reservation, 50)
    with writes_blocked():
        # Given a worker whose counting run has read a batch and waits to write it
        first = start_worker(**CLAIM)
        count_beacons(TEST_REDIS_URL, 65)
        assert beacons.offer_many(events) == 50
        assert wait_for(lambda: beacons.pending(redis_client) == 50, timeout=30)
        # When the platform stops it (the database lets the write go just after)
        first.send_signal(signal.SIGTERM)
        time.sleep(0.5)
    first.wait(timeout=10)
    # Then a restarted worker's run counts each event once: the batch was either
    # committed or left pending to be claimed, never lost
    start_worker(**CLAIM)
    count_beacons(TEST_REDIS_URL, 15)
    assert wait_for(lambda: counted(reservation) == 50, timeout=30), counted(reservation)
    assert wait_for(lambda: redis_client.xlen(beacons.STREAM) == 0, timeout=10)
    assert beacons.pending(redis_client) == 0
    time.sleep(1)
    assert counted(reservation) == 50
    assert dead_letters(redis_client) == 0


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of this test's own, as a process to freeze with SIGSTOP: (url, process).
    A test asks for it before start_worker, so that it stops after the worker: a worker
    whose Redis is gone does not stop within the 20 s its teardown waits."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    process = ensure_redis(url, data_dir=str(tmp_path / "redis"))
    assert process is not None
    yield url, process
    os.kill(process.pid, signal.SIGCONT)
    process.terminate()
    process.wait(timeout=10)


def test_a_redis_frozen_for_six_seconds_neither_fails_nor_dead_letters_the_counter(
    own_redis, start_worker
):
    # Given a worker counting on a Redis of its own
    url, server = own_redis
    client = redis.Redis.from_url(url)
    reservation = live()
    start_worker(REDIS_URL=url)
    count_beacons(url, 40)
    assert wait_for(lambda: reading(client), timeout=30)
    assert beacons.offer_many(impressions_of(reservation, 5), client) == 5
    assert wait_for(lambda: counted(reservation) == 5, timeout=10)
    # When Redis freezes for 6 s (its worker's calls time out after 5)
    os.kill(server.pid, signal.SIGSTOP)
    time.sleep(6)
    os.kill(server.pid, signal.SIGCONT)
    # Then the same run goes on counting what comes after, and nothing is dead-lettered
    assert beacons.offer_many(impressions_of(reservation, 5), client) == 5
    assert wait_for(lambda: counted(reservation) == 10, timeout=20), counted(reservation)
    assert dead_letters(client) == 0
    client.close()
