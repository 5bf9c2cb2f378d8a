"""Country codes: the 249 ISO 3166-1 alpha-2 codes, and the one-time backfill of users.country."""

from __future__ import annotations

import logging

import pycountry

from models.problems import Problem
from models.tables import User

log = logging.getLogger(__name__)

ISO_COUNTRY_CODES = frozenset(country.alpha_2 for country in pycountry.countries)


def usable_country(value: str | None) -> str | None:
    """The code when it is one of the 249; `XX`, `T1`, absent or anything else gives None."""
    if not value:
        return None
    code = value.strip().upper()
    return code if code in ISO_COUNTRY_CODES else None


def country_problem(value: str) -> Problem | None:
    """Why `value` is not a country code, or None: the one check behind every country a
    request names (the API's schemas and the domain alike)."""
    return None if usable_country(value) else Problem("not_a_country")


def backfill_user_country(user_id: str, header_value: str | None) -> bool:
    """Write the user's country once; a set country is never overwritten.

    One conditional statement, so two concurrent requests cannot both write.
    A failure is logged and reported as False: it must never block a request.
    """
    code = usable_country(header_value)
    if code is None:
        return False
    try:
        changed: int = (
            User.update(country=code).where((User.id == user_id) & User.country.is_null()).execute()
        )
    except Exception:
        log.exception("country backfill failed for user %s", user_id)
        return False
    return changed == 1
