"""The reader's choice of language (anyone, from the footer) and time zone (signed-in
users, on the account page)."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Flask, flash, redirect, request, url_for
from werkzeug.wrappers import Response as HttpResponse

from models.errors import ValidationError
from models.problems import Problem
from models.users import set_reading_preferences
from web.auth import login_required
from web.csrf import CSRFError, Exemptions, TokenError, validate_csrf
from web.i18n import LOCALE_COOKIE, LOCALES, locale_code, time_zones
from web.translation import force_locale
from web.translation import gettext as _
from web.visitor import member, viewer

bp = Blueprint("preferences", __name__)

COOKIE_DAYS = 365
NOT_A_LOCALE = Problem("not_a_choice", choices=", ".join(LOCALES))


def _back(default: str) -> str:
    """The page the form came from, when it is one of ours (a path, no other host)."""
    target = request.form.get("next") or ""
    parts = urlsplit(target)
    if target.startswith("/") and not target.startswith("//") and not parts.netloc:
        return target
    return default


@bp.post("/language")
def choose_language() -> HttpResponse:
    """Exempt from the site-wide CSRF check so a visitor needs no session for it (a
    signed-out page starts none); a signed-in member's form carries the token, checked
    here, since the choice is then saved on the account."""
    user = viewer()
    if user is not None:
        try:
            validate_csrf(request.form.get("csrf_token"))
        except TokenError as error:
            raise CSRFError(str(error)) from None
    locale = request.form.get("locale", "")
    if locale not in LOCALES:
        raise ValidationError(fields={"locale": NOT_A_LOCALE})
    if user is not None:
        set_reading_preferences(user.id, locale=locale, time_zone=user.time_zone)
    response = redirect(_back("/"))
    response.set_cookie(
        LOCALE_COOKIE, locale, max_age=COOKIE_DAYS * 86400, samesite="Lax", httponly=True
    )
    return response


@bp.post("/account/preferences")
@login_required
def save_preferences() -> HttpResponse:
    locale = request.form.get("locale") or None
    time_zone = request.form.get("time_zone") or None
    fields: dict[str, str] = {}
    if locale is not None and locale not in LOCALES:
        fields["locale"] = NOT_A_LOCALE
    if time_zone is not None and time_zone not in time_zones():
        fields["time_zone"] = "an IANA time zone such as Asia/Tokyo"
    if fields:
        raise ValidationError(fields=fields)
    set_reading_preferences(member().id, locale=locale, time_zone=time_zone)
    # Said in the language just chosen: the next page is shown in it.
    with force_locale(locale or locale_code()):
        flash(_("Your language and time zone are saved."))
    response = redirect(url_for("pages.account"))
    if locale:
        response.set_cookie(
            LOCALE_COOKIE, locale, max_age=COOKIE_DAYS * 86400, samesite="Lax", httponly=True
        )
    return response


def init_app(app: Flask, csrf: Exemptions) -> None:
    app.register_blueprint(bp)
    csrf.exempt(choose_language)
