"""Administration API under /api/admin: role `admin` only."""

from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, jsonify

from web.api.operation import ADMIN, operation
from web.api.schemas import system
from web.auth import require_admin_api

bp = Blueprint("api_admin", __name__, url_prefix="/admin")
bp.before_request(require_admin_api)


def _redis_broker():
    import tasks  # noqa: F401  (declares every queue on the broker)
    from workers.broker import broker

    return broker if hasattr(broker, "client") else None


@bp.get("/queue")
@operation(auth=ADMIN, responses={200: system.QueueStatus})
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
@operation(
    auth=ADMIN,
    body=system.Requeue,
    body_required=False,
    responses={200: system.Requeued},
    errors=(503,),
)
def queue_requeue(body):
    """Send dead letters again: body `{queue?, actor?}` narrows which."""
    from workers import deadletters

    broker = _redis_broker()
    sent = deadletters.requeue(broker, queue=body.queue, actor=body.actor) if broker else []
    return jsonify(requeued=len(sent))


@bp.get("/counters")
@operation(auth=ADMIN, responses={200: system.Counters})
def operational_counters():
    """Outcome counts of the webhooks, for operators."""
    from models import counters

    return jsonify(counters={"adCheckoutWebhook": counters.read("ad_checkout_webhook")})
