"""The signed-in user's own account."""

from __future__ import annotations

from typing import TypedDict

from flask import Response, jsonify

from models.plans import plan_of
from models.referrals import referral_count
from models.tables import User
from web.api.blueprint import bp
from web.api.operation import MEMBER, operation
from web.api.schemas.account import Me
from web.visitor import member


class MeJson(TypedDict):
    """The account as GET /api/me answers it (the Me model) and the dev login too."""

    id: str
    name: str
    email: str
    role: str
    plan: str
    creditBalance: int
    bonusCredit: int
    referralCode: str | None
    referralCount: int
    country: str | None


def me_json(user: User) -> MeJson:
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
def me() -> Response:
    return jsonify(me_json(member()))
