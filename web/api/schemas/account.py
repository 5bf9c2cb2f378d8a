"""The signed-in user: account, credits and unlocks, plans, referrals, the dev login."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from models import referrals
from models.problems import Problem
from web.api.schemas.common import Body, PathParams, PlatformId, Response, Timestamp, text


class Me(Response):
    id: str
    name: str
    email: str
    role: Literal["member", "admin"]
    plan: Literal["free", "plus", "pro"]
    credit_balance: int
    bonus_credit: int
    referral_code: str | None
    referral_count: int
    country: str | None = Field(description="ISO 3166-1 alpha-2, once known")


class VideoPath(PathParams):
    video_id: PlatformId


class Unlocked(Response):
    video_id: str
    credits: int = Field(description="Credits this unlock spent (0 when already unlocked)")
    expires_at: Timestamp
    credit_balance: int
    bonus_credit: int


class PlanCheckout(Body):
    plan: Literal["plus", "pro"]


class CheckoutUrl(Response):
    checkout_url: str = Field(description="The payment provider's page to send the user to")


class ReferralSummary(Response):
    code: str | None
    referred_count: int

    @classmethod
    def of(cls, summary: referrals.ReferralSummary) -> ReferralSummary:
        return cls(code=summary.code, referred_count=summary.referred_count)


class ReferralClaim(Body):
    code: Annotated[str, text(64, min_length=1)]


class ReferralClaimed(Response):
    referred_by: str = Field(description="The id of the user whose code was claimed")


class DevLogin(Body):
    email: Annotated[str, text(254, min_length=1)]
    name: Annotated[str, text(100)] = ""

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        local, _, domain = value.rpartition("@")
        if not local or "." not in domain or any(c.isspace() for c in value):
            raise ValueError(Problem("not_an_email"))
        return value
