"""A generation number for what is delivered: readers cache active reservations under
it, and approve, stop and expiry bump it so every process drops its copy: this process
at once, the others within GENERATION_SECONDS (each process reads the number at most
that often, which spares a Redis round trip on most clicks and impressions)."""

from __future__ import annotations

import logging
import threading
import time

import redis

from models import redis_client

log = logging.getLogger(__name__)
KEY = "subsearch:ads:delivery-generation"
GENERATION_SECONDS = 1.0

_lock = threading.Lock()
_read: tuple[float, int] | None = None  # (monotonic time read, generation)


def generation() -> int:
    """The current generation (read from Redis at most every GENERATION_SECONDS), or -1
    when Redis cannot say (callers must not trust a cached copy then)."""
    global _read
    now = time.monotonic()
    with _lock:
        if _read is not None and now - _read[0] < GENERATION_SECONDS:
            return _read[1]
    if not redis_client.available():
        return -1
    try:
        value = int(redis_client.get_redis().get(KEY) or 0)
    except redis.RedisError as error:
        redis_client.mark_down(error)
        return -1
    with _lock:
        _read = (now, value)
    return value


def forget() -> None:
    """Read the generation from Redis next time (this process changed it, or tests)."""
    global _read
    with _lock:
        _read = None


def invalidate() -> None:
    forget()
    try:
        redis_client.get_redis().incr(KEY)
    except redis.RedisError:
        # Caches also expire on their own within seconds; delivery catches up.
        log.warning("could not invalidate the ad delivery cache", exc_info=True)
