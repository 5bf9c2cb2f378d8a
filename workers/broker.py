"""The one broker of a process, built from REDIS_URL when the process calls `setup()`.

Nothing is built on import: the web app, the worker (`dramatiq tasks:setup`), the
scheduler and the CLI each call `tasks.setup()`, which calls `setup()` here. Actors are
declared without a broker (workers/actors.py) and join it then. Unit tests set
QUEUE_BROKER=stub for Dramatiq's in-memory StubBroker.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import dramatiq
from dramatiq.brokers import redis as dramatiq_redis
from dramatiq.brokers.stub import StubBroker
from dramatiq.middleware import default_middleware
from dramatiq.middleware.prometheus import Prometheus
from dramatiq.middleware.retries import Retries

from models import outbox, redis_client
from models.settings import Settings, get_settings
from workers import actors, sending
from workers.actors import BrokerNotSetUp
from workers.log_context import LogContext
from workers.maintenance import QueueMaintenance
from workers.middleware import DatabaseConnection, OutboxAck, WorkerTimeouts
from workers.poison import PoisonGuard

# Transient failures (a locked database, an unreachable provider) clear within
# minutes; after 10 tries over about an hour the message is dead-lettered and
# kept for `subsearch queue requeue`.
MAX_RETRIES = 10
MIN_BACKOFF_MS = 1_000
MAX_BACKOFF_MS = 15 * 60_000

# A worker silent this long is dead: its unacknowledged messages go back to their
# queues at the next maintenance (workers/maintenance.py, every few seconds in each
# worker process). Every Redis command of a worker process (each consumer polls at
# least every second when idle, acks when busy) is a heartbeat.
HEARTBEAT_TIMEOUT_MS = 20_000


class RedisBroker(dramatiq_redis.RedisBroker):
    """Dramatiq's Redis broker that knows its URL and closes its connections.

    It never runs the queue maintenance by chance (`maintenance_chance=0`, so a web
    request never pays for it): QueueMaintenance runs it on a clock in each worker.
    """

    redis_url: str  # the URL its pool connects to (WorkerTimeouts rebuilds the pool)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(maintenance_chance=0, **kwargs)  # type: ignore[no-untyped-call]  # Dramatiq's, unannotated

    def close(self) -> None:
        """Close the pool's connections (Dramatiq's Redis broker leaves them to the
        garbage collector, which warns of each open socket it finds)."""
        self.client.connection_pool.disconnect()


# Dramatiq's own setting for its Prometheus middleware's value files; `subsearch worker`
# sets it, and only then is the middleware added: it records from process boot, which
# only the worker command's processes have (not the web, nor the tests' stub worker).
WORKER_METRICS_ENV = "dramatiq_prom_db"
WORKER_METRICS_PORT = 9191
WORKER_METRICS_PORT_ENV = "dramatiq_prom_port"  # Dramatiq's names, lower case as it reads them
WORKER_METRICS_HOST_ENV = "dramatiq_prom_host"


def _middleware(settings: Settings) -> list[dramatiq.Middleware]:
    # LogContext first: every other middleware's lines carry the message's fields. Then
    # PoisonGuard, which sets a message aside before any other middleware has seen it.
    stack: list[dramatiq.Middleware] = [LogContext(), PoisonGuard(settings.worker_poison_deaths)]
    stack += [m() for m in default_middleware if m is not Retries]
    if os.environ.get(WORKER_METRICS_ENV):
        stack.append(Prometheus())
    stack.append(
        Retries(max_retries=MAX_RETRIES, min_backoff=MIN_BACKOFF_MS, max_backoff=MAX_BACKOFF_MS)
    )
    stack.append(WorkerTimeouts())
    stack.append(QueueMaintenance())
    stack.append(DatabaseConnection())
    stack.append(OutboxAck())
    return stack


def build_broker(
    redis_url: str | None = None, *, stub: bool = False, settings: Settings | None = None
) -> dramatiq.Broker:
    """A new broker with this service's middleware (tests build Redis ones of their own)."""
    settings = settings or get_settings()
    if stub:
        return StubBroker(middleware=_middleware(settings))
    url = redis_url or settings.redis_url
    broker = RedisBroker(
        # Sends give up after redis_client.SEND_TIMEOUT; a worker waits longer (WorkerTimeouts).
        connection_pool=redis_client.connection_pool(url, redis_client.SEND_TIMEOUT),
        middleware=_middleware(settings),
        heartbeat_timeout=HEARTBEAT_TIMEOUT_MS,
        dead_message_ttl=settings.queue_dead_letter_days * 86_400_000,
    )
    broker.redis_url = url
    return broker


_lock = threading.Lock()
_current: dramatiq.Broker | None = None


def setup(settings: Settings | None = None) -> dramatiq.Broker:
    """The process's broker: built from `settings` (default: the process's) on the first
    call, made Dramatiq's global broker, given every actor declared with
    workers.actors, and made the outbox's way to the queue. Later calls return that
    same broker: a process has one (tests build many apps in one process, all on the
    stub broker their settings name first).
    """
    global _current
    with _lock:
        if _current is None:
            settings = settings or get_settings()
            broker = build_broker(stub=settings.queue_broker == "stub", settings=settings)
            dramatiq.set_broker(broker)
            actors.bind_all(broker)
            outbox.use_sender(sending.send_by_name)
            _current = broker
        return _current


def get_broker() -> dramatiq.Broker:
    """The broker `setup()` built; BrokerNotSetUp before (never a default one)."""
    if _current is None:
        raise BrokerNotSetUp("the process has not set its broker up: call tasks.setup() first")
    return _current
