"""Who a request's visitor is: the member signed in, and what the edge in front of the
site says of them (one place reads each)."""

from __future__ import annotations

from flask import request
from flask_login import current_user

# The header the edge sets to the visitor's country (ISO 3166-1 alpha-2, as it sends it;
# development sets a default: web/__init__.py DefaultCountry).
COUNTRY_HEADER = "Edge-IPCountry"


def visitor_country() -> str | None:
    """The visitor's country as the edge sent it (unchecked: each reader decides what
    it accepts), None when there is none."""
    return request.headers.get(COUNTRY_HEADER)


def viewer_id() -> str | None:
    """The signed-in member's id, None for a visitor who is not signed in."""
    return current_user.id if current_user.is_authenticated else None
