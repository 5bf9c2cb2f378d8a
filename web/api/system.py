"""Health of the service's own parts, for load balancers and operators."""

from __future__ import annotations

import redis
from flask import jsonify
from peewee import PeeweeException

from models.db import db
from models.settings import get_settings
from web.api import bp


@bp.get("/health")
def health():
    checks = {}
    try:
        db.execute_sql("SELECT 1")
        checks["database"] = "ok"
    except PeeweeException:
        checks["database"] = "unavailable"
    try:
        redis.Redis.from_url(get_settings().redis_url, socket_connect_timeout=1).ping()
        checks["queue"] = "ok"
    except redis.RedisError:
        checks["queue"] = "unavailable"
    healthy = all(value == "ok" for value in checks.values())
    return jsonify(status="ok" if healthy else "degraded", checks=checks), 200 if healthy else 503
