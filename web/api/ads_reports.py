"""The advertiser's own reservations: figures, payment state, back to the checkout."""

from __future__ import annotations

from flask import jsonify
from werkzeug.wrappers import Response as HttpResponse

from models.ads import checkout, reports, reservations
from web.api.blueprint import bp
from web.api.operation import MEMBER, operation
from web.api.schemas import account, ads
from web.visitor import member


@bp.get("/ads/reservations")
@operation(
    "Own reservations with their figures and payment state",
    auth=MEMBER,
    responses={200: ads.OwnReservations},
)
def own_reservations() -> HttpResponse:
    own = [ads.OwnReservation.of(r) for r in reports.advertiser_reservations(member().id)]
    return jsonify(ads.OwnReservations(reservations=own).as_json())


@bp.get("/ads/reservations/<reservation_id>")
@operation(
    "One own reservation with its daily figures",
    auth=MEMBER,
    path=ads.ReservationPath,
    responses={200: ads.OwnReservationDetail},
)
def own_reservation(path: ads.ReservationPath) -> HttpResponse:
    detail = reports.advertiser_reservation(member().id, path.reservation_id)
    return jsonify(ads.OwnReservationDetail.of(detail).as_json())


@bp.post("/ads/reservations/<reservation_id>/checkout")
@operation(
    auth=MEMBER,
    path=ads.ReservationPath,
    responses={200: account.CheckoutUrl},
    errors=(409, 502, 503),
)
def resume_checkout(path: ads.ReservationPath) -> HttpResponse:
    """Back to the unpaid reservation's checkout while its hold lasts."""
    return jsonify(checkoutUrl=checkout.resume_checkout(member().id, path.reservation_id))


@bp.delete("/ads/reservations/<reservation_id>/checkout")
@operation(
    auth=MEMBER,
    path=ads.ReservationPath,
    responses={204: None},
    errors=(404, 409),
)
def cancel_reservation_checkout(path: ads.ReservationPath) -> tuple[str, int]:
    """Cancel the own unpaid reservation's checkout and release its position (the
    purchase form's "cancel it and start over"); 409 already_paid once it was paid."""
    reservations.abandon_hold(member().id, path.reservation_id)
    return "", 204
