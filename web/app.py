"""The app factory: configuration, database, sign-in and every blueprint wired into one
Flask app. Only the web process imports it (web/wsgi.py); the command line names it
instead (web/cli/group.py), so that `subsearch --help` and `serve` do not load it."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from urllib.parse import urlsplit
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

from flask import Flask, g
from flask.json.provider import DefaultJSONProvider
from flask_talisman import Talisman
from flask_wtf.csrf import CSRFProtect
from werkzeug.middleware.proxy_fix import ProxyFix

from models import logs
from models.countries import backfill_user_country
from models.db import db, init_db
from models.settings import Settings, load_settings
from web import (
    admin,
    api,
    auth,
    catalogs,
    cors,
    dev_login,
    errors,
    i18n,
    icons,
    limits,
    metrics,
    pages,
    preferences,
    request_log,
    wiring,
)
from web.api.operation import check_response
from web.devtools.local_payments import pages as local_payment_pages
from web.pages import alert_unsubscribe
from web.visitor import viewer, visitor_country

csrf = CSRFProtect()
talisman = Talisman()
log = logging.getLogger(__name__)

# The largest body any endpoint takes (an ad image is at most 500 KB).
MAX_BODY_BYTES = 2 * 1024 * 1024


def create_app(settings: Settings | None = None) -> Flask:
    settings = settings or load_settings()
    wiring.wire(settings)  # the services and the broker, before any view uses one
    logs.configure(settings.log_format, component="web", secrets=logs.secret_values(settings))
    _check_catalogs(settings)
    # Named for the package: its folder holds templates, static files and translations,
    # and its name is the app's logger's.
    app = Flask("web")
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
    if isinstance(app.json, DefaultJSONProvider):
        app.json.ensure_ascii = False  # Japanese as itself in every JSON answer
    init_db(settings.database_url)
    _connection_per_request(app)
    metrics.init_app(app)  # first: its timer starts before, and its count ends after, the rest
    request_log.init_app(app)  # the request id and the access line, around all but metrics

    i18n.init_app(app)
    errors.init_app(app)
    auth.init_app(app)
    dev_login.init_app(app, settings)
    api.init_app(app)
    if settings.app_env == "test":
        # Every answer of every test is checked against its declaration.
        app.after_request(check_response)
    pages.init_app(app)
    icons.init_app(app)
    preferences.init_app(app, csrf)
    alert_unsubscribe.init_app(app, csrf)  # RFC 8058's one-click POST has no token
    admin.init_app(app)
    cors.init_app(app, settings)  # before the limits: a preflight is never counted
    limits.init_app(app, settings)  # after every limited view is registered
    csrf.init_app(app)
    _security_headers(app, settings)
    # The API checks its state changes itself (web.api.guard_state_changes: same site,
    # and a JSON call or the X-CSRFToken header); HTML forms carry a token.
    for name, blueprint in app.blueprints.items():
        if name == "api" or name.startswith("api."):
            csrf.exempt(blueprint)
    if "dev_login" in app.view_functions:
        csrf.exempt(app.view_functions["dev_login"])
    if settings.payment_backend == "local":
        local_payment_pages.init_app(app, csrf)
    app.before_request(_backfill_country)
    if settings.dev_default_country:
        app.wsgi_app = DefaultCountry(app.wsgi_app, settings.dev_default_country)  # type: ignore[method-assign]
    if settings.trusted_proxy_hops:
        # The client address is what the trusted proxies report (X-Forwarded-For, counted
        # from the right); without them a client could name any address it likes.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxy_hops)  # type: ignore[method-assign]
    return app


def _check_catalogs(settings: Settings) -> None:
    """Pages in a language whose catalog was never compiled would read English: production
    refuses to start (ConfigError, as for its other settings), development says so."""
    if settings.is_production:
        catalogs.refuse_missing_catalogs()
        return
    for problem in catalogs.missing_catalogs():
        log.warning("pages will read English: %s (run `make translations`)", problem)


class DefaultCountry:
    """Development only (DEV_DEFAULT_COUNTRY): a request without Edge-IPCountry is
    taken as coming from the default country, so a local browser sees what a visitor
    from it sees. Production never gets here: the edge sets the header."""

    def __init__(self, wsgi_app: WSGIApplication, country: str):
        self.wsgi_app = wsgi_app
        self.country = country

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        environ.setdefault("HTTP_EDGE_IPCOUNTRY", self.country)
        return self.wsgi_app(environ, start_response)


# Where pages load from besides this site: video thumbnails from the platform's image
# host, and the player's privacy-enhanced embed.
THUMBNAIL_HOSTS = ("https://i.ytimg.com",)
PLAYER_FRAME_HOSTS = ("https://www.youtube-nocookie.com",)


def content_security_policy(public_base_url: str) -> dict[str, str]:
    """No inline script or style anywhere: scripts are files under /static, and server
    data reaches them through data- attributes. Ad images, click and impression URLs are
    absolute on PUBLIC_BASE_URL, which is this site, but it is named too so a
    development server reached under another host name keeps working."""
    parts = urlsplit(public_base_url)
    public = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""

    def sources(*extra: str) -> str:
        return " ".join(dict.fromkeys(("'self'", *extra, public) if public else ("'self'", *extra)))

    return {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": "'self'",
        # data: for swagger-ui's icons on /api/docs.
        "img-src": sources("data:", *THUMBNAIL_HOSTS),
        "connect-src": sources(),
        "frame-src": " ".join(PLAYER_FRAME_HOSTS),
        "frame-ancestors": "'none'",
        "object-src": "'none'",
        "base-uri": "'self'",
        # Forms post only here; the payment provider's checkout is reached by navigating
        # to its URL, never by a form. A form post that redirects (the local provider's
        # Pay button going back to PUBLIC_BASE_URL) is held to this list as well.
        "form-action": sources(),
    }


def _security_headers(app: Flask, settings: Settings) -> None:
    talisman.init_app(
        app,
        content_security_policy=content_security_policy(settings.public_base_url),
        frame_options="DENY",
        referrer_policy="strict-origin-when-cross-origin",
        x_content_type_options=True,
        # TLS ends at the proxy in front of gunicorn, which also sends plain HTTP to
        # HTTPS; redirecting here would loop on a proxy that does not forward the scheme.
        # HSTS is still sent in production (talisman adds it when the request came over
        # HTTPS, as X-Forwarded-Proto tells), never in development over plain HTTP.
        force_https=False,
        strict_transport_security=settings.is_production,
        # The cookie flags set above stay as they are: Secure only in production.
        session_cookie_secure=settings.is_production,
        session_cookie_http_only=True,
        session_cookie_samesite="Lax",
    )


def _connection_per_request(app: Flask) -> None:
    """A request takes a connection from the pool on its first query (the database
    connects on use) and gives it back when it ends. One that never queries (a ping, a
    beacon on a live ad) takes none: it answers while the database is out of reach, and
    on PostgreSQL it skips the round trip with which the pool checks a connection it
    hands out (`SELECT 1`). A connection the thread already held is left open."""

    @app.before_request
    def _note_held() -> None:
        g._db_was_open = not db.is_closed()

    @app.teardown_request
    def _close(_exc: BaseException | None) -> None:
        if not g.pop("_db_was_open", True) and not db.is_closed():
            db.close()


def _backfill_country() -> None:
    """Every authenticated request may fill users.country once (spec, users rule 3)."""
    user = viewer()
    if user is not None and user.country is None:
        header = visitor_country()
        if header is not None and backfill_user_country(user.id, header):
            user.country = header.strip().upper()
