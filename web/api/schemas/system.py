"""Liveness, health, operators' queue views, and the payment provider's webhooks."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from web.api.schemas.common import Body, Open, Response, text


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


class QueueStatus(Response):
    queues: list[QueueRow]
    outbox: OutboxState


class Requeue(Body):
    queue: text(100, min_length=1) | None = None
    actor: text(200, min_length=1) | None = None


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
