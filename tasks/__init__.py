"""Dramatiq actors, one module per domain. Importing this package sets the broker first."""

import workers.broker  # noqa: F401  (the broker must exist before any actor is declared)
from tasks import ads, billing, channels, credits, maintenance, outbox, payments  # noqa: F401
