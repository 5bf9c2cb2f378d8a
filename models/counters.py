"""Operational counters in Redis (webhook outcomes and the like), read by operators.

Counting must never break the request that counts: failures are logged only.
"""

from __future__ import annotations

import logging

import redis

from models.redis_client import get_redis

log = logging.getLogger(__name__)
KEY = "subsearch:counters:{name}"


def _client() -> redis.Redis:
    return get_redis()


def count(name: str, outcome: str) -> None:
    try:
        _client().hincrby(KEY.format(name=name), outcome, 1)
    except redis.RedisError:
        log.warning("could not count %s/%s", name, outcome, exc_info=True)


def read(name: str) -> dict[str, int]:
    raw = _client().hgetall(KEY.format(name=name))
    return {k.decode(): int(v) for k, v in raw.items()}
