"""Administration API under /api/admin: role `admin` only."""

from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, jsonify, request

from models.errors import ValidationError
from web.auth import require_admin_api
from web.body import json_object

bp = Blueprint("api_admin", __name__, url_prefix="/admin")
bp.before_request(require_admin_api)


def _redis_broker():
    import tasks  # noqa: F401  (declares every queue on the broker)
    from workers.broker import broker

    return broker if hasattr(broker, "client") else None


@bp.get("/queue")
def queue_status():
    """The queues, their dead letters and the outbox, as `subsearch queue status` shows."""
    from models import outbox
    from workers import deadletters

    broker = _redis_broker()
    rows = deadletters.status(broker) if broker else []
    waiting = outbox.waiting()
    return jsonify(
        queues=[asdict(row) for row in rows],
        outbox={"waiting": waiting.count, "oldestSeconds": waiting.oldest_seconds},
    )


@bp.post("/queue/requeue")
def queue_requeue():
    """Send dead letters again: body `{queue?, actor?}` narrows which."""
    from workers import deadletters

    data = json_object() if request.content_length else {}
    picks = {}
    for field in ("queue", "actor"):
        value = data.get(field)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ValidationError(fields={field: "must be a non-empty string"})
        picks[field] = value
    broker = _redis_broker()
    sent = deadletters.requeue(broker, **picks) if broker else []
    return jsonify(requeued=len(sent))


@bp.get("/counters")
def operational_counters():
    """Outcome counts of the webhooks, for operators."""
    from models import counters

    return jsonify(counters={"adCheckoutWebhook": counters.read("ad_checkout_webhook")})
