"""Managing the signed-in member's subscription at the payment provider, and the plan
checkout left open (shown, or cancelled so another plan can be chosen)."""

from __future__ import annotations

from flask import Response, jsonify

from models.billing import abandon_plan_checkout, open_billing_portal, open_plan_checkout
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


@bp.get("/billing/checkout")
@operation(
    "The plan checkout left open, to continue or cancel",
    auth=MEMBER,
    responses={200: billing.OpenCheckoutState},
)
def plan_checkout() -> Response:
    return jsonify(billing.OpenCheckoutState.of(open_plan_checkout(member().id)).as_json())


@bp.delete("/billing/checkout")
@operation(
    "Cancel the plan checkout left open, so another plan can be chosen",
    auth=MEMBER,
    responses={204: None},
    # 409 already_paid: it was paid meanwhile (the plan is being confirmed).
    errors=(409, 502, 503),
)
def cancel_plan_checkout() -> tuple[str, int]:
    abandon_plan_checkout(member().id)
    return "", 204
