"""Administration of direct ads: review, stop, timeline, reports, revenue."""

from __future__ import annotations

from flask import jsonify

from models.ads import admin, reservations
from web.api.admin import bp
from web.api.operation import ADMIN, operation
from web.api.schemas import ads


@bp.get("/ads/reservations")
@operation(
    "Every reservation, newest first, with its advertiser and figures",
    auth=ADMIN,
    query=ads.AdminListParams,
    responses={200: ads.AdminReservations},
)
def list_ad_reservations(query):
    rows = admin.list_reservations(status=query.status, slot=query.slot, country=query.country)
    return jsonify(reservations=rows)


@bp.post("/ads/reservations/<reservation_id>/approve")
@operation(
    "Approve a paid reservation: it goes live",
    auth=ADMIN,
    path=ads.ReservationPath,
    responses={200: ads.Approved},
    errors=(409,),
)
def approve_ad_reservation(path):
    approved = reservations.approve(path.reservation_id)
    return jsonify(reservation=reservations.reservation_json(approved))


@bp.post("/ads/reservations/<reservation_id>/stop")
@operation(
    "Stop a reservation, with the reason sent to the advertiser",
    auth=ADMIN,
    path=ads.ReservationPath,
    body=ads.StopBody,
    responses={200: ads.Stopped},
    errors=(409, 502, 503),
)
def stop_ad_reservation(path, body):
    stopped, notice = reservations.stop(path.reservation_id, body.reason)
    return jsonify(reservation=reservations.reservation_json(stopped), notice=notice)


@bp.get("/ads/reservations/<reservation_id>/stop-notice")
@operation(auth=ADMIN, path=ads.ReservationPath, responses={200: ads.StopNoticeAnswer})
def ad_stop_notice(path):
    """The notice made when the reservation was stopped, to read, copy or mail again."""
    return jsonify(notice=reservations.stop_notice(path.reservation_id))


@bp.get("/ads/timeline")
@operation(
    "Who holds each slot, position and country, month by month",
    auth=ADMIN,
    responses={200: ads.Timeline},
)
def ad_timeline():
    return jsonify(admin.timeline())


@bp.get("/revenue")
@operation(
    "Ad revenue received, by month, country and currency",
    auth=ADMIN,
    responses={200: ads.Revenue},
    errors=(502, 503),
)
def ad_revenue():
    return jsonify(admin.revenue())
