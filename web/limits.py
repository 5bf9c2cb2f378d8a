"""Rate limits: which calls are limited and by which setting (LIMITED, the one table),
what a limited call answers, and the cheap answer to a flood of invalid ad beacons
(docs/operating.md, Rate limits).

Flask-Limiter counts in the broker's Redis under its own prefix, per signed-in user,
else per client address (behind TRUSTED_PROXY_HOPS proxies, the address they report).
When Redis cannot be reached each web process counts in its own memory and says so in
the log, so a call is never refused because Redis is down; it goes back to Redis once
Redis answers again.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import replace
from typing import Any, cast

import redis
from flask import Flask, current_app, make_response, render_template, request
from flask.typing import ResponseReturnValue
from flask_limiter import Limiter
from flask_limiter.errors import RateLimitExceeded
from limits import parse_many
from limits.strategies import MovingWindowRateLimiter

from models import redis_client
from models.metrics import INVALID_BEACONS, RATE_LIMITED
from models.settings import Settings
from web.api.operation import DeclaredView, View
from web.api.schemas.common import ErrorBody
from web.errors import error_response, page_message, wants_json
from web.translation import ngettext
from web.visitor import viewer_id

log = logging.getLogger(__name__)

# Endpoint -> the limit it counts against (the setting rate_limit_<name>). Endpoints
# naming the same limit share one count: the search page and the search API, say.
LIMITED = {
    "api.search": "search",
    "api.video_moments": "search",
    "pages.search": "search",
    "api.unlock": "unlock",
    "api.claim": "referral_claim",
    "api.upload_ad_image": "upload",
    "api.create_ad_profile": "ad_profiles",
    "api.edit_ad_profile": "ad_profiles",
    "api.create_reservation": "reservations",
    "api.billing_checkout": "billing",
    "api.billing_portal": "billing",
    "api.resume_checkout": "billing",
    "api.cancel_reservation_checkout": "billing",
    "api.cancel_plan_checkout": "billing",
    "api.save_alert": "alerts",
    "api.renew_alert_feed": "alerts",
    "api.resume_alert_mail": "alerts",
    "auth.login": "sign_in",
    "auth.callback": "sign_in",
    "dev_login": "sign_in",
}

# Signing in changes who the caller is midway: these count by address alone.
BY_ADDRESS = {"sign_in"}

KEY_PREFIX = "subsearch:limits"
# Counted exactly over the last period, not per calendar minute: no double burst at a
# window's edge, and Retry-After is when the oldest counted call leaves the window.
STRATEGY = "moving-window"


def client_key() -> str:
    """Who a call is counted against: the signed-in user, else the client address."""
    user_id = viewer_id()
    if user_id is not None:
        return f"user:{user_id}"
    return client_address()


def client_address() -> str:
    return f"address:{request.remote_addr or 'unknown'}"


def init_app(app: Flask, settings: Settings) -> None:
    """After every blueprint is registered: wraps the views LIMITED names."""
    # The broker's Redis through the service's own pool (its short timeouts, no
    # retries); the URI only names the storage kind. Keyword arguments of the storage:
    # Flask-Limiter types them as text or numbers, and hands the pool on all the same.
    storage_options: dict[str, Any] = {
        "connection_pool": redis_client.connection_pool(settings.redis_url),
        "key_prefix": KEY_PREFIX,
    }
    limiter = Limiter(
        key_func=client_key,
        strategy=STRATEGY,
        storage_uri="redis://",
        storage_options=storage_options,
        in_memory_fallback_enabled=True,
        swallow_errors=True,
        headers_enabled=False,  # Retry-After is set on the 429 alone
        enabled=settings.rate_limits_enabled,
    )
    limiter.init_app(app)
    app.extensions["subsearch_limiter"] = limiter
    app.extensions["subsearch_beacon_flood"] = BeaconFlood(
        limiter, settings.rate_limit_invalid_beacons
    )
    app.register_error_handler(RateLimitExceeded, too_many_requests)
    if not settings.rate_limits_enabled:
        return
    for endpoint, name in LIMITED.items():
        view = app.view_functions.get(endpoint)
        if view is None:  # a route this configuration leaves out (dev login, say)
            continue
        limit = getattr(settings, f"rate_limit_{name}")
        key = client_address if name in BY_ADDRESS else client_key
        cost = MeaningCost(settings.rate_limit_search_meaning_cost) if name == "search" else 1
        counted = limiter.shared_limit(limit, scope=name, key_func=key, cost=cost)
        if isinstance(view, DeclaredView):  # the API's declaration, and so its document, says 429
            spec = view.operation
            limited = replace(spec, responses={**spec.responses, 429: ErrorBody})
            app.view_functions[endpoint] = DeclaredView(counted(view), limited)
        else:
            # Flask types a view as sync or async, a union the limiter's generic decorator
            # cannot carry through; every view of this app is sync.
            app.view_functions[endpoint] = counted(cast(View, view))


class MeaningCost:
    """What a search counts for in its limit: a search by meaning `weight` searches (its
    question costs the model about that many keyword searches' work), any other one."""

    def __init__(self, weight: int) -> None:
        self.weight = weight

    def __call__(self) -> int:
        return self.weight if request.args.get("semantic") == "1" else 1


def retry_after() -> int:
    """Whole seconds until the breached limit lets this caller through again."""
    limiter: Limiter = current_app.extensions["subsearch_limiter"]
    breached = limiter.current_limit
    if breached is None:
        return 1
    try:
        return max(1, math.ceil(breached.window.reset_time - time.time()))
    except Exception:  # storage gone since the breach: a guess beats a 500
        log.warning("rate limits: the reset time could not be read", exc_info=True)
        return 60


def too_many_requests(_error: RateLimitExceeded) -> ResponseReturnValue:
    route = request.url_rule.rule if request.url_rule else request.path
    RATE_LIMITED.labels(route=route).inc()
    seconds = retry_after()
    if wants_json():
        response = make_response(
            error_response(
                429,
                "too_many_requests",
                f"Too many requests; try again in {seconds} s (Retry-After).",
            )
        )
    else:
        detail = ngettext(
            "You can try again in %(num)s second.", "You can try again in %(num)s seconds.", seconds
        )
        page = render_template("error.html", status=429, message=page_message(429), detail=detail)
        response = make_response(page, 429)
    response.headers["Retry-After"] = str(seconds)
    return response


class BeaconFlood:
    """Invalid impression beacons per address. Counting impressions is never limited
    (the spec forbids a per-address cap), but past RATE_LIMIT_INVALID_BEACONS an
    address's invalid ones are answered before any lookup. Redis down: no flood is
    seen, and every beacon is checked as usual."""

    def __init__(self, limiter: Limiter, limit: str):
        self.limiter = limiter
        self.items = parse_many(limit)

    def _window(self) -> MovingWindowRateLimiter | None:
        if not self.limiter.enabled or not redis_client.available():
            return None
        return MovingWindowRateLimiter(self.limiter.storage)

    def flooded(self, address: str) -> bool:
        window = self._window()
        if window is None:
            return False
        try:
            return not all(window.test(item, "invalid-beacon", address) for item in self.items)
        except redis.RedisError as error:
            redis_client.mark_down(error)
            return False

    def note(self, address: str, reason: str) -> None:
        """One more invalid beacon from `address`, and why."""
        INVALID_BEACONS.labels(reason=reason).inc()
        window = self._window()
        if window is None:
            return
        try:
            for item in self.items:
                window.hit(item, "invalid-beacon", address)
        except redis.RedisError as error:
            redis_client.mark_down(error)


def beacon_flood() -> BeaconFlood:
    flood: BeaconFlood = current_app.extensions["subsearch_beacon_flood"]
    return flood
