"""HTML pages for people: the search box and the account page."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask_login import current_user, login_required

from models.plans import PLAN_LIMITS, plan_of, referral_count

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    return render_template("index.html")


@bp.get("/account")
@login_required
def account():
    plan = plan_of(current_user.id)
    return render_template(
        "account.html",
        user=current_user,
        plan=plan,
        plan_limit=PLAN_LIMITS[plan],
        referral_count=referral_count(current_user.id),
    )


def init_app(app):
    app.register_blueprint(bp)
