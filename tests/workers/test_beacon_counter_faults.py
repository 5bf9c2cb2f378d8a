"""The beacon counter rides out a Redis that stops answering for a few seconds, and ends
its run soon when its worker is told to stop (issue 42; docs/operating.md, Faults and
recovery). On the fake Redis; tests/workers/test_counter_stop_flow.py runs real workers."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import redis

from models import redis_client
from models.ads.counting import Impression
from models.tables import AdImpressionDaily
from tasks.ads import count_beacons
from tests.factories import make_reservation
from tests.fixtures import wait_for
from workers import beacons

AT = "2027-01-10T10:00:00.000Z"


@pytest.fixture
def reservation():
    return make_reservation(start_month="2027-01", end_month="2027-01", status="active")


@pytest.fixture
def client(redis_backend):
    return redis_client.get_redis()


class FrozenFor:
    """A Redis client whose every call times out until `seconds` have passed, as a
    worker's client meets a Redis frozen by SIGSTOP, then answers as the real one."""

    def __init__(self, client: redis.Redis, seconds: float) -> None:
        self._client = client
        self._until = time.monotonic() + seconds
        self.timeouts = 0

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._client, name)
        if not callable(found):
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            if time.monotonic() < self._until:
                self.timeouts += 1
                raise redis.TimeoutError("Timeout reading from socket")
            return found(*args, **kwargs)

        return call


def offered(reservation, count: int) -> list[Impression]:
    events = [Impression(f"view:{n}", reservation.id, "2027-01-10", "JP", AT) for n in range(count)]
    assert beacons.offer_many(events) == count
    return events


def counted(reservation) -> int:
    rows = AdImpressionDaily.select().where(AdImpressionDaily.ad_reservation == reservation.id)
    return sum(r.impressions for r in rows)


def test_a_redis_frozen_for_seconds_is_retried_and_everything_counted(client, reservation):
    # Given three impressions on the stream, and a Redis that times out for 2 s
    offered(reservation, 3)
    frozen = FrozenFor(client, 2.0)
    consumer = beacons.Consumer(frozen)  # type: ignore[arg-type]  # a stand-in client
    # When a counting run reads for 4 s
    total = beacons.consume_for(4.0, consumer, block_ms=100)
    # Then it waited the freeze out instead of failing, and counted each impression once
    assert frozen.timeouts >= 2
    assert total.impressions == 3
    assert counted(reservation) == 3
    assert client.xlen(beacons.STREAM) == 0


def test_a_redis_down_longer_than_the_patience_fails_the_run(client, monkeypatch):
    # Given a Redis that does not answer for longer than the counter waits
    monkeypatch.setattr(beacons, "REDIS_PATIENCE_SECONDS", 0.6)
    consumer = beacons.Consumer(FrozenFor(client, 60))  # type: ignore[arg-type]
    # Then the run fails, after retrying, to be dead-lettered and alerted on
    started = time.monotonic()
    with pytest.raises(redis.TimeoutError):
        beacons.consume_for(30.0, consumer, block_ms=100)
    assert 0.6 <= time.monotonic() - started < 3


def test_a_stopping_worker_ends_the_counting_run_within_seconds(
    client, reservation, stub_broker, stub_worker
):
    # Given a counting run that would read for a minute, reading now
    offered(reservation, 2)
    count_beacons.send(60.0)
    assert wait_for(lambda: counted(reservation) == 2, timeout=10)
    # When its worker is told to stop (what SIGTERM does in a worker process)
    started = time.monotonic()
    stopping = threading.Thread(target=stub_worker.stop)
    stopping.start()
    stopping.join(timeout=30)
    # Then the run ends within seconds, not failed (nothing dead-lettered)
    assert time.monotonic() - started < 5
    assert stub_broker.dead_letters == []
