"""Sending from the web front when the queue may be down: queue the work, or, when
Redis does not answer within its timeout (or failed a moment ago), do it here."""

from __future__ import annotations

import logging

from models import redis_client

log = logging.getLogger(__name__)


def send_or_run(actor, *args) -> bool:
    """Queue `actor(*args)`, or run it in this process when the queue is unavailable.
    True when queued. The actor's own code is the fallback, so both ways do the same."""
    if redis_client.available():
        try:
            actor.send(*args)
            return True
        except Exception as error:
            redis_client.mark_down(error)
            log.warning("queue unavailable; running %s here", actor.actor_name, exc_info=True)
    actor.fn(*args)
    return False
