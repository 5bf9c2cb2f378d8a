"""The scheduler sends each tick once, even with two schedulers at once."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

import tasks  # noqa: F401  (declares the actors the schedule names)
from scheduler.runner import latest_due_tick, tick_once
from scheduler.schedule import SCHEDULE, Job

HOURLY = Job("probe-hourly", "17 * * * *", "purge_expired_sessions")


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
