"""The scheduler process: sends each due tick of the schedule to the queue once.

A tick is claimed in Redis with SET NX before it is sent, so two schedulers running
at once (a deploy overlap, a second machine) never both send it. The claim says
"sending" for SENDING_TTL: a send that fails releases it, and one that never comes
back (the process killed mid-send) lets it lapse, so a later round sends the tick.
Once sent, the claim says "sent" for CLAIM_TTL, and only then does the job's "last
sent" marker move on: a scheduler that finds another one sending the tick leaves the
marker alone and looks again next round. A tick missed while no scheduler ran is sent
when one starts again (only the latest missed one: no flood of repeats).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta

import dramatiq
import redis as redis_lib
from croniter import croniter

from models import outbox
from models.db import connection, write_transaction
from scheduler.schedule import SCHEDULE, Job

log = logging.getLogger(__name__)

CLAIM_TTL = timedelta(days=40)
# Longer than any send takes (a Redis timeout, a locked database): a claim still
# "sending" after this is a scheduler that died mid-send.
SENDING_TTL = timedelta(minutes=2)
# How far back a restarted scheduler looks for a missed tick.
CATCH_UP = timedelta(days=32)
KEY_PREFIX = "subsearch:scheduler"
SENDING = "sending"
SENT = "sent"


def latest_due_tick(job: Job, after: datetime, now: datetime) -> datetime | None:
    """The most recent tick of `job` in (after, now], or None."""
    # get_prev is strictly before its start; start a second into this minute so a
    # tick at the current minute counts.
    start = now.replace(second=0, microsecond=0) + timedelta(seconds=1)
    tick = croniter(job.cron, start).get_prev(datetime)
    if tick.tzinfo is None:
        tick = tick.replace(tzinfo=UTC)
    return tick if tick > after else None


def _claim_key(job: Job, tick: datetime) -> str:
    return f"{KEY_PREFIX}:tick:{job.name}:{tick.strftime('%Y-%m-%dT%H:%M')}"


def _last_key(job: Job) -> str:
    return f"{KEY_PREFIX}:last:{job.name}"


def _claim(redis: redis_lib.Redis, job: Job, tick: datetime) -> bool:
    """True when this scheduler is now the one sending the tick."""
    ttl_ms = int(SENDING_TTL.total_seconds() * 1000)
    return bool(redis.set(_claim_key(job, tick), SENDING, nx=True, px=ttl_ms))


def _was_sent(redis: redis_lib.Redis, job: Job, tick: datetime) -> bool:
    value = redis.get(_claim_key(job, tick))
    return (value.decode() if isinstance(value, bytes) else value) == SENT


def _mark_sent(redis: redis_lib.Redis, job: Job, tick: datetime) -> None:
    redis.set(_claim_key(job, tick), SENT, ex=int(CLAIM_TTL.total_seconds()))
    redis.set(_last_key(job), tick.isoformat())


def last_sent_ticks(redis: redis_lib.Redis) -> dict[str, datetime]:
    """Each job's last tick sent, for operators (a scheduler that stopped shows as the
    every-minute jobs' ticks growing old: docs/operating.md, What to alert on)."""
    names = [job.name for job in SCHEDULE]
    values = redis.mget([_last_key(job) for job in SCHEDULE])
    return {
        name: datetime.fromisoformat(raw.decode() if isinstance(raw, bytes) else raw)
        for name, raw in zip(names, values, strict=True)
        if raw
    }


def _send(job: Job, broker: dramatiq.Broker) -> None:
    """Queue the job; an outboxed one is first written to the outbox (committed), so
    the redrive sends it again if the queue loses it."""
    if not job.outboxed:
        broker.get_actor(job.actor).send(*job.args, **job.kwargs)
        return
    with connection(), write_transaction():
        message_id = outbox.add(job.actor, *job.args)
    with connection():
        outbox.send(message_id)


def _last_sent(redis: redis_lib.Redis, job: Job, now: datetime) -> datetime:
    """The last tick handled; a job never seen before starts from now (no backfill)."""
    key = _last_key(job)
    if not redis.get(key):
        redis.set(key, now.isoformat(), nx=True)
    raw = redis.get(key)
    last = datetime.fromisoformat(raw.decode() if isinstance(raw, bytes) else str(raw))
    return max(last, now - CATCH_UP)


def _send_tick(redis: redis_lib.Redis, broker: dramatiq.Broker, job: Job, tick: datetime) -> bool:
    """Send one due tick unless another scheduler has it; True when sent here."""
    if not _claim(redis, job, tick):
        # Another scheduler is sending it, or has sent it: the marker moves on only
        # once it is sent, so a send that fails over there is tried again here.
        if _was_sent(redis, job, tick):
            redis.set(_last_key(job), tick.isoformat())
        return False
    try:
        _send(job, broker)
    except Exception:
        # Not sent (the database or the queue is down): release the claim so the next
        # round sends the tick. If Redis refuses that too, the claim lapses after
        # SENDING_TTL.
        log.exception("could not send %s for %s; a later round will", job.name, tick.isoformat())
        try:
            redis.delete(_claim_key(job, tick))
        except redis_lib.RedisError:
            log.warning("could not release the claim of %s; it lapses", job.name, exc_info=True)
        return False
    _mark_sent(redis, job, tick)
    return True


def tick_once(
    redis: redis_lib.Redis,
    broker: dramatiq.Broker,
    now: datetime | None = None,
    schedule: Iterable[Job] | None = None,
) -> list[tuple[str, str]]:
    """Send every job due at `now` that no scheduler has sent yet; returns (job, tick)
    sent. A job whose send fails is left for a later round; the others still go."""
    now = now or datetime.now(UTC)
    sent = []
    for job in SCHEDULE if schedule is None else schedule:
        tick = latest_due_tick(job, _last_sent(redis, job, now), now)
        if tick is not None and _send_tick(redis, broker, job, tick):
            sent.append((job.name, tick.isoformat()))
            log.info("enqueued %s for %s", job.name, tick.isoformat())
    return sent


def run(
    redis: redis_lib.Redis,
    broker: dramatiq.Broker,
    *,
    interval: float = 5.0,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    while not stop():
        try:
            tick_once(redis, broker)
        except Exception:
            # Redis down: say so and try again next round.
            log.exception("scheduler round failed")
        time.sleep(interval)
