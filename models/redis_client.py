"""Redis for the domain's small needs (locks, counters, caches), and how long any Redis
call may wait.

A web request must never hang on a frozen or unreachable Redis: its calls give up
after SEND_TIMEOUT without retrying, and after a failure Redis is skipped for a few
seconds (`available()`), so each request takes its documented fallback at once
instead of waiting again. Workers wait longer: Redis commands are their whole job.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from models.settings import get_settings

log = logging.getLogger(__name__)

SEND_TIMEOUT = 0.25
WORKER_TIMEOUT = 5.0
# How long Redis is skipped after a call failed.
DOWN_SECONDS = 5.0

_timeout = SEND_TIMEOUT
_clients: dict[str, redis.Redis] = {}
_down_until = 0.0


def connection_pool(url: str, timeout: float | None = None) -> redis.ConnectionPool:
    """A pool whose connections give up after `timeout` seconds, and never retry."""
    timeout = _timeout if timeout is None else timeout
    return redis.ConnectionPool.from_url(
        url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0)
    )


def get_redis() -> redis.Redis:
    url = get_settings().redis_url
    if url not in _clients:
        _clients[url] = redis.Redis(connection_pool=connection_pool(url))
    return _clients[url]


def ping(timeout: float = 1.0) -> None:
    """Raise redis.RedisError unless Redis answers within `timeout` seconds (the health
    check): a client of its own, closed at once, that neither waits on nor marks down
    the one requests use."""
    client = redis.Redis(connection_pool=connection_pool(get_settings().redis_url, timeout))
    try:
        client.ping()
    finally:
        client.connection_pool.disconnect()


def _drop_clients() -> None:
    """Forget the clients made under the old timeouts, closing their connections."""
    for client in _clients.values():
        client.connection_pool.disconnect()
    _clients.clear()


def use_worker_timeouts() -> None:
    """In a worker process: wait up to WORKER_TIMEOUT for Redis (called at boot)."""
    global _timeout
    _timeout = WORKER_TIMEOUT
    _drop_clients()


def available() -> bool:
    """False for DOWN_SECONDS after a Redis call failed: skip Redis, take the fallback."""
    return time.monotonic() >= _down_until


def mark_down(error: Exception | None = None) -> None:
    global _down_until
    if available():
        log.warning("Redis failed (%s); skipping it for %.0f s", error, DOWN_SECONDS)
    _down_until = time.monotonic() + DOWN_SECONDS


def handed_over(send: Callable[[], bool], what: str) -> bool:
    """One hand-off to Redis under the one rule every sender keeps: skipped (False)
    while Redis is taken to be down; `send`'s answer otherwise, and False when it
    raises: Redis is then taken to be down for DOWN_SECONDS, and `what` (the work that
    waits, or runs elsewhere) is logged with the error."""
    if not available():
        return False
    try:
        return send()
    except Exception as error:
        mark_down(error)
        log.warning("%s", what, exc_info=True)
        return False


def reset() -> None:
    """Back to a web process's state: send timeouts, no failure remembered (tests)."""
    global _timeout, _down_until
    _timeout = SEND_TIMEOUT
    _down_until = 0.0
    _drop_clients()
