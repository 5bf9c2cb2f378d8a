"""Liveness and the health of the service's own parts, for load balancers and operators."""

from __future__ import annotations

import redis
from flask import Response, jsonify
from peewee import PeeweeException

from models import redis_client
from models.db import db
from web.api.blueprint import bp
from web.api.operation import operation
from web.api.schemas import system


@bp.get("/ping")
@operation(responses={200: system.Ping})
def ping() -> Response:
    """Liveness: answers without touching the database or the queue."""
    return jsonify(ok=True)


@bp.get("/health")
@operation(
    "Whether the database and the queue answer",
    responses={200: system.Health, 503: system.Health},
)
def health() -> tuple[Response, int]:
    checks: dict[str, str] = {}
    try:
        db.execute_sql("SELECT 1")
        checks["database"] = "ok"
    except PeeweeException:
        checks["database"] = "unavailable"
    try:
        redis_client.ping()
        checks["queue"] = "ok"
    except redis.RedisError:
        checks["queue"] = "unavailable"
    healthy = all(value == "ok" for value in checks.values())
    return jsonify(status="ok" if healthy else "degraded", checks=checks), 200 if healthy else 503
