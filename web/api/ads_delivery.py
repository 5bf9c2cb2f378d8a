"""Serving ads, and the click and impression beacons (public; no body, no CSRF)."""

from __future__ import annotations

import logging

from flask import jsonify, redirect, request
from flask_login import current_user

from models.ads import measurement, view_tokens
from models.ads.delivery import ads_enabled_for, assignment
from models.ads.months import month_of
from models.clock import iso, utcnow
from models.countries import usable_country
from models.errors import NotFound
from web.api import accepts_any_body, bp
from web.api.operation import NO_BODY, operation
from web.api.schemas import ads, system
from workers.sending import send_or_run

log = logging.getLogger(__name__)


@bp.get("/ping")
@operation(responses={200: system.Ping})
def ping():
    """Liveness: answers without touching the database or the queue."""
    return jsonify(ok=True)


@bp.get("/ads/serve")
@operation(
    "The ads of a slot for this visitor's country and month",
    query=ads.ServeParams,
    responses={200: ads.Served},
)
def serve(query):
    slot = query.slot
    month = query.month or month_of(utcnow())
    # Without a country in the query (or an empty one), the visitor's own, as on the pages.
    raw_country = query.country or request.headers.get("Edge-IPCountry")
    country = usable_country(raw_country)
    body = {"slot": slot, "country": country or (raw_country or None), "month": month}
    if not ads_enabled_for(current_user):
        return jsonify(**body, adsEnabled=False, positions=[])
    ads = assignment(slot, raw_country, month)
    render = view_tokens.new_render_id()
    return jsonify(
        **body,
        adsEnabled=True,
        positions=[
            {"position": n, "ad": ad.json(render) if ad else None}
            for n, ad in enumerate(ads, start=1)
        ],
    )


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
    from tasks.ads import record_click

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
    click = (
        measurement.new_event_id(),
        reservation_id,
        measurement.stored_country(request.headers.get("Edge-IPCountry")),
        user_agent,
        iso(now),
        token if genuine else None,
        measurement.is_bot(user_agent),
    )
    try:
        send_or_run(record_click, *click)
    except Exception:
        log.exception("click %s of %s was not logged", click[0], reservation_id)
    return redirect(state.redirect_url, code=302)


@bp.post("/ad-impression/<reservation_id>")
@operation(
    "Count one viewable impression of a render (a beacon; no body)",
    path=ads.ReservationPath,
    query=ads.BeaconParams,
    body_kind=NO_BODY,
    responses={202: None, 204: None},
)
def ad_impression(path, query):
    """Count one viewable impression per view token: the token's render identity is the
    event id, so a replay (here or after a redelivery) counts nothing."""
    from tasks.ads import record_impression

    reservation_id = path.reservation_id
    if measurement.is_bot(request.headers.get("User-Agent")):
        return "", 204
    now = utcnow()
    state = measurement.reservation_state(reservation_id, now)
    if state.status == "unknown":
        raise NotFound("No ad has this id.")
    if not state.counts:
        return "", 204
    seen = view_tokens.verify(query.v, reservation_id, now)
    if seen.status != view_tokens.VALID or measurement.seen_before(seen.identity):
        return "", 204
    at = iso(now)
    event = (
        seen.identity,
        reservation_id,
        at[:10],
        measurement.stored_country(request.headers.get("Edge-IPCountry")),
        at,
    )
    send_or_run(record_impression, *event)
    return "", 202


accepts_any_body("api.ad_impression")
