"""The advertiser's own pages: the purchase form, the list of reservations, one
reservation's report (with where its payment stands), and the stored ad images."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

from flask import abort, redirect, render_template, request, send_from_directory
from werkzeug.wrappers import Response as HttpResponse

from models.ads import SLOT_IDS, slot_names
from models.ads.admin import listed_reservation
from models.ads.checkout import open_holds
from models.ads.images import storage
from models.ads.months import add_months, month_of
from models.ads.profiles import BUSINESS_CATEGORIES, list_profiles
from models.ads.reports import advertiser_reservation, advertiser_reservations, any_reservation
from models.ads.reservations import kept_stop_notice, release_cancelled_checkout, unpaid_holds
from models.clock import parse_iso, utcnow
from models.receipts import ad_receipt_url
from models.settings import get_settings
from web.api.operation import parse_path
from web.api.schemas.ad_admin import AdminReservation
from web.api.schemas.ads import OwnReservation, OwnReservationDetail, ReservationPath
from web.auth import login_required
from web.charts import daily_lines
from web.pages.blueprint import bp
from web.visitor import member


@bp.get("/ads/new")
@login_required
def new_ad() -> str:
    """The purchase form; `cancelled=<reservation id>` when the buyer comes back from a
    cancelled checkout, whose hold is released before the form asks for a position.
    Back by the browser's button instead, the buyer's own holds still awaiting payment
    are listed, each to continue or to cancel (static/ad-order.js)."""
    cancelled = request.args.get("cancelled") or ""
    if UUID_FORM.fullmatch(cancelled):
        release_cancelled_checkout(member().id, cancelled)
    names = slot_names()
    settings = get_settings()
    return render_template(
        "ads/new.html",
        # At the limit of unpaid holds the form says so before anything is typed.
        holds_full=unpaid_holds(member().id) >= settings.ad_unpaid_holds_per_member,
        holds_limit=settings.ad_unpaid_holds_per_member,
        checkout_minutes=settings.ad_checkout_ttl_minutes,
        slots=[SimpleNamespace(id=s, display_name=names.get(s, s)) for s in SLOT_IDS],
        profiles=list_profiles(member().id),
        categories=BUSINESS_CATEGORIES,
        next_month=add_months(month_of(utcnow()), 1),
        cancelled=bool(request.args.get("cancelled")),
        open_holds=open_holds(member().id),
    )


UUID_FORM = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def minutes_left(expires_at: str) -> int:
    """Whole minutes until an ISO time, rounded up (a checkout's time left)."""
    return max(0, math.ceil((parse_iso(expires_at) - utcnow()).total_seconds() / 60))


@bp.get("/ads")
@login_required
def own_ads() -> str:
    own = advertiser_reservations(member().id)
    return render_template(
        "ads/list.html",
        minutes_left=minutes_left,
        reservations=[OwnReservation.of(r).as_json() for r in own],
    )


@bp.get("/ads/<reservation_id>")
@login_required
def own_ad(reservation_id: str) -> str:
    """One reservation's report for its advertiser; an administrator opens anyone's, with
    the buyer and the review's actions (approve, stop) beside it."""
    reservation_id = parse_path(ReservationPath, {"reservation_id": reservation_id}).reservation_id
    user = member()
    if user.is_admin:
        detail = any_reservation(reservation_id)
        review = AdminReservation.of(listed_reservation(reservation_id)).as_json()
    else:
        detail = advertiser_reservation(user.id, reservation_id)
        review = None
    own = detail.reservation.user_id == user.id
    report = OwnReservationDetail.of(detail).as_json()
    notice = kept_stop_notice(reservation_id) if report["status"] == "stopped" else None
    return render_template(
        "ads/detail.html",
        r=report,
        minutes_left=minutes_left,
        chart=daily_lines(report["daily"], until=utcnow().date()),
        paid=bool(request.args.get("paid")),
        notice=notice,
        review=review,
        support_email=get_settings().support_email,
        # Paying and the receipt are the buyer's own: an administrator reviewing someone
        # else's reservation sees neither.
        own=own,
        receipt=own and report["paymentState"] == "paid",
    )


@bp.get("/ads/<reservation_id>/receipt")
@login_required
def own_ad_receipt(reservation_id: str) -> HttpResponse:
    """To the provider's page of the paid reservation's receipt (a qualified invoice),
    asked for only when followed, not on every render of the report."""
    reservation_id = parse_path(ReservationPath, {"reservation_id": reservation_id}).reservation_id
    return redirect(ad_receipt_url(member().id, str(reservation_id)), code=302)


@bp.get("/uploads/<name>")
def uploaded(name: str) -> HttpResponse:
    """Ad images, as stored (re-encoded) by the upload."""
    if not storage().exists(name) or name.startswith("."):
        abort(404)
    response = send_from_directory(storage().path(name).parent, name, max_age=86400)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
