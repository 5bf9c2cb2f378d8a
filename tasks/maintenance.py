"""Housekeeping of sign-in data: expired or revoked sessions and used-up sign-in state."""

from __future__ import annotations

import logging

from models import users, verifications
from workers.actors import actor

log = logging.getLogger(__name__)


@actor(queue_name="maintenance", max_retries=3)
def purge_expired_sessions() -> None:
    """Delete expired sessions and sign-in state. Retries 3 times; a rerun deletes nothing new."""
    sessions = users.purge_expired_sessions()
    states = verifications.purge_expired()
    log.info("purged %d sessions and %d sign-in states", sessions, states)
