"""Handing work to the queue from a request, which must answer even when the queue is down.

`enqueue(actor, on_failure=..., **kwargs)` sends `actor(**kwargs)`; when Redis does not
take it within its timeout (or failed a moment ago, see models/redis_client.py), each
call site says what happens instead, with one of the policies below, in a comment
beside the call (docs/operating.md, Faults and recovery). Work that must never be lost
does not come here: it is written to the outbox (models/outbox.py), which sends it, and
sends it again, through `send_by_name`.
"""

from __future__ import annotations

import enum
import logging
from typing import Any

from models import redis_client
from workers import actors
from workers.actors import DeclaredActor

log = logging.getLogger(__name__)


class OnFailure(enum.Enum):
    """What a send does when the queue does not take the message."""

    # Run the actor's function in this process; its error reaches the caller.
    RUN_INLINE = "run inline"
    # Run it in this process; if that fails too, log it and go on without it.
    RUN_INLINE_OR_LOG = "run inline, else log"
    # Log it and go on: something else does the work later.
    LOG = "log"


def enqueue(actor: DeclaredActor[..., Any], *, on_failure: OnFailure, **kwargs: Any) -> bool:
    """Queue `actor(**kwargs)`; True when queued, else do as `on_failure` says. Inline,
    the actor's own function runs, so both ways do the same work."""

    def send() -> bool:
        actor.send(**kwargs)
        return True

    if redis_client.handed_over(send, f"queue unavailable for {actor.actor_name}"):
        return True
    if on_failure is OnFailure.LOG:
        log.error("%s was not queued%s", actor.actor_name, _ids(kwargs))
        return False
    try:
        actor.fn(**kwargs)
    except Exception:
        if on_failure is OnFailure.RUN_INLINE:
            raise
        log.exception("%s was neither queued nor done here%s", actor.actor_name, _ids(kwargs))
    return False


def send_by_name(actor_name: str, args: tuple[Any, ...], options: dict[str, Any]) -> None:
    """How the outbox reaches the queue (`workers.broker.setup` hands it over): the actor
    declared as `actor_name`, sent `args` with `options`; any error is the caller's."""
    actors.named(actor_name).send_with_options(args=args, **options)


def _ids(kwargs: dict[str, Any]) -> str:
    """The message's ids, for the log (actors take ids and plain values; only ids are
    safe and enough to find the work again)."""
    ids = [f"{name}={value}" for name, value in kwargs.items() if name.endswith("_id")]
    return f" ({', '.join(ids)})" if ids else ""
