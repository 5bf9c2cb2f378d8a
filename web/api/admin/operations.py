"""What operators watch: the queues, their dead letters, the outbox, the last search
index check, webhook counters."""

from __future__ import annotations

from dataclasses import asdict

from dramatiq.brokers.redis import RedisBroker
from flask import jsonify
from werkzeug.wrappers import Response as HttpResponse

from models import index_check, outbox
from models.metrics import counter_values
from web.api.admin.blueprint import bp
from web.api.operation import ADMIN, operation
from web.api.schemas import system
from workers import deadletters
from workers.broker import get_broker


def _redis_broker() -> RedisBroker | None:
    broker = get_broker()  # set up by create_app, with every actor and queue
    return broker if isinstance(broker, RedisBroker) else None


@bp.get("/queue")
@operation(auth=ADMIN, responses={200: system.QueueStatus})
def queue_status() -> HttpResponse:
    """The queues, their dead letters and the outbox, as `subsearch queue status` shows,
    and the last search index check (`subsearch search verify`)."""
    broker = _redis_broker()
    rows = deadletters.status(broker) if broker else []
    waiting = outbox.waiting()
    check = index_check.last_check()
    return jsonify(
        queues=[asdict(row) for row in rows],
        outbox={"waiting": waiting.count, "oldestSeconds": waiting.oldest_seconds},
        indexCheck=system.IndexCheck.of(check).as_json() if check else None,
    )


@bp.post("/queue/requeue")
@operation(
    auth=ADMIN,
    body=system.Requeue,
    body_required=False,
    responses={200: system.Requeued},
    errors=(503,),
)
def queue_requeue(body: system.Requeue) -> HttpResponse:
    """Send dead letters again: body `{queue?, actor?}` narrows which."""
    broker = _redis_broker()
    sent = deadletters.requeue(broker, queue=body.queue, actor=body.actor) if broker else []
    return jsonify(requeued=len(sent))


@bp.get("/counters")
@operation(auth=ADMIN, responses={200: system.Counters})
def operational_counters() -> HttpResponse:
    """Outcome counts of the ad checkout webhook since the web processes started (the
    same counter GET /metrics shows as subsearch_webhook_events_total)."""
    counts = counter_values("subsearch_webhook_events", endpoint="ad-checkout")
    return jsonify(
        counters={"adCheckoutWebhook": {outcome: int(n) for (outcome,), n in counts.items()}}
    )
