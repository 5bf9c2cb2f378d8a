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


def init_app(app):
    app.register_blueprint(bp)
