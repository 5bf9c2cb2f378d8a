"""The scheduler process: sends each due tick of the schedule to the queue exactly once.

Each tick is claimed in Redis with SET NX before sending, so two schedulers
running at once (a deploy overlap, a second machine) never enqueue it twice.
The last tick sent is remembered, so a tick missed while no scheduler ran is
sent when one starts again (only the latest missed one: no flood of repeats).
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta

from croniter import croniter

from scheduler.schedule import SCHEDULE, Job

log = logging.getLogger(__name__)

CLAIM_TTL = timedelta(days=40)
# How far back a restarted scheduler looks for a missed tick.
CATCH_UP = timedelta(days=32)
KEY_PREFIX = "subsearch:scheduler"


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


def _claim(redis, job: Job, tick: datetime) -> bool:
    return bool(redis.set(_claim_key(job, tick), "1", nx=True, ex=int(CLAIM_TTL.total_seconds())))


def _send(job: Job, broker) -> None:
    """Queue the job; an outboxed one is first written to the outbox (committed), so
    the redrive sends it again if the queue loses it."""
    if not job.outboxed:
        broker.get_actor(job.actor).send(*job.args, **job.kwargs)
        return
    from models import outbox
    from models.db import connection, write_transaction

    with connection(), write_transaction():
        message_id = outbox.add(job.actor, *job.args)
    with connection():
        outbox.send(message_id, broker)


def _last_sent(redis, job: Job, now: datetime) -> datetime:
    """The last tick handled; a job never seen before starts from now (no backfill)."""
    key = f"{KEY_PREFIX}:last:{job.name}"
    raw = redis.get(key)
    if not raw:
        redis.set(key, now.isoformat(), nx=True)
        raw = redis.get(key)
    last = datetime.fromisoformat(raw.decode() if isinstance(raw, bytes) else raw)
    return max(last, now - CATCH_UP)


def tick_once(redis, broker, now: datetime | None = None, schedule=None) -> list[tuple[str, str]]:
    """Send every job due at `now` that no scheduler has sent yet; returns (job, tick) sent."""
    now = now or datetime.now(UTC)
    sent = []
    for job in schedule or SCHEDULE:
        tick = latest_due_tick(job, _last_sent(redis, job, now), now)
        if tick is None:
            continue
        if _claim(redis, job, tick):
            try:
                _send(job, broker)
            except Exception:
                # Not sent (the database or the queue is down): unclaim, so the next
                # round sends this tick again.
                redis.delete(_claim_key(job, tick))
                raise
            sent.append((job.name, tick.isoformat()))
            log.info("enqueued %s for %s", job.name, tick.isoformat())
        redis.set(f"{KEY_PREFIX}:last:{job.name}", tick.isoformat())
    return sent


def run(redis, broker, *, interval: float = 5.0, stop=lambda: False) -> None:
    while not stop():
        try:
            tick_once(redis, broker)
        except Exception:
            # Redis down or an actor missing: say so and try again next round.
            log.exception("scheduler round failed")
        time.sleep(interval)
