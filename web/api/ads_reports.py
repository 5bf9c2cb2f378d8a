"""Reports: the advertiser's own reservations, and the administrators' report."""

from __future__ import annotations

from flask import jsonify
from flask_login import current_user

from models.ads import checkout, reports
from web.api import bp
from web.api.admin import bp as admin_bp
from web.api.operation import ADMIN, MEMBER, operation
from web.api.schemas import account, ads


@bp.get("/ads/reservations")
@operation(
    "Own reservations with their figures and payment state",
    auth=MEMBER,
    responses={200: ads.OwnReservations},
)
def own_reservations():
    return jsonify(reservations=reports.advertiser_reservations(current_user.id))


@bp.get("/ads/reservations/<reservation_id>")
@operation(
    "One own reservation with its daily figures",
    auth=MEMBER,
    path=ads.ReservationPath,
    responses={200: ads.OwnReservationDetail},
)
def own_reservation(path):
    return jsonify(reports.advertiser_reservation(current_user.id, path.reservation_id))


@bp.post("/ads/reservations/<reservation_id>/checkout")
@operation(
    auth=MEMBER,
    path=ads.ReservationPath,
    responses={200: account.CheckoutUrl},
    errors=(409, 502, 503),
)
def resume_checkout(path):
    """Back to the unpaid reservation's checkout while its hold lasts."""
    return jsonify(checkoutUrl=checkout.resume_checkout(current_user.id, path.reservation_id))


@admin_bp.get("/ads/report")
@operation(
    "Impressions, clicks and CTR per reservation over a date range",
    auth=ADMIN,
    query=ads.ReportParams,
    responses={200: ads.Report},
)
def admin_report(query):
    start, end = reports.parse_range(query.start_date, query.end_date)
    return jsonify(reports.admin_report(start, end))
