"""Flask-WTF's CSRF token with its types: the check a signed-in member's form or the
API's upload carries, and what it raises. Flask-WTF 1.3 and WTForms ship no type
information, so every name taken from them directly would be Any where it is used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from flask.typing import ResponseReturnValue
from flask_wtf import csrf as flask_wtf_csrf
from werkzeug.exceptions import BadRequest
from wtforms.validators import ValidationError  # type: ignore[import-untyped]  # no types

# A form without this session's token: a 400, which web/errors.py words for people.
CSRFError: type[BadRequest] = flask_wtf_csrf.CSRFError
# What validate_csrf raises for a token that is missing, expired or not this session's.
TokenError: type[ValueError] = ValidationError


class Exemptions(Protocol):
    """What a module asks of the app's CSRFProtect: to leave one of its views unchecked
    (it checks the token itself, or needs none)."""

    def exempt(
        self, view: Callable[..., ResponseReturnValue]
    ) -> Callable[..., ResponseReturnValue]: ...


def validate_csrf(token: str | None) -> None:
    """Raises TokenError unless `token` is this session's CSRF token, still valid."""
    flask_wtf_csrf.validate_csrf(token)
