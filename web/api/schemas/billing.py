"""The signed-in member's subscription management: the billing portal, and the plan
checkout left open (continue or cancel it)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from models.billing import OpenPlanCheckout
from web.api.schemas.common import Body, Response, Timestamp


class PortalRequest(Body):
    """No fields: the portal is the member's own (an empty object, or no body)."""


class PortalUrl(Response):
    portal_url: str = Field(
        description="The payment provider's billing portal to send the member to: plan "
        "change between plus and pro, cancel at period end, resume, payment method"
    )


class OpenCheckout(Response):
    plan: Literal["plus", "pro"]
    expires_at: Timestamp = Field(description="Until when it can be paid")
    url: str = Field(description="The payment provider's page to continue it")


class OpenCheckoutState(Response):
    open_checkout: OpenCheckout | None = Field(
        description="The member's plan checkout still open at the provider, or null. "
        "While it is open no other plan can be chosen: continue it, or cancel it with "
        "DELETE /api/billing/checkout"
    )

    @classmethod
    def of(cls, found: OpenPlanCheckout | None) -> OpenCheckoutState:
        if found is None:
            return cls(open_checkout=None)
        shown = {"plan": found.plan, "expires_at": found.expires_at, "url": found.url}
        return cls(open_checkout=OpenCheckout.model_validate(shown))
