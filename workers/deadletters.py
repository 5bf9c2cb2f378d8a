"""What sits in the Redis queues, and putting dead-lettered messages back to work.

Dramatiq's Redis broker keeps a queue's dead letters in `<ns>:<queue>.XQ`
(Redis message ids sorted by when they died) and their bodies in
`<ns>:<queue>.XQ.msgs`, keyed by the same ids. A body is the message as it was sent
(a worker's changes to its options stay in that worker), but for the reason the poison
guard writes into it (workers/poison.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, cast

from dramatiq import Message
from dramatiq.brokers.redis import RedisBroker

from workers import poison

# Options that belong to one delivery, not to the work itself.
DELIVERY_OPTIONS = ("retries", "traceback", "redis_message_id", "eta", poison.REASON_OPTION)


@dataclass(frozen=True)
class QueueStatus:
    queue: str
    ready: int
    delayed: int
    dead: int


def _key(broker: RedisBroker, name: str) -> str:
    return f"{broker.namespace}:{name}"


def queue_names(broker: RedisBroker) -> list[str]:
    """Queues the actors declare, and any queue that holds dead letters in Redis."""
    names = {q for q in broker.get_declared_queues() if not q.endswith((".DQ", ".XQ"))}
    prefix = f"{broker.namespace}:"
    for raw in broker.client.scan_iter(match=f"{prefix}*.XQ", count=500):
        key = raw.decode() if isinstance(raw, bytes) else raw
        names.add(key[len(prefix) : -len(".XQ")])
    return sorted(names)


def status(broker: RedisBroker) -> list[QueueStatus]:
    client = broker.client
    return [
        QueueStatus(
            queue=queue,
            ready=client.llen(_key(broker, queue)),
            delayed=client.llen(_key(broker, f"{queue}.DQ")),
            dead=client.zcard(_key(broker, f"{queue}.XQ")),
        )
        for queue in queue_names(broker)
    ]


def dead_messages(broker: RedisBroker, queue: str) -> list[tuple[str, Message[Any]]]:
    """(Redis id, message) of every dead letter of `queue`, oldest first."""
    client = broker.client
    ids = cast(list[bytes], client.zrange(_key(broker, f"{queue}.XQ"), 0, -1))
    bodies = client.hmget(_key(broker, f"{queue}.XQ.msgs"), ids) if ids else []
    return [
        (redis_id.decode(), Message.decode(body))
        for redis_id, body in zip(ids, bodies, strict=True)
        if body is not None
    ]


def reason(message: Message[Any]) -> str | None:
    """Why the message was dead-lettered, when that was recorded (a poison message);
    None for one that failed past its retries, which Dramatiq does not record."""
    recorded = message.options.get(poison.REASON_OPTION)
    return str(recorded) if recorded else None


def requeue(
    broker: RedisBroker, *, queue: str | None = None, actor: str | None = None
) -> list[Message[Any]]:
    """Send dead letters again (retry count and deaths reset: workers/poison.py), then
    drop them from the dead-letter set.

    A crash between the two leaves a message both queued and dead; requeueing
    it again is harmless because every actor is safe to run twice.
    """
    sent = []
    for name in [queue] if queue else queue_names(broker):
        for redis_id, message in dead_messages(broker, name):
            if actor and message.actor_name != actor:
                continue
            options = {k: v for k, v in message.options.items() if k not in DELIVERY_OPTIONS}
            fresh = dataclasses.replace(message, queue_name=name, options=options)
            poison.forget(broker.client, [message.message_id])
            broker.enqueue(fresh)
            pipe = broker.client.pipeline()
            pipe.zrem(_key(broker, f"{name}.XQ"), redis_id)
            pipe.hdel(_key(broker, f"{name}.XQ.msgs"), redis_id)
            pipe.execute()
            sent.append(fresh)
    return sent
