"""Liveness, health, operators' queue views, and the payment provider's webhooks."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import Field

from models.tables import IndexCheck as IndexCheckRow
from web.api.schemas.common import Body, Open, Response, Timestamp, text


class Ping(Response):
    ok: Literal[True]


class HealthChecks(Response):
    database: Literal["ok", "unavailable"]
    queue: Literal["ok", "unavailable"]


class Health(Response):
    status: Literal["ok", "degraded"]
    checks: HealthChecks


class QueueRow(Response):
    queue: str
    ready: int
    delayed: int
    dead: int


class OutboxState(Response):
    waiting: int
    oldest_seconds: float | None


class IndexCheckExamples(Response):
    missing: list[str]
    extra: list[str]
    stale: list[str]


class IndexCheck(Response):
    """The last `subsearch search verify`: what it compared and found wrong."""

    engine: str
    started_at: Timestamp
    finished_at: Timestamp
    videos: int = Field(description="Videos the database held as searchable")
    missing: int = Field(description="Searchable videos not in the index")
    extra: int = Field(description="Videos in the index that are not searchable")
    stale: int = Field(description="Videos in the index with other documents")
    repaired: bool = Field(description="Whether the check rewrote the videos found wrong")
    examples: IndexCheckExamples = Field(description="Up to 10 video ids of each kind")

    @classmethod
    def of(cls, check: IndexCheckRow) -> IndexCheck:
        try:
            kept = json.loads(check.examples or "{}")
        except ValueError:  # written by models.index_check only; the counts still stand
            kept = {}
        return cls(
            engine=check.engine,
            started_at=check.started_at,
            finished_at=check.finished_at,
            videos=check.videos,
            missing=check.missing,
            extra=check.extra,
            stale=check.stale,
            repaired=bool(check.repaired),
            examples=IndexCheckExamples(
                missing=kept.get("missing", []),
                extra=kept.get("extra", []),
                stale=kept.get("stale", []),
            ),
        )


class QueueStatus(Response):
    queues: list[QueueRow]
    outbox: OutboxState
    index_check: IndexCheck | None = Field(
        description="The last search index check; null when none has run"
    )


class Requeue(Body):
    queue: Annotated[str, text(100, min_length=1)] | None = None
    actor: Annotated[str, text(200, min_length=1)] | None = None


class Requeued(Response):
    requeued: int


class WebhookCounters(Response):
    ad_checkout_webhook: dict[str, int]


class Counters(Response):
    counters: WebhookCounters


class ProviderEvent(Open):
    """A payment provider's event, verified by its signature header before it is read."""

    id: str = Field(description="The provider's event id")
    type: str


class Received(Response):
    received: Literal[True]
    duplicate: bool | None = Field(default=None, description="true for a redelivery")
