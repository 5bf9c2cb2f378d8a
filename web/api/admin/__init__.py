"""The administration API under /api/admin, role `admin` only: one blueprint, one
module per topic. ads.py: reservations under review, the timeline, the report and
revenue; operations.py: queues, dead letters, the outbox and webhook counters."""

from __future__ import annotations

from web.api.admin import ads, operations
from web.api.admin.blueprint import bp

__all__ = ["bp"]

# The modules above put their routes on bp when imported; listed so each is.
ROUTE_MODULES = (ads, operations)
