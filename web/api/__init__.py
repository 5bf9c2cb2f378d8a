"""The JSON API under /api: blueprints, and the rules every state-changing call obeys:
bodies are JSON, and a call that carries the session cookie comes from this site's pages."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, current_app, request

from models.settings import get_settings
from web.api import (
    admin,
    ads,
    ads_delivery,
    ads_reports,
    alerts,
    billing,
    credits,
    me,
    openapi,
    receipts,
    search,
    system,
    webhooks,
)
from web.api.blueprint import bp, takes_any_body
from web.csrf import TokenError, validate_csrf
from web.errors import error_response

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# Called from elsewhere by design, so neither the same-site rule nor the token applies:
# the provider's webhooks are proven by their signature, and the impression beacon acts
# for nobody (it counts only with the view token of an ad this site rendered).
OPEN_TO_OTHER_SITES = frozenset(
    {"api.ad_checkout_webhook", "api.subscription_webhook", "api.ad_impression"}
)

CSRF_HEADER = "X-CSRFToken"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: str) -> str:
    """scheme://host[:port] as a browser writes it in `Origin` (default port left out)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return ""
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def _own_origins() -> set[str]:
    # The configured public address, and the one this request reached. The Host header
    # is safe to trust here: a browser sends its cookies for this site only with this
    # site's Host, so another site cannot make the two agree (and behind a proxy that
    # rewrites Host or ends TLS, the configured address is the one browsers show).
    return {_origin(get_settings().public_base_url), _origin(request.host_url)}


def _cross_site() -> bool:
    # `same-site` is refused too: the site has a single origin, and a sibling
    # subdomain (possibly someone else's app) is not it.
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None and fetch_site != "same-origin":
        return True
    origin = request.headers.get("Origin")
    return origin is not None and _origin(origin) not in _own_origins()


def _has_valid_token() -> bool:
    token = request.headers.get(CSRF_HEADER)
    if not token:
        return False
    try:
        validate_csrf(token)
    except TokenError:
        return False
    return True


def _has_body() -> bool:
    return bool(request.content_length) or "chunked" in request.headers.get("Transfer-Encoding", "")


@bp.before_request
def guard_state_changes() -> tuple[Response, int] | None:
    """A session's state changes only on a call from this site's own pages.

    SameSite=Lax keeps the cookie off cross-site POSTs in today's browsers, but not in
    every browser, nor for a same-site sibling; so a call carrying the cookie must not
    come from another site (Sec-Fetch-Site, Origin), and must be something a plain HTML
    form cannot send: a JSON request (even with an empty body), or one that carries
    this session's CSRF token in the X-CSRFToken header (the multipart upload).
    """
    if request.method not in STATE_CHANGING or request.endpoint in OPEN_TO_OTHER_SITES:
        return None
    with_session = current_app.config["SESSION_COOKIE_NAME"] in request.cookies
    if with_session and _cross_site():
        return error_response(403, "forbidden", "This request must come from this site.")
    if not takes_any_body(request.endpoint) and _has_body() and not request.is_json:
        return error_response(415)
    if with_session and not request.is_json and not _has_valid_token():
        return error_response(
            403,
            "forbidden",
            "Send this request as application/json, or with the page's X-CSRFToken header.",
        )
    return None


# The administrators' calls, under /api/admin.
bp.register_blueprint(admin.bp)

# The modules above put their routes on bp when imported; listed so each is.
ROUTE_MODULES = (
    ads,
    ads_delivery,
    ads_reports,
    alerts,
    billing,
    credits,
    me,
    openapi,
    receipts,
    search,
    system,
    webhooks,
)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
