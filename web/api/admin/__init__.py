"""The administration API under /api/admin, role `admin` only: one blueprint, one
module per topic. ads.py: reservations under review, the timeline, the report and
revenue; operations.py: queues, dead letters, the outbox and webhook counters."""

from __future__ import annotations

from flask import Blueprint

from web.auth import require_admin_api

bp = Blueprint("api_admin", __name__, url_prefix="/admin")
bp.before_request(require_admin_api)

from web.api.admin import ads, operations  # noqa: E402, F401  (attach their routes)
