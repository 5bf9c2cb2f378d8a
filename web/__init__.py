"""The web front: an app factory that wires configuration, database, sign-in and blueprints."""

from __future__ import annotations

import logging
from datetime import timedelta

from flask import Flask, g, request
from flask_login import current_user
from flask_wtf.csrf import CSRFProtect

from models.countries import backfill_user_country
from models.db import db, init_db
from models.settings import Settings, load_settings, use_settings

csrf = CSRFProtect()
log = logging.getLogger(__name__)

# The largest body any endpoint takes (an ad image is at most 500 KB).
MAX_BODY_BYTES = 2 * 1024 * 1024


def create_app(settings: Settings | None = None) -> Flask:
    settings = use_settings(settings or load_settings())
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=settings.secret_key,
        SESSION_COOKIE_NAME="subsearch_session",
        SESSION_COOKIE_SECURE=settings.is_production,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(days=settings.session_days),
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        WTF_CSRF_TIME_LIMIT=None,  # the token lives as long as the session
        JSON_AS_ASCII=False,
    )
    app.json.ensure_ascii = False
    init_db(settings.database_url)
    _connection_per_request(app)

    import tasks  # noqa: F401  (the broker, before any view sends a message)
    from web import admin, api, auth, errors, pages

    errors.init_app(app)
    auth.init_app(app)
    api.init_app(app)
    pages.init_app(app)
    admin.init_app(app)
    csrf.init_app(app)
    # JSON endpoints take only application/json bodies, which a cross-site form
    # cannot send, and the cookie is SameSite=Lax; HTML forms carry a token.
    for name, blueprint in app.blueprints.items():
        if name == "api" or name.startswith("api."):
            csrf.exempt(blueprint)
    if "dev_login" in app.view_functions:
        csrf.exempt(app.view_functions["dev_login"])
    if settings.payment_backend == "local":
        from web import local_payments

        local_payments.init_app(app, csrf)
    app.before_request(_backfill_country)
    return app


def _connection_per_request(app):
    @app.before_request
    def _open():
        g._db_opened = db.connect(reuse_if_open=True)

    @app.teardown_request
    def _close(_exc):
        if g.pop("_db_opened", False) and not db.is_closed():
            db.close()


def _backfill_country():
    """Every authenticated request may fill users.country once (spec, users rule 3)."""
    if current_user.is_authenticated and current_user.country is None:
        header = request.headers.get("Edge-IPCountry")
        if backfill_user_country(current_user.id, header):
            current_user.country = header.strip().upper()
