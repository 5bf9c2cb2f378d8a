"""Poison messages: a message whose processing kills its worker process (an abort or a
segfault in C code, the kernel's OOM killer) is set aside once it has killed
WORKER_POISON_DEATHS processes, instead of killing every worker that takes it again.

A dead process records nothing, so each run is counted before it starts: the message's
mark in Redis (`subsearch:queue-deaths:<message id>`, kept a day) goes up by one, and it
is cleared when the run ends in any way its process survives (done, failed, retried,
skipped). A message that comes back with a mark (Dramatiq's Redis broker gives a dead
worker's unacknowledged messages back: workers/maintenance.py) killed that many
processes. One that starts with WORKER_POISON_DEATHS marks is not run: it is
dead-lettered with its reason in its options (`dead_reason`, which `subsearch queue
status` shows) and logged as an error; `subsearch queue requeue` clears its mark.

The messages running beside a poison die with it, and are marked too. So a marked
message (a suspect) runs only while no other suspect runs in its process, or it is put
back for SUSPECT_WAIT_MS (neither a retry nor a death): a poison that dies again dies
among unmarked messages, and a message that died beside it once runs apart from it,
ends, and loses its mark. And a process told to stop (SIGTERM: a deploy, a restart)
takes one mark off each message it is running: a kill after the platform's grace
period is not theirs.

Only on Dramatiq's Redis broker: the stub broker's messages live and die with its
process.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import dramatiq
from dramatiq.broker import MessageProxy
from dramatiq.brokers.redis import RedisBroker
from dramatiq.middleware import SkipMessage
from redis import Redis, RedisError

log = logging.getLogger(__name__)

DEFAULT_DEATHS = 3
MARK = "subsearch:queue-deaths:{message_id}"
# A mark outlives a crash loop by far (each round is about half a minute) and goes by
# itself once the message is gone (acknowledged by a worker that was then killed).
MARK_SECONDS = 86_400
# How long a suspect waits on the delay queue when another suspect runs in its process.
SUSPECT_WAIT_MS = 5_000
REASON_OPTION = "dead_reason"

# Replace a message's stored body, if it is still stored: the nack that dead-letters
# it moves that body, as it is in Redis, to the dead letters.
_REPLACE_BODY = """
if redis.call("hexists", KEYS[1], ARGV[1]) == 1 then
    redis.call("hset", KEYS[1], ARGV[1], ARGV[2])
    return 1
end
return 0
"""


def mark_key(message_id: str) -> str:
    return MARK.format(message_id=message_id)


def deaths(client: Redis, message_id: str) -> int:
    """The processes this message has killed, as its mark counts them."""
    return int(client.get(mark_key(message_id)) or 0)


def forget(client: Redis, message_ids: list[str]) -> None:
    """Clear these messages' marks (a requeue: an operator tries them again)."""
    if message_ids:
        client.delete(*(mark_key(message_id) for message_id in message_ids))


class PoisonGuard(dramatiq.Middleware):
    """Counts each message's deaths and dead-letters it at `deaths` (module docstring).
    Declared right after LogContext: its `before_` hook runs before every other one, so
    a message it sets aside has touched no other middleware, and its lines carry the
    message's fields."""

    def __init__(self, deaths: int = DEFAULT_DEATHS) -> None:
        self.deaths = deaths
        self._local = threading.local()
        self._suspects = threading.Lock()
        self._running: dict[int, str] = {}  # worker thread -> the mark it set
        self._running_lock = threading.Lock()

    def before_process_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        self._local.key = None
        self._local.suspect = False
        if not isinstance(broker, RedisBroker):
            return
        key = mark_key(message.message_id)
        try:
            died = deaths(broker.client, message.message_id)
        except RedisError:
            log.warning("could not read the deaths of %s; run uncounted", message.message_id)
            return
        if died >= self.deaths:
            self._dead_letter(broker, message, died)
        if died and not self._suspects.acquire(blocking=False):
            self._put_back(broker, message, died)
        self._local.suspect = bool(died)
        try:
            pipe = broker.client.pipeline()
            pipe.incr(key)
            pipe.expire(key, MARK_SECONDS)
            pipe.execute()
        except RedisError:
            log.warning("could not mark %s as running; run uncounted", message.message_id)
            return
        self._local.key = key
        with self._running_lock:
            self._running[threading.get_ident()] = key

    def _dead_letter(self, broker: RedisBroker, message: MessageProxy, died: int) -> None:
        reason = f"killed its worker process {died} times"
        message.options[REASON_OPTION] = reason
        try:
            broker.client.eval(
                _REPLACE_BODY,
                1,
                f"{broker.namespace}:{message.queue_name}.msgs",
                message.options["redis_message_id"],
                message.encode(),
            )
        except RedisError:
            log.warning("could not record why %s is dead-lettered", message.message_id)
        log.error(
            "poison message %s of %s on queue %s dead-lettered: %s",
            message.message_id,
            message.actor_name,
            message.queue_name,
            reason,
        )
        message.fail()  # the consumer nacks it: Dramatiq moves it to `<queue>.XQ`
        raise SkipMessage(reason)

    def _put_back(self, broker: RedisBroker, message: MessageProxy, died: int) -> None:
        """Another suspect runs in this process: this one comes back in a moment, its
        retries and deaths as they are (the delivery in hand is acknowledged)."""
        broker.enqueue(message.copy(), delay=SUSPECT_WAIT_MS)
        log.info(
            "message %s (%d death(s)) waits: another suspect runs in this process",
            message.message_id,
            died,
        )
        raise SkipMessage("another suspect runs in this process")

    def _end(self, broker: dramatiq.Broker) -> None:
        key = getattr(self._local, "key", None)
        suspect = getattr(self._local, "suspect", False)
        self._local.key = None
        self._local.suspect = False
        if suspect:
            self._suspects.release()
        if key is None or not isinstance(broker, RedisBroker):
            return
        with self._running_lock:
            self._running.pop(threading.get_ident(), None)
        try:
            broker.client.delete(key)
        except RedisError:
            log.warning("could not clear %s: one death too many is counted if it comes back", key)

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: MessageProxy,
        *,
        result: Any = None,
        exception: BaseException | None = None,
    ) -> None:
        self._end(broker)

    def after_skip_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        self._end(broker)

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        """Told to stop: the messages running now are not to blame for a kill that may
        follow the grace period. Their marks go back to what they came with."""
        if not isinstance(broker, RedisBroker):
            return
        with self._running_lock:
            keys = list(self._running.values())
        try:
            for key in keys:
                if int(broker.client.decr(key)) <= 0:
                    broker.client.delete(key)
        except RedisError:
            log.warning("could not take the running messages' marks back", exc_info=True)
