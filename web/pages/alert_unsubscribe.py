"""The alert mail's unsubscribe address (RFC 8058; docs/alerts.md, Mail), used without
signing in: the token in the address is the secret. GET only asks (a link scanner that
follows every link of a mail must not stop an alert); POST stops the alert, whether a
person presses the page's button or the mail client posts `List-Unsubscribe=One-Click`
itself. The POST carries no CSRF token (a mail client has none): it is exempt, and it
can do nothing but stop the one alert its token names."""

from __future__ import annotations

from flask import Flask, abort, render_template

from models.alert_mail import alert_of_unsubscribe_token
from models.alerts import unsubscribe
from web.csrf import Exemptions
from web.pages.blueprint import bp


@bp.get("/alerts/unsubscribe/<token>")
def alert_unsubscribe(token: str) -> str:
    alert = alert_of_unsubscribe_token(token)
    if alert is None:
        abort(404)
    return render_template(
        "alert_unsubscribe.html", alert=alert, stopped=alert.deleted_at is not None
    )


@bp.post("/alerts/unsubscribe/<token>")
def alert_unsubscribe_now(token: str) -> str:
    alert = unsubscribe(token)
    if alert is None:
        abort(404)
    return render_template("alert_unsubscribe.html", alert=alert, stopped=True)


def init_app(app: Flask, csrf: Exemptions) -> None:
    csrf.exempt(alert_unsubscribe_now)
