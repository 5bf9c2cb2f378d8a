"""One pause of every subtitle fetch, shared by every worker process through Redis, for
while the platform refuses this service's address (docs/search.md, "When the platform
refuses"; CONTRACT §12.1).

A host-level refusal (models.platform.base.HOST_LEVEL) pauses fetching for
PLATFORM_BACKOFF_SECONDS. When a pause ends, one fetch goes first as a probe while the
others wait; if the platform refuses again the next pause is twice as long, up to
PLATFORM_BACKOFF_MAX_SECONDS; the first fetch the platform answers ends it all. Fetches
due meanwhile wait (they are rescheduled, never failed). Two workers refused at once
pause once: the pause is taken in one Redis script.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from models.redis_client import get_redis
from models.settings import get_settings

KEY = "subsearch:platform-pause"  # hash: until, seconds, kind, since (Unix seconds)
PROBE = "subsearch:platform-pause:probe"
# The probe's hold: if its fetch dies without an outcome, another may probe after it.
PROBE_SECONDS = 120
# How long a fetch waits while the probe is out.
PROBE_WAIT_SECONDS = 30.0

# KEYS: pause, probe. ARGV: now, first pause, longest pause, kind.
# A pause still running is kept as it is (two refusals at once pause once); after one
# has run out (its probe refused), the next is twice the last, up to the longest.
_PAUSE = """
local now = tonumber(ARGV[1])
local until_ = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if until_ > now then
  return {0, tostring(until_)}
end
local longest = tonumber(ARGV[3])
local last = tonumber(redis.call('HGET', KEYS[1], 'seconds') or '0')
local seconds = math.min(tonumber(ARGV[2]), longest)
if last > 0 then
  seconds = math.min(last * 2, longest)
end
until_ = now + seconds
redis.call('HSET', KEYS[1], 'until', tostring(until_), 'seconds', tostring(seconds),
  'kind', ARGV[4])
redis.call('HSETNX', KEYS[1], 'since', tostring(now))
redis.call('DEL', KEYS[2])
return {1, tostring(until_)}
"""


@dataclass(frozen=True)
class Pause:
    until: float  # Unix seconds; in the past once it ran out and its probe is awaited
    seconds: int  # this pause's length
    kind: str  # the refusal that began it
    since: float  # when the platform first refused, in this run of refusals


def pause(kind: str, now: float | None = None) -> float:
    """Pause every fetch after a host-level refusal of kind `kind`; the seconds until
    fetching may start again (of the pause already running, if one is)."""
    settings = get_settings()
    now = time.time() if now is None else now
    _, until = get_redis().eval(
        _PAUSE,
        2,
        KEY,
        PROBE,
        now,
        settings.platform_backoff_seconds,
        settings.platform_backoff_max_seconds,
        kind,
    )
    return max(0.0, float(until) - now)


def wait_before_fetching(now: float | None = None) -> float:
    """0 when this fetch may go to the platform now, else the seconds to wait first. Once
    a pause has run out, the first caller is its probe (0) and the others wait."""
    now = time.time() if now is None else now
    current = state()
    if current is None:
        return 0.0
    if current.until > now:
        return current.until - now
    if get_redis().set(PROBE, str(now), nx=True, ex=PROBE_SECONDS):
        return 0.0
    return PROBE_WAIT_SECONDS


def answered() -> None:
    """The platform answered a fetch (whatever it said of the video): no pause, and the
    next refusal starts again from the first length."""
    redis = get_redis()
    if redis.exists(KEY):
        redis.delete(KEY, PROBE)


def state() -> Pause | None:
    """The pause, running or awaiting its probe; None while fetching freely."""
    fields = {_text(k): _text(v) for k, v in get_redis().hgetall(KEY).items()}
    if "until" not in fields:
        return None
    return Pause(
        until=float(fields["until"]),
        seconds=int(float(fields.get("seconds", "0"))),
        kind=fields.get("kind", ""),
        since=float(fields.get("since", fields["until"])),
    )


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
