"""Receipts (qualified invoices, 適格請求書; docs/payments.md, Receipts): the signed-in
member's, as the payment provider hosts them."""

from __future__ import annotations

from flask import jsonify
from werkzeug.wrappers import Response as HttpResponse

from models.receipts import ad_receipt_url, plan_receipts
from web.api.blueprint import bp
from web.api.operation import MEMBER, operation
from web.api.schemas import ads, receipts
from web.visitor import member


@bp.get("/ads/reservations/<reservation_id>/receipt")
@operation(
    "The receipt (qualified invoice) of an own paid reservation",
    auth=MEMBER,
    path=ads.ReservationPath,
    responses={200: receipts.ReceiptUrl},
    errors=(404, 502, 503),
    error_descriptions={
        404: "`not_found`: no reservation of the caller's has this id, it is not paid, or "
        "its invoice is not issued yet",
    },
)
def ad_receipt(path: ads.ReservationPath) -> HttpResponse:
    url = ad_receipt_url(member().id, str(path.reservation_id))
    return jsonify(receipts.ReceiptUrl(url=url).as_json())


@bp.get("/billing/receipts")
@operation(
    "The plan's receipts (qualified invoices), newest first",
    auth=MEMBER,
    responses={200: receipts.Receipts},
    errors=(502, 503),
)
def billing_receipts() -> HttpResponse:
    found = [receipts.Receipt.of(r) for r in plan_receipts(member().id)]
    return jsonify(receipts.Receipts(receipts=found).as_json())
