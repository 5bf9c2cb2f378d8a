"""The JSON API under /api: blueprints, and the rule that state-changing bodies are JSON."""

from __future__ import annotations

from flask import Blueprint, request

from web.errors import error_response

bp = Blueprint("api", __name__, url_prefix="/api")

# Endpoints that take another kind of body: uploads (multipart), payment
# webhooks (raw signed bytes) and beacons.
_ANY_BODY: set[str] = set()


def accepts_any_body(endpoint: str) -> None:
    _ANY_BODY.add(endpoint)


@bp.before_request
def only_json_bodies():
    if request.method not in ("POST", "PUT", "PATCH", "DELETE"):
        return None
    if request.endpoint in _ANY_BODY:
        return None
    has_body = bool(request.content_length) or "chunked" in request.headers.get(
        "Transfer-Encoding", ""
    )
    if has_body and not request.is_json:
        return error_response(415)
    return None


def init_app(app):
    app.register_blueprint(bp)


from web.api import (  # noqa: E402, F401  (attach their routes)
    admin,
    admin_ads,
    ads,
    ads_delivery,
    ads_reports,
    credits,
    me,
    search,
    system,
    webhooks,
)

bp.register_blueprint(admin.bp)
