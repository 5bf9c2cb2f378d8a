"""Housekeeping: expired or revoked sessions, used-up sign-in state, and idempotency keys
older than a day."""

from __future__ import annotations

import logging

from models import idempotency, users, verifications
from workers.actors import actor

log = logging.getLogger(__name__)


@actor(queue_name="maintenance", max_retries=3)
def purge_expired_sessions() -> None:
    """Delete expired sessions, sign-in state and idempotency keys. Retries 3 times; a
    rerun deletes nothing new."""
    sessions = users.purge_expired_sessions()
    states = verifications.purge_expired()
    keys = idempotency.purge_expired()
    log.info("purged %d sessions, %d sign-in states, %d idempotency keys", sessions, states, keys)
