"""Administration of direct ads: review, stop, timeline, report, revenue."""

from __future__ import annotations

from flask import jsonify
from werkzeug.wrappers import Response as HttpResponse

from models.ads import admin, reports, reservations
from web.api.admin.blueprint import bp
from web.api.operation import ADMIN, operation
from web.api.schemas import ad_admin, ads
from web.api.schemas.common import api_field_names
from web.urls import AD_PAGES


@bp.get("/ads/reservations")
@operation(
    "Every reservation, newest first, with its advertiser and figures",
    auth=ADMIN,
    query=ad_admin.AdminListParams,
    responses={200: ad_admin.AdminReservations},
)
def list_ad_reservations(query: ad_admin.AdminListParams) -> HttpResponse:
    with api_field_names():
        rows = admin.list_reservations(status=query.status, slot=query.slot, country=query.country)
    listed = ad_admin.AdminReservations(
        reservations=[ad_admin.AdminReservation.of(r) for r in rows]
    )
    return jsonify(listed.as_json())


@bp.post("/ads/reservations/<reservation_id>/approve")
@operation(
    "Approve a paid reservation: it goes live",
    auth=ADMIN,
    path=ads.ReservationPath,
    responses={200: ad_admin.Approved},
    errors=(409,),
)
def approve_ad_reservation(path: ads.ReservationPath) -> HttpResponse:
    approved = reservations.approve(path.reservation_id)
    return jsonify(ad_admin.Approved(reservation=ads.Reservation.of(approved)).as_json())


@bp.post("/ads/reservations/<reservation_id>/stop")
@operation(
    "Stop a reservation, with the reason sent to the advertiser",
    auth=ADMIN,
    path=ads.ReservationPath,
    body=ad_admin.StopBody,
    responses={200: ad_admin.Stopped},
    errors=(409, 502, 503),
)
def stop_ad_reservation(path: ads.ReservationPath, body: ad_admin.StopBody) -> HttpResponse:
    with api_field_names():
        stopped, notice = reservations.stop(path.reservation_id, body.reason, AD_PAGES)
    answer = ad_admin.Stopped(
        reservation=ads.Reservation.of(stopped), notice=ad_admin.StopNotice.of(notice)
    )
    return jsonify(answer.as_json())


@bp.get("/ads/reservations/<reservation_id>/stop-notice")
@operation(auth=ADMIN, path=ads.ReservationPath, responses={200: ad_admin.StopNoticeAnswer})
def ad_stop_notice(path: ads.ReservationPath) -> HttpResponse:
    """The notice made when the reservation was stopped, to read, copy or mail again."""
    notice = reservations.stop_notice(path.reservation_id)
    return jsonify(ad_admin.StopNoticeAnswer(notice=ad_admin.StopNotice.of(notice)).as_json())


@bp.get("/ads/timeline")
@operation(
    "Who holds each slot, position and country, month by month",
    auth=ADMIN,
    responses={200: ad_admin.Timeline},
)
def ad_timeline() -> HttpResponse:
    return jsonify(ad_admin.Timeline.of(admin.timeline()).as_json())


@bp.get("/ads/report")
@operation(
    "Impressions, clicks and CTR per reservation over a date range",
    auth=ADMIN,
    query=ad_admin.ReportParams,
    responses={200: ad_admin.Report},
)
def admin_report(query: ad_admin.ReportParams) -> HttpResponse:
    with api_field_names():
        start, end = reports.parse_range(query.start_date, query.end_date)
    return jsonify(ad_admin.Report.of(reports.admin_report(start, end)).as_json())


@bp.get("/revenue")
@operation(
    "Ad revenue received, by month, country and currency",
    auth=ADMIN,
    responses={200: ad_admin.Revenue},
    errors=(502, 503),
)
def ad_revenue() -> HttpResponse:
    return jsonify(ad_admin.Revenue.of(admin.revenue()).as_json())
