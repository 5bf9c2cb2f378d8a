"""The beacons' stream: accepted clicks and impressions handed from the web front to
the counting actor through a Redis Stream read by one consumer group (docs/ads.md,
Counting).

The front's hand-off is one Redis call per beacon (`offer`: a Lua script that, for an
impression, drops a replayed view token and otherwise appends the entry). The counting
actor (tasks/ads.py `count_beacons`) runs `consume_for`: each round claims the entries
another consumer left pending longer than AD_COUNTING_CLAIM_SECONDS, reads new ones,
writes them all in one transaction (models/ads/counting.py) and only then acknowledges
and deletes them. A consumer that dies between its commit and its ack leaves entries
that are claimed and written again, and their event ids make that second pass count
nothing. The stream is never trimmed by length: an entry goes only once acknowledged.
"""

from __future__ import annotations

import enum
import json
import logging
import os
import socket
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from dataclasses import fields as fields_of
from typing import Any

import redis
from redis.typing import EncodableT, FieldT

from models import redis_client
from models.ads import measurement
from models.ads.counting import Click, Counted, Impression, count
from models.metrics import AD_EVENTS
from models.settings import get_settings

log = logging.getLogger(__name__)

STREAM = "subsearch:beacons"
GROUP = "counters"
# The view token's replay key lives a little longer than the token, so a replay
# within its life is dropped at the hand-off.
SEEN_KEY = "subsearch:ads:seen:"
SEEN_SECONDS = 31 * 60
# Entries per round (one transaction), and how long a round waits for new ones.
BATCH = 500
BLOCK_MS = 1_000
# How long one actor run reads: a little over the scheduler's minute, so one is always
# reading and the next overlaps it by a few seconds (the group shares the entries).
RUN_SECONDS = 65.0
# Redis not answering fails a round, not the run: the next round comes after a pause
# doubling from the first to the most, and only a Redis failing this long on end fails
# the run (which is not retried: it is dead-lettered, and the dead-letter alert fires).
RETRY_FIRST_SECONDS = 0.5
RETRY_MAX_SECONDS = 4.0
REDIS_PATIENCE_SECONDS = 30.0
# A consumer gone this long with nothing pending is forgotten by the group.
FORGET_IDLE_MS = 10 * 60_000

# KEYS[1] the stream; KEYS[2] the impression's view token's replay key. ARGV[1] the
# replay key's life in seconds; then the entry's fields and values. Answers the new
# entry's id, or nil when the view token was seen already. (A click has no replay key:
# it goes on with a plain XADD.)
OFFER_IMPRESSION = """
if not redis.call('SET', KEYS[2], 1, 'NX', 'EX', ARGV[1]) then
  return false
end
return redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))
"""


class Handed(enum.Enum):
    """What the hand-off of one event did."""

    QUEUED = "queued"  # on the stream
    REPLAYED = "replayed"  # an impression whose view token came before: dropped
    UNAVAILABLE = "unavailable"  # Redis down or failed: the caller writes it itself


def offer(event: Impression | Click, client: redis.Redis | None = None) -> Handed:
    """Put one accepted event on the stream, in one round trip: for an impression, its
    view token's replay check in the same script. Redis down (or failed within the last
    seconds, models/redis_client.py): UNAVAILABLE at once, and the caller takes its
    fallback."""
    if client is None and not redis_client.available():
        return Handed.UNAVAILABLE
    try:
        target = client or redis_client.get_redis()
        if isinstance(event, Impression):
            keys = [STREAM, SEEN_KEY + event.event_id]
            script = target.register_script(OFFER_IMPRESSION)
            flat = [part for pair in encode(event).items() for part in pair]
            entry = script(keys=keys, args=[SEEN_SECONDS, *flat])
        else:
            entry = target.xadd(STREAM, encode(event))
    except redis.RedisError as error:
        redis_client.mark_down(error)
        return Handed.UNAVAILABLE
    return Handed.QUEUED if entry is not None else Handed.REPLAYED


def accept_impression(impression: Impression) -> bool:
    """Hand an accepted impression on; False when its view token was posted before.
    With Redis down it is counted here (the event id still counts it once), and if that
    fails too the error reaches the caller: the beacon is told nothing was counted."""
    handed = offer(impression)
    if handed is Handed.REPLAYED:
        return False
    if handed is Handed.UNAVAILABLE and measurement.record_impression(**asdict(impression)):
        AD_EVENTS.labels(kind="impression", stage="counted").inc()
    return True


