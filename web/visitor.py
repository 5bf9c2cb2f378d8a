"""Who a request's visitor is: the member signed in, and what the edge in front of the
site says of them (one place reads each).

The member comes from Flask-Login's `current_user`, read here alone: Flask-Login 0.6
ships no type information, and these functions give the rest of web/ a `User` or None
where it would otherwise hold an untyped proxy (an anonymous user when signed out)."""

from __future__ import annotations

import flask_login
from flask import request

from models.errors import DomainError
from models.tables import User

# The header the edge sets to the visitor's country (ISO 3166-1 alpha-2, as it sends it;
# development sets a default: web/__init__.py DefaultCountry).
COUNTRY_HEADER = "Edge-IPCountry"


class Unauthenticated(DomainError):
    code = "unauthenticated"
    status = 401
    message = "Sign in to continue."


def visitor_country() -> str | None:
    """The visitor's country as the edge sent it (unchecked: each reader decides what
    it accepts), None when there is none."""
    return request.headers.get(COUNTRY_HEADER)


def viewer() -> User | None:
    """The member signed in, None for a visitor who is not (and outside a request)."""
    user = flask_login.current_user._get_current_object()
    if user is None or not user.is_authenticated:
        return None
    signed_in: User = user
    return signed_in


def member() -> User:
    """The member signed in, for a view behind a sign-in guard (`operation(auth=MEMBER)`,
    `login_required`): Unauthenticated (401) if one ever runs without it."""
    user = viewer()
    if user is None:
        raise Unauthenticated()
    return user


def viewer_id() -> str | None:
    """The signed-in member's id, None for a visitor who is not signed in."""
    user = viewer()
    return user.id if user is not None else None
