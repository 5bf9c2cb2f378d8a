"""Sign-in: OpenID Connect through authlib, sessions and role guards (the development
sign-in by e-mail is web/dev_login.py).

The cookie is Flask's signed session holding only a session token; the
`sessions` row behind it decides whether it is still valid, so logout and
revocation take effect at once.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, Protocol
from urllib.parse import quote, urlsplit

import flask_login
from authlib.common.errors import AuthlibBaseError  # type: ignore[import-untyped]  # no types
from authlib.integrations.flask_client import OAuth  # type: ignore[import-untyped]  # no types
from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from requests import RequestException
from werkzeug.wrappers import Response as HttpResponse

from models import users
from models.errors import Forbidden, SignInFailed
from models.settings import get_settings
from models.tables import User
from models.verifications import VerificationStore
from tasks.billing import create_payment_customer
from web.errors import error_response, wants_json
from web.i18n import ERROR_CODES
from web.translation import gettext as _
from web.translation import lazy_gettext
from web.visitor import viewer
from workers.sending import OnFailure, enqueue

log = logging.getLogger(__name__)

bp = Blueprint("auth", __name__)
login_manager = flask_login.LoginManager()

P = ParamSpec("P")


class IdentityProvider(Protocol):
    """What the sign-in asks of the OpenID Connect client authlib registers."""

    def authorize_redirect(self, redirect_uri: str) -> HttpResponse: ...

    def authorize_access_token(self) -> dict[str, Any]: ...

    def userinfo(self, *, token: Mapping[str, Any]) -> Mapping[str, object]: ...


def load_user(token: str) -> User | None:
    return users.user_for_session(token)


def unauthorized() -> ResponseReturnValue:
    if wants_json():
        return error_response(401)
    return redirect(url_for("auth.login", next=current_address()))


# Registered as calls, not as decorators: Flask-Login's are untyped, and would make the
# functions untyped too.
login_manager.user_loader(load_user)
login_manager.unauthorized_handler(unauthorized)


def login_required(view: Callable[P, ResponseReturnValue]) -> Callable[P, ResponseReturnValue]:
    """Flask-Login's guard of a page: a visitor who is not signed in is sent to sign in
    (`unauthorized`) and the view does not run."""
    guarded: Callable[P, ResponseReturnValue] = flask_login.login_required(view)
    return guarded


def current_address() -> str:
    """The address of this request as a path on this site: the path (percent-encoded, so
    a space or a kanji in it survives _safe_next) and the query exactly as sent."""
    path = quote(request.path, safe="/:@!$&'()*+,;=-._~")
    query = request.query_string.decode("latin-1")
    return f"{path}?{query}" if query else path


def sign_in_url() -> str:
    """The sign-in link of a page: it comes back to the whole address (path and query:
    a video's moment `t` and its search words `q`). On the sign-in page itself it keeps
    the target that page already has."""
    if request.endpoint == "auth.login":
        return url_for("auth.login", next=_safe_next(request.args.get("next")))
    return url_for("auth.login", next=current_address())


def init_app(app: Flask) -> None:
    settings = get_settings()
    login_manager.init_app(app)
    login_manager.session_protection = None  # the server-side session row is the authority
    if settings.oidc_issuer:
        # One client per app: each app may point at its own identity provider.
        oauth = OAuth(app, cache=VerificationStore())
        app.extensions["subsearch_oidc"] = oauth.register(
            "oidc",
            client_id=settings.oidc_client_id,
            client_secret=settings.oidc_client_secret,
            server_metadata_url=settings.oidc_issuer.rstrip("/")
            + "/.well-known/openid-configuration",
            client_kwargs={"scope": "openid email profile"},
        )
    app.register_blueprint(bp)
    app.jinja_env.globals.update(sign_in_url=sign_in_url)


def _oidc() -> IdentityProvider:
    client: IdentityProvider = current_app.extensions["subsearch_oidc"]
    return client


def _safe_next(target: str | None) -> str:
    """Only a path on this site, so the sign-in cannot be used to bounce elsewhere.

    Every place that sends a person on to a target they supplied (the sign-in's `next`,
    kept across the identity provider, and the dev login page's navigation) goes through
    here. Browsers read a backslash as a slash (`/\\evil.example` is `//evil.example`)
    and drop tabs and newlines from URLs, so those are refused outright, as is anything
    that still names a scheme or a host once backslashes are read as slashes.
    """
    if not target or not isinstance(target, str):
        return "/"
    if "\\" in target or any(ch.isspace() or unicodedata.category(ch)[0] in "CZ" for ch in target):
        return "/"
    if not target.startswith("/") or target.startswith("//"):
        return "/"
    parsed = urlsplit(target.replace("\\", "/"))
    if parsed.scheme or parsed.netloc:
        return "/"
    return target


def start_session(user: User) -> None:
    session.clear()  # no state carried across the sign-in (session fixation)
    users.open_session(
        user,
        ip_address=request.remote_addr,
        user_agent=request.headers.get("User-Agent"),
    )
    session.permanent = True
    flask_login.login_user(user)
    if not user.payment_customer_id:
        # Created at sign-up; a second message for the same user changes nothing. LOG:
        # with the queue down the sign-in goes on, and the subscription checkout creates
        # the customer instead (docs/operating.md, Faults and recovery).
        enqueue(create_payment_customer, on_failure=OnFailure.LOG, user_id=user.id)


@bp.get("/login")
def login() -> ResponseReturnValue:
    settings = get_settings()
    next_path = _safe_next(request.args.get("next"))
    if viewer() is not None:
        return redirect(next_path)
    if settings.oidc_issuer:
        session["next"] = next_path
        try:
            return _oidc().authorize_redirect(url_for("auth.callback", _external=True))
        except (RequestException, AuthlibBaseError, ValueError):
            log.exception("identity provider unreachable")
            return render_template(
                "error.html", status=503, message=_("Cannot reach the sign-in service.")
            ), 503
    if settings.dev_login:
        return render_template("login.html", next_path=next_path)
    return render_template("error.html", status=503, message=_("Sign-in is not set up.")), 503


SIGN_IN_REFUSALS = {
    users.NO_EMAIL_SHARED: lazy_gettext("The identity provider did not share an e-mail address."),
    users.EMAIL_TAKEN: lazy_gettext(
        "An account with this e-mail exists. Sign in the way you did before."
    ),
}


@bp.get("/auth/callback")
def callback() -> ResponseReturnValue:
    settings = get_settings()
    if not settings.oidc_issuer:
        abort(404)
    if request.args.get("error"):
        # The person declined at the provider (or the provider refused).
        return render_template("error.html", status=400, message=_("Sign-in was cancelled.")), 400
    try:
        token = _oidc().authorize_access_token()
        claims: Mapping[str, object] = token.get("userinfo") or _oidc().userinfo(token=token)
    except (AuthlibBaseError, RequestException, ValueError, KeyError) as error:
        # A replayed, forged or stale callback: its state is gone or does not match.
        log.info("rejected sign-in callback: %s", error)
        return render_template(
            "error.html",
            status=400,
            message=_("Sign-in could not be completed. Please try again."),
        ), 400
    # The issuer a token names, else the one configured (a claim is a JSON string).
    issuer = str(claims.get("iss") or settings.oidc_issuer)
    next_path = _safe_next(session.get("next"))
    try:
        user = users.sign_in_with_identity(issuer, str(claims["sub"]), dict(claims))
    except SignInFailed as error:
        message = SIGN_IN_REFUSALS.get(error.message, ERROR_CODES["sign_in_failed"])
        return render_template("error.html", status=400, message=str(message)), 400
    start_session(user)
    return redirect(next_path)


@bp.route("/logout", methods=["GET", "POST"])
def logout() -> ResponseReturnValue:
    if request.method == "GET":
        return render_template("logout.html")
    user = viewer()
    if user is not None:
        users.revoke_session(user.session_token)
    flask_login.logout_user()
    session.clear()
    return redirect("/")


def require_admin_api() -> ResponseReturnValue | None:
    """before_request of /api/admin: 401 anonymous, 403 members."""
    user = viewer()
    if user is None:
        return error_response(401)
    if not user.is_admin:
        raise Forbidden("Administrators only.")
    return None


def require_admin_page() -> ResponseReturnValue | None:
    """before_request of /admin pages: anonymous visitors go to sign-in, members get 403."""
    user = viewer()
    if user is None:
        # The app's one LoginManager (init_app): its unauthorized() runs `unauthorized`.
        sent_to_sign_in: ResponseReturnValue = login_manager.unauthorized()
        return sent_to_sign_in
    if not user.is_admin:
        raise Forbidden("Administrators only.")
    return None