def accept_click(click: Click) -> None:
    """Hand a click on. With Redis down it is logged here, and if that fails too the
    error is logged with the click's ids: the visitor goes on to the advertiser anyway."""
    if offer(click) is Handed.QUEUED:
        return
    try:
        if measurement.record_click(click):
            AD_EVENTS.labels(kind="click", stage="counted").inc()
    except Exception:
        log.exception(
            "record_click was neither queued nor done here (click_id=%s, reservation_id=%s)",
            click.click_id,
            click.reservation_id,
        )


# The event each kind of entry holds.
EVENTS: dict[str, type[Impression] | type[Click]] = {"impression": Impression, "click": Click}


def encode(event: Impression | Click) -> dict[FieldT, EncodableT]:
    """The entry's fields: its kind, and the event as a JSON object of its fields (two
    fields whatever the event, so the hand-off sends little; readable with XRANGE)."""
    kind = "impression" if isinstance(event, Impression) else "click"
    body = json.dumps(vars(event), ensure_ascii=False, separators=(",", ":"))
    return {"kind": kind, "event": body}


def decode(fields: dict[bytes, bytes]) -> Impression | Click:
    """The event an entry holds, in the one layout `encode` writes: its kind, and the
    event as a JSON object of every field of that kind's event. ValueError for any other
    entry, the layouts of releases before issue 43 among them (docs/operating.md,
    Upgrading from a release before issue 43)."""
    values = {key.decode(): value.decode() for key, value in fields.items()}
    if set(values) != {"kind", "event"}:
        raise ValueError(f"an entry of the fields {sorted(values)}, not kind and event")
    made = EVENTS.get(values["kind"])
    if made is None:
        raise ValueError(f"an entry of unknown kind {values['kind']!r}")
    event = json.loads(values["event"])
    if not isinstance(event, dict):
        raise ValueError("an entry whose event is not an object")
    expected = {part.name for part in fields_of(made)}
    if set(event) != expected:
        raise ValueError(f"an event of the fields {sorted(event)}, not {sorted(expected)}")
    return made(**event)


@dataclass
class Consumer:
    """One reader of the group, named uniquely (host, process, run), so entries another
    one left pending are told apart from its own and claimed after `claim_idle_ms`."""

    client: redis.Redis
    name: str = field(default_factory=lambda: _unique_name())
    claim_idle_ms: int = field(
        default_factory=lambda: get_settings().ad_counting_claim_seconds * 1000
    )
    # Where the next claim starts in the group's pending list (XAUTOCLAIM's cursor).
    claim_from: str = "0-0"


def _unique_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def new_consumer(client: redis.Redis | None = None) -> Consumer:
    """A consumer on the process's Redis (a worker's: its calls wait up to 5 s)."""
    return Consumer(client or redis_client.get_redis())


def ensure_group(client: redis.Redis) -> None:
    """Make the stream and its group unless they exist. The group starts at the
    stream's beginning, so entries added before it (after Redis lost its data) are
    read too."""
    try:
        client.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
    except redis.ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise


@dataclass(frozen=True)
class Round:
    """What one round did: entries read (claimed ones included) and what they added."""

    read: int = 0
    counted: Counted = field(default_factory=Counted)


def consume_round(consumer: Consumer, block_ms: int | None = BLOCK_MS, batch: int = BATCH) -> Round:
    """One round: claim entries pending too long, read new ones (waiting up to
    `block_ms` when none were claimed; None: not at all), write them in one transaction,
    then ack and delete them. An error before the commit leaves them pending, to be
    claimed again."""
    client = consumer.client
    try:
        entries = _claim(consumer, batch)
        if len(entries) < batch:
            entries += _read(consumer, batch - len(entries), None if entries else block_ms)
    except redis.ResponseError as error:
        if "NOGROUP" not in str(error):
            raise
        # Redis lost the stream (restarted without its data, flushed): start it again.
        ensure_group(client)
        return Round()
    if not entries:
        return Round()
    impressions: list[Impression] = []
    clicks: list[Click] = []
    for entry_id, fields in entries:
        try:
            event = decode(fields)
        except ValueError as error:
            # Acknowledged and deleted with the rest: it would read no better next time.
            log.error(
                "dropped a beacon entry holding no event: %s %r (%s)", entry_id, fields, error
            )
            continue
        if isinstance(event, Impression):
            impressions.append(event)
        else:
            clicks.append(event)
    counted = count(impressions, clicks)
    ids = [entry_id for entry_id, _ in entries]
    with client.pipeline(transaction=True) as pipe:
        pipe.xack(STREAM, GROUP, *ids)
        pipe.xdel(STREAM, *ids)
        pipe.execute()
    if counted.impressions:
        AD_EVENTS.labels(kind="impression", stage="counted").inc(counted.impressions)
    if counted.clicks:
        AD_EVENTS.labels(kind="click", stage="counted").inc(counted.clicks)
    return Round(len(entries), counted)


