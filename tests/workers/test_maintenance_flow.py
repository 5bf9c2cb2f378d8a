"""Queue maintenance on a clock (workers/maintenance.py), on the real Redis: it rests on
Dramatiq's Redis broker doing, inside a command, the maintenance of that command's queue
as its documented `maintenance_chance` says (never at 0, always at MAINTENANCE_SCALE), and
that maintenance giving a worker's unacknowledged messages back once its heartbeat is
older than `heartbeat_timeout`. A Dramatiq release that changes either fails here."""

from __future__ import annotations

import time

import pytest
from dramatiq import Message
from dramatiq.brokers import redis as dramatiq_redis

from tests.fixtures import TEST_REDIS_URL
from tests.workers.processes import wait_for
from workers.broker import build_broker
from workers.maintenance import Maintainer, QueueMaintenance

pytestmark = pytest.mark.flow

QUEUE = "maintenance_probe"
HEARTBEAT_TIMEOUT_MS = 300


@pytest.fixture
def ours(redis_client):
    """This service's Redis broker, with a heartbeat timeout short enough to wait out."""
    broker = build_broker(TEST_REDIS_URL)
    broker.heartbeat_timeout = HEARTBEAT_TIMEOUT_MS
    broker.declare_queue(QUEUE)
    yield broker
    broker.close()


@pytest.fixture
def held_by_a_dead_worker(redis_client):
    """The id of a message a worker fetched and never acknowledged, the worker silent
    for longer than the heartbeat timeout since."""
    dead = dramatiq_redis.RedisBroker(url=TEST_REDIS_URL, middleware=[], maintenance_chance=0)
    dead.declare_queue(QUEUE)
    sent = dead.enqueue(
        Message(queue_name=QUEUE, actor_name="probe", args=(), kwargs={}, options={})
    )
    held = next(dead.consume(QUEUE, prefetch=1, timeout=100))
    assert held is not None and held.message_id == sent.message_id
    dead.client.connection_pool.disconnect()
    time.sleep(2 * HEARTBEAT_TIMEOUT_MS / 1000)
    return sent.message_id


def fetch(broker) -> list[str]:
    """The ids of the messages a consumer of `broker` finds on the queue now (each
    acknowledged)."""
    consumer = broker.consume(QUEUE, prefetch=10, timeout=100)
    found = []
    while (message := next(consumer)) is not None:
        consumer.ack(message)
        found.append(message.message_id)
    consumer.close()
    return found


def test_our_brokers_own_commands_never_run_the_maintenance(ours, held_by_a_dead_worker):
    sent = ours.enqueue(
        Message(queue_name=QUEUE, actor_name="probe", args=(), kwargs={}, options={})
    )

    assert fetch(ours) == [sent.message_id]  # the dead worker's message stays held
    assert fetch(ours) == []


def test_a_maintainer_round_gives_a_dead_workers_message_back(ours, held_by_a_dead_worker):
    Maintainer(ours).run()

    assert fetch(ours) == [held_by_a_dead_worker]


def test_a_live_workers_message_stays_with_it(ours, redis_client):
    sent = ours.enqueue(
        Message(queue_name=QUEUE, actor_name="probe", args=(), kwargs={}, options={})
    )
    held = next(ours.consume(QUEUE, prefetch=1, timeout=100))
    assert held is not None and held.message_id == sent.message_id

    Maintainer(ours).run()  # it fetched a moment ago: its heartbeat is fresh

    assert fetch(ours) == []


def test_a_booted_worker_runs_the_maintenance_on_its_clock(ours, held_by_a_dead_worker):
    maintenance = QueueMaintenance(interval=0.1)
    worker = object()  # the middleware only tells one worker from another
    maintenance.after_worker_boot(ours, worker)
    try:
        found: list[str] = []
        assert wait_for(lambda: found.extend(fetch(ours)) or found, timeout=10)
        assert found == [held_by_a_dead_worker]
    finally:
        maintenance.before_worker_shutdown(ours, worker)
