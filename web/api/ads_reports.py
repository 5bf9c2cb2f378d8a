"""Reports: the advertiser's own reservations, and the administrators' report."""

from __future__ import annotations

from flask import jsonify, request
from flask_login import current_user, login_required

from models.ads import checkout, reports
from web.api import bp
from web.api.admin import bp as admin_bp


@bp.get("/ads/reservations")
@login_required
def own_reservations():
    return jsonify(reservations=reports.advertiser_reservations(current_user.id))


@bp.get("/ads/reservations/<reservation_id>")
@login_required
def own_reservation(reservation_id):
    return jsonify(reports.advertiser_reservation(current_user.id, reservation_id))


@bp.post("/ads/reservations/<reservation_id>/checkout")
@login_required
def resume_checkout(reservation_id):
    """Back to the unpaid reservation's checkout while its hold lasts."""
    return jsonify(checkoutUrl=checkout.resume_checkout(current_user.id, reservation_id))


@admin_bp.get("/ads/report")
def admin_report():
    start, end = reports.parse_range(request.args.get("startDate"), request.args.get("endDate"))
    return jsonify(reports.admin_report(start, end))
