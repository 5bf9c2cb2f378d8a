"""Credits, plans and referrals of the signed-in user."""

from __future__ import annotations

from flask import jsonify
from flask_login import current_user, login_required

from models.billing import start_subscription_checkout
from models.credits import unlock_video
from models.errors import ValidationError
from models.referrals import claim_referral, referral_summary
from models.settings import get_settings
from web.api import bp
from web.body import json_object


@bp.post("/videos/<video_id>/unlock")
@login_required
def unlock(video_id):
    unlocked = unlock_video(current_user.id, video_id)
    return jsonify(
        videoId=unlocked.video_id,
        credits=unlocked.credits,
        expiresAt=unlocked.expires_at,
        creditBalance=unlocked.credit_balance,
        bonusCredit=unlocked.bonus_credit,
    )


@bp.post("/billing/checkout")
@login_required
def billing_checkout():
    plan = json_object().get("plan")
    if not isinstance(plan, str):
        raise ValidationError(fields={"plan": "must be plus or pro"})
    url = start_subscription_checkout(current_user.id, plan, get_settings().public_base_url)
    return jsonify(checkoutUrl=url)


@bp.get("/referrals")
@login_required
def referrals():
    return jsonify(referral_summary(current_user))


@bp.post("/referrals/claim")
@login_required
def claim():
    code = json_object().get("code")
    if not isinstance(code, str) or not code.strip() or len(code) > 64:
        raise ValidationError(fields={"code": "required"})
    return jsonify(referredBy=claim_referral(current_user.id, code.strip()))
