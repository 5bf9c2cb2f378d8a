"""The signed-in user's own account."""

from __future__ import annotations

from flask import jsonify
from flask_login import current_user

from models.plans import plan_of
from models.referrals import referral_count
from web.api import bp
from web.api.operation import MEMBER, operation
from web.api.schemas.account import Me


def me_json(user) -> dict:
    return {
        "id": user.id,
        "name": user.name,
        "email": user.email,
        "role": user.role,
        "plan": plan_of(user.id),
        "creditBalance": user.credit_balance,
        "bonusCredit": user.bonus_credit,
        "referralCode": user.referral_code,
        "referralCount": referral_count(user.id),
        "country": user.country,
    }


@bp.get("/me")
@operation("The signed-in user's account", auth=MEMBER, responses={200: Me})
def me():
    return jsonify(me_json(current_user))
