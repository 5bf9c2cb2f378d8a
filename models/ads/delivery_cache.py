"""A generation number for what is delivered: readers cache active reservations under
it, and approve, stop and expiry bump it so every process drops its copy at once."""

from __future__ import annotations

import logging

import redis

from models import redis_client

log = logging.getLogger(__name__)
KEY = "subsearch:ads:delivery-generation"


def generation() -> int:
    """The current generation, or -1 when Redis cannot say (callers must not trust a
    cached copy then)."""
    if not redis_client.available():
        return -1
    try:
        return int(redis_client.get_redis().get(KEY) or 0)
    except redis.RedisError as error:
        redis_client.mark_down(error)
        return -1


def invalidate() -> None:
    try:
        redis_client.get_redis().incr(KEY)
    except redis.RedisError:
        # Caches also expire on their own within seconds; delivery catches up.
        log.warning("could not invalidate the ad delivery cache", exc_info=True)
