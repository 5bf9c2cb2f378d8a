"""A generation number for what is delivered: readers cache active reservations under
it, and approve, stop and expiry bump it so every process drops its copy at once."""

from __future__ import annotations

import logging

import redis

from models.redis_client import get_redis

log = logging.getLogger(__name__)
KEY = "subsearch:ads:delivery-generation"


def generation() -> int:
    try:
        return int(get_redis().get(KEY) or 0)
    except redis.RedisError:
        return -1  # unknown: callers must not trust a cached copy


def invalidate() -> None:
    try:
        get_redis().incr(KEY)
    except redis.RedisError:
        # Caches also expire on their own within seconds; delivery catches up.
        log.warning("could not invalidate the ad delivery cache", exc_info=True)
