"""Credits, plans and referrals of the signed-in user."""

from __future__ import annotations

from flask import Response, jsonify

from models.billing import start_subscription_checkout
from models.credits import unlock_video
from models.referrals import claim_referral, referral_summary
from models.settings import get_settings
from web.api.blueprint import bp
from web.api.operation import MEMBER, operation
from web.api.schemas import account
from web.visitor import member


@bp.post("/videos/<video_id>/unlock")
@operation(
    "Unlock a video's full subtitles with credits",
    auth=MEMBER,
    path=account.VideoPath,
    responses={200: account.Unlocked},
    errors=(402, 409),
    idempotent=True,
)
def unlock(path: account.VideoPath) -> Response:
    unlocked = unlock_video(member().id, path.video_id)
    return jsonify(
        videoId=unlocked.video_id,
        credits=unlocked.credits,
        expiresAt=unlocked.expires_at,
        creditBalance=unlocked.credit_balance,
        bonusCredit=unlocked.bonus_credit,
    )


@bp.post("/billing/checkout")
@operation(
    "Start a plan subscription checkout",
    auth=MEMBER,
    body=account.PlanCheckout,
    responses={200: account.CheckoutUrl},
    errors=(409, 502, 503),
)
def billing_checkout(body: account.PlanCheckout) -> Response:
    url = start_subscription_checkout(member().id, body.plan, get_settings().public_base_url)
    return jsonify(checkoutUrl=url)


@bp.get("/referrals")
@operation("Own referral code and count", auth=MEMBER, responses={200: account.ReferralSummary})
def referrals() -> Response:
    return jsonify(account.ReferralSummary.of(referral_summary(member())).as_json())


@bp.post("/referrals/claim")
@operation(
    "Claim a friend's referral code",
    auth=MEMBER,
    body=account.ReferralClaim,
    responses={200: account.ReferralClaimed},
    errors=(404, 409),
)
def claim(body: account.ReferralClaim) -> Response:
    return jsonify(referredBy=claim_referral(member().id, body.code))
