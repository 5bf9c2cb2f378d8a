"""Serving ads, and the click and impression beacons (public; no body, no CSRF)."""

from __future__ import annotations

import logging

from flask import jsonify, redirect, request
from werkzeug.wrappers import Response as HttpResponse

from models.ads import measurement, view_tokens
from models.ads.delivery import ads_enabled_for, assignment
from models.ads.months import month_of
from models.clock import iso, utcnow
from models.countries import usable_country
from models.errors import NotFound
from models.metrics import AD_EVENTS, INVALID_BEACONS
from tasks.ads import record_click, record_impression
from web.api import accepts_any_body, bp
from web.api.operation import NO_BODY, operation
from web.api.schemas import ads
from web.api.schemas.common import ErrorBody
from web.limits import beacon_flood, client_address
from web.visitor import viewer_id, visitor_country
from workers.sending import OnFailure, enqueue

log = logging.getLogger(__name__)


@bp.get("/ads/serve")
@operation(
    "The ads of a slot for this visitor's country and month",
    query=ads.ServeParams,
    responses={200: ads.Served},
)
def serve(query: ads.ServeParams) -> HttpResponse:
    month = query.month or month_of(utcnow())
    # Without a country in the query (or an empty one), the visitor's own, as on the pages.
    raw_country = query.country or visitor_country()
    shown_country = usable_country(raw_country) or raw_country or None
    decided = assignment(query.slot, raw_country, month) if ads_enabled_for(viewer_id()) else None
    served = ads.Served.of(query.slot, shown_country, month, decided, view_tokens.new_render_id())
    return jsonify(served.as_json())


@bp.get("/ad-click/<reservation_id>")
@operation(
    "Log a click and send the visitor to the advertiser (302)",
    path=ads.ReservationPath,
    query=ads.BeaconParams,
    responses={302: None},
    redirect=True,
)
def ad_click(path, query):
    """Log the click, then send the visitor on. The log is queued with an id made here;
    without a queue it is written directly; failing that the visitor still goes on.
    Outside the contract period the visitor goes on and nothing is logged. A bot's click
    is logged too, marked, and left out of the reports' figures."""
    reservation_id = path.reservation_id
    now = utcnow()
    state = measurement.reservation_state(reservation_id, now)
    if state.status != "active":
        raise NotFound("No active ad has this id.")
    if not state.counts:
        return redirect(state.redirect_url, code=302)
    token = query.v
    # An expired but genuine token still shows the ad was served: a page left open
    # gets real clicks.
    genuine = view_tokens.verify(token, reservation_id, now).genuine
    user_agent = request.headers.get("User-Agent")
    # RUN_INLINE_OR_LOG: with the queue down the click is written here, and if that fails
    # too it is logged and the visitor still goes on (README, Faults and recovery).
    enqueue(
        record_click,
        on_failure=OnFailure.RUN_INLINE_OR_LOG,
        click_id=measurement.new_event_id(),
        reservation_id=reservation_id,
        country=measurement.stored_country(visitor_country()),
        user_agent=user_agent,
        at=iso(now),
        view_token=token if genuine else None,
        is_bot=measurement.is_bot(user_agent),
    )
    AD_EVENTS.labels(kind="click", stage="accepted").inc()
    return redirect(state.redirect_url, code=302)


@bp.post("/ad-impression/<reservation_id>")
@operation(
    "Count one viewable impression of a render (a beacon; no body)",
    path=ads.ReservationPath,
    query=ads.BeaconParams,
    body_kind=NO_BODY,
    # 500: neither the queue nor the database could count it (README, Faults and recovery).
    responses={202: None, 204: None, 500: ErrorBody},
)
def ad_impression(path, query):
    """Count one viewable impression per view token: the token's render identity is the
    event id, so a replay (here or after a redelivery) counts nothing."""
    reservation_id = path.reservation_id
    if measurement.is_bot(request.headers.get("User-Agent")):
        return "", 204
    now = utcnow()
    # The signature is checked first (no lookup): an address flooding invalid tokens is
    # answered here, while a valid token is never limited (README, Operating).
    seen = view_tokens.verify(query.v, reservation_id, now)
    flood, address = beacon_flood(), client_address()
    if seen.status != view_tokens.VALID:
        if flood.flooded(address):
            INVALID_BEACONS.labels(reason="flood").inc()
            return "", 204
        flood.note(address, seen.status)
    state = measurement.reservation_state(reservation_id, now)
    if state.status == "unknown":
        raise NotFound("No ad has this id.")
    if not state.counts or seen.status != view_tokens.VALID:
        return "", 204
    if measurement.seen_before(seen.identity):
        flood.note(address, "replayed")
        return "", 204
    at = iso(now)
    # RUN_INLINE: with the queue down the impression is counted here, and if that fails
    # too the beacon gets a 500 (README, Faults and recovery).
    enqueue(
        record_impression,
        on_failure=OnFailure.RUN_INLINE,
        event_id=seen.identity,
        reservation_id=reservation_id,
        date=at[:10],
        country=measurement.stored_country(visitor_country()),
        at=at,
    )
    AD_EVENTS.labels(kind="impression", stage="accepted").inc()
    return "", 202


accepts_any_body("api.ad_impression")
