"""The development sign-in by e-mail, `POST /auth/dev-login` (development and tests only:
it is never registered in production)."""

from __future__ import annotations

from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue

from models import users
from models.settings import Settings
from web.api.me import me_json
from web.api.operation import json_body
from web.api.schemas.account import DevLogin
from web.auth import start_session
from web.errors import error_response


def init_app(app: Flask, settings: Settings) -> None:
    if settings.dev_login and not settings.is_production:
        app.add_url_rule("/auth/dev-login", view_func=dev_login, methods=["POST"])


def dev_login() -> ResponseReturnValue:
    """Sign in (creating the user on first use) by e-mail, and answer as GET /api/me."""
    if not request.is_json:
        return error_response(415)
    body = json_body(DevLogin)
    user = users.dev_sign_in(body.email, body.name)
    start_session(user)
    return jsonify(me_json(user))
