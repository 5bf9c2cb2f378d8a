"""Serving ads, and the click and impression beacons (public; no body, no CSRF)."""

from __future__ import annotations

import logging

from flask import jsonify, redirect, request
from werkzeug.wrappers import Response as HttpResponse

from models.ads import measurement, view_tokens
from models.ads.delivery import ads_enabled_for, assignment
from models.ads.months import month_of
from models.clock import utcnow
from models.countries import usable_country
from models.metrics import AD_EVENTS
from web.api.blueprint import accepts_any_body, bp
from web.api.operation import NO_BODY, operation
from web.api.schemas import ad_delivery, ads
from web.api.schemas.common import ErrorBody
from web.limits import beacon_flood, client_address
from web.visitor import viewer_id, visitor_country
from workers import beacons

log = logging.getLogger(__name__)


@bp.get("/ads/serve")
@operation(
    "The ads of a slot for this visitor's country and month",
    query=ad_delivery.ServeParams,
    responses={200: ad_delivery.Served},
)
def serve(query: ad_delivery.ServeParams) -> HttpResponse:
    month = query.month or month_of(utcnow())
    # Without a country in the query (or an empty one), the visitor's own, as on the pages.
    raw_country = query.country or visitor_country()
    shown_country = usable_country(raw_country) or raw_country or None
    decided = assignment(query.slot, raw_country, month) if ads_enabled_for(viewer_id()) else None
    served = ad_delivery.Served.of(
        query.slot, shown_country, month, decided, view_tokens.new_render_id()
    )
    return jsonify(served.as_json())


def _beacon(reservation_id: str, token: str | None) -> measurement.Beacon:
    """What a click or an impression beacon says, for the domain to judge."""
    return measurement.Beacon(
        reservation_id=reservation_id,
        token=token,
        user_agent=request.headers.get("User-Agent"),
        edge_country=visitor_country(),
        now=utcnow(),
    )


@bp.get("/ad-click/<reservation_id>")
@operation(
    "Log a click and send the visitor to the advertiser (302)",
    path=ads.ReservationPath,
    query=ad_delivery.BeaconParams,
    responses={302: None},
    redirect=True,
)
def ad_click(path: ads.ReservationPath, query: ad_delivery.BeaconParams) -> HttpResponse:
    """Log the click the domain makes of it (if any), then send the visitor on."""
    answer = measurement.judge_click(_beacon(path.reservation_id, query.v))
    if answer.click is not None:
        # With Redis down the click is written here, and if that fails too it is logged
        # and the visitor still goes on (docs/operating.md, Faults and recovery).
        beacons.accept_click(answer.click)
        AD_EVENTS.labels(kind="click", stage="accepted").inc()
    return redirect(answer.redirect_url, code=302)


@bp.post("/ad-impression/<reservation_id>")
@operation(
    "Count one viewable impression of a render (a beacon; no body)",
    path=ads.ReservationPath,
    query=ad_delivery.BeaconParams,
    body_kind=NO_BODY,
    # 500: neither the queue nor the database could count it (docs/operating.md, Faults
    # and recovery).
    responses={202: None, 204: None, 500: ErrorBody},
)
def ad_impression(path: ads.ReservationPath, query: ad_delivery.BeaconParams) -> tuple[str, int]:
    """Count the impression the domain makes of the beacon: 202, or 204 when it counts
    nothing."""
    beacon = _beacon(path.reservation_id, query.v)
    invalid, address = beacon_flood(), client_address()
    impression = measurement.judge_impression(beacon, invalid, address)
    if impression is None:
        return "", 204
    # One Redis call drops a replayed token or hands the impression on; with Redis down
    # it is counted here, and if that fails too the beacon gets a 500 (docs/operating.md,
    # Faults and recovery).
    if not beacons.accept_impression(impression):
        measurement.note_replay(invalid, address)
        return "", 204
    AD_EVENTS.labels(kind="impression", stage="accepted").inc()
    return "", 202


accepts_any_body("api.ad_impression")
