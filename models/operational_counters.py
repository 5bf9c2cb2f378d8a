"""Operational counters in Redis (webhook outcomes and the like), read by operators.

Counting must never break the request that counts: failures are logged only.
"""

from __future__ import annotations

import logging

import redis

from models import redis_client

log = logging.getLogger(__name__)
KEY = "subsearch:counters:{name}"


def count(name: str, outcome: str) -> None:
    if not redis_client.available():
        log.warning("Redis is down; %s/%s not counted", name, outcome)
        return
    try:
        redis_client.get_redis().hincrby(KEY.format(name=name), outcome, 1)
    except redis.RedisError as error:
        redis_client.mark_down(error)
        log.warning("could not count %s/%s", name, outcome, exc_info=True)


def read(name: str) -> dict[str, int]:
    raw = redis_client.get_redis().hgetall(KEY.format(name=name))
    return {_text(k): int(v) for k, v in raw.items()}


def _text(key: bytes | str) -> str:
    # The client does not decode answers: keys come back as bytes.
    return key.decode() if isinstance(key, bytes) else key
