"""One Redis client per URL for the domain's small needs (locks, counters)."""

from __future__ import annotations

import redis

from models.settings import get_settings

_clients: dict[str, redis.Redis] = {}


def get_redis() -> redis.Redis:
    url = get_settings().redis_url
    if url not in _clients:
        _clients[url] = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    return _clients[url]
