"""Administration of direct ads: review, stop, timeline, reports, revenue."""

from __future__ import annotations

from flask import jsonify, request

from models.ads import admin, reservations
from web.api.admin import bp
from web.body import json_object


@bp.get("/ads/reservations")
def list_ad_reservations():
    args = request.args
    rows = admin.list_reservations(
        status=args.get("status") or None,
        slot=args.get("slot") or None,
        country=args.get("country") or None,
    )
    return jsonify(reservations=rows)


@bp.post("/ads/reservations/<reservation_id>/approve")
def approve_ad_reservation(reservation_id):
    approved = reservations.approve(reservation_id)
    return jsonify(reservation=reservations.reservation_json(approved))


@bp.post("/ads/reservations/<reservation_id>/stop")
def stop_ad_reservation(reservation_id):
    body = json_object() if request.content_length else {}
    stopped, notice = reservations.stop(reservation_id, body.get("reason"))
    return jsonify(reservation=reservations.reservation_json(stopped), notice=notice)


@bp.get("/ads/reservations/<reservation_id>/stop-notice")
def ad_stop_notice(reservation_id):
    """The notice made when the reservation was stopped, to read, copy or mail again."""
    return jsonify(notice=reservations.stop_notice(reservation_id))


@bp.get("/ads/timeline")
def ad_timeline():
    return jsonify(admin.timeline())


@bp.get("/revenue")
def ad_revenue():
    return jsonify(admin.revenue())
