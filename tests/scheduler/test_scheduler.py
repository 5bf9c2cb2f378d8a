"""The scheduler sends each tick once, even with two schedulers at once, and a tick
whose send fails is sent by a later round, whichever scheduler tried it."""

from __future__ import annotations

import contextlib
import threading
from datetime import UTC, datetime, timedelta

import pytest
import redis

from scheduler import runner
from scheduler.runner import latest_due_tick, tick_once
from scheduler.schedule import SCHEDULE, Job
from tests.fixtures import wait_for

pytestmark = pytest.mark.database_independent

HOURLY = Job("probe-hourly", "17 * * * *", "purge_expired_sessions")
MISSING = Job("probe-missing", "17 * * * *", "no_such_actor")


def at(hour, minute, second=0, day=22):
    return datetime(2026, 11, day, hour, minute, second, tzinfo=UTC)


def queued(broker):
    return broker.queues["maintenance"].qsize()


def test_every_scheduled_actor_exists(stub_broker):
    for job in SCHEDULE:
        assert stub_broker.get_actor(job.actor)


@pytest.mark.parametrize(
    ("after", "now", "expected"),
    [
        (at(10, 0), at(10, 17, 30), at(10, 17)),
        (at(10, 17), at(10, 17, 59), None),
        (at(9, 0), at(10, 16), at(9, 17)),
        (at(7, 0), at(10, 20), at(10, 17)),
    ],
)
def test_latest_due_tick(after, now, expected):
    assert latest_due_tick(HOURLY, after, now) == expected


def test_a_fresh_scheduler_does_not_replay_the_past(stub_broker, redis_client):
    assert tick_once(redis_client, stub_broker, at(10, 20), [HOURLY]) == []
    assert queued(stub_broker) == 0


def test_each_tick_is_sent_once(stub_broker, redis_client):
    tick_once(redis_client, stub_broker, at(10, 0), [HOURLY])
    assert len(tick_once(redis_client, stub_broker, at(10, 17, 5), [HOURLY])) == 1
    assert tick_once(redis_client, stub_broker, at(10, 17, 40), [HOURLY]) == []
    assert tick_once(redis_client, stub_broker, at(10, 50), [HOURLY]) == []
    assert len(tick_once(redis_client, stub_broker, at(11, 17), [HOURLY])) == 1
    assert queued(stub_broker) == 2


def test_ticks_missed_while_down_are_sent_once_not_each(stub_broker, redis_client):
    tick_once(redis_client, stub_broker, at(10, 0), [HOURLY])
    sent = tick_once(redis_client, stub_broker, at(13, 20), [HOURLY])
    assert sent == [("probe-hourly", at(13, 17).isoformat())]
    assert queued(stub_broker) == 1


def test_two_schedulers_at_once_never_send_the_same_tick_twice(
    stub_broker, redis_client, new_redis_client
):
    tick_once(redis_client, stub_broker, at(10, 0), [HOURLY])
    barrier = threading.Barrier(8)
    results = []

    def scheduler():
        own_connection = new_redis_client()
        barrier.wait()
        results.append(tick_once(own_connection, stub_broker, at(10, 17, 2), [HOURLY]))
        own_connection.close()

    threads = [threading.Thread(target=scheduler) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(len(r) for r in results) == 1
    assert queued(stub_broker) == 1


class FailingSends:
    """A broker whose sends fail (the queue is down) until `up()`; `hold` makes the
    first send wait for the test before failing, as a scheduler slow to find out."""

    def __init__(self, real, hold: bool = False):
        self.real = real
        self.down = True
        self.sending = threading.Event()
        self.go_on = threading.Event()
        if not hold:
            self.go_on.set()

    def up(self) -> None:
        self.down = False

    def get_actor(self, name):
        actor = self.real.get_actor(name)
        broker = self

        class Actor:
            def send(self, *args, **kwargs):
                if broker.down:
                    broker.sending.set()
                    broker.go_on.wait(10)
                    raise ConnectionError("the queue is down")
                return actor.send(*args, **kwargs)

        return Actor()


def test_a_tick_whose_send_fails_is_sent_by_a_later_round(stub_broker, redis_client):
    broker = FailingSends(stub_broker)
    tick_once(redis_client, broker, at(10, 0), [HOURLY])
    assert tick_once(redis_client, broker, at(10, 17, 5), [HOURLY]) == []
    broker.up()
    assert len(tick_once(redis_client, broker, at(10, 17, 10), [HOURLY])) == 1
    assert queued(stub_broker) == 1


def test_a_tick_another_scheduler_failed_to_send_is_sent_by_this_one(
    stub_broker, redis_client, new_redis_client
):
    tick_once(redis_client, stub_broker, at(10, 0), [HOURLY])
    other = FailingSends(stub_broker, hold=True)
    other_redis = new_redis_client()
    failed = threading.Thread(
        target=lambda: tick_once(other_redis, other, at(10, 17, 1), [HOURLY]), daemon=True
    )
    failed.start()
    assert other.sending.wait(10)

    # The other scheduler holds the tick: this one leaves it to it...
    assert tick_once(redis_client, stub_broker, at(10, 17, 2), [HOURLY]) == []
    other.go_on.set()  # ...and its send fails.
    failed.join(10)

    assert len(tick_once(redis_client, stub_broker, at(10, 17, 7), [HOURLY])) == 1
    assert tick_once(redis_client, stub_broker, at(10, 17, 12), [HOURLY]) == []
    assert queued(stub_broker) == 1


def test_a_scheduler_that_died_mid_send_leaves_the_tick_to_a_later_round(
    stub_broker, redis_client, new_redis_client, monkeypatch
):
    monkeypatch.setattr(runner, "SENDING_TTL", timedelta(milliseconds=500), raising=False)
    tick_once(redis_client, stub_broker, at(10, 0), [HOURLY])
    dying = new_redis_client()

    def cannot(*_args):
        raise redis.ConnectionError("the scheduler's Redis connection is gone")

    monkeypatch.setattr(dying, "delete", cannot)  # it cannot release its claim
    with contextlib.suppress(Exception):
        tick_once(dying, FailingSends(stub_broker), at(10, 17, 1), [HOURLY])
    assert tick_once(redis_client, stub_broker, at(10, 17, 2), [HOURLY]) == []  # still held
    claim = "subsearch:scheduler:tick:probe-hourly:2026-11-22T10:17"
    assert 0 < redis_client.pttl(claim) <= 500  # held for SENDING_TTL, not for good
    assert wait_for(lambda: not redis_client.exists(claim), timeout=5), "the claim never lapsed"

    assert len(tick_once(redis_client, stub_broker, at(10, 17, 7), [HOURLY])) == 1
    assert queued(stub_broker) == 1


def test_a_job_that_cannot_be_sent_does_not_hold_back_the_others(stub_broker, redis_client):
    tick_once(redis_client, stub_broker, at(10, 0), [MISSING, HOURLY])
    sent = tick_once(redis_client, stub_broker, at(10, 17, 5), [MISSING, HOURLY])
    assert sent == [("probe-hourly", at(10, 17).isoformat())]
    assert queued(stub_broker) == 1


def test_the_claim_of_a_sent_tick_outlives_the_catch_up_window():
    assert runner.CLAIM_TTL > runner.CATCH_UP > runner.SENDING_TTL
