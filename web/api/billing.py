"""Managing the signed-in member's subscription at the payment provider."""

from __future__ import annotations

from flask import Response, jsonify

from models.billing import open_billing_portal
from models.settings import get_settings
from web.api.blueprint import bp
from web.api.operation import MEMBER, operation
from web.api.schemas import billing
from web.visitor import member


@bp.post("/billing/portal")
@operation(
    "Open the billing portal to change, cancel or resume the subscription",
    auth=MEMBER,
    body=billing.PortalRequest,
    body_required=False,
    responses={200: billing.PortalUrl},
    # 409 no_subscription: nothing to manage yet (subscribe with /billing/checkout).
    errors=(409, 502, 503),
)
def billing_portal(body: billing.PortalRequest) -> Response:
    url = open_billing_portal(member().id, get_settings().public_base_url)
    return jsonify(billing.PortalUrl(portal_url=url).as_json())
