"""Administration pages under /admin: role `admin` only. They show what the admin API
answers (the same response models), as pages."""

from __future__ import annotations

import time

from dramatiq.brokers.redis import RedisBroker
from flask import Blueprint, Flask, render_template

from models import index_check
from models.ads import SLOT_IDS, admin, counting, reports
from models.billing import duplicate_subscriptions_for_operator
from models.errors import ValidationError
from models.ingest_status import ingest_status
from models.tables import User
from web.api.operation import parse_query
from web.api.schemas import ad_admin, system
from web.auth import require_admin_page
from web.charts import daily_lines, monthly_revenue
from web.translation import lazy_gettext
from workers import deadletters
from workers.broker import get_broker

bp = Blueprint("admin", __name__, url_prefix="/admin")
bp.before_request(require_admin_page)


@bp.get("/")
def index() -> str:
    broker = get_broker()  # set up by create_app, with every actor and queue

    queues = deadletters.status(broker) if isinstance(broker, RedisBroker) else []
    check = index_check.last_check()
    duplicates = duplicate_subscriptions_for_operator()
    members = sorted({d.reference_id for d in duplicates})
    found = User.select(User.id, User.email).where(User.id.in_(members))
    emails = {user.id: user.email for user in found}
    return render_template(
        "admin/index.html",
        ingestion=ingest_status(),
        now_ts=time.time(),
        failure_labels=FAILURE_LABELS,
        status_labels=VIDEO_STATUS_LABELS,
        queues=queues,
        index_check=system.IndexCheck.of(check).as_json() if check else None,
        duplicates=duplicates,
        emails=emails,
    )


# How a subtitle fetch failed (models.platform.base.FAILURE_KINDS), as the panel says it.
FAILURE_LABELS = {
    "ip_blocked": lazy_gettext("Address blocked"),
    "request_blocked": lazy_gettext("Refused as a bot"),
    "network": lazy_gettext("Network or proxy error"),
    "po_token_required": lazy_gettext("Proof of origin asked for"),
    "transcripts_disabled": lazy_gettext("Subtitles turned off"),
    "age_restricted": lazy_gettext("Age restricted"),
    "video_unavailable": lazy_gettext("Video gone"),
    "broken": lazy_gettext("Other failure"),
}
VIDEO_STATUS_LABELS = {
    "pending": lazy_gettext("Waiting to be fetched"),
    "completed": lazy_gettext("Subtitles fetched"),
    "unavailable": lazy_gettext("No subtitles"),
    "failed": lazy_gettext("Failed"),
    "deleted": lazy_gettext("Deleted"),
}


@bp.get("/ads", endpoint="ads")
def ads_page() -> str:
    filters = parse_query(ad_admin.AdminListParams, known_only=True).model_dump()
    listed = [ad_admin.AdminReservation.of(r).as_json() for r in admin.list_reservations(**filters)]
    return render_template(
        "admin/ads.html",
        reservations=listed,
        timeline=ad_admin.Timeline.of(admin.timeline()).as_json(),
        filters=filters,
        statuses=admin.STATUSES,
        slots=SLOT_IDS,
    )


@bp.get("/ads/report")
def ads_report() -> str | tuple[str, int]:
    try:
        query = parse_query(ad_admin.ReportParams, known_only=True)
        start, end = reports.parse_range(query.start_date, query.end_date)
    except ValidationError as error:
        return render_template(
            "error.html", status=400, message="; ".join(error.fields.values())
        ), 400
    report = ad_admin.Report.of(reports.admin_report(start, end)).as_json()
    return render_template(
        "admin/report.html",
        report=report,
        chart=daily_lines(report["dailyTrend"]),
        reason_labels=INVALID_REASON_LABELS,
    )


# The reasons a click is invalid traffic (models/ads/counting.py), as the report says them.
INVALID_REASON_LABELS = {
    counting.MISSING_TOKEN: lazy_gettext("No view token"),
    counting.BAD_TOKEN: lazy_gettext("Forged or another ad's token"),
    counting.EXPIRED_TOKEN: lazy_gettext("Expired token"),
    counting.UNVERIFIED: lazy_gettext("No genuine token (logged before reasons were kept)"),
}


@bp.get("/revenue")
def revenue() -> str:
    revenue = ad_admin.Revenue.of(admin.revenue()).as_json()
    return render_template(
        "admin/revenue.html", revenue=revenue, chart=monthly_revenue(revenue["adRevenue"])
    )


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
