"""The administration API's blueprint, under /api/admin and for the `admin` role only;
web/api/admin's modules put their routes on it."""

from __future__ import annotations

from flask import Blueprint

from web.auth import require_admin_api

bp = Blueprint("api_admin", __name__, url_prefix="/admin")
bp.before_request(require_admin_api)