def consume_for(
    seconds: float, consumer: Consumer | None = None, block_ms: int | None = BLOCK_MS
) -> Counted:
    """Rounds until `seconds` have passed (the counting actor's run); then the consumer
    leaves the group when it holds nothing, and so do consumers long gone.

    Redis not answering (a timeout, a refused or dropped connection) fails the round
    only: what it had read stays pending, and the next round comes after a pause that
    doubles from RETRY_FIRST_SECONDS to RETRY_MAX_SECONDS. Only a Redis failing for
    REDIS_PATIENCE_SECONDS on end fails the run (and so alerts): a freeze of a few
    seconds is ridden out (docs/operating.md, Faults and recovery)."""
    consumer = consumer or new_consumer()
    deadline = time.monotonic() + seconds
    total = Counted()
    grouped = False
    failing_since: float | None = None
    pause = RETRY_FIRST_SECONDS
    try:
        while time.monotonic() < deadline:
            try:
                if not grouped:
                    ensure_group(consumer.client)
                    grouped = True
                total += consume_round(consumer, block_ms).counted
            except (redis.ConnectionError, redis.TimeoutError) as error:
                now = time.monotonic()
                failing_since = now if failing_since is None else failing_since
                if now - failing_since >= REDIS_PATIENCE_SECONDS:
                    raise
                log.warning(
                    "the beacon counter could not reach Redis (%s); again in %.1f s", error, pause
                )
                _pause(min(pause, max(0.0, deadline - now)))
                pause = min(pause * 2, RETRY_MAX_SECONDS)
                continue
            failing_since, pause = None, RETRY_FIRST_SECONDS
    finally:
        _forget_idle(consumer)
    return total


def _pause(seconds: float) -> None:
    """Sleep in short steps: Dramatiq's shutdown notice (an exception raised in this
    thread, tasks/ads.py) lands between two steps, not after the whole pause."""
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0:
        time.sleep(min(left, 0.1))


def _claim(consumer: Consumer, batch: int) -> list[tuple[bytes, dict[bytes, bytes]]]:
    answer: Any = consumer.client.xautoclaim(
        STREAM,
        GROUP,
        consumer.name,
        min_idle_time=consumer.claim_idle_ms,
        start_id=consumer.claim_from,
        count=batch,
    )
    next_from, claimed = answer[0], answer[1]
    consumer.claim_from = next_from.decode() if isinstance(next_from, bytes) else str(next_from)
    # An entry deleted while pending comes back without its fields: nothing to count.
    return [(entry_id, fields) for entry_id, fields in claimed if fields]


def _read(
    consumer: Consumer, batch: int, block_ms: int | None
) -> list[tuple[bytes, dict[bytes, bytes]]]:
    answer: Any = consumer.client.xreadgroup(
        GROUP, consumer.name, {STREAM: ">"}, count=batch, block=block_ms
    )
    # [[stream, entries]] in RESP2, {stream: entries} in RESP3.
    streams = answer.items() if isinstance(answer, dict) else answer or []
    entries: list[tuple[bytes, dict[bytes, bytes]]] = []
    for _stream, read in streams:
        entries += read
    return entries


def _forget_idle(consumer: Consumer) -> None:
    """Drop this consumer, and any long idle, from the group when they hold nothing
    pending (a consumer holding entries stays until another claims them)."""
    try:
        for known in consumer.client.xinfo_consumers(STREAM, GROUP):
            name = known["name"].decode() if isinstance(known["name"], bytes) else known["name"]
            gone = name == consumer.name or known["idle"] > FORGET_IDLE_MS
            if gone and known["pending"] == 0:
                consumer.client.xgroup_delconsumer(STREAM, GROUP, name)
    except redis.RedisError:
        log.warning("could not tidy the beacon consumers up", exc_info=True)


def pending(client: redis.Redis) -> int:
    """Entries read but not acknowledged yet (a measure of what a dead consumer holds)."""
    try:
        summary = client.xpending(STREAM, GROUP)
    except redis.ResponseError:
        return 0
    return int(summary["pending"])


def offer_many(events: Sequence[Impression | Click], client: redis.Redis | None = None) -> int:
    """Offer events one by one, as that many beacons would; how many went on the stream
    (the benchmark's and the flow tests' way to fill it)."""
    return sum(offer(event, client) is Handed.QUEUED for event in events)
