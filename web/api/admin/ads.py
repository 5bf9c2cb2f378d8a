"""Administration of direct ads: review, stop, timeline, report, revenue."""

from __future__ import annotations

from flask import jsonify
from werkzeug.wrappers import Response as HttpResponse

from models.ads import admin, reports, reservations
from web.api.admin import bp
from web.api.operation import ADMIN, operation
from web.api.schemas import ads
from web.api.schemas.common import api_field_names
from web.urls import AD_PAGES


@bp.get("/ads/reservations")
@operation(
    "Every reservation, newest first, with its advertiser and figures",
    auth=ADMIN,
    query=ads.AdminListParams,
    responses={200: ads.AdminReservations},
)
def list_ad_reservations(query: ads.AdminListParams) -> HttpResponse:
    with api_field_names():
        rows = admin.list_reservations(status=query.status, slot=query.slot, country=query.country)
    listed = ads.AdminReservations(reservations=[ads.AdminReservation.of(r) for r in rows])
    return jsonify(listed.as_json())


@bp.post("/ads/reservations/<reservation_id>/approve")
@operation(
    "Approve a paid reservation: it goes live",
    auth=ADMIN,
    path=ads.ReservationPath,
    responses={200: ads.Approved},
    errors=(409,),
)
def approve_ad_reservation(path: ads.ReservationPath) -> HttpResponse:
    approved = reservations.approve(path.reservation_id)
    return jsonify(ads.Approved(reservation=ads.Reservation.of(approved)).as_json())


@bp.post("/ads/reservations/<reservation_id>/stop")
@operation(
    "Stop a reservation, with the reason sent to the advertiser",
    auth=ADMIN,
    path=ads.ReservationPath,
    body=ads.StopBody,
    responses={200: ads.Stopped},
    errors=(409, 502, 503),
)
def stop_ad_reservation(path: ads.ReservationPath, body: ads.StopBody) -> HttpResponse:
    with api_field_names():
        stopped, notice = reservations.stop(path.reservation_id, body.reason, AD_PAGES)
    answer = ads.Stopped(reservation=ads.Reservation.of(stopped), notice=ads.StopNotice.of(notice))
    return jsonify(answer.as_json())


@bp.get("/ads/reservations/<reservation_id>/stop-notice")
@operation(auth=ADMIN, path=ads.ReservationPath, responses={200: ads.StopNoticeAnswer})
def ad_stop_notice(path: ads.ReservationPath) -> HttpResponse:
    """The notice made when the reservation was stopped, to read, copy or mail again."""
    notice = reservations.stop_notice(path.reservation_id)
    return jsonify(ads.StopNoticeAnswer(notice=ads.StopNotice.of(notice)).as_json())


@bp.get("/ads/timeline")
@operation(
    "Who holds each slot, position and country, month by month",
    auth=ADMIN,
    responses={200: ads.Timeline},
)
def ad_timeline() -> HttpResponse:
    return jsonify(ads.Timeline.of(admin.timeline()).as_json())


@bp.get("/ads/report")
@operation(
    "Impressions, clicks and CTR per reservation over a date range",
    auth=ADMIN,
    query=ads.ReportParams,
    responses={200: ads.Report},
)
def admin_report(query: ads.ReportParams) -> HttpResponse:
    with api_field_names():
        start, end = reports.parse_range(query.start_date, query.end_date)
    return jsonify(ads.Report.of(reports.admin_report(start, end)).as_json())


@bp.get("/revenue")
@operation(
    "Ad revenue received, by month, country and currency",
    auth=ADMIN,
    responses={200: ads.Revenue},
    errors=(502, 503),
)
def ad_revenue() -> HttpResponse:
    return jsonify(ads.Revenue.of(admin.revenue()).as_json())
