"""The one broker, built from REDIS_URL and set before any actor is declared.

Import this module (tasks/__init__.py does) before defining actors. Unit tests
set QUEUE_BROKER=stub for Dramatiq's in-memory StubBroker.
"""

from __future__ import annotations

import dramatiq
from dramatiq.brokers.redis import RedisBroker
from dramatiq.brokers.stub import StubBroker
from dramatiq.middleware import default_middleware
from dramatiq.middleware.retries import Retries

from models.settings import get_settings
from workers.middleware import DatabaseConnection

# Transient failures (a locked database, an unreachable provider) clear within
# minutes; after 10 tries over about an hour the message is dead-lettered and
# kept for `subsearch queue requeue`.
MAX_RETRIES = 10
MIN_BACKOFF_MS = 1_000
MAX_BACKOFF_MS = 15 * 60_000


def _middleware():
    stack = [m() for m in default_middleware if m is not Retries]
    stack.append(
        Retries(max_retries=MAX_RETRIES, min_backoff=MIN_BACKOFF_MS, max_backoff=MAX_BACKOFF_MS)
    )
    stack.append(DatabaseConnection())
    return stack


def build_broker(redis_url: str | None = None, *, stub: bool = False) -> dramatiq.Broker:
    settings = get_settings()
    if stub:
        return StubBroker(middleware=_middleware())
    return RedisBroker(
        url=redis_url or settings.redis_url,
        middleware=_middleware(),
        dead_message_ttl=settings.queue_dead_letter_days * 86_400_000,
    )


broker = build_broker(stub=get_settings().queue_broker == "stub")
dramatiq.set_broker(broker)
