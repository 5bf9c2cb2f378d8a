"""The JSON API's blueprint, which every module under web/api puts its routes on, and
the endpoints that take a body other than JSON (the rules of web/api/__init__.py)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api")

# Endpoints that take another kind of body: uploads (multipart), payment
# webhooks (raw signed bytes) and beacons.
_ANY_BODY: set[str] = set()


def accepts_any_body(endpoint: str) -> None:
    _ANY_BODY.add(endpoint)


def takes_any_body(endpoint: str | None) -> bool:
    return endpoint in _ANY_BODY
