"""The one broker, built from REDIS_URL and set before any actor is declared.

Import this module (tasks/__init__.py does) before defining actors. Unit tests
set QUEUE_BROKER=stub for Dramatiq's in-memory StubBroker.
"""

from __future__ import annotations

import threading
import time

import dramatiq
from dramatiq.brokers import redis as dramatiq_redis
from dramatiq.brokers.stub import StubBroker
from dramatiq.common import current_millis
from dramatiq.middleware import default_middleware
from dramatiq.middleware.retries import Retries

from models import redis_client
from models.settings import get_settings
from workers.middleware import DatabaseConnection, OutboxAck, WorkerTimeouts

# Transient failures (a locked database, an unreachable provider) clear within
# minutes; after 10 tries over about an hour the message is dead-lettered and
# kept for `subsearch queue requeue`.
MAX_RETRIES = 10
MIN_BACKOFF_MS = 1_000
MAX_BACKOFF_MS = 15 * 60_000

# A worker silent this long is dead: its unacknowledged messages go back to their
# queues at the next maintenance. Every Redis command of a worker process (each
# consumer polls at least every second when idle, acks when busy) is a heartbeat.
HEARTBEAT_TIMEOUT_MS = 20_000
# Each worker process runs that maintenance this often (Dramatiq's default is one
# fetch in a thousand at random, which took 13 to 22 minutes after a SIGKILL).
MAINTENANCE_SECONDS = 5.0


class RedisBroker(dramatiq_redis.RedisBroker):
    """Dramatiq's Redis broker with maintenance on a clock instead of by chance, done by
    consumers only (a web request never pays for it).

    The broker's maintenance requeues a dead worker's messages of the one queue it is
    dispatched for, so it is timed per queue: every queue is looked after every
    MAINTENANCE_SECONDS by each worker process. `_dispatch` mirrors Dramatiq's own
    (2.x) but for the maintenance flag; tests/workers/test_redis_faults.py proves it.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._maintained: dict[str, float] = {}
        self._maintenance_lock = threading.Lock()

    def _maintenance_due(self, command: str, queue_name: str) -> int:
        if command != "fetch":
            return 0
        now = time.monotonic()
        with self._maintenance_lock:
            if now - self._maintained.get(queue_name, 0.0) < MAINTENANCE_SECONDS:
                return 0
            self._maintained[queue_name] = now
        return 1

    def _dispatch(self, command):
        dispatch = self.scripts["dispatch"]
        keys = [self.namespace]

        def do_dispatch(queue_name, *args):
            return dispatch(
                args=[
                    command,
                    current_millis(),
                    queue_name,
                    self.broker_id,
                    self.heartbeat_timeout,
                    self.dead_message_ttl,
                    self._maintenance_due(command, queue_name),
                    self._max_unpack_size(),
                    *args,
                ],
                keys=keys,
            )

        return do_dispatch


def _middleware():
    stack = [m() for m in default_middleware if m is not Retries]
    stack.append(
        Retries(max_retries=MAX_RETRIES, min_backoff=MIN_BACKOFF_MS, max_backoff=MAX_BACKOFF_MS)
    )
    stack.append(WorkerTimeouts())
    stack.append(DatabaseConnection())
    stack.append(OutboxAck())
    return stack


def build_broker(redis_url: str | None = None, *, stub: bool = False) -> dramatiq.Broker:
    settings = get_settings()
    if stub:
        return StubBroker(middleware=_middleware())
    url = redis_url or settings.redis_url
    broker = RedisBroker(
        # Sends give up after redis_client.SEND_TIMEOUT; a worker waits longer (WorkerTimeouts).
        connection_pool=redis_client.connection_pool(url, redis_client.SEND_TIMEOUT),
        middleware=_middleware(),
        heartbeat_timeout=HEARTBEAT_TIMEOUT_MS,
        dead_message_ttl=settings.queue_dead_letter_days * 86_400_000,
    )
    broker.redis_url = url
    return broker


broker = build_broker(stub=get_settings().queue_broker == "stub")
dramatiq.set_broker(broker)
