"""Managing the signed-in member's subscription at the payment provider."""

from __future__ import annotations

from flask import jsonify
from flask_login import current_user

from models.billing import open_billing_portal
from models.settings import get_settings
from web.api import bp
from web.api.operation import MEMBER, operation
from web.api.schemas import billing


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
def billing_portal(body):
    url = open_billing_portal(current_user.id, get_settings().public_base_url)
    return jsonify(billing.PortalUrl(portal_url=url).as_json())
