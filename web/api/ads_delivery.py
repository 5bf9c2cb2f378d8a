"""Serving ads, and the click and impression beacons (public; no body, no CSRF)."""

from __future__ import annotations

import logging

from flask import jsonify, redirect, request
from flask_login import current_user

from models.ads import SLOT_IDS, measurement
from models.ads.delivery import ads_enabled_for, assignment
from models.ads.months import is_month, month_of
from models.clock import now_iso, utcnow
from models.countries import usable_country
from models.errors import NotFound, ValidationError
from web.api import accepts_any_body, bp

log = logging.getLogger(__name__)


@bp.get("/ping")
def ping():
    """Liveness: answers without touching the database or the queue."""
    return jsonify(ok=True)


@bp.get("/ads/serve")
def serve():
    slot = request.args.get("slot")
    month = request.args.get("month") or month_of(utcnow())
    errors = {}
    if slot not in SLOT_IDS:
        errors["slot"] = f"one of {', '.join(SLOT_IDS)}"
    if not is_month(month):
        errors["month"] = "a month as YYYY-MM"
    if errors:
        raise ValidationError(fields=errors)
    raw_country = request.args.get("country")
    country = usable_country(raw_country)
    body = {"slot": slot, "country": country or (raw_country or None), "month": month}
    if not ads_enabled_for(current_user):
        return jsonify(**body, adsEnabled=False, positions=[])
    ads = assignment(slot, raw_country, month)
    return jsonify(
        **body,
        adsEnabled=True,
        positions=[
            {"position": n, "ad": ad.json() if ad else None} for n, ad in enumerate(ads, start=1)
        ],
    )


@bp.get("/ad-click/<reservation_id>")
def ad_click(reservation_id):
    """Log the click, then send the visitor on. The log is queued with an id made here;
    without a queue it is written directly; failing that the visitor still goes on."""
    from tasks.ads import record_click

    state, target = measurement.reservation_state(reservation_id)
    if state != "active":
        raise NotFound("No active ad has this id.")
    click = (
        measurement.new_event_id(),
        reservation_id,
        measurement.stored_country(request.headers.get("Edge-IPCountry")),
        request.headers.get("User-Agent"),
        now_iso(),
    )
    try:
        record_click.send(*click)
    except Exception:
        log.warning("click queue unavailable; writing the click directly", exc_info=True)
        try:
            measurement.record_click(*click)
        except Exception:
            log.exception("click %s of %s was not logged", click[0], reservation_id)
    return redirect(target, code=302)


@bp.post("/ad-impression/<reservation_id>")
def ad_impression(reservation_id):
    from tasks.ads import record_impression

    if measurement.is_bot(request.headers.get("User-Agent")):
        return "", 204
    state, _ = measurement.reservation_state(reservation_id)
    if state == "unknown":
        raise NotFound("No ad has this id.")
    if state != "active":
        return "", 204
    at = now_iso()
    event = (
        measurement.new_event_id(),
        reservation_id,
        at[:10],
        measurement.stored_country(request.headers.get("Edge-IPCountry")),
        at,
    )
    try:
        record_impression.send(*event)
    except Exception:
        log.warning("impression queue unavailable; counting directly", exc_info=True)
        measurement.record_impression(*event)
    return "", 202


accepts_any_body("api.ad_impression")
