"""The signed-in member's subscription management: the billing portal."""

from __future__ import annotations

from pydantic import Field

from web.api.schemas.common import Body, Response


class PortalRequest(Body):
    """No fields: the portal is the member's own (an empty object, or no body)."""


class PortalUrl(Response):
    portal_url: str = Field(
        description="The payment provider's billing portal to send the member to: plan "
        "change between plus and pro, cancel at period end, resume, payment method"
    )
