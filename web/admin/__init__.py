"""Administration pages under /admin: role `admin` only."""

from __future__ import annotations

from flask import Blueprint, render_template

from web.auth import require_admin_page

bp = Blueprint("admin", __name__, url_prefix="/admin")
bp.before_request(require_admin_page)


@bp.get("/")
def index():
    import tasks  # noqa: F401  (declares every queue on the broker)
    from workers import deadletters
    from workers.broker import broker

    queues = deadletters.status(broker) if hasattr(broker, "client") else []
    return render_template("admin/index.html", queues=queues)


@bp.get("/ads")
def ads():
    from models.ads import SLOT_IDS
    from models.ads import admin as ads_admin
    from web.api.operation import parse_query
    from web.api.schemas.ads import AdminListParams

    filters = parse_query(AdminListParams, known_only=True).model_dump()
    return render_template(
        "admin/ads.html",
        reservations=ads_admin.list_reservations(**filters),
        timeline=ads_admin.timeline(),
        filters=filters,
        statuses=ads_admin.STATUSES,
        slots=SLOT_IDS,
    )


@bp.get("/ads/report")
def ads_report():
    from models.ads import reports
    from models.errors import ValidationError
    from web.api.operation import parse_query
    from web.api.schemas.ads import ReportParams
    from web.charts import daily_lines

    try:
        query = parse_query(ReportParams, known_only=True)
        start, end = reports.parse_range(query.start_date, query.end_date)
    except ValidationError as error:
        return render_template(
            "error.html", status=400, message="; ".join(error.fields.values())
        ), 400
    report = reports.admin_report(start, end)
    return render_template(
        "admin/report.html", report=report, chart=daily_lines(report["dailyTrend"])
    )


@bp.get("/revenue")
def revenue():
    from models.ads import admin as ads_admin

    return render_template("admin/revenue.html", revenue=ads_admin.revenue())


def init_app(app):
    app.register_blueprint(bp)
