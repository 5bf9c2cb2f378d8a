"""Operational counters in Redis (webhook outcomes and the like), read by operators.

Counting must never break the request that counts: failures are logged only.
"""

from __future__ import annotations

import logging

import redis

from models.settings import get_settings

log = logging.getLogger(__name__)
KEY = "subsearch:counters:{name}"


_clients: dict[str, redis.Redis] = {}


def _client() -> redis.Redis:
    url = get_settings().redis_url
    if url not in _clients:
        _clients[url] = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
    return _clients[url]


def count(name: str, outcome: str) -> None:
    try:
        _client().hincrby(KEY.format(name=name), outcome, 1)
    except redis.RedisError:
        log.warning("could not count %s/%s", name, outcome, exc_info=True)


def read(name: str) -> dict[str, int]:
    raw = _client().hgetall(KEY.format(name=name))
    return {k.decode(): int(v) for k, v in raw.items()}
